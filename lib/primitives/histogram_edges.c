/*
 * histogram_edges.c - histograms over the caller's edges (NumPy's
 * histogram(x, bins=edges)), exact on the real numbers.
 *
 * The edges become thresholds ("cuts") in the sample type once per call:
 * each edge rounded up to the type, so that x >= edge <=> x >= cut for
 * every sample x of the type, with no rounding of x (a 64-bit integer is
 * never converted to double). A sample's bin is then the number of cuts
 * <= x, less one: on GPUs a binary search (kernels/histogram.cl with
 * HIST_EDGES=1, through the even-bin histogram's passes); on CPUs, in the
 * kernels and on the host's threads alike, a lookup table over the cuts'
 * range that gives most samples their count with one read (below). The
 * last edge counts in the last bin: x is counted up to top, the largest
 * value of the type not above it. The CPU plan keeps host calls on the
 * host's threads (plan.c).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"

typedef __int128 i128;

/* Beyond the range of every integer type, and exact in double. */
#define FAR ((i128)1 << 100)

static i128 int_ceil(double e)
{
    return e > 0x1p100 ? FAR : e < -0x1p100 ? -FAR : (i128)ceil(e);
}

static i128 int_floor(double e)
{
    return e > 0x1p100 ? FAR : e < -0x1p100 ? -FAR : (i128)floor(e);
}

/* Stores v (in the type's range) as an integer of size bytes. */
static void put_int(void *a, size_t i, size_t size, i128 v)
{
    if (size == 4) {
        uint32_t w = (uint32_t)v;
        memcpy((char *)a + i * 4, &w, 4);
    } else {
        uint64_t w = (uint64_t)v;
        memcpy((char *)a + i * 8, &w, 8);
    }
}

/* Integer cuts: edges above the type's maximum can hold no sample and are
   left out (ncut <= nbins + 1); those below its minimum become it. */
static void int_cuts(const gpgpu__type_info *ti, const double *edges, size_t nbins, void *cuts,
                     gpgpu__hist_params *p)
{
    const int bits = (int)ti->size * 8;
    const i128 min = ti->is_signed ? -((i128)1 << (bits - 1)) : 0;
    const i128 max = ti->is_signed ? ((i128)1 << (bits - 1)) - 1 : ((i128)1 << bits) - 1;
    size_t ncut = 0;
    for (; ncut <= nbins; ncut++) {
        i128 c = int_ceil(edges[ncut]);
        if (c > max)
            break;
        put_int(cuts, ncut, ti->size, c < min ? min : c);
    }
    i128 top = int_floor(edges[nbins]);
    p->empty = ncut == 0 || top < min;
    put_int(&p->top, 0, ti->size, top > max ? max : top);
    p->ncut = ncut;
}

/* The rule for type t over the checked edges; *cuts is malloc'd (the
   caller frees it), p->cuts points to it. */
static gpgpu_status edges_params(gpgpu_context *ctx, gpgpu_type t, const double *edges,
                                 size_t nbins, gpgpu__hist_params *p, void **cuts)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    memset(p, 0, sizeof *p);
    /* one more: the host's search may read the element after the last
       cut (host_edges) */
    *cuts = gpgpu__malloc((nbins + 2) * ti->size);
    if (!*cuts)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    p->nbins = nbins;
    p->edges = 1;
    p->is_float = ti->is_float;
    p->cuts = *cuts;
    p->ncut = nbins + 1;
    if (t == GPGPU_F32) {
        for (size_t i = 0; i <= nbins; i++)
            ((float *)*cuts)[i] = gpgpu__hist_ceil_float(edges[i]);
        p->top.f32 = gpgpu__hist_floor_float(edges[nbins]);
        /* every edge past FLT_MAX: only +inf reaches the first cut, and it
           is above top */
        p->empty = isinf(((float *)*cuts)[0]);
    } else if (t == GPGPU_F64) {
        memcpy(*cuts, edges, (nbins + 1) * sizeof *edges);
        p->top.f64 = edges[nbins];
    } else {
        int_cuts(ti, edges, nbins, *cuts, p);
    }
    /* the padding: a copy of the last cut (any value would do) */
    if (p->ncut > 0)
        memcpy((char *)*cuts + p->ncut * ti->size, (char *)*cuts + (p->ncut - 1) * ti->size,
               ti->size);
    else
        memset(*cuts, 0, ti->size);
    return GPGPU_SUCCESS;
}

