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

#include "internal.h"

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
} sort_job;

/* Key masks as the kernel argument type of the key width. */
typedef struct {
    int is64;
    cl_uint m0_32, m1_32;
    cl_ulong m0_64, m1_64;
} sort_masks;

static void masks_for(const sort_job *j, sort_masks *m)
{
    uint64_t m0, m1;
    gpgpu__sort_masks(j->t, j->flags, &m0, &m1);
    m->is64 = gpgpu__type(j->t)->is_64;
    m->m0_32 = (cl_uint)m0;
    m->m1_32 = (cl_uint)m1;
    m->m0_64 = m0;
    m->m1_64 = m1;
}

#define MASK_ARGS(m)                                                                   \
    (m).is64 ? sizeof(cl_ulong) : sizeof(cl_uint),                                     \
        (m).is64 ? (const void *)&(m).m0_64 : (const void *)&(m).m0_32,                \
        (m).is64 ? sizeof(cl_ulong) : sizeof(cl_uint),                                 \
        (m).is64 ? (const void *)&(m).m1_64 : (const void *)&(m).m1_32

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
   same place) fit the device beside its 12 KiB of (warp, digit) counters
   and scan space. */
static size_t tile_items(const gpgpu_context *ctx, size_t ks, size_t vs)
{
    size_t items = ctx->tune.sort_tile / TILE_WG;
    size_t room = ctx->local_mem > 12 * 1024 ? ctx->local_mem - 12 * 1024 : 0;
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

/* What both layouts share: the job's arguments in kernel form. */
typedef struct {
    gpgpu__program *prog;
    cl_ulong koff, voff, n;
    cl_mem vals, bits, hist, plan, ak, av;
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

/* GPUs: the bits and every digit's counts in one read, the plan, an LSD
   pass per digit over tiles (a no-op on the device when the plan says
   every key shares the digit); the pass of the top digit, the last
   command, writes the caller's buffer (kernels/sort.cl: sort_route). */
static gpgpu_status enqueue_tiled(gpgpu_context *ctx, const sort_job *j, sort_run *r,
                                  size_t tile)
{
    size_t g = ctx->tune.groups;
    size_t ntiles = (j->n + tile - 1) / tile;
    size_t status_bytes = (1 + ntiles * SORT_RADIX) * sizeof(cl_ulong);
    cl_ulong chunk = 0;
    cl_uint ngroups = (cl_uint)g, zero = 0;
    cl_mem status;
    cl_kernel k;

    /* The kernel is created before the first launch: nothing that can fail
       for want of it comes after the caller's buffer is written. */
    GPGPU__TRY(gpgpu__kernel_get(ctx, r->prog, "sort_tile_scatter", &k));

    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, 3 * g * sizeof(cl_ulong), &r->bits));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, r->digits * SORT_RADIX * sizeof(cl_uint),
                              &r->hist));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS, status_bytes, &status));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX,
                              (PLAN_WORDS + r->digits * SORT_RADIX) * sizeof(cl_ulong), &r->plan));
    GPGPU__TRY(gpgpu__fill(ctx, r->hist, 0, r->digits * SORT_RADIX * sizeof(cl_uint), &zero,
                           sizeof zero));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_bits", g * TILE_WG, TILE_WG, GPGPU__ARG(j->keys),
                          GPGPU__ARG(r->koff), GPGPU__ARG(r->n), GPGPU__ARG(chunk),
                          MASK_ARGS(r->m), GPGPU__ARG(r->bits), GPGPU__ARG(r->hist),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_plan", SORT_RADIX, SORT_RADIX,
                          GPGPU__ARG(r->bits), GPGPU__ARG(r->hist), GPGPU__ARG(ngroups),
                          GPGPU__ARG(r->plan), GPGPU__END));
    for (cl_uint d = 0; d < r->digits; d++) {
        GPGPU__TRY(gpgpu__fill(ctx, status, 0, status_bytes, &zero, sizeof zero));
        GPGPU__TRY(gpgpu__run(ctx, r->prog, "sort_tile_scatter", ntiles * TILE_WG, TILE_WG,
                              GPGPU__ARG(j->keys), GPGPU__ARG(r->vals), GPGPU__ARG(r->ak),
                              GPGPU__ARG(r->av), GPGPU__ARG(r->koff), GPGPU__ARG(r->voff),
                              GPGPU__ARG(r->n), GPGPU__ARG(d), MASK_ARGS(r->m),
                              GPGPU__ARG(r->plan), GPGPU__ARG(status), GPGPU__END));
    }
    return GPGPU_SUCCESS;
}

