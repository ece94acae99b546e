/* sum_exact.cl - GPGPU_SUM_EXACT on F32 and F64: the exact sum, rounded
   once to nearest even, with the same bits on every device and plan.

   A float is m * 2^p * 2^BASE with m an integer below 2^MANT and p >= 0
   (BASE = -149 for f32, -1074 for f64), so every sum of them is an integer
   times 2^BASE. That integer is exact in SX_LIMBS signed 64-bit limbs of
   32 bits each (limb j weighs 2^(32 j)); integer additions are exact and
   associative, so any split of the input over lanes, items, groups, chunks
   or devices gives the same integer, and the one rounding at the end gives
   the same bits.

   Limbs indexed by the data are slow (private arrays live in memory), so
   the elements go first into a window: per lane of a step (SX_VW elements,
   one vector load), one integer (64 bits for f32, 128 for f64) counted in
   units of 2^pb, where pb (per work item) follows the largest exponent
   seen: an element with pb <= p <= pb + SX_D adds m << (p - pb) with its
   sign, a few integer operations. Real data spans few exponents, so nearly
   every step takes that path. The others go through sx_slow: a larger
   exponent moves the window up (its contents go to the limbs first; pb
   only grows, so that happens at most once per exponent), a smaller one,
   an inf or a NaN goes to the limbs (or flags) on its own. The window is
   emptied into the limbs every SX_FLUSH steps, before a lane could
   overflow, and the limbs are carried into canonical form (every limb in
   [0, 2^32), the top one signed) every SX_CARRY steps, before a limb could.
   CPUs take blocks in two passes (sx_block: the exponent range, then the
   additions with no test); GPUs start every item of a group with the same
   window (sx_group_start).
     sum_exact_pass   each item sums its share. CPUs: each item writes one
                      row (SX_LIMBS limbs, then the flags). GPUs: the group
                      writes one row: when its items' windows share pb and
                      none touched its limbs (the usual case), a 128-bit
                      tree of the window sums; otherwise a tree per limb.
     sum_exact_final  one group adds the rows column by column, carries,
                      rounds and writes the result
   The element-to-item mapping is the plan's (CHUNKED), as in reduce.cl.
   Inf and NaN elements only set flags (SX_*); the rounding applies the
   special-value rules of GPGPU_SUM_EXACT in gpgpu.h. lib/sum_exact.c does
   the same arithmetic in plain C for the host fallback. */

#pragma OPENCL FP_CONTRACT OFF

/* SX_DOUBLE (the host sets it on CPUs with fp64): sx_block adds f32 blocks
   in double lanes (see there). */
#ifndef SX_DOUBLE
#define SX_DOUBLE 0
#endif
#if TYPE_ID != 2 || !CHUNKED
#undef SX_DOUBLE
#define SX_DOUBLE 0
#endif
#if SX_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if TYPE_ID == 2
#define SX_LIMBS 12     /* 277 bits of range + 64 of growth + sign */
#define SX_MANT 24
#define SX_EXP_MAX 255u
#define SX_WIDTH 32
typedef uint UT;
#define SX_TN float
#define SX_UN uint
#define SX_SN int
#define SX_BITS(x) as_uint(x)
#define SX_FROM_BITS(b) as_float(b)
#define SX_BASE (-149)
/* Window: 2^SX_H additions of m < 2^24 shifted by at most SX_D stay below
   2^62 per lane, so 4 lanes of WG <= 1024 items add up in 128 bits. */
#if SX_DOUBLE
#define SX_D 23         /* sx_block's 64 steps per lane add up exactly in a double */
#else
#define SX_D 26
#endif
#define SX_H 12
#elif TYPE_ID == 5
#define SX_LIMBS 68     /* 2098 bits of range + 64 of growth + sign */
#define SX_MANT 53
#define SX_EXP_MAX 2047u
#define SX_WIDTH 64
typedef ulong UT;
#define SX_TN double
#define SX_UN ulong
#define SX_SN long
#define SX_BITS(x) as_ulong(x)
#define SX_FROM_BITS(b) as_double(b)
#define SX_BASE (-1074)
/* Window: 2^SX_H additions of m < 2^53 shifted by at most SX_D stay below
   2^113 per lane (128-bit lanes), so 4 lanes of WG <= 1024 items add up in
   128 bits. */
