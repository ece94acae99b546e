/*
 * histogram2d.c - weighted histograms and 2-D histograms (counts or weights).
 *
 * Each axis bins by gpgpu_histogram's rule (gpgpu__histogram_rule; the
 * kernels' hist_bin), a 2-D sample lands in cell bx * ny + by. A call:
 * argument checks -> the rules -> plan (cells in __local memory per group;
 * counts over more cells by bands of counters in __local memory, from the
 * samples split into entries by band where there are two bands or more;
 * else atomics straight into the result) -> program ->
 * per launch of at most 2^31 samples: bin into per-group chunks, merge the
 * chunks cell by cell in group order (kernels/histogram.cl, hist_cells*).
 * Weights are summed in double: with groups of one work item (CPUs) every
 * chunk is a sum in sample order and the merge adds chunks in group order,
 * so that the bins are the same on every run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "histogram.h"

/* Samples per launch: keeps every 32-bit counter of a chunk from wrapping. */
#define CELLS_LAUNCH_MAX ((size_t)1 << 31)
/* Below this many samples per chunk, zeroing and merging a chunk would
   cost more than its binning. */
#define CELLS_MIN_CHUNK ((size_t)16384)
/* Cap on one launch's chunks, so that many cells do not multiply into
   gigabytes of scratch. */
#define CELLS_PART_MAX_BYTES ((size_t)64 << 20)
/* nx * ny above this is INVALID_ARGUMENT: cell indices stay 32-bit. */
#define CELLS_MAX ((size_t)1 << 31)

typedef struct {
    gpgpu_type t;
    int wt;                     /* the weights' type, or -1: counts */
    int two_d;
    gpgpu__hist_params px, py;  /* py unused in 1-D */
    size_t ncells;
    int empty;                  /* no sample can be counted */
} cells_spec;

/* Most copies of the cells a GPU group keeps (kernels/histogram.cl). */
#define CELLS_COPIES_MAX ((size_t)16)

/* Most bands a count takes (kernels/histogram.cl):
   hist_cells_banded's groups read every sample again for each band (on
   an H200 from memory: three bands cost three times one); split, the
   samples are read once into 16-bit entries by band, which each band's
   groups read (hist_cells_split, hist_band_count). */
#define CELLS_BANDS_MAX ((size_t)4)
#define CELLS_SPLIT_BANDS_MAX ((size_t)16)
/* Most parts a split writes (a segment's counts per part: 10-bit fields
   of a ulong, kernels/histogram.cl's HIST_SPLIT_PARTS); past six bands a
   part holds several. */
#define CELLS_SPLIT_PARTS_MAX ((size_t)6)
/* Samples per split launch: its entries' scratch is 2 bytes a sample. */
#define CELLS_SPLIT_LAUNCH ((size_t)1 << 27)
/* Samples an item of hist_cells_split bins (kernels/histogram.cl): on an
   H200, 2^28 f32 samples into 256 x 256 cells, 8 took 1.557 ms, 16 1.385,
   32 1.450 (bench/results/2026-11-26-h200-hist2d-split/items). */
#define CELLS_SPLIT_ITEMS ((size_t)16)
/* Samples a group bins at least before its warps add weights by the L2's
   atomics too (launch()). */
#define WT_GLOBAL_MIN_CHUNK ((size_t)1 << 17)
/* Samples per cell at least in each part of a banded count, so that its
   bands' adds to the result (one per cell) stay few beside its samples. */
#define CELLS_BAND_PART ((size_t)8)

/* hist_cells_split's __local bytes for groups of wg: a ulong an item, the
   segments' offsets (a uint an item, at least 16), a tile's entries. */
static size_t split_local(size_t wg)
{
    return wg * sizeof(cl_ulong) + (wg > 16 ? wg : 16) * sizeof(cl_uint) +
           wg * CELLS_SPLIT_ITEMS * sizeof(cl_ushort);
}

typedef struct {
    int local;      /* cells in __local memory, one chunk per group */
    size_t bands;   /* 0, or counts by bands of band_cells 16-bit counters
                       over parts of `part` samples (groups: parts * bands) */
    int split;      /* the bands from entries split by part (bands >= 2) */
    size_t band_cells;
    size_t subs;    /* split: bands a part (entries' range) holds */
    size_t part;
    size_t copies;  /* of the cells in __local memory, one per warp at most */
    size_t wg;      /* work-group size */
    size_t groups;
    size_t chunk;   /* samples per group (groups of one work item) */
} cells_plan;

/* Bytes of one accumulator on the device: 32-bit counts or doubles. */
static size_t acc_size(const cells_spec *c)
{
    return c->wt < 0 ? sizeof(cl_uint) : sizeof(cl_double);
}

/* wt: the weights' type (check_wt), or -1 for counts. */
static gpgpu_status spec_make(gpgpu_context *ctx, const char *func, gpgpu_type t, int wt,
                              size_t nx, double xlo, double xhi, size_t ny, double ylo,
                              double yhi, int two_d, cells_spec *c)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->wt = wt;
    c->two_d = two_d;
    if (two_d) {
        GPGPU__REQUIRE(ctx, nx > 0 && ny > 0, func, "nx is %zu and ny %zu; both at least 1",
                       nx, ny);
        GPGPU__REQUIRE(ctx, nx <= CELLS_MAX / ny, func,
                       "nx is %zu and ny %zu; nx * ny must be at most 2^31", nx, ny);
    }
    GPGPU__TRY(gpgpu__histogram_rule(ctx, func, t, nx, xlo, xhi, &c->px));
    c->ncells = nx;
    if (two_d) {
        GPGPU__TRY(gpgpu__histogram_rule(ctx, func, t, ny, ylo, yhi, &c->py));
        c->ncells = nx * ny;
        if (c->px.wide || c->py.wide) { /* one kernel, one form of the rule */
            gpgpu__hist_params_widen(&c->px);
            gpgpu__hist_params_widen(&c->py);
        }
    }
    c->empty = c->px.empty || (two_d && c->py.empty);
    return GPGPU_SUCCESS;
}