static gpgpu_status sort_enqueue(gpgpu_context *ctx, const sort_job *j)
{
    sort_run r = { 0 };
    int chunked = ctx->tune.chunked;
    char opts[256];

    r.ks = gpgpu__type(j->t)->size;
    r.vs = j->value_size;
    r.digits = r.ks * 8 / SORT_RADIX_BITS;
    r.koff = j->koff;
    r.voff = j->voff;
    r.n = j->n;
    r.vals = r.vs ? j->vals : j->keys; /* keys only: the kernels never touch values */
    masks_for(j, &r.m);
    /* The tiled layout keeps its offsets in 32 bits. */
    if (!chunked && j->n > UINT32_MAX)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "sort: at most 2^32 - 1 keys per call on this device (n = %zu)", j->n);
    size_t items = chunked ? 1 : tile_items(ctx, r.ks, r.vs);
    snprintf(opts, sizeof opts,
             "-D KEY_BITS=%zu -D VAL_BYTES=%zu -D RADIX_BITS=%d -D TILE_WG=%d -D TILE_ITEMS=%zu",
             r.ks * 8, r.vs, SORT_RADIX_BITS, TILE_WG, items);
    GPGPU__TRY(gpgpu__program_get(ctx, "sort", NULL, opts, &r.prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, 2 * j->n * r.ks, &r.ak));
    r.av = r.ak;
    if (r.vs)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, 2 * j->n * r.vs, &r.av));
    return chunked ? enqueue_chunked(ctx, j, &r) : enqueue_tiled(ctx, j, &r, TILE_WG * items);
}

gpgpu_status gpgpu__sort_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, cl_mem values,
                                 size_t value_size, size_t n, unsigned flags)
{
    sort_job j = { t, keys, values, 0, 0, value_size, n, flags };
    return n < 2 ? GPGPU_SUCCESS : sort_enqueue(ctx, &j);
}

/* ---- argument checks ----------------------------------------------------- */

static gpgpu_status check_common(gpgpu_context *ctx, gpgpu_type t, size_t value_size,
                                 unsigned flags, int pairs)
{
    GPGPU__CHECK_ARG(NULL, ctx != NULL);
    GPGPU__CHECK_ARG(ctx, gpgpu__type(t) != NULL);
    GPGPU__CHECK_ARG(ctx, (flags & ~(unsigned)GPGPU_DESCENDING) == 0);
    if (pairs)
        GPGPU__CHECK_ARG(ctx, value_size == 4 || value_size == 8);
    if (!ctx->host && (gpgpu__type(t)->is_64 || value_size == 8) && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "sort: the device has no 64-bit integers for %s keys or values",
                           gpgpu__type(t)->name);
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

static gpgpu_status check_buffers(gpgpu_context *ctx, const sort_job *j)
{
    size_t ks = gpgpu__type(j->t)->size, vs = j->value_size;
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "sort: _buffer forms need an OpenCL device");
    if (j->n == 0)
        return GPGPU_SUCCESS;
    GPGPU__CHECK_ARG(ctx, j->keys != NULL);
    GPGPU__CHECK_ARG(ctx, buffer_elems(j->keys, j->koff, ks) >= j->n);
    if (!vs)
        return GPGPU_SUCCESS;
    GPGPU__CHECK_ARG(ctx, j->vals != NULL);
    GPGPU__CHECK_ARG(ctx, buffer_elems(j->vals, j->voff, vs) >= j->n);
    /* keys and values sharing a buffer must not overlap */
    GPGPU__CHECK_ARG(ctx, j->keys != j->vals || (j->koff + j->n) * ks <= j->voff * vs ||
                              (j->voff + j->n) * vs <= j->koff * ks);
    return GPGPU_SUCCESS;
}

/* ---- the _buffer forms --------------------------------------------------- */

