/* reduce.c - reduce: argument checks, plan, program, passes.
   Pass 0 has each of up to tune.groups work-groups combine a share of the
   input into one partial; pass 1 (only with more than one group) combines
   the partials with one group. The shape depends only on n and the device,
   so float results are reproducible bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

/* Below this many elements per work item a group is not worth launching. */
enum { MIN_PER_ITEM = 64 };

static size_t groups_for(const gpgpu_context *ctx, size_t n)
{
    size_t per_group = ctx->tune.wg * MIN_PER_ITEM;
    size_t g = (n + per_group - 1) / per_group;
    if (g > ctx->tune.groups)
        g = ctx->tune.groups;
    return g ? g : 1;
}

/* The program for (t, op, map); map NULL for none. */
static gpgpu_status reduce_program(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                   const char *map, gpgpu__program **prog)
{
    char options[128];
    const char *op_src;
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, op, options, sizeof options, &op_src));
    if (!map)
        return gpgpu__program_get(ctx, "reduce", op_src, options, prog);
    size_t len = (op_src ? strlen(op_src) : 0) + strlen(map) + 32;
    char *extra = gpgpu__malloc(len);
    if (!extra)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    snprintf(extra, len, "%s\n#define MAP (%s)\n", op_src ? op_src : "", map);
    gpgpu_status s = gpgpu__program_get(ctx, "reduce", extra, options, prog);
    free(extra);
    return s;
}

gpgpu_status gpgpu__reduce_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                   const char *map, cl_mem in, size_t in_off, size_t n,
                                   cl_mem result, size_t result_off)
{
    gpgpu__program *first, *rest;
    if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float)
        return gpgpu__sum_exact_enqueue(ctx, t, map, in, in_off, n, result, result_off);
    if (op == GPGPU_SUM_EXACT)
        op = GPGPU_SUM;
    GPGPU__TRY(reduce_program(ctx, t, op, map, &first));
    GPGPU__TRY(reduce_program(ctx, t, op, NULL, &rest));
    const size_t wg = ctx->tune.wg, size = gpgpu__type(t)->size;
    const size_t groups = groups_for(ctx, n);
    cl_ulong off = in_off, count = n, roff = result_off, zero = 0, ng = groups;
    if (groups == 1)
        return gpgpu__run(ctx, first, "reduce_pass", wg, wg, GPGPU__ARG(in), GPGPU__ARG(off),
                          GPGPU__ARG(count), GPGPU__ARG(result), GPGPU__ARG(roff), GPGPU__END);
    cl_mem partials;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, groups * size, &partials));
    GPGPU__TRY(gpgpu__run(ctx, first, "reduce_pass", groups * wg, wg, GPGPU__ARG(in),
                          GPGPU__ARG(off), GPGPU__ARG(count), GPGPU__ARG(partials),
                          GPGPU__ARG(zero), GPGPU__END));
    return gpgpu__run(ctx, rest, "reduce_pass", wg, wg, GPGPU__ARG(partials), GPGPU__ARG(zero),
                      GPGPU__ARG(ng), GPGPU__ARG(result), GPGPU__ARG(roff), GPGPU__END);
}

