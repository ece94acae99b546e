/*
 * bykey.c - gpgpu_reduce_by_key and gpgpu_scan_by_key: the runs of equal
 * keys become segments (kernels/bykey.cl: run heads, an inclusive scan of
 * them with the library's scan, each run's start scattered to its rank),
 * then the segmented reduce or scan of segmented.c runs over the values.
 * The number of runs is read back between the two (the host API waits for
 * its results anyway).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "segmented.h"

static int key_type_ok(gpgpu_type t)
{
    return t == GPGPU_I32 || t == GPGPU_U32 || t == GPGPU_I64 || t == GPGPU_U64;
}

/* Do [a, a + abytes) and [b, b + bbytes) share a byte? */
static int overlap(const void *a, size_t abytes, const void *b, size_t bbytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return abytes && bbytes && x < y + bbytes && y < x + abytes;
}

/* The runs of keys[0 .. n) on the device: offs[0 .. runs] their starts
   (and n), keys_out[r] run r's key when keys_out is not NULL, and the
   number of runs in *runs. rank is n cl_uint of scratch. */
static gpgpu_status runs_find(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys, size_t n,
                              cl_mem rank, cl_mem offs, cl_mem keys_out, size_t *runs)
{
    char opts[512];
    const char *extra = NULL;
    gpgpu__program *prog;
    GPGPU__TRY(gpgpu__type_op_options(ctx, key_type, GPGPU_SUM, opts, sizeof opts, &extra));
    GPGPU__TRY(gpgpu__program_get(ctx, "bykey", NULL, opts, &prog));
    const size_t wg = ctx->tune.wg;
    size_t groups = (n + wg - 1) / wg;
    if (groups > (ctx->tune.chunked ? 1 : 16) * ctx->tune.groups)
        groups = (ctx->tune.chunked ? 1 : 16) * ctx->tune.groups;
    cl_ulong count = n;
    cl_int with_keys = keys_out != NULL;
    cl_mem kout = keys_out ? keys_out : keys;
    GPGPU__TRY(gpgpu__run(ctx, prog, "bykey_heads", groups * wg, wg, GPGPU__ARG(keys),
                          GPGPU__ARG(count), GPGPU__ARG(rank), GPGPU__END));
    GPGPU__TRY(gpgpu__scan_enqueue(ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, rank, 0, rank, 0,
                                   n, NULL, 0));
    /* The count of runs goes to offs[n + 1], after the n + 1 offsets. */
    cl_mem nruns;
    cl_ulong r = 0;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, sizeof r, &nruns));
    GPGPU__TRY(gpgpu__run(ctx, prog, "bykey_scatter", groups * wg, wg, GPGPU__ARG(keys),
                          GPGPU__ARG(count), GPGPU__ARG(rank), GPGPU__ARG(offs),
                          GPGPU__ARG(kout), GPGPU__ARG(with_keys), GPGPU__ARG(nruns),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__read(ctx, nruns, 0, sizeof r, &r));
    *runs = (size_t)r;
    return GPGPU_SUCCESS;
}

/* The device half of both entry points, ctx locked. reduce: keys_out and
   values_out get the runs' keys and values, *nruns their number; scan:
   out gets the values scanned per run. */
static gpgpu_status bykey_host_api(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                   gpgpu_type value_type, gpgpu_op op, int scan,
                                   gpgpu_scan_kind kind, const void *values, size_t n,
                                   void *keys_out, void *out, size_t *nruns)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    GPGPU__TRY(gpgpu__type_supported(ctx, key_type));
    GPGPU__TRY(gpgpu__check_type_op(ctx, value_type, op));
    if (n == 0)
        return GPGPU_SUCCESS;
    if (n > UINT32_MAX)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "n = %zu: the by-key primitives take at most 2^32 - 1 elements "
                           "on an OpenCL device", n);
    cl_mem kbuf, vbuf, rank, offs, kout = NULL, vout;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, n * ksize, &kbuf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, n * vsize, &vbuf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS, n * sizeof(cl_uint), &rank));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, (n + 1) * sizeof(cl_ulong), &offs));
    if (!scan)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, n * ksize, &kout));
    GPGPU__TRY(gpgpu__write(ctx, kbuf, 0, n * ksize, keys));
    GPGPU__TRY(gpgpu__write(ctx, vbuf, 0, n * vsize, values));
    size_t runs;
    GPGPU__TRY(runs_find(ctx, key_type, kbuf, n, rank, offs, kout, &runs));
    if (scan) {
        vout = vbuf; /* in place: each element is read before it is written */
    } else {
        /* runs_find's count lives in the OUT slot: read, so free to grow. */
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, runs * vsize, &vout));
    }
    gpgpu__segments sg = { vbuf, 0, offs, 0, runs, 0, n, vout, 0, n / runs };
    GPGPU__TRY(gpgpu__segmented_enqueue(ctx, value_type, op, scan, kind, &sg));
    if (scan)
        return gpgpu__read(ctx, vout, 0, n * vsize, out);
    GPGPU__TRY(gpgpu__read(ctx, kout, 0, runs * ksize, keys_out));
    GPGPU__TRY(gpgpu__read(ctx, vout, 0, runs * vsize, out));
    *nruns = runs;
    return GPGPU_SUCCESS;
}

