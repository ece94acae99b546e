/*
 * select_k.c - gpgpu_top_k and gpgpu_quantiles: a radix select
 * (kernels/select_k.cl) instead of a sort.
 *
 * Keys are the sort's transformed bits. On GPUs (the tiled layout, n of
 * tune.select_sample or more) top_k reads the data once: a sample gives a
 * threshold a little above the k-th key and one read copies the keys at
 * or below it, with their indices, into a candidates buffer of at most
 * cand_cap() keys (run_fast_topk). Quantiles read it twice: a sorted
 * sample places a window of keys around each rank, one read counts the
 * keys below each window and bins those inside, and a second read copies
 * the bins that hold the ranks into the candidates buffer (run_fast). One
 * group per rank finishes on the candidates. When that fails (a rank
 * outside its window or above the threshold, or too many candidates: many
 * equal keys) the device opens a gate and the passes take the call: for
 * up to SLOTS ranks at once, one read of the data per 8-bit digit counts
 * the digits of the keys that share each rank's prefix, and a small
 * kernel picks the digit each rank falls in: four reads for 32-bit keys,
 * eight for 64-bit, where a sort reads and writes the data about nine
 * times. On other layouts the passes take every call. Every decision
 * stays on the device, so the _buffer forms never wait.
 *   top_k      the k-th key K, then one read that collects the keys below K
 *              and the first ties of K in index order, then the k
 *              candidates ordered by (key, index). Above RANK_MAX the
 *              candidates are too many for that last step: a stable sort
 *              of (key, index) pairs takes the call instead.
 *   quantiles  the ranks the linear rule needs, SLOTS per round of passes;
 *              the NaN count of the first pass makes every result NaN.
 *              Past SORT_ROUNDS rounds (many quantiles at once) a sort of
 *              a copy takes the call instead.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

/* As kernels/select_k.cl. */
enum { SLOTS = 16, RADIX_BITS = 8, RADIX = 1 << RADIX_BITS, SEL_HIST = SLOTS * RADIX + 1 };
enum { STATE_WORDS = 3 + 3 * SLOTS };
#define ST_PRE(j) (3 + 3 * (j))
enum { FS_WORDS = 4 + 10 * SLOTS, SEL_BINS = 4096 };
enum { AC_WORDS = 2 * SEL_BINS + 3 * SLOTS + 2 };
enum { RANK_MAX = 1024 };  /* top_k above this k: a sort of pairs */
enum { MIN_PART = 4096 };  /* elements per part below which more parts only cost */
enum { TOPK_SAMPLE = 1 << 16 }; /* top_k's sample on GPUs, in keys */
/* quantiles: rounds of passes (SLOTS ranks each) beyond which a sort of a
   copy costs less (32-bit keys: 4 reads a round; a sort moves the data
   about nine times) */
enum { SORT_ROUNDS = 2 };

/* A key-width argument (KT in the kernels). */
typedef struct {
    cl_uint u32;
    cl_ulong u64;
    int is64;
} kt_arg;

#define KT_ARG(a) (a).is64 ? sizeof(cl_ulong) : sizeof(cl_uint), \
        (a).is64 ? (const void *)&(a).u64 : (const void *)&(a).u32

static kt_arg kt(int is64, uint64_t v)
{
    kt_arg a = {(cl_uint)v, v, is64};
    return a;
}

/* One selection's device side: the data, how it is read, the masks and
   the scratch; fast: the two reads run first (fs: their state and the
   gate of the passes; acc: their counters; cand, cand_i: the candidates). */
typedef struct {
    gpgpu_type t;
    gpgpu__program *prog;
    cl_mem in, hist, state, tieb, fs, acc, cand, cand_i;
    cl_ulong off, n, chunk, cap;
    cl_uint parts;
    size_t local, ks;
    uint64_t m0, m1;
    int fast;
} sel_run;

/* The candidates buffer: enough for the bins of random keys at any n,
   small beside n, so that many equal keys overflow it and take the
   passes. */
static size_t cand_cap(size_t n)
{
    size_t c = n / 16;
    return c < 2048 ? 2048 : c > ((size_t)1 << 17) ? (size_t)1 << 17 : c;
}

static gpgpu_status run_init(gpgpu_context *ctx, gpgpu_type t, cl_mem in, size_t off, size_t n,
                             unsigned flags, sel_run *r)
{
    char opts[128];
    size_t parts;
    memset(r, 0, sizeof *r);
    r->t = t;
    r->ks = gpgpu__type(t)->size;
    r->in = in;
    r->off = off;
    r->n = n;
    gpgpu__sort_masks(t, flags, &r->m0, &r->m1);
    if (ctx->tune.chunked) {
        parts = ctx->tune.groups * ctx->tune.wg; /* one item per group, as sort.c */
        r->local = 1;
    } else {
        parts = ctx->tune.groups;
        r->local = ctx->tune.wg;
    }
    if (parts > n / MIN_PART)
        parts = n / MIN_PART;
    if (parts < n / ((size_t)1 << 31)) /* the kernels count a part in 32 bits */
        parts = n / ((size_t)1 << 31) + 1;
    if (parts < 1)
        parts = 1;
    r->chunk = gpgpu__div_up(n, parts);
    r->parts = (cl_uint)gpgpu__div_up(n, r->chunk);
    snprintf(opts, sizeof opts,
             "-D KEY_BITS=%zu -D RADIX_BITS=%d -D SEL_SLOTS=%d -D SELECT_FP64=%d -D TILE_WG=%zu",
             r->ks * 8, RADIX_BITS, SLOTS, ctx->fp64, ctx->tune.wg);
    GPGPU__TRY(gpgpu__program_get(ctx, "select_k", NULL, opts, &r->prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS,
                              (size_t)r->parts * SEL_HIST * sizeof(cl_uint), &r->hist));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS, FS_WORDS * sizeof(cl_ulong), &r->fs));
    r->fast = !ctx->tune.chunked && ctx->tune.select_sample && n >= ctx->tune.select_sample;
    if (!r->fast)
        return GPGPU_SUCCESS;
    r->cap = cand_cap(n);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, AC_WORDS * sizeof(cl_uint), &r->acc));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS_B, r->cap * r->ks, &r->cand));
    return gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES_B, r->cap * sizeof(cl_ulong), &r->cand_i);
}