/* nbins + 1 finite, strictly increasing edges; the message names the first
   that is not. */
static gpgpu_status check_edges(gpgpu_context *ctx, const char *func, const double *edges,
                                size_t nbins)
{
    for (size_t i = 0; i <= nbins; i++) {
        if (!isfinite(edges[i]))
            return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                               "%s: edges[%zu] = %g: edges must be finite", func, i, edges[i]);
        if (i > 0 && !(edges[i - 1] < edges[i]))
            return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                               "%s: edges[%zu] = %.17g is not above edges[%zu] = %.17g: edges "
                               "must be strictly increasing", func, i, edges[i], i - 1,
                               edges[i - 1]);
    }
    return GPGPU_SUCCESS;
}

/* ---- the plain-C fallback ------------------------------------------------- */

/* Each sample's count of cuts <= x starts from a lookup table over the
   cuts' range. x's cell is
     t = (x - lo) * scale + 1, each step rounded to FT (float for every
         sample type but f64, which takes double; x converted to FT),
     k = clamp(floor(t), 0, nlut - 1),
   with lo the first cut and scale positive and finite, so that only a NaN
   sample makes t a NaN (and no sample not <= top is counted: its cell is
   taken as 0). The cuts, all >= lo, lie in cells 1 .. nlut - 1; cell 0
   holds only samples below them. Rounding never reverses an order, so the
   cell never decreases as x grows: a cut in an earlier cell than x's is
   <= x and one in a later cell is > x, whatever the rounding. lut[k] is
   the number of cuts in the cells before k (lut[nlut] = ncut), so the
   count is lut[k] plus the cuts of x's own cell that are <= x. With 16
   cells a cut most samples share their cell with none: one table read
   gives their count, and the others take a search over their cell's few
   cuts, out of the loop's way. The table is built with the same cell
   function that looks samples up, so the count is exact. (The kernels
   compute the same cells; where a device may flush subnormals they check
   each count against the cuts, kernels/histogram.cl.) A binary search over
   all the cuts per sample ran at about a serial loop's speed of binary
   searches; the table, about 6x faster on one core (256 uneven edges,
   f32), samples below the first cut included. */
typedef struct {
    uint32_t *lut;      /* nlut + 1 counts */
    uint32_t nlut;
    double lo, scale;   /* FT values: the cell function's constants */
} edges_lut;

/* The table's size: 16 cells a cut, at most 2^18 (1 MiB: past that, a
   cell holds several cuts), and not much more than the call's samples,
   whose own work the table's build would outweigh. */
static uint32_t lut_cells(size_t ncut, size_t n)
{
    size_t cells = 16 * ncut;
    if (cells > n)
        cells = n > 2 * ncut ? n : 2 * ncut;
    if (cells < 64)
        cells = 64;
    return (uint32_t)(cells < ((size_t)1 << 18) ? cells : (size_t)1 << 18);
}

/* floor(clamp(t, 0, last)) for t from the cell function: negative t (its
   sign bit) becomes +0 and NaN the last cell, without a branch (samples
   below the first cut are common and random). */
static inline uint32_t cell_f(float t, float last)
{
    int32_t b;
    memcpy(&b, &t, sizeof b);
    b &= ~(b >> 31);
    memcpy(&t, &b, sizeof t);
    return (uint32_t)(int32_t)(t < last ? t : last);
}

static inline uint32_t cell_d(double t, double last)
{
    int64_t b;
    memcpy(&b, &t, sizeof b);
    b &= ~(b >> 63);
    memcpy(&t, &b, sizeof t);
    return (uint32_t)(int32_t)(t < last ? t : last);
}

