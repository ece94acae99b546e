/*
 * histogram.c - even-bin histograms of typed samples and of RGBA8 images.
 *
 * A call: argument checks -> the binning rule (lib/histogram.h) -> plan
 * (where the bins live, how many chunks) -> program -> per launch of at most
 * 2^31 samples: count into 32-bit chunks, merge the chunks into the 64-bit
 * bins (kernels/histogram.cl says why this shape).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "histogram.h"

/* Samples (or pixels) per launch: keeps every 32-bit counter from wrapping. */
#define HIST_LAUNCH_MAX ((size_t)1 << 31)
/* __local words for the copies of a GPU group's bins (kernels/histogram.cl) */
#define HIST_COPY_WORDS ((size_t)6144)
/* Below this many samples per chunk, a chunk's zeroing and merging would
   cost more than its counting. */
#define HIST_MIN_CHUNK ((size_t)16384)
/* Cap on the 32-bit chunks of one launch, so that millions of bins do not
   multiply into gigabytes of scratch. */
#define HIST_PART_MAX_BYTES ((size_t)64 << 20)

typedef struct {
    int private_bins;   /* groups of one work item with plain increments */
    int global_bins;    /* bins do not fit __local memory */
    size_t local;       /* work-group size */
    size_t groups;      /* work-groups of the count pass */
    size_t chunk;       /* samples per group (private_bins) */
    size_t nchunks;     /* chunks of part the merge sums */
} hist_plan;

/* nbins_total counters per group over n samples (n > 0). */
static hist_plan plan(const gpgpu_context *ctx, size_t n, size_t nbins_total)
{
    hist_plan pl;
    size_t bytes = nbins_total * sizeof(cl_uint);
    size_t want = n / (HIST_MIN_CHUNK > 2 * nbins_total ? HIST_MIN_CHUNK : 2 * nbins_total);
    size_t cap = HIST_PART_MAX_BYTES / bytes;
    pl.private_bins = !ctx->tune.hist_local;
    pl.global_bins = bytes > ctx->local_mem / 2;
    pl.local = pl.private_bins ? 1 : ctx->tune.wg;
    pl.groups = want < ctx->tune.groups ? want : ctx->tune.groups;
    if (pl.groups > cap)
        pl.groups = cap;
    if (pl.groups == 0)
        pl.groups = 1;
    pl.chunk = (n + pl.groups - 1) / pl.groups;
    if (pl.private_bins)
        pl.groups = (n + pl.chunk - 1) / pl.chunk;
    pl.nchunks = pl.global_bins && !pl.private_bins ? 1 : pl.groups;
    return pl;
}

static gpgpu_status program(gpgpu_context *ctx, gpgpu_type t, int wide, int edges,
                            gpgpu__program **prog)
{
    char opts[256], type_opts[128];
    const char *extra = NULL;
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    if (wide && !ctx->fp64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_histogram: this range and bin count need fp64 on the device");
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, GPGPU_SUM, type_opts, sizeof type_opts, &extra));
    /* edges on CPUs: the kernels check the host's lookup table against the
       cuts only where the device may round otherwise than the host did
       (kernels/histogram.cl, hist_cut_count) */
    const int check = ctx->tune.edges_check >= 0
                          ? ctx->tune.edges_check
                          : !(t == GPGPU_F64 ? ctx->fp64_denorm : ctx->fp32_denorm);
    snprintf(opts, sizeof opts, "%s -D HIST_PRIVATE=%d -D HIST_WIDE=%d%s", type_opts,
             !ctx->tune.hist_local, wide,
             edges ? (check ? " -D HIST_EDGES=1 -D HIST_EDGES_CHECK=1"
                            : " -D HIST_EDGES=1 -D HIST_EDGES_CHECK=0") : "");
    return gpgpu__program_get(ctx, "histogram", extra, opts, prog);
}