/* One of the two reads: select_read, or with cols select_read_cols, whose
   cost grows less with the windows (kernels/select_k.cl has the figures). */
static gpgpu_status read_data(gpgpu_context *ctx, sel_run *r, cl_uint read, int cols,
                              const kt_arg *nan_lo, const kt_arg *nan_hi)
{
    const int is64 = r->ks == 8;
    kt_arg m0 = kt(is64, r->m0), m1 = kt(is64, r->m1);
    return gpgpu__run(ctx, r->prog, cols ? "select_read_cols" : "select_read",
                      r->parts * r->local, r->local,
                      GPGPU__ARG(r->in), GPGPU__ARG(r->off), GPGPU__ARG(r->n),
                      GPGPU__ARG(r->chunk), KT_ARG(m0), KT_ARG(m1), KT_ARG(*nan_lo),
                      KT_ARG(*nan_hi), GPGPU__ARG(read), GPGPU__ARG(r->fs), GPGPU__ARG(r->acc),
                      GPGPU__ARG(r->cand), GPGPU__END);
}

/* Quantiles' two reads for ranks[0 .. nr) (ascending), their keys into
   r->state unless they open the gate. */
static gpgpu_status run_fast(gpgpu_context *ctx, sel_run *r, const cl_ulong16 *rk, cl_uint nr,
                             const kt_arg *nan_lo, const kt_arg *nan_hi)
{
    const cl_uint ties = 0;
    const int is64 = r->ks == 8;
    kt_arg m0 = kt(is64, r->m0), m1 = kt(is64, r->m1);
    size_t l = r->local;
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_sample", l, l, GPGPU__ARG(r->in),
                          GPGPU__ARG(r->off), GPGPU__ARG(r->n), KT_ARG(m0), KT_ARG(m1),
                          GPGPU__ARG(*rk), GPGPU__ARG(nr), GPGPU__ARG(r->fs),
                          GPGPU__ARG(r->acc), GPGPU__END));
    /* one quantile (its two ranks share a window): every window tested;
       more: the columns (measured at 1 and 5 quantiles) */
    const int cols = nr > 2;
    GPGPU__TRY(read_data(ctx, r, 0, cols, nan_lo, nan_hi));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_find", l, l, GPGPU__ARG(*rk), GPGPU__ARG(nr),
                          GPGPU__ARG(r->cap), GPGPU__ARG(r->fs), GPGPU__ARG(r->acc),
                          GPGPU__ARG(r->state), GPGPU__END));
    GPGPU__TRY(read_data(ctx, r, 1, cols, nan_lo, nan_hi));
    return gpgpu__run(ctx, r->prog, "select_finish", nr * l, l, GPGPU__ARG(r->fs),
                      GPGPU__ARG(r->cand), GPGPU__ARG(r->cand_i), KT_ARG(m0), KT_ARG(m1),
                      GPGPU__ARG(ties), GPGPU__ARG(r->n), GPGPU__ARG(r->state), GPGPU__END);
}

/* top_k's one read (select_thresh in kernels/select_k.cl): a sample of s
   keys, the threshold at its rank jr, the read, the check, the finish. jr
   sits a few deviations above where rank k - 1 is expected in the sample,
   so that the keys at or below it are all but surely at least k, and
   about (jr + 1) * n / s of them: with s = 2^16 and n = 2^28, some 40,000
   candidates, a third of the buffer. */
