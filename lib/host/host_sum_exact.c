/* host_sum_exact.c - GPGPU_SUM_EXACT in plain C: kernels/sum_exact.cl's
   arithmetic (the sum as an integer times 2^BASE in 32-bit limbs of signed
   64-bit words, rounded once to nearest even), for the fallback and for
   the partial sums of gpgpu.h, which are host arithmetic whatever the
   device (lib/primitives/sum_exact.c runs the device passes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

size_t gpgpu__exact_limbs(gpgpu_type t)
{
    return t == GPGPU_F32 ? 12 : 68;
}

enum { SX_NAN = 1, SX_PINF = 2, SX_NINF = 4, SX_NOT_NEG_ZERO = 8, SX_SEEN = 16 };
#define SX_MAX_LIMBS 68
#define SX_M32 0xffffffffll

typedef struct {
    size_t limbs;       /* 12 or 68 */
    unsigned mant;      /* significand bits with the hidden one: 24 or 53 */
    unsigned exp_max;   /* 255 or 2047 */
    unsigned width;     /* 32 or 64 */
} sx_format;

void gpgpu__exact_carry(int64_t *a, size_t limbs)
{
    int64_t carry = 0;
    for (size_t j = 0; j + 1 < limbs; j++) {
        int64_t v = a[j] + carry;
        a[j] = v & SX_M32;
        carry = v >> 32; /* arithmetic shift (gcc, clang): floor division */
    }
    a[limbs - 1] += carry;
}

static uint64_t sx_field(const int64_t *a, size_t limbs, unsigned lo, unsigned len)
{
    const unsigned i = lo >> 5;
    const uint64_t w = (uint64_t)a[i] | (i + 1 < limbs ? (uint64_t)a[i + 1] << 32 : 0);
    return (w >> (lo & 31)) & (((uint64_t)1 << len) - 1);
}

static int sx_sticky(const int64_t *a, unsigned pos)
{
    const unsigned i = pos >> 5;
    int any = (a[i] & (((int64_t)1 << (pos & 31)) - 1)) != 0;
    for (unsigned j = 0; j < i; j++)
        any |= a[j] != 0;
    return any;
}

/* The bits of the rounded sum of canonical limbs a (changed). */
static uint64_t sx_round(const sx_format *f, int64_t *a, unsigned flags)
{
    const uint64_t sign = (uint64_t)1 << (f->width - 1);
    const uint64_t inf = (uint64_t)f->exp_max << (f->mant - 1);
    if ((flags & SX_NAN) || ((flags & SX_PINF) && (flags & SX_NINF)))
        return inf | (uint64_t)1 << (f->mant - 2);
    if (flags & (SX_PINF | SX_NINF))
        return inf | ((flags & SX_NINF) ? sign : 0);
    const int neg = a[f->limbs - 1] < 0;
    if (neg) {
        for (size_t j = 0; j < f->limbs; j++)
            a[j] = -a[j];
        gpgpu__exact_carry(a, f->limbs);
    }
    long h = (long)f->limbs - 1;
    while (h >= 0 && a[h] == 0)
        h--;
    if (h < 0)
        return (flags & SX_SEEN) && !(flags & SX_NOT_NEG_ZERO) ? sign : 0;
    const unsigned P = 32 * (unsigned)h + 31 - (unsigned)__builtin_clz((unsigned)a[h]);
    uint64_t bits;
    if (P < f->mant) {
        bits = (uint64_t)a[0] | (uint64_t)a[1] << 32;
    } else if (P - (f->mant - 1) + 1 >= f->exp_max) {
        bits = inf;
    } else {
        const unsigned lo = P - (f->mant - 1);
        uint64_t q = f->mant == 24 ? sx_field(a, f->limbs, lo, 24)
                                   : sx_field(a, f->limbs, lo, 32) |
                                         sx_field(a, f->limbs, lo + 32, 21) << 32;
        if (sx_field(a, f->limbs, lo - 1, 1) && (sx_sticky(a, lo - 1) || (q & 1)))
            q++;
        bits = ((uint64_t)lo << (f->mant - 1)) + q;
        if (bits > inf)
            bits = inf;
    }
    return bits | (neg ? sign : 0);
}

static const sx_format sx_f32 = {12, 24, 255, 32}, sx_f64 = {68, 53, 2047, 64};

static const sx_format *sx_format_of(gpgpu_type t)
{
    return t == GPGPU_F32 ? &sx_f32 : &sx_f64;
}

/* acc += v * 2^p (v signed, |v| < 2^63): the 32-bit pieces of |v| << (p %
   32) into the limbs from p / 32 on. Each limb gets less than 2^33. */
