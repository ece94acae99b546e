/* sort.c - placeholder until the sort primitive lands (issue 4). */
#include "internal.h"

gpgpu_status gpgpu_sort(gpgpu_context *ctx, gpgpu_type t, void *keys, size_t n, unsigned flags)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_sort: not implemented yet");
}

gpgpu_status gpgpu_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                              void *values, size_t value_size, size_t n, unsigned flags)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_sort_pairs: not implemented yet");
}

gpgpu_status gpgpu_sort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, size_t offset,
                               size_t n, unsigned flags, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_sort_buffer: not implemented yet");
}

gpgpu_status gpgpu_sort_pairs_buffer(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                     size_t key_offset, cl_mem values, size_t value_offset,
                                     size_t value_size, size_t n, unsigned flags,
                                     cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                       "gpgpu_sort_pairs_buffer: not implemented yet");
}
