/*
 * array.c - gpgpu_array: device memory behind an opaque handle, and the
 * primitives on it.
 *
 * An array is one plain device buffer (clCreateBuffer, also on devices that
 * share host memory: there the write and read are copies), or host memory
 * on the fallback. Each primitive checks its arrays, then runs the same
 * enqueues as its _buffer form (gpgpu__*_enqueue, under the lock and
 * between begin and end), so that an array call costs what a buffer call
 * costs. The calls that hand a value back (reduce, histogram, select's
 * count) put it in a scratch slot and read it with one blocking read; the
 * others return with their work enqueued.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"

/* ---- checks ----------------------------------------------------------------- */

gpgpu_status gpgpu__array_check(gpgpu_context *ctx, const char *func, const char *what,
                                const gpgpu_array *a)
{
    if (!a)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", func, what);
    if (a->ctx != ctx)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: %s belongs to another context", func, what);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__array_match(gpgpu_context *ctx, const char *func, const char *what,
                                const gpgpu_array *a, const gpgpu_array *b, int same_type,
                                int same_length)
{
    if (same_type && b->t != a->t)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: %s holds %s elements; it must hold %s like the input", func,
                           what, gpgpu__type(b->t)->name, gpgpu__type(a->t)->name);
    if (same_length ? b->n != a->n : b->n < a->n)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: %s has %zu elements; it must have %s%zu", func, what, b->n,
                           same_length ? "" : "at least ", a->n);
    return GPGPU_SUCCESS;
}

/* [offset, offset + n) lies inside a, and host is usable for n elements. */
static gpgpu_status check_range(gpgpu_context *ctx, const char *func, const gpgpu_array *a,
                                size_t offset, const void *host, size_t n)
{
    if (offset > a->n || n > a->n - offset)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: offset %zu + n %zu is past the array's length %zu", func,
                           offset, n, a->n);
    if (!host && n > 0)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: host is NULL with n = %zu",
                           func, n);
    if (!GPGPU__ALIGNED(host, a->t))
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: host is not aligned to its %zu-byte elements", func,
                           gpgpu__type(a->t)->size);
    return GPGPU_SUCCESS;
}

static gpgpu_status user_op_on_host(gpgpu_context *ctx, const char *func)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                       "%s: user-defined operators and expressions need an OpenCL device",
                       func);
}

/* ---- the bracket around a device call --------------------------------------- */

void gpgpu__array_begin(gpgpu_context *ctx)
{
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    ctx->prints_own = 1;
}

gpgpu_status gpgpu__array_end(gpgpu_context *ctx, const char *func, gpgpu_status s)
{
    gpgpu__end(ctx, NULL);
    if (s == GPGPU_SUCCESS && ctx->profile_print)
        gpgpu__profile_print(ctx, func);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu__array_result(gpgpu_context *ctx, size_t bytes, cl_mem *slot)
{
    return gpgpu__scratch(ctx, GPGPU__SLOT_OUT, bytes, slot);
}

/* ---- handles ------------------------------------------------------------------ */

gpgpu_status gpgpu_array_create(gpgpu_context *ctx, gpgpu_type t, size_t n, gpgpu_array **a)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, a != NULL, __func__,
                   "a is NULL; need somewhere to put the array");
    *a = NULL;
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    const size_t bytes = n * gpgpu__type(t)->size;
    gpgpu_array *r = gpgpu__malloc(sizeof *r);
    if (!r)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                           "gpgpu_array_create: out of host memory");
    *r = (gpgpu_array){ctx, t, n, NULL, NULL};
    gpgpu_status s = GPGPU_SUCCESS;
    if (ctx->host) {
        r->host = gpgpu__malloc(bytes ? bytes : 1);
        if (!r->host)
            s = gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                            "gpgpu_array_create: no host memory for %zu bytes", bytes);
    } else {
        s = gpgpu__buffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &r->buf);
    }
    if (s != GPGPU_SUCCESS) {
        free(r);
        return s;
    }
    *a = r;
    return GPGPU_SUCCESS;
}

void gpgpu_array_destroy(gpgpu_array *a)
{
    if (!a)
        return;
    /* OpenCL frees the buffer once the commands using it have completed;
       the buffer holds its own reference to the cl_context. */
    if (a->buf)
        clReleaseMemObject(a->buf);
    free(a->host);
    free(a);
}