#define SX_D 50
#define SX_H 10
#else
#error "GPGPU_SUM_EXACT is for F32 and F64"
#endif

/* Lanes per step: what fills the CPU's vector registers; 4 on GPUs (one
   16- or 32-byte load per item, and few registers). Unoptimised builds
   (oclgrind's checks) take 8 f32 lanes: oclgrind 21.10 reports a vload16's
   lanes as uninitialised, and its checker crashes on 16 lanes built from
   smaller loads. The sums are the same integers at any width. */
#ifndef SX_VW
#if CHUNKED && TYPE_ID == 2 && defined(__OPTIMIZE__)
#define SX_VW 16
#elif CHUNKED
#define SX_VW 8
#else
#define SX_VW 4
#endif
#endif
#define SX_CAT_(a, b) a##b
#define SX_CAT(a, b) SX_CAT_(a, b)
typedef SX_CAT(SX_TN, SX_VW) TV;        /* the step's elements */
typedef SX_CAT(SX_UN, SX_VW) UTV;       /* their bits */
typedef SX_CAT(SX_SN, SX_VW) STV;       /* signed, and masks */
typedef SX_CAT(long, SX_VW) LV;
typedef SX_CAT(ulong, SX_VW) ULV;
#define SX_AS_U(v) SX_CAT(as_, SX_CAT(SX_UN, SX_VW))(v)
#define SX_AS_S(v) SX_CAT(as_, SX_CAT(SX_SN, SX_VW))(v)
#define SX_LOAD(p) SX_CAT(vload, SX_VW)(0, p)
#define SX_STORE(v, p) SX_CAT(vstore, SX_VW)(v, 0, p)

#define SX_ROW (SX_LIMBS + 1)
#define SX_BATCH 4              /* GPUs: steps loaded together */
/* The hot path must be inlined (a CPU compiler passes vectors to a call
   through memory); the rare one must not be, to keep the loop small. */
#define SX_HOT inline __attribute__((always_inline))
#define SX_COLD __attribute__((noinline))
#define SX_M32 0xffffffffl
#define SX_FLUSH (1u << SX_H)   /* steps between emptying the window */
#define SX_CARRY (1u << 22)     /* steps between carries: each step adds at most
                                   3 * SX_VW values below 2^32 to a limb */
#define SX_SIGN ((UT)1 << (SX_WIDTH - 1))
#define SX_FRAC (((UT)1 << (SX_MANT - 1)) - 1)

#define SX_NAN 1u
#define SX_PINF 2u
#define SX_NINF 4u
#define SX_NOT_NEG_ZERO 8u      /* an element other than -0.0 */
#define SX_SEEN 16u             /* any element */

/* ---- the limbs -------------------------------------------------------------- */

/* acc += sg * c * 2^q for c < 2^32. */
static inline void sx_put(long *acc, uint q, ulong c, long sg)
{
    const uint k = q >> 5;
    const ulong v = c << (q & 31);
    acc[k] += sg * (long)(v & SX_M32);
    acc[k + 1] += sg * (long)(v >> 32);
}

/* acc += (hi:lo) * 2^q, a signed 128-bit integer. */
static inline void sx_put128(long *acc, uint q, ulong lo, long hi)
{
    const long sg = hi < 0 ? -1 : 1;
    ulong h = (ulong)hi;
    if (hi < 0) {               /* the magnitude */
        lo = ~lo + 1;
        h = ~h + (lo == 0);
    }
    sx_put(acc, q, lo & SX_M32, sg);
    sx_put(acc, q + 32, lo >> 32, sg);
    sx_put(acc, q + 64, h & SX_M32, sg);
    sx_put(acc, q + 96, h >> 32, sg);
}

/* One element straight into the limbs (or the flags). */
static inline void sx_add(long *acc, uint *flags, T x)
{
    const UT b = SX_BITS(x);
    const uint e = (uint)(b >> (SX_MANT - 1)) & SX_EXP_MAX;
    UT m = b & SX_FRAC;
    *flags |= SX_SEEN | (b != SX_SIGN ? SX_NOT_NEG_ZERO : 0u);
    if (e == SX_EXP_MAX) {
        *flags |= m ? SX_NAN : (b & SX_SIGN) ? SX_NINF : SX_PINF;
        return;
    }
    const uint p = e ? e - 1 : 0u;
    const long sg = (b & SX_SIGN) ? -1 : 1;
    m |= e ? (UT)1 << (SX_MANT - 1) : (UT)0;
    sx_put(acc, p, (ulong)m & SX_M32, sg);
#if SX_MANT > 32
    sx_put(acc, p + 32, (ulong)m >> 32, sg);
#endif
}