/* Scratch for the chunks; zeroed when groups share one through atomics. */
static gpgpu_status part_buffer(gpgpu_context *ctx, const hist_plan *pl, size_t nbins_total,
                                cl_mem *part)
{
    size_t bytes = pl->nchunks * nbins_total * sizeof(cl_uint);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, bytes, part));
    if (pl->global_bins && !pl->private_bins) {
        cl_uint zero = 0;
        GPGPU__TRY(gpgpu__fill(ctx, *part, 0, bytes, &zero, sizeof zero));
    }
    return GPGPU_SUCCESS;
}

/* Cells a group of hist_merge sums on a GPU, its items split between
   them (kernels/histogram.cl). On an H200 (2026-11-26,
   bench/results/2026-11-26-hist-merge) 1056 chunks of 256 doubles took
   0.053 ms with an item a cell, 0.007 ms so; a 2^28 f32 histogram of
   256 bins 0.283 -> 0.254 ms (CUB's HistogramEven 0.279), 0.058 -> 0.031
   at 2^24 (CUB 0.033). */
#define MERGE_LANES ((size_t)8)

gpgpu_status gpgpu__histogram_merge(gpgpu_context *ctx, gpgpu__program *prog, cl_mem part,
                                    size_t nchunks, size_t ncells, cl_mem out, size_t out_off,
                                    int accumulate)
{
    cl_uint nc = (cl_uint)nchunks, nb = (cl_uint)ncells, acc = (cl_uint)accumulate;
    cl_ulong off = out_off;
    size_t wg = ctx->tune.wg;
    /* CPUs, or few chunks: an item a cell */
    size_t lanes = ctx->tune.chunked || nchunks < 8 * wg / MERGE_LANES || wg % MERGE_LANES
                       ? wg : MERGE_LANES;
    cl_uint l = (cl_uint)lanes;
    return gpgpu__run(ctx, prog, "hist_merge", gpgpu__div_up(ncells, lanes) * wg, wg,
                      GPGPU__ARG(part), GPGPU__ARG(nc), GPGPU__ARG(nb), GPGPU__ARG(out),
                      GPGPU__ARG(off), GPGPU__ARG(acc), GPGPU__ARG(l),
                      GPGPU__LOCAL(wg * sizeof(cl_ulong)), GPGPU__END);
}

static gpgpu_status merge(gpgpu_context *ctx, gpgpu__program *prog, const hist_plan *pl,
                          cl_mem part, size_t nbins_total, cl_mem out, size_t out_off,
                          int accumulate)
{
    return gpgpu__histogram_merge(ctx, prog, part, pl->nchunks, nbins_total, out, out_off,
                                  accumulate);
}

