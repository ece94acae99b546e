/*
 * bench_histogram.c - gpgpu-bench --op histogram [--bins B] [--input rgba8].
 *
 * Samples: bench_fill's (floats in [0, 1), integers over their full range),
 * binned over that whole range. --input rgba8 times gpgpu_histogram_rgba8 on
 * an image of n pixels (4096 wide). The note carries a serial single-thread
 * C histogram of the same input timed in the same run, the figure the
 * library has to beat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

typedef struct {
    bench *b;
    gpgpu_type t;
    size_t n, nbins, width;
    double lo, hi;
    const void *host_in;
    cl_mem in, out;          /* --api buffer */
    gpgpu_array *arr;        /* --api array */
    uint64_t *bins;
} hist_case;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static gpgpu_status call_typed(void *arg)
{
    hist_case *c = arg;
    if (c->arr)
        return gpgpu_histogram_array(c->b->ctx, c->arr, c->nbins, c->lo, c->hi, c->bins);
    if (!c->in)
        return gpgpu_histogram(c->b->ctx, c->t, c->host_in, c->n, c->nbins, c->lo, c->hi,
                               c->bins);
    return gpgpu_histogram_buffer(c->b->ctx, c->t, c->in, 0, c->n, c->nbins, c->lo, c->hi,
                                  c->out, 0, 0, NULL, NULL);
}

static gpgpu_status call_rgba8(void *arg)
{
    hist_case *c = arg;
    return gpgpu_histogram_rgba8(c->b->ctx, c->host_in, c->width, c->n / c->width,
                                 4 * c->width, c->nbins, c->bins);
}

/* The loop a C programmer writes first (f32 and the seed's image loop). */
static void serial_f32(const float *x, size_t n, size_t nbins, uint64_t *bins)
{
    float s = (float)nbins;
    memset(bins, 0, nbins * sizeof *bins);
    for (size_t i = 0; i < n; i++)
        if (x[i] >= 0.0f && x[i] < 1.0f) {
            size_t k = (size_t)(x[i] * s);
            bins[k < nbins ? k : nbins - 1]++;
        }
}

/* u32 over its whole range [0, 2^32): the bin is x * nbins / 2^32. */
static void serial_u32(const uint32_t *x, size_t n, size_t nbins, uint64_t *bins)
{
    memset(bins, 0, nbins * sizeof *bins);
    for (size_t i = 0; i < n; i++)
        bins[(size_t)(((uint64_t)x[i] * nbins) >> 32)]++;
}

static void serial_rgba8(const uint8_t *px, size_t npix, size_t nbins, uint64_t *bins)
{
    memset(bins, 0, 4 * nbins * sizeof *bins);
    for (size_t i = 0; i < npix; i++, px += 4) {
        float v = (0.2126f * px[0] + 0.7152f * px[1] + 0.0722f * px[2]) / 255.0f;
        size_t k = (size_t)(v * nbins);
        bins[px[0] * nbins / 256]++;
        bins[nbins + px[1] * nbins / 256]++;
        bins[2 * nbins + px[2] * nbins / 256]++;
        bins[3 * nbins + (k < nbins ? k : nbins - 1)]++;
    }
}

/* Median wall time of the serial loop over b->repeat runs. */
static double serial_ms(bench *b, const hist_case *c, uint64_t *scratch)
{
    double best[64];
    int runs = b->repeat < 1 ? 1 : b->repeat > 64 ? 64 : b->repeat;
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        if (c->width)
            serial_rgba8(c->host_in, c->n, c->nbins, scratch);
        else if (c->t == GPGPU_U32)
            serial_u32(c->host_in, c->n, c->nbins, scratch);
        else
            serial_f32(c->host_in, c->n, c->nbins, scratch);
        best[r] = now_ms() - t0;
    }
    for (int i = 1; i < runs; i++)  /* insertion sort for the median */
        for (int j = i; j > 0 && best[j] < best[j - 1]; j--) {
            double tmp = best[j];
            best[j] = best[j - 1];
            best[j - 1] = tmp;
        }
    return best[runs / 2];
}