/* Checks both entry points share. */
static gpgpu_status bykey_check(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                gpgpu_type value_type, gpgpu_op op, const void *values,
                                size_t n)
{
    GPGPU__CHECK_ARG(NULL, ctx != NULL);
    GPGPU__CHECK_ARG(ctx, key_type_ok(key_type));
    GPGPU__CHECK_ARG(ctx, gpgpu__type(value_type) != NULL);
    GPGPU__CHECK_ARG(ctx, GPGPU__VALID_OP(op));
    GPGPU__CHECK_ARG(ctx, n == 0 || (keys != NULL && values != NULL));
    GPGPU__CHECK_ARG(ctx, n <= PTRDIFF_MAX / 8 - 1);
    GPGPU__CHECK_ARG(ctx, GPGPU__ALIGNED(keys, key_type) && GPGPU__ALIGNED(values, value_type));
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_reduce_by_key(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                 gpgpu_type value_type, gpgpu_op op, const void *values,
                                 size_t n, void *keys_out, void *values_out, size_t *nruns)
{
    GPGPU__TRY(bykey_check(ctx, key_type, keys, value_type, op, values, n));
    GPGPU__CHECK_ARG(ctx, nruns != NULL);
    GPGPU__CHECK_ARG(ctx, n == 0 || (keys_out != NULL && values_out != NULL));
    GPGPU__CHECK_ARG(ctx, GPGPU__ALIGNED(keys_out, key_type) &&
                              GPGPU__ALIGNED(values_out, value_type));
    const size_t kb = n * gpgpu__type(key_type)->size, vb = n * gpgpu__type(value_type)->size;
    GPGPU__CHECK_ARG(ctx, !overlap(keys_out, kb, keys, kb) && !overlap(keys_out, kb, values, vb) &&
                              !overlap(values_out, vb, keys, kb) &&
                              !overlap(values_out, vb, values, vb) &&
                              !overlap(keys_out, kb, values_out, vb));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        *nruns = gpgpu__host_reduce_by_key(key_type, keys, value_type, op, values, n, keys_out,
                                           values_out);
        return GPGPU_SUCCESS;
    }
    size_t runs = 0;
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = gpgpu__host_call_end(ctx, "gpgpu_reduce_by_key",
                                          bykey_host_api(ctx, key_type, keys, value_type, op, 0,
                                                         GPGPU_EXCLUSIVE, values, n, keys_out,
                                                         values_out, &runs));
    if (s == GPGPU_SUCCESS)
        *nruns = runs;
    return s;
}

gpgpu_status gpgpu_scan_by_key(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                               gpgpu_type value_type, gpgpu_op op, gpgpu_scan_kind kind,
                               const void *values, void *out, size_t n)
{
    GPGPU__TRY(bykey_check(ctx, key_type, keys, value_type, op, values, n));
    GPGPU__CHECK_ARG(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE);
    GPGPU__CHECK_ARG(ctx, out != NULL || n == 0);
    GPGPU__CHECK_ARG(ctx, GPGPU__ALIGNED(out, value_type));
    const size_t kb = n * gpgpu__type(key_type)->size, vb = n * gpgpu__type(value_type)->size;
    GPGPU__CHECK_ARG(ctx, (out == values || !overlap(out, vb, values, vb)) &&
                              !overlap(out, vb, keys, kb));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        gpgpu__host_scan_by_key(key_type, keys, value_type, op, kind, values, out, n);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_scan_by_key",
                                bykey_host_api(ctx, key_type, keys, value_type, op, 1, kind,
                                               values, n, NULL, out, NULL));
}