/* One launch: count in[off, off + n) into chunks (n <= HIST_LAUNCH_MAX). */
static gpgpu_status count(gpgpu_context *ctx, gpgpu__program *prog, gpgpu_type t,
                          const gpgpu__hist_params *p, const hist_plan *pl, cl_mem in,
                          size_t off, size_t n, cl_mem part)
{
    size_t ts = gpgpu__type(t)->size;
    cl_ulong off_ = off, n_ = n, chunk = pl->chunk;
    cl_ulong q0 = p->q0, s0 = p->s0, dm1 = p->dm1, m = p->m;
    cl_uint nbm1 = (cl_uint)(p->nbins - 1);
    /* __local bins: one spare slot, where the vector path on CPUs counts
       the samples outside [lo, hi) */
    size_t local_bytes = pl->global_bins ? sizeof(cl_uint) : (p->nbins + 1) * sizeof(cl_uint);
    /* GPUs, even bins: one copy of the bins per warp, as many as fit
       (hist_copies in kernels/histogram.cl: the same rule) */
    if (!pl->global_bins && !pl->private_bins && !p->edges) {
        size_t copies = pl->local / 32;
        while (copies > 1 && copies * (p->nbins + 1) > HIST_COPY_WORDS)
            copies >>= 1;
        local_bytes *= copies ? copies : 1;
    }
    if (p->edges) {
        cl_uint ncut = (cl_uint)p->ncut;
        return gpgpu__run(ctx, prog, pl->global_bins ? "hist_count_global" : "hist_count",
                          pl->groups * pl->local, pl->local, GPGPU__ARG(in), GPGPU__ARG(off_),
                          GPGPU__ARG(n_), GPGPU__ARG(chunk), GPGPU__ARG(p->cuts_mem),
                          GPGPU__ARG(ncut), ts, (const void *)&p->top, GPGPU__ARG(nbm1),
                          GPGPU__ARG(part), GPGPU__LOCAL(local_bytes), GPGPU__END);
    }
    return gpgpu__run(ctx, prog, pl->global_bins ? "hist_count_global" : "hist_count",
                      pl->groups * pl->local, pl->local, GPGPU__ARG(in), GPGPU__ARG(off_),
                      GPGPU__ARG(n_), GPGPU__ARG(chunk), ts, (const void *)&p->lo, ts,
                      (const void *)&p->top, ts, (const void *)&p->scale, GPGPU__ARG(q0),
                      GPGPU__ARG(s0), GPGPU__ARG(dm1), GPGPU__ARG(m), GPGPU__ARG(nbm1),
                      GPGPU__ARG(part), GPGPU__LOCAL(local_bytes), GPGPU__END);
}

static gpgpu_status zero_bins(gpgpu_context *ctx, cl_mem bins, size_t off, size_t nbins)
{
    cl_ulong zero = 0;
    return gpgpu__fill(ctx, bins, off * sizeof zero, nbins * sizeof zero, &zero, sizeof zero);
}

gpgpu_status gpgpu__histogram_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                      size_t in_off, size_t n, const gpgpu__hist_params *p,
                                      cl_mem bins, size_t bins_off, int accumulate)
{
    gpgpu__program *prog;
    cl_mem part;
    if (n == 0 || p->empty)
        return accumulate ? GPGPU_SUCCESS : zero_bins(ctx, bins, bins_off, p->nbins);
    GPGPU__TRY(program(ctx, t, p->wide, p->edges, &prog));
    for (size_t done = 0; done < n; done += HIST_LAUNCH_MAX) {
        size_t len = n - done < HIST_LAUNCH_MAX ? n - done : HIST_LAUNCH_MAX;
        hist_plan pl = plan(ctx, len, p->nbins);
        GPGPU__TRY(part_buffer(ctx, &pl, p->nbins, &part));
        GPGPU__TRY(count(ctx, prog, t, p, &pl, in, in_off + done, len, part));
        GPGPU__TRY(merge(ctx, prog, &pl, part, p->nbins, bins, bins_off,
                         accumulate || done > 0));
    }
    return GPGPU_SUCCESS;
}

/* The checks of the rule every typed entry point shares (func names the
   public function in messages); fills p. */
gpgpu_status gpgpu__histogram_rule(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                   size_t nbins, double lo, double hi, gpgpu__hist_params *p)
{
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__REQUIRE(ctx, nbins > 0, func, "nbins is 0; at least 1");
    GPGPU__REQUIRE(ctx, nbins <= GPGPU__HIST_MAX_BINS, func, "nbins is %zu; at most %zu", nbins,
                   GPGPU__HIST_MAX_BINS);
    GPGPU__REQUIRE(ctx, isfinite(lo) && isfinite(hi), func,
                   "lo is %g and hi is %g; both must be finite", lo, hi);
    GPGPU__REQUIRE(ctx, lo < hi, func, "lo is %g and hi is %g; lo must be below hi", lo, hi);
    return gpgpu__hist_params_make(ctx, t, nbins, lo, hi, p);
}

/* Inputs larger than one device buffer go through in chunks whose counts
   add up in the bins. */