static gpgpu_status run_fast_topk(gpgpu_context *ctx, sel_run *r, size_t k)
{
    const int is64 = r->ks == 8;
    kt_arg m0 = kt(is64, r->m0), m1 = kt(is64, r->m1);
    size_t l = r->local, s = r->cap < TOPK_SAMPLE ? r->cap : TOPK_SAMPLE;
    if (s > r->n)
        s = r->n;
    double e = (double)k * (double)s / (double)r->n;
    cl_ulong jr = (cl_ulong)ceil(e + 4 * sqrt(e) + 8), ck = k;
    cl_uint cs = (cl_uint)s, ties = 1;
    if (jr > s - 1)
        jr = s - 1;
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_tsample", gpgpu__div_up(s, l) * l, l,
                          GPGPU__ARG(r->in), GPGPU__ARG(r->off), GPGPU__ARG(r->n),
                          GPGPU__ARG(cs), GPGPU__ARG(r->cand), GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_thresh", l, l, GPGPU__ARG(r->cand),
                          GPGPU__ARG(cs), GPGPU__ARG(jr), GPGPU__ARG(ck), KT_ARG(m0), KT_ARG(m1),
                          GPGPU__ARG(r->fs), GPGPU__ARG(r->acc), GPGPU__ARG(r->state),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_grab", r->parts * l, l, GPGPU__ARG(r->in),
                          GPGPU__ARG(r->off), GPGPU__ARG(r->n), GPGPU__ARG(r->chunk),
                          KT_ARG(m0), KT_ARG(m1), GPGPU__ARG(r->fs), GPGPU__ARG(r->acc),
                          GPGPU__ARG(r->cand), GPGPU__ARG(r->cand_i), GPGPU__ARG(r->cap),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_tcheck", 1, 1, GPGPU__ARG(r->fs),
                          GPGPU__ARG(r->acc), GPGPU__ARG(ck), GPGPU__END));
    return gpgpu__run(ctx, r->prog, "select_finish", l, l, GPGPU__ARG(r->fs),
                      GPGPU__ARG(r->cand), GPGPU__ARG(r->cand_i), KT_ARG(m0), KT_ARG(m1),
                      GPGPU__ARG(ties), GPGPU__ARG(r->n), GPGPU__ARG(r->state), GPGPU__END);
}

/* The passes that find the keys of ranks[0 .. nr) (ascending within r's
   order) into r->state; ties: top_k's tie offsets per part into r->tieb. */
static gpgpu_status run_passes(gpgpu_context *ctx, sel_run *r, const size_t *ranks, cl_uint nr,
                               cl_uint ties)
{
    const int is64 = r->ks == 8;
    const unsigned bits = (unsigned)r->ks * 8;
    const gpgpu__type_info *ti = gpgpu__type(r->t);
    kt_arg m0 = kt(is64, r->m0), m1 = kt(is64, r->m1);
    /* NaNs lie outside [-inf, +inf] in the ascending keys (quantiles only) */
    uint64_t lo = 0, hi = is64 ? UINT64_MAX : UINT32_MAX;
    if (ti->is_float && !ties) {
        uint64_t ninf = is64 ? 0xfff0000000000000ull : 0xff800000ull;
        uint64_t pinf = is64 ? 0x7ff0000000000000ull : 0x7f800000ull;
        lo = ninf ^ r->m1;
        hi = pinf ^ r->m0;
    }
    kt_arg nan_lo = kt(is64, lo), nan_hi = kt(is64, hi);
    cl_ulong16 rk;
    memset(&rk, 0, sizeof rk);
    for (cl_uint j = 0; j < nr; j++)
        rk.s[j] = ranks[j];
    cl_uint gated = (cl_uint)r->fast;
    if (r->fast && ties)
        GPGPU__TRY(run_fast_topk(ctx, r, ranks[0] + 1));
    else if (r->fast)
        GPGPU__TRY(run_fast(ctx, r, &rk, nr, &nan_lo, &nan_hi));
    for (unsigned pass = 0; pass < bits / RADIX_BITS; pass++) {
        cl_uint shift = bits - RADIX_BITS * (pass + 1);
        cl_uint first = pass == 0, last_ties = ties && shift == 0;
        if (first)
            GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_count0", r->parts * r->local, r->local,
                                  GPGPU__ARG(r->in), GPGPU__ARG(r->off), GPGPU__ARG(r->n),
                                  GPGPU__ARG(r->chunk), KT_ARG(m0), KT_ARG(m1),
                                  GPGPU__ARG(shift), KT_ARG(nan_lo), KT_ARG(nan_hi),
                                  GPGPU__ARG(r->hist), GPGPU__ARG(r->fs), GPGPU__ARG(gated),
                                  GPGPU__END));
        else
            GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_count", r->parts * r->local, r->local,
                                  GPGPU__ARG(r->in), GPGPU__ARG(r->off), GPGPU__ARG(r->n),
                                  GPGPU__ARG(r->chunk), KT_ARG(m0), KT_ARG(m1),
                                  GPGPU__ARG(shift), GPGPU__ARG(nr), GPGPU__ARG(r->state),
                                  GPGPU__ARG(r->hist), GPGPU__ARG(r->fs), GPGPU__ARG(gated),
                                  GPGPU__END));
        GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_plan", RADIX, RADIX, GPGPU__ARG(r->hist),
                              GPGPU__ARG(r->parts), GPGPU__ARG(nr), GPGPU__ARG(shift),
                              GPGPU__ARG(first), GPGPU__ARG(rk), GPGPU__ARG(last_ties),
                              GPGPU__ARG(r->n),
                              GPGPU__ARG(r->state), GPGPU__ARG(r->tieb), GPGPU__ARG(r->fs),
                              GPGPU__ARG(gated), GPGPU__END));
    }
    return GPGPU_SUCCESS;
}

/* ---- top_k ------------------------------------------------------------------ */

/* Where top_k writes: values (elements of the type) and indices (ulongs)
   at their offsets, either buffer NULL for none. */
typedef struct {
    cl_mem values, indices;
    size_t voff, ioff;
} topk_out;