gpgpu_status gpgpu__check_reduce(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                 gpgpu_op op)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__REQUIRE(ctx, GPGPU__REDUCE_OP(op), func,
                   "op is %d; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX, GPGPU_SUM_EXACT or an "
                   "operator from gpgpu_op_define", (int)op);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__reduce_buffer_call(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                       gpgpu_op op, const char *map, cl_mem in,
                                       size_t in_offset, size_t n, cl_mem result,
                                       size_t result_offset, cl_uint num_wait,
                                       const cl_event *wait, cl_event *done)
{
    GPGPU__REQUIRE(ctx, in != NULL || n == 0, func,
                   "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, result != NULL, func, "result is NULL; need a buffer for the result");
    GPGPU__TRY(gpgpu__check_wait(ctx, func, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", func);
    const size_t size = gpgpu__type(t)->size;
    if (in)
        GPGPU__TRY(gpgpu__check_range(ctx, func, "in", in, in_offset, n, size));
    GPGPU__TRY(gpgpu__check_range(ctx, func, "result", result, result_offset, 1, size));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    cl_mem src = in;
    gpgpu_status s = GPGPU_SUCCESS;
    if (!src) /* n == 0 without a buffer: any buffer serves, nothing is read */
        s = gpgpu__scratch(ctx, GPGPU__SLOT_IN, 16, &src);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__reduce_enqueue(ctx, t, op, map, src, in_offset, n, result, result_offset);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_reduce_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, cl_mem in,
                                 size_t in_offset, size_t n, cl_mem result,
                                 size_t result_offset, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_reduce(ctx, __func__, t, op));
    return gpgpu__reduce_buffer_call(ctx, __func__, t, op, NULL, in, in_offset, n, result,
                                     result_offset, num_wait, wait, done);
}

/* Host memory in, one element out. Inputs larger than one device allocation
   go through in chunks whose results are reduced in turn. */
static gpgpu_status reduce_host_api(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                    const char *map, const void *in, size_t n, void *result)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t chunk = gpgpu__chunk_elems(ctx, size);
    const size_t nchunks = n ? (n + chunk - 1) / chunk : 1;
    cl_mem buf, partials, out;
    if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float) /* chunks' limbs, not sums */
        return gpgpu__sum_exact_host_api(ctx, t, map, in, n, result);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, size, &out));
    if (gpgpu__in_place(ctx, n * size)) {
        size_t offset;
        GPGPU__TRY(gpgpu__host_view(ctx, in, n * size, 0, &buf, &offset));
        gpgpu__note_route(ctx, "zero-copy");
        gpgpu_status s = gpgpu__reduce_enqueue(ctx, t, op, map, buf, offset / size, n, out, 0);
        if (s == GPGPU_SUCCESS)
            s = gpgpu__read(ctx, out, 0, size, result);
        clReleaseMemObject(buf); /* OpenCL keeps it until its commands end */
        return s;
    }
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (n < chunk ? n : chunk) * size, &buf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, nchunks * size, &partials));
    for (size_t c = 0; c < nchunks; c++) {
        size_t first = c * chunk, len = n - first < chunk ? n - first : chunk;
        GPGPU__TRY(gpgpu__upload(ctx, buf, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__reduce_enqueue(ctx, t, op, map, buf, 0, len,
                                         nchunks == 1 ? out : partials, c));
        if (nchunks > 1) /* the next write reuses buf: wait for this pass */
            GPGPU__TRY(gpgpu__finish(ctx));
    }
    if (nchunks > 1)
        GPGPU__TRY(gpgpu__reduce_enqueue(ctx, t, op, NULL, partials, 0, nchunks, out, 0));
    return gpgpu__read(ctx, out, 0, size, result);
}

gpgpu_status gpgpu__reduce_host_call(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                     const char *map, const void *in, size_t n, void *result)
{
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, map ? "gpgpu_transform_reduce" : "gpgpu_reduce",
                                reduce_host_api(ctx, t, op, map, in, n, result));
}