/* Weighted calls: the weights' type, before anything reads weights. */
static gpgpu_status check_wt(gpgpu_context *ctx, const char *func, gpgpu_type wt)
{
    GPGPU__REQUIRE(ctx, wt == GPGPU_F32 || wt == GPGPU_F64, func,
                   "wt is %d; the weights must be GPGPU_F32 or GPGPU_F64", (int)wt);
    return GPGPU_SUCCESS;
}

static size_t size_of(gpgpu_type t)
{
    return gpgpu__type(t)->size;
}

/* Cells a band holds: 16-bit counters (banded), or 32-bit ones (split). */
static size_t band_fit(const gpgpu_context *ctx, int split)
{
    size_t fit = (ctx->local_mem - 1024) / 2 & ~(size_t)1;
    return split ? fit / 2 : fit;
}

static cells_plan plan(const gpgpu_context *ctx, const cells_spec *c, size_t n)
{
    cells_plan pl = {0};
    int private_bins = !ctx->tune.hist_local;
    size_t bytes = c->ncells * acc_size(c);
    size_t min_chunk = CELLS_MIN_CHUNK > 2 * c->ncells ? CELLS_MIN_CHUNK : 2 * c->ncells;
    pl.local = (c->ncells + 1) * acc_size(c) <= ctx->local_mem / 2;
    pl.wg = private_bins ? 1 : ctx->tune.wg;
    pl.copies = 1;
    if (pl.local && !private_bins) {
        size_t fit = ctx->local_mem / 2 / ((c->ncells + 1) * acc_size(c)), warps = pl.wg / 32;
        pl.copies = fit < warps ? fit : warps;
        pl.copies = pl.copies < CELLS_COPIES_MAX ? pl.copies : CELLS_COPIES_MAX;
        pl.copies = pl.copies ? pl.copies : 1;
    }
    pl.groups = n / (pl.local ? min_chunk : CELLS_MIN_CHUNK);
    if (pl.groups > ctx->tune.groups)
        pl.groups = ctx->tune.groups;
    if (pl.local && pl.groups > CELLS_PART_MAX_BYTES / bytes)
        pl.groups = CELLS_PART_MAX_BYTES / bytes;
    if (pl.groups == 0)
        pl.groups = 1;
    pl.chunk = (n + pl.groups - 1) / pl.groups;
    if (private_bins)
        pl.groups = (n + pl.chunk - 1) / pl.chunk;
    /* Banded counts (kernels/histogram.cl, hist_cells_banded) against
       atomics per sample, on an H200 (2026-11-26, f32 samples, ms,
       gpgpu-bench --op histogram2d --api buffer [--bins B] with
       GPGPU_HIST_BANDED=1 and =0): 256 x 256 cells (three bands) 0.500 /
       0.199 at 2^24, 0.535 / 0.388 at 2^25, 0.640 / 0.768 at 2^26, 1.16 /
       1.52 at 2^27, 2.07 / 3.04 at 2^28; 128 x 128 (one band) 0.088 /
       0.069 at 2^22, 0.125 / 0.134 at 2^23, 0.130 / 0.261 at 2^24, 0.809 /
       4.01 at 2^28; 100 x 100 0.056 / 0.030 at 2^20, 0.091 / 0.317 at
       2^24: from about 1024 samples a cell (the plan's hist_banded).
       Groups of 512 took 2^28 samples into 256 x 256 cells in 1.94 ms and
       into 128 x 128 in 0.69 (groups of 256: 2.07 and 0.81).
       Split by band first (hist_split bands or more; H200, 2026-11-26,
       bench/hist2d-probe.sh, f32, ms, split / every band reading every
       sample): 256 x 256 cells 0.376 / 0.577 at 2^26, 1.384 / 2.031 at
       2^28; 200 x 200 (two bands of 16-bit counters) 1.339 / 1.385 at
       2^28; 300 x 300 1.387 / 2.772; one band reads once anyway. With
       four samples a load in the split pass (aad95bd): 256 x 256 0.326
       at 2^26, 1.177 at 2^28; 200 x 200 1.132; 300 x 300 1.178. At most
       four parts, two bands to a part past four (bd02cdb, 2026-11-27,
       bench/results/2026-11-27-h200-hist2d-narrow): 256 x 256 1.106 at
       2^28, 200 x 200 0.950, 300 x 300 1.130; a part to a group in 16-bit
       counters instead, 1.190. Up to four bands a part (30b9763,
       bench/results/2026-11-27-h200-hist2d-parts4): 400 x 400 1.515 at
       2^28, against 2.93 by atomics per sample. Up to six parts
       (85b6a4d, bench/results/2026-11-27-h200-hist2d-parts6): 256 x 256
       1.016-1.023 at 2^28 against 1.115-1.120, 420 x 420 1.40 against
       1.51; 200 x 200 0.982 against 0.948 (the segments' table). With
       four loads a lane in flight in the count (a021d97,
       bench/results/2026-11-27-h200-hist2d-count4): 256 x 256 0.993-0.996,
       200 x 200 0.970. */
    pl.bands = 0;
    pl.split = 0;
    pl.subs = 1;
    if (!pl.local && !private_bins && c->wt < 0 && ctx->tune.hist_banded &&
        ctx->local_mem > 2048 && n / ctx->tune.hist_banded >= c->ncells) {
        /* 16-bit counters; split, 32-bit ones */
        size_t fit = band_fit(ctx, 0);
        size_t bands = gpgpu__div_up(c->ncells, fit);
        int split = ctx->tune.hist_split && bands >= ctx->tune.hist_split &&
                    (ctx->tune.wg % 32 == 0 || 32 % ctx->tune.wg == 0) &&
                    split_local(ctx->tune.wg) <= ctx->local_mem;
        size_t subs = 1;
        if (split) {
            fit = band_fit(ctx, 1);
            bands = gpgpu__div_up(c->ncells, fit);
            subs = gpgpu__div_up(bands, CELLS_SPLIT_PARTS_MAX);
        }
        size_t band_cells = (gpgpu__div_up(c->ncells, bands) + 1) & ~(size_t)1;
        /* split: entries are 16-bit, and the kernel's part by
           multiplication is exact while cells times the part's cells stay
           below 2^40, its factor 32-bit while a part has more than 256 */
        size_t part_cells = subs * band_cells;
        if (bands <= (split ? CELLS_SPLIT_BANDS_MAX : CELLS_BANDS_MAX) &&
            (!split || (part_cells <= 65536 && part_cells > 256 &&
                        (double)c->ncells * (double)part_cells < 1099511627776.0))) {
            pl.split = split;
            size_t part = gpgpu__div_up(n, ctx->tune.groups);
            pl.bands = bands;
            pl.subs = subs;
            pl.band_cells = band_cells;
            pl.part = part > CELLS_BAND_PART * c->ncells ? part : CELLS_BAND_PART * c->ncells;
            pl.groups = gpgpu__div_up(n, pl.part) * bands;
            if (2 * pl.wg <= 512 && 2 * pl.wg <= ctx->max_wg)
                pl.wg *= 2;
        }
    }
    return pl;
}

