/*
 * sort.c - gpgpu_sort, gpgpu_sort_pairs and their _buffer forms: a stable
 * radix sort (kernels/sort.cl says how the passes work).
 *
 * One read of the keys finds which digits differ between keys (the OR and
 * AND of all keys) and whether they are already in order; a small kernel
 * turns that (and, on CPUs, the counts of the most significant digit) into
 * a plan that every later kernel reads on the device, so passes over digits
 * that every key shares cost nothing and the host never waits.
 * All work happens in library scratch; the caller's keys and values are
 * written only by the last kernel, so a failure before it leaves them as
 * they were.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

/* PLAN_WORDS as in kernels/sort.cl: the plan, before the chunks' offsets
   (chunked layout) or each digit's global starts (tiled layout). */
enum { SORT_RADIX_BITS = 8, SORT_RADIX = 1 << SORT_RADIX_BITS, PLAN_WORDS = 2 + 2 * SORT_RADIX + 17 };
enum { MIN_CHUNK = 4096 }; /* keys per chunk below which more chunks only add overhead */
enum { TILE_WG = 256 };    /* tiled layout: one item per digit value in the group scans */

typedef struct {
    gpgpu_type t;
    cl_mem keys, vals;
    size_t koff, voff, value_size, n;
    unsigned flags;
    int iota; /* values[i] == i: the tiled layout's first pass computes them */
    cl_mem wide; /* tiled layout: the values' home, as cl_ulongs from woff */
    size_t woff;
    int order_only; /* tiled layout: the keys are read, never written (argsort) */
    int b_home; /* tiled layout, 8-byte values with wide: their B copy is wide */
} sort_job;

typedef gpgpu__key_masks sort_masks;
#define MASK_ARGS GPGPU__MASK_ARGS

void gpgpu__key_masks_for(gpgpu_type t, unsigned flags, gpgpu__key_masks *k)
{
    uint64_t m0, m1;
    gpgpu__sort_masks(t, flags, &m0, &m1);
    k->is64 = gpgpu__type(t)->is_64;
    k->m0_32 = (cl_uint)m0;
    k->m1_32 = (cl_uint)m1;
    k->m0_64 = m0;
    k->m1_64 = m1;
}

static void masks_for(const sort_job *j, sort_masks *m)
{
    gpgpu__key_masks_for(j->t, j->flags, m);
}

/* The number of chunks: at least MIN_CHUNK keys each, at most as many as
   the plan's groups hold work items. Each chunk is a group of one item:
   PoCL vectorises a group's items across chunks, and the per-chunk private
   counters of sort_count and sort_msd then run about half as fast. */
static size_t chunks_for(const gpgpu_context *ctx, size_t n)
{
    size_t most = ctx->tune.groups * ctx->tune.wg, g = n / MIN_CHUNK;
    if (g > most)
        g = most;
    return g < 1 ? 1 : g;
}

/* Keys per item of a tile in the tiled layout: the plan's sort_tile over
   TILE_WG, or fewer, so that a group's __local keys (then values, in the
   same place) fit the device beside its (warp, digit) counters (8 KiB),
   digit counts (1 KiB), 64-bit digit offsets (2 KiB) and scan space (32
   bytes with NVIDIA's shuffles, else 2 KiB). */
static size_t tile_items(const gpgpu_context *ctx, size_t ks, size_t vs)
{
    size_t items = ctx->tune.sort_tile / TILE_WG;
    size_t fixed = (ctx->tune.nv_ptx ? 12 : 14) * 1024;
    size_t room = ctx->local_mem > fixed ? ctx->local_mem - fixed : 0;
    size_t fit = room / (TILE_WG * (ks > vs ? ks : vs)); /* keys, then values */
    if (items > fit)
        items = fit;
    /* With values an item also keeps the digits of the keys it wrote: 32
       keys each spill registers (H200, 2^28 u32 pairs: 28 per item 25.6
       Gpairs/s, 24 24.0, 32 17.4). */
    if (vs && items > 28)
        items = 28;
    if (items > 2047) /* kernels/sort.cl packs a place among 32 * items in 16 bits */
        items = 2047;
    return items ? items : 1;
}

/* The copies of the count's bins (kernels/sort.cl, sort_bits) the plan
   asks for, fewer where the device's __local memory cannot hold them
   beside the plan's reduction (3 * RADIX words of 8 bytes). */