gpgpu_status gpgpu__histogram_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                       size_t n, const gpgpu__hist_params *p, uint64_t *bins)
{
    const size_t size = gpgpu__type(t)->size, chunk = gpgpu__chunk_elems(ctx, size);
    const size_t nchunks = n ? (n + chunk - 1) / chunk : 1;
    cl_mem buf, out;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, p->nbins * sizeof *bins, &out));
    if (gpgpu__in_place(ctx, n * size)) {
        size_t offset;
        GPGPU__TRY(gpgpu__host_view(ctx, in, n * size, 0, &buf, &offset));
        gpgpu__note_route(ctx, "zero-copy");
        gpgpu_status s = gpgpu__histogram_enqueue(ctx, t, buf, offset / size, n, p, out, 0, 0);
        if (s == GPGPU_SUCCESS)
            s = gpgpu__read(ctx, out, 0, p->nbins * sizeof *bins, bins);
        clReleaseMemObject(buf); /* OpenCL keeps it until its commands end */
        return s;
    }
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (n < chunk ? n : chunk) * size + 1, &buf));
    for (size_t c = 0; c < nchunks; c++) {
        size_t first = c * chunk, len = n - first < chunk ? n - first : chunk;
        if (len > 0)
            GPGPU__TRY(gpgpu__upload(ctx, buf, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__histogram_enqueue(ctx, t, buf, 0, len, p, out, 0, c > 0));
        if (nchunks > 1) /* the next write reuses buf: wait for this pass */
            GPGPU__TRY(gpgpu__finish(ctx));
    }
    return gpgpu__read(ctx, out, 0, p->nbins * sizeof *bins, bins);
}

/* What a call of n samples into nbins bins weighs against the plan's
   histogram threshold (host calls below it run the host's code). With
   private bins (the CPU plan) every work item counts into, and the kernels
   then merge, a copy of all the bins: past 1024 bins that costs the
   kernels more than the samples do, and the host's threads won at every
   size (weight 0: always the host's, unless GPGPU_HOST_BELOW=histogram=0).
   Fewer bins weigh n / 8: the host's vector binning (host_histogram.c)
   beat the kernels up to 2^18 and lost at 2^20, where the threshold for
   2-D and weighted histograms is 2^16. PoCL, 2 shared cores (load 2.7-5),
   2026-11-26, loop ratio kernels / host's code (gpgpu-bench --api host
   --op histogram --sizes 16,18,20,22,24, GPGPU_HOST_BELOW=histogram=0 |
   =all, two or three runs each): f32 256 bins 0.66-0.68 / 1.47-1.73 at
   2^16, 1.08-1.31 / 1.60-1.72 at 2^18, 1.80-1.86 / 0.84-1.23 at 2^20,
   1.42-1.60 / 1.40-1.63 at 2^24; u32 4096 bins 0.18-0.20 / 1.47-1.53 at
   2^16, 0.17-0.41 / 1.54-1.60 at 2^24. */
static size_t hist_weight(const gpgpu_context *ctx, size_t n, size_t nbins)
{
    if (ctx->tune.hist_local)
        return n;
    return nbins > 1024 ? 0 : n / 8;
}

/* The same for RGBA8 images of npix pixels: with private bins the host's
   threads won at every size (1.3-1.7x the serial loop against the kernels'
   0.9-1.1x at 2^16 and 2^24, same runs; the kernels 1.1-2.6x at 2^20). */
static size_t rgba8_weight(const gpgpu_context *ctx, size_t npix)
{
    return ctx->tune.hist_local ? npix : 0;
}

gpgpu_status gpgpu_histogram(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                             size_t nbins, double lo, double hi, uint64_t *bins)
{
    gpgpu__hist_params p;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, bins != NULL, __func__, "bins is NULL; need an array of nbins counts");
    GPGPU__TRY(gpgpu__histogram_rule(ctx, __func__, t, nbins, lo, hi, &p));
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, size, 1, size));
    if (ctx->host || gpgpu__host_below(ctx, GPGPU__HB_HISTOGRAM, hist_weight(ctx, n, nbins))) {
        if (!ctx->host)
            GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_histogram(t, in, n, &p, bins);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_histogram",
                                gpgpu__histogram_host_api(ctx, t, in, n, &p, bins));
}