/* What the device must offer for c with n samples (ctx not the fallback). */
static gpgpu_status device_ok(gpgpu_context *ctx, const char *func, const cells_spec *c,
                              size_t n)
{
    GPGPU__TRY(gpgpu__type_supported(ctx, c->t));
    if (c->wt >= 0 && !ctx->fp64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: weights are summed in double, and the device has no fp64",
                           func);
    if ((c->px.wide || c->py.wide) && !ctx->fp64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: this range and bin count need fp64 on the device", func);
    if (n > 0 && !c->empty) {
        cells_plan pl = plan(ctx, c, n < CELLS_LAUNCH_MAX ? n : CELLS_LAUNCH_MAX);
        int atomics64 = !pl.local || (c->wt >= 0 && ctx->tune.hist_local);
        if (atomics64 && !ctx->int64_atomics)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "%s: %zu cells need 64-bit atomics on the device", func,
                               c->ncells);
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status program(gpgpu_context *ctx, const cells_spec *c, gpgpu__program **prog)
{
    char opts[320], type_opts[128];
    const char *extra = NULL;
    GPGPU__TRY(gpgpu__type_op_options(ctx, c->t, GPGPU_SUM, type_opts, sizeof type_opts,
                                      &extra));
    snprintf(opts, sizeof opts,
             "%s -D HIST_PRIVATE=%d -D HIST_WIDE=%d -D HIST_CELLS=1 -D HIST_2D=%d -D WT_ID=%d "
             "-D HIST_SPLIT_ITEMS=%d",
             type_opts, !ctx->tune.hist_local, c->px.wide || c->py.wide, c->two_d,
             c->wt < 0 ? 0 : c->wt, (int)CELLS_SPLIT_ITEMS);
    return gpgpu__program_get(ctx, "histogram", extra, opts, prog);
}

/* A rule's kernel arguments (kernels/histogram.cl, HIST_RULE_ARGS). */
#define RULE_ARGS(p, ts, nbm1)                                                         \
    (ts), (const void *)&(p)->lo, (ts), (const void *)&(p)->top, (ts),                \
        (const void *)&(p)->scale, GPGPU__ARG((p)->q0), GPGPU__ARG((p)->s0),           \
        GPGPU__ARG((p)->dm1), GPGPU__ARG((p)->m), GPGPU__ARG(nbm1)

/* Split counts (pl.split), added to out: per launch of at most
   CELLS_SPLIT_LAUNCH samples, tiles of samples into entries by band, then
   each band's entries into its cells by groups over runs of tiles. */
static gpgpu_status launch_split(gpgpu_context *ctx, gpgpu__program *prog, const cells_spec *c,
                                 const cells_plan *pl, cl_mem x, size_t xoff, cl_mem y,
                                 size_t yoff, size_t n, cl_mem out, size_t out_off)
{
    const size_t ts = size_of(c->t), wg = ctx->tune.wg, tile = wg * CELLS_SPLIT_ITEMS;
    const gpgpu__hist_params *py = c->two_d ? &c->py : &c->px;
    const size_t most = n < CELLS_SPLIT_LAUNCH ? n : CELLS_SPLIT_LAUNCH;
    const size_t most_tiles = gpgpu__div_up(most, tile);
    cl_uint xnbm1 = (cl_uint)(c->px.nbins - 1), ynbm1 = (cl_uint)(py->nbins - 1);
    cl_uint ncells = (cl_uint)c->ncells, band_cells = (cl_uint)pl->band_cells;
    cl_uint nbands = (cl_uint)pl->bands, tile_ = (cl_uint)tile, subs = (cl_uint)pl->subs;
    cl_uint nparts = (cl_uint)gpgpu__div_up(pl->bands, pl->subs), part_cells = subs * band_cells;
    cl_ulong oo = out_off, zero = 0;
    cl_mem ent, starts;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, most_tiles * tile * sizeof(cl_ushort),
                              &ent));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS,
                              most_tiles * (nparts + 1) * sizeof(cl_uint), &starts));
    for (size_t done = 0; done < n; done += most) {
        size_t len = n - done < most ? n - done : most, ntiles = gpgpu__div_up(len, tile);
        /* enough groups for the device, each with its band's entries from
           CELLS_BAND_PART samples a cell, so its adds to out stay few */
        size_t per_group = gpgpu__div_up(ntiles * pl->bands, ctx->tune.groups);
        size_t least = gpgpu__div_up(CELLS_BAND_PART * c->ncells, tile);
        per_group = per_group > least ? per_group : least;
        size_t groups = gpgpu__div_up(ntiles, per_group) * pl->bands;
        cl_ulong xo = xoff + done, yo = yoff + done, n_ = len, nt = ntiles, pg = per_group;
        GPGPU__TRY(gpgpu__run(ctx, prog, "hist_cells_split", ntiles * wg, wg, GPGPU__ARG(x),
                              GPGPU__ARG(xo), GPGPU__ARG(y), GPGPU__ARG(yo), GPGPU__ARG(x),
                              GPGPU__ARG(zero), GPGPU__ARG(n_), GPGPU__ARG(zero),
                              RULE_ARGS(&c->px, ts, xnbm1), RULE_ARGS(py, ts, ynbm1),
                              GPGPU__ARG(ncells), GPGPU__ARG(part_cells), GPGPU__ARG(nparts),
                              GPGPU__ARG(ent), GPGPU__ARG(starts),
                              GPGPU__LOCAL(split_local(wg)),
                              GPGPU__END));
        GPGPU__TRY(gpgpu__run(ctx, prog, "hist_band_count", groups * pl->wg, pl->wg,
                              GPGPU__ARG(ent), GPGPU__ARG(starts), GPGPU__ARG(nt),
                              GPGPU__ARG(tile_), GPGPU__ARG(band_cells), GPGPU__ARG(nbands),
                              GPGPU__ARG(subs), GPGPU__ARG(ncells), GPGPU__ARG(pg), GPGPU__ARG(out),
                              GPGPU__ARG(oo), GPGPU__LOCAL(pl->band_cells * sizeof(cl_uint)),
                              GPGPU__END));
    }
    return GPGPU_SUCCESS;
}

