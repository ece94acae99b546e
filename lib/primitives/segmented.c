/*
 * segmented.c - gpgpu_segmented_reduce, gpgpu_segmented_scan,
 * gpgpu_reduce_index and their _buffer forms: argument checks, plan,
 * program, passes (kernels/segmented.cl says how the passes split the work).
 *
 * Strategy by segment length: on a GPU, segments averaging fewer than
 * ITEM_SEG_MAX elements get one work item each; a reduce gives longer ones
 * a team of 32 items (a warp) each, and from GROUP_SEG_MIN on a work-group
 * each when there are enough of them to fill the device. Otherwise (and
 * always on a CPU) the elements are cut into equal chunks, one per
 * work-group (GPU) or work item (CPU), so that a long segment is shared by
 * many units and many short ones are walked by one. The average is all the
 * _buffer forms know (the offsets are on the device): as with CUB's
 * segmented reduce, a few very long segments among short ones leave the
 * per-segment kernels unbalanced.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "segmented.h"

/* GPUs: below ITEM_SEG_MAX elements on average a segment is one work
   item's; below GROUP_SEG_MIN (reduce) a team's of 32 items; from there on
   a group's, given at least one segment per group the plan launches. */
enum { ITEM_SEG_MAX = 32, GROUP_SEG_MIN = 1024 };
/* Elements a unit should have at least: CPUs per work item, GPUs per
   work-group item (a group's chunk is WG times that). */
enum { MIN_PER_ITEM = 1024, MIN_PER_GROUP_ITEM = 16 };

gpgpu_status gpgpu__check_type_op(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op)
{
    char opts[512];
    const char *extra = NULL;
    if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float)
        GPGPU__TRY(gpgpu__type_supported(ctx, GPGPU_I64)); /* the limbs */
    return gpgpu__type_op_options(ctx, t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, opts,
                                  sizeof opts, &extra);
}

gpgpu_status gpgpu__check_reduce_op(gpgpu_context *ctx, const char *func, gpgpu_op op)
{
    if (op == GPGPU_SUM_EXACT)
        return GPGPU_SUCCESS;
    return gpgpu__check_op(ctx, func, op);
}

gpgpu_status gpgpu__segmented_program(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                      gpgpu__program **prog)
{
    char opts[512];
    const char *extra = NULL;
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, op, opts, sizeof opts, &extra));
    return gpgpu__program_get(ctx, "segmented", extra, opts, prog);
}

/* Whether a host call over n elements of t runs the host's own code
   (the plan's host-below; floats by reduce-f: their bits follow the
   combining order). */
static int host_below(const gpgpu_context *ctx, gpgpu_type t, int scan, size_t n)
{
    return gpgpu__host_below(ctx, gpgpu__type(t)->is_float ? GPGPU__HB_REDUCE_F
                                  : scan                   ? GPGPU__HB_SEG_SCAN
                                                           : GPGPU__HB_SEGMENTED, n);
}

/* Units (work items on a CPU, groups on a GPU) for about total elements. */
static size_t seg_units(const gpgpu_context *ctx, size_t total)
{
    const size_t wg = ctx->tune.wg;
    if (ctx->tune.chunked) {
        size_t groups = gpgpu__div_up(total, wg * MIN_PER_ITEM);
        if (groups > ctx->tune.groups)
            groups = ctx->tune.groups;
        return wg * (groups ? groups : 1);
    }
    size_t groups = gpgpu__div_up(total, wg * MIN_PER_GROUP_ITEM);
    if (groups > 4 * ctx->tune.groups)
        groups = 4 * ctx->tune.groups;
    return groups ? groups : 1;
}

/* One of the one-pass reduce kernels (items, teams, groups) over sg. */
static gpgpu_status seg_reduce_launch(gpgpu_context *ctx, gpgpu__program *prog,
                                      const char *kernel, size_t groups,
                                      const gpgpu__segments *sg)
{
    const size_t wg = ctx->tune.wg;
    return gpgpu__run(ctx, prog, kernel, groups * wg, wg, GPGPU__ARG(sg->in),
                      GPGPU__ARG(sg->in_off), GPGPU__ARG(sg->offs), GPGPU__ARG(sg->offs_off),
                      GPGPU__ARG(sg->nseg), GPGPU__ARG(sg->base), GPGPU__ARG(sg->limit),
                      GPGPU__ARG(sg->out), GPGPU__ARG(sg->out_off), GPGPU__END);
}