static int count_parts(const gpgpu_context *ctx, size_t ks)
{
    const size_t radix = (size_t)1 << SORT_RADIX_BITS, digits = ks * 8 / SORT_RADIX_BITS;
    int parts = ctx->tune.sort_count_parts;
    while (parts > 1 && (size_t)parts * digits * radix * 4 + 3 * radix * 8 > ctx->local_mem)
        parts /= 2;
    return parts;
}

/* What both layouts share: the job's arguments in kernel form. */
typedef struct {
    gpgpu__program *prog;
    cl_ulong koff, voff, n;
    cl_mem vals, bits, hist, plan, ak, av, bk, bv; /* scratch A and B */
    cl_mem wide;
    cl_ulong woff;
    size_t ks, vs, digits;
    sort_masks m;
} sort_run;

/* CPUs: the bits, the MSD counts per chunk, the plan, one MSD scatter, the
   buckets in cache. */
static gpgpu_status enqueue_chunked(gpgpu_context *ctx, const sort_job *j, sort_run *r)
{
    size_t g = chunks_for(ctx, j->n);
    cl_ulong chunk = (j->n + g - 1) / g;
    cl_uint nchunks = (cl_uint)g;

    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, 3 * g * sizeof(cl_ulong), &r->bits));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS, g * SORT_RADIX * sizeof(cl_uint),
                              &r->hist));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX,
                              (PLAN_WORDS + g * SORT_RADIX) * sizeof(cl_ulong), &r->plan));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_bits", g, 1, GPGPU__ARG(j->keys),
                          GPGPU__ARG(r->koff), GPGPU__ARG(r->n), GPGPU__ARG(chunk),
                          MASK_ARGS(r->m), GPGPU__ARG(r->bits), GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_count", g, 1, GPGPU__ARG(j->keys),
                          GPGPU__ARG(r->koff), GPGPU__ARG(r->n), GPGPU__ARG(chunk),
                          MASK_ARGS(r->m), GPGPU__ARG(r->bits), GPGPU__ARG(r->hist),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_plan", SORT_RADIX, SORT_RADIX,
                          GPGPU__ARG(r->bits), GPGPU__ARG(r->hist), GPGPU__ARG(nchunks),
                          GPGPU__ARG(r->plan), GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_msd", g, 1, GPGPU__ARG(j->keys),
                          GPGPU__ARG(r->vals), GPGPU__ARG(r->koff), GPGPU__ARG(r->voff),
                          GPGPU__ARG(r->n), GPGPU__ARG(chunk), MASK_ARGS(r->m),
                          GPGPU__ARG(r->plan), GPGPU__ARG(r->ak), GPGPU__ARG(r->av),
                          GPGPU__END));
    /* One bucket per group: skewed buckets then land on different cores. */
    return gpgpu__run(ctx, r->prog, "sort_buckets", SORT_RADIX, 1, GPGPU__ARG(r->ak),
                      GPGPU__ARG(r->av), GPGPU__ARG(r->n), GPGPU__ARG(j->keys),
                      GPGPU__ARG(r->vals), GPGPU__ARG(r->koff), GPGPU__ARG(r->voff),
                      MASK_ARGS(r->m), GPGPU__ARG(r->plan), GPGPU__END);
}

/* GPUs: the bits and every digit's counts in one read, whose last group
   makes the plan, then an LSD pass per digit over tiles (a no-op on the
   device when the plan says every key shares the digit); the pass of the
   top digit, the last command, writes the caller's buffer
   (kernels/sort.cl: sort_route). The
   passes share one set of look-back words, zeroed once (their words are
   tagged with the pass). The counting read takes a group per 8192 keys
   up to the plan's groups: at small n every group would otherwise merge
   its 1024 counters for a few hundred keys. */
