/* plan.c - per-device tuning: work-group sizes, element mapping, algorithm
   choices. Looked up from the device's reported properties (a GPU gets the
   coalesced layout and wide groups, a CPU one contiguous chunk per work
   item), then overridable from the environment for experiments:
     GPGPU_WG, GPGPU_GROUPS, GPGPU_SCAN_TILE, GPGPU_SORT_TILE (elements; small
     tiles let oclgrind see several at small sizes),
     GPGPU_CHUNKED=0|1, GPGPU_SCAN=multipass|single, GPGPU_SCAN_LB (GPUs:
     windows of 32 tiles a look-back round reads), GPGPU_SCAN_SINGLE_MAX
     (GPUs: single pass up to this many elements), GPGPU_SORT_BITS,
     GPGPU_SORT_MATCH=0|1 (NVIDIA: rank by __local masks or by ballots),
     GPGPU_SORT_SPLIT=0|1|2 (coalesced layout: 64-bit keys through __local
     memory by 32-bit halves, for bigger tiles: never, always, or only
     where 4-byte values ride with them),
     GPGPU_SELECT_SAMPLE (coalesced layout: top_k and quantiles of this
     many elements or more read them after a sample, top_k once and
     quantiles twice; 0: never), GPGPU_SEARCH_TREE (coalesced layout:
     levels of search_sorted's tree in __local memory; 0: none),
     GPGPU_SEGSORT=host|device, GPGPU_HIST=local|private,
     GPGPU_LOCAL_MEM (bytes of __local memory the plans assume, at most the
     device's; lower only to test a small device's plans on a big one),
     GPGPU_HIST_BANDED (local-atomics plans: counts over more cells than
     __local memory holds go by bands from this many samples per cell;
     0: never), GPGPU_PTX=0|1,
     GPGPU_EDGES_CHECK=0|1 (histogram_edges' CPU kernels check the host's
     lookup table; default: only where the device may flush subnormals),
     GPGPU_ZERO_COPY=0|1 (host calls use the caller's arrays in place),
     GPGPU_STAGE_BYTES, GPGPU_STAGE_MIN (the staging ring's slot size and
     the smallest array it takes), GPGPU_HOST_READS=0|1 (integer
     reductions of pageable memory run on the host's threads),
     GPGPU_SMALL_HOST (host calls of at most this many elements run on
     the host; 0: none), GPGPU_HOST_BELOW (per primitive: "N" for all, or
     "sort=N,scan=all,..." with host_prim_names; host calls of fewer than N
     elements run the host's own code), GPGPU_THREADS (host threads,
     pool.c), GPGPU_WIDE_FROM (element counts from which by-key ranks,
     segmented-sort segments and the indices of the coalesced layout's
     argsort take their 64-bit path; default 2^32, lower only to test that
     path at small sizes), GPGPU_CL_OPTIONS (more
     compiler options for every program) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return (*end || x == 0) ? dflt : (size_t)x;
}

/* The same, where "0" is a value (turns the feature off), not unset. */
static size_t env_size_or_0(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    return v && !strcmp(v, "0") ? 0 : env_size(name, dflt);
}

/* 0 or 1 from the environment, else dflt. */
static int env_flag(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (v && (!strcmp(v, "0") || !strcmp(v, "1")))
        return *v == '1';
    return dflt;
}

/* tune.host_below's names, in gpgpu__host_prim's order (GPGPU_HOST_BELOW,
   gpgpu_plan_description). */
static const char *const host_prim_names[GPGPU__HB_COUNT] = {
    "reduce", "reduce-f", "scan", "sort", "histogram", "edges", "sum-exact",
    "segmented", "seg-scan", "index", "by-key", "scan-by-key", "runs", "segsort",
    "top-k", "quantiles", "sum-f", "gather", "search", "scan-f", "expr", "sort-f"};

/* A threshold of GPGPU_HOST_BELOW at v: digits, or "all" (SIZE_MAX); *end
   after it; 0 if there is neither (*end = v). */
static size_t below_value(const char *v, const char **end)
{
    if (!strncmp(v, "all", 3)) {
        *end = v + 3;
        return SIZE_MAX;
    }
    char *e;
    unsigned long long x = *v >= '0' && *v <= '9' ? strtoull(v, &e, 10) : 0;
    *end = *v >= '0' && *v <= '9' ? e : v;
    return (size_t)x;
}

/* GPGPU_HOST_BELOW: "N" (or "all") sets every primitive's threshold,
   "name=N,..." the ones named, "N,name=N,..." every one and then those
   named; anything else is ignored from the first bad entry on. */
static void host_below_env(size_t *below)
{
    const char *v = getenv("GPGPU_HOST_BELOW");
    if (!v || !*v)
        return;
    const char *end;
    size_t all = below_value(v, &end);
    if (end != v) {
        if (*end && *end != ',')
            return;
        for (int p = 0; p < GPGPU__HB_COUNT; p++)
            below[p] = all;
        if (!*end)
            return;
        v = end + 1;
    }
    while (*v) {
        int p;
        size_t len = strcspn(v, "=");
        for (p = 0; p < GPGPU__HB_COUNT; p++)
            if (strlen(host_prim_names[p]) == len && !strncmp(v, host_prim_names[p], len))
                break;
        if (p == GPGPU__HB_COUNT || v[len] != '=')
            return;
        size_t x = below_value(v + len + 1, &end);
        if (end == v + len + 1 || (*end && *end != ','))
            return;
        below[p] = x;
        v = *end ? end + 1 : end;
    }
}

