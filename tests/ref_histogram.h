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

/* bin[i] = the bin of sample i by gpgpu_histogram's rule, or -1. */
void ref_histogram_bin(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                       double hi, int64_t *bin);

/* bins[ix * ny + iy] of the samples (x[i], y[i]), each axis by the rule
   above. */
void ref_histogram2d(gpgpu_type t, const void *x, const void *y, size_t n, size_t nx,
                     double xlo, double xhi, size_t ny, double ylo, double yhi,
                     uint64_t *bins);

/* A weighted cell: the sum of its weights (in long double, in sample
   order), the sum of their magnitudes and how many there are. */
typedef struct {
    long double sum, abs;
    uint64_t m;
} ref_wcell;

/* cells[nx] (y NULL: 1-D) or cells[nx * ny] of weights w of type wt. */
void ref_histogram_weighted(gpgpu_type t, const void *x, const void *y, gpgpu_type wt,
                            const void *w, size_t n, size_t nx, double xlo, double xhi,
                            size_t ny, double ylo, double yhi, ref_wcell *cells);

/* Whether got is within gpgpu_histogram_weighted's bound of the cell (NaN
   exactly where the cell has a NaN). */
int ref_weighted_ok(const ref_wcell *e, double got);

/* bins[0..4 nbins): R, G, B, luminance. */
void ref_histogram_rgba8(const uint8_t *pixels, size_t width, size_t height,
                         size_t row_stride, size_t nbins, uint64_t *bins);

/* A [lo, hi) that cuts through tu_fill's values of t (tests/util.h), so
   that some samples fall outside on both sides. */
void ref_histogram_cutting_range(gpgpu_type t, double *lo, double *hi);

#endif