/* k above RANK_MAX: the (key, index) pairs of the whole array sorted
   stably in one scratch buffer (indices first, keys after them), then its
   first k of each copied out. On GPUs the sort computes the indices
   itself and carries them as 4-byte values up to 2^32 keys, writing them
   home as 8-byte ones (gpgpu__sort_index_enqueue). */
static gpgpu_status topk_by_sort(gpgpu_context *ctx, sel_run *r, size_t k, unsigned flags,
                                 const topk_out *o)
{
    cl_mem x;
    size_t n = r->n, koff = n * 8 / r->ks; /* the keys' offset, in keys */
    cl_ulong cn = n;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, n * (8 + r->ks), &x));
    GPGPU__TRY(gpgpu__copy(ctx, r->in, r->off * r->ks, x, n * 8, n * r->ks));
    if (gpgpu__sort_index_direct(ctx)) {
        GPGPU__TRY(gpgpu__sort_index_enqueue(ctx, r->t, x, koff, n, flags, x, 0));
    } else {
        size_t g = ctx->tune.groups * r->local;
        GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_iota", g, r->local, GPGPU__ARG(x),
                              GPGPU__ARG(cn), GPGPU__END));
        GPGPU__TRY(gpgpu__sort_range_enqueue(ctx, r->t, x, koff, x, 0, 8, n, flags));
    }
    if (o->values)
        GPGPU__TRY(gpgpu__copy(ctx, x, n * 8, o->values, o->voff * r->ks, k * r->ks));
    if (o->indices)
        GPGPU__TRY(gpgpu__copy(ctx, x, 0, o->indices, o->ioff * 8, k * 8));
    return GPGPU_SUCCESS;
}

/* CPUs, k up to RANK_MAX: a heap per part, then one merge. */
static gpgpu_status topk_by_heaps(gpgpu_context *ctx, sel_run *r, size_t k, const topk_out *o)
{
    cl_mem hu, hx, hn;
    cl_uint ck = (cl_uint)k, has_v = o->values != NULL, has_i = o->indices != NULL;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, r->parts * k * r->ks, &hu));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, r->parts * k * sizeof(cl_ulong), &hx));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, 2 * r->parts * sizeof(cl_uint), &hn));
    cl_mem pos;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, r->parts * sizeof(cl_uint), &pos));
    const int is64 = r->ks == 8;
    kt_arg m0 = kt(is64, r->m0), m1 = kt(is64, r->m1);
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "select_heap", r->parts, 1, GPGPU__ARG(r->in),
                          GPGPU__ARG(r->off), GPGPU__ARG(r->n), GPGPU__ARG(r->chunk),
                          KT_ARG(m0), KT_ARG(m1), GPGPU__ARG(ck), GPGPU__ARG(hu),
                          GPGPU__ARG(hx), GPGPU__ARG(hn), GPGPU__END));
    cl_mem vb = has_v ? o->values : hu, ib = has_i ? o->indices : hx;
    cl_ulong voff = o->voff, ioff = o->ioff;
    return gpgpu__run(ctx, r->prog, "select_merge", 1, 1, GPGPU__ARG(hu), GPGPU__ARG(hx),
                      GPGPU__ARG(hn), GPGPU__ARG(pos), GPGPU__ARG(r->parts), GPGPU__ARG(ck),
                      KT_ARG(m0), KT_ARG(m1), GPGPU__ARG(vb), GPGPU__ARG(voff),
                      GPGPU__ARG(has_v), GPGPU__ARG(ib), GPGPU__ARG(ioff), GPGPU__ARG(has_i),
                      GPGPU__END);
}

static gpgpu_status topk_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem in, size_t off,
                                 size_t n, size_t k, unsigned flags, const topk_out *o)
{
    sel_run r;
    cl_mem ck, ci;
    if (k == 0 || n == 0)
        return GPGPU_SUCCESS;
    GPGPU__TRY(run_init(ctx, t, in, off, n, flags, &r));
    if (k > RANK_MAX)
        return topk_by_sort(ctx, &r, k, flags, o);
    if (ctx->tune.chunked)
        return topk_by_heaps(ctx, &r, k, o);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, STATE_WORDS * sizeof(cl_ulong), &r.state));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, (r.parts + 1) * sizeof(cl_ulong),
                              &r.tieb));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, k * r.ks, &ck));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, k * sizeof(cl_ulong), &ci));
    size_t rank = k - 1;
    cl_uint gated = (cl_uint)r.fast;
    GPGPU__TRY(run_passes(ctx, &r, &rank, 1, 1));
    const int is64 = r.ks == 8;
    kt_arg m0 = kt(is64, r.m0), m1 = kt(is64, r.m1);
    GPGPU__TRY(gpgpu__run(ctx, r.prog, "select_collect", r.parts * r.local, r.local,
                          GPGPU__ARG(r.in), GPGPU__ARG(r.off), GPGPU__ARG(r.n),
                          GPGPU__ARG(r.chunk), KT_ARG(m0), KT_ARG(m1), GPGPU__ARG(r.state),
                          GPGPU__ARG(r.tieb), GPGPU__ARG(ck), GPGPU__ARG(ci), GPGPU__ARG(r.fs),
                          GPGPU__ARG(gated), GPGPU__END));
    if (r.fast)
        GPGPU__TRY(gpgpu__run(ctx, r.prog, "select_take", r.local, r.local, GPGPU__ARG(r.fs),
                              GPGPU__ARG(r.cand), GPGPU__ARG(r.cand_i), KT_ARG(m0), KT_ARG(m1),
                              GPGPU__ARG(r.state), GPGPU__ARG(ck), GPGPU__ARG(ci), GPGPU__END));
    cl_uint ck_n = (cl_uint)k, has_v = o->values != NULL, has_i = o->indices != NULL;
    cl_mem vb = has_v ? o->values : ck, ib = has_i ? o->indices : ci;
    cl_ulong voff = o->voff, ioff = o->ioff;
    return gpgpu__run(ctx, r.prog, "select_rank", r.local, r.local, GPGPU__ARG(ck),
                      GPGPU__ARG(ci), GPGPU__ARG(ck_n), KT_ARG(m0), KT_ARG(m1), GPGPU__ARG(vb),
                      GPGPU__ARG(voff), GPGPU__ARG(has_v), GPGPU__ARG(ib), GPGPU__ARG(ioff),
                      GPGPU__ARG(has_i), GPGPU__END);
}

