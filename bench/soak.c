/* soak.c - a long run of mixed calls, every result checked against a
   plain-C reference (tests/ref_*.c), resident memory sampled: does a
   process that calls the library for hours stay right and stay flat?

   Calls, drawn from a seeded generator: reduce, scan, sort, sort_pairs,
   histogram, select, segmented reduce, a chain on device arrays (create,
   write, sort, reduce, read, destroy), and, every --context-every calls,
   the context destroyed and created again. Sizes are log-uniform in
   [0, --max-n]. VmRSS (/proc/self/status) is sampled every --sample
   calls; after the warm-up (--warmup-calls, or the first fifth of a timed
   run) the growth is fitted by least squares and reported per 100,000
   calls. The input and reference buffers are allocated once, at the
   largest size, and free heap pages are returned to the system before
   each sample (malloc_trim), so that the samples measure the library, not
   malloc.

   bench/soak.sh builds and runs it; `soak --help` lists the options.
   Exit status: 0 if every call succeeded with the right result. */
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpgpu.h"
#include "ref.h"
#include "ref_histogram.h"
#include "ref_scan.h"
#include "ref_segmented.h"
#include "ref_sort.h"
#include "rss.h"

typedef struct {
    double minutes;
    uint64_t calls, warmup_calls, sample, context_every, seed;
    size_t max_n;
    const char *device;
} options;

typedef struct {
    gpgpu_context *ctx;
    const options *o;
    uint64_t rng;
    /* buffers of max_n 8-byte elements */
    void *in, *out, *ref, *vals, *ref_vals;
    size_t *offsets;
    uint64_t bins[1024], ref_bins[1024];
    uint64_t calls, wrong, failed, skipped, contexts;
    char what[160]; /* the call in progress, for reports */
} soak;

static uint64_t next(soak *s)
{
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 0, 1, or log-uniform up to max_n. */
static size_t draw_n(soak *s)
{
    uint64_t r = next(s);
    if (r % 50 == 0)
        return r % 100 == 0 ? 0 : 1;
    double u = (double)(next(s) >> 11) * 0x1.0p-53;
    return (size_t)exp(u * log((double)s->o->max_n + 1));
}

static void fill(soak *s, gpgpu_type t, void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next(s);
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)(uint32_t)r; break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = (uint32_t)r; break;
        case GPGPU_F32: ((float *)buf)[i] = (float)((double)(r >> 11) * 0x1.0p-53 * 2000 - 1000); break;
        case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)r; break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = r; break;
        case GPGPU_F64: ((double *)buf)[i] = (double)(r >> 11) * 0x1.0p-53 * 2000 - 1000; break;
        }
    }
}

/* Counts a call: 0 if it succeeded with the right result. */
static int judge(soak *s, gpgpu_status st, int right)
{
    s->calls++;
    if (st == GPGPU_SUCCESS && right)
        return 0;
    if (st == GPGPU_SUCCESS) {
        s->wrong++;
        fprintf(stderr, "WRONG: %s\n", s->what);
    } else {
        s->failed++;
        fprintf(stderr, "FAILED: %s: %s (%s)\n", s->what, gpgpu_status_string(st),
                gpgpu_last_error(s->ctx));
    }
    return 1;
}

static int op_reduce(soak *s, size_t n)
{
    static const struct { gpgpu_type t; gpgpu_op op; } kinds[] = {
        {GPGPU_U32, GPGPU_SUM}, {GPGPU_I64, GPGPU_MIN}, {GPGPU_F32, GPGPU_MAX}, {GPGPU_F64, GPGPU_MIN}};
    int k = (int)(next(s) % 4);
    gpgpu_type t = kinds[k].t;
    fill(s, t, s->in, n);
    uint64_t got = 0, want = 0;
    long double exact, abs_sum;
    ref_reduce(t, kinds[k].op, s->in, n, &want, &exact, &abs_sum);
    snprintf(s->what, sizeof s->what, "reduce type %d op %d n %zu", (int)t, kinds[k].op, n);
    gpgpu_status st = gpgpu_reduce(s->ctx, t, kinds[k].op, s->in, n, &got);
    return judge(s, st, !memcmp(&got, &want, gpgpu_type_size(t)));
}