static size_t pow2_floor(size_t x)
{
    size_t p = 1;
    while (p * 2 <= x)
        p *= 2;
    return p;
}

void gpgpu__plan_init(gpgpu_context *ctx)
{
    gpgpu__tuning *t = &ctx->tune;
    int cpu = (ctx->type & CL_DEVICE_TYPE_CPU) != 0;
    t->select_warps = 1; /* only NVIDIA's kernels (NV_PTX) look at it */
    /* below this a sample of 4096 keys stands for too few of them */
    t->select_sample = (size_t)1 << 15;
    /* one copy of the sort count's bins: more (GPGPU_SORT_COUNT_PARTS) made
       the H100's first read slower, 2^28 u32 0.52 ms against 0.54 with 2
       or 4, keys below 2^16 0.45 against 0.50 (2026-12-07, f2dc5c6,
       bench/results/2026-12-07-h100-sort-split-count/) */
    t->sort_count_parts = 1;
    /* the coalesced layout's search_sorted (whatever the device: PoCL
       runs it too when that layout is forced) */
    t->search_tree = 12;
    t->hist_split = 2; /* histogram2d.c, plan(), has the figures */
    if (cpu) {
        /* PoCL runs a group as a loop over its items: a few items, each
           streaming its own chunk, and a few groups per core to balance. */
        t->chunked = 1;
        t->wg = 8;
        t->groups = 4 * ctx->compute_units;
        t->scan_tile = 1 << 15;
        t->scan_single = 1;
        t->sort_bits = 8;
        t->sort_tile = 1 << 14;
        t->sort_match = 0;
        t->scan_lb = 1;
        t->scan_single_max = 0;
        t->hist_local = 0;
        t->hist_banded = 0;
    } else {
        /* GPUs: enough groups of 256 to fill every compute unit several
           times over, adjacent items reading adjacent words. */
        t->chunked = 0;
        t->wg = 256;
        t->groups = 8 * ctx->compute_units;
        /* Integers scan in one pass with a warp's look-back over tiles
           and blocks of 32 tiles (scan.cl), by groups of 128 with tiles
           of 8192 and two windows a look-back round; floats multi-pass,
           by groups of 256 with tiles of 4096 (select's tiles too). u32
           inclusive, 2026-11-27, H200, bench/results/2026-11-27-scan-groups:
           single pass 0.056-0.057 ms at 2^24 (by 256 x 4096: 0.064, CUB
           0.055), 0.736-0.742 at 2^28 (multi-pass 0.784-0.787, CUB 0.689);
           multi-pass f32 2^24 0.073 by 256 x 4096, 0.081 by 128 x 8192. */
        t->scan_tile = 256 * 16;
        t->lookback_wg = 128;
        t->lookback_tile = 8192;
        t->scan_single = 1;
        t->scan_single_max = 0;
        /* 64-bit integers: u64 2^26 0.425 ms multi-pass, 0.453 one pass */
        t->scan_single_max_64 = (size_t)1 << 24;
        t->scan_lb = 2;
        t->sort_bits = 8;
        /* H200, 2^28 u32 keys: 256 x 16 keys 28.9 Gkeys/s, x 24 30.4,
           x 32 33.5, x 36 25.3 (registers spill); sort.c lowers it to what
           fits in __local memory (pairs, 64-bit keys). */
        t->sort_tile = 256 * 32;
        /* NVIDIA: ranking through __local masks, H200 2^28 u32 keys 36.1
           Gkeys/s against 35.3 with a ballot per digit bit (2^24: 31.3
           against 28.7). */
        t->sort_match = 1;
        /* 64-bit keys through __local memory by halves where 4-byte values
           ride with them (tiles of 7168 pairs, whole keys 4608): H100,
           2^28 u64 argsort 28.47 ms against 32.79; keys alone lose (tiles
           of 8192 against 4608, 22.71 against 20.47 ms, passes of 2.71
           against 2.43). 2026-12-07, f2dc5c6, bench/sort-split-probe.sh,
           bench/results/2026-12-07-h100-sort-split-count/. */
        t->sort_split = 2;
        t->hist_local = 1;
        t->hist_banded = 1024; /* histogram2d.c, plan(), has the figures */
    }
    t->nv_ptx = ctx->vendor_nvidia;
    /* NVIDIA starts groups in id order, so the single-pass scan and the
       sort pass take their tiles by group id, without a ticket's round
       trip: H200, u32, against the ticket, scan 2^20 0.0102 ms (0.0114),
       2^24 0.0671 (0.0694), sort 2^24 0.519 (0.532), 2^28 7.139 (7.367),
       sort_pairs 2^28 10.11 (10.20), u64 keys 2^28 21.28 (21.57). */
    t->tiles_by_group = ctx->vendor_nvidia;
    /* weighted sums in __local cells: one warp of a group adds by the L2's
       atomics (histogram2d.c, launch(), has the figures) */
    t->hist_wt_global = ctx->vendor_nvidia;
    /* fills by a kernel where a fill command costs more than a launch */
    t->fill_kernel = ctx->vendor_nvidia;
    /* Host memory: in place where the device shares it; else a staging
       ring for arrays of 1 MiB or more. H200, 2^28 u32 from malloc'd
       memory, 16 host threads: 8 MiB slots 26.9 GB/s for reduce; the
       host's threads reading the array themselves 36.9 GB/s (PCIe 5 moves
       55 GB/s from pinned memory), so integer reductions of pageable
       memory run on the host. Histograms do not: their exact binning on
       the host ran at 7.2 GB/s against 22.6 staged. */
    t->zero_copy = ctx->unified;
    t->stage_bytes = (size_t)32 << 20;
    t->stage_min = (size_t)1 << 20;
    t->host_reads = !ctx->unified;
    /* PoCL caches compiled kernels itself, keyed by source and options;
       asking it for a program binary for our cache makes it compile every
       kernel of the program in a generic form first (the test suite: 3,257
       of its 5,143 kernel compilations, most of them never launched). */
    t->disk_cache = !cpu;
    /* Discrete GPUs: a call's launches and transfers cost tens of us, more
       than the host takes to reduce, scan, sort or bin 4096 elements. */
    t->small_host = ctx->unified ? 0 : 4096;
    /* Per primitive, host calls below these sizes run the host's own code
       (lib/host) on its threads: discrete GPUs, where each is small_host + 1
       for what small_host always routed; and CPUs, measured (below). */
    memset(t->host_below, 0, sizeof t->host_below);
    if (t->small_host) {
        t->host_below[GPGPU__HB_REDUCE] = t->host_below[GPGPU__HB_SCAN] =
            t->host_below[GPGPU__HB_SORT] = t->host_below[GPGPU__HB_SORT_F] =
                t->host_below[GPGPU__HB_HISTOGRAM] =
                t->host_below[GPGPU__HB_SEGSORT] = t->host_below[GPGPU__HB_TOP_K] =
                    t->host_below[GPGPU__HB_QUANTILES] = t->host_below[GPGPU__HB_GATHER] =
                        t->host_below[GPGPU__HB_SEARCH] = t->small_host + 1;
    }
    if (cpu) {
        /* CPU devices (PoCL): the crossovers measured on 2 shared cores
           (EPYC, PoCL 3.1, load 8-13 from other jobs), 2026-11-25, commit
           20ab343 (later host-side speedups only move these toward the
           host):
             GPGPU_HOST_BELOW=0 | =1000000000 gpgpu-bench --api host
               --sizes 12,14,16,18,20,22 --repeat 7 --json
           comparing each row's ratio to its serial C loop on the device
           and on the host's own code. A threshold is the power of two
           between the last size the host's code won and the first the
           kernels won; "all": the kernels won at no size up to 2^22.
             reduce (u32)    device 0.62x / host 1.50x at 2^18, 1.48 / 1.06 at 2^20
             reduce-f (f32)  device 0.79 / host 1.00 at 2^14, 1.01 / 1.00 at 2^16;
                             left 0: float bits follow the route (reduce.c)
             scan (u32)      device 0.07-0.36 at every size, host 0.9-1.1: all
             sort            u32 0.72 / 1.26 at 2^18, 1.13 / 1.46 at 2^20,
                             1.38 / 0.40 at 2^22; pairs 1.12 / 0.46 at 2^20
             histogram       f32 256 bins 0.65 / 0.57 at 2^14, 1.21 / 0.65 at
                             2^16; rgba8 1.13 / 0.61 at 2^16
             edges (f32, 256 uneven edges)  0.76 / 1.66 at 2^16, 1.31 / 1.27
                             at 2^18, 1.45 / 2.07 at 2^20, 2.33 / - at 2^22
                             (before the lookup table of cells: below)
             sum-exact       f32 0.21 / 0.35 at 2^14, 0.73 / 0.34 at 2^16
             segmented       (reduce, 1024 a segment) 0.47 / 0.99 at 2^16,
                             1.16 / 0.93 at 2^18
             seg-scan        device 0.03-0.18 at every size: all
             index (argmin)  0.88 / 1.00 at 2^14, 1.05 / 1.07 at 2^16
             by-key (reduce, runs of 64)  0.22 / 0.63 at 2^16, 1.45 / 0.59 at 2^18
             scan-by-key     0.56 / 0.86 at 2^18, 0.62 / 1.09 at 2^20: all
             runs            unique 0.93 / 0.86 at 2^16, 3.79 / 0.99 at 2^18;
                             rle 0.97 / 1.16 at 2^16, 0.87 / 0.92 at 2^18
           The figures swing by 2x from run to run on this shared box; the
           thresholds follow the trend of each pair of rows.
             top-k           (k = 100, against a serial heap) the host's
                             threads won at every size from 2^16 to 2^24,
                             f32 and u32 (docs/performance.md): all */
        size_t *b = t->host_below;
        b[GPGPU__HB_REDUCE] = (size_t)1 << 19;
        b[GPGPU__HB_SCAN] = SIZE_MAX;
        /* sort: the host's sort at every size since its streamed top pass
           and its scatters' reads ahead (5093b4a), 2026-11-28, quiet,
           two rounds (GPGPU_HOST_BELOW=sort=all | =0 gpgpu-bench --api
           host --op sort|sort_pairs --sizes 20,22,23,24): ms host /
           kernels, u32 keys 14.2, 13.9 / 15.4, 15.8 at 2^20; 54.0, 46.7 /
           61.1, 70.0 at 2^22; 118.1, 115.6 / 133.0, 139.0 at 2^23; 274.9,
           282.3 / 305.3, 265.2 at 2^24; u32 pairs even to 2^23, 471.6,
           400.7 / 670.6, 491.5 at 2^24; u64 keys 96.2, 96.9 / 136.8,
           128.1 at 2^22 (--type u64 --n 4194304 --repeat 3). (Before: at
           2^22 the kernels won u32 keys, 3.47-3.65 / 2.92-3.13x the
           loop, 2026-11-27.) */
        b[GPGPU__HB_SORT] = SIZE_MAX;
        /* float keys: the host's sort at every size, 2026-11-28, quiet
           machine, two rounds (GPGPU_HOST_BELOW=sort=all | =0 gpgpu-bench
           --api host --op sort --sizes 20,21,22,23,24, --op sort_pairs
           likewise): loop ratio host / kernels, f32 keys in [-1000, 1000)
           1.83-2.48 / 0.90-1.08 at 2^20, 1.42-2.66 / 1.17-1.52 at 2^22,
           1.90-2.69 / 1.36-1.75 at 2^24; f32 pairs 1.81-2.20 / 0.94-1.08,
           2.49-3.16 / 1.47-1.68, 2.05-2.21 / 1.45-1.72; where u32 keys
           1.90-2.31 / 1.58-2.78, 2.50-2.99 / 3.22-3.81, 2.19-2.77 /
           2.88-3.65 (the threshold above). f64 keys (08f11ca, --op sort
           --type f64 --n N, two rounds), host / kernels: 11.3-15.4 /
           28.4-29.2 ms at 2^20, 59.7-59.9 / 106.7-108.1 at 2^22, 279-301
           / 443-492 at 2^24 */
        b[GPGPU__HB_SORT_F] = SIZE_MAX;
        /* histogram, again after the host's one-pass binning, 2026-11-25,
           load 3-6, loop ratio kernels / host's code at 2^16 (gpgpu-bench
           --api host --sizes 10,12,14,16,18,20,22,24, the plan at 2^16 and
           at 2^18): f32 256 bins 1.20 / 0.87, rgba8 0.74 / 0.85,
           histogram2d 0.52 / 0.70, weighted 0.79 / 0.61. Also histogram2d
           and _weighted. 1-D calls and RGBA8 images weigh what
           histogram.c's hist_weight and rgba8_weight say (measured again
           after the host's vector binning, 2026-11-26). */
        b[GPGPU__HB_HISTOGRAM] = (size_t)1 << 16;
        /* edges: the host's lookup table on its threads won at every size
           from 2^10 to 2^24 (f32, 256 uneven edges, 2026-11-26, load 4-5:
           loop ratio kernels / host's code 0.25-0.38 / 2.6-2.7 at 2^10,
           3.5-4.3 / 5.6-6.0 at 2^16, 3.0-3.7 / 4.6-5.1 at 2^24; gpgpu-bench
           --api host --op histogram_edges, GPGPU_HOST_BELOW=edges=0 |
           =all, two runs each) */
        b[GPGPU__HB_EDGES] = SIZE_MAX;
        /* gather: the host's threads read the caller's arrays as the
           kernels would, without the launches (2026-11-26, load 3.5-4,
           u32, ratio to the serial loop, host's code / kernels, three runs:
           0.80-0.81 / 0.01 at 2^10, 0.70-0.75 / 0.46-0.66 at 2^16,
           0.43-1.13 / 0.89-1.19 at 2^20, 0.81-0.98 / 0.77-1.14 at 2^24;
           gpgpu-bench --api host --op gather --sizes 10,16,20,24,
           GPGPU_HOST_BELOW=gather=all | =0) */
        b[GPGPU__HB_GATHER] = SIZE_MAX;
        /* sum-exact and segmented again after the host's binning by
           exponent and its vector sums (2026-11-27, load 1.2-1.6,
           GPGPU_HOST_BELOW=sum-exact=all,segmented=all | =0 gpgpu-bench
           --api host --op sum_exact | segmented_reduce --sizes 14..24
           --repeat 5, ms host's code / kernels): sum_exact f32 0.051 /
           0.125 at 2^16, 0.203 / 0.168 at 2^18, 0.698 / 0.659 at 2^20;
           f64 0.097 / 0.179, 0.402 / 0.383, 1.342 / 1.498; segmented u32
           (64 and 1024 a segment) 0.015 / 0.110 at 2^16, 0.066 / 0.156
           at 2^18, 0.143 / 0.653 at 2^20, 0.571-0.880 / 1.208-2.151 at
           2^22. */
        b[GPGPU__HB_SUM_EXACT] = (size_t)1 << 18;
        /* segmented and by-key again after the host's vector run loops
           (2026-11-27, quiet, GPGPU_HOST_BELOW=KNOB=all | =0, two rounds,
           bench/results/2026-11-27-pocl-cpu-batched/, loop ratio host's
           code / kernels): segmented u32, 64 a segment, 2.41-4.32 /
           0.85-1.13 at 2^18-2^20, 2.46-2.70 / 1.08-1.33 at 2^24; 1024 a
           segment 2.94-3.40 / 2.35-3.70 at 2^24; reduce_by_key (runs of
           64) 3.34-4.66 / 0.44-1.32 at 2^18-2^20, 2.56-3.15 / 2.12-2.62 at
           2^22, 2.22-2.74 / 2.09-2.60 at 2^24 */
        b[GPGPU__HB_SEGMENTED] = SIZE_MAX;
        b[GPGPU__HB_SEG_SCAN] = SIZE_MAX;
        b[GPGPU__HB_INDEX] = (size_t)1 << 15;
        b[GPGPU__HB_BY_KEY] = (size_t)1 << 23;
        b[GPGPU__HB_SCAN_BY_KEY] = SIZE_MAX;
        /* runs, again after the host's threads took them (select_ops.c,
           host_runs_par), 2026-11-26, load 3.4-5, loop ratio kernels /
           host's code (bench/cpu-loop.sh with OPS, three rounds each,
           2026-11-26-pocl-cpu-histograms-runs/ before and after): rle
           2.99 / 3.12 at 2^18, 3.38 / 1.97 at 2^20, 2.88 / 1.99 at 2^22;
           unique 3.71 / 5.62 at 2^18, 5.58 / 4.50 at 2^20, 3.28 / 2.70
           at 2^22. (Calls paired with a select in one process had put the
           host's code ahead up to 2^22; the rounds did not bear it out.)
           Since the host's threads pack eight elements' heads at a time
           with AVX2 (select_ops.c), they win at every size where it has
           AVX2: 2026-11-26, load 3.5, ms kernels / host's code, two rounds
           alternating (gpgpu-bench --api host --op OP --sizes 20,22,24
           --repeat 7, GPGPU_HOST_BELOW=runs=all for the host): rle 1.16 /
           0.55 and 1.20 / 0.96 at 2^20, 7.6 / 8.1 and 9.0 / 6.9 at 2^22,
           32.0 / 27.2 and 31.1 / 25.8 at 2^24; unique 0.93 / 0.66 and 0.92
           / 0.59 at 2^20, 3.7 / 2.8 and 3.7 / 2.6 at 2^22, 27.0 / 16.3 and
           25.4 / 13.7 at 2^24. */
        b[GPGPU__HB_RUNS] = (size_t)1 << 19;
        if (gpgpu__host_avx2())
            b[GPGPU__HB_RUNS] = SIZE_MAX;
        b[GPGPU__HB_TOP_K] = SIZE_MAX;
        /* quantiles: the kernels cost a few launches (0.06-0.12 ms) that
           a small selection does not (2026-11-26, 29c9c9e, load 1.0-1.5,
           two rounds of GPGPU_HOST_BELOW=quantiles=all | =0 gpgpu-bench
           --api host --op quantiles --sizes 10,12,14,16 --repeat 7, median,
           ms host's code / kernels: f32 0.0064 / 0.063-0.116 at 2^10,
           0.039-0.041 / 0.069-0.122 at 2^12, 0.20 / 0.11-0.15 at 2^14;
           u32 0.0067 / 0.059-0.101, 0.042-0.046 / 0.068-0.105, 0.16 /
           0.10-0.15); again after the host's radix select (2026-11-27,
           load 1.2-1.6, --sizes 14..24 --repeat 5, the median): f32 0.061
           / 0.187 at 2^14, 0.154 / 0.506 at 2^16, 1.08 / 1.41 at 2^18,
           2.62 / 4.26 at 2^20, 17.8 / 11.6 at 2^22; u32 0.047 / 0.172,
           0.104 / 0.550, 0.858 / 1.010, 2.17 / 3.31, 13.5 / 13.1 */
        b[GPGPU__HB_QUANTILES] = (size_t)1 << 22;
        /* search_sorted: the host's searches, since their AVX2 gathers,
           beat the kernels up to 2^18 needles and tie from 2^20
           (2026-12-07, 96eebf2, quiet, u32 needles in as many sorted keys,
           NAME=search sh bench/host-route.sh, ms host / kernels: 0.0081 /
           0.0431 at 2^10, 0.030 / 0.109 at 2^12, 0.175 / 0.272 at 2^14,
           1.01 / 1.15 at 2^16, 3.37 / 7.03 at 2^18, 22.1 / 21.8 at 2^20,
           177 / 171 at 2^22, 1172 / 1101 at 2^24;
           bench/results/2026-12-07-pocl-host-search/). Without AVX2 the
           host's lanes took 1.39x and 3.56x the loop at 2^10 and 2^12,
           the kernels 0.65x and 4.21x (2026-11-26, 29c9c9e). */
        b[GPGPU__HB_SEARCH] = gpgpu__host_avx2() ? (size_t)1 << 20 : (size_t)1 << 11;
        /* sum-f: float sums in the kernels' own tree on the calling thread
           (the same bits), 2026-11-25, load 4-7:
             GPGPU_HOST_BELOW=sum-f=0 | sum-f=all gpgpu-bench --api host
               --op reduce --sizes 10,12,14,16,18,20,22,24 --repeat 9
           f32, ms kernels / host's tree: 0.024 / 0.0004 at 2^10, 0.033 /
           0.012 at 2^16, 0.142 / 0.044 at 2^18, 0.192 / 0.173 at 2^20,
           0.896 / 0.703 at 2^22, 3.33 / 4.99 at 2^24. */
        b[GPGPU__HB_SUM_F] = (size_t)1 << 23;
        /* scan-f: float sum scans in the kernels' own order on the host
           (host_scan_tree.c, the same bits), 2026-11-27, load 2.4:
             GPGPU_HOST_BELOW=scan-f=0 | scan-f=all gpgpu-bench --api host
               --op scan --type f32 --sizes 10,12,14,16,18,20,22,24 --repeat 5
           ratio to the serial loop, kernels / host: 0.013 / 0.96 at 2^10,
           0.18 / 1.22 at 2^14, 0.44 / 1.33 at 2^16, 0.89 / 1.54 at 2^18,
           1.03 / 1.07 at 2^20, 0.90 / 0.82 at 2^22, 0.82 / 0.72 at 2^24
           (from 2^16 the host's two passes over memory on its threads). */
        /* again after its AVX2 blocks (2026-11-27, the same command and
           folder as segmented's above): f32, host / kernels, 1.73-1.82 /
           0.31-0.66 at 2^16-2^18, 1.76-2.51 / 0.86-1.11 at 2^20, 1.80-2.24
           / 1.81-1.84 at 2^22, 1.79-2.12 / 1.15-1.89 at 2^24 */
        b[GPGPU__HB_SCAN_F] = SIZE_MAX;
        /* maps and predicates in the part of OpenCL C the host evaluates
           exactly (lib/host/host_expr.c), 2026-11-28, quiet machine, 16ae767,
           two rounds (GPGPU_HOST_BELOW=expr=all | =0 gpgpu-bench --api host
           --op transform_reduce | select | partition --sizes
           10,12,14,16,18,20): loop ratio host / kernels, at 2^10 0.52-1.18 /
           0.00-0.01; at 2^16 transform_reduce f32 1.12-1.91 / 0.37-0.53,
           u32 0.75-1.13 / 0.32-0.33, select u32 1.91-2.11 / 1.30-1.83,
           partition 2.74-2.94 / 1.62-2.35; at 2^18 about even (select u32
           2.22-2.27 / 2.77-2.90, f32 2.64-4.35 / 2.43-2.52,
           transform_reduce u32 0.77-1.10 / 0.91-0.96); at 2^20 the kernels
           (transform_reduce f32 1.13-1.59 / 2.62-2.76).
           Again after the AVX2 loops (2026-12-07, quiet, fd37484, the
           same command, --sizes 16,18,19,20,21,22; bench/results/
           2026-12-07-pocl-host-expr-loop/): transform_reduce u32 1.77-1.84
           / 1.36-1.69 at 2^18, 2.56-2.59 / 1.79-1.91 at 2^20, mixed above;
           f32 1.39-1.48 / 1.99-2.08 at 2^18 (its copy summed in the
           kernels' order: weight 2n); with the AVX2 compaction (one
           thread), partition 3.49-3.52 / 2.20-3.06 at 2^18, 6.81-8.21 /
           4.53-7.18 at 2^20, 5.55-5.69 / 5.24-6.42 at 2^22, 1.91-2.00 /
           7.09-7.49 at 2^24 (weight n / 4), select f32
           8.9-13.9 / 2.7-5.1 from 2^18 to 2^22, 8.5-9.2 / 9.3-9.6 at 2^24,
           u32 6.7-10.2 / 2.3-5.5 to 2^22, 5.7-6.8 / 8.6-8.8 at 2^24
           (weight n / 16). Weights: gpgpu__expr_weight. */
        b[GPGPU__HB_EXPR] = (size_t)1 << 19;
    }

    t->wg = pow2_floor(env_size("GPGPU_WG", t->wg));
    if (t->wg > ctx->max_wg)
        t->wg = pow2_floor(ctx->max_wg);
    t->groups = env_size("GPGPU_GROUPS", t->groups);
    t->scan_tile = env_size("GPGPU_SCAN_TILE", t->scan_tile);
    /* the single pass's group and tile follow GPGPU_WG and GPGPU_SCAN_TILE
       unless GPGPU_LOOKBACK_WG and _TILE say */
    t->lookback_wg = getenv("GPGPU_WG") || !t->lookback_wg ? t->wg : t->lookback_wg;
    t->lookback_wg = pow2_floor(env_size("GPGPU_LOOKBACK_WG", t->lookback_wg));
    if (t->lookback_wg > ctx->max_wg)
        t->lookback_wg = pow2_floor(ctx->max_wg);
    t->lookback_tile = getenv("GPGPU_SCAN_TILE") || !t->lookback_tile ? t->scan_tile
                                                                       : t->lookback_tile;
    t->lookback_tile = env_size("GPGPU_LOOKBACK_TILE", t->lookback_tile);
    t->scan_lb = (int)env_size("GPGPU_SCAN_LB", (size_t)t->scan_lb);
    t->tiles_by_group = !env_flag("GPGPU_TICKET", !t->tiles_by_group);
    if (getenv("GPGPU_SCAN_SINGLE_MAX")) /* 0: any; for every type */
        t->scan_single_max = t->scan_single_max_64 =
            env_size_or_0("GPGPU_SCAN_SINGLE_MAX", t->scan_single_max);
    if (t->scan_lb < 1)
        t->scan_lb = 1;
    t->sort_tile = env_size("GPGPU_SORT_TILE", t->sort_tile);
    size_t local_mem = env_size("GPGPU_LOCAL_MEM", ctx->local_mem);
    if (local_mem < ctx->local_mem)
        ctx->local_mem = local_mem;
    t->hist_banded = env_size_or_0("GPGPU_HIST_BANDED", t->hist_banded); /* 0: never */
    t->hist_split = env_size_or_0("GPGPU_HIST_SPLIT", t->hist_split); /* 0: never */
    t->hist_wt_global = env_size_or_0("GPGPU_HIST_WT_GLOBAL", t->hist_wt_global);
    t->fill_kernel = env_flag("GPGPU_FILL_KERNEL", t->fill_kernel);
    t->chunked = env_flag("GPGPU_CHUNKED", t->chunked);
    t->sort_bits = (int)env_size("GPGPU_SORT_BITS", (size_t)t->sort_bits);
    t->sort_match = env_flag("GPGPU_SORT_MATCH", t->sort_match);
    {
        size_t split = env_size_or_0("GPGPU_SORT_SPLIT", (size_t)t->sort_split);
        t->sort_split = split > 2 ? 2 : (int)split;
    }
    {
        size_t parts = env_size("GPGPU_SORT_COUNT_PARTS", (size_t)t->sort_count_parts);
        t->sort_count_parts = parts >= 4 ? 4 : parts >= 2 ? 2 : 1;
    }
    t->select_warps = env_flag("GPGPU_SELECT_WARPS", t->select_warps);
    t->select_sample = env_size_or_0("GPGPU_SELECT_SAMPLE", t->select_sample); /* 0: no reads */
    t->search_tree = (int)env_size_or_0("GPGPU_SEARCH_TREE", (size_t)t->search_tree); /* 0: none */
    if (t->search_tree > 12)
        t->search_tree = 12;
    t->nv_ptx = t->nv_ptx && env_flag("GPGPU_PTX", 1);
    t->edges_check = env_flag("GPGPU_EDGES_CHECK", -1);
    t->zero_copy = env_flag("GPGPU_ZERO_COPY", t->zero_copy);
    t->stage_bytes = env_size("GPGPU_STAGE_BYTES", t->stage_bytes);
    t->stage_min = env_size("GPGPU_STAGE_MIN", t->stage_min);
    t->wide_from = env_size("GPGPU_WIDE_FROM", (size_t)1 << 32);
    t->scratch_keep = env_size("GPGPU_SCRATCH_KEEP", ctx->global_mem / 4);
    t->host_reads = env_flag("GPGPU_HOST_READS", t->host_reads);
    host_below_env(t->host_below);
    {   /* after GPGPU_HOST_BELOW: it routes what discrete GPUs route */
        const char *v = getenv("GPGPU_SMALL_HOST");
        if (v && *v) {
            t->small_host = (size_t)strtoull(v, NULL, 10); /* 0: none */
            /* every primitive but the float reductions, whose bits follow
               the route, and user expressions (a GPU's division and
               library need not round as the host's) */
            for (int p = 0; p < GPGPU__HB_COUNT; p++)
                if (p != GPGPU__HB_REDUCE_F && p != GPGPU__HB_EXPR)
                    t->host_below[p] = t->small_host ? t->small_host + 1 : 0;
        }
    }
    /* The host API's segmented sort: on the host's threads, each sorting
       whole segments serially (CPU devices), or by the kernels (GPUs;
       segsort.c). PoCL, 2 shared cores (load 4.5), 2^22 u32 keys, median
       of 3 (gpgpu-bench --op segmented_sort --api host | buffer): in
       segments of 4096 the threads 65 ms, the kernels 604; of 1024, 64 ms
       against 2398 (a group's tile is 4096 keys whatever the segment). A
       serial C LSD sort of each segment took 53-74 ms in the same runs.
       GPGPU_SEGSORT=host or device overrides. GPUs keep the host's
       threads too for the host call: its route through the kernels has
       not been timed against them on a GPU (the _buffer and _array
       forms, which have no host copy to work on, use the kernels). */
    t->segsort_host = 1;
    const char *segsort = getenv("GPGPU_SEGSORT");
    if (segsort && !strcmp(segsort, "host"))
        t->segsort_host = 1;
    else if (segsort && !strcmp(segsort, "device"))
        t->segsort_host = 0;
    const char *scan = getenv("GPGPU_SCAN");
    if (scan && !strcmp(scan, "multipass"))
        t->scan_single = 0;
    else if (scan && !strcmp(scan, "single"))
        t->scan_single = 1;
    const char *hist = getenv("GPGPU_HIST");
    if (hist && !strcmp(hist, "local"))
        t->hist_local = 1;
    else if (hist && !strcmp(hist, "private"))
        t->hist_local = 0;
}