gpgpu_status gpgpu__segmented_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                      int scan, gpgpu_scan_kind kind,
                                      const gpgpu__segments *sg)
{
    if (sg->nseg == 0)
        return GPGPU_SUCCESS;
    if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float && !scan) {
        /* a work item per segment, its own limbs (kernels/sum_exact.cl);
           at most 2^31 items, within every device's grid */
        gpgpu__program *exact;
        const size_t wg = ctx->tune.wg, most = (size_t)1 << 31;
        size_t global = gpgpu__div_up(sg->nseg, wg) * wg;
        GPGPU__TRY(gpgpu__sum_exact_program(ctx, t, &exact));
        return gpgpu__run(ctx, exact, "sum_exact_segments", global < most ? global : most,
                          wg, GPGPU__ARG(sg->in), GPGPU__ARG(sg->in_off), GPGPU__ARG(sg->offs),
                          GPGPU__ARG(sg->offs_off), GPGPU__ARG(sg->nseg), GPGPU__ARG(sg->base),
                          GPGPU__ARG(sg->limit), GPGPU__ARG(sg->out), GPGPU__ARG(sg->out_off),
                          GPGPU__ARG(sg->count), GPGPU__ARG(sg->count_off), GPGPU__END);
    }
    if (op == GPGPU_SUM_EXACT)
        op = GPGPU_SUM;
    gpgpu__program *prog;
    GPGPU__TRY(gpgpu__segmented_program(ctx, t, op, &prog));
    const size_t wg = ctx->tune.wg, size = gpgpu__type(t)->size;
    cl_int inclusive = kind == GPGPU_INCLUSIVE, write_out = !scan, end_empties = !sg->pad_end;
    if (!ctx->tune.chunked && !sg->pad_end && sg->avg_len < ITEM_SEG_MAX) {
        size_t groups = gpgpu__div_up(sg->nseg, wg);
        if (groups > 16 * ctx->tune.groups)
            groups = 16 * ctx->tune.groups;
        if (scan)
            return gpgpu__run(ctx, prog, "seg_scan_items", groups * wg, wg,
                              GPGPU__ARG(sg->in), GPGPU__ARG(sg->in_off), GPGPU__ARG(sg->offs),
                              GPGPU__ARG(sg->offs_off), GPGPU__ARG(sg->nseg),
                              GPGPU__ARG(sg->base), GPGPU__ARG(sg->limit),
                              GPGPU__ARG(sg->out), GPGPU__ARG(sg->out_off),
                              GPGPU__ARG(inclusive), GPGPU__END);
        return seg_reduce_launch(ctx, prog, "seg_reduce_items", groups, sg);
    }
    if (!ctx->tune.chunked && !sg->pad_end && !scan && sg->avg_len < GROUP_SEG_MIN) {
        size_t groups = gpgpu__div_up(sg->nseg, wg / 32 ? wg / 32 : 1);
        if (groups > 8 * ctx->tune.groups)
            groups = 8 * ctx->tune.groups;
        return seg_reduce_launch(ctx, prog, "seg_reduce_teams", groups, sg);
    }
    if (!ctx->tune.chunked && !sg->pad_end && !scan && sg->nseg >= ctx->tune.groups) {
        size_t groups = sg->nseg < 32 * ctx->tune.groups ? sg->nseg : 32 * ctx->tune.groups;
        return seg_reduce_launch(ctx, prog, "seg_reduce_groups", groups, sg);
    }
    const cl_ulong units = seg_units(ctx, sg->avg_len * sg->nseg);
    const size_t global = ctx->tune.chunked ? units : units * wg;
    cl_mem part, meta;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, 2 * units * size, &part));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, units * sizeof(cl_ulong), &meta));
    GPGPU__TRY(gpgpu__run(ctx, prog, "seg_chunks", global, wg, GPGPU__ARG(sg->in),
                          GPGPU__ARG(sg->in_off), GPGPU__ARG(sg->offs),
                          GPGPU__ARG(sg->offs_off), GPGPU__ARG(sg->nseg), GPGPU__ARG(sg->base),
                          GPGPU__ARG(sg->limit), GPGPU__ARG(sg->out), GPGPU__ARG(sg->out_off),
                          GPGPU__ARG(write_out), GPGPU__ARG(end_empties), GPGPU__ARG(part),
                          GPGPU__ARG(meta), GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, prog, "seg_carry", wg, wg, GPGPU__ARG(part), GPGPU__ARG(meta),
                          GPGPU__ARG(units), GPGPU__ARG(sg->out), GPGPU__ARG(sg->out_off),
                          GPGPU__ARG(write_out), GPGPU__END));
    if (!scan)
        return GPGPU_SUCCESS;
    return gpgpu__run(ctx, prog, "seg_scan_chunks", global, wg, GPGPU__ARG(sg->in),
                      GPGPU__ARG(sg->in_off), GPGPU__ARG(sg->offs), GPGPU__ARG(sg->offs_off),
                      GPGPU__ARG(sg->nseg), GPGPU__ARG(sg->base), GPGPU__ARG(sg->limit),
                      GPGPU__ARG(sg->out), GPGPU__ARG(sg->out_off), GPGPU__ARG(inclusive),
                      GPGPU__ARG(part), GPGPU__END);
}

