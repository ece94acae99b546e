/*
 * segsort.c - gpgpu_segmented_sort, gpgpu_segmented_sort_pairs and their
 * _buffer forms (the _array forms are in array.c): argument checks, the
 * route, the passes (kernels/segsort.cl says how they split the work).
 *
 * Strategy by segment length. On a GPU, a segment of at most one tile
 * (SEG_WG work items times the items that fit __local memory: 4096 keys of
 * 32 bits) is one work-group's, sorted in __local memory with its keys
 * read and written once; a longer one is one group's too, sorted by LSD
 * passes through scratch; and in the host API, where the offsets are
 * known, a segment long enough to fill the device by itself goes to the
 * device-wide radix sort (sort.c) instead (GPGPU_SEGSORT=device). By
 * default the host API sorts the segments on the host's threads, each
 * serially (the plan's segsort_host: on PoCL 9x faster than the kernels at
 * 2^22 u32 keys in segments of 4096, 37x in segments of 1024, lib/plan.c
 * has the figures; on GPUs until the kernels have been timed there); the
 * _buffer and _array forms always run the kernels, since they must not
 * block.
 * The fallback sorts on the host's threads.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "segmented.h"

/* Items of a group: one per digit value of the 8-bit ranking. */
enum { SEG_WG = 256, SEG_RADIX_BITS = 8, SEG_MAX_ITEMS = 16 };
/* Host API: a segment of at least this many elements that also holds a
   compute unit's share of the spanned elements goes to the device-wide
   sort (its launches cost tens of microseconds). */
enum { HUGE_MIN = 1 << 16 };

/* Keys per item in segsort_small: SEG_MAX_ITEMS, or fewer to fit the
   tile's keys (and 2-byte places of origin with values) in __local memory
   beside the ranking counters (8 KiB), scan space (2 KiB) and the two
   reduction arrays. */
static size_t seg_items(const gpgpu_context *ctx, size_t ks, size_t vs)
{
    size_t fixed = 8192 + 2048 + 2 * SEG_WG * ks + 256;
    size_t per_item = SEG_WG * (ks + (vs ? 2 : 0)), items = SEG_MAX_ITEMS;
    while (items > 1 && fixed + items * per_item > ctx->local_mem)
        items--;
    return items;
}

typedef struct {
    gpgpu_type t;
    size_t vs;
    unsigned flags;
    cl_mem keys, vals, offs;
    cl_ulong koff, voff, ooff, nseg;
    cl_ulong base, limit; /* offsets are clamped to limit and counted from base */
    cl_ulong big;         /* segments longer than this are not sorted by the
                             segmented kernels (they count a segment's keys
                             in 32 bits) */
    int large;            /* some segment may be longer than a tile */
    int rest;             /* segments longer than big: the device-wide sort,
                             after a read of the offsets (long_segments) */
} segsort_job;

/* The longest segment the segmented kernels sort: 2^32 - 1, or fewer where
   tune.wide_from says so (to test the device-wide path at small sizes). */
static cl_ulong kernel_longest(const gpgpu_context *ctx)
{
    return ctx->tune.wide_from - 1 < UINT32_MAX ? ctx->tune.wide_from - 1 : UINT32_MAX;
}

/* The _buffer and _array forms, where the keys may hold more than big
   elements: the offsets are read back (this blocks) and each segment
   longer than big is sorted by the device-wide sort, which counts in 64
   bits. */