/* Canonical form: limbs below the top in [0, 2^32), the top one signed
   (right shifts of negative values are arithmetic: floor division). */
static inline void sx_carry(long *acc)
{
    long carry = 0;
    for (uint j = 0; j + 1 < SX_LIMBS; j++) {
        const long v = acc[j] + carry;
        acc[j] = v & SX_M32;
        carry = v >> 32;
    }
    acc[SX_LIMBS - 1] += carry;
}

/* ---- the window ------------------------------------------------------------- */

typedef struct {
    LV lo;          /* f32: the lanes; f64: their low words */
    ULV hi;         /* f64: the high words */
    LV nneg;        /* f64: negative elements added as ~x (two's complement
                       less one): the lane is hi:lo + nneg */
    STV nz;         /* lanes that saw an element other than -0.0 */
    int pb;         /* the unit's position: 2^(pb + BASE) */
} sx_win;

/* The limbs of an item start untouched (GPUs: zeroed on first use only,
   since most items never need them). */
typedef struct {
    long acc[SX_LIMBS];
    uint flags;
    int used;
} sx_limbs;

static inline void sx_touch(sx_limbs *l)
{
    if (!l->used) {
        for (uint j = 0; j < SX_LIMBS; j++)
            l->acc[j] = 0;
        l->used = 1;
    }
}

/* Lane l of the window as a signed 128-bit hi:lo. */
static inline void sx_lane(const sx_win *w, uint l, ulong *lo, long *hi)
{
    long a[SX_VW], n[SX_VW];
    ulong h[SX_VW];
    SX_STORE(w->lo, a);
    SX_STORE(w->hi, h);
    SX_STORE(w->nneg, n);
#if SX_MANT == 24
    *lo = (ulong)a[l];
    *hi = a[l] >> 63;
#else
    *lo = (ulong)a[l] + (ulong)n[l];
    *hi = (long)(h[l] + (*lo < (ulong)n[l]));
#endif
}

static inline int sx_empty(const sx_win *w)
{
    return !any(w->lo != 0) && !any(w->hi != 0) && !any(w->nneg != 0);
}

/* Empties the window into the limbs. */
static SX_COLD void sx_flush(sx_win *w, sx_limbs *l)
{
    if (sx_empty(w))
        return;
    sx_touch(l);
    for (uint j = 0; j < SX_VW; j++) {
        ulong lo;
        long hi;
        sx_lane(w, j, &lo, &hi);
        sx_put128(l->acc, (uint)w->pb, lo, hi);
    }
    w->lo = 0;
    w->hi = 0;
    w->nneg = 0;
}

/* The fields of a step's elements: bits b, exponent field e, significand m
   with its hidden bit, position p, and which lanes the window takes (ok). */
#define SX_FIELDS(v)                                                         \
    const UTV b = SX_AS_U(v);                                                    \
    const STV e = SX_AS_S((b >> (SX_MANT - 1)) & (UT)SX_EXP_MAX);                \
    const UTV m = (b & SX_FRAC) | (SX_AS_U(e != 0) & ((UT)1 << (SX_MANT - 1)));  \
    const STV p = e + (e != 0); /* e - 1, or 0 for subnormals */

/* Lanes whose element the window at pb takes: finite, and zero or within
   SX_D above pb. */
static SX_HOT STV sx_ok(STV e, UTV m, STV p, int pb)
{
    return ((SX_AS_U(p - pb) <= (UT)SX_D) | (m == 0)) & (e != (STV)SX_EXP_MAX);
}

/* Adds the lanes that ok marks (the others must be masked to zero by it). */
static SX_HOT void sx_win_add(sx_win *w, UTV b, UTV m, STV p, STV ok)
{
    const STV d = (p - w->pb) & ok;
    const UTV mm = m & SX_AS_U(ok);
#if SX_MANT == 24
    const LV x = SX_CAT(convert_long, SX_VW)(mm) << SX_CAT(convert_long, SX_VW)(d);
    const LV neg = SX_CAT(convert_long, SX_VW)(SX_AS_S(b) >> 31);
    w->lo += (x ^ neg) - neg;
#else
    const ULV s = SX_AS_U(d);
    const LV neg = SX_AS_S(b) >> 63;
    const ULV xlo = (mm << s) ^ SX_AS_U(neg);
    const ULV xhi = ((mm >> 1) >> (63 - s)) ^ SX_AS_U(neg);
    const ULV lo = SX_AS_U(w->lo) + xlo;
    w->hi += xhi - SX_AS_U(lo < xlo);       /* a true compare is -1 */
    w->lo = SX_AS_S(lo);
    w->nneg -= neg;
#endif
}