/* ---- host memory ------------------------------------------------------------- */

gpgpu_status gpgpu__offsets_check(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                  const size_t *offsets, size_t nseg, size_t *total)
{
    *total = 0;
    if (nseg == 0)
        return GPGPU_SUCCESS;
    for (size_t s = 0; s < nseg; s++)
        if (offsets[s + 1] < offsets[s])
            return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                               "%s: offsets[%zu] = %zu is less than offsets[%zu] = %zu "
                               "(offsets must not decrease)", func, s + 1, offsets[s + 1], s,
                               offsets[s]);
    if (offsets[nseg] > PTRDIFF_MAX / gpgpu__type(t)->size)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: offsets[%zu] = %zu elements exceeds PTRDIFF_MAX bytes", func,
                           nseg, offsets[nseg]);
    *total = offsets[nseg] - offsets[0];
    return GPGPU_SUCCESS;
}

/* Copies the offsets to a device buffer of cl_ulong (slot SORT_VALUES). */
static gpgpu_status offsets_upload(gpgpu_context *ctx, const size_t *offsets, size_t nseg,
                                   cl_mem *buf)
{
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, (nseg + 1) * sizeof(cl_ulong), buf));
    if (sizeof(size_t) == sizeof(cl_ulong))
        return gpgpu__write(ctx, *buf, 0, (nseg + 1) * sizeof(cl_ulong), offsets);
    for (size_t s = 0; s <= nseg; s++) {
        cl_ulong v = offsets[s];
        GPGPU__TRY(gpgpu__write(ctx, *buf, s * sizeof v, sizeof v, &v));
        GPGPU__TRY(gpgpu__finish(ctx));
    }
    return GPGPU_SUCCESS;
}

/* Devices that share host memory, the reduce and an out-of-place scan:
   the kernels read the spanned elements and the offsets where they are and
   write the results into out (an in-place scan takes the copy below, so
   that a failure half way cannot leave in changed). 0: not taken. */
static gpgpu_status segmented_in_place(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, int scan,
                                       gpgpu_scan_kind kind, const void *in, void *out,
                                       const size_t *offsets, size_t nseg, size_t total,
                                       int *taken)
{
    const size_t size = gpgpu__type(t)->size, first = offsets[0], outs = scan ? total : nseg;
    *taken = sizeof(size_t) == sizeof(cl_ulong) && !(scan && in == out) &&
             gpgpu__in_place(ctx, total * size) && gpgpu__in_place(ctx, outs * size) &&
             gpgpu__in_place(ctx, (nseg + 1) * sizeof(cl_ulong));
    if (!*taken)
        return GPGPU_SUCCESS;
    cl_mem vin = NULL, voffs = NULL, vout = NULL;
    size_t oin = 0, ooffs = 0, oout = 0;
    char *o = (char *)out + (scan ? first * size : 0);
    gpgpu_status s = gpgpu__host_view(ctx, (const char *)in + first * size, total * size, 0,
                                      &vin, &oin);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, offsets, (nseg + 1) * sizeof(cl_ulong), 0, &voffs, &ooffs);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, o, outs * size, 1, &vout, &oout);
    if (s == GPGPU_SUCCESS) {
        gpgpu__segments sg = { vin, oin / size, voffs, ooffs / sizeof(cl_ulong), nseg, first,
                               offsets[nseg], vout, oout / size, total / nseg, 0, NULL, 0 };
        gpgpu__note_route(ctx, "zero-copy");
        s = gpgpu__segmented_enqueue(ctx, t, op, scan, kind, &sg);
    }
    if (s == GPGPU_SUCCESS)
        s = gpgpu__finish(ctx); /* the results in out before the views go */
    if (vin)
        clReleaseMemObject(vin);
    if (voffs)
        clReleaseMemObject(voffs);
    if (vout)
        clReleaseMemObject(vout);
    return s;
}