static gpgpu_status enqueue_tiled(gpgpu_context *ctx, const sort_job *j, sort_run *r,
                                  size_t tile)
{
    size_t g = (j->n + TILE_WG * 32 - 1) / (TILE_WG * 32);
    if (g > ctx->tune.groups)
        g = ctx->tune.groups;
    size_t ntiles = (j->n + tile - 1) / tile;
    size_t status_bytes = (r->digits + ntiles * SORT_RADIX) * sizeof(cl_ulong);
    cl_ulong chunk = 0;
    cl_mem status;
    cl_kernel k;

    /* The kernel is created before the first launch: nothing that can fail
       for want of it comes after the caller's buffer is written. */
    GPGPU__TRY(gpgpu__kernel_get(ctx, r->prog, "sort_tile_scatter", &k));

    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, 3 * g * sizeof(cl_ulong), &r->bits));
    /* each digit value's count as two words: low, then high, then the
       counter that finds sort_bits' last group (which makes the plan);
       that group leaves them zero for the next call, which then enqueues
       no fill (on an H200 a command and its gap cost about 10 us, a tenth
       of a 2^20 sort) */
    size_t hist_bytes = (2 * r->digits * SORT_RADIX + 1) * sizeof(cl_uint);
    GPGPU__TRY(gpgpu__scratch_zeroed(ctx, GPGPU__SLOT_SORT_HIST, hist_bytes, &r->hist));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS, status_bytes, &status));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX,
                              (PLAN_WORDS + r->digits * SORT_RADIX) * sizeof(cl_ulong), &r->plan));
    cl_ulong status_words = status_bytes / sizeof(cl_ulong);
    /* sort_bits zeroes the status words for the passes after it */
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_bits", g * TILE_WG, TILE_WG, GPGPU__ARG(j->keys),
                          GPGPU__ARG(r->koff), GPGPU__ARG(r->n), GPGPU__ARG(chunk),
                          MASK_ARGS(r->m), GPGPU__ARG(r->bits), GPGPU__ARG(r->hist),
                          GPGPU__ARG(r->plan), GPGPU__ARG(status), GPGPU__ARG(status_words),
                          GPGPU__END));
    gpgpu__scratch_mark_zeroed(ctx, GPGPU__SLOT_SORT_HIST, hist_bytes);
    for (cl_uint d = 0; d < r->digits; d++) {
        GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_tile_scatter", ntiles * TILE_WG, TILE_WG,
                              GPGPU__ARG(j->keys), GPGPU__ARG(r->vals), GPGPU__ARG(r->ak),
                              GPGPU__ARG(r->av), GPGPU__ARG(r->bk), GPGPU__ARG(r->bv),
                              GPGPU__ARG(r->koff), GPGPU__ARG(r->voff),
                              GPGPU__ARG(r->n), GPGPU__ARG(d), MASK_ARGS(r->m),
                              GPGPU__ARG(r->plan), GPGPU__ARG(status), GPGPU__ARG(r->wide),
                              GPGPU__ARG(r->woff), GPGPU__END));
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status sort_enqueue(gpgpu_context *ctx, const sort_job *j)
{
    sort_run r = { 0 };
    int chunked = ctx->tune.chunked;
    char opts[320];

    r.ks = gpgpu__type(j->t)->size;
    r.vs = j->value_size;
    r.digits = r.ks * 8 / SORT_RADIX_BITS;
    r.koff = j->koff;
    r.voff = j->voff;
    r.n = j->n;
    r.vals = r.vs ? j->vals : j->keys; /* keys only: the kernels never touch values */
    r.wide = j->wide ? j->wide : j->keys; /* none: never touched */
    r.woff = j->woff;
    masks_for(j, &r.m);
    /* The chunked layout (CPUs) counts a bucket's keys in 32 bits. */
    if (chunked && j->n > UINT32_MAX)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "sort: at most 2^32 - 1 keys per call in the chunk-per-item layout "
                           "of CPU devices (n = %zu)", j->n);
    /* 64-bit keys may go through __local memory by halves (KEYS_SPLIT),
       which makes the tile bigger only where no value is wider than 4
       bytes; the plan may ask for it only where such values ride along */
    int split = !chunked && r.ks == 8 && r.vs <= 4 &&
                (ctx->tune.sort_split == 1 || (ctx->tune.sort_split == 2 && r.vs == 4));
    size_t items = chunked ? 1 : tile_items(ctx, split ? 4 : r.ks, r.vs);
    int parts = chunked ? 1 : count_parts(ctx, r.ks);
    /* PoCL 3.1 (LLVM 15) optimises the coalesced layout's passes wrong at
       small tiles: keys-only sorts at one key an item come out unsorted,
       argsorts at up to 8 keys an item write past their outputs (tiles of
       4096 and 8192 were right; docs/hacking.md). oclgrind (unoptimised)
       and NVIDIA's compiler run them right, and so does PoCL without its
       optimiser: where that layout is
       forced on PoCL (a test of the GPUs' kernels, never its plan) the
       sort program is built with -cl-opt-disable. */
    snprintf(opts, sizeof opts,
             "-D KEY_BITS=%zu -D VAL_BYTES=%zu -D RADIX_BITS=%d -D TILE_WG=%d -D TILE_ITEMS=%zu"
             " -D SORT_MATCH=%d -D KEYS_SPLIT=%d -D SORT_COUNT_PARTS=%d -D SORT_BY_GROUP=%d%s%s%s%s%s",
             r.ks * 8, r.vs, SORT_RADIX_BITS, TILE_WG, items, ctx->tune.sort_match, split, parts,
             !chunked && ctx->tune.tiles_by_group, j->iota && !chunked ? " -D VALS_IOTA=1" : "",
             j->wide && !chunked ? " -D VALS_WIDE=1" : "",
             j->order_only && !chunked ? " -D KEYS_KEPT=0" : "",
             j->b_home && !chunked ? " -D VALS_B_HOME=1" : "",
             !chunked && strstr(ctx->platform_name, "Portable Computing Language")
                 ? " -cl-opt-disable" : "");
    GPGPU__TRY(gpgpu__program_get(ctx, "sort", NULL, opts, &r.prog));
    if (chunked) { /* A and B as the halves of one buffer */
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, 2 * j->n * r.ks, &r.ak));
        r.av = r.ak;
        if (r.vs)
            GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, 2 * j->n * r.vs, &r.av));
        return enqueue_chunked(ctx, j, &r);
    }
    /* A and B apart: each stays within the device's largest allocation
       (a quarter of its memory on NVIDIA) for as long as the keys do. */
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, j->n * r.ks, &r.ak));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS_B, j->n * r.ks, &r.bk));
    r.av = r.ak;
    r.bv = r.bk;
    if (r.vs) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, j->n * r.vs, &r.av));
        if (j->b_home)
            r.bv = r.av; /* never read: the kernels take wide for B */
        else
            GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES_B, j->n * r.vs, &r.bv));
    }
    return enqueue_tiled(ctx, j, &r, TILE_WG * items);
}