static int op_scan(soak *s, size_t n)
{
    gpgpu_type t = next(s) & 1 ? GPGPU_U32 : GPGPU_I64;
    gpgpu_scan_kind kind = next(s) & 1 ? GPGPU_INCLUSIVE : GPGPU_EXCLUSIVE;
    fill(s, t, s->in, n);
    ref_scan(t, GPGPU_SUM, kind, s->in, s->ref, n, NULL);
    snprintf(s->what, sizeof s->what, "scan type %d kind %d n %zu", (int)t, (int)kind, n);
    gpgpu_status st = gpgpu_scan(s->ctx, t, GPGPU_SUM, kind, s->in, s->out, n);
    return judge(s, st, !memcmp(s->out, s->ref, n * gpgpu_type_size(t)));
}

static int op_sort(soak *s, size_t n, int pairs)
{
    static const gpgpu_type types[] = {GPGPU_U32, GPGPU_F32, GPGPU_I64, GPGPU_F64};
    gpgpu_type t = types[next(s) % 4];
    unsigned flags = next(s) & 1 ? GPGPU_DESCENDING : GPGPU_ASCENDING;
    size_t ks = gpgpu_type_size(t);
    fill(s, t, s->out, n);
    memcpy(s->ref, s->out, n * ks);
    if (pairs) {
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)s->vals)[i] = ((uint32_t *)s->ref_vals)[i] = (uint32_t)i;
    }
    if (ref_sort(t, s->ref, pairs ? s->ref_vals : NULL, 4, n, flags) != 0)
        abort();
    snprintf(s->what, sizeof s->what, "sort%s type %d flags %u n %zu", pairs ? "_pairs" : "",
             (int)t, flags, n);
    gpgpu_status st = pairs ? gpgpu_sort_pairs(s->ctx, t, s->out, s->vals, 4, n, flags)
                            : gpgpu_sort(s->ctx, t, s->out, n, flags);
    int right = !memcmp(s->out, s->ref, n * ks) &&
                (!pairs || !memcmp(s->vals, s->ref_vals, n * 4));
    return judge(s, st, right);
}

static int op_histogram(soak *s, size_t n)
{
    size_t nbins = 1 + (size_t)(next(s) % 1024);
    gpgpu_type t = next(s) & 1 ? GPGPU_F32 : GPGPU_I32;
    fill(s, t, s->in, n);
    double lo = t == GPGPU_F32 ? -500 : -1e9, hi = t == GPGPU_F32 ? 700 : 2e9;
    ref_histogram(t, s->in, n, nbins, lo, hi, s->ref_bins);
    snprintf(s->what, sizeof s->what, "histogram type %d nbins %zu n %zu", (int)t, nbins, n);
    gpgpu_status st = gpgpu_histogram(s->ctx, t, s->in, n, nbins, lo, hi, s->bins);
    return judge(s, st, !memcmp(s->bins, s->ref_bins, nbins * sizeof s->bins[0]));
}

static int op_select(soak *s, size_t n)
{
    fill(s, GPGPU_U32, s->in, n);
    const uint32_t *x = s->in;
    size_t want = 0, got = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] % 3 == 0)
            ((uint32_t *)s->ref)[want++] = x[i];
    snprintf(s->what, sizeof s->what, "select u32 \"x %% 3 == 0\" n %zu", n);
    gpgpu_status st = gpgpu_select(s->ctx, GPGPU_U32, "x % 3 == 0", s->in, n, s->out, &got);
    if (st == GPGPU_ERROR_UNSUPPORTED && !strcmp(gpgpu_device_name(s->ctx), "host")) {
        s->skipped++; /* expressions need a device */
        return 0;
    }
    return judge(s, st, got == want && !memcmp(s->out, s->ref, want * 4));
}