/* ---- quantiles ---------------------------------------------------------------- */

/* What the linear rule needs: the distinct ranks in ascending order, and
   for each q the places (in that list) of x[i] and x[i + 1], and g. */
typedef struct {
    size_t *ranks, nr;
    cl_uint *at;   /* 2 per q: x[i]'s place, x[i + 1]'s (x[i]'s when g == 0) */
    double *g;
} q_plan;

static void q_plan_free(q_plan *p)
{
    free(p->ranks);
    free(p->at);
    free(p->g);
    p->ranks = NULL; /* a second free, on any path, frees nothing */
    p->at = NULL;
    p->g = NULL;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static size_t place_of(const q_plan *p, size_t rank)
{
    size_t lo = 0, hi = p->nr;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->ranks[mid] <= rank)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static gpgpu_status q_plan_make(gpgpu_context *ctx, size_t n, const double *q, size_t nq,
                                q_plan *p)
{
    memset(p, 0, sizeof *p);
    p->ranks = gpgpu__malloc(2 * nq * sizeof *p->ranks);
    p->at = gpgpu__malloc(2 * nq * sizeof *p->at);
    p->g = gpgpu__malloc(nq * sizeof *p->g);
    if (!p->ranks || !p->at || !p->g) {
        q_plan_free(p);
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    size_t m = 0;
    for (size_t j = 0; j < nq; j++) {
        size_t i;
        gpgpu__quantile_rule(q[j], n, &i, &p->g[j]);
        p->ranks[m++] = i;
        if (p->g[j] != 0)
            p->ranks[m++] = i + 1;
    }
    qsort(p->ranks, m, sizeof *p->ranks, cmp_size);
    p->nr = 0;
    for (size_t j = 0; j < m; j++)
        if (p->nr == 0 || p->ranks[p->nr - 1] != p->ranks[j])
            p->ranks[p->nr++] = p->ranks[j];
    for (size_t j = 0; j < nq; j++) {
        size_t i;
        double g;
        gpgpu__quantile_rule(q[j], n, &i, &g);
        p->at[2 * j] = (cl_uint)place_of(p, i);
        p->at[2 * j + 1] = g != 0 ? (cl_uint)place_of(p, i + 1) : p->at[2 * j];
    }
    return GPGPU_SUCCESS;
}

/* Many ranks: a sort of a copy, from which select_pick takes each rank's
   key into the states as the rounds would leave it (and the NaN flag). */
static gpgpu_status q_by_sort(gpgpu_context *ctx, sel_run *r, const q_plan *p, cl_mem states)
{
    cl_mem x, ranks = NULL;
    const int is64 = r->ks == 8;
    kt_arg m0 = kt(is64, r->m0), m1 = kt(is64, r->m1);
    uint64_t lo = 0, hi = is64 ? UINT64_MAX : UINT32_MAX;
    if (gpgpu__type(r->t)->is_float) {
        lo = (is64 ? 0xfff0000000000000ull : 0xff800000ull) ^ r->m1;
        hi = (is64 ? 0x7ff0000000000000ull : 0x7f800000ull) ^ r->m0;
    }
    kt_arg nan_lo = kt(is64, lo), nan_hi = kt(is64, hi);
    cl_ulong *rk = gpgpu__malloc(p->nr * sizeof *rk);
    if (!rk)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (size_t j = 0; j < p->nr; j++)
        rk[j] = p->ranks[j];
    gpgpu_status s = gpgpu__buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   p->nr * sizeof *rk, rk, &ranks);
    free(rk);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__scratch(ctx, GPGPU__SLOT_OUT, r->n * r->ks, &x);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__copy(ctx, r->in, r->off * r->ks, x, 0, r->n * r->ks);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__sort_range_enqueue(ctx, r->t, x, 0, NULL, 0, 0, r->n, 0);
    cl_uint nr = (cl_uint)p->nr;
    if (s == GPGPU_SUCCESS)
        s = gpgpu__run(ctx, r->prog, "select_pick", r->local, r->local, GPGPU__ARG(x),
                       GPGPU__ARG(r->n), GPGPU__ARG(ranks), GPGPU__ARG(nr), KT_ARG(m0),
                       KT_ARG(m1), KT_ARG(nan_lo), KT_ARG(nan_hi), GPGPU__ARG(states),
                       GPGPU__END);
    if (ranks)
        clReleaseMemObject(ranks); /* kernels still queued keep it alive */
    return s;
}

/* The keys of every rank of p into states (SLOT_HOST_ORIG), round b's
   state at states[b * STATE_WORDS ..]: SLOTS ranks per round of passes,
   or past SORT_ROUNDS rounds a sort. */
static gpgpu_status q_enqueue(gpgpu_context *ctx, sel_run *r, const q_plan *p, cl_mem *states)
{
    size_t rounds = gpgpu__div_up(p->nr, SLOTS), bytes = STATE_WORDS * sizeof(cl_ulong);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_HOST_ORIG, rounds * bytes, states));
    if (rounds > SORT_ROUNDS)
        return q_by_sort(ctx, r, p, *states);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, bytes, &r->state));
    r->tieb = r->state; /* not written without ties */
    for (size_t b = 0; b < rounds; b++) {
        size_t nr = p->nr - b * SLOTS < SLOTS ? p->nr - b * SLOTS : SLOTS;
        GPGPU__TRY(run_passes(ctx, r, p->ranks + b * SLOTS, (cl_uint)nr, 0));
        GPGPU__TRY(gpgpu__copy(ctx, r->state, 0, *states, b * bytes, bytes));
    }
    return GPGPU_SUCCESS;
}