/* The cell function's scale: cells 1 .. last over [lo, hi] (lo, hi finite,
   hi >= lo), computed in double (a float range's span always fits) or in
   halves (a double range's may not); always positive and finite, so that
   no sample but a NaN makes t a NaN. */
static double lut_scale(double lo, double hi, double last, double ft_max)
{
    double span = hi - lo;
    double s = isinf(span) ? ((last - 1) * 0.5) / (hi * 0.5 - lo * 0.5) : (last - 1) / span;
    return span > 0 ? (s < ft_max ? s : ft_max) : 1;
}

/* The cuts' cells: those past the type's largest finite value (f32 cuts
   of edges beyond it: +inf) fall in the last cell. The first cut is finite
   (edges_params makes the rule empty otherwise). */
#define LUT_BUILD(T, FT, CELL, FT_MAX)                                      \
    do {                                                                    \
        const T *cut = p->cuts;                                             \
        size_t hi = p->ncut - 1;                                            \
        while (hi > 0 && !((FT)cut[hi] <= FT_MAX))                          \
            hi--;                                                           \
        const FT lo = (FT)cut[0], last = (FT)(L->nlut - 1);                 \
        const FT scale = (FT)lut_scale(lo, (FT)cut[hi], last, FT_MAX);      \
        memset(L->lut, 0, ((size_t)L->nlut + 1) * sizeof *L->lut);          \
        for (size_t j = 0; j < p->ncut; j++)                                \
            L->lut[CELL(((FT)cut[j] - lo) * scale + 1, last) + 1]++;        \
        for (uint32_t k = 0; k < L->nlut; k++)                              \
            L->lut[k + 1] += L->lut[k];                                     \
        L->lo = lo;                                                         \
        L->scale = scale;                                                   \
    } while (0)

/* L->lut (L->nlut + 1 counts, allocated) filled for the cuts of p (ncut >=
   1, not empty), with L->lo and L->scale. */
static void lut_build(gpgpu_type t, const gpgpu__hist_params *p, edges_lut *L)
{
    switch (t) {
    case GPGPU_I32: LUT_BUILD(int32_t, float, cell_f, FLT_MAX); break;
    case GPGPU_U32: LUT_BUILD(uint32_t, float, cell_f, FLT_MAX); break;
    case GPGPU_F32: LUT_BUILD(float, float, cell_f, FLT_MAX); break;
    case GPGPU_I64: LUT_BUILD(int64_t, float, cell_f, FLT_MAX); break;
    case GPGPU_U64: LUT_BUILD(uint64_t, float, cell_f, FLT_MAX); break;
    case GPGPU_F64: LUT_BUILD(double, double, cell_d, DBL_MAX); break;
    }
}

/* Samples per block: their cells first (a loop without branches, four at
   a time where the compiler has vector types), then their counts. */
enum { EDGES_BLOCK = 256 };

/* k[i] = the cell of x[i] for i in [i, len), or 0 for a sample not <= top
   (NaN too): its count is then 0. */
#define EDGES_CELLS(T, FT, CELL)                                            \
    for (; i < len; i++)                                                    \
        k[i] = CELL(((FT)x[i] - lo) * scale + 1, last) & -(uint32_t)(x[i] <= top)

/* The same for f32 and i32 samples, four at a time (host.h's vector
   types), each step rounded as the scalar one is (i32 to float is one IEEE
   conversion either way). LOAD sets v (the samples as floats)
   and ok4 (their x <= top). */