/* The host fallback's answer, to verify the device's. */
static int verify(const hist_case *c, const uint64_t *got)
{
    size_t total = c->width ? 4 * c->nbins : c->nbins;
    uint64_t *want = malloc(total * sizeof *want);
    gpgpu_context *host = NULL;
    int ok = want && gpgpu_context_create(&host, "host") == GPGPU_SUCCESS;
    if (ok)
        ok = (c->width ? gpgpu_histogram_rgba8(host, c->host_in, c->width, c->n / c->width,
                                               4 * c->width, c->nbins, want)
                       : gpgpu_histogram(host, c->t, c->host_in, c->n, c->nbins, c->lo,
                                         c->hi, want)) == GPGPU_SUCCESS;
    ok = ok && memcmp(want, got, total * sizeof *want) == 0;
    gpgpu_context_destroy(host);
    free(want);
    return ok;
}

static void full_range(gpgpu_type t, double *lo, double *hi)
{
    switch (t) {
    case GPGPU_I32: *lo = -0x1p31; *hi = 0x1p31; break;
    case GPGPU_U32: *lo = 0; *hi = 0x1p32; break;
    case GPGPU_I64: *lo = -0x1p63; *hi = 0x1p63; break;
    case GPGPU_U64: *lo = 0; *hi = 0x1p64; break;
    default: *lo = 0; *hi = 1; break;
    }
}

static int run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    hist_case c = { b, t, n, p->bins ? p->bins : 256, 0, 0, 0, NULL, NULL, NULL, NULL, NULL };
    int rgba = p->pattern && strcmp(p->pattern, "rgba8") == 0;
    size_t esize = rgba ? 4 : gpgpu_type_size(t), total;
    void *in;
    if (rgba) {
        c.width = n < 4096 ? n : 4096;
        c.n = n = n / c.width * c.width;
    }
    total = rgba ? 4 * c.nbins : c.nbins;
    in = bench_host_alloc(b, n * esize + 1);
    c.bins = malloc(total * sizeof *c.bins);
    uint64_t *serial = malloc(total * sizeof *serial);
    if (!in || !c.bins || !serial || n == 0) {
        fprintf(stderr, "histogram: out of memory or empty input\n");
        bench_host_free(b, in);
        free(c.bins), free(serial);
        return -1;
    }
    bench_fill(rgba ? GPGPU_U32 : t, in, n, b->seed, rgba ? "random" : p->pattern);
    full_range(t, &c.lo, &c.hi);
    c.host_in = in;
    if (BENCH_ON_BUFFERS(b) && !rgba) {
        c.in = bench_buffer(b, n * esize, in);
        c.out = bench_buffer(b, total * sizeof *c.bins, NULL);
    } else if (BENCH_ON_ARRAYS(b) && !rgba) {
        c.arr = bench_array(b, t, n, in);
    }
    r->ms = BENCH_ON_ARRAYS(b) && !rgba && !c.arr
                ? -1
                : bench_time(b, rgba ? call_rgba8 : call_typed, &c);
    if (r->ms >= 0 && c.out)
        bench_read(b, c.out, total * sizeof *c.bins, c.bins);
    r->bytes = (double)n * esize;
    r->verified = r->ms >= 0 && verify(&c, c.bins);
    r->note[0] = 0;
    if (rgba || t == GPGPU_F32 || t == GPGPU_U32) {
        double ms = serial_ms(b, &c, serial);
        r->serial_ms = ms;
        snprintf(r->note, sizeof r->note, "%zu bins; serial C loop %.3f ms", c.nbins, ms);
    } else {
        snprintf(r->note, sizeof r->note, "%zu bins", c.nbins);
    }
    BENCH_RELEASE(c.in, c.out);
    gpgpu_array_destroy(c.arr);
    bench_host_free(b, in);
    free(c.bins), free(serial);
    return r->ms >= 0 ? 0 : -1;
}

const bench_op bench_op_histogram = {
    "histogram", run,
    { { GPGPU_F32, { 256, "random" } }, { GPGPU_U32, { 4096, "random" } },
      { GPGPU_U32, { 256, "rgba8" } } },
    3
};
