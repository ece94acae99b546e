/*
 * ref_histogram.h - plain-C reference histograms for tests/test_histogram.c,
 * written from gpgpu.h's documented rules, not from the library's code.
 */
#ifndef GPGPU_REF_HISTOGRAM_H
#define GPGPU_REF_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu.h"

/* bins[0..nbins) of n samples of t over [lo, hi). Integer bounds must lie
   within +-2^100. */
void ref_histogram(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                   double hi, uint64_t *bins);

/* bins[0..4 nbins): R, G, B, luminance. */
void ref_histogram_rgba8(const uint8_t *pixels, size_t width, size_t height,
                         size_t row_stride, size_t nbins, uint64_t *bins);

#endif