static gpgpu_status sort_buffer(gpgpu_context *ctx, const sort_job *j, cl_uint num_wait,
                                const cl_event *wait, cl_event *done)
{
    GPGPU__TRY(check_common(ctx, j->t, j->value_size, j->flags, j->value_size != 0));
    GPGPU__TRY(check_buffers(ctx, j));
    GPGPU__CHECK_ARG(ctx, (num_wait == 0) == (wait == NULL));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
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
    sort_job j = { t, keys, NULL, offset, 0, 0, n, flags };
    return sort_buffer(ctx, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_sort_pairs_buffer(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                     size_t key_offset, cl_mem values, size_t value_offset,
                                     size_t value_size, size_t n, unsigned flags,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__CHECK_ARG(NULL, ctx != NULL);
    GPGPU__CHECK_ARG(ctx, value_size == 4 || value_size == 8);
    sort_job j = { key_type, keys, values, key_offset, value_offset, value_size, n, flags };
    return sort_buffer(ctx, &j, num_wait, wait, done);
}

/* ---- the host API: copy in, sort, read back only on success ------------- */

/* Values are read into a copy first, so that a failed read of either
   leaves both of the caller's arrays as they were. */
static gpgpu_status sort_host_copy(gpgpu_context *ctx, sort_job *j, void *keys, void *values)
{
    size_t ks = gpgpu__type(j->t)->size, vs = j->value_size;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, j->n * ks, &j->keys));
    GPGPU__TRY(gpgpu__write(ctx, j->keys, 0, j->n * ks, keys));
    if (vs) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, j->n * vs, &j->vals));
        GPGPU__TRY(gpgpu__write(ctx, j->vals, 0, j->n * vs, values));
    }
    GPGPU__TRY(sort_enqueue(ctx, j));
    GPGPU__TRY(gpgpu__finish(ctx));
    if (!vs)
        return gpgpu__read(ctx, j->keys, 0, j->n * ks, keys);
    void *sorted = gpgpu__malloc(j->n * vs);
    if (!sorted)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "sort: out of host memory");
    gpgpu_status s = gpgpu__read(ctx, j->vals, 0, j->n * vs, sorted);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, j->keys, 0, j->n * ks, keys);
    if (s == GPGPU_SUCCESS)
        memcpy(values, sorted, j->n * vs);
    free(sorted);
    return s;
}

/* What gpgpu_sort and gpgpu_sort_pairs do once their arguments are
   checked: the host fallback, or the device through sort_host_copy. */
static gpgpu_status sort_host_call(gpgpu_context *ctx, gpgpu_type t, void *keys, void *values,
                                   size_t value_size, size_t n, unsigned flags)
{
    if (n < 2)
        return GPGPU_SUCCESS;
    if (ctx->host)
        return gpgpu__host_sort(t, keys, values, value_size, n, flags) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "sort: no host memory");
    sort_job j = { t, NULL, NULL, 0, 0, value_size, n, flags };
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = sort_host_copy(ctx, &j, keys, values);
    if (s != GPGPU_SUCCESS)
        clFinish(ctx->queue); /* nothing may still read the caller's memory */
    gpgpu__end(ctx, NULL);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                              void *values, size_t value_size, size_t n, unsigned flags)
{
    GPGPU__TRY(check_common(ctx, key_type, value_size, flags, 1));
    GPGPU__CHECK_ARG(ctx, n == 0 || keys != NULL);
    GPGPU__CHECK_ARG(ctx, n == 0 || values != NULL);
    /* the scratch holds two copies of keys and of values */
    GPGPU__CHECK_ARG(ctx, n <= PTRDIFF_MAX / 2 / gpgpu__type(key_type)->size);
    GPGPU__CHECK_ARG(ctx, n <= PTRDIFF_MAX / 2 / value_size);
    GPGPU__CHECK_ARG(ctx, GPGPU__ALIGNED(keys, key_type));
    GPGPU__CHECK_ARG(ctx, (uintptr_t)values % value_size == 0);
    return sort_host_call(ctx, key_type, keys, values, value_size, n, flags);
}

gpgpu_status gpgpu_sort(gpgpu_context *ctx, gpgpu_type t, void *keys, size_t n, unsigned flags)
{
    GPGPU__TRY(check_common(ctx, t, 0, flags, 0));
    GPGPU__CHECK_ARG(ctx, n == 0 || keys != NULL);
    /* the scratch holds two copies of the keys */
    GPGPU__CHECK_ARG(ctx, n <= PTRDIFF_MAX / 2 / gpgpu__type(t)->size);
    GPGPU__CHECK_ARG(ctx, GPGPU__ALIGNED(keys, t));
    return sort_host_call(ctx, t, keys, NULL, 0, n, flags);
}