/* One launch over samples [first, first + n) of x, y and w (n <= 2^31):
   cells of out[out_off ..] overwritten, or added to when accumulate. */
static gpgpu_status launch(gpgpu_context *ctx, gpgpu__program *prog, const cells_spec *c,
                           cl_mem x, size_t xoff, cl_mem y, size_t yoff, cl_mem w,
                           size_t woff, size_t n, cl_mem out, size_t out_off, int accumulate)
{
    const size_t ts = size_of(c->t);
    const gpgpu__hist_params *py = c->two_d ? &c->py : &c->px;
    cells_plan pl = plan(ctx, c, n);
    cl_ulong xo = xoff, yo = yoff, wo = woff, n_ = n, chunk = pl.chunk, oo = out_off;
    cl_uint xnbm1 = (cl_uint)(c->px.nbins - 1), ynbm1 = (cl_uint)(py->nbins - 1);
    cl_uint ncells = (cl_uint)c->ncells, copies = (cl_uint)pl.copies;
    /* Weighted sums by the L2's atomics too (kernels/histogram.cl,
       hist_cells' gwarps): H200, 2^28 f32 samples, 256 cells, ms, warps of
       eight (GPGPU_HIST_WT_GLOBAL) 0: 1.057, 1: 1.018, 2: 1.033, 3: 1.44,
       8: 3.27; 64 cells 1.049, 1.002, 0.992; 1024 cells 1.074, 1.039,
       1.054 (bench/results/2026-11-26-hist-merge/h200-warps); at 2^24 (a
       chunk of 16384 samples a group) one warp lost 3% to zeroing and
       adding the group's cells in L2. With the sliced merge, 256 cells at
       2^28, one warp against none: H200 0.976 against 1.011 ms, H100
       1.034 against 1.018 (h200-ab, h100-ab there): kept for the H200,
       where weighted sums are furthest from the copy rate. */
    cl_uint gwarps = c->wt >= 0 && ctx->tune.nv_ptx && pl.chunk >= WT_GLOBAL_MIN_CHUNK
                         ? (cl_uint)(ctx->tune.hist_wt_global < pl.wg / 32
                                         ? ctx->tune.hist_wt_global : pl.wg / 32)
                         : 0;
    if (!pl.local) {
        if (!accumulate) {
            cl_ulong zero = 0;
            GPGPU__TRY(gpgpu__fill(ctx, out, out_off * sizeof zero, c->ncells * sizeof zero,
                                   &zero, sizeof zero));
        }
        cl_uint band_cells = (cl_uint)pl.band_cells, nbands = (cl_uint)pl.bands;
        cl_ulong part = pl.part;
        if (pl.split)
            return launch_split(ctx, prog, c, &pl, x, xoff, y, yoff, n, out, out_off);
        if (pl.bands)
            return gpgpu__run(ctx, prog, "hist_cells_banded", pl.groups * pl.wg, pl.wg,
                              GPGPU__ARG(x), GPGPU__ARG(xo), GPGPU__ARG(y), GPGPU__ARG(yo),
                              GPGPU__ARG(w), GPGPU__ARG(wo), GPGPU__ARG(n_),
                              GPGPU__ARG(chunk), RULE_ARGS(&c->px, ts, xnbm1),
                              RULE_ARGS(py, ts, ynbm1), GPGPU__ARG(ncells),
                              GPGPU__ARG(band_cells), GPGPU__ARG(nbands), GPGPU__ARG(part),
                              GPGPU__ARG(out), GPGPU__ARG(oo),
                              GPGPU__LOCAL(pl.band_cells * sizeof(cl_ushort)), GPGPU__END);
        return gpgpu__run(ctx, prog, "hist_cells_direct", pl.groups * pl.wg, pl.wg,
                          GPGPU__ARG(x), GPGPU__ARG(xo), GPGPU__ARG(y), GPGPU__ARG(yo),
                          GPGPU__ARG(w), GPGPU__ARG(wo), GPGPU__ARG(n_), GPGPU__ARG(chunk),
                          RULE_ARGS(&c->px, ts, xnbm1), RULE_ARGS(py, ts, ynbm1),
                          GPGPU__ARG(ncells), GPGPU__ARG(out), GPGPU__ARG(oo), GPGPU__END);
    }
    cl_mem part;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, pl.groups * c->ncells * acc_size(c),
                              &part));
    GPGPU__TRY(gpgpu__run(ctx, prog, "hist_cells", pl.groups * pl.wg, pl.wg, GPGPU__ARG(x),
                          GPGPU__ARG(xo), GPGPU__ARG(y), GPGPU__ARG(yo), GPGPU__ARG(w),
                          GPGPU__ARG(wo), GPGPU__ARG(n_), GPGPU__ARG(chunk),
                          RULE_ARGS(&c->px, ts, xnbm1), RULE_ARGS(py, ts, ynbm1),
                          GPGPU__ARG(ncells), GPGPU__ARG(copies), GPGPU__ARG(gwarps),
                          GPGPU__ARG(part),
                          GPGPU__LOCAL(pl.copies * (c->ncells + 1) * acc_size(c)),
                          GPGPU__END));
    return gpgpu__histogram_merge(ctx, prog, part, pl.groups, c->ncells, out,
                                  out_off, accumulate);
}