/* Every lane of a mask set, without a branch per lane. */
static SX_HOT int sx_all(STV ok)
{
#if SX_VW == 16
    const SX_CAT(SX_SN, 8) a = ok.s01234567 & ok.s89abcdef;
    const SX_CAT(SX_SN, 4) b = a.lo & a.hi;
#elif SX_VW == 8
    const SX_CAT(SX_SN, 4) b = ok.lo & ok.hi;
#else
    const SX_CAT(SX_SN, 4) b = ok;
#endif
    const SX_CAT(SX_SN, 2) c = b.lo & b.hi;
    return (c.x & c.y) != 0;
}

/* A step with a lane the window does not take: move the window up to the
   largest finite nonzero exponent if it is above, add what fits, and put
   the rest (smaller exponents, inf, NaN) into the limbs one by one. */
static SX_COLD void sx_slow(sx_win *w, sx_limbs *l, TV v)
{
    SX_FIELDS(v)
    const STV live = (e != (STV)SX_EXP_MAX) & (m != 0);
    SX_SN top[SX_VW], o[SX_VW];
    T x[SX_VW];
    SX_STORE(select((STV)-1, p, live), top);
    int hi = -1;
    for (uint j = 0; j < SX_VW; j++)
        hi = max(hi, (int)top[j]);
    if (hi > w->pb + SX_D && sx_empty(w)) {
        w->pb = max(hi - SX_D / 2, 0);  /* room above for the item's first elements */
    } else if (hi > w->pb + SX_D) {
        sx_flush(w, l);
        w->pb = hi - SX_D;
    }
    const STV ok = sx_ok(e, m, p, w->pb);
    sx_win_add(w, b, m, p, ok);
    if (sx_all(ok))
        return;
    SX_STORE(v, x);
    SX_STORE(ok, o);
    sx_touch(l);
    for (uint j = 0; j < SX_VW; j++)
        if (!o[j])
            sx_add(l->acc, &l->flags, x[j]);
}

/* One step: SX_VW elements. */
static SX_HOT void sx_step(sx_win *w, sx_limbs *l, TV v)
{
    SX_FIELDS(v)
    w->nz |= b != SX_SIGN;
    const STV ok = sx_ok(e, m, p, w->pb);
    if (sx_all(ok)) {
        sx_win_add(w, b, m, p, (STV)-1);    /* no masks to apply */
    } else {
        sx_win t = *w;      /* only the copy's address escapes: w stays in registers */
        sx_slow(&t, l, v);
        *w = t;
    }
}

/* One element as a step: -0.0 in the other lanes adds nothing and leaves
   the flags as they are. */
static inline TV sx_one(T x)
{
    TV v = (TV)(-(T)0);
    v.s0 = x;
    return v;
}

/* MAP on every lane of a step. */
#ifdef MAP
static inline TV sx_map(TV v)
{
    T x[SX_VW];
    SX_STORE(v, x);
    for (uint j = 0; j < SX_VW; j++)
        x[j] = MAP1(x[j]);
    return SX_LOAD(x);
}
#else
#define sx_map(v) (v)
#endif

/* After each step: empty the window and carry the limbs in time. */
static SX_HOT void sx_after(sx_win *w, sx_limbs *l, uint *steps)
{
    const uint s = ++*steps;
    if ((s & (SX_FLUSH - 1)) == 0) {
        sx_win t = *w;
        sx_flush(&t, l);
        *w = t;
    }
    if ((s & (SX_CARRY - 1)) == 0 && l->used)
        sx_carry(l->acc);
}

#if CHUNKED
/* CPUs: a block of SX_BLK elements in two passes. The first only finds
   the block's exponent range: a light loop that keeps many loads in flight
   and brings the block into the L1 cache (one pass that does the window's
   work per load leaves the core waiting on memory). When the whole block
   fits the window (moved up first if needed), the second pass adds it with
   no test at all; otherwise it goes step by step through sx_step. */
