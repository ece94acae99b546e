/*
 * bench_sort.c - gpgpu-bench --op sort and --op sort_pairs (4-byte values).
 *
 * Each timed call first restores the unsorted input (a copy that is not part
 * of the measured time), then sorts it in place with the _buffer form (or
 * the _array form, its input restored by an untimed gpgpu_array_write). The
 * result is checked against a serial single-thread C LSD radix sort of the
 * same keys, timed in the same run and reported in the note as the figure
 * the library has to beat. On a GPU above 2^24 keys the serial sort would
 * cost seconds of machine time for nothing: the result is then checked in
 * one pass instead (in order, the same keys, values a stable permutation).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* ---- the serial baseline ------------------------------------------------ */

/* XOR masks that order key bits as gpgpu_sort does (m1 if the top bit is
   set): totalOrder floats, signed integers. */
static void order_masks(gpgpu_type t, uint64_t *m0, uint64_t *m1)
{
    int is64 = gpgpu_type_size(t) == 8;
    uint64_t sign = is64 ? 1ull << 63 : 1ull << 31, all = is64 ? ~0ull : 0xffffffffull;
    int is_float = t == GPGPU_F32 || t == GPGPU_F64, is_signed = t == GPGPU_I32 || t == GPGPU_I64;
    *m0 = is_float || is_signed ? sign : 0;
    *m1 = is_float ? all : *m0;
}

/* A plain serial LSD radix sort, 8-bit digits, one read for all digit
   counts, passes over constant digits skipped: keys KT, optional uint32_t
   values. k2/v2 are scratch of n elements; the result ends in k/v. */
#define SERIAL_LSD(name, KT)                                                           \
    static void name(KT *k, KT *k2, uint32_t *v, uint32_t *v2, size_t n, KT m0, KT m1) \
    {                                                                                  \
        enum { D = sizeof(KT) };                                                       \
        static size_t count[D][256];                                                   \
        const int top = 8 * D - 1;                                                     \
        KT *src = k, *dst = k2;                                                        \
        uint32_t *vsrc = v, *vdst = v2;                                                \
        memset(count, 0, sizeof count);                                                \
        for (size_t i = 0; i < n; i++) {                                               \
            KT x = k[i] ^ ((k[i] >> top) ? m1 : m0);                                   \
            for (int d = 0; d < D; d++)                                                \
                count[d][(x >> (8 * d)) & 255]++;                                      \
        }                                                                              \
        for (int d = 0; d < D && n > 0; d++) {                                         \
            size_t pos[256], sum = 0;                                                  \
            KT x0 = src[0] ^ ((src[0] >> top) ? m1 : m0);                              \
            if (count[d][(x0 >> (8 * d)) & 255] == n)                                  \
                continue;                                                              \
            for (int u = 0; u < 256; u++) {                                            \
                pos[u] = sum;                                                          \
                sum += count[d][u];                                                    \
            }                                                                          \
            for (size_t i = 0; i < n; i++) {                                           \
                KT x = src[i] ^ ((src[i] >> top) ? m1 : m0);                           \
                size_t p = pos[(x >> (8 * d)) & 255]++;                                \
                dst[p] = src[i];                                                       \
                if (v)                                                                 \
                    vdst[p] = vsrc[i];                                                 \
            }                                                                          \
            KT *kt = src;                                                              \
            src = dst;                                                                 \
            dst = kt;                                                                  \
            uint32_t *vt = vsrc;                                                       \
            vsrc = vdst;                                                               \
            vdst = vt;                                                                 \
        }                                                                              \
        if (src != k) {                                                                \
            memcpy(k, src, n * sizeof *k);                                             \
            if (v)                                                                     \
                memcpy(v, vsrc, n * sizeof *v);                                        \
        }                                                                              \
    }