static void sx_add_at(int64_t *acc, int64_t v, unsigned p)
{
    const int64_t sg = v < 0 ? -1 : 1;
    const uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
    const unsigned k = p >> 5, s = p & 31;
    const uint64_t v0 = (a & SX_M32) << s, v1 = (a >> 32) << s;
    acc[k] += sg * (int64_t)(v0 & SX_M32);
    acc[k + 1] += sg * (int64_t)((v0 >> 32) + (v1 & SX_M32));
    acc[k + 2] += sg * (int64_t)(v1 >> 32);
}

/* Flags of an exponent-all-ones element b (NaN or an infinity). */
static unsigned sx_special(const sx_format *f, uint64_t b)
{
    const uint64_t sign = (uint64_t)1 << (f->width - 1);
    return (b & (((uint64_t)1 << (f->mant - 1)) - 1)) ? SX_NAN : (b & sign) ? SX_NINF : SX_PINF;
}

/* Elements per batch of the exponent bins: f32 bins take signed 24-bit
   significands (2^32 of them stay below 2^56), f64 ones the low and high
   halves of 53-bit significands (2^30 of them below 2^62). */
enum { SX_F32_BATCH = 1 << 30, SX_F64_BATCH = 1 << 30 };

/* f32 element i of a batch goes to the bins of lane i % SX_LANES. Data of few
   exponents (floats in [0, 1): half of them of one exponent) would make
   one set of bins a chain of dependent read-modify-writes of the same
   word, each waiting for the store before it (several cycles an element,
   the serial loop's speed); four sets make four shorter chains that
   overlap, so the loop runs at the speed of its instructions. A lane
   holds at most a batch's worth, so its sums stay within the bounds
   above, and so does the sum of the lanes. */
enum { SX_LANES = 4 };

/* Elements of f64 whose exponent range is read before they are binned. */
enum { SX_F64_BLOCK = 1024, SX_F64_SPAN = 512 };

/* An f32 element's significand with its hidden bit, in units of 2^(e - 1)
   (2^0 for e = 0: subnormals), e its biased exponent. */
#define SX_F32_MAG(b) (((b) & 0x7fffffu) | (((b) & 0x7f800000u) ? 0x800000u : 0))

/* The flags of in[0 .. n) of t that the bins do not keep: NaN and the
   infinities, for a batch that holds some. */
static unsigned sx_special_flags(const sx_format *f, gpgpu_type t, const void *in, size_t n)
{
    unsigned fl = 0;
    for (size_t i = 0; i < n; i++) {
        if (t == GPGPU_F32) {
            const uint32_t b = ((const uint32_t *)in)[i];
            if (((b >> 23) & 255) == 255)
                fl |= sx_special(f, b);
        } else {
            const uint64_t b = ((const uint64_t *)in)[i];
            if (((b >> 52) & 2047) == 2047)
                fl |= sx_special(f, b);
        }
    }
    return fl;
}

/* acc (canonical on entry, zero for a new sum) += in[0 .. n), flags |= what
   the elements set; acc is canonical again on return. Each element's
   significand goes to a bin of its sign and exponent (integer adds, exact),
   then each bin to the limbs at its exponent's place: the same integer as
   adding every element to the limbs itself, for a few operations an
   element. Exponent-all-ones elements (NaN, infinities) go to bins that
   are never added; a batch that has one is read again for its flags. */