gpgpu_status gpgpu_histogram_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                    size_t in_offset, size_t n, size_t nbins, double lo,
                                    double hi, cl_mem bins, size_t bins_offset,
                                    cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    gpgpu__hist_params p;
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, in != NULL || n == 0, __func__,
                   "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, bins != NULL, __func__, "bins is NULL; need a buffer of nbins counts");
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    GPGPU__TRY(gpgpu__histogram_rule(ctx, __func__, t, nbins, lo, hi, &p));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_histogram_buffer: no OpenCL device");
    if (in)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n,
                                      gpgpu__type(t)->size));
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "bins", bins, bins_offset, nbins,
                                  sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s =
        gpgpu__histogram_enqueue(ctx, t, in, in_offset, n, &p, bins, bins_offset, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

/* ---- RGBA8 images ----------------------------------------------------------- */

/* One launch over rows pixels wide rows of the image held in img. */
static gpgpu_status rgba8_launch(gpgpu_context *ctx, gpgpu__program *prog, cl_mem img,
                                 size_t width, size_t rows, size_t stride, size_t nbins,
                                 cl_mem out, int accumulate)
{
    size_t npix = width * rows, total = 4 * nbins;
    hist_plan pl = plan(ctx, npix, total);
    cl_ulong w = width, st = stride, np = npix, chunk;
    cl_uint nb = (cl_uint)nbins;
    cl_mem part;
    chunk = pl.chunk;
    GPGPU__TRY(part_buffer(ctx, &pl, total, &part));
    GPGPU__TRY(gpgpu__run(ctx, prog, pl.global_bins ? "hist_rgba8_global" : "hist_rgba8",
                          pl.groups * pl.local, pl.local, GPGPU__ARG(img), GPGPU__ARG(w),
                          GPGPU__ARG(st), GPGPU__ARG(np), GPGPU__ARG(chunk), GPGPU__ARG(nb),
                          GPGPU__ARG(part),
                          GPGPU__LOCAL(pl.global_bins ? sizeof(cl_uint)
                                                      : total * sizeof(cl_uint)),
                          GPGPU__END));
    return merge(ctx, prog, &pl, part, total, out, 0, accumulate);
}

/* Rows go to the device in launches of under 2^31 pixels; the last row of
   the image is only 4 * width bytes long. */
static gpgpu_status rgba8_host_api(gpgpu_context *ctx, const uint8_t *pixels, size_t width,
                                   size_t height, size_t stride, size_t nbins, uint64_t *bins)
{
    size_t step = HIST_LAUNCH_MAX / width > 0 ? HIST_LAUNCH_MAX / width : 1;
    size_t rows_max = step < height ? step : height;
    gpgpu__program *prog;
    cl_mem img, out;
    GPGPU__TRY(program(ctx, GPGPU_U32, 0, 0, &prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, 4 * nbins * sizeof *bins, &out));
    size_t image = (height - 1) * stride + 4 * width, offset;
    /* In place when the image starts on the device's base alignment (the
       kernel reads the image from its buffer's start). */
    if (height <= rows_max && gpgpu__in_place(ctx, image) &&
        (uintptr_t)pixels % ctx->base_align == 0) {
        GPGPU__TRY(gpgpu__host_view(ctx, pixels, image, 0, &img, &offset));
        gpgpu__note_route(ctx, "zero-copy");
        gpgpu_status s = rgba8_launch(ctx, prog, img, width, height, stride, nbins, out, 0);
        if (s == GPGPU_SUCCESS)
            s = gpgpu__read(ctx, out, 0, 4 * nbins * sizeof *bins, bins);
        clReleaseMemObject(img);
        return s;
    }
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (rows_max - 1) * stride + 4 * width, &img));
    for (size_t y = 0; y < height; y += rows_max) {
        size_t rows = height - y < rows_max ? height - y : rows_max;
        GPGPU__TRY(gpgpu__upload(ctx, img, 0, (rows - 1) * stride + 4 * width,
                                 pixels + y * stride));
        GPGPU__TRY(rgba8_launch(ctx, prog, img, width, rows, stride, nbins, out, y > 0));
        if (rows < height) /* the next write reuses img: wait for this launch */
            GPGPU__TRY(gpgpu__finish(ctx));
    }
    return gpgpu__read(ctx, out, 0, 4 * nbins * sizeof *bins, bins);
}