#ifdef GPGPU__V4
typedef gpgpu__v4f edges_v4f;
typedef gpgpu__v4i edges_v4i;
#define EDGES_CELLS_V4(LOAD)                                                \
    do {                                                                    \
        const edges_v4f lo4 = {lo, lo, lo, lo}, s4 = {scale, scale, scale, scale}; \
        const edges_v4f one4 = {1, 1, 1, 1}, last4 = {last, last, last, last}; \
        for (; i + 4 <= len; i += 4) {                                      \
            edges_v4f v;                                                    \
            edges_v4i ok4;                                                   \
            LOAD;                                                           \
            edges_v4f t4 = (v - lo4) * s4 + one4;                            \
            edges_v4i b = (edges_v4i)t4;                                     \
            t4 = (edges_v4f)(b & ~(b >> 31));                                \
            const edges_v4i lt = t4 < last4;                                 \
            t4 = (edges_v4f)(((edges_v4i)t4 & lt) | ((edges_v4i)last4 & ~lt)); \
            const edges_v4i c = __builtin_convertvector(t4, edges_v4i) & ok4; \
            memcpy(k + i, &c, sizeof c);                                    \
        }                                                                   \
    } while (0)
#define F32_LOAD                                                            \
    do {                                                                    \
        const edges_v4f top4 = {top, top, top, top};                        \
        memcpy(&v, x + i, sizeof v);                                        \
        ok4 = v <= top4;                                                     \
    } while (0)
#define I32_LOAD                                                            \
    do {                                                                    \
        const edges_v4i top4 = {top, top, top, top};                        \
        edges_v4i xi;                                                       \
        memcpy(&xi, x + i, sizeof xi);                                      \
        v = __builtin_convertvector(xi, edges_v4f);                         \
        ok4 = xi <= top4;                                                    \
    } while (0)
#define F32_CELLS                                                           \
    do {                                                                    \
        EDGES_CELLS_V4(F32_LOAD);                                           \
        EDGES_CELLS(float, float, cell_f);                                  \
    } while (0)
#define I32_CELLS                                                           \
    do {                                                                    \
        EDGES_CELLS_V4(I32_LOAD);                                           \
        EDGES_CELLS(int32_t, float, cell_f);                                \
    } while (0)
#else
#define F32_CELLS EDGES_CELLS(float, float, cell_f)
#define I32_CELLS EDGES_CELLS(int32_t, float, cell_f)
#endif
#define U32_CELLS EDGES_CELLS(uint32_t, float, cell_f)
#define I64_CELLS EDGES_CELLS(int64_t, float, cell_f)
#define U64_CELLS EDGES_CELLS(uint64_t, float, cell_f)
#define F64_CELLS EDGES_CELLS(double, double, cell_d)

/* The count of cuts <= v when the m >= 1 cuts from pos on share v's cell:
   a binary search over them. Out of the loop's way: few samples need it. */
#define EDGES_CELL_SEARCH(T, F)                                             \
    static uint32_t search_##F(const T *cut, uint32_t pos, uint32_t m, T v) \
        __attribute__((noinline, cold));                                    \
    static uint32_t search_##F(const T *cut, uint32_t pos, uint32_t m, T v) \
    {                                                                       \
        while (m > 0) {                                                     \
            const uint32_t half = m / 2;                                    \
            if (cut[pos + half] <= v) {                                     \
                pos += half + 1;                                            \
                m -= half + 1;                                              \
            } else {                                                        \
                m = half;                                                   \
            }                                                               \
        }                                                                   \
        return pos;                                                         \
    }
EDGES_CELL_SEARCH(int32_t, i32)
EDGES_CELL_SEARCH(uint32_t, u32)
EDGES_CELL_SEARCH(float, f32)
EDGES_CELL_SEARCH(int64_t, i64)
EDGES_CELL_SEARCH(uint64_t, u64)
EDGES_CELL_SEARCH(double, f64)

/* Adds the counts of in[0 .. n) to bins. A sample not counted has count
   0: it adds 0 to the last bin, with no branch. */
