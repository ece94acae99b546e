/* status.c - status strings, OpenCL error names and the last error's detail. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/core.h"

const char *gpgpu_status_string(gpgpu_status s)
{
    switch (s) {
#define GPGPU_STATUS_CASE_(name, value, text) \
    case name:                                \
        return text;
        GPGPU_STATUS_LIST(GPGPU_STATUS_CASE_)
#undef GPGPU_STATUS_CASE_
    }
    return "unknown status";
}

/* Failures that happen before there is a context (gpgpu_context_create),
   and those of a context inherited through fork, whose error_lock may have
   stayed locked in the parent. */
static _Thread_local char no_context_error[GPGPU__ERROR_MAX];

static void set_error(const gpgpu_context *cctx, const char *fmt, va_list ap)
{
    gpgpu_context *ctx = (gpgpu_context *)cctx; /* the detail is not part of its value */
    if (!ctx || gpgpu__foreign(ctx)) {
        vsnprintf(no_context_error, sizeof no_context_error, fmt, ap);
        return;
    }
    pthread_mutex_lock(&ctx->error_lock);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    pthread_mutex_unlock(&ctx->error_lock);
}

gpgpu_status gpgpu__fail(const gpgpu_context *ctx, gpgpu_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(ctx, fmt, ap);
    va_end(ap);
    return s;
}

const char *gpgpu_last_error(const gpgpu_context *ctx)
{
    return ctx && !gpgpu__foreign(ctx) ? ctx->error : no_context_error;
}

const char *gpgpu__cl_error_name(cl_int err)
{
    switch (err) {
#define NAME_(e) \
    case e:      \
        return #e;
        NAME_(CL_SUCCESS) NAME_(CL_DEVICE_NOT_FOUND) NAME_(CL_DEVICE_NOT_AVAILABLE)
        NAME_(CL_COMPILER_NOT_AVAILABLE) NAME_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME_(CL_OUT_OF_RESOURCES) NAME_(CL_OUT_OF_HOST_MEMORY)
        NAME_(CL_PROFILING_INFO_NOT_AVAILABLE) NAME_(CL_MEM_COPY_OVERLAP)
        NAME_(CL_BUILD_PROGRAM_FAILURE) NAME_(CL_MAP_FAILURE)
        NAME_(CL_MISALIGNED_SUB_BUFFER_OFFSET) NAME_(CL_COMPILE_PROGRAM_FAILURE)
        NAME_(CL_LINK_PROGRAM_FAILURE) NAME_(CL_INVALID_VALUE) NAME_(CL_INVALID_DEVICE_TYPE)
        NAME_(CL_INVALID_PLATFORM) NAME_(CL_INVALID_DEVICE) NAME_(CL_INVALID_CONTEXT)
        NAME_(CL_INVALID_QUEUE_PROPERTIES) NAME_(CL_INVALID_COMMAND_QUEUE)
        NAME_(CL_INVALID_HOST_PTR) NAME_(CL_INVALID_MEM_OBJECT) NAME_(CL_INVALID_BINARY)
        NAME_(CL_INVALID_BUILD_OPTIONS) NAME_(CL_INVALID_PROGRAM)
        NAME_(CL_INVALID_PROGRAM_EXECUTABLE) NAME_(CL_INVALID_KERNEL_NAME)
        NAME_(CL_INVALID_KERNEL) NAME_(CL_INVALID_ARG_INDEX) NAME_(CL_INVALID_ARG_VALUE)
        NAME_(CL_INVALID_ARG_SIZE) NAME_(CL_INVALID_KERNEL_ARGS)
        NAME_(CL_INVALID_WORK_DIMENSION) NAME_(CL_INVALID_WORK_GROUP_SIZE)
        NAME_(CL_INVALID_WORK_ITEM_SIZE) NAME_(CL_INVALID_GLOBAL_OFFSET)
        NAME_(CL_INVALID_EVENT_WAIT_LIST) NAME_(CL_INVALID_EVENT) NAME_(CL_INVALID_OPERATION)
        NAME_(CL_INVALID_BUFFER_SIZE) NAME_(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME_(CL_INVALID_PROPERTY) NAME_(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef NAME_
    }
    return "unknown OpenCL error";
}

gpgpu_status gpgpu__cl_fail(const gpgpu_context *ctx, cl_int err, const char *what)
{
    gpgpu_status s = GPGPU_ERROR_OPENCL;
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE)
        s = GPGPU_ERROR_OUT_OF_MEMORY;
    return gpgpu__fail(ctx, s, "%s failed: %s (%d)", what, gpgpu__cl_error_name(err), (int)err);
}

/* ---- argument checks ------------------------------------------------------ */

static gpgpu_status arg_failv(const gpgpu_context *ctx, const char *func, const char *fmt,
                              va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s: %s", func, text);
}

gpgpu_status gpgpu__arg_fail(const gpgpu_context *ctx, const char *func, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gpgpu_status s = arg_failv(ctx, func, fmt, ap);
    va_end(ap);
    return s;
}

/* A name the caller knows: public, with no internal part. */
static int public_text(const char *s)
{
    for (const char *p = s; *p; p++)
        if (!strncasecmp(p, "gpgpu__", 7) || !strncmp(p, "->", 2))
            return 0;
    return 1;
}

gpgpu_status gpgpu__check_failed(const gpgpu_context *ctx, const char *func, const char *cond)
{
    int pub = !strncmp(func, "gpgpu_", 6) && public_text(func);
    if (public_text(cond))
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "%s%sinvalid argument: need %s",
                           pub ? func : "", pub ? ": " : "", cond);
    return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                       "%s%san argument breaks a rule its documentation in gpgpu.h states",
                       pub ? func : "", pub ? ": " : "");
}

