/* histogram.c - placeholder until the histogram primitive lands (issue 5). */
#include "internal.h"

gpgpu_status gpgpu_histogram(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                             size_t nbins, double lo, double hi, uint64_t *bins)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_histogram: not implemented yet");
}

gpgpu_status gpgpu_histogram_rgba8(gpgpu_context *ctx, const uint8_t *pixels, size_t width,
                                   size_t height, size_t row_stride, size_t nbins,
                                   uint64_t *bins)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                       "gpgpu_histogram_rgba8: not implemented yet");
}

gpgpu_status gpgpu_histogram_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                    size_t in_offset, size_t n, size_t nbins, double lo,
                                    double hi, cl_mem bins, size_t bins_offset,
                                    cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                       "gpgpu_histogram_buffer: not implemented yet");
}
