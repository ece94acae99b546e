/* sum_exact.c - GPGPU_SUM_EXACT on F32 and F64: the exact sum rounded once
   to nearest even, the same bits on every device, plan and chunking.

   kernels/sum_exact.cl says how: the sum is an integer times 2^BASE, kept
   in 32-bit limbs of signed 64-bit words whose additions are exact (the
   kernels add most elements into a narrower integer window first). The
   device writes one row of limbs (and flags) per work-group, or per work
   item on CPUs; the host API
   runs the pass over each chunk of a large input into rows of one scratch
   buffer, so that one final launch adds every row and rounds once. The
   plain-C fallback below does the same arithmetic in one thread.

   gpgpu_exact_partial_sum (gpgpu.h) stops before the rounding: the same
   passes write the rows, the host reads them back and adds them column by
   column into one canonical integer; gpgpu_exact_partial_add adds two such
   integers and gpgpu_exact_partial_round rounds once, as the final kernel
   does (libgpgpu-mpi adds the ranks' partials so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Limbs per type (one more for the flags in a row): what the kernel's
   SX_LIMBS says. */
static size_t limbs_of(gpgpu_type t)
{
    return t == GPGPU_F32 ? 12 : 68;
}

static size_t groups_for(const gpgpu_context *ctx, size_t n)
{
    size_t per_group = ctx->tune.wg * 1024; /* enough work to pay for a row */
    size_t g = (n + per_group - 1) / per_group;
    if (g > ctx->tune.groups)
        g = ctx->tune.groups;
    return g ? g : 1;
}

static gpgpu_status program(gpgpu_context *ctx, gpgpu_type t, const char *map,
                            gpgpu__program **prog)
{
    char options[128], extra[GPGPU__EXPR_MAX + 32];
    const char *op_src;
    GPGPU__TRY(gpgpu__type_supported(ctx, GPGPU_I64)); /* the limbs */
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, GPGPU_SUM, options, sizeof options, &op_src));
    if (map)
        snprintf(extra, sizeof extra, "#define MAP (%s)\n", map);
    if (ctx->tune.chunked && ctx->fp64) { /* f32 blocks in double lanes (sum_exact.cl) */
        size_t used = strlen(options);
        snprintf(options + used, sizeof options - used, " -D SX_DOUBLE=1");
    }
    return gpgpu__program_get(ctx, "sum_exact", map ? extra : NULL, options, prog);
}

gpgpu_status gpgpu__sum_exact_program(gpgpu_context *ctx, gpgpu_type t, gpgpu__program **prog)
{
    return program(ctx, t, NULL, prog);
}

/* Rows one pass writes: one per work item when chunked, else per group. */
static size_t rows_of(const gpgpu_context *ctx, size_t groups)
{
    return ctx->tune.chunked ? groups * ctx->tune.wg : groups;
}

/* The pass over in[off .. +n) into rows row0 .. row0 + rows_of(groups) - 1. */
static gpgpu_status pass(gpgpu_context *ctx, gpgpu__program *prog, cl_mem in, cl_ulong off,
                         cl_ulong n, size_t groups, cl_mem rows, cl_ulong row0)
{
    const size_t wg = ctx->tune.wg;
    return gpgpu__run(ctx, prog, "sum_exact_pass", groups * wg, wg, GPGPU__ARG(in),
                      GPGPU__ARG(off), GPGPU__ARG(n), GPGPU__ARG(rows), GPGPU__ARG(row0),
                      GPGPU__END);
}

static gpgpu_status final(gpgpu_context *ctx, gpgpu__program *prog, cl_mem rows,
                          cl_ulong nrows, cl_mem result, cl_ulong result_off)
{
    const size_t wg = ctx->tune.wg;
    return gpgpu__run(ctx, prog, "sum_exact_final", wg, wg, GPGPU__ARG(rows),
                      GPGPU__ARG(nrows), GPGPU__ARG(result), GPGPU__ARG(result_off),
                      GPGPU__END);
}

gpgpu_status gpgpu__sum_exact_enqueue(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                      cl_mem in, size_t in_off, size_t n, cl_mem result,
                                      size_t result_off)
{
    gpgpu__program *prog;
    cl_mem rows;
    const size_t groups = groups_for(ctx, n);
    GPGPU__TRY(program(ctx, t, map, &prog));
    const size_t nrows = rows_of(ctx, groups);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS,
                              nrows * (limbs_of(t) + 1) * sizeof(cl_long), &rows));
    GPGPU__TRY(pass(ctx, prog, in, in_off, n, groups, rows, 0));
    return final(ctx, prog, rows, nrows, result, result_off);
}