void gpgpu__exact_accumulate(gpgpu_type t, const void *in, size_t n, int64_t *acc, unsigned *flags)
{
    const sx_format *f = sx_format_of(t);
    unsigned fl = n ? SX_SEEN : 0;
    if (t == GPGPU_F32) {
        /* bins by sign and exponent (b >> 23) of magnitudes: no sign to
           apply, and a bin is zero only if its elements are all zeros */
        uint64_t bin[SX_LANES][512];
        const uint32_t *x = in;
        for (size_t i = 0; i < n;) {
            const size_t first = i, end = n - i > SX_F32_BATCH ? i + SX_F32_BATCH : n;
            memset(bin, 0, sizeof bin);
            for (; i + SX_LANES <= end; i += SX_LANES) {
                const uint32_t b0 = x[i], b1 = x[i + 1], b2 = x[i + 2], b3 = x[i + 3];
                bin[0][b0 >> 23] += SX_F32_MAG(b0);
                bin[1][b1 >> 23] += SX_F32_MAG(b1);
                bin[2][b2 >> 23] += SX_F32_MAG(b2);
                bin[3][b3 >> 23] += SX_F32_MAG(b3);
            }
            for (; i < end; i++)
                bin[0][x[i] >> 23] += SX_F32_MAG(x[i]);
            int any = 0; /* some element is not +-0 */
            for (unsigned e = 0; e < 256; e++) {
                const uint64_t p = bin[0][e] + bin[1][e] + bin[2][e] + bin[3][e];
                const uint64_t q = bin[0][e + 256] + bin[1][e + 256] + bin[2][e + 256] +
                                   bin[3][e + 256];
                any |= (p | q) != 0;
                if (e < 255 && p != q)
                    sx_add_at(acc, (int64_t)p - (int64_t)q, e ? e - 1 : 0);
            }
            if (bin[0][255] | bin[1][255] | bin[2][255] | bin[3][255] | bin[0][511] |
                bin[1][511] | bin[2][511] | bin[3][511])
                fl |= sx_special_flags(f, t, x + first, end - first);
            if (any)
                fl |= SX_NOT_NEG_ZERO;
            else /* zeros alone: is one of them +0? */
                for (size_t k = first; k < end && !(fl & SX_NOT_NEG_ZERO); k++)
                    fl |= x[k] != 0x80000000u ? SX_NOT_NEG_ZERO : 0;
            gpgpu__exact_carry(acc, f->limbs);
        }
    } else {
        /* Each block of SX_F64_BLOCK elements adds its significands (with
           the hidden bit, below 2^53) into tbl by sign and exponent (b >>
           52): one add an element and no sign to apply, and 1024 of them
           stay below 2^64. The block's bins are then folded into big (by
           exponent, the signed sums of the low 32 bits, [0], and of the
           rest, [1]) and zeroed. Only the exponents that a block can hold
           are touched: the AND and OR of its elements bound them (data
           rarely spans many; zeroing and reading every bin would cost more
           than a small sum's elements). The same AND and OR tell whether
           the block is all -0.0; a bin of exponent 2047, whether it holds a
           NaN or an infinity. A block whose bound spans more than
           SX_F64_SPAN exponents, where the fold would cost more than the
           adds save, adds each element's signed halves into big at once.
           (The bound is loose where exponents cross a power of two, as
           values either side of 1.0 do: such data take the second loop.) */
        uint64_t tbl[4096];
        int64_t big[2048][2];
        const uint64_t *x = in;
        for (size_t i = 0; i < n;) {
            const size_t end = n - i > SX_F64_BATCH ? i + SX_F64_BATCH : n;
            unsigned zlo = 0, zhi = 0; /* big[zlo .. zhi) zeroed, and tbl's */
            int nonneg0 = 0;           /* some element is not -0.0 */
            while (i < end) {
                const size_t first = i, stop = end - i > SX_F64_BLOCK ? i + SX_F64_BLOCK : end;
                uint64_t o = 0, a = ~(uint64_t)0;
                for (size_t k = i; k < stop; k++) {
                    o |= x[k];
                    a &= x[k];
                }
                nonneg0 |= o != a || o != (uint64_t)1 << 63;
                /* each exponent's bits lie between a's and o's */
                const unsigned elo = (unsigned)(a >> 52) & 2047;
                const unsigned ehi = ((unsigned)(o >> 52) & 2047) + 1;
                unsigned zero[2][2] = {{elo, ehi}, {0, 0}}; /* ranges to zero */
                if (zlo == zhi) {
                    zlo = elo;
                    zhi = ehi;
                } else {
                    zero[0][0] = elo < zlo ? elo : zlo;
                    zero[0][1] = zlo;
                    zero[1][0] = zhi;
                    zero[1][1] = ehi > zhi ? ehi : zhi;
                    zlo = zero[0][0];
                    zhi = zero[1][1];
                }
                for (int r = 0; r < 2; r++)
                    if (zero[r][1] > zero[r][0]) {
                        const size_t len = zero[r][1] - zero[r][0];
                        memset(big[zero[r][0]], 0, len * sizeof *big);
                        memset(tbl + zero[r][0], 0, len * sizeof *tbl);
                        memset(tbl + 2048 + zero[r][0], 0, len * sizeof *tbl);
                    }
                if (ehi - elo <= SX_F64_SPAN) {
                    for (; i < stop; i++) {
                        const uint64_t b = x[i];
                        tbl[b >> 52] += (b & 0xfffffffffffffull) |
                                        ((b & 0x7ff0000000000000ull) ? (uint64_t)1 << 52 : 0);
                    }
                    if (ehi == 2048 && (tbl[2047] | tbl[4095]))
                        fl |= sx_special_flags(f, t, x + first, stop - first);
                    for (unsigned e = elo; e < ehi; e++) {
                        const uint64_t pos = tbl[e], neg = tbl[2048 + e];
                        big[e][0] += (int64_t)(pos & SX_M32) - (int64_t)(neg & SX_M32);
                        big[e][1] += (int64_t)(pos >> 32) - (int64_t)(neg >> 32);
                        tbl[e] = tbl[2048 + e] = 0;
                    }
                } else {
                    uint64_t top = 0; /* bit 11: an exponent of 2047 */
                    for (; i < stop; i++) {
                        const uint64_t b = x[i], e = (b >> 52) & 2047;
                        const int64_t sg = -(int64_t)(b >> 63);
                        const uint64_t m = (b & 0xfffffffffffffull) | (e ? (uint64_t)1 << 52 : 0);
                        big[e][0] += ((int64_t)(m & SX_M32) ^ sg) - sg;
                        big[e][1] += ((int64_t)(m >> 32) ^ sg) - sg;
                        top |= e + 1;
                    }
                    if (top & 2048)
                        fl |= sx_special_flags(f, t, x + first, stop - first);
                }
            }
            fl |= nonneg0 ? SX_NOT_NEG_ZERO : 0;
            for (unsigned e = zlo; e < zhi && e < 2047; e++) {
                if (big[e][0])
                    sx_add_at(acc, big[e][0], e ? e - 1 : 0);
                if (big[e][1])
                    sx_add_at(acc, big[e][1], (e ? e - 1 : 0) + 32);
            }
            gpgpu__exact_carry(acc, f->limbs);
        }
    }
    *flags |= fl;
}