static int host_digits; /* gpgpu__host_digits, atomic */

gpgpu__host_digits gpgpu__host_sort_digits(void)
{
    const char *e = getenv("GPGPU_SORT_WIDE");
    if (e && (e[0] == '0' || e[0] == '1') && e[1] == '\0')
        return e[0] == '1' ? GPGPU__DIGITS_WIDE : GPGPU__DIGITS_BYTES;
    return (gpgpu__host_digits)__atomic_load_n(&host_digits, __ATOMIC_RELAXED);
}

void gpgpu__host_sort_digits_decided(gpgpu__host_digits d)
{
    __atomic_store_n(&host_digits, (int)d, __ATOMIC_RELAXED);
}

void gpgpu__plan_options(const gpgpu_context *ctx, char *buf, size_t size)
{
    const gpgpu__tuning *t = &ctx->tune;
    /* GPGPU_CL_OPTIONS: more options for every program the compiler
       builds (measuring a compiler's switches, such as NVIDIA's
       -cl-nv-maxrregcount=N); part of each program's cache key. */
    const char *extra = getenv("GPGPU_CL_OPTIONS");
    snprintf(buf, size, "-D WG=%zu -D CHUNKED=%d -D NV_PTX=%d%s%s", t->wg, t->chunked, t->nv_ptx,
             extra && *extra ? " " : "", extra && *extra ? extra : "");
}