/* out[j] from the rounds' states read back to the host. */
static void q_finish(gpgpu_type t, const sel_run *r, const q_plan *p, const cl_ulong *st,
                     size_t nq, double *out)
{
    for (size_t j = 0; j < nq; j++) {
        if (st[0]) {
            out[j] = NAN;
            continue;
        }
        double v[2];
        for (int e = 0; e < 2; e++) {
            size_t at = p->at[2 * j + e];
            uint64_t u = st[(at / SLOTS) * STATE_WORDS + ST_PRE(at % SLOTS)];
            v[e] = gpgpu__select_double(t, gpgpu__select_unmap(t, u, r->m0, r->m1));
        }
        out[j] = gpgpu__quantile_mix(v[0], v[1], p->g[j]);
    }
}

/* The rounds on device data, then the results to host memory. */
static gpgpu_status q_device_to_host(gpgpu_context *ctx, gpgpu_type t, cl_mem in, size_t off,
                                     size_t n, const double *q, size_t nq, double *out)
{
    sel_run r;
    q_plan p;
    cl_mem states;
    GPGPU__TRY(q_plan_make(ctx, n, q, nq, &p));
    size_t words = gpgpu__div_up(p.nr, SLOTS) * STATE_WORDS;
    cl_ulong *st = gpgpu__malloc(words * sizeof *st);
    gpgpu_status s = st ? GPGPU_SUCCESS
                        : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    if (s == GPGPU_SUCCESS)
        s = run_init(ctx, t, in, off, n, 0, &r);
    if (s == GPGPU_SUCCESS)
        s = q_enqueue(ctx, &r, &p, &states);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, states, 0, words * sizeof *st, st);
    if (s == GPGPU_SUCCESS)
        q_finish(t, &r, &p, st, nq, out);
    free(st);
    q_plan_free(&p);
    return s;
}

static gpgpu_status host_quantiles(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                   const double *q, size_t nq, double *out)
{
    q_plan p;
    uint64_t m0, m1;
    GPGPU__TRY(q_plan_make(ctx, n, q, nq, &p));
    uint64_t *keys = gpgpu__malloc(p.nr * sizeof *keys);
    int nan = keys ? gpgpu__host_select(t, in, n, p.ranks, p.nr, keys) : -1;
    if (nan < 0) {
        free(keys);
        q_plan_free(&p);
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    gpgpu__sort_masks(t, 0, &m0, &m1);
    for (size_t j = 0; j < nq; j++) {
        double v[2];
        for (int e = 0; e < 2 && !nan; e++)
            v[e] = gpgpu__select_double(t, gpgpu__select_unmap(t, keys[p.at[2 * j + e]], m0, m1));
        out[j] = nan ? NAN : gpgpu__quantile_mix(v[0], v[1], p.g[j]);
    }
    free(keys);
    q_plan_free(&p);
    return GPGPU_SUCCESS;
}

/* ---- argument checks ------------------------------------------------------------ */

static gpgpu_status check_topk(gpgpu_context *ctx, const char *func, gpgpu_type t, size_t n,
                               size_t k, unsigned flags, int has_values, int has_indices)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__REQUIRE(ctx, (flags & ~(unsigned)GPGPU_DESCENDING) == 0, func,
                   "flags is 0x%x; only GPGPU_DESCENDING (0x%x) may be set", flags,
                   (unsigned)GPGPU_DESCENDING);
    GPGPU__REQUIRE(ctx, k <= n, func, "k is %zu; at most n = %zu", k, n);
    GPGPU__REQUIRE(ctx, k == 0 || has_values || has_indices, func,
                   "values and indices are both NULL with k = %zu; at least one is needed", k);
    if (!ctx->host && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: the device has no 64-bit integers for the indices", func);
    if (!ctx->host)
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
    return GPGPU_SUCCESS;
}

static gpgpu_status check_q(gpgpu_context *ctx, const char *func, gpgpu_type t, size_t n,
                            const double *q, size_t nq, int has_out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__REQUIRE(ctx, n > 0, func, "n is 0; quantiles need at least one element");
    GPGPU__REQUIRE(ctx, q != NULL || nq == 0, func,
                   "q is NULL with nq = %zu; it may be NULL only when nq is 0", nq);
    GPGPU__REQUIRE(ctx, has_out || nq == 0, func,
                   "out is NULL with nq = %zu; it may be NULL only when nq is 0", nq);
    GPGPU__REQUIRE(ctx, nq <= SIZE_MAX / (2 * sizeof(size_t)), func, "nq is %zu; too many", nq);
    for (size_t j = 0; j < nq; j++)
        GPGPU__REQUIRE(ctx, q[j] >= 0 && q[j] <= 1, func, "q[%zu] is %g; need 0 <= q <= 1", j,
                       q[j]);
    if (!ctx->host)
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
    return GPGPU_SUCCESS;
}

/* ---- host memory ------------------------------------------------------------------- */

/* The caller's array as a device buffer: itself where the device shares
   host memory, else a copy in SLOT_IN. *view is the buffer to release. */
static gpgpu_status input_buffer(gpgpu_context *ctx, const void *in, size_t bytes, size_t ks,
                                 cl_mem *buf, size_t *off, cl_mem *view)
{
    *view = NULL;
    if (gpgpu__in_place(ctx, bytes)) {
        size_t at;
        GPGPU__TRY(gpgpu__host_view(ctx, in, bytes, 0, view, &at));
        *buf = *view;
        *off = at / ks;
        return GPGPU_SUCCESS;
    }
    *off = 0;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, bytes, buf));
    return gpgpu__upload(ctx, *buf, 0, bytes, in);
}