/* The enqueues on device data (arguments checked, ctx locked): y is x in
   1-D, w any buffer for counts. */
static gpgpu_status cells_enqueue(gpgpu_context *ctx, const cells_spec *c, cl_mem x,
                                  size_t xoff, cl_mem y, size_t yoff, cl_mem w, size_t woff,
                                  size_t n, cl_mem out, size_t out_off, int accumulate)
{
    gpgpu__program *prog;
    if (n == 0 || c->empty) {
        cl_ulong zero = 0; /* 0.0 has the bits of 0 */
        return accumulate ? GPGPU_SUCCESS
                          : gpgpu__fill(ctx, out, out_off * sizeof zero,
                                        c->ncells * sizeof zero, &zero, sizeof zero);
    }
    GPGPU__TRY(program(ctx, c, &prog));
    for (size_t done = 0; done < n; done += CELLS_LAUNCH_MAX) {
        size_t len = n - done < CELLS_LAUNCH_MAX ? n - done : CELLS_LAUNCH_MAX;
        GPGPU__TRY(launch(ctx, prog, c, x, xoff + done, y, yoff + done, w, woff + done, len,
                          out, out_off, accumulate || done > 0));
    }
    return GPGPU_SUCCESS;
}

/* Host arrays through the device: in place where the device shares host
   memory, else in chunks whose sums add up in the result. */
static gpgpu_status cells_host_api(gpgpu_context *ctx, const cells_spec *c, const void *x,
                                   const void *y, const void *w, size_t n, void *bins)
{
    const size_t ts = size_of(c->t), ws = c->wt < 0 ? 0 : size_of((gpgpu_type)c->wt);
    const size_t bytes = c->ncells * sizeof(cl_ulong);
    cl_mem out, buf[3] = {NULL, NULL, NULL};
    const void *src[3] = {x, c->two_d ? y : NULL, w};
    const size_t sz[3] = {ts, ts, ws};
    size_t off[3] = {0, 0, 0};
    gpgpu_status s = GPGPU_SUCCESS;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, bytes, &out));
    if (gpgpu__in_place(ctx, n * ts) && (ws == 0 || gpgpu__in_place(ctx, n * ws))) {
        gpgpu__note_route(ctx, "zero-copy");
        for (int i = 0; i < 3 && s == GPGPU_SUCCESS; i++)
            if (src[i]) {
                s = gpgpu__host_view(ctx, src[i], n * sz[i], 0, &buf[i], &off[i]);
                off[i] /= sz[i];
            }
        if (s == GPGPU_SUCCESS)
            s = cells_enqueue(ctx, c, buf[0], off[0], buf[1] ? buf[1] : buf[0],
                              buf[1] ? off[1] : off[0], buf[2] ? buf[2] : buf[0], off[2], n,
                              out, 0, 0);
        if (s == GPGPU_SUCCESS)
            s = gpgpu__read(ctx, out, 0, bytes, bins);
        for (int i = 0; i < 3; i++)
            if (buf[i])
                clReleaseMemObject(buf[i]); /* OpenCL keeps it until its commands end */
        return s;
    }
    static const int slot[3] = {GPGPU__SLOT_IN, GPGPU__SLOT_AUX, GPGPU__SLOT_PARTIALS2};
    const size_t chunk = gpgpu__chunk_elems(ctx, ts * (1 + c->two_d) + ws);
    const size_t nchunks = gpgpu__div_up(n, chunk);
    for (int i = 0; i < 3; i++)
        if (src[i])
            GPGPU__TRY(gpgpu__scratch(ctx, slot[i], (n < chunk ? n : chunk) * sz[i], &buf[i]));
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * chunk, len = n - first < chunk ? n - first : chunk;
        for (int i = 0; i < 3; i++)
            if (src[i])
                GPGPU__TRY(gpgpu__upload(ctx, buf[i], 0, len * sz[i],
                                         (const char *)src[i] + first * sz[i]));
        GPGPU__TRY(cells_enqueue(ctx, c, buf[0], 0, buf[1] ? buf[1] : buf[0], 0,
                                 buf[2] ? buf[2] : buf[0], 0, len, out, 0, k > 0));
        if (nchunks > 1) /* the next writes reuse the buffers: wait for this pass */
            GPGPU__TRY(gpgpu__finish(ctx));
    }
    return gpgpu__read(ctx, out, 0, bytes, bins);
}