gpgpu_status gpgpu__sort_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, cl_mem values,
                                 size_t value_size, size_t n, unsigned flags)
{
    return gpgpu__sort_range_enqueue(ctx, t, keys, 0, values, 0, value_size, n, flags);
}

gpgpu_status gpgpu__sort_range_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                       size_t key_offset, cl_mem values, size_t value_offset,
                                       size_t value_size, size_t n, unsigned flags)
{
    sort_job j = { t, keys, values, key_offset, value_offset, value_size, n, flags, 0,
                   NULL, 0, 0, 0 };
    return n < 2 ? GPGPU_SUCCESS : sort_enqueue(ctx, &j);
}

gpgpu_status gpgpu__sort_iota_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                      cl_mem values, size_t value_size, size_t n, unsigned flags)
{
    sort_job j = { t, keys, values, 0, 0, value_size, n, flags, 1, NULL, 0, 0, 0 };
    return n < 2 ? GPGPU_SUCCESS : sort_enqueue(ctx, &j);
}

int gpgpu__sort_index_direct(const gpgpu_context *ctx)
{
    return !ctx->tune.chunked;
}

static gpgpu_status sort_index(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, size_t key_off,
                               size_t n, unsigned flags, cl_mem dst, size_t dst_off,
                               int order_only)
{
    /* 4-byte indices in the passes up to the plan's bound (2^32 keys),
       8-byte ones past it, their B copy dst itself (VALS_B_HOME: one
       buffer of 8-byte indices fewer, so that an argsort of 2^32 + 5 u32
       keys needs 112 GiB of device memory, not 144); the caller's values
       are never read (VALS_IOTA) nor written (VALS_WIDE), so dst stands in
       for them. */
    const int wide8 = n > UINT32_MAX || n >= ctx->tune.wide_from;
    sort_job j = { t, keys, dst, key_off, 0, wide8 ? 8 : 4, n, flags, 1, dst, dst_off, order_only,
                   wide8 };
    cl_ulong zero = 0;
    if (n == 1)
        return gpgpu__fill(ctx, dst, dst_off * sizeof zero, sizeof zero, &zero, sizeof zero);
    return n < 2 ? GPGPU_SUCCESS : sort_enqueue(ctx, &j);
}

gpgpu_status gpgpu__sort_index_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                       size_t key_off, size_t n, unsigned flags, cl_mem dst,
                                       size_t dst_off)
{
    return sort_index(ctx, t, keys, key_off, n, flags, dst, dst_off, 0);
}