/* The pass over host memory in[0 .. n), chunk by chunk, into rows of one
   scratch buffer: *rows and their number *nrows, for *prog's final kernel
   or for the host to read back. */
static gpgpu_status host_rows(gpgpu_context *ctx, gpgpu_type t, const char *map, const void *in,
                              size_t n, gpgpu__program **prog, cl_mem *rows, size_t *nrows)
{
    const size_t size = gpgpu__type(t)->size, chunk = gpgpu__chunk_elems(ctx, size);
    const size_t nchunks = n ? (n + chunk - 1) / chunk : 1;
    const size_t groups = groups_for(ctx, n < chunk ? n : chunk), per = rows_of(ctx, groups);
    cl_mem buf;
    GPGPU__TRY(program(ctx, t, map, prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (n < chunk ? n : chunk) * size, &buf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2,
                              nchunks * per * (limbs_of(t) + 1) * sizeof(cl_long), rows));
    if (gpgpu__in_place(ctx, n * size)) { /* shared memory: the pass reads in where it is */
        size_t off;
        cl_mem view;
        GPGPU__TRY(gpgpu__host_view(ctx, in, n * size, 0, &view, &off));
        gpgpu__note_route(ctx, "zero-copy");
        gpgpu_status s = pass(ctx, *prog, view, off / size, n, groups, *rows, 0);
        clReleaseMemObject(view); /* the pass, once enqueued, keeps it */
        *nrows = per;
        return s;
    }
    for (size_t c = 0; c < nchunks; c++) {
        size_t first = c * chunk, len = n - first < chunk ? n - first : chunk;
        GPGPU__TRY(gpgpu__upload(ctx, buf, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(pass(ctx, *prog, buf, 0, len, groups, *rows, c * per));
        if (nchunks > 1) /* the next write reuses buf: wait for this pass */
            GPGPU__TRY(gpgpu__finish(ctx));
    }
    *nrows = nchunks * per;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__sum_exact_host_api(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                       const void *in, size_t n, void *result)
{
    const size_t size = gpgpu__type(t)->size;
    gpgpu__program *prog;
    cl_mem rows, out;
    size_t nrows;
    GPGPU__TRY(host_rows(ctx, t, map, in, n, &prog, &rows, &nrows));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, size, &out));
    GPGPU__TRY(final(ctx, prog, rows, nrows, out, 0));
    return gpgpu__read(ctx, out, 0, size, result);
}

/* ---- the plain-C fallback: kernels/sum_exact.cl's arithmetic ------------------ */

enum { SX_NAN = 1, SX_PINF = 2, SX_NINF = 4, SX_NOT_NEG_ZERO = 8, SX_SEEN = 16 };
#define SX_MAX_LIMBS 68
#define SX_M32 0xffffffffll

typedef struct {
    size_t limbs;       /* 12 or 68 */
    unsigned mant;      /* significand bits with the hidden one: 24 or 53 */
    unsigned exp_max;   /* 255 or 2047 */
    unsigned width;     /* 32 or 64 */
} sx_format;

static void sx_carry(int64_t *a, size_t limbs)
{
    int64_t carry = 0;
    for (size_t j = 0; j + 1 < limbs; j++) {
        int64_t v = a[j] + carry;
        a[j] = v & SX_M32;
        carry = v >> 32; /* arithmetic shift (gcc, clang): floor division */
    }
    a[limbs - 1] += carry;
}

static void sx_add(const sx_format *f, int64_t *acc, unsigned *flags, uint64_t b)
{
    const uint64_t sign = (uint64_t)1 << (f->width - 1);
    const unsigned e = (unsigned)(b >> (f->mant - 1)) & f->exp_max;
    uint64_t m = b & (((uint64_t)1 << (f->mant - 1)) - 1);
    *flags |= SX_SEEN | (b != sign ? SX_NOT_NEG_ZERO : 0);
    if (e == f->exp_max) {
        *flags |= m ? SX_NAN : (b & sign) ? SX_NINF : SX_PINF;
        return;
    }
    const unsigned p = e ? e - 1 : 0, k = p >> 5, s = p & 31;
    const int64_t sg = (b & sign) ? -1 : 1;
    m |= e ? (uint64_t)1 << (f->mant - 1) : 0;
    const uint64_t v0 = (m & SX_M32) << s, v1 = (m >> 32) << s;
    acc[k] += sg * (int64_t)(v0 & SX_M32);
    acc[k + 1] += sg * (int64_t)((v0 >> 32) + (v1 & SX_M32));
    if (v1 >> 32)
        acc[k + 2] += sg * (int64_t)(v1 >> 32);
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
        sx_carry(a, f->limbs);
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

/* acc (canonical on entry, zero for a new sum) += in[0 .. n), flags |= what
   the elements set; acc is canonical again on return. */
static void sx_accumulate(gpgpu_type t, const void *in, size_t n, int64_t *acc, unsigned *flags)
{
    const sx_format *f = sx_format_of(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t b;
        if (t == GPGPU_F32) {
            uint32_t w;
            memcpy(&w, (const char *)in + 4 * i, 4);
            b = w;
        } else {
            memcpy(&b, (const char *)in + 8 * i, 8);
        }
        sx_add(f, acc, flags, b);
        if ((i + 1) % (1u << 28) == 0)
            sx_carry(acc, f->limbs);
    }
    sx_carry(acc, f->limbs);
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

void gpgpu__host_sum_exact(gpgpu_type t, const void *in, size_t n, void *result)
{
    int64_t acc[SX_MAX_LIMBS] = {0};
    unsigned flags = 0;
    sx_accumulate(t, in, n, acc, &flags);
    sx_store(t, acc, flags, result);
}

/* ---- partial exact sums (gpgpu.h: gpgpu_exact_partial) --------------------- */

_Static_assert(sizeof(((gpgpu_exact_partial *)0)->limb) == SX_MAX_LIMBS * sizeof(int64_t),
               "gpgpu_exact_partial holds the widest sum (f64: 68 limbs)");
_Static_assert(sizeof(gpgpu_exact_partial) == 552, "gpgpu.h documents 552 bytes, no padding");

#define SX_ALL_FLAGS (SX_NAN | SX_PINF | SX_NINF | SX_NOT_NEG_ZERO | SX_SEEN)
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
    const size_t limbs = limbs_of((gpgpu_type)p->type);
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

/* The rows of the passes over in[0 .. n), read back and added column by
   column into p (zero, type set). Under the lock. */
static gpgpu_status partial_device(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                   gpgpu_exact_partial *p)
{
    const size_t limbs = limbs_of(t), row = limbs + 1;
    gpgpu__program *prog;
    cl_mem rows;
    size_t nrows;
    GPGPU__TRY(host_rows(ctx, t, NULL, in, n, &prog, &rows, &nrows));
    int64_t *h = malloc(nrows * row * sizeof *h);
    if (!h)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                           "gpgpu_exact_partial_sum: no host memory for %zu rows of %zu limbs",
                           nrows, row);
    gpgpu_status s = gpgpu__read(ctx, rows, 0, nrows * row * sizeof *h, h);
    if (s == GPGPU_SUCCESS) {
        unsigned flags = 0;
        for (size_t r = 0; r < nrows; r++) {
            /* a row's limbs are below 2^32 times the items of a group in
               magnitude: added to canonical limbs, they cannot overflow */
            for (size_t j = 0; j < limbs; j++)
                p->limb[j] += h[r * row + j];
            flags |= (unsigned)h[r * row + limbs];
            sx_carry(p->limb, limbs);
        }
        p->flags = flags & SX_ALL_FLAGS;
    }
    free(h);
    return s;
}

gpgpu_status gpgpu_exact_partial_init(gpgpu_exact_partial *p, gpgpu_type t)
{
    GPGPU__REQUIRE(NULL, p != NULL, __func__, "p is NULL; need room for the partial");
    GPGPU__REQUIRE(NULL, t == GPGPU_F32 || t == GPGPU_F64, __func__,
                   "t is %d; need GPGPU_F32 or GPGPU_F64", (int)t);
    memset(p, 0, sizeof *p);
    p->type = (uint32_t)t;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_exact_partial_sum(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                     gpgpu_exact_partial *p)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, t == GPGPU_F32 || t == GPGPU_F64, __func__,
                   "t is %d; need GPGPU_F32 or GPGPU_F64", (int)t);
    GPGPU__REQUIRE(ctx, p != NULL, __func__, "p is NULL; need room for the partial");
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, size, 1, size));
    gpgpu_exact_partial r;
    gpgpu_exact_partial_init(&r, t); /* t checked above: it cannot fail */
    if (ctx->host) {
        unsigned flags = 0;
        sx_accumulate(t, in, n, r.limb, &flags);
        r.flags = flags;
        *p = r;
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = gpgpu__host_call_end(ctx, __func__, partial_device(ctx, t, in, n, &r));
    if (s == GPGPU_SUCCESS)
        *p = r;
    return s;
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
    const size_t limbs = limbs_of((gpgpu_type)p->type);
    int64_t sum[SX_MAX_LIMBS] = {0};
    for (size_t j = 0; j < limbs; j++) /* both canonical: no overflow */
        sum[j] = acc->limb[j] + p->limb[j];
    sx_carry(sum, limbs);
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