/* The device half of both host entry points, ctx locked: the elements the
   segments span go to the device (only those), the results come back. */
static gpgpu_status segmented_host_api(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, int scan,
                                       gpgpu_scan_kind kind, const void *in, void *out,
                                       const size_t *offsets, size_t nseg, size_t total)
{
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_type_op(ctx, t, op));
    if (nseg == 0 || (scan && total == 0))
        return GPGPU_SUCCESS;
    const size_t first = offsets[0], outs = scan ? total : nseg;
    int taken;
    if (total > 0) {
        GPGPU__TRY(segmented_in_place(ctx, t, op, scan, kind, in, out, offsets, nseg, total,
                                      &taken));
        if (taken)
            return GPGPU_SUCCESS;
    }
    gpgpu__segments sg = { 0 };
    GPGPU__TRY(offsets_upload(ctx, offsets, nseg, &sg.offs));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (total ? total : 1) * size, &sg.in));
    if (total)
        GPGPU__TRY(gpgpu__upload(ctx, sg.in, 0, total * size, (const char *)in + first * size));
    if (scan)
        sg.out = sg.in; /* in place on the device: each element is read before it is written */
    else
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, outs * size, &sg.out));
    sg.nseg = nseg;
    sg.base = first;
    sg.limit = offsets[nseg];
    sg.avg_len = total / nseg;
    GPGPU__TRY(gpgpu__segmented_enqueue(ctx, t, op, scan, kind, &sg));
    /* in place: all or nothing, so that a failed call leaves in as it was */
    return gpgpu__download(ctx, sg.out, 0, outs * size, (char *)out + (scan ? first * size : 0),
                           in == out);
}

/* Do [a, a + bytes) and [b, b + bytes) overlap without being the same range? */
static int partial_overlap(uintptr_t a, uintptr_t b, size_t bytes)
{
    return a != b && a < b + bytes && b < a + bytes;
}

gpgpu_status gpgpu_segmented_reduce(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                    const void *in, const size_t *offsets, size_t nseg,
                                    void *out)
{
    size_t total;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(gpgpu__check_reduce_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, offsets != NULL || nseg == 0, __func__,
                   "offsets is NULL with nseg = %zu; it may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, out != NULL || nseg == 0, __func__,
                   "out is NULL with nseg = %zu; it may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, nseg <= PTRDIFF_MAX / sizeof(cl_ulong) - 1, __func__,
                   "nseg is %zu; at most %zu", nseg, (size_t)PTRDIFF_MAX / sizeof(cl_ulong) - 1);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(out, t), __func__,
                   "in is %p and out is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)out);
    GPGPU__REQUIRE(ctx, (uintptr_t)offsets % sizeof(size_t) == 0, __func__,
                   "offsets is %p; it must be aligned to %zu bytes, the size of one element", (const void *)offsets, (size_t)(sizeof(size_t)));
    GPGPU__TRY(gpgpu__offsets_check(ctx, __func__, t, offsets, nseg, &total));
    GPGPU__REQUIRE(ctx, in != NULL || total == 0, __func__,
                   "in is NULL while the segments cover %zu elements; it may be NULL only when they cover none", total);
    if (ctx->host || (op < GPGPU_OP_USER && host_below(ctx, t, 0, total))) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        if (!ctx->host)
            GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_segmented_reduce(t, op, in, offsets, nseg, out);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_segmented_reduce",
                                segmented_host_api(ctx, t, op, 0, GPGPU_EXCLUSIVE, in, out,
                                                   offsets, nseg, total));
}