gpgpu_status gpgpu_reduce(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, const void *in,
                          size_t n, void *result)
{
    GPGPU__TRY(gpgpu__check_reduce(ctx, __func__, t, op));
    GPGPU__REQUIRE(ctx, result != NULL, __func__, "result is NULL; need room for one element");
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, size, 1, size));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float)
            gpgpu__host_sum_exact(t, in, n, result);
        else
            gpgpu__host_reduce(t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in, n, result);
        return GPGPU_SUCCESS;
    }
    /* Integer results and exact sums are the same bits in any order, so
       calls the plan keeps on the host (host-below), and calls where the
       host's cores beat the bus, run on the host. Floats stay on the device
       unless the plan's reduce-f says otherwise: their bits follow the
       combining order, the same whichever route the data takes. */
    const int is_float = gpgpu__type(t)->is_float;
    if (op == GPGPU_SUM_EXACT && is_float && gpgpu__host_below(ctx, GPGPU__HB_SUM_EXACT, n)) {
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_sum_exact(t, in, n, result);
        return GPGPU_SUCCESS;
    }
    /* Float sums of the chunked layout below the plan's sum-f: the kernels'
       own tree on the calling thread, the same bits without the launches. */
    if (op == GPGPU_SUM && is_float && ctx->tune.chunked &&
        gpgpu__host_below(ctx, GPGPU__HB_SUM_F, n)) {
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
        if (gpgpu__host_sum_tree(t, in, n, ctx->tune.wg, groups_for(ctx, n), result))
            return GPGPU_SUCCESS;
    }
    if (op < GPGPU_OP_USER && op != GPGPU_SUM_EXACT && is_float &&
        gpgpu__host_below(ctx, GPGPU__HB_REDUCE_F, n)) {
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_reduce(t, op, in, n, result);
        return GPGPU_SUCCESS;
    }
    if (op < GPGPU_OP_USER && !is_float &&
        (gpgpu__host_below(ctx, GPGPU__HB_REDUCE, n) || gpgpu__host_reads(ctx, in, n * size))) {
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_reduce(t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in, n, result);
        return GPGPU_SUCCESS;
    }
    return gpgpu__reduce_host_call(ctx, t, op, NULL, in, n, result);
}

/* ---- reduce and transform_reduce ---------------------------------------------- */

/* Both reduces once checked (map NULL: none, else clean): the result goes
   through a scratch slot and one blocking read. */
static gpgpu_status array_reduce(gpgpu_context *ctx, const char *func, gpgpu_op op,
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

/* What both reduces check of their arrays, operator and result. */
static gpgpu_status array_reduce_checks(gpgpu_context *ctx, const char *func, gpgpu_op op,
                                        const gpgpu_array *in, const void *result)
{
    GPGPU__TRY(gpgpu__array_check(ctx, func, "in", in));
    GPGPU__REQUIRE(ctx, GPGPU__REDUCE_OP(op), func,
                   "op is %d; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX, GPGPU_SUM_EXACT or an "
                   "operator from gpgpu_op_define", (int)op);
    GPGPU__REQUIRE(ctx, result != NULL, func, "result is NULL; need room for one element");
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_reduce_array(gpgpu_context *ctx, gpgpu_op op, const gpgpu_array *in,
                                void *result)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(array_reduce_checks(ctx, __func__, op, in, result));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__array_needs_device(ctx, __func__);
        if (op == GPGPU_SUM_EXACT && gpgpu__type(in->t)->is_float)
            gpgpu__host_sum_exact(in->t, in->host, in->n, result);
        else
            gpgpu__host_reduce(in->t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in->host, in->n,
                               result);
        return GPGPU_SUCCESS;
    }
    return array_reduce(ctx, __func__, op, NULL, in, result);
}

gpgpu_status gpgpu_transform_reduce_array(gpgpu_context *ctx, const char *map, gpgpu_op op,
                                          const gpgpu_array *in, void *result)
{
    char m[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, map != NULL, __func__,
                   "map is NULL");
    GPGPU__TRY(array_reduce_checks(ctx, __func__, op, in, result));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "map", map, m));
    if (ctx->host && op >= GPGPU_OP_USER)
        return gpgpu__array_needs_device(ctx, __func__);
    if (ctx->host) {
        char why[GPGPU__EXPR_WHY] = "";
        gpgpu_status s = gpgpu__transform_reduce_host(ctx, in->t, m, op, in->host, in->n,
                                                      result, why);
        return s != GPGPU_ERROR_UNSUPPORTED ? s : gpgpu__expr_refused(ctx, __func__, 0, why);
    }
    return array_reduce(ctx, __func__, op, m, in, result);
}