static gpgpu_status long_segments(gpgpu_context *ctx, const segsort_job *j)
{
    if (j->limit - j->base <= j->big)
        return GPGPU_SUCCESS;
    cl_ulong *o = gpgpu__malloc((size_t)(j->nseg + 1) * sizeof *o);
    if (!o)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                           "segmented sort: no host memory for %llu offsets",
                           (unsigned long long)j->nseg + 1);
    gpgpu_status s = gpgpu__read(ctx, j->offs, (size_t)j->ooff * sizeof *o,
                                 (size_t)(j->nseg + 1) * sizeof *o, o);
    for (cl_ulong g = 0; s == GPGPU_SUCCESS && g < j->nseg; g++) {
        cl_ulong e = o[g + 1] < j->limit ? o[g + 1] : j->limit, b = o[g] < e ? o[g] : e;
        if (e - b > j->big)
            s = gpgpu__sort_range_enqueue(ctx, j->t, j->keys, (size_t)(j->koff + b - j->base),
                                          j->vals, (size_t)(j->voff + b - j->base), j->vs,
                                          (size_t)(e - b), j->flags);
    }
    free(o);
    return s;
}

/* Segments per launch: one group each (kernels/segsort.cl says why there
   is no loop over segments in a group). */
enum { SEG_BATCH = 1 << 20 };

/* Enqueues both kernels (the second only when a segment may need it), in
   batches of SEG_BATCH segments. */
static gpgpu_status segsort_enqueue(gpgpu_context *ctx, const segsort_job *j)
{
    if (j->nseg == 0 || j->limit <= j->base)
        return GPGPU_SUCCESS;
    const size_t ks = gpgpu__type(j->t)->size, items = seg_items(ctx, ks, j->vs);
    char opts[256];
    gpgpu__program *prog;
    snprintf(opts, sizeof opts,
             "-D KEY_BITS=%zu -D VAL_BYTES=%zu -D RADIX_BITS=%d -D TILE_WG=%d -D SEG_ITEMS=%zu",
             ks * 8, j->vs, SEG_RADIX_BITS, SEG_WG, items);
    GPGPU__TRY(gpgpu__program_get(ctx, "segsort", NULL, opts, &prog));
    uint64_t m0, m1;
    gpgpu__sort_masks(j->t, j->flags, &m0, &m1);
    cl_ulong mask0 = m0, mask1 = m1;
    cl_mem vals = j->vs ? j->vals : j->keys; /* keys only: never touched */
    for (cl_ulong at = 0; at < j->nseg; at += SEG_BATCH) {
        size_t groups = j->nseg - at < SEG_BATCH ? (size_t)(j->nseg - at) : SEG_BATCH;
        cl_ulong ooff = j->ooff + at;
        GPGPU__TRY(gpgpu__run(ctx, prog, "segsort_small", groups * SEG_WG, SEG_WG,
                              GPGPU__ARG(j->keys), GPGPU__ARG(j->koff), GPGPU__ARG(vals),
                              GPGPU__ARG(j->voff), GPGPU__ARG(j->offs), GPGPU__ARG(ooff),
                              GPGPU__ARG(j->base), GPGPU__ARG(j->limit), GPGPU__ARG(mask0),
                              GPGPU__ARG(mask1), GPGPU__END));
    }
    if (j->rest)
        GPGPU__TRY(long_segments(ctx, j));
    if (!j->large || j->limit - j->base <= SEG_WG * items)
        return GPGPU_SUCCESS;
    const size_t span = (size_t)(j->limit - j->base);
    cl_mem tk, tv;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, span * ks, &tk));
    tv = tk;
    if (j->vs)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, span * j->vs, &tv));
    for (cl_ulong at = 0; at < j->nseg; at += SEG_BATCH) {
        size_t groups = j->nseg - at < SEG_BATCH ? (size_t)(j->nseg - at) : SEG_BATCH;
        cl_ulong ooff = j->ooff + at;
        GPGPU__TRY(gpgpu__run(ctx, prog, "segsort_large", groups * SEG_WG, SEG_WG,
                              GPGPU__ARG(j->keys), GPGPU__ARG(j->koff), GPGPU__ARG(vals),
                              GPGPU__ARG(j->voff), GPGPU__ARG(j->offs), GPGPU__ARG(ooff),
                              GPGPU__ARG(j->base), GPGPU__ARG(j->limit), GPGPU__ARG(j->big),
                              GPGPU__ARG(mask0), GPGPU__ARG(mask1), GPGPU__ARG(tk),
                              GPGPU__ARG(tv), GPGPU__END));
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__segsort_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, cl_mem values,
                                    size_t value_size, cl_mem offsets, size_t nseg, size_t n,
                                    unsigned flags)
{
    segsort_job j = { t, value_size, flags, keys, values, offsets, 0, 0, 0, nseg, 0, n,
                      kernel_longest(ctx), 1, 1 };
    return segsort_enqueue(ctx, &j);
}