gpgpu_status gpgpu_segmented_scan(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                  gpgpu_scan_kind kind, const void *in, void *out,
                                  const size_t *offsets, size_t nseg)
{
    size_t total;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(gpgpu__check_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__REQUIRE(ctx, offsets != NULL || nseg == 0, __func__,
                   "offsets is NULL with nseg = %zu; it may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, nseg <= PTRDIFF_MAX / sizeof(cl_ulong) - 1, __func__,
                   "nseg is %zu; at most %zu", nseg, (size_t)PTRDIFF_MAX / sizeof(cl_ulong) - 1);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(out, t), __func__,
                   "in is %p and out is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)out);
    GPGPU__REQUIRE(ctx, (uintptr_t)offsets % sizeof(size_t) == 0, __func__,
                   "offsets is %p; it must be aligned to %zu bytes, the size of one element", (const void *)offsets, (size_t)(sizeof(size_t)));
    GPGPU__TRY(gpgpu__offsets_check(ctx, __func__, t, offsets, nseg, &total));
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || total == 0, __func__,
                   "in or out is NULL while the segments cover %zu elements; they may be NULL only when they cover none", total);
    const size_t size = gpgpu__type(t)->size, first = nseg ? offsets[0] : 0;
    GPGPU__REQUIRE(ctx, total == 0 ||
                        !partial_overlap((uintptr_t)in + first * size,
                                         (uintptr_t)out + first * size, total * size), __func__,
                   "in and out partly overlap over the %zu elements the segments cover; they must be the same array or not overlap", total);
    if (ctx->host || (op < GPGPU_OP_USER && host_below(ctx, t, 1, total))) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        if (!ctx->host)
            GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_segmented_scan(t, op, kind, in, out, offsets, nseg);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_segmented_scan",
                                segmented_host_api(ctx, t, op, 1, kind, in, out, offsets, nseg,
                                                   total));
}

/* ---- device buffers ---------------------------------------------------------- */

/* Elements of elem bytes in buf from offset on (0 past its end). */
static size_t elems_from(cl_mem buf, size_t offset, size_t elem)
{
    size_t bytes = 0;
    clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    return bytes / elem > offset ? bytes / elem - offset : 0;
}

/* Range checks, lock, enqueue and event shared by both _buffer forms. */
static gpgpu_status segmented_buffer_call(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                          gpgpu_op op, int scan, gpgpu_scan_kind kind,
                                          gpgpu__segments *sg, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done)
{
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", func);
    const size_t size = gpgpu__type(t)->size;
    if (sg->nseg > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, func, "in", sg->in, sg->in_off, 0, size));
        GPGPU__TRY(gpgpu__check_range(ctx, func, "offsets", sg->offs, sg->offs_off,
                                      sg->nseg + 1, sizeof(cl_ulong)));
        GPGPU__TRY(gpgpu__check_range(ctx, func, "out", sg->out, sg->out_off,
                                      scan ? 0 : sg->nseg, size));
        sg->limit = elems_from(sg->in, sg->in_off, size);
        if (scan && elems_from(sg->out, sg->out_off, size) < sg->limit)
            sg->limit = elems_from(sg->out, sg->out_off, size);
        sg->avg_len = sg->limit / sg->nseg;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = gpgpu__check_type_op(ctx, t, op);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__segmented_enqueue(ctx, t, op, scan, kind, sg);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_segmented_reduce_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                           cl_mem in, size_t in_offset, cl_mem offsets,
                                           size_t offsets_offset, size_t nseg, cl_mem out,
                                           size_t out_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(gpgpu__check_reduce_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, nseg == 0 || (in != NULL && offsets != NULL && out != NULL), __func__,
                   "in, offsets, out: one is NULL with nseg = %zu; they may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, nseg <= PTRDIFF_MAX / sizeof(cl_ulong) - 1, __func__,
                   "nseg is %zu; at most %zu", nseg, (size_t)PTRDIFF_MAX / sizeof(cl_ulong) - 1);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    gpgpu__segments sg = { in, in_offset, offsets, offsets_offset, nseg, 0, 0,
                           out, out_offset, 0, 0, NULL, 0 };
    return segmented_buffer_call(ctx, __func__, t, op, 0, GPGPU_EXCLUSIVE, &sg, num_wait, wait,
                                 done);
}

