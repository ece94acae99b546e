/*
 * histogram_edges.c - histograms over the caller's edges (NumPy's
 * histogram(x, bins=edges)), exact on the real numbers.
 *
 * The edges become thresholds ("cuts") in the sample type once per call:
 * each edge rounded up to the type, so that x >= edge <=> x >= cut for
 * every sample x of the type, with no rounding of x (a 64-bit integer is
 * never converted to double). A sample's bin is then the number of cuts
 * <= x, less one: a binary search, on the device (kernels/histogram.cl with
 * HIST_EDGES=1, through the even-bin histogram's passes) and in the plain-C
 * fallback alike. The last edge counts in the last bin: x is counted up to
 * top, the largest value of the type not above it.
 */
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
    *cuts = gpgpu__malloc((nbins + 1) * ti->size);
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
    } else if (t == GPGPU_F64) {
        memcpy(*cuts, edges, (nbins + 1) * sizeof *edges);
        p->top.f64 = edges[nbins];
    } else {
        int_cuts(ti, edges, nbins, *cuts, p);
    }
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

/* The host's search starts from a lookup table over the cuts' range:
   slot k of nlut equal slots over [cut[0], cut[ncut - 1]] holds the number
   of cuts at or below its start, from which a short walk each way finds
   the number of cuts <= x exactly (the slot, computed in double, only
   says where to start). A binary search per sample ran at about a serial
   loop's speed of binary searches; this reads one or two cuts. */
typedef struct {
    uint32_t *lut;
    size_t nlut;
    double lo, scale;
} edges_lut;

/* Four slots a cut, at most 2^20 (4 MiB): past that many edges a slot
   holds several cuts, still a short walk. */
static size_t lut_slots(size_t ncut)
{
    return ncut < ((size_t)1 << 18) ? 4 * ncut : (size_t)1 << 20;
}

#define HOST_EDGES_LUT(T, F)                                                \
    do {                                                                    \
        const T *cut = p->cuts;                                             \
        const size_t ncut = p->ncut;                                        \
        L.lo = (double)cut[0];                                              \
        const double span = (double)cut[ncut - 1] - L.lo;                   \
        L.scale = span > 0 ? (double)L.nlut / span : 0;                     \
        size_t c = 0;                                                       \
        for (size_t k = 0; k < L.nlut; k++) {                               \
            const double at = L.lo + (double)k / (L.scale > 0 ? L.scale : 1); \
            while (c < ncut && (double)cut[c] <= at)                        \
                c++;                                                        \
            L.lut[k] = (uint32_t)c;                                         \
        }                                                                   \
    } while (0)

#define HOST_EDGES_LOOP(T, F)                                              \
    do {                                                                   \
        const T *x = in, *cut = p->cuts, top = p->top.F;                   \
        const size_t ncut = p->ncut, nlut = L.nlut;                        \
        for (size_t i = 0; i < n; i++) {                                   \
            const T v = x[i];                                              \
            const double slot = ((double)v - L.lo) * L.scale;              \
            size_t pos = slot >= 0 ? (slot < (double)nlut ? L.lut[(size_t)slot] : ncut) : 0; \
            while (pos < ncut && cut[pos] <= v)                            \
                pos++;                                                     \
            while (pos > 0 && !(cut[pos - 1] <= v))                        \
                pos--;                                                     \
            if (pos > 0 && v <= top)                                       \
                bins[pos - 1 < last ? pos - 1 : last]++;                   \
        }                                                                  \
    } while (0)

#define HOST_EDGES_SEARCH(T, F)                                            \
    do {                                                                   \
        const T *x = in, *cut = p->cuts, top = p->top.F;                   \
        for (size_t i = 0; i < n; i++) {                                   \
            size_t lo = 0, hi = p->ncut;                                   \
            while (lo < hi) {                                              \
                size_t mid = (lo + hi) / 2;                                \
                if (cut[mid] <= x[i])                                      \
                    lo = mid + 1;                                          \
                else                                                       \
                    hi = mid;                                              \
            }                                                              \
            if (lo > 0 && x[i] <= top)                                     \
                bins[lo - 1 < last ? lo - 1 : last]++;                     \
        }                                                                  \
    } while (0)

/* L.lut (L.nlut slots, allocated) filled for the cuts of p, with L.lo and
   L.scale. */