gpgpu_status gpgpu__check_ctx(const gpgpu_context *ctx, const char *func)
{
    if (ctx && !gpgpu__foreign(ctx))
        return GPGPU_SUCCESS;
    if (ctx)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: ctx was created by process %d, and this process (%d) is a fork "
                           "of it; a context belongs to the process that created it. Create "
                           "a new context in this process (see gpgpu_context_create on fork) "
                           "and release this one with gpgpu_context_destroy",
                           func, (int)ctx->pid, (int)getpid());
    return gpgpu__arg_fail(NULL, func, "ctx is NULL; pass a context made by "
                                       "gpgpu_context_create or gpgpu_context_from_queue");
}

gpgpu_status gpgpu__check_type(const gpgpu_context *ctx, const char *func, const char *name,
                               gpgpu_type t)
{
    if (gpgpu__type(t))
        return GPGPU_SUCCESS;
    return gpgpu__arg_fail(ctx, func, "%s is %d; not a gpgpu_type (GPGPU_I32, GPGPU_U32, "
                                      "GPGPU_F32, GPGPU_I64, GPGPU_U64 or GPGPU_F64)",
                           name, (int)t);
}

gpgpu_status gpgpu__check_op(const gpgpu_context *ctx, const char *func, gpgpu_op op)
{
    if (GPGPU__VALID_OP(op))
        return GPGPU_SUCCESS;
    return gpgpu__arg_fail(ctx, func, "op is %d; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX or an "
                                      "operator made by gpgpu_op_define", (int)op);
}

gpgpu_status gpgpu__check_wait(const gpgpu_context *ctx, const char *func, cl_uint num_wait,
                               const cl_event *wait)
{
    if ((num_wait == 0) == (wait == NULL))
        return GPGPU_SUCCESS;
    return gpgpu__arg_fail(ctx, func, "num_wait is %u and wait is %s; wait must be NULL "
                                      "exactly when num_wait is 0",
                           (unsigned)num_wait, wait ? "not NULL" : "NULL");
}

gpgpu_status gpgpu__check_array(const gpgpu_context *ctx, const char *func, const char *name,
                                const void *p, size_t n, size_t elem, size_t copies,
                                size_t align)
{
    if (p == NULL && n > 0)
        return gpgpu__arg_fail(ctx, func, "%s is NULL with n = %zu; it may be NULL only when "
                                          "n is 0", name, n);
    /* n > PTRDIFF_MAX / copies / elem, without the divisions (three
       arrays of a small host call spent 30 ns in them) */
    size_t bytes;
    if (__builtin_mul_overflow(n, elem, &bytes) || __builtin_mul_overflow(bytes, copies, &bytes) ||
        bytes > (size_t)PTRDIFF_MAX)
        return gpgpu__arg_fail(ctx, func, "n is %zu; at most %zu elements of %zu bytes (the "
                                          "largest object the library can hold%s)",
                               n, (size_t)PTRDIFF_MAX / copies / elem, elem,
                               copies > 1 ? " twice over" : "");
    if ((uintptr_t)p % align != 0)
        return gpgpu__arg_fail(ctx, func, "%s is %p; it must be aligned to %zu bytes, the size "
                                          "of one element", name, p, align);
    return GPGPU_SUCCESS;
}