gpgpu_status gpgpu_segmented_scan_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                         gpgpu_scan_kind kind, cl_mem in, size_t in_offset,
                                         cl_mem out, size_t out_offset, cl_mem offsets,
                                         size_t offsets_offset, size_t nseg, cl_uint num_wait,
                                         const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(gpgpu__check_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__REQUIRE(ctx, nseg == 0 || (in != NULL && offsets != NULL && out != NULL), __func__,
                   "in, offsets, out: one is NULL with nseg = %zu; they may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, nseg <= PTRDIFF_MAX / sizeof(cl_ulong) - 1, __func__,
                   "nseg is %zu; at most %zu", nseg, (size_t)PTRDIFF_MAX / sizeof(cl_ulong) - 1);
    GPGPU__REQUIRE(ctx, in != out || in_offset == out_offset, __func__,
                   "in and out are the same buffer with in_offset = %zu and out_offset = %zu; the same buffer is allowed only at the same offset", in_offset, out_offset);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    gpgpu__segments sg = { in, in_offset, offsets, offsets_offset, nseg, 0, 0,
                           out, out_offset, 0, 0, NULL, 0 };
    return segmented_buffer_call(ctx, __func__, t, op, 1, kind, &sg, num_wait, wait, done);
}

/* ---- reduce_index -------------------------------------------------------------- */

/* Below this many elements per work item a group is not worth launching. */
enum { INDEX_PER_ITEM = 64 };

/* (value, index) of in[in_off .. +n) into val[val_off] and idx[idx_off]:
   each group's partial, then one group over the partials. */
static gpgpu_status index_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, cl_mem in,
                                  cl_ulong in_off, cl_ulong n, cl_mem val, cl_ulong val_off,
                                  cl_mem idx, cl_ulong idx_off)
{
    gpgpu__program *prog;
    GPGPU__TRY(gpgpu__segmented_program(ctx, t, op, &prog));
    const size_t wg = ctx->tune.wg, size = gpgpu__type(t)->size;
    /* GPUs: two groups per plan group, so that a last wave that the
       registers leave partial costs little, while the one group of the
       second pass has few partials (about 8 per item) to read. */
    const size_t most = (ctx->tune.chunked ? 1 : 2) * ctx->tune.groups;
    size_t groups = gpgpu__div_up(n, wg * INDEX_PER_ITEM);
    if (groups > most)
        groups = most;
    cl_int plain = 0, partial = 1;
    cl_ulong zero = 0, ng = groups;
    if (groups <= 1)
        return gpgpu__run(ctx, prog, "index_pass", wg, wg, GPGPU__ARG(in), GPGPU__ARG(in_off),
                          GPGPU__ARG(n), GPGPU__ARG(idx), GPGPU__ARG(plain), GPGPU__ARG(val),
                          GPGPU__ARG(val_off), GPGPU__ARG(idx), GPGPU__ARG(idx_off),
                          GPGPU__END);
    cl_mem pv, pi;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, groups * size, &pv));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, groups * sizeof(cl_ulong), &pi));
    GPGPU__TRY(gpgpu__run(ctx, prog, "index_pass", groups * wg, wg, GPGPU__ARG(in),
                          GPGPU__ARG(in_off), GPGPU__ARG(n), GPGPU__ARG(pi), GPGPU__ARG(plain),
                          GPGPU__ARG(pv), GPGPU__ARG(zero), GPGPU__ARG(pi), GPGPU__ARG(zero),
                          GPGPU__END));
    return gpgpu__run(ctx, prog, "index_pass", wg, wg, GPGPU__ARG(pv), GPGPU__ARG(zero),
                      GPGPU__ARG(ng), GPGPU__ARG(pi), GPGPU__ARG(partial), GPGPU__ARG(val),
                      GPGPU__ARG(val_off), GPGPU__ARG(idx), GPGPU__ARG(idx_off), GPGPU__END);
}

static gpgpu_status index_check(gpgpu_context *ctx, const char *func, gpgpu_type t, gpgpu_op op)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__REQUIRE(ctx, op == GPGPU_MIN || op == GPGPU_MAX, func,
                   "op is %d; need GPGPU_MIN or GPGPU_MAX", (int)op);
    return GPGPU_SUCCESS;
}

/* Host memory in: the data goes through the device in chunks of what one
   allocation holds, each chunk's (value, index) combined here. */
/* (value, index) of in[off .. +n) back in host memory, through the
   result slot (one read for both; the slot is no enqueue's scratch).
   *index is SIZE_MAX for none. */
static gpgpu_status index_read(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, cl_mem in,
                               size_t off, size_t n, void *value, size_t *index)
{
    cl_mem res;
    cl_ulong got[2]; /* the value in the first word, the index in the second */
    GPGPU__TRY(gpgpu__array_result(ctx, sizeof got, &res));
    GPGPU__TRY(index_enqueue(ctx, t, op, in, off, n, res, 0, res, 1));
    GPGPU__TRY(gpgpu__read(ctx, res, 0, sizeof got, got));
    memcpy(value, got, gpgpu__type(t)->size);
    *index = got[1] == CL_ULONG_MAX ? SIZE_MAX : (size_t)got[1];
    return GPGPU_SUCCESS;
}