gpgpu_status gpgpu__sort_order_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                       size_t key_off, size_t n, unsigned flags, cl_mem dst,
                                       size_t dst_off)
{
    return sort_index(ctx, t, keys, key_off, n, flags, dst, dst_off, 1);
}

/* ---- argument checks ----------------------------------------------------- */

static gpgpu_status check_common(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                 size_t value_size, unsigned flags, int pairs)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, pairs ? "key_type" : "t", t));
    GPGPU__REQUIRE(ctx, (flags & ~(unsigned)GPGPU_DESCENDING) == 0, func,
                   "flags is 0x%x; only GPGPU_DESCENDING (0x%x) may be set", flags,
                   (unsigned)GPGPU_DESCENDING);
    if (pairs)
        GPGPU__REQUIRE(ctx, value_size == 4 || value_size == 8, func,
                       "value_size is %zu; need 4 or 8", value_size);
    if (!ctx->host && (gpgpu__type(t)->is_64 || value_size == 8) && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: the device has no 64-bit integers for %s keys or values",
                           func, gpgpu__type(t)->name);
    return GPGPU_SUCCESS;
}

/* Elements a buffer holds past offset (0 if the size cannot be read). */
static size_t buffer_elems(cl_mem buf, size_t offset, size_t size)
{
    size_t bytes = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != CL_SUCCESS)
        return 0;
    return bytes / size > offset ? bytes / size - offset : 0;
}

static gpgpu_status check_buffers(gpgpu_context *ctx, const char *func, const sort_job *j)
{
    size_t ks = gpgpu__type(j->t)->size, vs = j->value_size;
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", func);
    if (j->n == 0)
        return GPGPU_SUCCESS;
    const char *koff = vs ? "key_offset" : "offset";
    GPGPU__REQUIRE(ctx, j->keys != NULL, func,
                   "keys is NULL with n = %zu; it may be NULL only when n is 0", j->n);
    GPGPU__REQUIRE(ctx, buffer_elems(j->keys, j->koff, ks) >= j->n, func,
                   "keys holds %zu elements past %s %zu; n is %zu",
                   buffer_elems(j->keys, j->koff, ks), koff, j->koff, j->n);
    if (!vs)
        return GPGPU_SUCCESS;
    GPGPU__REQUIRE(ctx, j->vals != NULL, func,
                   "values is NULL with n = %zu; it may be NULL only when n is 0", j->n);
    GPGPU__REQUIRE(ctx, buffer_elems(j->vals, j->voff, vs) >= j->n, func,
                   "values holds %zu elements past value_offset %zu; n is %zu",
                   buffer_elems(j->vals, j->voff, vs), j->voff, j->n);
    /* keys and values sharing a buffer must not overlap */
    GPGPU__REQUIRE(ctx, j->keys != j->vals || (j->koff + j->n) * ks <= j->voff * vs ||
                            (j->voff + j->n) * vs <= j->koff * ks, func,
                   "keys and values are one buffer and their %zu elements at key_offset %zu "
                   "and value_offset %zu overlap; they must be apart", j->n, j->koff, j->voff);
    return GPGPU_SUCCESS;
}

/* ---- the _buffer forms --------------------------------------------------- */