size_t gpgpu_array_length(const gpgpu_array *a)
{
    return a ? a->n : 0;
}

gpgpu_type gpgpu_array_type(const gpgpu_array *a)
{
    return a ? a->t : GPGPU_I32;
}

cl_mem gpgpu_array_buffer(const gpgpu_array *a)
{
    return a ? a->buf : NULL;
}

/* ---- moving data ---------------------------------------------------------------- */

gpgpu_status gpgpu_array_write(gpgpu_context *ctx, gpgpu_array *a, size_t offset,
                               const void *host, size_t n)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "a", a));
    GPGPU__TRY(check_range(ctx, __func__, a, offset, host, n));
    const size_t size = gpgpu__type(a->t)->size;
    if (ctx->host) {
        if (n > 0)
            gpgpu__parallel_copy((char *)a->host + offset * size, host, n * size);
        return GPGPU_SUCCESS;
    }
    gpgpu__array_begin(ctx);
    /* Where the device shares host memory one copy is all it takes; else
       the host calls' routes (staging ring, or one DMA from pinned memory). */
    gpgpu_status s = ctx->tune.zero_copy
                         ? gpgpu__write(ctx, a->buf, offset * size, n * size, host)
                         : gpgpu__upload(ctx, a->buf, offset * size, n * size, host);
    /* The caller may reuse host once this returns. */
    if (s == GPGPU_SUCCESS)
        s = gpgpu__finish(ctx);
    if (s != GPGPU_SUCCESS)
        clFinish(ctx->queue); /* nothing may still read host */
    return gpgpu__array_end(ctx, __func__, s);
}

gpgpu_status gpgpu_array_read(gpgpu_context *ctx, const gpgpu_array *a, size_t offset,
                              void *host, size_t n)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "a", a));
    GPGPU__TRY(check_range(ctx, __func__, a, offset, host, n));
    const size_t size = gpgpu__type(a->t)->size;
    if (ctx->host) {
        if (n > 0)
            gpgpu__parallel_copy(host, (const char *)a->host + offset * size, n * size);
        return GPGPU_SUCCESS;
    }
    gpgpu__array_begin(ctx);
    gpgpu_status s = ctx->tune.zero_copy
                         ? gpgpu__read(ctx, a->buf, offset * size, n * size, host)
                         : gpgpu__download(ctx, a->buf, offset * size, n * size, host, 0);
    if (s != GPGPU_SUCCESS)
        clFinish(ctx->queue); /* nothing may still write host */
    return gpgpu__array_end(ctx, __func__, s);
}

/* ---- reduce and transform_reduce ---------------------------------------------- */

/* Both reduces once checked (map NULL: none, else clean): the result goes
   through a scratch slot and one blocking read. */
static gpgpu_status reduce_call(gpgpu_context *ctx, const char *func, gpgpu_op op,
                                const char *map, const gpgpu_array *in, void *result)
{
    const size_t size = gpgpu__type(in->t)->size;
    cl_mem out;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, size, &out);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__reduce_enqueue(ctx, in->t, op, map, in->buf, 0, in->n, out, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, out, 0, size, result);
    return gpgpu__array_end(ctx, func, s);
}

gpgpu_status gpgpu_reduce_array(gpgpu_context *ctx, gpgpu_op op, const gpgpu_array *in,
                                void *result)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__REQUIRE(ctx, GPGPU__REDUCE_OP(op), __func__,
                   "op is %d; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX, GPGPU_SUM_EXACT or an "
                   "operator from gpgpu_op_define", (int)op);
    GPGPU__REQUIRE(ctx, result != NULL, __func__,
                   "result is NULL; need room for one element");
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return user_op_on_host(ctx, __func__);
        if (op == GPGPU_SUM_EXACT && gpgpu__type(in->t)->is_float)
            gpgpu__host_sum_exact(in->t, in->host, in->n, result);
        else
            gpgpu__host_reduce(in->t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in->host, in->n,
                               result);
        return GPGPU_SUCCESS;
    }
    return reduce_call(ctx, __func__, op, NULL, in, result);
}