static gpgpu_status index_host_api(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                   const void *in, size_t n, void *value, size_t *index)
{
    const size_t size = gpgpu__type(t)->size, chunk = gpgpu__chunk_elems(ctx, size);
    cl_mem buf;
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    if (gpgpu__in_place(ctx, n * size)) { /* shared memory: read in where it is */
        size_t off;
        GPGPU__TRY(gpgpu__host_view(ctx, in, n * size, 0, &buf, &off));
        gpgpu__note_route(ctx, "zero-copy");
        gpgpu_status s = index_read(ctx, t, op, buf, off / size, n, value, index);
        clReleaseMemObject(buf);
        return s;
    }
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (n < chunk ? n : chunk) * size, &buf));
    unsigned char best[8];
    size_t at = SIZE_MAX;
    gpgpu__identity(t, op, best);
    for (size_t first = 0; first < n; first += chunk) {
        size_t len = n - first < chunk ? n - first : chunk, i;
        unsigned char v[8], both[16], winner[8];
        GPGPU__TRY(gpgpu__upload(ctx, buf, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(index_read(ctx, t, op, buf, 0, len, v, &i));
        if (i == SIZE_MAX)
            continue;
        /* Between this chunk's winner and the earlier ones', the earlier
           wins a tie: the fallback's rule over the two. */
        size_t k = 1;
        if (at != SIZE_MAX) {
            memcpy(both, best, size);
            memcpy(both + size, v, size);
            gpgpu__host_reduce_index(t, op, both, 2, winner, &k);
        }
        if (k == 1) {
            memcpy(best, v, size);
            at = first + i;
        }
    }
    memcpy(value, best, size);
    *index = at;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_reduce_index(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, const void *in,
                                size_t n, void *value, size_t *index)
{
    GPGPU__TRY(index_check(ctx, __func__, t, op));
    GPGPU__REQUIRE(ctx, in != NULL || n == 0, __func__,
                   "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, value != NULL && index != NULL, __func__,
                   "value or index is NULL; need room for one element in each");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t), __func__,
                   "in is %p; it must be aligned to %zu bytes, the size of one element of t", (const void *)in, gpgpu__type(t)->size);
    /* the first extreme value wins whatever the order: any route gives
       the same (value, index) */
    if (ctx->host || n == 0 || gpgpu__host_below(ctx, GPGPU__HB_INDEX, n)) {
        if (!ctx->host && n)
            GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_reduce_index(t, op, in, n, value, index);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_reduce_index",
                                index_host_api(ctx, t, op, in, n, value, index));
}

gpgpu_status gpgpu_reduce_index_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                       cl_mem in, size_t in_offset, size_t n, cl_mem value,
                                       size_t value_offset, cl_mem index, size_t index_offset,
                                       cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(index_check(ctx, __func__, t, op));
    GPGPU__REQUIRE(ctx, in != NULL || n == 0, __func__,
                   "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, value != NULL && index != NULL, __func__,
                   "value or index is NULL; need room for one element in each");
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", __func__);
    const size_t size = gpgpu__type(t)->size;
    if (in)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n, size));
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "value", value, value_offset, 1, size));
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "index", index, index_offset, 1,
                                  sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = gpgpu__type_supported(ctx, t);
    cl_mem src = in;
    if (s == GPGPU_SUCCESS && !src) /* n == 0: any buffer serves, nothing is read */
        s = gpgpu__scratch(ctx, GPGPU__SLOT_IN, 16, &src);
    if (s == GPGPU_SUCCESS)
        s = index_enqueue(ctx, t, op, src, in_offset, n, value, value_offset, index,
                          index_offset);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

/* ---- device arrays ---------------------------------------------------------------- */

/* The fallback's offsets: a size_t copy of offsets' U64 elements, each
   clamped to n and then checked as the host calls check theirs. */