#define SX_BLK (SX_VW * 64)

/* The largest and the smallest lane of v: sx_hmax and sx_hmin. */
#if SX_VW == 16
#define SX_HFOLD16(op, v) const SX_CAT(SX_UN, 8) a = op(v.lo, v.hi); \
    const SX_CAT(SX_UN, 4) b = op(a.lo, a.hi);
#else
#define SX_HFOLD16(op, v) const SX_CAT(SX_UN, 4) b = op(v.lo, v.hi);
#endif
#define SX_HFOLD(name, op)                              \
    static SX_HOT UT name(UTV v)                        \
    {                                                   \
        SX_HFOLD16(op, v)                               \
        const SX_CAT(SX_UN, 2) c = op(b.lo, b.hi);      \
        return op(c.x, c.y);                            \
    }
SX_HFOLD(sx_hmax, max)
SX_HFOLD(sx_hmin, min)

static SX_HOT void sx_block(sx_win *w, sx_limbs *l, __global const T *in)
{
    /* magnitudes' bits shifted up by one: their order is the magnitudes';
       minus one, zero wraps to the top and bounds nothing */
    UTV hi = 0, lo = (UTV)(-(UT)1);
    for (uint j = 0; j < SX_BLK; j += SX_VW) {
        const UTV b = SX_AS_U(sx_map(SX_LOAD(in + j)));
        hi = max(hi, b << 1);
        lo = min(lo, (b << 1) - 1);
        w->nz |= b != SX_SIGN;
    }
    const UT least = sx_hmin(lo);
    const int emax = (int)(sx_hmax(hi) >> SX_MANT);
    const int emin = least == -(UT)1 ? (int)SX_EXP_MAX : (int)((least + 1) >> SX_MANT);
    if (emax != (int)SX_EXP_MAX) {
        const int top = max(emax - 1, 0);
        if (top > w->pb + SX_D) {
            sx_win t = *w;
            sx_flush(&t, l);
            *w = t;
            w->pb = top - SX_D;
        }
        if (max(emin - 1, 0) >= w->pb) {
#if SX_DOUBLE
            /* Every element is a multiple of 2^pb units below 2^(pb + SX_D + 24):
               64 of them per lane add up exactly in a double, which scaled
               by 2^-pb units is the integer the window adds. */
            SX_CAT(double, SX_VW) sum = 0;
            for (uint j = 0; j < SX_BLK; j += SX_VW)
                sum += SX_CAT(convert_double, SX_VW)(sx_map(SX_LOAD(in + j)));
            const double unit = as_double((ulong)(1023 - SX_BASE - w->pb) << 52);
            w->lo += SX_CAT(convert_long, SX_VW)(sum * unit);
#else
            for (uint j = 0; j < SX_BLK; j += SX_VW) {
                SX_FIELDS(sx_map(SX_LOAD(in + j)))
                sx_win_add(w, b, m, p, (STV)-1);
            }
#endif
            return;
        }
    }
    for (uint j = 0; j < SX_BLK; j += SX_VW)
        sx_step(w, l, sx_map(SX_LOAD(in + j)));
}
#endif

/* An empty window at position 0 and untouched limbs. */
static inline void sx_start(sx_win *w, sx_limbs *l)
{
    w->lo = 0;
    w->hi = 0;
    w->nneg = 0;
    w->nz = 0;
    w->pb = 0;
    l->flags = 0;
    l->used = 0;
}

/* What the item saw besides its numbers. */
static inline uint sx_flags(const sx_win *w, const sx_limbs *l, uint steps)
{
    return l->flags | (steps ? SX_SEEN : 0u) | (any(w->nz != 0) ? SX_NOT_NEG_ZERO : 0u);
}

/* The sum of the item's window lanes as a signed 128-bit hi:lo. */
static inline void sx_win_total(const sx_win *w, ulong *lo, long *hi)
{
    ulong tl = 0;
    long th = 0;
    for (uint j = 0; j < SX_VW; j++) {
        ulong a;
        long h;
        sx_lane(w, j, &a, &h);
        tl += a;
        th += h + (tl < a);
    }
    *lo = tl;
    *hi = th;
}


#if !CHUNKED
/* Limb j of sg * |hi:lo| * 2^pb (the part of that magnitude's 32-bit
   chunks that falls in limb j, with the sign). */