/* ---- the host API ------------------------------------------------------------ */

/* Is segment s of the host API one for the device-wide sort? */
static int huge(const gpgpu_context *ctx, size_t len, size_t total)
{
    return len >= HUGE_MIN && len * (double)ctx->compute_units >= total;
}

/* The device half, ctx locked: the spanned keys (and values) and the
   offsets go to scratch, are sorted there and come back, both arrays or
   neither. */
static gpgpu_status segsort_device(gpgpu_context *ctx, gpgpu_type t, unsigned char *k,
                                   unsigned char *v, size_t vs, const size_t *offsets,
                                   size_t nseg, size_t total, unsigned flags)
{
    const size_t ks = gpgpu__type(t)->size, first = offsets[0];
    const size_t tile = SEG_WG * seg_items(ctx, ks, vs);
    /* segments longer than cutoff go to the device-wide sort below */
    size_t longest = 0, cutoff = (size_t)kernel_longest(ctx);
    for (size_t g = 0; g < nseg; g++) {
        size_t len = offsets[g + 1] - offsets[g];
        longest = len > longest ? len : longest;
        if (huge(ctx, len, total) && len - 1 < cutoff)
            cutoff = len - 1;
    }
    segsort_job j = { t, vs, flags, NULL, NULL, NULL, 0, 0, 0, nseg, first, offsets[nseg],
                      cutoff, longest > tile, 0 };
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_HOST_ORIG, (nseg + 1) * sizeof(cl_ulong),
                              &j.offs));
    if (sizeof(size_t) == sizeof(cl_ulong)) {
        GPGPU__TRY(gpgpu__write(ctx, j.offs, 0, (nseg + 1) * sizeof(cl_ulong), offsets));
    } else {
        for (size_t g = 0; g <= nseg; g++) {
            cl_ulong o = offsets[g];
            GPGPU__TRY(gpgpu__write(ctx, j.offs, g * sizeof o, sizeof o, &o));
            GPGPU__TRY(gpgpu__finish(ctx));
        }
    }
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, total * ks, &j.keys));
    GPGPU__TRY(gpgpu__upload(ctx, j.keys, 0, total * ks, k));
    if (vs) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, total * vs, &j.vals));
        GPGPU__TRY(gpgpu__upload(ctx, j.vals, 0, total * vs, v));
    }
    GPGPU__TRY(segsort_enqueue(ctx, &j));
    for (size_t g = 0; g < nseg; g++) {
        size_t len = offsets[g + 1] - offsets[g], at = offsets[g] - first;
        if (len > cutoff)
            GPGPU__TRY(gpgpu__sort_range_enqueue(ctx, t, j.keys, at, j.vals, at, vs, len,
                                                 flags));
    }
    GPGPU__TRY(gpgpu__finish(ctx));
    if (!vs)
        return gpgpu__download(ctx, j.keys, 0, total * ks, k, 1);
    cl_mem bufs[2] = { j.keys, j.vals };
    size_t bytes[2] = { total * ks, total * vs };
    void *hosts[2] = { k, v };
    return gpgpu__download_all(ctx, 2, bufs, bytes, hosts);
}