gpgpu_status gpgpu_histogram_rgba8(gpgpu_context *ctx, const uint8_t *pixels, size_t width,
                                   size_t height, size_t row_stride, size_t nbins,
                                   uint64_t *bins)
{
    const char *f = __func__;
    GPGPU__TRY(gpgpu__check_ctx(ctx, f));
    GPGPU__REQUIRE(ctx, nbins > 0, f, "nbins is 0; at least 1");
    GPGPU__REQUIRE(ctx, nbins <= GPGPU__HIST_MAX_BINS / 4, f, "nbins is %zu; at most %zu",
                   nbins, GPGPU__HIST_MAX_BINS / 4);
    GPGPU__REQUIRE(ctx, bins != NULL, f, "bins is NULL; need an array of 4 * nbins counts");
    GPGPU__REQUIRE(ctx, pixels != NULL || width == 0 || height == 0, f,
                   "pixels is NULL with a %zu x %zu image; it may be NULL only when width "
                   "or height is 0", width, height);
    GPGPU__REQUIRE(ctx, width <= SIZE_MAX / 4 && row_stride >= 4 * width, f,
                   "row_stride is %zu bytes and width %zu pixels; a row of 4-byte pixels "
                   "must fit in row_stride", row_stride, width);
    /* the image's bytes, (height - 1) * row_stride + 4 * width, must be an
       object size (the checks read that way so that none of them overflows) */
    GPGPU__REQUIRE(ctx, (height <= 1 || row_stride <= PTRDIFF_MAX / (height - 1)) &&
                   (height == 0 || 4 * width <= PTRDIFF_MAX - (height - 1) * row_stride), f,
                   "height is %zu and row_stride %zu; the image's bytes must be at most %td",
                   height, row_stride, PTRDIFF_MAX);
    if (ctx->host || width == 0 || height == 0 ||
        gpgpu__host_below(ctx, GPGPU__HB_HISTOGRAM, rgba8_weight(ctx, width * height))) {
        gpgpu__host_histogram_rgba8(pixels, width, height, row_stride, nbins, bins);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_histogram_rgba8",
                     rgba8_host_api(ctx, pixels, width, height, row_stride, nbins, bins));
}

/* ---- histogram ---------------------------------------------------------------------- */

gpgpu_status gpgpu_histogram_array(gpgpu_context *ctx, const gpgpu_array *in, size_t nbins,
                                   double lo, double hi, uint64_t *bins)
{
    gpgpu__hist_params p;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__REQUIRE(ctx, bins != NULL, __func__,
                   "bins is NULL");
    GPGPU__TRY(gpgpu__histogram_rule(ctx, __func__, in->t, nbins, lo, hi, &p));
    if (ctx->host) {
        gpgpu__host_histogram(in->t, in->host, in->n, &p, bins);
        return GPGPU_SUCCESS;
    }
    cl_mem out;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, nbins * sizeof *bins, &out);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__histogram_enqueue(ctx, in->t, in->buf, 0, in->n, &p, out, 0, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, out, 0, nbins * sizeof *bins, bins);
    return gpgpu__array_end(ctx, __func__, s);
}
