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
     GPGPU_SEGSORT=host|device, GPGPU_HIST=local|private, GPGPU_PTX=0|1,
     GPGPU_ZERO_COPY=0|1 (host calls use the caller's arrays in place),
     GPGPU_STAGE_BYTES, GPGPU_STAGE_MIN (the staging ring's slot size and
     the smallest array it takes), GPGPU_HOST_READS=0|1 (integer
     reductions of pageable memory run on the host's threads),
     GPGPU_SMALL_HOST (host calls of at most this many elements run on
     the host; 0: none), GPGPU_THREADS (host threads, pool.c),
     GPGPU_WIDE_FROM (element counts from which by-key ranks and
     segmented-sort segments take their 64-bit path; default 2^32, lower
     only to test that path at small sizes) */
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

/* 0 or 1 from the environment, else dflt. */
static int env_flag(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (v && (!strcmp(v, "0") || !strcmp(v, "1")))
        return *v == '1';
    return dflt;
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
    } else {
        /* GPUs: enough groups of 256 to fill every compute unit several
           times over, adjacent items reading adjacent words. */
        t->chunked = 0;
        t->wg = 256;
        t->groups = 8 * ctx->compute_units;
        /* 32-bit integers scan in one pass with a warp's look-back
           (scan.c) up to scan_single_max elements; the rest multi-pass.
           H200, u32, tiles of 4096, one window of 32 tiles a round:
           single-pass 87.6 Gelem/s at 2^20 (multi-pass 27.3), 235 at
           2^24 (234), 275 at 2^28 (342). Its published prefixes advance
           by the tiles one round sees per memory round trip, which bounds
           it on big arrays; GPGPU_SCAN_LB=2 and larger GPGPU_SCAN_TILE
           widen that front (not yet measured). */
        t->scan_tile = 256 * 16;
        t->scan_single = 1;
        t->scan_single_max = (size_t)1 << 24;
        t->scan_lb = 1;
        t->sort_bits = 8;
        /* H200, 2^28 u32 keys: 256 x 16 keys 28.9 Gkeys/s, x 24 30.4,
           x 32 33.5, x 36 25.3 (registers spill); sort.c lowers it to what
           fits in __local memory (pairs, 64-bit keys). */
        t->sort_tile = 256 * 32;
        /* NVIDIA: ranking through __local masks, H200 2^28 u32 keys 36.1
           Gkeys/s against 35.3 with a ballot per digit bit (2^24: 31.3
           against 28.7). */
        t->sort_match = 1;
        t->hist_local = 1;
    }
    t->nv_ptx = ctx->vendor_nvidia;
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
    /* Discrete GPUs: a call's launches and transfers cost tens of us, more
       than the host takes to reduce, scan, sort or bin 4096 elements. */
    t->small_host = ctx->unified ? 0 : 4096;

    t->wg = pow2_floor(env_size("GPGPU_WG", t->wg));
    if (t->wg > ctx->max_wg)
        t->wg = pow2_floor(ctx->max_wg);
    t->groups = env_size("GPGPU_GROUPS", t->groups);
    t->scan_tile = env_size("GPGPU_SCAN_TILE", t->scan_tile);
    t->scan_lb = (int)env_size("GPGPU_SCAN_LB", (size_t)t->scan_lb);
    t->scan_single_max = env_size("GPGPU_SCAN_SINGLE_MAX", t->scan_single_max);
    if (t->scan_lb < 1)
        t->scan_lb = 1;
    t->sort_tile = env_size("GPGPU_SORT_TILE", t->sort_tile);
    t->chunked = env_flag("GPGPU_CHUNKED", t->chunked);
    t->sort_bits = (int)env_size("GPGPU_SORT_BITS", (size_t)t->sort_bits);
    t->sort_match = env_flag("GPGPU_SORT_MATCH", t->sort_match);
    t->select_warps = env_flag("GPGPU_SELECT_WARPS", t->select_warps);
    t->nv_ptx = t->nv_ptx && env_flag("GPGPU_PTX", 1);
    t->zero_copy = env_flag("GPGPU_ZERO_COPY", t->zero_copy);
    t->stage_bytes = env_size("GPGPU_STAGE_BYTES", t->stage_bytes);
    t->stage_min = env_size("GPGPU_STAGE_MIN", t->stage_min);
    t->wide_from = env_size("GPGPU_WIDE_FROM", (size_t)1 << 32);
    t->host_reads = env_flag("GPGPU_HOST_READS", t->host_reads);
    {
        const char *v = getenv("GPGPU_SMALL_HOST");
        if (v && *v)
            t->small_host = (size_t)strtoull(v, NULL, 10); /* 0: none */
    }
    /* The host API's segmented sort: on the host's threads, each sorting
       whole segments serially (CPU devices), or by the kernels (GPUs;
       segsort.c). PoCL, 2 shared cores (load 4.5), 2^22 u32 keys, median
       of 3 (gpgpu-bench --op segmented_sort --api host | buffer): in
       segments of 4096 the threads 65 ms, the kernels 604; of 1024, 64 ms
       against 2398 (a group's tile is 4096 keys whatever the segment). A
       serial C LSD sort of each segment took 53-74 ms in the same runs.
       GPGPU_SEGSORT=host or device overrides. GPUs keep the host's
       threads too until the kernels have been run and timed on one (they
       were written after the last GPU session; the _buffer and _array
       forms, which have no host copy to work on, use them). */
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

void gpgpu__plan_options(const gpgpu_context *ctx, char *buf, size_t size)
{
    const gpgpu__tuning *t = &ctx->tune;
    snprintf(buf, size, "-D WG=%zu -D CHUNKED=%d -D NV_PTX=%d", t->wg, t->chunked, t->nv_ptx);
}

const char *gpgpu_plan_description(const gpgpu_context *cctx)
{
    if (!cctx)
        return "";
    gpgpu_context *ctx = (gpgpu_context *)cctx; /* the text is a cache of tune */
    const gpgpu__tuning *t = &ctx->tune;
    if (ctx->host) {
        snprintf(ctx->plan_text, sizeof ctx->plan_text,
                 "host fallback (plain C): reduce, scan and histogram on %zu threads",
                 gpgpu__host_threads());
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
    if (t->small_host) {
        size_t used = strlen(arrays);
        snprintf(arrays + used, sizeof arrays - used, ",host-below=%zu", t->small_host + 1);
    }
    snprintf(ctx->plan_text, sizeof ctx->plan_text,
             "wg=%zu groups=%zu layout=%s scan=%s scan_tile=%zu sort_bits=%d sort_tile=%zu "
             "histogram=%s ptx=%s host-arrays=%s",
             t->wg, t->groups, t->chunked ? "chunk-per-item" : "coalesced",
             t->scan_single ? "single-pass" : "multipass", t->scan_tile, t->sort_bits,
             t->sort_tile, t->hist_local ? "local-atomics" : "private-bins",
             t->nv_ptx ? "yes" : "no", arrays);
    return ctx->plan_text;
}