static gpgpu_status check_common(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                 size_t value_size, unsigned flags, int pairs)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, pairs ? "key_type" : "t", t));
    GPGPU__REQUIRE(ctx, flags == GPGPU_ASCENDING || flags == GPGPU_DESCENDING, func,
                   "flags is %u; need GPGPU_ASCENDING or GPGPU_DESCENDING", (unsigned)flags);
    if (pairs)
        GPGPU__REQUIRE(ctx, value_size == 4 || value_size == 8, func,
                       "value_size is %zu; need 4 or 8", value_size);
    return GPGPU_SUCCESS;
}

/* 64-bit keys or values need the device's 64-bit integers. */
static gpgpu_status check_int64(gpgpu_context *ctx, const char *func, gpgpu_type t, size_t vs)
{
    if (!ctx->host && (gpgpu__type(t)->is_64 || vs == 8) && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: the device has no 64-bit integers for %s keys or values", func,
                           gpgpu__type(t)->name);
    return GPGPU_SUCCESS;
}

static gpgpu_status segsort(gpgpu_context *ctx, const char *func, gpgpu_type t, void *keys,
                            void *values, size_t value_size, const size_t *offsets,
                            size_t nseg, unsigned flags)
{
    size_t total;
    GPGPU__TRY(check_common(ctx, func, t, value_size, flags, values != NULL || value_size));
    GPGPU__REQUIRE(ctx, offsets != NULL || nseg == 0, func,
                   "offsets is NULL with nseg = %zu; it may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, nseg <= PTRDIFF_MAX / sizeof(size_t) - 1, func,
                   "nseg is %zu; at most %zu", nseg, (size_t)PTRDIFF_MAX / sizeof(size_t) - 1);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(keys, t), func,
                   "keys is %p; it must be aligned to %zu bytes, the size of one element of t", (const void *)keys, gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, (uintptr_t)offsets % sizeof(size_t) == 0, func,
                   "offsets is %p; it must be aligned to %zu bytes, the size of one element", (const void *)offsets, (size_t)(sizeof(size_t)));
    GPGPU__TRY(gpgpu__offsets_check(ctx, func, t, offsets, nseg, &total));
    GPGPU__REQUIRE(ctx, keys != NULL || total == 0, func,
                   "keys is NULL while the segments cover %zu elements; it may be NULL only when they cover none", total);
    if (value_size) {
        GPGPU__REQUIRE(ctx, values != NULL || total == 0, func,
                       "values is NULL while the segments cover %zu elements; it may be NULL only when they cover none", total);
        GPGPU__REQUIRE(ctx, (uintptr_t)values % value_size == 0, func,
                       "values is %p; it must be aligned to %zu bytes, the size of one element", (const void *)values, (size_t)(value_size));
        GPGPU__REQUIRE(ctx, nseg == 0 || offsets[nseg] <= PTRDIFF_MAX / value_size, func,
                       "offsets[nseg] is %zu; at most %zu values of %zu bytes", offsets[nseg],
                       (size_t)PTRDIFF_MAX / value_size, value_size);
    }
    GPGPU__TRY(check_int64(ctx, func, t, value_size));
    if (total < 2)
        return GPGPU_SUCCESS;
    const size_t ks = gpgpu__type(t)->size, first = offsets[0];
    unsigned char *k = (unsigned char *)keys + first * ks;
    unsigned char *v = value_size ? (unsigned char *)values + first * value_size : NULL;
    /* CPUs: the host's threads (only running out of host memory can stop
       them half way). */
    if (ctx->host || ctx->tune.segsort_host || gpgpu__host_below(ctx, GPGPU__HB_SEGSORT, total)) {
        if (gpgpu__host_segsort(t, keys, values, value_size, offsets, nseg, offsets[nseg],
                                flags) != GPGPU_SUCCESS)
            return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", func);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    ctx->prints_own = 1;
    gpgpu_status s = segsort_device(ctx, t, k, v, value_size, offsets, nseg, total, flags);
    gpgpu__end(ctx, NULL);
    return gpgpu__host_call_end(ctx, value_size ? "gpgpu_segmented_sort_pairs"
                                                : "gpgpu_segmented_sort", s);
}