static gpgpu_status sort_buffer(gpgpu_context *ctx, const char *func, const sort_job *j,
                                cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    GPGPU__TRY(check_common(ctx, func, j->t, j->value_size, j->flags, j->value_size != 0));
    GPGPU__TRY(check_buffers(ctx, func, j));
    GPGPU__TRY(gpgpu__check_wait(ctx, func, num_wait, wait));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    ctx->prints_own = 1;
    gpgpu_status s = j->n < 2 ? GPGPU_SUCCESS : sort_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    if (s != GPGPU_SUCCESS)
        gpgpu__end(ctx, NULL);
    else if (ctx->profile_print)
        gpgpu__profile_print(ctx, j->value_size ? "gpgpu_sort_pairs" : "gpgpu_sort");
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_sort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, size_t offset,
                               size_t n, unsigned flags, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    sort_job j = { t, keys, NULL, offset, 0, 0, n, flags, 0, NULL, 0, 0, 0 };
    return sort_buffer(ctx, __func__, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_sort_pairs_buffer(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                     size_t key_offset, cl_mem values, size_t value_offset,
                                     size_t value_size, size_t n, unsigned flags,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, value_size == 4 || value_size == 8, __func__,
                   "value_size is %zu; need 4 or 8", value_size);
    sort_job j = { key_type, keys, values, key_offset, value_offset, value_size, n, flags, 0,
                   NULL, 0, 0, 0 };
    return sort_buffer(ctx, __func__, &j, num_wait, wait, done);
}

/* ---- the host API: the caller's arrays written only on success ---------- */

/* Zero copy: the kernels sort the caller's arrays where they are; only the
   last kernel writes them. */
static gpgpu_status sort_in_place(gpgpu_context *ctx, sort_job *j, void *keys, void *values)
{
    size_t ks = gpgpu__type(j->t)->size, vs = j->value_size;
    gpgpu_status s = gpgpu__host_view(ctx, keys, j->n * ks, 1, &j->keys, &j->koff);
    if (s == GPGPU_SUCCESS && vs)
        s = gpgpu__host_view(ctx, values, j->n * vs, 1, &j->vals, &j->voff);
    j->koff /= ks;
    if (vs)
        j->voff /= vs;
    if (s == GPGPU_SUCCESS) {
        gpgpu__note_route(ctx, "zero-copy");
        s = sort_enqueue(ctx, j);
    }
    if (s == GPGPU_SUCCESS)
        s = gpgpu__wait_done(ctx);
    if (j->keys)
        clReleaseMemObject(j->keys);
    if (j->vals)
        clReleaseMemObject(j->vals);
    return s;
}

/* Discrete devices: keys and values into scratch (staged or straight from
   pinned memory), sorted there, and brought back so that either both of
   the caller's arrays change or neither does. */
static gpgpu_status sort_host_copy(gpgpu_context *ctx, sort_job *j, void *keys, void *values)
{
    size_t ks = gpgpu__type(j->t)->size, vs = j->value_size;
    cl_mem orig = NULL;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, j->n * ks, &j->keys));
    GPGPU__TRY(gpgpu__upload(ctx, j->keys, 0, j->n * ks, keys));
    if (vs) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, j->n * vs, &j->vals));
        GPGPU__TRY(gpgpu__upload(ctx, j->vals, 0, j->n * vs, values));
    }
    /* Both arrays pinned: two direct reads. Should the second fail, the
       first is undone from a device copy of the values as they came. */
    int direct = vs && gpgpu__pinned(ctx, keys, j->n * ks) && gpgpu__pinned(ctx, values, j->n * vs);
    if (direct) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_HOST_ORIG, j->n * vs, &orig));
        GPGPU__TRY(gpgpu__copy(ctx, j->vals, 0, orig, 0, j->n * vs));
    }
    GPGPU__TRY(sort_enqueue(ctx, j));
    GPGPU__TRY(gpgpu__finish(ctx));
    if (!vs)
        return gpgpu__download(ctx, j->keys, 0, j->n * ks, keys, 1);
    if (!direct) {
        cl_mem bufs[2] = {j->keys, j->vals};
        size_t bytes[2] = {j->n * ks, j->n * vs};
        void *hosts[2] = {keys, values};
        return gpgpu__download_all(ctx, 2, bufs, bytes, hosts);
    }
    GPGPU__TRY(gpgpu__download(ctx, j->vals, 0, j->n * vs, values, 1));
    gpgpu_status s = gpgpu__download(ctx, j->keys, 0, j->n * ks, keys, 1);
    if (s != GPGPU_SUCCESS) {
        char why[256];
        snprintf(why, sizeof why, "%s", gpgpu_last_error(ctx));
        if (gpgpu__read(ctx, orig, 0, j->n * vs, values) != GPGPU_SUCCESS)
            return gpgpu__fail(ctx, s, "%s; restoring the values failed too: they are sorted "
                               "and the keys are not", why);
        return gpgpu__fail(ctx, s, "%s", why);
    }
    return GPGPU_SUCCESS;
}

/* What gpgpu_sort and gpgpu_sort_pairs do once their arguments are
   checked: the host fallback, or the device in place or through copies. */