/* What a call of n samples weighs against the plan's histogram threshold,
   as histogram.c's hist_weight: with private bins (the CPU plan) the
   kernels' merge of every work item's copy of more than 1024 cells costs
   more than the samples, and the host's threads won 2-D counts at every
   size (PoCL, 2 cores, 2026-11-26, 256 x 256 cells, ratio to the serial
   loop, host's code / kernels: 1.00-1.04 / 0.10-0.13 at 2^10, 1.00-1.07 /
   0.50-0.51 at 2^16, 0.78-1.11 / 0.63-1.30 at 2^20, 1.43-1.73 /
   0.64-0.73 at 2^24; gpgpu-bench --api host --op histogram2d --sizes
   10,16,20,24, GPGPU_HOST_BELOW=histogram=all | =0): weight 0, always the
   host's unless GPGPU_HOST_BELOW=histogram=0. Weighted sums weigh 0 too:
   with the host's code binning the next block while it adds one's weights
   and its threads from 2^20 samples it won at every size against the
   kernels (256 bins, f32 weights, 2026-11-26, commit 50c3b2b, load
   0.9-1.3, three rounds of gpgpu-bench --api host --op
   histogram_weighted --sizes 18,20,21,22,23,24 --repeat 5, the plan of
   n / 32 | GPGPU_HOST_BELOW=histogram=all, ratio to the serial loop,
   kernels / host's code: 1.00 / 1.55-1.92 at 2^21, 1.27-1.99 /
   1.64-2.78 at 2^22, 1.54-2.05 / 1.64-2.68 at 2^23, 2.11-2.16 /
   1.82-2.98 at 2^24; the kernels' time at 2^22 alternates between 2.5
   and 5 ms from run to run). */
static size_t cells_weight(const gpgpu_context *ctx, const cells_spec *c, size_t n)
{
    if (ctx->tune.hist_local)
        return n;
    return c->ncells > 1024 || c->wt >= 0 ? 0 : n;
}

/* The host-memory calls after their argument checks. */
static gpgpu_status cells_host_call(gpgpu_context *ctx, const char *func, const cells_spec *c,
                                    const void *x, const void *y, const void *w, size_t n,
                                    void *bins)
{
    if (!ctx->host) {
        GPGPU__TRY(gpgpu__type_supported(ctx, c->t));
        if (c->wt == GPGPU_F64 && !ctx->fp64)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "%s: F64 weights need fp64 on the device", func);
    }
    /* F32 weights on a device without fp64: the host's threads sum them;
       calls below the plan's histogram threshold: the host's own code */
    if (n == 0 || c->empty || ctx->host || gpgpu__small_on_host(ctx, n) ||
        gpgpu__host_below(ctx, GPGPU__HB_HISTOGRAM, cells_weight(ctx, c, n)) ||
        (c->wt >= 0 && !ctx->fp64)) {
        gpgpu__host_histogram_cells(c->t, x, y, c->wt, w, n, &c->px,
                                    c->two_d ? &c->py : NULL, bins);
        return GPGPU_SUCCESS;
    }
    GPGPU__TRY(device_ok(ctx, func, c, n));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, func, cells_host_api(ctx, c, x, y, w, n, bins));
}

/* The host calls' checks, in the order every host form makes them, then
   the call: weighted says whether wt and w count; unit names what bins
   holds. */
static gpgpu_status cells_host_checked(gpgpu_context *ctx, const char *f, const char *unit,
                                       gpgpu_type t, int weighted, gpgpu_type wt, size_t nx,
                                       double xlo, double xhi, size_t ny, double ylo,
                                       double yhi, int two_d, const void *x, const void *y,
                                       const void *w, size_t n, void *bins)
{
    cells_spec c;
    GPGPU__TRY(gpgpu__check_ctx(ctx, f));
    GPGPU__REQUIRE(ctx, bins != NULL, f, "bins is NULL; need an array of %s", unit);
    if (weighted)
        GPGPU__TRY(check_wt(ctx, f, wt));
    GPGPU__TRY(spec_make(ctx, f, t, weighted ? (int)wt : -1, nx, xlo, xhi, ny, ylo, yhi, two_d,
                         &c));
    GPGPU__TRY(gpgpu__check_array(ctx, f, two_d ? "x" : "in", x, n, size_of(t), 1, size_of(t)));
    if (two_d)
        GPGPU__TRY(gpgpu__check_array(ctx, f, "y", y, n, size_of(t), 1, size_of(t)));
    if (weighted)
        GPGPU__TRY(gpgpu__check_array(ctx, f, "weights", w, n, size_of(wt), 1, size_of(wt)));
    return cells_host_call(ctx, f, &c, x, y, w, n, bins);
}