#define EDGES_COUNT(T, F, FT, CELLS)                                        \
    do {                                                                    \
        const T *cut = p->cuts, top = p->top.F;                             \
        const uint32_t *lut = L->lut;                                       \
        const FT lo = (FT)L->lo, scale = (FT)L->scale, last = (FT)(L->nlut - 1); \
        const uint32_t lastb = (uint32_t)(p->nbins - 1);                    \
        uint32_t k[EDGES_BLOCK];                                            \
        for (size_t at = 0; at < n; at += EDGES_BLOCK) {                    \
            const T *x = (const T *)in + at;                                \
            const size_t len = n - at < EDGES_BLOCK ? n - at : EDGES_BLOCK; \
            size_t i = 0;                                                   \
            CELLS;                                                          \
            for (i = 0; i < len; i++) {                                     \
                uint32_t pos = lut[k[i]];                                   \
                const uint32_t m = lut[k[i] + 1] - pos;                     \
                if (m != 0)                                                 \
                    pos = search_##F(cut, pos, m, x[i]);                    \
                bins[pos - 1 < lastb ? pos - 1 : lastb] += pos != 0;        \
            }                                                               \
        }                                                                   \
    } while (0)

/* Without a table (no memory for it): a binary search over all the cuts. */
#define EDGES_SEARCH(T, F)                                                  \
    do {                                                                    \
        const T *x = in, *cut = p->cuts, top = p->top.F;                    \
        for (size_t i = 0; i < n; i++) {                                    \
            size_t lo = 0, hi = p->ncut;                                    \
            while (lo < hi) {                                               \
                size_t mid = (lo + hi) / 2;                                 \
                if (cut[mid] <= x[i])                                       \
                    lo = mid + 1;                                           \
                else                                                        \
                    hi = mid;                                               \
            }                                                               \
            if (lo > 0 && x[i] <= top)                                      \
                bins[lo - 1 < lastbin ? lo - 1 : lastbin]++;                \
        }                                                                   \
    } while (0)

/* Adds the counts of in[0 .. n) to bins (p not empty; L NULL: no table). */
static void edges_count(gpgpu_type t, const void *in, size_t n, const gpgpu__hist_params *p,
                        const edges_lut *L, uint64_t *bins)
{
    const size_t lastbin = p->nbins - 1;
    if (!L) {
        switch (t) {
        case GPGPU_I32: EDGES_SEARCH(int32_t, i32); break;
        case GPGPU_U32: EDGES_SEARCH(uint32_t, u32); break;
        case GPGPU_F32: EDGES_SEARCH(float, f32); break;
        case GPGPU_I64: EDGES_SEARCH(int64_t, i64); break;
        case GPGPU_U64: EDGES_SEARCH(uint64_t, u64); break;
        case GPGPU_F64: EDGES_SEARCH(double, f64); break;
        }
        return;
    }
    switch (t) {
    case GPGPU_I32: EDGES_COUNT(int32_t, i32, float, I32_CELLS); break;
    case GPGPU_U32: EDGES_COUNT(uint32_t, u32, float, U32_CELLS); break;
    case GPGPU_F32: EDGES_COUNT(float, f32, float, F32_CELLS); break;
    case GPGPU_I64: EDGES_COUNT(int64_t, i64, float, I64_CELLS); break;
    case GPGPU_U64: EDGES_COUNT(uint64_t, u64, float, U64_CELLS); break;
    case GPGPU_F64: EDGES_COUNT(double, f64, double, F64_CELLS); break;
    }
}

/* Parts of at least this many samples, one a host thread
   (gpgpu__host_count_parts). */
enum { EDGES_PART_MIN = 1 << 16 };

typedef struct {
    gpgpu_type t;
    const char *in;
    size_t size;
    const gpgpu__hist_params *p;
    const edges_lut *L;
} edges_job;

static void edges_part(void *arg, size_t first, size_t len, uint64_t *bins)
{
    const edges_job *j = arg;
    edges_count(j->t, j->in + first * j->size, len, j->p, j->L, bins);
}