static gpgpu_status topk_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                  size_t k, unsigned flags, void *values, uint64_t *indices)
{
    const size_t ks = gpgpu__type(t)->size;
    cl_mem buf, view, outs;
    size_t off;
    /* outs: the indices, then the values at element k * 8 / ks */
    topk_out o = {NULL, NULL, k * 8 / ks, 0};
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_HOST_ORIG, k * (8 + ks), &outs));
    o.values = values ? outs : NULL;
    o.indices = indices ? outs : NULL;
    GPGPU__TRY(input_buffer(ctx, in, n * ks, ks, &buf, &off, &view));
    gpgpu_status s = topk_enqueue(ctx, t, buf, off, n, k, flags, &o);
    if (s == GPGPU_SUCCESS && indices)
        s = gpgpu__read(ctx, outs, 0, k * 8, indices);
    if (s == GPGPU_SUCCESS && values)
        s = gpgpu__read(ctx, outs, k * 8, k * ks, values);
    if (view)
        clReleaseMemObject(view);
    return s;
}

gpgpu_status gpgpu_top_k(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n, size_t k,
                         unsigned flags, void *values, uint64_t *indices)
{
    GPGPU__TRY(check_topk(ctx, __func__, t, n, k, flags, values != NULL, indices != NULL));
    const size_t ks = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, ks, 1, ks));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "values", values, values ? k : 0, ks, 1, ks));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "indices", indices, indices ? k : 0, 8, 1, 8));
    if (k == 0)
        return GPGPU_SUCCESS;
    if (ctx->host || gpgpu__host_below(ctx, GPGPU__HB_TOP_K, n))
        return gpgpu__host_top_k(t, in, n, k, flags, values, indices) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", __func__);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = topk_host_api(ctx, t, in, n, k, flags, values, indices);
    return gpgpu__host_call_end(ctx, "gpgpu_top_k", s);
}

static gpgpu_status q_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                               const double *q, size_t nq, double *out)
{
    const size_t ks = gpgpu__type(t)->size;
    cl_mem buf, view;
    size_t off;
    GPGPU__TRY(input_buffer(ctx, in, n * ks, ks, &buf, &off, &view));
    gpgpu_status s = q_device_to_host(ctx, t, buf, off, n, q, nq, out);
    if (view)
        clReleaseMemObject(view);
    return s;
}

gpgpu_status gpgpu_quantiles(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                             const double *q, size_t nq, double *out)
{
    GPGPU__TRY(check_q(ctx, __func__, t, n, q, nq, out != NULL));
    const size_t ks = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, ks, 1, ks));
    GPGPU__REQUIRE(ctx, (uintptr_t)out % sizeof *out == 0, __func__,
                   "out is %p; it must be aligned to %zu bytes", (void *)out, sizeof *out);
    if (nq == 0)
        return GPGPU_SUCCESS;
    if (ctx->host || gpgpu__host_below(ctx, GPGPU__HB_QUANTILES, n))
        return host_quantiles(ctx, t, in, n, q, nq, out);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = q_host_api(ctx, t, in, n, q, nq, out);
    return gpgpu__host_call_end(ctx, "gpgpu_quantiles", s);
}

/* ---- the _buffer forms --------------------------------------------------------------- */