static int op_segmented(soak *s, size_t n)
{
    size_t nseg = n ? 1 + (size_t)(next(s) % (n < 1000 ? n : 1000)) : 0;
    s->offsets[0] = 0;
    for (size_t i = 1; i < nseg; i++) /* sorted cut points, empty segments allowed */
        s->offsets[i] = (size_t)(next(s) % (n + 1));
    for (size_t i = 1; i < nseg; i++)
        for (size_t j = i; j > 1 && s->offsets[j - 1] > s->offsets[j]; j--) {
            size_t tmp = s->offsets[j];
            s->offsets[j] = s->offsets[j - 1];
            s->offsets[j - 1] = tmp;
        }
    s->offsets[nseg] = n;
    fill(s, GPGPU_U32, s->in, n);
    ref_segmented_reduce(GPGPU_U32, GPGPU_SUM, s->in, s->offsets, nseg, s->ref);
    snprintf(s->what, sizeof s->what, "segmented_reduce u32 sum n %zu nseg %zu", n, nseg);
    gpgpu_status st = gpgpu_segmented_reduce(s->ctx, GPGPU_U32, GPGPU_SUM, s->in, s->offsets,
                                             nseg, s->out);
    return judge(s, st, !memcmp(s->out, s->ref, nseg * 4));
}

/* A chain on a device array: write, sort, reduce, read back. */
static int op_arrays(soak *s, size_t n)
{
    gpgpu_array *a = NULL;
    fill(s, GPGPU_U32, s->in, n);
    memcpy(s->ref, s->in, n * 4);
    if (ref_sort(GPGPU_U32, s->ref, NULL, 4, n, 0) != 0)
        abort();
    uint32_t sum = 0, got = 0;
    for (size_t i = 0; i < n; i++)
        sum += ((uint32_t *)s->in)[i];
    snprintf(s->what, sizeof s->what, "array chain u32 n %zu", n);
    gpgpu_status st = gpgpu_array_create(s->ctx, GPGPU_U32, n, &a);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_write(s->ctx, a, 0, s->in, n);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_sort_array(s->ctx, a, 0);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_reduce_array(s->ctx, GPGPU_SUM, a, &got);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_read(s->ctx, a, 0, s->out, n);
    gpgpu_array_destroy(a);
    return judge(s, st, got == sum && !memcmp(s->out, s->ref, n * 4));
}

static void context_open(soak *s)
{
    gpgpu_status st = gpgpu_context_create(&s->ctx, s->o->device);
    if (st != GPGPU_SUCCESS) {
        fprintf(stderr, "soak: cannot open device: %s\n", gpgpu_last_error(NULL));
        exit(2);
    }
    s->contexts++;
}

/* Resident memory, after handing free heap pages back to the system
   (glibc keeps freed memory of large calls mapped, which would read as
   growth or noise). */
static double rss_mib(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return rss_kib() / 1024;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void usage(void)
{
    puts("usage: soak [--minutes M | --calls N] [--device SPEC] [--max-n N] [--sample N]\n"
         "            [--warmup-calls N] [--context-every K] [--seed S]\n"
         "  --minutes M        run for M minutes (default 1)\n"
         "  --calls N          run N calls instead\n"
         "  --device SPEC      as GPGPU_DEVICE (default: $GPGPU_DEVICE, else the best)\n"
         "  --max-n N          largest array (default 262144)\n"
         "  --sample N         resident memory every N calls (default 1000)\n"
         "  --warmup-calls N   calls before growth is measured (default: the first\n"
         "                     fifth of the run)\n"
         "  --context-every K  destroy and create the context every K calls (default\n"
         "                     100; 0: one context for the whole run)\n"
         "  --seed S           the generator's seed (default 1)");
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){1.0, 0, 0, 1000, 100, 1, 1 << 18, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help"))
            return usage(), 1;
        if (!v)
            return usage(), 2;
        i++;
        if (!strcmp(a, "--minutes"))
            o->minutes = strtod(v, NULL);
        else if (!strcmp(a, "--calls"))
            o->calls = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--device"))
            o->device = v;
        else if (!strcmp(a, "--max-n"))
            o->max_n = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--sample"))
            o->sample = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--warmup-calls"))
            o->warmup_calls = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--context-every"))
            o->context_every = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seed"))
            o->seed = strtoull(v, NULL, 0);
        else
            return usage(), 2;
    }
    if (o->sample == 0 || o->max_n == 0)
        return usage(), 2;
    return 0;
}

/* The least-squares slope of y over x (MiB per call). */
static double slope(const double *x, const double *y, size_t m)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < m; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    double d = m * sxx - sx * sx;
    return m > 1 && d != 0 ? (m * sxy - sx * sy) / d : 0;
}

