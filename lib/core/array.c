/*
 * array.c - gpgpu_array: device memory behind an opaque handle; the checks
 * and the bracket that every primitive's _array form uses (each primitive
 * keeps its _array form beside its _buffer form).
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

#include "core/core.h"

/* ---- checks ----------------------------------------------------------------- */

gpgpu_status gpgpu__array_check(gpgpu_context *ctx, const char *func, const char *what,
                                const gpgpu_array *a)
{
    if (ctx && gpgpu__foreign(ctx))
        return gpgpu__check_ctx(ctx, func);
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

gpgpu_status gpgpu__array_needs_device(gpgpu_context *ctx, const char *func)
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
       the buffer holds its own reference to the cl_context. In the child
       of a fork the buffer is the parent's: only the handle is freed. */
    if (a->buf && !gpgpu__opencl_inherited())
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

/* Both directions once checked: host into the array (write) or the array
   into host. */
static gpgpu_status array_move(gpgpu_context *ctx, const char *func, const gpgpu_array *a,
                               size_t offset, void *host, size_t n, int write)
{
    const size_t size = gpgpu__type(a->t)->size, at = offset * size, bytes = n * size;
    if (ctx->host) {
        char *mem = (char *)a->host + at;
        if (n > 0)
            gpgpu__parallel_copy(write ? mem : host, write ? host : mem, bytes);
        return GPGPU_SUCCESS;
    }
    gpgpu__array_begin(ctx);
    /* Where the device shares host memory one copy is all it takes; else
       the host calls' routes (staging ring, or one DMA from pinned memory). */
    gpgpu_status s;
    if (write) {
        s = ctx->tune.zero_copy ? gpgpu__write(ctx, a->buf, at, bytes, host)
                                : gpgpu__upload(ctx, a->buf, at, bytes, host);
        /* The caller may reuse host once this returns. */
        if (s == GPGPU_SUCCESS)
            s = gpgpu__finish(ctx);
    } else {
        s = ctx->tune.zero_copy ? gpgpu__read(ctx, a->buf, at, bytes, host)
                                : gpgpu__download(ctx, a->buf, at, bytes, host, 0);
    }
    if (s != GPGPU_SUCCESS)
        clFinish(ctx->queue); /* nothing may still read or write host */
    return gpgpu__array_end(ctx, func, s);
}

gpgpu_status gpgpu_array_write(gpgpu_context *ctx, gpgpu_array *a, size_t offset,
                               const void *host, size_t n)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "a", a));
    GPGPU__TRY(check_range(ctx, __func__, a, offset, host, n));
    return array_move(ctx, __func__, a, offset, (void *)(uintptr_t)host, n, 1);
}

gpgpu_status gpgpu_array_read(gpgpu_context *ctx, const gpgpu_array *a, size_t offset,
                              void *host, size_t n)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "a", a));
    GPGPU__TRY(check_range(ctx, __func__, a, offset, host, n));
    return array_move(ctx, __func__, a, offset, host, n, 0);
}