gpgpu_status gpgpu_histogram_weighted(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                      gpgpu_type wt, const void *weights, size_t n,
                                      size_t nbins, double lo, double hi, double *bins)
{
    return cells_host_checked(ctx, __func__, "nbins sums", t, 1, wt, nbins, lo, hi, 0, 0, 0, 0,
                              in, NULL, weights, n, bins);
}

gpgpu_status gpgpu_histogram2d(gpgpu_context *ctx, gpgpu_type t, const void *x, const void *y,
                               size_t n, size_t nx, double xlo, double xhi, size_t ny,
                               double ylo, double yhi, uint64_t *bins)
{
    return cells_host_checked(ctx, __func__, "nx * ny counts", t, 0, GPGPU_F64, nx, xlo, xhi,
                              ny, ylo, yhi, 1, x, y, NULL, n, bins);
}

gpgpu_status gpgpu_histogram2d_weighted(gpgpu_context *ctx, gpgpu_type t, const void *x,
                                        const void *y, gpgpu_type wt, const void *weights,
                                        size_t n, size_t nx, double xlo, double xhi, size_t ny,
                                        double ylo, double yhi, double *bins)
{
    return cells_host_checked(ctx, __func__, "nx * ny sums", t, 1, wt, nx, xlo, xhi, ny, ylo,
                              yhi, 1, x, y, weights, n, bins);
}

/* ---- _buffer forms ----------------------------------------------------------- */

static gpgpu_status cells_buffer(gpgpu_context *ctx, const char *func, const cells_spec *c,
                                 cl_mem x, size_t xoff, cl_mem y, size_t yoff, cl_mem w,
                                 size_t woff, size_t n, cl_mem bins, size_t bins_off,
                                 cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    const size_t ts = size_of(c->t);
    GPGPU__TRY(gpgpu__check_wait(ctx, func, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", func);
    GPGPU__TRY(device_ok(ctx, func, c, n));
    if (x)
        GPGPU__TRY(gpgpu__check_range(ctx, func, "x", x, xoff, n, ts));
    if (y && c->two_d)
        GPGPU__TRY(gpgpu__check_range(ctx, func, "y", y, yoff, n, ts));
    if (w && c->wt >= 0)
        GPGPU__TRY(gpgpu__check_range(ctx, func, "weights", w, woff, n,
                                      size_of((gpgpu_type)c->wt)));
    GPGPU__TRY(gpgpu__check_range(ctx, func, "bins", bins, bins_off, c->ncells,
                                  sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = cells_enqueue(ctx, c, x, xoff, c->two_d ? y : x, yoff,
                                   c->wt >= 0 ? w : x, woff, n, bins, bins_off, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

#define REQUIRE_BUFFER(ctx, f, buf, name, n)                                             \
    GPGPU__REQUIRE(ctx, (buf) != NULL || (n) == 0, f,                                   \
                   name " is NULL with n = %zu; it may be NULL only when n is 0", (n))

/* The _buffer forms' checks, in the order of cells_host_checked's. */
static gpgpu_status cells_buffer_checked(gpgpu_context *ctx, const char *f, const char *unit,
                                         gpgpu_type t, int weighted, gpgpu_type wt, size_t nx,
                                         double xlo, double xhi, size_t ny, double ylo,
                                         double yhi, int two_d, cl_mem x, size_t xoff, cl_mem y,
                                         size_t yoff, cl_mem w, size_t woff, size_t n,
                                         cl_mem bins, size_t bins_off, cl_uint num_wait,
                                         const cl_event *wait, cl_event *done)
{
    cells_spec c;
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, f));
    if (two_d) {
        REQUIRE_BUFFER(ctx, f, x, "x", n);
        REQUIRE_BUFFER(ctx, f, y, "y", n);
    } else {
        REQUIRE_BUFFER(ctx, f, x, "in", n);
    }
    if (weighted)
        REQUIRE_BUFFER(ctx, f, w, "weights", n);
    GPGPU__REQUIRE(ctx, bins != NULL, f, "bins is NULL; need a buffer of %s", unit);
    if (weighted)
        GPGPU__TRY(check_wt(ctx, f, wt));
    GPGPU__TRY(spec_make(ctx, f, t, weighted ? (int)wt : -1, nx, xlo, xhi, ny, ylo, yhi, two_d,
                         &c));
    return cells_buffer(ctx, f, &c, x, xoff, y, yoff, w, woff, n, bins, bins_off, num_wait,
                        wait, done);
}

gpgpu_status gpgpu_histogram_weighted_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                             size_t in_offset, gpgpu_type wt, cl_mem weights,
                                             size_t weights_offset, size_t n, size_t nbins,
                                             double lo, double hi, cl_mem bins,
                                             size_t bins_offset, cl_uint num_wait,
                                             const cl_event *wait, cl_event *done)
{
    return cells_buffer_checked(ctx, __func__, "nbins doubles", t, 1, wt, nbins, lo, hi, 0, 0,
                                0, 0, in, in_offset, NULL, 0, weights, weights_offset, n, bins,
                                bins_offset, num_wait, wait, done);
}

gpgpu_status gpgpu_histogram2d_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem x,
                                      size_t x_offset, cl_mem y, size_t y_offset, size_t n,
                                      size_t nx, double xlo, double xhi, size_t ny, double ylo,
                                      double yhi, cl_mem bins, size_t bins_offset,
                                      cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return cells_buffer_checked(ctx, __func__, "nx * ny counts", t, 0, GPGPU_F64, nx, xlo, xhi,
                                ny, ylo, yhi, 1, x, x_offset, y, y_offset, NULL, 0, n, bins,
                                bins_offset, num_wait, wait, done);
}

gpgpu_status gpgpu_histogram2d_weighted_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem x,
                                               size_t x_offset, cl_mem y, size_t y_offset,
                                               gpgpu_type wt, cl_mem weights,
                                               size_t weights_offset, size_t n, size_t nx,
                                               double xlo, double xhi, size_t ny, double ylo,
                                               double yhi, cl_mem bins, size_t bins_offset,
                                               cl_uint num_wait, const cl_event *wait,
                                               cl_event *done)
{
    return cells_buffer_checked(ctx, __func__, "nx * ny doubles", t, 1, wt, nx, xlo, xhi, ny,
                                ylo, yhi, 1, x, x_offset, y, y_offset, weights, weights_offset, n,
                                bins, bins_offset, num_wait, wait, done);
}

/* ---- _array forms ------------------------------------------------------------ */

/* x (and y, weights where given) checked and of one length; c made by the
   caller from their types. */
static gpgpu_status cells_array(gpgpu_context *ctx, const char *func, const cells_spec *c,
                                const gpgpu_array *x, const gpgpu_array *y,
                                const gpgpu_array *w, void *bins)
{
    if (ctx->host) {
        gpgpu__host_histogram_cells(c->t, x->host, y ? y->host : NULL, c->wt,
                                    w ? w->host : NULL, x->n, &c->px, y ? &c->py : NULL, bins);
        return GPGPU_SUCCESS;
    }
    GPGPU__TRY(device_ok(ctx, func, c, x->n));
    cl_mem out;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, c->ncells * sizeof(cl_ulong), &out);
    if (s == GPGPU_SUCCESS)
        s = cells_enqueue(ctx, c, x->buf, 0, y ? y->buf : x->buf, 0, w ? w->buf : x->buf, 0,
                          x->n, out, 0, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, out, 0, c->ncells * sizeof(cl_ulong), bins);
    return gpgpu__array_end(ctx, func, s);
}

