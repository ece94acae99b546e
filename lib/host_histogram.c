/* host_histogram.c - placeholder until the histogram primitive lands (issue 5). */
#include "internal.h"

void gpgpu__host_histogram(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                           double hi, uint64_t *bins)
{
}

void gpgpu__host_histogram_rgba8(const uint8_t *pixels, size_t width, size_t height,
                                 size_t row_stride, size_t nbins, uint64_t *bins)
{
}