static gpgpu_status sort_host_call(gpgpu_context *ctx, gpgpu_type t, void *keys, void *values,
                                   size_t value_size, size_t n, unsigned flags)
{
    if (n < 2)
        return GPGPU_SUCCESS;
    if (ctx->host ||
        gpgpu__host_below(ctx, gpgpu__type(t)->is_float ? GPGPU__HB_SORT_F : GPGPU__HB_SORT, n))
        return gpgpu__host_sort(t, keys, values, value_size, n, flags) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "sort: no host memory");
    sort_job j = { t, NULL, NULL, 0, 0, value_size, n, flags, 0, NULL, 0, 0, 0 };
    size_t ks = gpgpu__type(t)->size;
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    ctx->prints_own = 1;
    gpgpu_status s = gpgpu__in_place(ctx, n * ks) && (!value_size || gpgpu__in_place(ctx, n * value_size))
                         ? sort_in_place(ctx, &j, keys, values)
                         : sort_host_copy(ctx, &j, keys, values);
    gpgpu__end(ctx, NULL);
    return gpgpu__host_call_end(ctx, value_size ? "gpgpu_sort_pairs" : "gpgpu_sort", s);
}

gpgpu_status gpgpu_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                              void *values, size_t value_size, size_t n, unsigned flags)
{
    GPGPU__TRY(check_common(ctx, __func__, key_type, value_size, flags, 1));
    /* the scratch holds two copies of keys and of values */
    const size_t ks = gpgpu__type(key_type)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "keys", keys, n, ks, 2, ks));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "values", values, n, value_size, 2,
                                  value_size));
    return sort_host_call(ctx, key_type, keys, values, value_size, n, flags);
}

gpgpu_status gpgpu_sort(gpgpu_context *ctx, gpgpu_type t, void *keys, size_t n, unsigned flags)
{
    GPGPU__TRY(check_common(ctx, __func__, t, 0, flags, 0));
    /* the scratch holds two copies of the keys */
    const size_t ks = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "keys", keys, n, ks, 2, ks));
    return sort_host_call(ctx, t, keys, NULL, 0, n, flags);
}

/* ---- sort -------------------------------------------------------------------------- */

/* The sorts' kernels move 64-bit keys or 8-byte values as 64-bit integers. */
gpgpu_status gpgpu__sort_words_ok(gpgpu_context *ctx, const char *func, gpgpu_type kt, size_t vs)
{
    if ((gpgpu__type(kt)->is_64 || vs == 8) && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: the device has no 64-bit integers for these keys or values",
                           func);
    return GPGPU_SUCCESS;
}

/* Both sorts once checked (values NULL: keys only). */
static gpgpu_status array_sort(gpgpu_context *ctx, const char *func, gpgpu_array *keys,
                              gpgpu_array *values, unsigned flags)
{
    const size_t vs = values ? gpgpu__type(values->t)->size : 0;
    if (ctx->host && keys->n < 2)
        return GPGPU_SUCCESS;
    if (ctx->host) {
        if (gpgpu__host_sort(keys->t, keys->host, values ? values->host : NULL, vs, keys->n,
                             flags) != GPGPU_SUCCESS)
            return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", func);
        return GPGPU_SUCCESS;
    }
    GPGPU__TRY(gpgpu__sort_words_ok(ctx, func, keys->t, vs));
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, func,
                    gpgpu__sort_enqueue(ctx, keys->t, keys->buf, values ? values->buf : NULL,
                                        vs, keys->n, flags));
}

gpgpu_status gpgpu_sort_array(gpgpu_context *ctx, gpgpu_array *keys, unsigned flags)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "keys", keys));
    GPGPU__REQUIRE(ctx, (flags & ~(unsigned)GPGPU_DESCENDING) == 0, __func__,
                   "flags is 0x%x; only GPGPU_DESCENDING (0x%x) may be set",
                   (unsigned)flags, (unsigned)GPGPU_DESCENDING);
    return array_sort(ctx, __func__, keys, NULL, flags);
}

gpgpu_status gpgpu_sort_pairs_array(gpgpu_context *ctx, gpgpu_array *keys, gpgpu_array *values,
                                    unsigned flags)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "keys", keys));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "values", values));
    GPGPU__REQUIRE(ctx, (flags & ~(unsigned)GPGPU_DESCENDING) == 0, __func__,
                   "flags is 0x%x; only GPGPU_DESCENDING (0x%x) may be set",
                   (unsigned)flags, (unsigned)GPGPU_DESCENDING);
    GPGPU__REQUIRE(ctx, values != keys, __func__,
                   "values and keys are the same pointer; they must differ");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "values", keys, values, 0, 1));
    return array_sort(ctx, __func__, keys, values, flags);
}