static inline long sx_limb_of(ulong lo, long hi, int pb, uint j)
{
    const long sg = hi < 0 ? -1 : 1;
    ulong h = (ulong)hi;
    if (hi < 0) {
        lo = ~lo + 1;
        h = ~h + (lo == 0);
    }
    const int i = (int)j - (pb >> 5);
    const uint s = (uint)pb & 31;
    ulong c[6] = {0, lo & SX_M32, lo >> 32, h & SX_M32, h >> 32, 0};
    if (i < 0 || i > 4)
        return 0;
    return sg * (long)(((c[i + 1] << s) | (c[i] >> (32 - s))) & SX_M32);
}

/* The group's row. t: 3 * WG longs, sh: 2 ints of __local memory. Every
   item must call it (barriers); which way it goes is the same for all. */
static void sx_group_row(sx_win *w, sx_limbs *l, uint steps, __global long *row,
                         __local long *t, __local int *sh)
{
    const uint lid = get_local_id(0);
    const long flags = sx_flags(w, l, steps);
    if (lid == 0) {
        sh[0] = w->pb;
        sh[1] = SX_VW * WG > 4096;      /* the 128-bit bound: 2^12 lanes at most */
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w->pb != sh[0] || l->used)
        atomic_or(&sh[1], 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!sh[1]) {
        /* one window for all: a 128-bit tree of the items' sums */
        ulong lo;
        long hi;
        sx_win_total(w, &lo, &hi);
        t[lid] = (long)lo;
        t[WG + lid] = hi;
        t[2 * WG + lid] = flags;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = WG / 2; d > 0; d >>= 1) {
            if (lid < d) {
                const ulong a = (ulong)t[lid], s = a + (ulong)t[lid + d];
                t[WG + lid] += t[WG + lid + d] + (s < a);
                t[lid] = (long)s;
                t[2 * WG + lid] |= t[2 * WG + lid + d];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (uint j = lid; j < SX_ROW; j += WG)
            row[j] = j < SX_LIMBS ? sx_limb_of((ulong)t[0], t[WG], sh[0], j) : t[2 * WG];
        return;
    }
    /* a tree per limb (then the flags) over the items' own limbs */
    sx_flush(w, l);
    sx_touch(l);
    sx_carry(l->acc);
    for (uint j = 0; j < SX_ROW; j++) {
        t[lid] = j < SX_LIMBS ? l->acc[j] : flags;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = WG / 2; d > 0; d >>= 1) {
            if (lid < d)
                t[lid] = j < SX_LIMBS ? t[lid] + t[lid + d] : t[lid] | t[lid + d];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            row[j] = t[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

#if !CHUNKED
/* GPUs: the window every item of the group starts with, from the largest
   exponent of the group's first step (2 binades of room above it), so
   that the items of a group usually end with the same window and the
   group's row is one 128-bit tree (sx_group_row). Every item must call it
   (barriers). */
static int sx_group_start(__global const TV *v, ulong nvec, __local int *top)
{
    const ulong gid = get_global_id(0);
    if (get_local_id(0) == 0)
        *top = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < nvec) {
        SX_FIELDS(sx_map(v[gid]))
        const STV live = (e != (STV)SX_EXP_MAX) & (m != 0);
        SX_SN tops[SX_VW];
        SX_STORE(select((STV)-1, p, live), tops);
        int hi = -1;
        for (uint j = 0; j < SX_VW; j++)
            hi = max(hi, (int)tops[j]);
        atomic_max(top, hi);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return max(*top - (SX_D - 2), 0);
}

#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void sum_exact_pass(__global const T *in, ulong off, ulong n, __global long *rows, ulong row0)
{
    sx_win w;
    sx_limbs l;
    sx_start(&w, &l);
    uint steps = 0;
    in += off;
    const ulong gid = get_global_id(0), items = get_global_size(0);
#if CHUNKED
    const ulong per = (n + items - 1) / items;
    const ulong begin = min(gid * per, n), end = min(begin + per, n);
    ulong i = begin;
    for (; i + SX_BLK <= end; i += SX_BLK) {
        sx_block(&w, &l, in + i);
        for (uint j = 0; j < SX_BLK / SX_VW; j++)   /* folds into one test per block */
            sx_after(&w, &l, &steps);
    }
    for (; i + SX_VW <= end; i += SX_VW) {
        sx_step(&w, &l, sx_map(SX_LOAD(in + i)));
        sx_after(&w, &l, &steps);
    }
    for (; i < end; i++) {
        sx_step(&w, &l, sx_one(MAP1(in[i])));
        sx_after(&w, &l, &steps);
    }
    sx_win last = w;    /* w's own address never escapes (see sx_step) */
    sx_flush(&last, &l);
    sx_touch(&l);
    sx_carry(l.acc);
    /* one row per item: no barrier in the kernel, so that a CPU compiler
       keeps the item's state private to its loop */
    __global long *mine = rows + (row0 + gid) * SX_ROW;
    for (uint j = 0; j < SX_LIMBS; j++)
        mine[j] = l.acc[j];
    mine[SX_LIMBS] = sx_flags(&last, &l, steps);
#else
    const ulong head = min((ulong)((SX_VW - (off & (SX_VW - 1))) & (SX_VW - 1)), n);
    const ulong nvec = (n - head) / SX_VW, tail = head + SX_VW * nvec;
    __global const TV *v = (__global const TV *)(in + head);
    __local int top;
    w.pb = sx_group_start(v, nvec, &top);
    ulong j = gid;
    /* SX_BATCH steps' loads go out before any of them is added: a step's
       sx_slow is a call, past which the compiler does not move a load, so
       one load at a time was in flight per item */
    for (; j + (SX_BATCH - 1) * items < nvec; j += SX_BATCH * items) {
        TV x[SX_BATCH];
#pragma unroll
        for (uint k = 0; k < SX_BATCH; k++)
            x[k] = v[j + k * items];
#pragma unroll
        for (uint k = 0; k < SX_BATCH; k++) {
            sx_step(&w, &l, sx_map(x[k]));
            sx_after(&w, &l, &steps);
        }
    }
    for (; j < nvec; j += items) {
        sx_step(&w, &l, sx_map(v[j]));
        sx_after(&w, &l, &steps);
    }
    if (gid < head) {
        sx_step(&w, &l, sx_one(MAP1(in[gid])));
        sx_after(&w, &l, &steps);
    }
    if (gid < n - tail) {
        sx_step(&w, &l, sx_one(MAP1(in[tail + gid])));
        sx_after(&w, &l, &steps);
    }
    __local long t[3 * WG];
    __local int sh[2];
    sx_win last = w;    /* w's own address never escapes (see sx_step) */
    sx_group_row(&last, &l, steps, rows + (row0 + get_group_id(0)) * SX_ROW, t, sh);
#endif
}

/* Bits [lo, lo + len) of the canonical magnitude a (len <= 32). */
static inline ulong sx_field(const long *a, uint lo, uint len)
{
    const uint i = lo >> 5;
    const ulong w = (ulong)a[i] | (i + 1 < SX_LIMBS ? (ulong)a[i + 1] << 32 : 0ul);
    return (w >> (lo & 31)) & ((1ul << len) - 1);
}

/* Any bit of a below bit pos. */
static inline int sx_sticky(const long *a, uint pos)
{
    const uint i = pos >> 5;
    int any = (a[i] & ((1l << (pos & 31)) - 1)) != 0;
    for (uint j = 0; j < i; j++)
        any |= a[j] != 0;
    return any;
}

/* The sum of canonical limbs a (changed) with flags, rounded to T. */
static inline T sx_round(long *a, uint flags)
{
    const UT sign = (UT)1 << (SX_WIDTH - 1);
    const UT inf = (UT)SX_EXP_MAX << (SX_MANT - 1);
    if ((flags & SX_NAN) || ((flags & SX_PINF) && (flags & SX_NINF)))
        return SX_FROM_BITS(inf | (UT)1 << (SX_MANT - 2));
    if (flags & (SX_PINF | SX_NINF))
        return SX_FROM_BITS(inf | ((flags & SX_NINF) ? sign : (UT)0));
    const int neg = a[SX_LIMBS - 1] < 0;
    if (neg) {
        for (uint j = 0; j < SX_LIMBS; j++)
            a[j] = -a[j];
        sx_carry(a);
    }
    int h = SX_LIMBS - 1;
    while (h >= 0 && a[h] == 0)
        h--;
    if (h < 0)
        return SX_FROM_BITS((flags & SX_SEEN) && !(flags & SX_NOT_NEG_ZERO) ? sign : (UT)0);
    const uint P = 32 * (uint)h + 31 - clz((uint)a[h]);
    UT bits;
    if (P < SX_MANT) {          /* exact: a subnormal or the smallest normals */
        bits = (UT)(a[0] | (SX_LIMBS > 1 ? a[1] << 32 : 0l));
    } else if (P - (SX_MANT - 1) + 1 >= SX_EXP_MAX) {
        bits = inf;
    } else {
        const uint lo = P - (SX_MANT - 1);
#if SX_MANT == 24
        UT q = (UT)sx_field(a, lo, 24);
#else
        UT q = (UT)(sx_field(a, lo, 32) | sx_field(a, lo + 32, 21) << 32);
#endif
        if (sx_field(a, lo - 1, 1) && (sx_sticky(a, lo - 1) || (q & 1)))
            q++;
        bits = ((UT)lo << (SX_MANT - 1)) + q;    /* a carry out of q bumps the exponent */
        bits = min(bits, inf);
    }
    return SX_FROM_BITS(bits | (neg ? sign : (UT)0));
}

/* Partial column sums per item slot q (SX_NQ slots per column), so that
   the rows are read by many items, adjacent items at adjacent words. */
#define SX_NQ (WG >= SX_ROW ? WG / SX_ROW : 1)

/* One group: limb j of the result is the sum of column j of the rows. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void sum_exact_final(__global const long *rows, ulong nrows, __global T *out, ulong out_off)
{
    __local long part[SX_ROW * SX_NQ];
    const uint lid = get_local_id(0);
    for (uint cell = lid; cell < SX_ROW * SX_NQ; cell += WG) {
        const uint c = cell % SX_ROW, q = cell / SX_ROW;
        long s = 0;
        for (ulong r = q; r < nrows; r += SX_NQ)
            s = c < SX_LIMBS ? s + rows[r * SX_ROW + c] : s | rows[r * SX_ROW + c];
        part[cell] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        long a[SX_LIMBS];
        uint flags = 0;
        for (uint j = 0; j < SX_LIMBS; j++)
            a[j] = 0;
        for (uint q = 0; q < SX_NQ; q++) {
            for (uint j = 0; j < SX_LIMBS; j++)
                a[j] += part[q * SX_ROW + j];
            flags |= (uint)part[q * SX_ROW + SX_LIMBS];
        }
        sx_carry(a);
        out[out_off] = sx_round(a, flags);
    }
}

/* Exact sums per segment (gpgpu_segmented_reduce and gpgpu_reduce_by_key
   with GPGPU_SUM_EXACT): one work item per segment adds its elements one
   step each into its own window and limbs, then rounds once. Offsets as in
   segmented.cl: offs[offs_off + s] .. offs[offs_off + s + 1], clamped to
   [base, limit]; element v is in[in_off + v - base]. A decreasing pair is
   an empty segment. With count, only the first count[count_off] of the
   nseg segments are summed (reduce_by_key: as many items as elements, the
   number of runs known on the device only). The integer is the one every
   other split gives, so the bits are those of gpgpu_reduce over the
   segment. */
__kernel void sum_exact_segments(__global const T *in, ulong in_off, __global const ulong *offs,
                                 ulong offs_off, ulong nseg, ulong base, ulong limit,
                                 __global T *out, ulong out_off, __global const ulong *count,
                                 ulong count_off)
{
    /* one segment per work item; a grid of fewer items than segments
       (past 2^31 of them) takes the rest in strides */
    const ulong segs = count ? min(nseg, count[count_off]) : nseg;
    for (ulong s = get_global_id(0); s < segs; s += get_global_size(0)) {
        const ulong b = clamp(offs[offs_off + s], base, limit),
                    e = max(b, clamp(offs[offs_off + s + 1], base, limit));
        sx_win w;
        sx_limbs l;
        sx_start(&w, &l);
        uint steps = 0;
        for (ulong i = b; i < e; i++) {
            sx_step(&w, &l, sx_one(in[in_off + (i - base)]));
            sx_after(&w, &l, &steps);
        }
        sx_win last = w;    /* w's own address never escapes (see sx_step) */
        sx_flush(&last, &l);
        sx_touch(&l);
        sx_carry(l.acc);
        /* any element seen: steps itself wraps at 2^32 */
        out[out_off + s] = sx_round(l.acc, sx_flags(&last, &l, (uint)(e > b)));
    }
}
