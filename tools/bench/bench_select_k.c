/*
 * bench_select_k.c - gpgpu-bench --op top_k (the k = 100 largest; --bins K:
 * the K largest, up to 16384) and
 * --op quantiles (the median; --bins Q: Q quantiles at once, at 1/(Q+1)
 * .. Q/(Q+1)), each beside the serial C a programmer would write, timed in
 * the same run (median of the runs, as the library's) and reported in the
 * note: a heap of the k best, then popped into order, for top_k (the
 * library returns them in order); a quickselect on a copy (the copy not
 * timed) per quantile. The results are checked against those baselines.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

enum { TOPK = 100, MAXK = 16384, MAXQ = 64 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- the serial baselines, one per element type ---------------------------- */

/* heap: the k largest of x in a min-heap h (h[0] the smallest kept), then
   in order, largest first (what top_k returns).
   select: moves the r-th smallest of a[0 .. n) to a[r] (three-way
   quickselect, median-of-three pivots). */
#define SERIAL(name, T)                                                            \
    static void name##_sift(T *h, size_t m, size_t at)                             \
    {                                                                              \
        for (;;) {                                                                 \
            size_t c = 2 * at + 1;                                                 \
            if (c >= m)                                                            \
                return;                                                            \
            if (c + 1 < m && h[c + 1] < h[c])                                      \
                c++;                                                               \
            if (!(h[c] < h[at]))                                                   \
                return;                                                            \
            T y = h[at];                                                           \
            h[at] = h[c];                                                          \
            h[c] = y;                                                              \
            at = c;                                                                \
        }                                                                          \
    }                                                                              \
    static void name##_heap(const T *x, size_t n, T *h, size_t k)                  \
    {                                                                              \
        for (size_t i = 0; i < k; i++)                                             \
            h[i] = x[i];                                                           \
        for (size_t i = k / 2; i-- > 0;)                                           \
            name##_sift(h, k, i);                                                  \
        for (size_t i = k; i < n; i++)                                             \
            if (x[i] > h[0]) {                                                     \
                h[0] = x[i];                                                       \
                name##_sift(h, k, 0);                                              \
            }                                                                      \
        for (size_t m = k; m > 1; m--) { /* the k in order, largest first */       \
            T y = h[0];                                                            \
            h[0] = h[m - 1];                                                       \
            h[m - 1] = y;                                                          \
            name##_sift(h, m - 1, 0);                                              \
        }                                                                          \
    }                                                                              \
    static void name##_select(T *a, size_t n, size_t r)                            \
    {                                                                              \
        size_t lo = 0, hi = n;                                                     \
        while (hi - lo > 1) {                                                      \
            T p0 = a[lo], p1 = a[lo + (hi - lo) / 2], p2 = a[hi - 1];              \
            T p = p0 < p1 ? (p1 < p2 ? p1 : p0 < p2 ? p2 : p0)                     \
                          : (p0 < p2 ? p0 : p1 < p2 ? p2 : p1);                    \
            size_t lt = lo, i = lo, gt = hi;                                       \
            while (i < gt) {                                                       \
                T v = a[i];                                                        \
                if (v < p) {                                                       \
                    a[i++] = a[lt];                                                \
                    a[lt++] = v;                                                   \
                } else if (p < v) {                                                \
                    a[i] = a[--gt];                                                \
                    a[gt] = v;                                                     \
                } else {                                                           \
                    i++;                                                           \
                }                                                                  \
            }                                                                      \
            if (r < lt)                                                            \
                hi = lt;                                                           \
            else if (r >= gt)                                                      \
                lo = gt;                                                           \
            else                                                                   \
                return;                                                            \
        }                                                                          \
    }                                                                              \
    /* Quantile q by the linear rule: x[i] and, unless g is 0, the        */     \
    /* smallest after it. */                                                       \
    static double name##_quantile(T *a, size_t n, double q)                        \
    {                                                                              \
        double h = (double)(n - 1) * q, f = (double)(size_t)h, g = h - f;          \
        size_t i = (size_t)f;                                                      \
        name##_select(a, n, i);                                                    \
        double lo = (double)a[i];                                                  \
        if (g == 0)                                                                \
            return lo;                                                             \
        T m = a[i + 1];                                                            \
        for (size_t j = i + 2; j < n; j++)                                         \
            m = a[j] < m ? a[j] : m;                                               \
        volatile double d = (double)m - lo;                                        \
        volatile double e = g * d;                                                 \
        return lo + e;                                                             \
    }
SERIAL(s_i32, int32_t)
SERIAL(s_u32, uint32_t)
SERIAL(s_f32, float)
SERIAL(s_i64, int64_t)
SERIAL(s_u64, uint64_t)
SERIAL(s_f64, double)

#define DISPATCH(t, fn, ...)                                                       \
    switch (t) {                                                                   \
    case GPGPU_I32: fn(s_i32, int32_t, __VA_ARGS__); break;                        \
    case GPGPU_U32: fn(s_u32, uint32_t, __VA_ARGS__); break;                       \
    case GPGPU_F32: fn(s_f32, float, __VA_ARGS__); break;                          \
    case GPGPU_I64: fn(s_i64, int64_t, __VA_ARGS__); break;                        \
    case GPGPU_U64: fn(s_u64, uint64_t, __VA_ARGS__); break;                       \
    case GPGPU_F64: fn(s_f64, double, __VA_ARGS__); break;                         \
    }