gpgpu_status gpgpu_segmented_sort(gpgpu_context *ctx, gpgpu_type t, void *keys,
                                  const size_t *offsets, size_t nseg, unsigned flags)
{
    return segsort(ctx, __func__, t, keys, NULL, 0, offsets, nseg, flags);
}

gpgpu_status gpgpu_segmented_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                                        void *values, size_t value_size, const size_t *offsets,
                                        size_t nseg, unsigned flags)
{
    if (ctx && value_size == 0)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: value_size is 0; need 4 or 8", __func__);
    return segsort(ctx, __func__, key_type, keys, values, value_size, offsets, nseg, flags);
}

/* ---- device buffers ---------------------------------------------------------- */

/* Elements of elem bytes in buf from offset on (0 past its end). */
static size_t elems_from(cl_mem buf, size_t offset, size_t elem)
{
    size_t bytes = 0;
    clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    return bytes / elem > offset ? bytes / elem - offset : 0;
}

static gpgpu_status segsort_buffer(gpgpu_context *ctx, const char *func, segsort_job *j,
                                   cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    const size_t ks = gpgpu__type(j->t)->size;
    GPGPU__REQUIRE(ctx, j->nseg == 0 || (j->keys != NULL && j->offs != NULL &&
                                         (!j->vs || j->vals != NULL)), func,
                   "keys, values or offsets is NULL with nseg = %llu; they may be NULL only when nseg is 0",
                   (unsigned long long)j->nseg);
    GPGPU__REQUIRE(ctx, !j->vs || j->keys != j->vals, func,
                   "keys and values are the same buffer; they must be different buffers");
    GPGPU__REQUIRE(ctx, j->nseg <= PTRDIFF_MAX / sizeof(cl_ulong) - 1, func,
                   "nseg is %llu; at most %zu", (unsigned long long)j->nseg,
                   (size_t)PTRDIFF_MAX / sizeof(cl_ulong) - 1);
    GPGPU__TRY(check_int64(ctx, func, j->t, j->vs));
    GPGPU__TRY(gpgpu__check_wait(ctx, func, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", func);
    if (j->nseg > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, func, "offsets", j->offs, (size_t)j->ooff,
                                      (size_t)j->nseg + 1, sizeof(cl_ulong)));
        GPGPU__TRY(gpgpu__check_range(ctx, func, "keys", j->keys, (size_t)j->koff, 0, ks));
        j->limit = elems_from(j->keys, (size_t)j->koff, ks);
        if (j->vs) {
            GPGPU__TRY(gpgpu__check_range(ctx, func, "values", j->vals, (size_t)j->voff, 0,
                                          j->vs));
            size_t vl = elems_from(j->vals, (size_t)j->voff, j->vs);
            j->limit = vl < j->limit ? vl : j->limit;
        }
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    ctx->prints_own = 1;
    gpgpu_status s = segsort_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    if (s != GPGPU_SUCCESS)
        gpgpu__end(ctx, NULL);
    else if (ctx->profile_print)
        gpgpu__profile_print(ctx, j->vs ? "gpgpu_segmented_sort_pairs_buffer"
                                        : "gpgpu_segmented_sort_buffer");
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_segmented_sort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                         size_t offset, cl_mem offsets, size_t offsets_offset,
                                         size_t nseg, unsigned flags, cl_uint num_wait,
                                         const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(check_common(ctx, __func__, t, 0, flags, 0));
    segsort_job j = { t, 0, flags, keys, NULL, offsets, offset, 0, offsets_offset, nseg, 0, 0,
                      kernel_longest(ctx), 1, 1 };
    return segsort_buffer(ctx, __func__, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_segmented_sort_pairs_buffer(gpgpu_context *ctx, gpgpu_type key_type,
                                               cl_mem keys, size_t key_offset, cl_mem values,
                                               size_t value_offset, size_t value_size,
                                               cl_mem offsets, size_t offsets_offset,
                                               size_t nseg, unsigned flags, cl_uint num_wait,
                                               const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(check_common(ctx, __func__, key_type, value_size, flags, 1));
    segsort_job j = { key_type, value_size, flags, keys, values, offsets, key_offset,
                      value_offset, offsets_offset, nseg, 0, 0, kernel_longest(ctx), 1, 1 };
    return segsort_buffer(ctx, __func__, &j, num_wait, wait, done);
}

/* ---- segmented sort ------------------------------------------------------------- */

/* The fallback: the host's threads over a size_t copy of the offsets. */
static gpgpu_status array_segsort_host(gpgpu_context *ctx, const char *func, gpgpu_array *keys,
                                 gpgpu_array *values, const gpgpu_array *offsets,
                                 unsigned flags)
{
    const size_t nseg = offsets->n - 1, vs = values ? gpgpu__type(values->t)->size : 0;
    size_t *offs = gpgpu__malloc(offsets->n * sizeof *offs);
    if (!offs)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", func);
    for (size_t s = 0; s <= nseg; s++) {
        uint64_t o = ((const uint64_t *)offsets->host)[s];
        offs[s] = o < keys->n ? (size_t)o : keys->n;
    }
    gpgpu_status s = gpgpu__host_segsort(keys->t, keys->host, values ? values->host : NULL, vs,
                                         offs, nseg, keys->n, flags);
    free(offs);
    return s == GPGPU_SUCCESS ? s : gpgpu__fail(ctx, s, "%s: no host memory", func);
}

/* Both segmented sorts once the arrays are checked (values NULL: keys only). */
static gpgpu_status array_segsort(gpgpu_context *ctx, const char *func, gpgpu_array *keys,
                                 gpgpu_array *values, const gpgpu_array *offsets,
                                 unsigned flags)
{
    GPGPU__REQUIRE(ctx, flags == GPGPU_ASCENDING || flags == GPGPU_DESCENDING, func,
                   "flags is %u; need GPGPU_ASCENDING or GPGPU_DESCENDING", (unsigned)flags);
    GPGPU__REQUIRE(ctx, offsets->t == GPGPU_U64, func,
                   "offsets holds %s elements; it must hold GPGPU_U64",
                   gpgpu__type(offsets->t)->name);
    const size_t vs = values ? gpgpu__type(values->t)->size : 0;
    if (offsets->n < 2 || keys->n < 2)
        return GPGPU_SUCCESS;
    if (ctx->host)
        return array_segsort_host(ctx, func, keys, values, offsets, flags);
    GPGPU__TRY(gpgpu__sort_words_ok(ctx, func, keys->t, vs));
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, func,
                    gpgpu__segsort_enqueue(ctx, keys->t, keys->buf, values ? values->buf : NULL,
                                           vs, offsets->buf, offsets->n - 1, keys->n, flags));
}

gpgpu_status gpgpu_segmented_sort_array(gpgpu_context *ctx, gpgpu_array *keys,
                                        const gpgpu_array *offsets, unsigned flags)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "keys", keys));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "offsets", offsets));
    return array_segsort(ctx, __func__, keys, NULL, offsets, flags);
}

gpgpu_status gpgpu_segmented_sort_pairs_array(gpgpu_context *ctx, gpgpu_array *keys,
                                              gpgpu_array *values, const gpgpu_array *offsets,
                                              unsigned flags)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "keys", keys));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "values", values));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "offsets", offsets));
    GPGPU__REQUIRE(ctx, values != keys, __func__,
                   "values and keys are the same array; they must differ");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "values", keys, values, 0, 1));
    return array_segsort(ctx, __func__, keys, values, offsets, flags);
}