SERIAL_LSD(serial_lsd32, uint32_t)
SERIAL_LSD(serial_lsd64, uint64_t)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_ms(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts copies of src (and src_vals) into keys (and vals) serially, once
   untimed and then runs times; returns the median time of the sort alone
   in ms (the copies untimed), or a negative value when out of memory. */
static double serial_sort(gpgpu_type t, const void *src, const uint32_t *src_vals, void *keys,
                          uint32_t *vals, size_t n, int runs)
{
    size_t ks = gpgpu_type_size(t);
    void *k2 = malloc(n * ks + 1);
    uint32_t *v2 = vals ? malloc(n * 4 + 1) : NULL;
    uint64_t m0, m1;
    double ms[64];

    if (!k2 || (vals && !v2)) {
        free(k2);
        free(v2);
        return -1;
    }
    runs = runs < 1 ? 1 : runs > 64 ? 64 : runs;
    order_masks(t, &m0, &m1);
    for (int r = -1; r < runs; r++) {
        memcpy(keys, src, n * ks);
        if (vals)
            memcpy(vals, src_vals, n * 4);
        double t0 = now_ms();
        if (ks == 4)
            serial_lsd32(keys, k2, vals, v2, n, (uint32_t)m0, (uint32_t)m1);
        else
            serial_lsd64(keys, k2, vals, v2, n, m0, m1);
        if (r >= 0)
            ms[r] = now_ms() - t0;
        if (r == 0 && ms[0] > 200) /* big sorts: the median of 3 */
            runs = runs < 3 ? runs : 3;
    }
    free(k2);
    free(v2);
    qsort(ms, (size_t)runs, sizeof ms[0], cmp_ms);
    return ms[runs / 2];
}

/* ---- the one-pass check ------------------------------------------------- */

/* The key in the sort's order as an unsigned integer. */
static uint64_t order_key(const void *keys, size_t ks, size_t i, uint64_t m0, uint64_t m1)
{
    uint64_t x = ks == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
    return x ^ ((x >> (8 * ks - 1)) ? m1 : m0);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

/* Whether got is keys in order: nondecreasing, the same keys (by a sum of
   hashes; exactly, through the values, for pairs: vals[i] was i mod 2^32,
   so each names the first unused index of that residue whose key is
   got[i], and those indices must be a permutation, increasing among equal
   keys). */
static int check_sorted(gpgpu_type t, const void *keys, const void *got,
                        const uint32_t *got_vals, size_t n)
{
    size_t ks = gpgpu_type_size(t), prev_at = 0;
    uint64_t m0, m1, hk = 0, hg = 0;
    unsigned char *seen = got_vals ? calloc(n + 1, 1) : NULL;
    int ok = !got_vals || seen;

    order_masks(t, &m0, &m1);
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t x = order_key(got, ks, i, m0, m1);
        size_t at = 0;
        if (got_vals) {
            at = got_vals[i];
            while (at < n && (seen[at] || order_key(keys, ks, at, m0, m1) != x))
                at += (size_t)UINT32_MAX + 1;
            ok = at < n;
            if (ok)
                seen[at] = 1;
        }
        if (ok && i > 0) {
            uint64_t prev = order_key(got, ks, i - 1, m0, m1);
            ok = prev < x || (prev == x && (!got_vals || prev_at < at));
        }
        prev_at = at;
        hk += mix(order_key(keys, ks, i, m0, m1));
        hg += mix(x);
    }
    free(seen);
    return ok && hk == hg;
}

/* The serial sort runs on CPU devices and up to 2^24 keys on others. */
static int serial_wanted(bench *b, size_t n)
{
    cl_device_id dev;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    if (n <= (1u << 24) || !b->cl)
        return 1;
    if (clGetCommandQueueInfo(b->queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) ||
        clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL))
        return 1;
    return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* ---- the library -------------------------------------------------------- */

typedef struct {
    bench *b;
    gpgpu_type t;
    size_t n, ks;
    cl_mem orig, keys, orig_vals, vals; /* device: restored before each call */
    void *host_orig, *host_keys;        /* host fallback */
    uint32_t *host_orig_vals, *host_vals;
    gpgpu_array *akeys, *avals;         /* --api array */
} sort_case;

/* Host calls: the unsorted input back in place, untimed. */
static void restore_host(void *arg)
{
    sort_case *c = arg;
    memcpy(c->host_keys, c->host_orig, c->n * c->ks);
    if (c->host_vals)
        memcpy(c->host_vals, c->host_orig_vals, c->n * 4);
}

/* Arrays: the unsorted input written back, untimed. */
static void restore_arrays(void *arg)
{
    sort_case *c = arg;
    if (gpgpu_array_write(c->b->ctx, c->akeys, 0, c->host_orig, c->n) != GPGPU_SUCCESS ||
        (c->avals &&
         gpgpu_array_write(c->b->ctx, c->avals, 0, c->host_orig_vals, c->n) != GPGPU_SUCCESS))
        fprintf(stderr, "sort: restoring the arrays failed: %s\n", gpgpu_last_error(c->b->ctx));
}

static gpgpu_status call(void *arg)
{
    sort_case *c = arg;
    bench *b = c->b;
    if (c->akeys)
        return c->avals ? gpgpu_sort_pairs_array(b->ctx, c->akeys, c->avals, 0)
                        : gpgpu_sort_array(b->ctx, c->akeys, 0);
    if (!c->orig) {
        if (!c->host_vals)
            return gpgpu_sort(b->ctx, c->t, c->host_keys, c->n, 0);
        return gpgpu_sort_pairs(b->ctx, c->t, c->host_keys, c->host_vals, 4, c->n, 0);
    }
    if (clEnqueueCopyBuffer(b->queue, c->orig, c->keys, 0, 0, c->n * c->ks, 0, NULL, NULL))
        return GPGPU_ERROR_OPENCL;
    if (!c->vals)
        return gpgpu_sort_buffer(b->ctx, c->t, c->keys, 0, c->n, 0, 0, NULL, NULL);
    if (clEnqueueCopyBuffer(b->queue, c->orig_vals, c->vals, 0, 0, c->n * 4, 0, NULL, NULL))
        return GPGPU_ERROR_OPENCL;
    return gpgpu_sort_pairs_buffer(b->ctx, c->t, c->keys, 0, c->vals, 0, 4, c->n, 0, 0, NULL,
                                   NULL);
}

/* Times the library on keys (and vals), leaving its result in got/got_vals. */
static double time_library(bench *b, sort_case *c, const void *keys, const uint32_t *vals,
                           void *got, uint32_t *got_vals)
{
    size_t kb = c->n * c->ks, vb = c->n * 4;
    double ms = -1;
    if (BENCH_ON_ARRAYS(b)) {
        c->host_orig = (void *)keys;
        c->host_orig_vals = (uint32_t *)vals;
        c->akeys = bench_array(b, c->t, c->n, NULL);
        c->avals = vals ? bench_array(b, GPGPU_U32, c->n, NULL) : NULL;
        if (c->akeys && (!vals || c->avals)) {
            ms = bench_time_prepared(b, restore_arrays, call, c);
            if (ms >= 0 && (gpgpu_array_read(b->ctx, c->akeys, 0, got, c->n) ||
                            (vals && gpgpu_array_read(b->ctx, c->avals, 0, got_vals, c->n))))
                ms = -1;
        }
        BENCH_DESTROY(c->akeys, c->avals);
        return ms;
    }
    if (!BENCH_ON_BUFFERS(b)) {
        c->host_orig = (void *)keys;
        c->host_keys = got;
        c->host_orig_vals = (uint32_t *)vals;
        c->host_vals = got_vals;
        return bench_time_prepared(b, restore_host, call, c);
    }
    c->orig = bench_buffer(b, kb, keys);
    c->keys = bench_buffer(b, kb, NULL);
    c->orig_vals = vals ? bench_buffer(b, vb, vals) : NULL;
    c->vals = vals ? bench_buffer(b, vb, NULL) : NULL;
    if (c->orig && c->keys && (!vals || (c->orig_vals && c->vals))) {
        ms = bench_time(b, call, c);
        if (ms >= 0 && (bench_read(b, c->keys, kb, got) ||
                        (vals && bench_read(b, c->vals, vb, got_vals))))
            ms = -1;
    }
    cl_mem all[] = { c->orig, c->keys, c->orig_vals, c->vals };
    for (int i = 0; i < 4; i++)
        BENCH_RELEASE(all[i]);
    return ms;
}

static int run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r,
               int pairs)
{
    size_t ks = gpgpu_type_size(t);
    /* got and got_vals are what a host call sorts in place */
    void *keys = malloc(n * ks + 1), *got = bench_host_alloc(b, n * ks + 1);
    void *want = malloc(n * ks + 1);
    uint32_t *vals = pairs ? malloc(n * 4 + 1) : NULL;
    uint32_t *got_vals = pairs ? bench_host_alloc(b, n * 4 + 1) : NULL;
    uint32_t *want_vals = pairs ? malloc(n * 4 + 1) : NULL;
    sort_case c = { b, t, n, ks, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    double ms = -1, serial = -1;
    int with_serial = 1;

    if (keys && got && want && (!pairs || (vals && got_vals && want_vals))) {
        bench_fill(t, keys, n, b->seed, p->pattern);
        for (size_t i = 0; pairs && i < n; i++)
            vals[i] = (uint32_t)i;
        with_serial = serial_wanted(b, n);
        serial = with_serial ? serial_sort(t, keys, vals, want, want_vals, n, b->repeat) : 0;
        ms = time_library(b, &c, keys, vals, got, got_vals);
    }
    if (ms >= 0 && serial >= 0 && with_serial) {
        r->ms = ms;
        r->bytes = 2.0 * n * (ks + (pairs ? 4 : 0));
        r->verified = !memcmp(got, want, n * ks) && (!pairs || !memcmp(got_vals, want_vals, n * 4));
        r->serial_ms = serial;
        snprintf(r->note, sizeof r->note, "%s input; serial C LSD radix sort %.3f ms",
                 p->pattern ? p->pattern : "random", serial);
    } else if (ms >= 0 && serial >= 0) {
        r->ms = ms;
        r->bytes = 2.0 * n * (ks + (pairs ? 4 : 0));
        r->verified = check_sorted(t, keys, got, got_vals, n);
        snprintf(r->note, sizeof r->note, "%s input; checked in one pass (no serial sort)",
                 p->pattern ? p->pattern : "random");
    } else {
        fprintf(stderr, "sort: %s\n", serial < 0 ? "out of host memory" : "the sort failed");
    }
    free(keys);
    bench_host_free(b, got);
    free(want);
    free(vals);
    bench_host_free(b, got_vals);
    free(want_vals);
    return ms >= 0 && serial >= 0 ? 0 : -1;
}

static int run_keys(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run(b, t, n, p, r, 0);
}

static int run_pairs(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run(b, t, n, p, r, 1);
}

#define SORT_SUITE                                                                   \
    { { GPGPU_U32, { 0, "random" } }, { GPGPU_F32, { 0, "random" } },                \
      { GPGPU_U32, { 0, "sorted" } }, { GPGPU_U32, { 0, "narrow16" } } },            \
        4

const bench_op bench_op_sort = { "sort", run_keys, SORT_SUITE };
const bench_op bench_op_sort_pairs = { "sort_pairs", run_pairs, SORT_SUITE };