int main(int argc, char **argv)
{
    options o;
    int p = parse(argc, argv, &o);
    if (p)
        return p == 1 ? 0 : 2;
    soak s = {.o = &o, .rng = o.seed};
    size_t bytes = o.max_n * 8 + 8;
    s.in = malloc(bytes);
    s.out = malloc(bytes);
    s.ref = malloc(bytes);
    s.vals = malloc(bytes);
    s.ref_vals = malloc(bytes);
    s.offsets = malloc((1001 + 1) * sizeof *s.offsets);
    if (!s.in || !s.out || !s.ref || !s.vals || !s.ref_vals || !s.offsets)
        return 2;
    /* touch every page now: the samples should not see the buffers fill */
    memset(s.in, 0, bytes);
    memset(s.out, 0, bytes);
    memset(s.ref, 0, bytes);
    memset(s.vals, 0, bytes);
    memset(s.ref_vals, 0, bytes);
    context_open(&s);
    printf("soak: device %s, max n %zu, context every %" PRIu64 " calls, sample every %" PRIu64
           " calls, seed %" PRIu64 "\n",
           gpgpu_device_name(s.ctx), o.max_n, o.context_every, o.sample, o.seed);

    size_t cap = 1024, m = 0;
    double *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys);
    const double t0 = now(), limit = o.minutes * 60;
    double warm_rss = -1, warm_t = 0;
    uint64_t warm_calls = 0, last_context = 0;
    for (;;) {
        double t = now() - t0;
        if (o.calls ? s.calls >= o.calls : t >= limit)
            break;
        int warm = o.warmup_calls ? s.calls >= o.warmup_calls
                                  : o.calls ? s.calls >= o.calls / 5 : t >= limit / 5;
        if (warm && warm_rss < 0) {
            warm_rss = rss_mib();
            warm_t = t;
            warm_calls = s.calls;
        }
        size_t n = draw_n(&s);
        switch (next(&s) % 8) {
        case 0: op_reduce(&s, n); break;
        case 1: op_scan(&s, n); break;
        case 2: op_sort(&s, n, 0); break;
        case 3: op_sort(&s, n, 1); break;
        case 4: op_histogram(&s, n); break;
        case 5: op_select(&s, n); break;
        case 6: op_segmented(&s, n); break;
        case 7: op_arrays(&s, n); break;
        }
        if (o.context_every && s.calls - last_context >= o.context_every) {
            gpgpu_context_destroy(s.ctx);
            context_open(&s);
            last_context = s.calls;
        }
        if (s.calls % o.sample == 0) {
            double r = rss_mib();
            printf("calls %" PRIu64 " at %.1f s: RSS %.1f MiB, %.0f calls/s%s\n", s.calls,
                   now() - t0, r, s.calls / (now() - t0), warm ? "" : " (warm-up)");
            fflush(stdout);
            if (warm) {
                if (m == cap) {
                    cap *= 2;
                    xs = realloc(xs, cap * sizeof *xs);
                    ys = realloc(ys, cap * sizeof *ys);
                    if (!xs || !ys)
                        return 2;
                }
                xs[m] = (double)s.calls;
                ys[m++] = r;
            }
        }
    }
    double t = now() - t0;
    gpgpu_context_destroy(s.ctx);
    printf("soak: %" PRIu64 " calls in %.1f s (%.0f calls/s), %" PRIu64 " contexts; wrong %"
           PRIu64 ", failed %" PRIu64 ", skipped %" PRIu64 "\n",
           s.calls, t, s.calls / t, s.contexts, s.wrong, s.failed, s.skipped);
    if (m > 1) { /* samples are taken at the same point of the loop */
        printf("soak: warm-up %" PRIu64 " calls (%.1f s, RSS %.1f MiB); RSS %.1f MiB at call %.0f, "
               "%.1f MiB at call %.0f: %+.3f MiB per 100,000 calls (last - first sample), "
               "%+.3f by least squares over %zu samples\n",
               warm_calls, warm_t, warm_rss, ys[0], xs[0], ys[m - 1], xs[m - 1],
               (ys[m - 1] - ys[0]) / (xs[m - 1] - xs[0]) * 1e5, slope(xs, ys, m) * 1e5, m);
    }
    free(xs);
    free(ys);
    free(s.in);
    free(s.out);
    free(s.ref);
    free(s.vals);
    free(s.ref_vals);
    free(s.offsets);
    return s.wrong || s.failed ? 1 : 0;
}
