/*
 * host_histogram.c - the binning rule (gpgpu__hist_params_make, shared with
 * the kernels through lib/histogram.c) and the plain-C histograms of the
 * fallback device.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef unsigned __int128 gpgpu__u128;
typedef __int128 gpgpu__i128;

float gpgpu__hist_ceil_float(double v)
{
    float f = (float)v;
    return (double)f < v ? nextafterf(f, INFINITY) : f;
}

float gpgpu__hist_floor_float(double v)
{
    float f = (float)v;
    return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

/* nbins / (hi - lo) without overflowing when hi - lo exceeds DBL_MAX. */
static double float_scale(size_t nbins, double lo, double hi)
{
    double span = hi - lo;
    if (isinf(span))
        return ((double)nbins * 0.5) / (hi * 0.5 - lo * 0.5);
    return (double)nbins / span;
}

static void float_params(gpgpu_type t, size_t nbins, double lo, double hi,
                         gpgpu__hist_params *p)
{
    double s = float_scale(nbins, lo, hi);
    p->is_float = 1;
    if (t == GPGPU_F32) {
        p->lo.f32 = gpgpu__hist_ceil_float(lo);
        p->top.f32 = gpgpu__hist_ceil_float(hi);
        p->scale.f32 = s < FLT_MAX ? (float)s : FLT_MAX;
        p->empty = !(p->lo.f32 < p->top.f32);
    } else {
        p->lo.f64 = lo;
        p->top.f64 = hi;
        p->scale.f64 = s < DBL_MAX ? s : DBL_MAX;
    }
}

static void int_range(gpgpu_type t, gpgpu__i128 *min, gpgpu__i128 *max)
{
    switch (t) {
    case GPGPU_I32: *min = INT32_MIN; *max = INT32_MAX; break;
    case GPGPU_U32: *min = 0; *max = UINT32_MAX; break;
    case GPGPU_I64: *min = INT64_MIN; *max = INT64_MAX; break;
    default: *min = 0; *max = UINT64_MAX; break;
    }
}

static void set_int(gpgpu_type t, gpgpu__hist_value *v, gpgpu__i128 x)
{
    switch (t) {
    case GPGPU_I32: v->i32 = (int32_t)x; break;
    case GPGPU_U32: v->u32 = (uint32_t)x; break;
    case GPGPU_I64: v->i64 = (int64_t)x; break;
    default: v->u64 = (uint64_t)x; break;
    }
}

