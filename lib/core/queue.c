/* queue.c - buffers, transfers and the bracket around a call's enqueues.
   Every enqueue goes through here (or gpgpu__run) so that the caller's wait
   list is honoured once, errors are named, and faults can be injected. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* The caller's wait list goes to the first command a call enqueues; later
   commands follow it through the in-order queue. */
cl_uint gpgpu__take_wait(gpgpu_context *ctx, const cl_event **wait)
{
    cl_uint n = ctx->wait_n;
    *wait = n ? ctx->wait : NULL;
    ctx->wait_n = 0;
    ctx->wait = NULL;
    return n;
}

/* Drops the event a failed call kept. */
static void drop_last(gpgpu_context *ctx)
{
    if (ctx->last)
        clReleaseEvent(ctx->last);
    ctx->last = NULL;
}

/* Where a command's event goes: while the call tracks them, into ctx->last
   (replacing the previous command's); else nowhere. */
static cl_event *track(gpgpu_context *ctx)
{
    if (!ctx->track)
        return NULL;
    drop_last(ctx);
    return &ctx->last;
}

/* A command's event: where the call tracks its commands (last, from
   track()) and, when profiling, in the call's records as `what` (a
   kernel's name, or "(copy)", "(fill)", "(write)" with global = bytes and
   local = 0), so that a call's records span every command it enqueued. */
static cl_event *event_wanted(const gpgpu_context *ctx, const cl_event *last, cl_event *ev)
{
    *ev = NULL;
    return ctx->profiling || last ? ev : NULL;
}

static void event_taken(gpgpu_context *ctx, cl_event *last, cl_event ev, const char *what,
                        size_t global, size_t local)
{
    if (last) {
        *last = ev;
        if (ctx->profiling)
            clRetainEvent(ev); /* the profile keeps its own reference */
    }
    if (ctx->profiling)
        gpgpu__profile_launch(ctx, ev, what, global, local);
}

void gpgpu__begin(gpgpu_context *ctx, cl_uint num_wait, const cl_event *wait,
                  const cl_event *done)
{
    gpgpu__profile_clear(ctx);
    drop_last(ctx);
    ctx->prints_own = 0;
    ctx->route = NULL;
    ctx->track = done != NULL;
    ctx->wait_n = num_wait;
    ctx->wait = wait;
}

/* GPGPU_PROFILE=1: the table of a _buffer call that succeeded, unless its
   caller prints one under its own name (host calls, _array calls, sorts). */
static void end_print(gpgpu_context *ctx)
{
    if (ctx->profile_print && !ctx->prints_own)
        gpgpu__profile_print(ctx, "a _buffer call");
}

gpgpu_status gpgpu__end(gpgpu_context *ctx, cl_event *done)
{
    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    ctx->track = 0;
    if (!done) {
        drop_last(ctx);
        end_print(ctx);
        return GPGPU_SUCCESS;
    }
    *done = ctx->last;
    ctx->last = NULL;
    if (*done) {
        end_print(ctx);
        return GPGPU_SUCCESS;
    }
    if (gpgpu__fault("clEnqueueMarkerWithWaitList"))
        return gpgpu__cl_fail(ctx, CL_OUT_OF_RESOURCES, "clEnqueueMarkerWithWaitList");
    cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, nwait, wait, done);
    if (err != CL_SUCCESS)
        return gpgpu__cl_fail(ctx, err, "clEnqueueMarkerWithWaitList");
    end_print(ctx);
    return GPGPU_SUCCESS;
}

void gpgpu__note_route(gpgpu_context *ctx, const char *route)
{
    /* The slowest route an array took names the call: staged over copy
       over pinned over zero-copy. */
    static const char *const order[] = {"zero-copy", "pinned", "copy", "staged"};
    int have = -1, want = -1;
    for (int i = 0; i < 4; i++) {
        if (ctx->route && !strcmp(ctx->route, order[i]))
            have = i;
        if (!strcmp(route, order[i]))
            want = i;
    }
    if (want < 0 || want > have)
        ctx->route = route;
}

gpgpu_status gpgpu__host_call_end(gpgpu_context *ctx, const char *name, gpgpu_status s)
{
    if (s == GPGPU_SUCCESS && ctx->profile_print) {
        char call[128];
        snprintf(call, sizeof call, "%s (arrays: %s)", name, ctx->route ? ctx->route : "none");
        gpgpu__profile_print(ctx, call);
    }
    if (s != GPGPU_SUCCESS)
        clFinish(ctx->queue);
    gpgpu__unlock(ctx);
    return s;
}