#define HEAP(s, T, x, n, h, k) s##_heap((const T *)(x), n, (T *)(h), k)
#define QUANTILE(s, T, a, n, q, out) *(out) = s##_quantile((T *)(a), n, q)

/* ---- the library calls ------------------------------------------------------------ */

typedef struct {
    bench *b;
    gpgpu_type t;
    const void *host;
    size_t n;
    cl_mem in, vals, idx, qout;   /* --api buffer */
    gpgpu_array *arr, *avals, *aidx;  /* --api array */
    size_t k;                 /* top_k: the k largest */
    unsigned char *values;    /* k values */
    uint64_t *indices;        /* k indices */
    size_t nq;
    double q[MAXQ], result[MAXQ];
} select_case;

static gpgpu_status call_top_k(void *arg)
{
    select_case *c = arg;
    if (c->arr)
        return gpgpu_top_k_array(c->b->ctx, c->arr, c->k, GPGPU_DESCENDING, c->avals, c->aidx);
    if (c->in)
        return gpgpu_top_k_buffer(c->b->ctx, c->t, c->in, 0, c->n, c->k, GPGPU_DESCENDING,
                                  c->vals, 0, c->idx, 0, 0, NULL, NULL);
    return gpgpu_top_k(c->b->ctx, c->t, c->host, c->n, c->k, GPGPU_DESCENDING, c->values,
                       c->indices);
}

static gpgpu_status call_quantiles(void *arg)
{
    select_case *c = arg;
    if (c->arr)
        return gpgpu_quantiles_array(c->b->ctx, c->arr, c->q, c->nq, c->result);
    if (c->in)
        return gpgpu_quantiles_buffer(c->b->ctx, c->t, c->in, 0, c->n, c->q, c->nq, c->qout, 0,
                                      0, NULL, NULL);
    return gpgpu_quantiles(c->b->ctx, c->t, c->host, c->n, c->q, c->nq, c->result);
}

/* The case's inputs on the --api's side. */
static int setup(bench *b, select_case *c, int top_k)
{
    size_t size = gpgpu_type_size(c->t);
    if (BENCH_ON_BUFFERS(b)) {
        c->in = bench_buffer(b, c->n * size, c->host);
        c->vals = bench_buffer(b, (c->k ? c->k : 1) * size, NULL);
        c->idx = bench_buffer(b, (c->k ? c->k : 1) * 8, NULL);
        c->qout = bench_buffer(b, MAXQ * 8, NULL);
        return c->in && c->vals && c->idx && c->qout ? 0 : -1;
    }
    if (BENCH_ON_ARRAYS(b)) {
        c->arr = bench_array(b, c->t, c->n, c->host);
        if (top_k) {
            c->avals = bench_array(b, c->t, c->k, NULL);
            c->aidx = bench_array(b, GPGPU_U64, c->k, NULL);
        }
        return c->arr && (!top_k || (c->avals && c->aidx)) ? 0 : -1;
    }
    return 0;
}

static void teardown(select_case *c)
{
    cl_mem m[] = {c->in, c->vals, c->idx, c->qout};
    for (int i = 0; i < 4; i++)
        if (m[i])
            clReleaseMemObject(m[i]);
    gpgpu_array_destroy(c->arr);
    gpgpu_array_destroy(c->avals);
    gpgpu_array_destroy(c->aidx);
}

static int cmp_desc(const void *a, const void *b, void *t);

/* Sorts the heap's k elements descending (type t) for the comparison. */
static void sort_desc(gpgpu_type t, void *h, size_t k)
{
    size_t size = gpgpu_type_size(t);
    unsigned char tmp[8];
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0 && cmp_desc((char *)h + (j - 1) * size, (char *)h + j * size,
                                             &t) > 0; j--) {
            memcpy(tmp, (char *)h + j * size, size);
            memcpy((char *)h + j * size, (char *)h + (j - 1) * size, size);
            memcpy((char *)h + (j - 1) * size, tmp, size);
        }
}

static int cmp_desc(const void *a, const void *b, void *arg)
{
    double x = 0, y = 0;
    gpgpu_type t = *(gpgpu_type *)arg;
#define AS(s, T, p, out) *(out) = (double)*(const T *)(p)
    DISPATCH(t, AS, a, &x)
    DISPATCH(t, AS, b, &y)
#undef AS
    return (x < y) - (x > y);
}

/* The serial top_k, for bench_wall_ms. */
typedef struct {
    gpgpu_type t;
    const void *x;
    size_t n;
    void *heap;
    size_t k;
} heap_case;

static void run_heap(void *arg)
{
    heap_case *h = arg;
    DISPATCH(h->t, HEAP, h->x, h->n, h->heap, h->k)
}