static gpgpu_status offsets_on_host(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                    const gpgpu_array *offsets, size_t n, size_t **out)
{
    const size_t nseg = offsets->n - 1;
    size_t total, *o = gpgpu__malloc(offsets->n * sizeof *o);
    *out = NULL;
    if (!o)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", func);
    for (size_t s = 0; s <= nseg; s++) {
        const uint64_t v = ((const uint64_t *)offsets->host)[s];
        o[s] = v < n ? (size_t)v : n;
    }
    gpgpu_status st = gpgpu__offsets_check(ctx, func, t, o, nseg, &total);
    if (st != GPGPU_SUCCESS) {
        free(o);
        return st;
    }
    *out = o;
    return GPGPU_SUCCESS;
}

/* Both segmented array calls once their arrays are checked. */
static gpgpu_status segmented_array_call(gpgpu_context *ctx, const char *func, gpgpu_op op,
                                         int scan, gpgpu_scan_kind kind, const gpgpu_array *in,
                                         const gpgpu_array *offsets, gpgpu_array *out)
{
    GPGPU__REQUIRE(ctx, offsets->t == GPGPU_U64, func,
                   "offsets holds %s elements; it must hold GPGPU_U64",
                   gpgpu__type(offsets->t)->name);
    const size_t nseg = offsets->n < 2 ? 0 : offsets->n - 1;
    if (!scan)
        GPGPU__REQUIRE(ctx, out->n >= nseg, func,
                       "out has %zu elements; it needs one per segment (%zu)", out->n, nseg);
    if (ctx->host) {
        size_t *o;
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "%s: user-defined operators need an OpenCL device", func);
        if (nseg == 0)
            return GPGPU_SUCCESS;
        GPGPU__TRY(offsets_on_host(ctx, func, in->t, offsets, in->n, &o));
        if (scan)
            gpgpu__host_segmented_scan(in->t, op, kind, in->host, out->host, o, nseg);
        else
            gpgpu__host_segmented_reduce(in->t, op, in->host, o, nseg, out->host);
        free(o);
        return GPGPU_SUCCESS;
    }
    gpgpu__segments sg = { in->buf, 0, offsets->buf, 0, nseg, 0, in->n, out->buf, 0,
                           nseg ? in->n / nseg : 0, 0, NULL, 0 };
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__check_type_op(ctx, in->t, op);
    if (s == GPGPU_SUCCESS && nseg > 0)
        s = gpgpu__segmented_enqueue(ctx, in->t, op, scan, kind, &sg);
    return gpgpu__array_end(ctx, func, s);
}

gpgpu_status gpgpu_segmented_reduce_array(gpgpu_context *ctx, gpgpu_op op, const gpgpu_array *in,
                                          const gpgpu_array *offsets, gpgpu_array *out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "offsets", offsets));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__TRY(gpgpu__check_reduce_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, out != in && out != offsets, __func__,
                   "out is the same array as %s; it must be another", out == in ? "in" : "offsets");
    GPGPU__REQUIRE(ctx, out->t == in->t, __func__,
                   "out holds %s elements; it must hold %s like the input",
                   gpgpu__type(out->t)->name, gpgpu__type(in->t)->name);
    return segmented_array_call(ctx, __func__, op, 0, GPGPU_EXCLUSIVE, in, offsets, out);
}

gpgpu_status gpgpu_segmented_scan_array(gpgpu_context *ctx, gpgpu_op op, gpgpu_scan_kind kind,
                                        const gpgpu_array *in, gpgpu_array *out,
                                        const gpgpu_array *offsets)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "offsets", offsets));
    GPGPU__TRY(gpgpu__check_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__REQUIRE(ctx, offsets != in && offsets != out, __func__,
                   "offsets is the same array as %s; it must be another",
                   offsets == in ? "in" : "out");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", in, out, 1, 1));
    return segmented_array_call(ctx, __func__, op, 1, kind, in, offsets, out);
}

gpgpu_status gpgpu_reduce_index_array(gpgpu_context *ctx, gpgpu_op op, const gpgpu_array *in,
                                      void *value, size_t *index)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(index_check(ctx, __func__, in->t, op));
    GPGPU__REQUIRE(ctx, value != NULL && index != NULL, __func__,
                   "value or index is NULL; need room for one element in each");
    if (ctx->host) {
        gpgpu__host_reduce_index(in->t, op, in->host, in->n, value, index);
        return GPGPU_SUCCESS;
    }
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__type_supported(ctx, in->t);
    if (s == GPGPU_SUCCESS)
        s = index_read(ctx, in->t, op, in->buf, 0, in->n, value, index);
    return gpgpu__array_end(ctx, __func__, s);
}
