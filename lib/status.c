/* status.c - status strings, OpenCL error names and the last error's detail. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

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

/* Failures that happen before there is a context (gpgpu_context_create). */
static _Thread_local char no_context_error[GPGPU__ERROR_MAX];

static void set_error(const gpgpu_context *cctx, const char *fmt, va_list ap)
{
    gpgpu_context *ctx = (gpgpu_context *)cctx; /* the detail is not part of its value */
    if (!ctx) {
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
    return ctx ? ctx->error : no_context_error;
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
