/*
 * sort.c - gpgpu_sort, gpgpu_sort_pairs and their _buffer forms: a stable
 * radix sort (kernels/sort.cl says how the passes work).
 *
 * The keys are first counted for every digit in one read; a small kernel
 * turns the counts into a plan (which digits differ between keys, where
 * each bucket goes) that every later kernel reads on the device, so passes
 * over digits that every key shares cost nothing and the host never waits.
 * All work happens in library scratch; the caller's keys and values are
 * written only by the last kernel, so a failure before it leaves them as
 * they were.
 */
#include <stdio.h>

#include "internal.h"

enum { SORT_RADIX_BITS = 8, SORT_RADIX = 1 << SORT_RADIX_BITS, PLAN_WORDS = 2 + 2 * SORT_RADIX };
enum { MIN_CHUNK = 4096 }; /* keys per chunk below which more chunks only add overhead */

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

/* The number of chunks: a multiple of the group size, at least MIN_CHUNK
   keys each, at most what the plan's groups hold. */
static size_t chunks_for(const gpgpu_context *ctx, size_t n)
{
    size_t wg = ctx->tune.wg, most = ctx->tune.groups * wg, g = n / MIN_CHUNK;
    if (g > most)
        g = most;
    return (g + wg - 1) / wg * wg;
}

static gpgpu_status sort_enqueue(gpgpu_context *ctx, const sort_job *j)
{
    const gpgpu__type_info *ti = gpgpu__type(j->t);
    size_t ks = ti->size, vs = j->value_size, wg = ctx->tune.wg;
    size_t digits = ks * 8 / SORT_RADIX_BITS, g = chunks_for(ctx, j->n);
    cl_ulong koff = j->koff, voff = j->voff, n = j->n, chunk = (j->n + g - 1) / g;
    cl_uint nchunks = (cl_uint)g;
    char opts[256];
    gpgpu__program *prog;
    cl_mem hist, plan, ak, av;
    sort_masks m;

    masks_for(j, &m);
    snprintf(opts, sizeof opts, "-D KEY_BITS=%zu -D VAL_BYTES=%zu -D RADIX_BITS=%d", ks * 8,
             vs, SORT_RADIX_BITS);
    GPGPU__TRY(gpgpu__program_get(ctx, "sort", NULL, opts, &prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS,
                              g * digits * SORT_RADIX * sizeof(cl_uint), &hist));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX,
                              (PLAN_WORDS + g * SORT_RADIX) * sizeof(cl_ulong), &plan));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, 2 * j->n * ks, &ak));
    av = ak; /* keys only: the kernels never touch values */
    if (vs)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, 2 * j->n * vs, &av));
    cl_mem vals = vs ? j->vals : j->keys;

    GPGPU__TRY(gpgpu__run(ctx, prog, "sort_count", g, wg, GPGPU__ARG(j->keys), GPGPU__ARG(koff),
                          GPGPU__ARG(n), GPGPU__ARG(chunk), MASK_ARGS(m), GPGPU__ARG(hist),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, prog, "sort_plan", SORT_RADIX, SORT_RADIX, GPGPU__ARG(hist),
                          GPGPU__ARG(nchunks), GPGPU__ARG(n), GPGPU__ARG(plan), GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, prog, "sort_msd", g, wg, GPGPU__ARG(j->keys), GPGPU__ARG(vals),
                          GPGPU__ARG(koff), GPGPU__ARG(voff), GPGPU__ARG(n), GPGPU__ARG(chunk),
                          MASK_ARGS(m), GPGPU__ARG(plan), GPGPU__ARG(ak), GPGPU__ARG(av),
                          GPGPU__END));
    return gpgpu__run(ctx, prog, "sort_buckets", SORT_RADIX, wg < SORT_RADIX ? wg : SORT_RADIX,
                      GPGPU__ARG(ak), GPGPU__ARG(av), GPGPU__ARG(n), GPGPU__ARG(j->keys),
                      GPGPU__ARG(vals), GPGPU__ARG(koff), GPGPU__ARG(voff), MASK_ARGS(m),
                      GPGPU__ARG(plan), GPGPU__END);
}

/* ---- argument checks ----------------------------------------------------- */

static gpgpu_status check_common(gpgpu_context *ctx, gpgpu_type t, size_t value_size,
                                 unsigned flags, int pairs)
{
    GPGPU__CHECK_ARG(ctx, ctx != NULL);
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
    GPGPU__CHECK_ARG(ctx, !ctx->host);
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
    GPGPU__CHECK_ARG(ctx, num_wait == 0 || wait != NULL);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait);
    gpgpu_status s = j->n < 2 ? GPGPU_SUCCESS : sort_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    else
        gpgpu__end(ctx, NULL);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_sort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, size_t offset,
                               size_t n, unsigned flags, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    sort_job j = { t, keys, NULL, offset, 0, 0, n, flags };
    return sort_buffer(ctx, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_sort_pairs_buffer(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                     size_t key_offset, cl_mem values, size_t value_offset,
                                     size_t value_size, size_t n, unsigned flags,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    GPGPU__CHECK_ARG(ctx, value_size == 4 || value_size == 8);
    sort_job j = { key_type, keys, values, key_offset, value_offset, value_size, n, flags };
    return sort_buffer(ctx, &j, num_wait, wait, done);
}

/* ---- the host API: copy in, sort, read back only on success ------------- */

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
    if (vs)
        GPGPU__TRY(gpgpu__read(ctx, j->vals, 0, j->n * vs, values));
    return gpgpu__read(ctx, j->keys, 0, j->n * ks, keys);
}

gpgpu_status gpgpu_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                              void *values, size_t value_size, size_t n, unsigned flags)
{
    GPGPU__TRY(check_common(ctx, key_type, value_size, flags, 1));
    GPGPU__CHECK_ARG(ctx, n == 0 || keys != NULL);
    GPGPU__CHECK_ARG(ctx, n == 0 || values != NULL);
    if (n < 2)
        return GPGPU_SUCCESS;
    if (ctx->host)
        return gpgpu__host_sort(key_type, keys, values, value_size, n, flags) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "sort: no host memory");
    sort_job j = { key_type, NULL, NULL, 0, 0, value_size, n, flags };
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL);
    gpgpu_status s = sort_host_copy(ctx, &j, keys, values);
    gpgpu__end(ctx, NULL);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_sort(gpgpu_context *ctx, gpgpu_type t, void *keys, size_t n, unsigned flags)
{
    GPGPU__TRY(check_common(ctx, t, 0, flags, 0));
    GPGPU__CHECK_ARG(ctx, n == 0 || keys != NULL);
    if (n < 2)
        return GPGPU_SUCCESS;
    if (ctx->host)
        return gpgpu__host_sort(t, keys, NULL, 0, n, flags) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "sort: no host memory");
    sort_job j = { t, NULL, NULL, 0, 0, 0, n, flags };
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL);
    gpgpu_status s = sort_host_copy(ctx, &j, keys, NULL);
    gpgpu__end(ctx, NULL);
    gpgpu__unlock(ctx);
    return s;
}