static const char *const digits_names[] = {"trial", "bytes", "wide"};

const char *gpgpu_plan_description(const gpgpu_context *cctx)
{
    if (!cctx)
        return "";
    gpgpu_context *ctx = (gpgpu_context *)cctx; /* the text is a cache of tune */
    const gpgpu__tuning *t = &ctx->tune;
    if (ctx->host) {
        snprintf(ctx->plan_text, sizeof ctx->plan_text,
                 "host fallback (plain C) on %zu threads host-sort=%s", gpgpu__host_threads(),
                 digits_names[gpgpu__host_sort_digits()]);
        return ctx->plan_text;
    }
    char arrays[160];
    if (t->zero_copy)
        snprintf(arrays, sizeof arrays, "zero-copy");
    else
        snprintf(arrays, sizeof arrays,
                 "pinned-direct,staged(%zu MiB x %d slots, from %zu KiB, %zu threads)%s",
                 t->stage_bytes >> 20, GPGPU__STAGE_SLOTS, t->stage_min >> 10,
                 gpgpu__host_threads(), t->host_reads ? ",host-reads" : "");
    /* host-below=reduce:65536,sort:... (the primitives with a threshold) */
    static const char *const split_names[] = { "never", "always", "with-values" };
    char below[512] = "";
    for (int p = 0, used = 0; p < GPGPU__HB_COUNT; p++)
        if (t->host_below[p] && used < (int)sizeof below) {
            char v[24] = "all";
            if (t->host_below[p] != SIZE_MAX)
                snprintf(v, sizeof v, "%zu", t->host_below[p]);
            used += snprintf(below + used, sizeof below - (size_t)used, "%s%s:%s",
                             used ? "," : " host-below=", host_prim_names[p], v);
        }
    snprintf(ctx->plan_text, sizeof ctx->plan_text,
             "wg=%zu groups=%zu layout=%s scan=%s scan_tile=%zu lookback=%zux%zu sort_bits=%d sort_tile=%zu "
             "sort_split=%s histogram=%s ptx=%s disk-cache=%s host-arrays=%s host-sort=%s%s",
             t->wg, t->groups, t->chunked ? "chunk-per-item" : "coalesced",
             t->scan_single ? "single-pass" : "multipass", t->scan_tile, t->lookback_wg,
             t->lookback_tile, t->sort_bits,
             t->sort_tile, split_names[t->sort_split],
             t->hist_local ? "local-atomics" : "private-bins",
             t->nv_ptx ? "yes" : "no", gpgpu__cache_enabled(t->disk_cache) ? "yes" : "no",
             arrays, digits_names[gpgpu__host_sort_digits()], below);
    return ctx->plan_text;
}