/* The rounded sum of canonical limbs a (changed) into result, one element
   of t. */
static void sx_store(gpgpu_type t, int64_t *a, unsigned flags, void *result)
{
    uint64_t bits = sx_round(sx_format_of(t), a, flags);
    if (t == GPGPU_F32) {
        uint32_t w = (uint32_t)bits;
        memcpy(result, &w, 4);
    } else {
        memcpy(result, &bits, 8);
    }
}

/* Past two parts of SX_PART elements the host's threads accumulate a part
   each into limbs of their own, added together after (exact: any order
   gives the same sum). */
enum { SX_PART = 1 << 18 };

typedef struct {
    gpgpu_type t;
    const char *in;
    size_t n, size;
    int64_t *acc;       /* SX_MAX_LIMBS per part */
    unsigned *flags;    /* per part */
} sx_job;

static void sx_part(void *arg, size_t g)
{
    const sx_job *j = arg;
    const size_t first = g * (size_t)SX_PART;
    const size_t len = j->n - first < SX_PART ? j->n - first : SX_PART;
    gpgpu__exact_accumulate(j->t, j->in + first * j->size, len, j->acc + g * SX_MAX_LIMBS,
                            j->flags + g);
}

void gpgpu__host_sum_exact(gpgpu_type t, const void *in, size_t n, void *result)
{
    int64_t acc[SX_MAX_LIMBS] = {0};
    unsigned flags = 0;
    const size_t nparts = (n + SX_PART - 1) / SX_PART, limbs = gpgpu__exact_limbs(t);
    int64_t *parts = nparts > 1 ? calloc(nparts, SX_MAX_LIMBS * sizeof *parts) : NULL;
    unsigned *pflags = parts ? calloc(nparts, sizeof *pflags) : NULL;
    if (pflags) {
        sx_job j = {t, in, n, t == GPGPU_F32 ? 4 : 8, parts, pflags};
        gpgpu__parallel(nparts, sx_part, &j);
        /* canonical parts: limbs below 2^32 and a small signed top one,
           so that their sums stay far inside int64 */
        for (size_t g = 0; g < nparts; g++) {
            for (size_t k = 0; k < limbs; k++)
                acc[k] += parts[g * SX_MAX_LIMBS + k];
            flags |= pflags[g];
            if ((g + 1) % 1024 == 0)
                gpgpu__exact_carry(acc, limbs);
        }
        gpgpu__exact_carry(acc, limbs);
    } else { /* small, or no memory for the parts: one thread */
        gpgpu__exact_accumulate(t, in, n, acc, &flags);
    }
    free(parts);
    free(pflags);
    sx_store(t, acc, flags, result);
}

/* ---- partial exact sums (gpgpu.h: gpgpu_exact_partial) --------------------- */

