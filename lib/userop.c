/* userop.c - placeholder until user-defined operators land (issue 8). */
#include "internal.h"

gpgpu_status gpgpu_op_define(gpgpu_context *ctx, gpgpu_type t, const char *combine,
                             const char *identity, gpgpu_op *op)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_op_define: not implemented yet");
}

gpgpu_status gpgpu_transform_reduce(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                    gpgpu_op op, const void *in, size_t n, void *result)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                       "gpgpu_transform_reduce: not implemented yet");
}

gpgpu_status gpgpu_select(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                          const void *in, size_t n, void *out, size_t *count)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_select: not implemented yet");
}

gpgpu_status gpgpu_select_buffer(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                                 cl_mem in, size_t in_offset, size_t n, cl_mem out,
                                 size_t out_offset, cl_mem count, size_t count_offset,
                                 cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_select_buffer: not implemented yet");
}

void gpgpu__user_ops_release(gpgpu_context *ctx)
{
}

const char *gpgpu__user_op_source(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op)
{
    return NULL;
}