gpgpu_status gpgpu_transform_reduce_array(gpgpu_context *ctx, const char *map, gpgpu_op op,
                                          const gpgpu_array *in, void *result)
{
    char m[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, map != NULL, __func__,
                   "map is NULL");
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__REQUIRE(ctx, GPGPU__REDUCE_OP(op), __func__,
                   "op is %d; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX, GPGPU_SUM_EXACT or an "
                   "operator from gpgpu_op_define", (int)op);
    GPGPU__REQUIRE(ctx, result != NULL, __func__,
                   "result is NULL; need room for one element");
    GPGPU__TRY(gpgpu__expr_clean(ctx, "map", map, m));
    if (ctx->host)
        return user_op_on_host(ctx, __func__);
    return reduce_call(ctx, __func__, op, m, in, result);
}

/* ---- scan ------------------------------------------------------------------------ */

gpgpu_status gpgpu_scan_array(gpgpu_context *ctx, gpgpu_op op, gpgpu_scan_kind kind,
                              const gpgpu_array *in, gpgpu_array *out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__TRY(gpgpu__check_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", in, out, 1, 1));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return user_op_on_host(ctx, __func__);
        gpgpu__host_scan(in->t, op, kind, in->host, out->host, in->n, NULL);
        return GPGPU_SUCCESS;
    }
    char opts[512];
    const char *extra;
    gpgpu__array_begin(ctx);
    /* The operator and type are checked even when there is nothing to scan. */
    gpgpu_status s = gpgpu__type_op_options(ctx, in->t, op, opts, sizeof opts, &extra);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__scan_enqueue(ctx, in->t, op, kind, in->buf, 0, out->buf, 0, in->n, NULL, 0);
    return gpgpu__array_end(ctx, __func__, s);
}

/* ---- sort -------------------------------------------------------------------------- */

/* The sorts' kernels move 64-bit keys or 8-byte values as 64-bit integers. */
static gpgpu_status sort_words_ok(gpgpu_context *ctx, const char *func, gpgpu_type kt, size_t vs)
{
    if ((gpgpu__type(kt)->is_64 || vs == 8) && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: the device has no 64-bit integers for these keys or values",
                           func);
    return GPGPU_SUCCESS;
}
/* Both sorts once checked (values NULL: keys only). */
static gpgpu_status sort_call(gpgpu_context *ctx, const char *func, gpgpu_array *keys,
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
    GPGPU__TRY(sort_words_ok(ctx, func, keys->t, vs));
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
    return sort_call(ctx, __func__, keys, NULL, flags);
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
    return sort_call(ctx, __func__, keys, values, flags);
}

/* ---- segmented sort ------------------------------------------------------------- */

/* The fallback: the host's threads over a size_t copy of the offsets. */
static gpgpu_status segsort_host(gpgpu_context *ctx, const char *func, gpgpu_array *keys,
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
static gpgpu_status segsort_call(gpgpu_context *ctx, const char *func, gpgpu_array *keys,
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
        return segsort_host(ctx, func, keys, values, offsets, flags);
    GPGPU__TRY(sort_words_ok(ctx, func, keys->t, vs));
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
    return segsort_call(ctx, __func__, keys, NULL, offsets, flags);
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
    return segsort_call(ctx, __func__, keys, values, offsets, flags);
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
        gpgpu__host_histogram(in->t, in->host, in->n, nbins, lo, hi, bins);
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

/* ---- select --------------------------------------------------------------------------- */

gpgpu_status gpgpu_select_array(gpgpu_context *ctx, const char *predicate,
                                const gpgpu_array *in, gpgpu_array *out, size_t *count)
{
    char pred[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__,
                   "predicate is NULL");
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    /* Work items would overwrite elements that others have yet to read. */
    GPGPU__REQUIRE(ctx, out != in, __func__,
                   "out and in are the same array; they must differ (out != in)");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", in, out, 1, 0));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    if (ctx->host)
        return user_op_on_host(ctx, __func__);
    cl_mem kept;
    cl_ulong got = 0;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, sizeof got, &kept);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__select_pred_enqueue(ctx, in->t, pred, in->buf, 0, in->n, out->buf, 0, kept, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, kept, 0, sizeof got, &got);
    if (s == GPGPU_SUCCESS)
        *count = (size_t)got;
    return gpgpu__array_end(ctx, __func__, s);
}