gpgpu_status gpgpu_top_k_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in, size_t in_offset,
                                size_t n, size_t k, unsigned flags, cl_mem values,
                                size_t values_offset, cl_mem indices, size_t indices_offset,
                                cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(check_topk(ctx, __func__, t, n, k, flags, values != NULL, indices != NULL));
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", __func__);
    const size_t ks = gpgpu__type(t)->size;
    if (n > 0)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n, ks));
    if (k > 0 && values)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "values", values, values_offset, k, ks));
    if (k > 0 && indices)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "indices", indices, indices_offset, k, 8));
    topk_out o = {values, indices, values_offset, indices_offset};
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = topk_enqueue(ctx, t, in, in_offset, n, k, flags, &o);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_quantiles_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                    size_t in_offset, size_t n, const double *q, size_t nq,
                                    cl_mem out, size_t out_offset, cl_uint num_wait,
                                    const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(check_q(ctx, __func__, t, n, q, nq, out != NULL));
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", __func__);
    if (!ctx->fp64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: the device has no double precision for out", __func__);
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n, gpgpu__type(t)->size));
    if (nq > 0)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "out", out, out_offset, nq, sizeof(double)));
    q_plan p;
    sel_run r;
    cl_mem states, args = NULL;
    GPGPU__TRY(q_plan_make(ctx, n, q, nq, &p));
    /* the kernel's table, three words per q: the state words of x[i] and
       x[i + 1], and the bits of g */
    cl_ulong *table = gpgpu__malloc(3 * nq * sizeof *table + 1);
    gpgpu_status s = table ? GPGPU_SUCCESS
                           : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (size_t j = 0; s == GPGPU_SUCCESS && j < nq; j++) {
        for (int e = 0; e < 2; e++) {
            size_t at = p.at[2 * j + e];
            table[3 * j + e] = (at / SLOTS) * STATE_WORDS + ST_PRE(at % SLOTS);
        }
        memcpy(&table[3 * j + 2], &p.g[j], sizeof(double));
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    if (s == GPGPU_SUCCESS && nq > 0)
        s = gpgpu__buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          3 * nq * sizeof *table, table, &args);
    if (s == GPGPU_SUCCESS && nq > 0)
        s = run_init(ctx, t, in, in_offset, n, 0, &r);
    if (s == GPGPU_SUCCESS && nq > 0)
        s = q_enqueue(ctx, &r, &p, &states);
    if (s == GPGPU_SUCCESS && nq > 0) {
        const int is64 = r.ks == 8;
        kt_arg m0 = kt(is64, r.m0), m1 = kt(is64, r.m1);
        cl_uint cnq = (cl_uint)nq, tid = (cl_uint)t;
        cl_ulong ooff = out_offset;
        s = gpgpu__run(ctx, r.prog, "select_quantiles", r.local, r.local, GPGPU__ARG(states),
                       GPGPU__ARG(args), GPGPU__ARG(cnq), KT_ARG(m0), KT_ARG(m1),
                       GPGPU__ARG(tid), GPGPU__ARG(out), GPGPU__ARG(ooff), GPGPU__END);
    }
    if (args)
        clReleaseMemObject(args); /* kernels still queued keep it alive */
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    free(table);
    q_plan_free(&p);
    return s;
}

/* ---- device arrays ---------------------------------------------------------------------- */

gpgpu_status gpgpu_top_k_array(gpgpu_context *ctx, const gpgpu_array *in, size_t k,
                               unsigned flags, gpgpu_array *values, gpgpu_array *indices)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    if (values)
        GPGPU__TRY(gpgpu__array_check(ctx, __func__, "values", values));
    if (indices)
        GPGPU__TRY(gpgpu__array_check(ctx, __func__, "indices", indices));
    GPGPU__TRY(check_topk(ctx, __func__, in->t, in->n, k, flags, values != NULL,
                          indices != NULL));
    GPGPU__REQUIRE(ctx, !values || (values->t == in->t && values->n >= k), __func__,
                   "values holds %zu elements of another type or fewer than k = %zu; need "
                   "in's type and room for k", values ? values->n : 0, k);
    GPGPU__REQUIRE(ctx, !indices || (indices->t == GPGPU_U64 && indices->n >= k), __func__,
                   "indices holds %zu elements; need GPGPU_U64 and room for k = %zu",
                   indices ? indices->n : 0, k);
    GPGPU__REQUIRE(ctx, values != in && (const gpgpu_array *)indices != in, __func__,
                   "values or indices is in; they must be other arrays");
    if (ctx->host)
        return gpgpu__host_top_k(in->t, in->host, in->n, k, flags, values ? values->host : NULL,
                                 indices ? indices->host : NULL) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", __func__);
    topk_out o = {values ? values->buf : NULL, indices ? indices->buf : NULL, 0, 0};
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, __func__,
                            topk_enqueue(ctx, in->t, in->buf, 0, in->n, k, flags, &o));
}

gpgpu_status gpgpu_quantiles_array(gpgpu_context *ctx, const gpgpu_array *in, const double *q,
                                   size_t nq, double *out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(check_q(ctx, __func__, in->t, in->n, q, nq, out != NULL));
    if (nq == 0)
        return GPGPU_SUCCESS;
    if (ctx->host)
        return host_quantiles(ctx, in->t, in->host, in->n, q, nq, out);
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, __func__,
                            q_device_to_host(ctx, in->t, in->buf, 0, in->n, q, nq, out));
}