static void lut_build(gpgpu_type t, const gpgpu__hist_params *p, edges_lut *Lp)
{
#define L (*Lp)
    switch (t) {
    case GPGPU_I32: HOST_EDGES_LUT(int32_t, i32); break;
    case GPGPU_U32: HOST_EDGES_LUT(uint32_t, u32); break;
    case GPGPU_F32: HOST_EDGES_LUT(float, f32); break;
    case GPGPU_I64: HOST_EDGES_LUT(int64_t, i64); break;
    case GPGPU_U64: HOST_EDGES_LUT(uint64_t, u64); break;
    case GPGPU_F64: HOST_EDGES_LUT(double, f64); break;
    }
#undef L
}

static void host_edges(gpgpu_type t, const void *in, size_t n, const gpgpu__hist_params *p,
                       uint64_t *bins)
{
    const size_t last = p->nbins - 1;
    memset(bins, 0, p->nbins * sizeof *bins);
    if (p->empty)
        return;
    /* four slots a cut: most samples land in a slot with at most one cut;
       without memory for it (or for few samples), the binary search */
    edges_lut L = {NULL, lut_slots(p->ncut), 0, 0};
    if (n >= 4 * L.nlut && p->ncut > 1)
        L.lut = malloc(L.nlut * sizeof *L.lut);
    if (L.lut) {
        lut_build(t, p, &L);
        switch (t) {
        case GPGPU_I32: HOST_EDGES_LOOP(int32_t, i32); break;
        case GPGPU_U32: HOST_EDGES_LOOP(uint32_t, u32); break;
        case GPGPU_F32: HOST_EDGES_LOOP(float, f32); break;
        case GPGPU_I64: HOST_EDGES_LOOP(int64_t, i64); break;
        case GPGPU_U64: HOST_EDGES_LOOP(uint64_t, u64); break;
        case GPGPU_F64: HOST_EDGES_LOOP(double, f64); break;
        }
        free(L.lut);
        return;
    }
    switch (t) {
    case GPGPU_I32: HOST_EDGES_SEARCH(int32_t, i32); break;
    case GPGPU_U32: HOST_EDGES_SEARCH(uint32_t, u32); break;
    case GPGPU_F32: HOST_EDGES_SEARCH(float, f32); break;
    case GPGPU_I64: HOST_EDGES_SEARCH(int64_t, i64); break;
    case GPGPU_U64: HOST_EDGES_SEARCH(uint64_t, u64); break;
    case GPGPU_F64: HOST_EDGES_SEARCH(double, f64); break;
    }
}

/* ---- through the device ---------------------------------------------------- */

/* The cuts' device copy for the call (p->cuts_mem, NULL when no sample can
   be counted: the passes then only zero the bins). */
static gpgpu_status cuts_upload(gpgpu_context *ctx, gpgpu_type t, gpgpu__hist_params *p)
{
    p->cuts_mem = NULL;
    if (p->empty)
        return GPGPU_SUCCESS;
    const size_t bytes = p->ncut * gpgpu__type(t)->size;
    if (!ctx->tune.chunked)
        return gpgpu__buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, p->cuts,
                             &p->cuts_mem);
    /* CPUs: the cuts, then the host's lookup table (kernels/histogram.cl,
       hist_bin): its slots (uint), its scale (float bits) and its counts */
    edges_lut L = {NULL, lut_slots(p->ncut), 0, 0};
    uint32_t *buf = gpgpu__malloc(bytes + (2 + L.nlut) * sizeof(uint32_t));
    if (!buf)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "histogram_edges: no host memory");
    memcpy(buf, p->cuts, bytes);
    uint32_t *head = buf + bytes / sizeof *buf;
    L.lut = head + 2;
    lut_build(t, p, &L);
    float scale = (float)L.scale;
    head[0] = (uint32_t)L.nlut;
    memcpy(&head[1], &scale, sizeof scale);
    gpgpu_status s = gpgpu__buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   bytes + (2 + L.nlut) * sizeof(uint32_t), buf, &p->cuts_mem);
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
    GPGPU__TRY(cuts_upload(ctx, t, p));
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
    gpgpu_status s = cuts_upload(ctx, t, &p);
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
        s = cuts_upload(ctx, in->t, &p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__histogram_enqueue(ctx, in->t, in->buf, 0, in->n, &p, out, 0, 0);
    cuts_release(&p);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, out, 0, nbins * sizeof *bins, bins);
    free(cuts);
    return gpgpu__array_end(ctx, __func__, s);
}