static void host_edges(gpgpu_type t, const void *in, size_t n, const gpgpu__hist_params *p,
                       uint64_t *bins)
{
    if (p->empty || n == 0) {
        memset(bins, 0, p->nbins * sizeof *bins);
        return;
    }
    edges_lut L = {NULL, lut_cells(p->ncut, n), 0, 0};
    L.lut = malloc(((size_t)L.nlut + 1) * sizeof *L.lut);
    if (L.lut)
        lut_build(t, p, &L);
    edges_job j = {t, in, gpgpu__type(t)->size, p, L.lut ? &L : NULL};
    gpgpu__host_count_parts(n, EDGES_PART_MIN, p->nbins, edges_part, &j, bins);
    free(L.lut);
}

/* ---- through the device ---------------------------------------------------- */

/* The cuts' device copy for a call of n samples (p->cuts_mem, NULL when no
   sample can be counted: the passes then only zero the bins). */
static gpgpu_status cuts_upload(gpgpu_context *ctx, gpgpu_type t, size_t n,
                                gpgpu__hist_params *p)
{
    p->cuts_mem = NULL;
    if (p->empty)
        return GPGPU_SUCCESS;
    const size_t size = gpgpu__type(t)->size, bytes = p->ncut * size;
    if (!ctx->tune.chunked)
        return gpgpu__buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, p->cuts,
                             &p->cuts_mem);
    /* CPUs: the cuts and their padding, to a multiple of 8 bytes; the
       table's header (kernels/histogram.cl, hist_bin): the cell count, a
       spare word, lo and scale (8 bytes each: a float in the first 4, or a
       double); then the table's nlut + 1 counts */
    edges_lut L = {NULL, lut_cells(p->ncut, n), 0, 0};
    const size_t head = (bytes + size + 7) / 8 * 8, total = head + 24 + (L.nlut + 1) * 4;
    char *buf = gpgpu__malloc(total);
    if (!buf)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "histogram_edges: no host memory");
    memset(buf, 0, head + 24);
    memcpy(buf, p->cuts, bytes + size);
    L.lut = (uint32_t *)(buf + head + 24);
    lut_build(t, p, &L);
    memcpy(buf + head, &L.nlut, sizeof L.nlut);
    if (t == GPGPU_F64) {
        memcpy(buf + head + 8, &L.lo, 8);
        memcpy(buf + head + 16, &L.scale, 8);
    } else {
        float lo = (float)L.lo, scale = (float)L.scale;
        memcpy(buf + head + 8, &lo, 4);
        memcpy(buf + head + 16, &scale, 4);
    }
    gpgpu_status s = gpgpu__buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, total, buf,
                                   &p->cuts_mem);
    free(buf);
    return s;
}

static void cuts_release(gpgpu__hist_params *p)
{
    if (p->cuts_mem)
        clReleaseMemObject(p->cuts_mem); /* kernels still queued keep it alive */
}

static gpgpu_status edges_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                   gpgpu__hist_params *p, uint64_t *bins)
{
    GPGPU__TRY(cuts_upload(ctx, t, n, p));
    gpgpu_status s = gpgpu__histogram_host_api(ctx, t, in, n, p, bins);
    cuts_release(p);
    return s;
}

gpgpu_status gpgpu_histogram_edges(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                   const double *edges, size_t nbins, uint64_t *bins)
{
    gpgpu__hist_params p;
    void *cuts;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, in != NULL || n == 0, __func__,
                   "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, edges != NULL, __func__,
                   "edges is NULL");
    GPGPU__REQUIRE(ctx, bins != NULL, __func__,
                   "bins is NULL");
    GPGPU__REQUIRE(ctx, nbins > 0, __func__, "nbins is 0; need at least 1");
    GPGPU__REQUIRE(ctx, nbins <= GPGPU__HIST_MAX_BINS, __func__, "nbins is %zu; at most %zu", nbins,
                   (size_t)GPGPU__HIST_MAX_BINS);
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t), __func__,
                   "in is %p; it must be aligned to %zu bytes, the size of one element of t", (const void *)in, gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, (uintptr_t)bins % sizeof *bins == 0, __func__,
                   "bins is %p; it must be aligned to %zu bytes, the size of one element", (const void *)bins, (size_t)(sizeof *bins));
    GPGPU__TRY(check_edges(ctx, __func__, edges, nbins));
    if (!ctx->host)
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
    GPGPU__TRY(edges_params(ctx, t, edges, nbins, &p, &cuts));
    if (ctx->host || gpgpu__host_below(ctx, GPGPU__HB_EDGES, n)) {
        host_edges(t, in, n, &p, bins);
        free(cuts);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = gpgpu__host_call_end(ctx, "gpgpu_histogram_edges",
                                          edges_host_api(ctx, t, in, n, &p, bins));
    free(cuts);
    return s;
}