_Static_assert(sizeof(((gpgpu_exact_partial *)0)->limb) == SX_MAX_LIMBS * sizeof(int64_t),
               "gpgpu_exact_partial holds the widest sum (f64: 68 limbs)");
_Static_assert(sizeof(gpgpu_exact_partial) == 552, "gpgpu.h documents 552 bytes, no padding");

_Static_assert(GPGPU__EXACT_FLAGS == (SX_NAN | SX_PINF | SX_NINF | SX_NOT_NEG_ZERO | SX_SEEN),
               "host.h's flag mask is the flags below");
#define SX_ALL_FLAGS GPGPU__EXACT_FLAGS
/* The largest top limb a partial may hold: so that two of them (and a
   carry) add up in int64. A sum of the most elements a call can take is
   far below (f64: under 2^15 in the top limb; f32: 0 or -1), so only more
   than 2^45 partials of maximal sums, added together, could reach it. */
#define SX_TOP_MAX ((int64_t)1 << 61)

/* A partial these functions wrote: F32 or F64, known flags, canonical limbs
   (those of the type in [0, 2^32) but the top one, signed and within
   SX_TOP_MAX; the unused ones zero). */
static int partial_ok(const gpgpu_exact_partial *p)
{
    if (p->type != (uint32_t)GPGPU_F32 && p->type != (uint32_t)GPGPU_F64)
        return 0;
    if (p->flags & ~(uint32_t)SX_ALL_FLAGS)
        return 0;
    const size_t limbs = gpgpu__exact_limbs((gpgpu_type)p->type);
    for (size_t j = 0; j + 1 < limbs; j++)
        if (p->limb[j] < 0 || p->limb[j] > SX_M32)
            return 0;
    if (p->limb[limbs - 1] > SX_TOP_MAX || p->limb[limbs - 1] < -SX_TOP_MAX)
        return 0;
    for (size_t j = limbs; j < SX_MAX_LIMBS; j++)
        if (p->limb[j] != 0)
            return 0;
    return 1;
}

static const char *const partial_rule =
    "it is not a partial sum (one that gpgpu_exact_partial_init, _sum or _add wrote)";

gpgpu_status gpgpu_exact_partial_init(gpgpu_exact_partial *p, gpgpu_type t)
{
    GPGPU__REQUIRE(NULL, p != NULL, __func__, "p is NULL; need room for the partial");
    GPGPU__REQUIRE(NULL, t == GPGPU_F32 || t == GPGPU_F64, __func__,
                   "t is %d; need GPGPU_F32 or GPGPU_F64", (int)t);
    memset(p, 0, sizeof *p);
    p->type = (uint32_t)t;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_exact_partial_add(gpgpu_exact_partial *acc, const gpgpu_exact_partial *p)
{
    GPGPU__REQUIRE(NULL, acc != NULL, __func__, "acc is NULL; need a partial to add to");
    GPGPU__REQUIRE(NULL, p != NULL, __func__, "p is NULL; need a partial to add");
    GPGPU__REQUIRE(NULL, partial_ok(acc), __func__, "acc: %s", partial_rule);
    GPGPU__REQUIRE(NULL, partial_ok(p), __func__, "p: %s", partial_rule);
    GPGPU__REQUIRE(NULL, acc->type == p->type, __func__,
                   "acc is a sum of %s and p of %s; both must be of one type",
                   acc->type == (uint32_t)GPGPU_F32 ? "GPGPU_F32" : "GPGPU_F64",
                   p->type == (uint32_t)GPGPU_F32 ? "GPGPU_F32" : "GPGPU_F64");
    const size_t limbs = gpgpu__exact_limbs((gpgpu_type)p->type);
    int64_t sum[SX_MAX_LIMBS] = {0};
    for (size_t j = 0; j < limbs; j++) /* both canonical: no overflow */
        sum[j] = acc->limb[j] + p->limb[j];
    gpgpu__exact_carry(sum, limbs);
    memcpy(acc->limb, sum, sizeof sum);
    acc->flags |= p->flags;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_exact_partial_round(const gpgpu_exact_partial *p, void *result)
{
    GPGPU__REQUIRE(NULL, p != NULL, __func__, "p is NULL; need a partial to round");
    GPGPU__REQUIRE(NULL, result != NULL, __func__,
                   "result is NULL; need room for one element");
    GPGPU__REQUIRE(NULL, partial_ok(p), __func__, "p: %s", partial_rule);
    int64_t a[SX_MAX_LIMBS];
    memcpy(a, p->limb, sizeof a);
    sx_store((gpgpu_type)p->type, a, p->flags, result);
    return GPGPU_SUCCESS;
}
