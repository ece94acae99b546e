/*
 * ref_histogram.c - the reference: integers by the definition in 128-bit
 * integers (x counted iff ceil(lo) <= x < ceil(hi), bin = (x - ceil(lo)) *
 * nbins / (ceil(hi) - ceil(lo))); floats by the documented float formula
 * evaluated one sample at a time, the thresholds found by stepping.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_histogram.h"

typedef __int128 i128;

static i128 sample_int(gpgpu_type t, const void *in, size_t i)
{
    switch (t) {
    case GPGPU_I32: return ((const int32_t *)in)[i];
    case GPGPU_U32: return ((const uint32_t *)in)[i];
    case GPGPU_I64: return ((const int64_t *)in)[i];
    default: return ((const uint64_t *)in)[i];
    }
}

static void ref_int(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                    double hi, int64_t *bin)
{
    i128 L = (i128)ceil(lo), H = (i128)ceil(hi);
    for (size_t i = 0; i < n; i++) {
        i128 x = sample_int(t, in, i);
        bin[i] = x >= L && x < H ? (int64_t)((x - L) * (i128)nbins / (H - L)) : -1;
    }
}

/* The smallest float not below v, found without rounding tricks. */
static float float_at_or_above(double v)
{
    float f = (float)v;
    while ((double)f < v)
        f = nextafterf(f, INFINITY);
    while (f > -INFINITY && (double)nextafterf(f, -INFINITY) >= v)
        f = nextafterf(f, -INFINITY);
    return f;
}

static size_t clamp_bin(double t, size_t nbins)
{
    if (isnan(t))
        return nbins - 1;
    if (!(t > 0))
        return 0;
    return t >= (double)(nbins - 1) ? nbins - 1 : (size_t)t;
}

static void ref_f32(const float *x, size_t n, size_t nbins, double lo, double hi,
                    int64_t *bin)
{
    float l = float_at_or_above(lo);
    double sd = (double)nbins / (hi - lo);
    float s = sd < FLT_MAX ? (float)sd : FLT_MAX;
    for (size_t i = 0; i < n; i++) {
        bin[i] = -1;
        if ((double)x[i] >= lo && (double)x[i] < hi) {
            float d = x[i] - l;
            float tt = d * s;
            bin[i] = (int64_t)clamp_bin(tt, nbins);
        }
    }
}

static void ref_f64(const double *x, size_t n, size_t nbins, double lo, double hi,
                    int64_t *bin)
{
    double s = fmin((double)nbins / (hi - lo), DBL_MAX);
    for (size_t i = 0; i < n; i++) {
        bin[i] = -1;
        if (x[i] >= lo && x[i] < hi) {
            double tt = (x[i] - lo) * s;
            bin[i] = (int64_t)clamp_bin(tt, nbins);
        }
    }
}

void ref_histogram_bin(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                       double hi, int64_t *bin)
{
    if (t == GPGPU_F32)
        ref_f32(in, n, nbins, lo, hi, bin);
    else if (t == GPGPU_F64)
        ref_f64(in, n, nbins, lo, hi, bin);
    else
        ref_int(t, in, n, nbins, lo, hi, bin);
}

void ref_histogram(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                   double hi, uint64_t *bins)
{
    int64_t *bin = malloc((n ? n : 1) * sizeof *bin);
    memset(bins, 0, nbins * sizeof *bins);
    ref_histogram_bin(t, in, n, nbins, lo, hi, bin);
    for (size_t i = 0; i < n; i++)
        if (bin[i] >= 0)
            bins[bin[i]]++;
    free(bin);
}

/* The cell of each sample (-1: not counted); y NULL for 1-D. */
static int64_t *ref_cells(gpgpu_type t, const void *x, const void *y, size_t n, size_t nx,
                          double xlo, double xhi, size_t ny, double ylo, double yhi)
{
    int64_t *c = malloc((n ? n : 1) * sizeof *c), *by = malloc((n ? n : 1) * sizeof *by);
    ref_histogram_bin(t, x, n, nx, xlo, xhi, c);
    if (y) {
        ref_histogram_bin(t, y, n, ny, ylo, yhi, by);
        for (size_t i = 0; i < n; i++)
            c[i] = c[i] < 0 || by[i] < 0 ? -1 : c[i] * (int64_t)ny + by[i];
    }
    free(by);
    return c;
}

void ref_histogram2d(gpgpu_type t, const void *x, const void *y, size_t n, size_t nx,
                     double xlo, double xhi, size_t ny, double ylo, double yhi, uint64_t *bins)
{
    int64_t *c = ref_cells(t, x, y, n, nx, xlo, xhi, ny, ylo, yhi);
    memset(bins, 0, nx * ny * sizeof *bins);
    for (size_t i = 0; i < n; i++)
        if (c[i] >= 0)
            bins[c[i]]++;
    free(c);
}

void ref_histogram_weighted(gpgpu_type t, const void *x, const void *y, gpgpu_type wt,
                            const void *w, size_t n, size_t nx, double xlo, double xhi,
                            size_t ny, double ylo, double yhi, ref_wcell *cells)
{
    int64_t *c = ref_cells(t, x, y, n, nx, xlo, xhi, ny, ylo, yhi);
    memset(cells, 0, nx * (y ? ny : 1) * sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        if (c[i] < 0)
            continue;
        double v = wt == GPGPU_F32 ? (double)((const float *)w)[i] : ((const double *)w)[i];
        ref_wcell *e = &cells[c[i]];
        e->sum += v;
        e->abs += fabs(v);
        e->m++;
    }
    free(c);
}

int ref_weighted_ok(const ref_wcell *e, double got)
{
    if (isnan(e->sum))
        return isnan(got);
    if ((long double)got == e->sum)
        return 1;
    if (isinf(e->sum) || isinf(e->abs))
        return 0;
    /* the library's bound, plus the reference's own rounding (64 bits) */
    long double tol = ((long double)e->m + 2) * 0x1p-52L * e->abs +
                      (long double)e->m * 0x1p-63L * e->abs;
    return fabsl((long double)got - e->sum) <= tol;
}

void ref_histogram_rgba8(const uint8_t *pixels, size_t width, size_t height,
                         size_t row_stride, size_t nbins, uint64_t *bins)
{
    size_t chan[256];
    memset(bins, 0, 4 * nbins * sizeof *bins);
    for (unsigned c = 0; c < 256; c++) {  /* floor(c / 255 * nbins), exactly */
        size_t b = (size_t)((uint64_t)c * nbins / 255);
        chan[c] = b < nbins ? b : nbins - 1;
    }
    for (size_t y = 0; y < height; y++)
        for (size_t x = 0; x < width; x++) {
            const uint8_t *p = pixels + y * row_stride + 4 * x;
            uint64_t lum = 2126u * p[0] + 7152u * p[1] + 722u * p[2];
            size_t bl = (size_t)(lum * nbins / 2550000);
            bins[chan[p[0]]]++;
            bins[nbins + chan[p[1]]]++;
            bins[2 * nbins + chan[p[2]]]++;
            bins[3 * nbins + (bl < nbins ? bl : nbins - 1)]++;
        }
}

void ref_histogram_cutting_range(gpgpu_type t, double *lo, double *hi)
{
    switch (t) {
    case GPGPU_I32: *lo = -1e9; *hi = 1.5e9; break;
    case GPGPU_U32: *lo = 1e8; *hi = 4e9; break;
    case GPGPU_I64: *lo = -0x1p62; *hi = 0x1p61; break;
    case GPGPU_U64: *lo = 0x1p60; *hi = 0x1p63; break;
    default: *lo = -500.0; *hi = 750.0; break;
    }
}