gpgpu_status gpgpu_histogram_edges_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                          size_t in_offset, size_t n, const double *edges,
                                          size_t nbins, cl_mem bins, size_t bins_offset,
                                          cl_uint num_wait, const cl_event *wait,
                                          cl_event *done)
{
    gpgpu__hist_params p;
    void *cuts;
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, in != NULL || n == 0, __func__,
                   "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, edges != NULL, __func__,
                   "edges is NULL");
    GPGPU__REQUIRE(ctx, bins != NULL, __func__,
                   "bins is NULL");
    GPGPU__REQUIRE(ctx, nbins > 0, __func__, "nbins is 0; need at least 1");
    GPGPU__REQUIRE(ctx, nbins <= GPGPU__HIST_MAX_BINS, __func__, "nbins is %zu; at most %zu", nbins,
                   (size_t)GPGPU__HIST_MAX_BINS);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    GPGPU__TRY(check_edges(ctx, __func__, edges, nbins));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_histogram_edges_buffer: no OpenCL device");
    if (n > 0)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n,
                                      gpgpu__type(t)->size));
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "bins", bins, bins_offset, nbins,
                                  sizeof(cl_ulong)));
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    GPGPU__TRY(edges_params(ctx, t, edges, nbins, &p, &cuts));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = cuts_upload(ctx, t, n, &p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__histogram_enqueue(ctx, t, in, in_offset, n, &p, bins, bins_offset, 0);
    cuts_release(&p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    free(cuts);
    return s;
}

/* ---- device arrays --------------------------------------------------------------- */

gpgpu_status gpgpu_histogram_edges_array(gpgpu_context *ctx, const gpgpu_array *in,
                                         const double *edges, size_t nbins, uint64_t *bins)
{
    gpgpu__hist_params p;
    void *cuts;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__REQUIRE(ctx, edges != NULL, __func__, "edges is NULL");
    GPGPU__REQUIRE(ctx, bins != NULL, __func__, "bins is NULL");
    GPGPU__REQUIRE(ctx, nbins > 0, __func__, "nbins is 0; need at least 1");
    GPGPU__REQUIRE(ctx, nbins <= GPGPU__HIST_MAX_BINS, __func__, "nbins is %zu; at most %zu",
                   nbins, (size_t)GPGPU__HIST_MAX_BINS);
    GPGPU__REQUIRE(ctx, (uintptr_t)bins % sizeof *bins == 0, __func__,
                   "bins is %p; it must be aligned to %zu bytes, the size of one element",
                   (const void *)bins, (size_t)(sizeof *bins));
    GPGPU__TRY(check_edges(ctx, __func__, edges, nbins));
    if (!ctx->host)
        GPGPU__TRY(gpgpu__type_supported(ctx, in->t));
    GPGPU__TRY(edges_params(ctx, in->t, edges, nbins, &p, &cuts));
    p.cuts_mem = NULL;
    if (ctx->host) {
        host_edges(in->t, in->host, in->n, &p, bins);
        free(cuts);
        return GPGPU_SUCCESS;
    }
    cl_mem out;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, nbins * sizeof *bins, &out);
    if (s == GPGPU_SUCCESS)
        s = cuts_upload(ctx, in->t, in->n, &p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__histogram_enqueue(ctx, in->t, in->buf, 0, in->n, &p, out, 0, 0);
    cuts_release(&p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, out, 0, nbins * sizeof *bins, bins);
    free(cuts);
    return gpgpu__array_end(ctx, __func__, s);
}