/* The queue failed: the kernels that were to leave scratch zero
   (gpgpu__scratch_mark_zeroed) may not have run to their end. */
static void zeroed_forget(gpgpu_context *ctx)
{
    memset(ctx->scratch_zeroed, 0, sizeof ctx->scratch_zeroed);
}

gpgpu_status gpgpu__finish(gpgpu_context *ctx)
{
    cl_int err = gpgpu__fault("clFinish") ? CL_OUT_OF_RESOURCES : clFinish(ctx->queue);
    if (err != CL_SUCCESS) {
        zeroed_forget(ctx);
        return gpgpu__cl_fail(ctx, err, "clFinish");
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__wait_done(gpgpu_context *ctx)
{
    cl_int err = clFinish(ctx->queue);
    if (err == CL_SUCCESS)
        return GPGPU_SUCCESS;
    zeroed_forget(ctx);
    return gpgpu__fail(ctx, err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
                                    err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                                ? GPGPU_ERROR_OUT_OF_MEMORY : GPGPU_ERROR_OPENCL,
                       "the device failed while running the call (clFinish: %s, %d); the "
                       "arrays it writes may have changed", gpgpu__cl_error_name(err),
                       (int)err);
}

/* PoCL's CPU drivers give a buffer its memory only when the first command
   that uses it runs, and abort the process when that allocation fails.
   With CL_MEM_ALLOC_HOST_PTR they allocate it in clCreateBuffer, which
   reports the failure (OUT_OF_MEMORY); on a CPU device host memory is the
   device's memory, so this costs neither memory nor speed. */
static cl_mem_flags memory_now(const gpgpu_context *ctx, cl_mem_flags flags)
{
    return ctx->type & CL_DEVICE_TYPE_CPU ? flags | CL_MEM_ALLOC_HOST_PTR : flags;
}

gpgpu_status gpgpu__buffer(gpgpu_context *ctx, cl_mem_flags flags, size_t bytes,
                           const void *host, cl_mem *out)
{
    cl_int err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    *out = NULL;
    if (bytes == 0)
        bytes = 16; /* OpenCL has no empty buffers; n == 0 paths still want a handle */
    if (bytes > ctx->max_alloc)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                           "buffer of %zu bytes exceeds the device's largest allocation (%llu)",
                           bytes, (unsigned long long)ctx->max_alloc);
    if (host)
        flags |= CL_MEM_COPY_HOST_PTR;
    if (!gpgpu__fault("clCreateBuffer"))
        *out = clCreateBuffer(ctx->cl, memory_now(ctx, flags), bytes, (void *)host, &err);
    if (!*out)
        return gpgpu__cl_fail(ctx, err, "clCreateBuffer");
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__check_range(gpgpu_context *ctx, const char *func, const char *what,
                                cl_mem buf, size_t offset, size_t n, size_t elem)
{
    size_t size = 0;
    if (clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: %s is not a buffer", func,
                           what);
    if (offset > SIZE_MAX - n || offset + n > size / elem)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: %s[%zu .. +%zu) of %zu-byte elements is outside its buffer "
                           "(%zu bytes)", func, what, offset, n, elem, size);
    return GPGPU_SUCCESS;
}

/* Commands already enqueued may still use a released buffer: OpenCL keeps
   it alive until they complete. */
static void scratch_drop(gpgpu_context *ctx, int slot)
{
    if (ctx->scratch[slot])
        clReleaseMemObject(ctx->scratch[slot]);
    ctx->scratch[slot] = NULL;
    ctx->scratch_size[slot] = 0;
    ctx->scratch_zeroed[slot] = 0;
}

/* The slot's buffer, grown to bytes; what is known zero of it stays so
   unless the buffer is replaced. */
static gpgpu_status scratch_take(gpgpu_context *ctx, int slot, size_t bytes, cl_mem *out)
{
    ctx->scratch_epoch[slot] = ctx->epoch;
    if (ctx->scratch[slot] && ctx->scratch_size[slot] >= bytes) {
        *out = ctx->scratch[slot];
        return GPGPU_SUCCESS;
    }
    scratch_drop(ctx, slot);
    /* room to grow without a new buffer each call, except for buffers
       big enough that a quarter more would crowd the device */
    size_t grown = bytes + bytes / 4;
    if (grown < bytes || grown > ctx->max_alloc || bytes > ctx->global_mem / 16)
        grown = bytes;
    /* What earlier calls left cached gives way once it and this buffer
       would hold more than tune.scratch_keep (a quarter of the device's
       memory unless GPGPU_SCRATCH_KEEP says otherwise): GPUs give a
       buffer its memory at its first use, so a sort's 2 x 16 GiB kept after
       a 2^32-key sort made the next primitive's launches fail with
       CL_MEM_OBJECT_ALLOCATION_FAILURE, which no retry here could see. */
    size_t held = grown;
    for (int i = 0; i < GPGPU__SCRATCH_SLOTS; i++)
        held += ctx->scratch_size[i];
    if (held > ctx->tune.scratch_keep)
        for (int i = 0; i < GPGPU__SCRATCH_SLOTS; i++)
            if (ctx->scratch_epoch[i] != ctx->epoch)
                scratch_drop(ctx, i);
    GPGPU__TRY(gpgpu__buffer(ctx, CL_MEM_READ_WRITE, grown, NULL, &ctx->scratch[slot]));
    ctx->scratch_size[slot] = grown;
    *out = ctx->scratch[slot];
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__scratch(gpgpu_context *ctx, int slot, size_t bytes, cl_mem *out)
{
    ctx->scratch_zeroed[slot] = 0; /* the caller may write it */
    return scratch_take(ctx, slot, bytes, out);
}

gpgpu_status gpgpu__scratch_zeroed(gpgpu_context *ctx, int slot, size_t bytes, cl_mem *out)
{
    GPGPU__TRY(scratch_take(ctx, slot, bytes, out));
    size_t known = ctx->scratch_zeroed[slot];
    ctx->scratch_zeroed[slot] = 0; /* until gpgpu__scratch_mark_zeroed */
    if (known >= bytes)
        return GPGPU_SUCCESS;
    cl_uint zero = 0;
    return gpgpu__fill(ctx, *out, 0, bytes, &zero, sizeof zero);
}

void gpgpu__scratch_mark_zeroed(gpgpu_context *ctx, int slot, size_t bytes)
{
    ctx->scratch_zeroed[slot] = bytes;
}

gpgpu_status gpgpu__read(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                         void *host)
{
    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    if (bytes == 0)
        return GPGPU_SUCCESS;
    cl_int err = gpgpu__fault("clEnqueueReadBuffer")
                     ? CL_OUT_OF_RESOURCES
                     : clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, offset, bytes, host, nwait,
                                           wait, NULL);
    if (err != CL_SUCCESS)
        return gpgpu__cl_fail(ctx, err, "clEnqueueReadBuffer");
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__write(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                          const void *host)
{
    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    if (bytes == 0)
        return GPGPU_SUCCESS;
    cl_event ev, *last = track(ctx);
    cl_int err = gpgpu__fault("clEnqueueWriteBuffer")
                     ? CL_OUT_OF_RESOURCES
                     : clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, offset, bytes, host,
                                            nwait, wait, event_wanted(ctx, last, &ev));
    if (err != CL_SUCCESS)
        return gpgpu__cl_fail(ctx, err, "clEnqueueWriteBuffer");
    event_taken(ctx, last, ev, "(write)", bytes, 0);
    return GPGPU_SUCCESS;
}

/* Fills of 2^31 bytes or more hang NVIDIA's OpenCL driver (a 2^28-element
   f64 exact sum and u64 sort never returned on the H200 and the H100; the
   same was reported against pyopencl, issue 395), so a fill goes out in
   pieces of at most 1 GiB, each a whole number of patterns; the queue is
   in order, so the first piece carries the wait list and the last one the
   caller's event. */
#ifndef GPGPU__FILL_PIECE /* smaller in a test build, to run the pieces on PoCL */
#define GPGPU__FILL_PIECE (1 << 30)
#endif

/* A fill of 4- or 8-byte patterns as a launch of kernels/fill.cl (the
   plan's fill_kernel). */
static gpgpu_status fill_by_kernel(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                                   const void *pattern, size_t pattern_size)
{
    gpgpu__program *prog;
    GPGPU__TRY(gpgpu__program_get(ctx, "fill", NULL, "", &prog));
    cl_ulong off = offset / 4, n = bytes / 4;
    cl_uint v[2];
    memcpy(v, pattern, pattern_size);
    if (pattern_size == 4)
        v[1] = v[0];
    size_t wg = ctx->tune.wg, groups = gpgpu__div_up(n, 8 * wg);
    groups = groups < ctx->tune.groups ? groups : ctx->tune.groups;
    GPGPU__TRY(gpgpu__run(ctx, prog, "fill_words", groups * wg, wg, GPGPU__ARG(buf),
                          GPGPU__ARG(off), GPGPU__ARG(n), GPGPU__ARG(v[0]), GPGPU__ARG(v[1]),
                          GPGPU__END));
    gpgpu__profile_relabel(ctx, "(fill)", bytes, 0); /* a fill, whichever way */
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__fill(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                         const void *pattern, size_t pattern_size)
{
    if (bytes && ctx->tune.fill_kernel && (pattern_size == 4 || pattern_size == 8) &&
        offset % pattern_size == 0 && bytes % pattern_size == 0)
        return fill_by_kernel(ctx, buf, offset, bytes, pattern, pattern_size);
    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    if (bytes == 0)
        return GPGPU_SUCCESS;
    const size_t piece = (size_t)GPGPU__FILL_PIECE - (size_t)GPGPU__FILL_PIECE % pattern_size;
    for (size_t done = 0; done < bytes;) {
        size_t now = bytes - done < piece ? bytes - done : piece;
        cl_event ev, *last = done + now == bytes ? track(ctx) : NULL;
        cl_int err = gpgpu__fault("clEnqueueFillBuffer")
                         ? CL_OUT_OF_RESOURCES
                         : clEnqueueFillBuffer(ctx->queue, buf, pattern, pattern_size,
                                               offset + done, now, done ? 0 : nwait,
                                               done ? NULL : wait,
                                               event_wanted(ctx, last, &ev));
        if (err != CL_SUCCESS)
            return gpgpu__cl_fail(ctx, err, "clEnqueueFillBuffer");
        event_taken(ctx, last, ev, "(fill)", now, 0);
        done += now;
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__copy(gpgpu_context *ctx, cl_mem src, size_t src_offset, cl_mem dst,
                         size_t dst_offset, size_t bytes)
{
    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    if (bytes == 0)
        return GPGPU_SUCCESS;
    cl_event ev, *last = track(ctx);
    cl_int err = gpgpu__fault("clEnqueueCopyBuffer")
                     ? CL_OUT_OF_RESOURCES
                     : clEnqueueCopyBuffer(ctx->queue, src, dst, src_offset, dst_offset, bytes,
                                           nwait, wait, event_wanted(ctx, last, &ev));
    if (err != CL_SUCCESS)
        return gpgpu__cl_fail(ctx, err, "clEnqueueCopyBuffer");
    event_taken(ctx, last, ev, "(copy)", bytes, 0);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__run(gpgpu_context *ctx, gpgpu__program *prog, const char *name,
                        size_t global, size_t local, ...)
{
    cl_kernel k;
    GPGPU__TRY(gpgpu__kernel_get(ctx, prog, name, &k));
    va_list ap;
    va_start(ap, local);
    cl_uint index = 0;
    for (;;) {
        size_t size = va_arg(ap, size_t);
        const void *value = va_arg(ap, const void *);
        if (size == 0)
            break;
        cl_int err = clSetKernelArg(k, index++, size, value);
        if (err != CL_SUCCESS) {
            va_end(ap);
            return gpgpu__fail(ctx, GPGPU_ERROR_OPENCL, "clSetKernelArg(%s, %u) failed: %s",
                               name, index - 1, gpgpu__cl_error_name(err));
        }
    }
    va_end(ap);

    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    cl_event ev, *last = track(ctx);
    cl_int err = gpgpu__fault("clEnqueueNDRangeKernel")
                     ? CL_OUT_OF_RESOURCES
                     : clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &global, &local, nwait,
                                              wait, event_wanted(ctx, last, &ev));
    if (err != CL_SUCCESS)
        return gpgpu__fail(ctx, err == CL_OUT_OF_RESOURCES || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                                    ? GPGPU_ERROR_OUT_OF_MEMORY : GPGPU_ERROR_OPENCL,
                           "clEnqueueNDRangeKernel(%s, global %zu, local %zu) failed: %s", name,
                           global, local, gpgpu__cl_error_name(err));
    event_taken(ctx, last, ev, name, global, local);
    return GPGPU_SUCCESS;
}

size_t gpgpu__chunk_elems(const gpgpu_context *ctx, size_t size)
{
    uint64_t limit = ctx->max_alloc;
    if (limit > ctx->global_mem / 4)
        limit = ctx->global_mem / 4;
    size_t c = (size_t)(limit / size);
    return c ? c : 1;
}