gpgpu_status gpgpu_histogram_weighted_array(gpgpu_context *ctx, const gpgpu_array *in,
                                            const gpgpu_array *weights, size_t nbins,
                                            double lo, double hi, double *bins)
{
    const char *f = __func__;
    cells_spec c;
    GPGPU__TRY(gpgpu__check_ctx(ctx, f));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "weights", weights));
    GPGPU__TRY(gpgpu__array_match(ctx, f, "weights", in, weights, 0, 1));
    GPGPU__REQUIRE(ctx, bins != NULL, f, "bins is NULL; need an array of nbins sums");
    GPGPU__TRY(check_wt(ctx, f, weights->t));
    GPGPU__TRY(spec_make(ctx, f, in->t, (int)weights->t, nbins, lo, hi, 0, 0, 0, 0, &c));
    return cells_array(ctx, f, &c, in, NULL, weights, bins);
}

gpgpu_status gpgpu_histogram2d_array(gpgpu_context *ctx, const gpgpu_array *x,
                                     const gpgpu_array *y, size_t nx, double xlo, double xhi,
                                     size_t ny, double ylo, double yhi, uint64_t *bins)
{
    const char *f = __func__;
    cells_spec c;
    GPGPU__TRY(gpgpu__check_ctx(ctx, f));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "x", x));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "y", y));
    GPGPU__TRY(gpgpu__array_match(ctx, f, "y", x, y, 1, 1));
    GPGPU__REQUIRE(ctx, bins != NULL, f, "bins is NULL; need an array of nx * ny counts");
    GPGPU__TRY(spec_make(ctx, f, x->t, -1, nx, xlo, xhi, ny, ylo, yhi, 1, &c));
    return cells_array(ctx, f, &c, x, y, NULL, bins);
}

gpgpu_status gpgpu_histogram2d_weighted_array(gpgpu_context *ctx, const gpgpu_array *x,
                                              const gpgpu_array *y, const gpgpu_array *weights,
                                              size_t nx, double xlo, double xhi, size_t ny,
                                              double ylo, double yhi, double *bins)
{
    const char *f = __func__;
    cells_spec c;
    GPGPU__TRY(gpgpu__check_ctx(ctx, f));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "x", x));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "y", y));
    GPGPU__TRY(gpgpu__array_check(ctx, f, "weights", weights));
    GPGPU__TRY(gpgpu__array_match(ctx, f, "y", x, y, 1, 1));
    GPGPU__TRY(gpgpu__array_match(ctx, f, "weights", x, weights, 0, 1));
    GPGPU__REQUIRE(ctx, bins != NULL, f, "bins is NULL; need an array of nx * ny sums");
    GPGPU__TRY(check_wt(ctx, f, weights->t));
    GPGPU__TRY(spec_make(ctx, f, x->t, (int)weights->t, nx, xlo, xhi, ny, ylo, yhi, 1, &c));
    return cells_array(ctx, f, &c, x, y, weights, bins);
}