static gpgpu_status int_params(const gpgpu_context *ctx, gpgpu_type t, size_t nbins,
                               double lo, double hi, gpgpu__hist_params *p)
{
    gpgpu__i128 tmin, tmax;
    int_range(t, &tmin, &tmax);
    /* Bounds beyond +-2^66 with a countable sample make D > 2^64. */
    if (hi <= (double)tmin || lo >= (double)(tmax + 1)) {
        p->empty = 1;
        return GPGPU_SUCCESS;
    }
    if (lo < -0x1p66 || hi > 0x1p66)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_histogram: integer samples need ceil(hi) - ceil(lo) <= 2^64");
    gpgpu__i128 L = (gpgpu__i128)ceil(lo), H = (gpgpu__i128)ceil(hi);
    gpgpu__i128 a = L > tmin ? L : tmin, b = H - 1 < tmax ? H - 1 : tmax;
    if (a > b) {
        p->empty = 1;
        return GPGPU_SUCCESS;
    }
    gpgpu__u128 D = (gpgpu__u128)(H - L);
    if (D > ((gpgpu__u128)1 << 64))
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_histogram: integer samples need ceil(hi) - ceil(lo) <= 2^64");
    gpgpu__u128 rn = (gpgpu__u128)(a - L) * nbins;
    set_int(t, &p->lo, a);
    set_int(t, &p->top, b);
    p->q0 = (uint64_t)(rn / D);
    p->s0 = (uint64_t)(rn % D);
    p->dm1 = (uint64_t)(D - 1);
    p->wide = (gpgpu__u128)(nbins + 3) * D > UINT64_MAX;
    if (p->wide) {
        double inv = 1.0 / (double)D;
        memcpy(&p->m, &inv, sizeof inv);
    } else {
        p->m = UINT64_MAX / (uint64_t)D;
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__hist_params_make(const gpgpu_context *ctx, gpgpu_type t, size_t nbins,
                                     double lo, double hi, gpgpu__hist_params *p)
{
    memset(p, 0, sizeof *p);
    p->nbins = nbins;
    if (t == GPGPU_F32 || t == GPGPU_F64) {
        float_params(t, nbins, lo, hi, p);
        return GPGPU_SUCCESS;
    }
    return int_params(ctx, t, nbins, lo, hi, p);
}

void gpgpu__hist_params_widen(gpgpu__hist_params *p)
{
    if (p->is_float || p->empty || p->wide)
        return;
    double inv = 1.0 / ((double)p->dm1 + 1.0);
    p->wide = 1;
    memcpy(&p->m, &inv, sizeof inv);
}

/* min(floor(t), nbins - 1) given t' = fmin(t, nbins - 1) rounded to the
   sample type (a NaN t becomes nbins - 1), as the kernels compute it. */
static uint64_t float_bin(double t, uint64_t nbins)
{
    uint64_t b = t > 0 ? (uint64_t)t : 0;
    return b < nbins - 1 ? b : nbins - 1;
}

static uint64_t int_bin(const gpgpu__hist_params *p, uint64_t d)
{
    if (!p->wide) {
        /* num / D by the reciprocal m = floor((2^64 - 1) / D), as the
           kernels do: the estimate is at most two below, then corrected
           (a 64-bit division per sample ran at a fifth of a loop's speed) */
        const uint64_t num = d * p->nbins + p->s0, D = p->dm1 + 1;
        uint64_t q = (uint64_t)(((gpgpu__u128)num * p->m) >> 64);
        while (num - q * D >= D)
            q++;
        return p->q0 + q;
    }
    gpgpu__u128 num = (gpgpu__u128)d * p->nbins + p->s0;
    return p->q0 + (uint64_t)(num / ((gpgpu__u128)p->dm1 + 1));
}

/* The rule, one sample at a time: out[i] = the bin of in[i], or HOST_NO_BIN
   when it is not counted. Float products are stored to T before float_bin
   sees them, so the host rounds exactly like the kernel does. */
#define HOST_NO_BIN UINT32_MAX
#define HOST_FLOAT_BINS(T, F)                                              \
    do {                                                                   \
        const T *x = in, top = (T)(p->nbins - 1);                          \
        for (size_t i = 0; i < n; i++) {                                   \
            T tt = (x[i] - p->lo.F) * p->scale.F;                          \
            out[i] = x[i] >= p->lo.F && x[i] < p->top.F                    \
                         ? (uint32_t)float_bin(tt < top ? tt : top, p->nbins) \
                         : HOST_NO_BIN;                                    \
        }                                                                  \
    } while (0)

/* U is the unsigned type of T's width: x - lo in it is exact (x >= lo). */
#define HOST_INT_BINS(T, U, F)                                             \
    do {                                                                   \
        const T *x = in;                                                   \
        for (size_t i = 0; i < n; i++)                                     \
            out[i] = x[i] >= p->lo.F && x[i] <= p->top.F                   \
                         ? (uint32_t)int_bin(p, (U)((U)x[i] - (U)p->lo.F)) \
                         : HOST_NO_BIN;                                    \
    } while (0)

static void bins_of(gpgpu_type t, const gpgpu__hist_params *p, const void *in, size_t n,
                    uint32_t *out)
{
    if (p->empty) {
        for (size_t i = 0; i < n; i++)
            out[i] = HOST_NO_BIN;
        return;
    }
    switch (t) {
    case GPGPU_I32: HOST_INT_BINS(int32_t, uint32_t, i32); break;
    case GPGPU_U32: HOST_INT_BINS(uint32_t, uint32_t, u32); break;
    case GPGPU_F32: HOST_FLOAT_BINS(float, f32); break;
    case GPGPU_I64: HOST_INT_BINS(int64_t, uint64_t, i64); break;
    case GPGPU_U64: HOST_INT_BINS(uint64_t, uint64_t, u64); break;
    case GPGPU_F64: HOST_FLOAT_BINS(double, f64); break;
    }
}

/* Samples binned per block: the rule's loop stays free of the counting. */
enum { BLOCK = 512 };

/* The rule and the count in one loop for the common cases, the same bins
   as bins_of: F32 samples (float_bin in 32-bit integers: the clamped t is
   at most nbins - 1 <= 2^31), and 32-bit integers over a range of 2^k
   values (num / D is a shift). Returns 0 for the other cases. */
/* bins_of's rule for F32 samples, its constants at hand. */
typedef struct {
    float lo, top, scale, last;
    uint32_t lastb;
} f32_rule;

static f32_rule f32_rule_of(const gpgpu__hist_params *p)
{
    f32_rule r = {p->lo.f32, p->top.f32, p->scale.f32, (float)(p->nbins - 1),
                  (uint32_t)(p->nbins - 1)};
    return r;
}

/* The bin of an F32 sample, or HOST_NO_BIN. */
static inline uint32_t f32_bin(const f32_rule *r, float x)
{
    if (!(x >= r->lo && x < r->top))
        return HOST_NO_BIN;
    float tt = (x - r->lo) * r->scale; /* >= 0: x >= lo, scale > 0 */
    uint32_t b = (uint32_t)(tt < r->last ? tt : r->last);
    return b < r->lastb ? b : r->lastb;
}

/* F32 samples x[0 .. n) into bins by the rule r, four bins at a time
   where host.h has vector types (a sample not counted goes to bin 0 and
   is taken off it at the end), each lane's bin counted straight from the
   register. Binning and counting one sample at a time ran at 0.8-0.9x the
   loop a C programmer writes for [0, 1) (which has no lo to subtract and
   no clamp); bins stored to a block on the stack and counted in a second
   loop, at 0.85-1.3x, depending on where the block and the bins fell in
   the cache; this, at 1.5x (2^10 and 2^16 samples, one thread). */
#ifdef GPGPU__V4
/* The bins of four F32 samples by r, lanes not counted at 0; *in gets
   the lanes counted (-1) and not (0). Needs r->lastb < 2^24, where float
   holds last exactly. */
static inline gpgpu__v4i f32_bins4(const f32_rule *r, gpgpu__v4f v, gpgpu__v4i *in)
{
    const gpgpu__v4f lo4 = {r->lo, r->lo, r->lo, r->lo};
    const gpgpu__v4f top4 = {r->top, r->top, r->top, r->top};
    const gpgpu__v4f s4 = {r->scale, r->scale, r->scale, r->scale};
    const gpgpu__v4f last4 = {r->last, r->last, r->last, r->last};
    *in = (v >= lo4) & (v < top4);
    gpgpu__v4f t = (v - lo4) * s4;
    /* a counted sample's t is 0 or more, or NaN (x - lo infinite times a
       scale of 0): fmin(t, last) as f32_bin takes it is in [0, last],
       which converts exactly to a bin in [0, lastb]; the lanes not counted
       (any t) are masked off after the conversion */
    const gpgpu__v4i lt = t < last4;
    t = (gpgpu__v4f)(((gpgpu__v4i)t & lt) | ((gpgpu__v4i)last4 & ~lt));
    return __builtin_convertvector(t, gpgpu__v4i) & *in;
}
#endif

static void f32_count(const f32_rule *r, const float *x, size_t n, uint64_t *bins)
{
    uint64_t outside = 0;
    for (size_t at = 0; at < n; at += BLOCK) {
        const size_t len = n - at < BLOCK ? n - at : BLOCK;
        const float *xs = x + at;
        size_t i = 0;
#ifdef GPGPU__V4
        gpgpu__v4i out4 = {0, 0, 0, 0};
        const size_t vlen = r->lastb < (1u << 24) ? len : 0;
        for (; i + 4 <= vlen; i += 4) {
            gpgpu__v4f v;
            gpgpu__v4i in;
            memcpy(&v, xs + i, sizeof v);
            const gpgpu__v4i c = f32_bins4(r, v, &in);
            out4 -= ~in;
            bins[(uint32_t)c[0]]++;
            bins[(uint32_t)c[1]]++;
            bins[(uint32_t)c[2]]++;
            bins[(uint32_t)c[3]]++;
        }
        outside += (uint64_t)(uint32_t)(out4[0] + out4[1] + out4[2] + out4[3]);
#endif
        for (; i < len; i++) {
            const uint32_t c = f32_bin(r, xs[i]);
            outside += c == HOST_NO_BIN;
            bins[c == HOST_NO_BIN ? 0 : c]++;
        }
    }
    bins[0] -= outside;
}

/* out[(x[i] - lo) >> sh]++ for 32-bit samples (nb bins): into 32-bit
   counters when the samples are many against the bins (half the cache a
   64-bit bin takes), added to out every 2^31 samples. */
static void shift_count(const uint32_t *x, size_t n, uint32_t lo, int sh, uint64_t nb,
                        uint64_t *out)
{
    uint32_t *c = n >= 16 * nb && nb <= ((uint64_t)1 << 16) ? calloc(nb, sizeof *c) : NULL;
    if (!c) {
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            out[(uint64_t)(x[i] - lo) >> sh]++;
            out[(uint64_t)(x[i + 1] - lo) >> sh]++;
            out[(uint64_t)(x[i + 2] - lo) >> sh]++;
            out[(uint64_t)(x[i + 3] - lo) >> sh]++;
        }
        for (; i < n; i++)
            out[(uint64_t)(x[i] - lo) >> sh]++;
        return;
    }
    /* sh is at most 32 here: a 32-bit shift of 32 would be undefined */
    if (sh >= 32) {
        free(c);
        out[0] += n;
        return;
    }
    for (size_t at = 0; at < n;) {
        const size_t end = n - at > ((size_t)1 << 31) ? at + ((size_t)1 << 31) : n;
        for (; at + 4 <= end; at += 4) {
            c[(x[at] - lo) >> sh]++;
            c[(x[at + 1] - lo) >> sh]++;
            c[(x[at + 2] - lo) >> sh]++;
            c[(x[at + 3] - lo) >> sh]++;
        }
        for (; at < end; at++)
            c[(x[at] - lo) >> sh]++;
        for (uint64_t b = 0; b < nb; b++) {
            out[b] += c[b];
            c[b] = 0;
        }
    }
    free(c);
}

static int histogram_fast(gpgpu_type t, const gpgpu__hist_params *p, const void *in, size_t n,
                          uint64_t *bins)
{
    if (t == GPGPU_F32) {
        const f32_rule r = f32_rule_of(p);
        f32_count(&r, in, n, bins);
        return 1;
    }
    const uint64_t D = p->dm1 + 1;
    if ((t != GPGPU_U32 && t != GPGPU_I32) || p->wide || D == 0 || (D & (D - 1)))
        return 0;
    const int k = __builtin_ctzll(D);
    const uint64_t nb = p->nbins, s0 = p->s0;
    uint64_t *const out = bins + p->q0;
    const uint32_t lo32 = t == GPGPU_U32 ? p->lo.u32 : (uint32_t)p->lo.i32;
    const int every = t == GPGPU_U32 ? p->lo.u32 == 0 && p->top.u32 == UINT32_MAX
                                     : p->lo.i32 == INT32_MIN && p->top.i32 == INT32_MAX;
    if (every && s0 == 0 && (nb & (nb - 1)) == 0 && __builtin_ctzll(nb) <= k) {
        /* every sample counts, nbins 2^m: the bin is (x - lo) >> (k - m),
           one shift (a multiply and a shift by k ran at 0.85-0.95x the
           loop a C programmer writes for the whole range, which shifts by
           the constant 32) */
        shift_count((const uint32_t *)in, n, lo32, k - __builtin_ctzll(nb), nb, out);
        return 1;
    }
    if (t == GPGPU_U32 && p->lo.u32 == 0 && p->top.u32 == UINT32_MAX) {
        const uint32_t *x = in; /* every sample counts */
        for (size_t i = 0; i < n; i++)
            out[((uint64_t)x[i] * nb + s0) >> k]++;
    } else if (t == GPGPU_U32) {
        const uint32_t *x = in, lo = p->lo.u32, top = p->top.u32;
        for (size_t i = 0; i < n; i++)
            if (x[i] >= lo && x[i] <= top)
                out[((uint64_t)(x[i] - lo) * nb + s0) >> k]++;
    } else {
        const int32_t *x = in, lo = p->lo.i32, top = p->top.i32;
        for (size_t i = 0; i < n; i++)
            if (x[i] >= lo && x[i] <= top)
                out[((uint64_t)((uint32_t)x[i] - (uint32_t)lo) * nb + s0) >> k]++;
    }
    return 1;
}

/* Adds the counts of in[0 .. n) to bins. */
static void histogram_serial(gpgpu_type t, const void *in, size_t n,
                             const gpgpu__hist_params *p, uint64_t *bins)
{
    uint32_t b[BLOCK];
    const size_t size = gpgpu__type(t)->size;
    if (p->empty || histogram_fast(t, p, in, n, bins))
        return;
    for (size_t first = 0; first < n; first += BLOCK) {
        size_t len = n - first < BLOCK ? n - first : BLOCK;
        bins_of(t, p, (const char *)in + first * size, len, b);
        for (size_t i = 0; i < len; i++)
            if (b[i] != HOST_NO_BIN)
                bins[b[i]]++;
    }
}

/* Parts of at least part_min samples, each counted by one host thread into
   bins of its own, added up at the end: counts are exact in any order.
   Only while every part's bins together stay small (PART_BINS_MAX). */
enum { PART_MIN = 1 << 18, PART_BINS_MAX = 1 << 22 };

typedef struct {
    size_t n, nparts, nbins;
    gpgpu__count_fn *count;
    void *arg;
    uint64_t *bins;  /* nparts * nbins */
} count_job;

static void count_part(void *arg, size_t i)
{
    const count_job *j = arg;
    const size_t step = j->n / j->nparts, first = step * i;
    const size_t len = i + 1 == j->nparts ? j->n - first : step;
    uint64_t *bins = j->bins + i * j->nbins;
    memset(bins, 0, j->nbins * sizeof *bins);
    j->count(j->arg, first, len, bins);
}

void gpgpu__host_count_parts(size_t n, size_t part_min, size_t nbins, gpgpu__count_fn *count,
                             void *arg, uint64_t *bins)
{
    size_t nparts = n / part_min;
    if (nparts > 1 && nparts > gpgpu__host_threads())
        nparts = gpgpu__host_threads();
    uint64_t *parts = nparts > 1 && nbins <= PART_BINS_MAX / nparts
                          ? malloc(nparts * nbins * sizeof *parts) : NULL;
    if (!parts) { /* small, many bins, or no memory: one thread */
        memset(bins, 0, nbins * sizeof *bins);
        count(arg, 0, n, bins);
        return;
    }
    count_job j = {n, nparts, nbins, count, arg, parts};
    gpgpu__parallel(nparts, count_part, &j);
    memcpy(bins, parts, nbins * sizeof *bins);
    for (size_t i = 1; i < nparts; i++)
        for (size_t b = 0; b < nbins; b++)
            bins[b] += parts[i * nbins + b];
    free(parts);
}

typedef struct {
    gpgpu_type t;
    const char *in;
    size_t size;
    const gpgpu__hist_params *p;
} hist_job;

static void hist_count(void *arg, size_t first, size_t len, uint64_t *bins)
{
    const hist_job *j = arg;
    histogram_serial(j->t, j->in + first * j->size, len, j->p, bins);
}

void gpgpu__host_histogram(gpgpu_type t, const void *in, size_t n, const gpgpu__hist_params *p,
                           uint64_t *bins)
{
    hist_job j = {t, in, gpgpu__type(t)->size, p};
    gpgpu__host_count_parts(n, PART_MIN, p->nbins, hist_count, &j, bins);
}

/* ---- weighted and 2-D histograms ------------------------------------------- */

typedef struct {
    gpgpu_type t;
    const char *x, *y, *w;
    int wt;
    size_t n, nparts, ncells;
    const gpgpu__hist_params *px, *py;
    char *bins;  /* nparts - 1 copies of the cells, of uint64_t or double */
    void *out;   /* the result's cells */
} cells_job;

static size_t cells_of(const cells_job *j, size_t first, size_t len, uint32_t *c)
{
    const size_t size = gpgpu__type(j->t)->size;
    uint32_t by[BLOCK];
    bins_of(j->t, j->px, j->x + first * size, len, c);
    if (!j->py)
        return len;
    bins_of(j->t, j->py, j->y + first * size, len, by);
    for (size_t i = 0; i < len; i++)
        c[i] = c[i] == HOST_NO_BIN || by[i] == HOST_NO_BIN
                   ? HOST_NO_BIN : (uint32_t)(c[i] * j->py->nbins + by[i]);
    return len;
}

/* F32 samples [first, first + n): ADD for each counted cell, after TWO_D
   has made it the 2-D cell (or NO_BIN). */
#define CELL_2D                                                            \
    do {                                                                   \
        uint32_t cy = f32_bin(&ry, y[i]);                                  \
        cell = cy == HOST_NO_BIN ? HOST_NO_BIN : cell * ny + cy;           \
    } while (0)
#define CELLS_F32(ADD, TWO_D)                                              \
    do {                                                                   \
        for (size_t i = first; i < first + n; i++) {                       \
            uint32_t cell = f32_bin(&rx, x[i]);                            \
            if (cell == HOST_NO_BIN)                                       \
                continue;                                                  \
            TWO_D;                                                         \
            if (cell != HOST_NO_BIN)                                       \
                ADD;                                                       \
        }                                                                  \
    } while (0)

#ifdef GPGPU__V4
/* cells_serial's 2-D counts of F32 samples, four at a time: both axes'
   bins in vector lanes, then each lane's cell counted from the register,
   lanes not counted in cell 0 and taken off at the end. From four samples
   a cell, while they cannot overflow, the counts go to 32-bit counters,
   half the cache of 64-bit cells (256 KiB for 256 x 256); fewer do not
   pay for allocating, zeroing and adding them (2^16 samples in 256 x 256
   cells, 2026-11-26: 0.89x the serial loop with them, 1.00x without;
   2^18: 1.12x with them). PoCL's 2 cores, 2026-11-26, 256 x 256
   cells of [0, 1)^2 against the serial loop of bench/histogram2d: 1.0-1.1x
   at 2^10 and 2^16 (one thread), 1.4-1.7x at 2^24 (two), where one sample
   at a time into 64-bit cells ran at 0.7-1.0x. (Weighted sums the same
   way, a select per lane, ran at 0.5-0.7x against 0.7-0.9x for the loop
   below: they keep it.) */
static void f32_cells4(const cells_job *j, const f32_rule *rx, const f32_rule *ry, uint32_t ny,
                       size_t first, size_t n, uint64_t *count)
{
    const float *x = (const float *)j->x, *y = (const float *)j->y;
    const gpgpu__v4i ny4 = {(int32_t)ny, (int32_t)ny, (int32_t)ny, (int32_t)ny};
    uint32_t *c32 = n >= 4 * j->ncells ? calloc(j->ncells, sizeof *c32) : NULL;
    size_t i = first, end = first + n;
    while (i < end) {
        /* at most 2^32 - 1 samples into the 32-bit counters at once */
        size_t stop = c32 && end - i > UINT32_MAX ? i + UINT32_MAX : end;
        uint64_t outside = 0;
        for (; i + 4 <= stop; i += 4) {
            gpgpu__v4f v;
            gpgpu__v4i in, iny;
            memcpy(&v, x + i, sizeof v);
            gpgpu__v4i c = f32_bins4(rx, v, &in);
            memcpy(&v, y + i, sizeof v);
            const gpgpu__v4i cy = f32_bins4(ry, v, &iny);
            in &= iny;
            c = (c * ny4 + cy) & in;
            /* lanes counted are -1: 4 + their sum are the others */
            outside += (uint64_t)(4 + in[0] + in[1] + in[2] + in[3]);
            if (c32) {
                c32[(uint32_t)c[0]]++;
                c32[(uint32_t)c[1]]++;
                c32[(uint32_t)c[2]]++;
                c32[(uint32_t)c[3]]++;
            } else {
                count[(uint32_t)c[0]]++;
                count[(uint32_t)c[1]]++;
                count[(uint32_t)c[2]]++;
                count[(uint32_t)c[3]]++;
            }
        }
        if (c32) {
            c32[0] -= (uint32_t)outside;
            for (size_t b = 0; b < j->ncells; b++) {
                count[b] += c32[b];
                c32[b] = 0;
            }
        } else {
            count[0] -= outside;
        }
        if (stop < end)
            continue;
        for (; i < end; i++) { /* the last samples, one at a time */
            uint32_t cell = f32_bin(rx, x[i]), cy = f32_bin(ry, y[i]);
            if (cell != HOST_NO_BIN && cy != HOST_NO_BIN)
                count[cell * ny + cy]++;
        }
    }
    free(c32);
}

/* cells_serial's weighted sums of F32 samples (F64 weights; F32 ones
   where there is no SSE2, else f32_sums_f32w), a block at a time: the
   cells of four samples at once as f32_cells4 makes them, then sum[cell]
   += w for the samples counted, in sample order: the bits of the loop one
   sample at a time, which stays for the other rules. That loop converted
   each F32 weight with cvtss2sd into the register that held the last sum
   (it writes half of it), one chain of adds through all samples:
   0.69-0.71x the serial loop of bench/histogram2d at 2^10 .. 2^18 (256
   bins, one thread, 2-core EPYC, 2026-11-26); this, 0.86-1.02x; with
   F32 weights converted four at a time (cvtps2pd), 1.01-1.31x at 2^10 ..
   2^15, and more with the next block binned in the loop that adds
   (f32_sums_f32w). */
typedef double gpgpu__v2d __attribute__((vector_size(16)));
typedef int64_t gpgpu__v2l __attribute__((vector_size(16)));
typedef float gpgpu__v2f __attribute__((vector_size(8)));

#ifdef __SSE2__
/* f32_sums4's bins and weights of one sample s (F32 weights) into *c
   and *w. */
static inline void sums_one(const f32_rule *rx, const f32_rule *ry, uint32_t ny, const float *x,
                            const float *y, const float *wf, size_t s, uint32_t *c, double *w)
{
    uint32_t cell = f32_bin(rx, x[s]);
    if (y && cell != HOST_NO_BIN) {
        const uint32_t cy = f32_bin(ry, y[s]);
        cell = cy == HOST_NO_BIN ? HOST_NO_BIN : cell * ny + cy;
    }
    *c = cell == HOST_NO_BIN ? 0 : cell;
    *w = cell == HOST_NO_BIN ? 0.0 : (double)wf[s];
}

/* The same for samples s .. s + 3. */
static inline void sums_four(const f32_rule *rx, const f32_rule *ry, gpgpu__v4i ny4,
                             const float *x, const float *y, const float *wf, size_t s,
                             uint32_t *c, double *w)
{
    gpgpu__v4f v;
    gpgpu__v4i in;
    memcpy(&v, x + s, sizeof v);
    gpgpu__v4i cell = f32_bins4(rx, v, &in);
    if (y) {
        gpgpu__v4i iny;
        memcpy(&v, y + s, sizeof v);
        const gpgpu__v4i cy = f32_bins4(ry, v, &iny);
        in &= iny;
        cell = (cell * ny4 + cy) & in;
    }
    memcpy(c, &cell, sizeof cell);
    const __m128 wv = _mm_and_ps(_mm_loadu_ps(wf + s), _mm_castsi128_ps((__m128i)in));
    _mm_storeu_pd(w, _mm_cvtps_pd(wv));
    _mm_storeu_pd(w + 2, _mm_cvtps_pd(_mm_movehl_ps(wv, wv)));
}

/* f32_sums4 for F32 weights, the next block's cells and weights made in
   the loop that adds up this block's: the vector binning and the loads,
   adds and stores into the sums overlap (2026-11-26, 2-core EPYC, load
   about 2, 256 bins, one thread, three rounds of a plain-C harness
   timing bench/histogram2d's serial loop and the call alternately, ratio
   to the loop, f32_sums4 / this: 1.06-1.32 / 1.15-1.23 at 2^10,
   1.10-1.16 / 1.33-1.52 at 2^12, 1.09-1.21 / 1.39-1.52 at 2^14,
   1.09-1.21 / 1.18-1.44 at 2^16, 1.04-1.14 / 1.40-1.42 at 2^18). */
static void f32_sums_f32w(const cells_job *j, const f32_rule *rx, const f32_rule *ry,
                          uint32_t ny, size_t first, size_t n, double *sum)
{
    const float *x = (const float *)j->x, *y = (const float *)j->y;
    const float *wf = (const float *)j->w;
    const gpgpu__v4i ny4 = {(int32_t)ny, (int32_t)ny, (int32_t)ny, (int32_t)ny};
    uint32_t c[2][BLOCK];
    double w[2][BLOCK];
    const size_t end = first + n;
    size_t len = n < BLOCK ? n : BLOCK, k = 0;
    for (; k + 4 <= len; k += 4)
        sums_four(rx, ry, ny4, x, y, wf, first + k, c[0] + k, w[0] + k);
    for (; k < len; k++)
        sums_one(rx, ry, ny, x, y, wf, first + k, c[0] + k, w[0] + k);
    for (size_t at = first, cur = 0; at < end; at += len, cur ^= 1) {
        len = end - at < BLOCK ? end - at : BLOCK;
        const size_t next = at + len, nlen = end - next < BLOCK ? end - next : BLOCK;
        const uint32_t *cc = c[cur];
        const double *ww = w[cur];
        uint32_t *nc = c[cur ^ 1];
        double *nw = w[cur ^ 1];
        size_t i = 0;
        for (; i + 4 <= nlen; i += 4) { /* nlen <= len */
            sums_four(rx, ry, ny4, x, y, wf, next + i, nc + i, nw + i);
            sum[cc[i]] += ww[i];
            sum[cc[i + 1]] += ww[i + 1];
            sum[cc[i + 2]] += ww[i + 2];
            sum[cc[i + 3]] += ww[i + 3];
        }
        for (k = i; k < nlen; k++)
            sums_one(rx, ry, ny, x, y, wf, next + k, nc + k, nw + k);
        for (; i < len; i++)
            sum[cc[i]] += ww[i];
    }
}
#endif

static void f32_sums4(const cells_job *j, const f32_rule *rx, const f32_rule *ry, uint32_t ny,
                      size_t first, size_t n, double *sum)
{
    const float *x = (const float *)j->x, *y = (const float *)j->y;
    const float *wf = (const float *)j->w;
    const double *wd = (const double *)j->w;
    const gpgpu__v4i ny4 = {(int32_t)ny, (int32_t)ny, (int32_t)ny, (int32_t)ny};
    uint32_t c[BLOCK];
    int32_t keep[BLOCK];
    for (size_t at = first; at < first + n; at += BLOCK) {
        const size_t len = first + n - at < BLOCK ? first + n - at : BLOCK;
        size_t i = 0;
        for (; i + 4 <= len; i += 4) {
            gpgpu__v4f v;
            gpgpu__v4i in;
            memcpy(&v, x + at + i, sizeof v);
            gpgpu__v4i cell = f32_bins4(rx, v, &in);
            if (y) {
                gpgpu__v4i iny;
                memcpy(&v, y + at + i, sizeof v);
                const gpgpu__v4i cy = f32_bins4(ry, v, &iny);
                in &= iny;
                cell = (cell * ny4 + cy) & in;
            }
            memcpy(c + i, &cell, sizeof cell);
            memcpy(keep + i, &in, sizeof in);
        }
        for (; i < len; i++) { /* the block's last samples */
            uint32_t cell = f32_bin(rx, x[at + i]);
            if (y && cell != HOST_NO_BIN) {
                const uint32_t cy = f32_bin(ry, y[at + i]);
                cell = cy == HOST_NO_BIN ? HOST_NO_BIN : cell * ny + cy;
            }
            c[i] = cell == HOST_NO_BIN ? 0 : cell;
            keep[i] = cell == HOST_NO_BIN ? 0 : -1;
        }
        if (j->wt == GPGPU_F32) {
            const float *ws = wf + at;
            for (i = 0; i + 2 <= len; i += 2) {
                gpgpu__v2f f;
                memcpy(&f, ws + i, sizeof f);
                const gpgpu__v2d d = __builtin_convertvector(f, gpgpu__v2d);
                if (keep[i])
                    sum[c[i]] += d[0];
                if (keep[i + 1])
                    sum[c[i + 1]] += d[1];
            }
            if (i < len && keep[i])
                sum[c[i]] += (double)ws[i];
        } else {
            const double *ws = wd + at;
            for (i = 0; i < len; i++)
                if (keep[i])
                    sum[c[i]] += ws[i];
        }
    }
}
#endif

/* Samples [first, first + n) into cells (zeroed first), in order. */
static void cells_serial(const cells_job *j, size_t first, size_t n, void *cells)
{
    uint32_t c[BLOCK];
    uint64_t *count = cells;
    double *sum = cells;
    const float *wf = (const float *)j->w;
    const double *wd = (const double *)j->w;
    memset(cells, 0, j->ncells * (j->wt < 0 ? sizeof *count : sizeof *sum));
    if (j->t == GPGPU_F32) { /* the rule and the count in one loop each */
        const float *x = (const float *)j->x, *y = (const float *)j->y;
        const f32_rule rx = f32_rule_of(j->px), ry = f32_rule_of(j->py ? j->py : j->px);
        const uint32_t ny = j->py ? (uint32_t)j->py->nbins : 1;
#ifdef GPGPU__V4
        if (y && j->wt < 0 && rx.lastb < (1u << 24) && ry.lastb < (1u << 24)) {
            f32_cells4(j, &rx, &ry, ny, first, n, count);
            return;
        }
#ifdef __SSE2__
        if (j->wt == GPGPU_F32 && rx.lastb < (1u << 24) && ry.lastb < (1u << 24)) {
            f32_sums_f32w(j, &rx, &ry, ny, first, n, sum);
            return;
        }
#endif
        if (j->wt >= 0 && rx.lastb < (1u << 24) && ry.lastb < (1u << 24)) {
            f32_sums4(j, &rx, &ry, ny, first, n, sum);
            return;
        }
#endif
        if (y && j->wt < 0)
            CELLS_F32(count[cell]++, CELL_2D);
        else if (y && j->wt == GPGPU_F32)
            CELLS_F32(sum[cell] += (double)wf[i], CELL_2D);
        else if (y)
            CELLS_F32(sum[cell] += wd[i], CELL_2D);
        else if (j->wt < 0)
            CELLS_F32(count[cell]++, (void)0);
        else if (j->wt == GPGPU_F32)
            CELLS_F32(sum[cell] += (double)wf[i], (void)0);
        else
            CELLS_F32(sum[cell] += wd[i], (void)0);
        return;
    }
    for (size_t at = first; at < first + n; at += BLOCK) {
        size_t len = cells_of(j, at, first + n - at < BLOCK ? first + n - at : BLOCK, c);
        for (size_t i = 0; i < len; i++) {
            if (c[i] == HOST_NO_BIN)
                continue;
            if (j->wt < 0)
                count[c[i]]++;
            else
                sum[c[i]] += j->wt == GPGPU_F32 ? (double)wf[at + i] : wd[at + i];
        }
    }
}

/* Part i of the samples into cells: part 0 into the result, the others
   into j->bins (nparts - 1 copies of the cells). */
static void cells_part(void *arg, size_t i)
{
    const cells_job *j = arg;
    size_t step = j->n / j->nparts, first = step * i;
    size_t len = i + 1 == j->nparts ? j->n - first : step;
    cells_serial(j, first, len,
                 i ? j->bins + (i - 1) * j->ncells * sizeof(uint64_t) : (char *)j->out);
}

/* Samples per part of the host's threads: at least CELLS_PART_MIN, and
   as many as cells (each part zeroes and adds up cells of its own). In a
   loop of calls back to back two threads won from 2^16 samples (weighted
   sums into 256 bins, 1.28x the serial loop against 0.92x on one), but
   in gpgpu-bench, where the other thread has slept since the last call,
   not below 2^20 (2026-11-26, 2-core EPYC, 39b0764 with parts of 2^15,
   load 0.6-0.9, two rounds of GPGPU_DEVICE=host GPGPU_THREADS=1 | 2
   gpgpu-bench --api host --op OP --sizes 14,15,16,17,18,19,20 --repeat
   7, ratio to the serial loop, one thread / two: histogram_weighted
   1.11-1.20 / 0.94-1.13 at 2^16, 1.13-1.16 / 0.90-1.09 at 2^18,
   1.11-1.16 / 0.91-1.11 at 2^19, 1.16-1.18 / 1.42-1.89 at 2^20;
   histogram2d (256 x 256) 1.21-1.46 / 1.43 at 2^16, 1.57-1.62 /
   1.29-1.39 at 2^18, 1.64-1.72 / 1.73-2.26 at 2^19, 1.68-1.71 /
   2.17-2.80 at 2^20). */
enum { CELLS_PART_MIN = 1 << 19 };

void gpgpu__host_histogram_cells(gpgpu_type t, const void *x, const void *y, int wt,
                                 const void *w, size_t n, const gpgpu__hist_params *px,
                                 const gpgpu__hist_params *py, void *bins)
{
    size_t ncells = px->nbins * (py ? py->nbins : 1);
    cells_job j = {t, x, y, w, wt, n, 1, ncells, px, py, NULL, bins};
    size_t nparts = n / (ncells > CELLS_PART_MIN ? ncells : CELLS_PART_MIN);
    if (nparts > 1 && nparts > gpgpu__host_threads()) /* getenv: only where it counts */
        nparts = gpgpu__host_threads();
    /* uint64_t and double cells are both 8 bytes */
    char *parts = nparts > 1 && ncells <= PART_BINS_MAX / nparts
                      ? malloc((nparts - 1) * ncells * sizeof(uint64_t)) : NULL;
    if (!parts) { /* small, many cells, or no memory: one thread */
        cells_serial(&j, 0, n, bins);
        return;
    }
    j.nparts = nparts;
    j.bins = parts;
    gpgpu__parallel(nparts, cells_part, &j);
    /* parts added in order: the same sums for the same thread count (part
       0 is already in bins: 0 + its sum is its sum, never -0.0) */
    for (size_t i = 1; i < nparts; i++) {
        if (wt < 0) {
            const uint64_t *pc = (const uint64_t *)parts + (i - 1) * ncells;
            uint64_t *out = bins;
            for (size_t b = 0; b < ncells; b++)
                out[b] += pc[b];
        } else {
            const double *pd = (const double *)parts + (i - 1) * ncells;
            double *out = bins;
            for (size_t b = 0; b < ncells; b++)
                out[b] += pd[b];
        }
    }
    free(parts);
}

/* Channel c (0..255) and luminance in exact integer arithmetic: floor(c/255
   * nbins) and floor((2126 R + 7152 G + 722 B) / 2550000 * nbins). The
   channels' bins come from a table of the 256 values, the luminance's
   quotient from a multiply-high by ceil(2^68 / 2550000), exact for
   numerators below 2^46.7 (nbins <= 2^24; checked for every numerator
   with nbins up to 2^24); more bins take a double estimate corrected to
   the exact floor (that estimate for every pixel ran at 0.9x the float
   loop a C programmer writes; the multiply-high, at 1.2-1.5x). The
   pixels are cut in parts for the host's threads, each into bins of its
   own. */
typedef struct {
    const uint8_t *pixels;
    size_t width, row_stride, nbins;
    uint32_t chan[256];
} rgba8_job;

enum { LUM_D = 2550000, LUM_SHIFT = 4 };
#define LUM_NBINS_MAX ((uint64_t)1 << 24)
#define LUM_MUL ((uint64_t)((((unsigned __int128)1 << (64 + LUM_SHIFT)) + LUM_D - 1) / LUM_D))

/* Pixels [p, end) of the image (linear index y * width + x) into bins. */
static void rgba8_count(const rgba8_job *j, size_t p, size_t end, uint64_t *bins)
{
    const uint64_t nb = j->nbins, last = nb - 1;
    uint64_t *br = bins, *bg = bins + nb, *bb = bins + 2 * nb, *bl = bins + 3 * nb;
    const uint32_t *chan = j->chan;
    if (p >= end) /* an empty image may have no width */
        return;
    size_t y = p / j->width, x = p - y * j->width;
    while (p < end) {
        const uint8_t *row = j->pixels + y * j->row_stride;
        const size_t stop = x + (end - p < j->width - x ? end - p : j->width - x);
        p += stop - x;
        if (nb <= LUM_NBINS_MAX) {
            for (; x < stop; x++) {
                const uint8_t *px = row + 4 * x;
                const uint64_t num =
                    (uint64_t)(2126 * (uint32_t)px[0] + 7152 * (uint32_t)px[1] +
                               722 * (uint32_t)px[2]) * nb;
                const uint64_t v =
                    (uint64_t)(((unsigned __int128)num * LUM_MUL) >> 64) >> LUM_SHIFT;
                br[chan[px[0]]]++;
                bg[chan[px[1]]]++;
                bb[chan[px[2]]]++;
                bl[v < last ? v : last]++;
            }
        } else {
            const double inv = 1.0 / (double)LUM_D;
            for (; x < stop; x++) {
                const uint8_t *px = row + 4 * x;
                uint64_t num = (2126 * (uint64_t)px[0] + 7152 * (uint64_t)px[1] +
                                722 * (uint64_t)px[2]) * nb;
                uint64_t v = (uint64_t)((double)num * inv);
                if (v * LUM_D > num)
                    v--;
                else if ((v + 1) * LUM_D <= num)
                    v++;
                br[chan[px[0]]]++;
                bg[chan[px[1]]]++;
                bb[chan[px[2]]]++;
                bl[v < last ? v : last]++;
            }
        }
        x = 0;
        y++;
    }
}

static void rgba8_part(void *arg, size_t first, size_t len, uint64_t *bins)
{
    rgba8_count(arg, first, first + len, bins);
}

/* Parts of at least this many pixels (a few ns each). */
enum { RGBA8_PART_MIN = 1 << 16 };

void gpgpu__host_histogram_rgba8(const uint8_t *pixels, size_t width, size_t height,
                                 size_t row_stride, size_t nbins, uint64_t *bins)
{
    const uint64_t nb = nbins, last = nb - 1;
    rgba8_job j = {pixels, width, row_stride, nbins, {0}};
    for (uint64_t c = 0; c < 256; c++) {
        uint64_t b = c * nb / 255;
        j.chan[c] = (uint32_t)(b < last ? b : last);
    }
    gpgpu__host_count_parts(width * height, RGBA8_PART_MIN, 4 * nbins, rgba8_part, &j, bins);
}