static int run_top_k(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    size_t size = gpgpu_type_size(t);
    void *host = bench_host_alloc(b, n * size + 1);
    const size_t k = p->bins ? p->bins : TOPK;
    select_case c = {b, t, host, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, k, NULL, NULL, 0,
                     {0}, {0}};
    unsigned char *heap = malloc(k * 8);
    int rc = -1;
    c.values = malloc(k * 8);
    c.indices = malloc(k * 8);
    if (!host || !heap || !c.values || !c.indices)
        goto done;
    if (n < k || k > MAXK) {
        fprintf(stderr, "gpgpu-bench: top_k takes --bins K (default %d) up to %d and n >= K\n",
                TOPK, MAXK);
        goto done;
    }
    bench_fill(t, host, n, b->seed, p->pattern);
    if (setup(b, &c, 1))
        goto done;
    r->ms = bench_time(b, call_top_k, &c);
    if (r->ms < 0)
        goto done;
    if (c.vals && bench_read(b, c.vals, k * size, c.values))
        goto done;
    if (c.avals && gpgpu_array_read(b->ctx, c.avals, 0, c.values, k))
        goto done;
    heap_case hc = {t, host, n, heap, k};
    double loop = bench_wall_ms(run_heap, &hc, b->repeat);
    sort_desc(t, heap, k); /* equal floats (both zeros) as the library orders them */
    r->bytes = (double)n * (double)size;
    r->verified = memcmp(heap, c.values, k * size) == 0;
    snprintf(r->note, sizeof r->note, "k = %zu largest; serial heap, %.3f ms (library %.2fx)",
             k, loop, loop / r->ms);
    rc = 0;
done:
    teardown(&c);
    free(heap);
    free(c.values);
    free(c.indices);
    if (host)
        bench_host_free(b, host);
    return rc;
}

static int run_quantiles(bench *b, gpgpu_type t, size_t n, const bench_params *p,
                         bench_result *r)
{
    size_t size = gpgpu_type_size(t);
    void *host = bench_host_alloc(b, n * size + 1), *copy = malloc(n * size + 1);
    select_case c = {b, t, host, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 1,
                     {0.5}, {0}};
    double want[MAXQ];
    int rc = -1;
    if (p->bins > MAXQ) {
        fprintf(stderr, "gpgpu-bench: quantiles takes --bins up to %d (quantiles at once)\n",
                MAXQ);
        goto done;
    }
    for (size_t j = 0; j < p->bins; j++)
        c.q[j] = (double)(j + 1) / (double)(p->bins + 1);
    c.nq = p->bins ? p->bins : 1;
    if (!host || !copy || n == 0)
        goto done;
    bench_fill(t, host, n, b->seed, p->pattern);
    if (setup(b, &c, 0))
        goto done;
    r->ms = bench_time(b, call_quantiles, &c);
    if (r->ms < 0 || (c.qout && bench_read(b, c.qout, c.nq * 8, c.result)))
        goto done;
    /* the median of the runs as bench_wall_ms takes it (a first run that
       warms the caches, or alone past BASELINE_MS), each run's copy
       untimed */
    double runs[64], spent = 0, loop;
    int nr = 0, reps = b->repeat < 1 ? 1 : b->repeat > 64 ? 64 : b->repeat;
    for (int i = -1; i < reps && (i < 1 || spent < BASELINE_MS); i++) {
        memcpy(copy, host, n * size);
        double t0 = now_ms();
        for (size_t j = 0; j < c.nq; j++)
            DISPATCH(t, QUANTILE, copy, n, c.q[j], &want[j])
        t0 = now_ms() - t0;
        if (i >= 0 || t0 > BASELINE_MS)
            runs[nr++] = t0;
        if (i < 0 && t0 > BASELINE_MS)
            break;
        spent += i >= 0 ? t0 : 0;
    }
    for (int i = 1; i < nr; i++) /* insertion sort: a few runs */
        for (int j = i; j > 0 && runs[j - 1] > runs[j]; j--) {
            double y = runs[j];
            runs[j] = runs[j - 1];
            runs[j - 1] = y;
        }
    loop = runs[nr / 2];
    r->bytes = (double)n * (double)size;
    r->verified = memcmp(want, c.result, c.nq * sizeof *want) == 0;
    if (c.nq == 1)
        snprintf(r->note, sizeof r->note,
                 "median; serial quickselect, %.3f ms (library %.2fx)", loop,
                 loop / r->ms);
    else
        snprintf(r->note, sizeof r->note,
                 "%zu quantiles; serial quickselect each, %.3f ms (library %.2fx)",
                 c.nq, loop, loop / r->ms);
    rc = 0;
done:
    teardown(&c);
    free(copy);
    if (host)
        bench_host_free(b, host);
    return rc;
}

const bench_op bench_op_top_k = {
    "top_k", run_top_k, {{GPGPU_F32, {0, NULL}}, {GPGPU_U32, {0, NULL}}}, 2};
const bench_op bench_op_quantiles = {
    "quantiles", run_quantiles, {{GPGPU_F32, {0, NULL}}, {GPGPU_U32, {0, NULL}}}, 2};
