/*
 * bench_scan.c - gpgpu-bench --op scan: an inclusive SUM scan of n elements
 * between two device buffers, checked against a plain-C loop. It moves at
 * least 2 n elements (each read once, written once).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct {
    bench *b;
    gpgpu_type t;
    size_t n;
    cl_mem in, out;          /* --api buffer */
    gpgpu_array *ain, *aout; /* --api array */
    const void *hin;
    void *hout;
    gpgpu_scan_kind kind;
} scan_call;

static gpgpu_status scan_once(void *arg)
{
    scan_call *c = arg;
    if (c->ain)
        return gpgpu_scan_array(c->b->ctx, GPGPU_SUM, c->kind, c->ain, c->aout);
    if (!c->in)
        return gpgpu_scan(c->b->ctx, c->t, GPGPU_SUM, c->kind, c->hin, c->hout, c->n);
    return gpgpu_scan_buffer(c->b->ctx, c->t, GPGPU_SUM, c->kind, c->in, 0, c->out, 0,
                             c->n, 0, NULL, NULL);
}

/* 1 if out is the inclusive (excl: exclusive) sum of in: exact for integers (wrapping), within
   1e-3 relative (plus 1e-3) of the double-precision sums for floats. */
#define VERIFY_INT(T)                                                                \
    do {                                                                             \
        const T *x = in, *y = out;                                                   \
        T acc = 0;                                                                   \
        for (size_t i = 0; i < n; ++i) {                                             \
            T before = acc;                                                          \
            acc += x[i];                                                             \
            if (y[i] != (excl ? before : acc))                                       \
                return 0;                                                            \
        }                                                                            \
    } while (0)
#define VERIFY_FLOAT(T)                                                              \
    do {                                                                             \
        const T *x = in, *y = out;                                                   \
        double acc = 0;                                                              \
        for (size_t i = 0; i < n; ++i) {                                             \
            double before = acc;                                                     \
            acc += x[i];                                                             \
            double want = excl ? before : acc;                                       \
            if (fabs(y[i] - want) > 1e-3 * fabs(want) + 1e-3)                        \
                return 0;                                                            \
        }                                                                            \
    } while (0)

static int verify(gpgpu_type t, const void *in, const void *out, size_t n, int excl)
{
    switch (t) {
    case GPGPU_I32: /* signed sums wrap like unsigned ones */
    case GPGPU_U32: VERIFY_INT(uint32_t); break;
    case GPGPU_I64:
    case GPGPU_U64: VERIFY_INT(uint64_t); break;
    case GPGPU_F32: VERIFY_FLOAT(float); break;
    case GPGPU_F64: VERIFY_FLOAT(double); break;
    }
    return 1;
}

/* The loop a C programmer writes, into the case's output array. */
#define SERIAL_SCAN(T)                                                               \
    do {                                                                             \
        const T *x = c->hin;                                                         \
        T *y = c->hout, acc = 0;                                                     \
        for (size_t i = 0; i < c->n; ++i)                                            \
            y[i] = acc += x[i];                                                      \
    } while (0)

static void serial(void *arg)
{
    scan_call *c = arg;
    switch (c->t) {
    case GPGPU_I32: case GPGPU_U32: SERIAL_SCAN(uint32_t); break;
    case GPGPU_I64: case GPGPU_U64: SERIAL_SCAN(uint64_t); break;
    case GPGPU_F32: SERIAL_SCAN(float); break;
    case GPGPU_F64: SERIAL_SCAN(double); break;
    }
}

static int run_scan(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    size_t bytes = n * gpgpu_type_size(t);
    void *hin = bench_host_alloc(b, bytes), *hout = bench_host_alloc(b, bytes);
    int excl = p->pattern && !strcmp(p->pattern, "exclusive");
    scan_call c = { b, t, n, NULL, NULL, NULL, NULL, hin, hout,
                    excl ? GPGPU_EXCLUSIVE : GPGPU_INCLUSIVE };
    int rc = -1;
    if (!hin || !hout) {
        fprintf(stderr, "scan: out of host memory for %zu elements\n", n);
        goto out;
    }
    bench_fill(t, hin, n, b->seed, excl ? "random" : p->pattern);
    if (BENCH_ON_BUFFERS(b)) {
        c.in = bench_buffer(b, bytes, hin);
        c.out = bench_buffer(b, bytes, NULL);
        if (!c.in || !c.out)
            goto out;
    } else if (BENCH_ON_ARRAYS(b)) {
        c.ain = bench_array(b, t, n, hin);
        c.aout = bench_array(b, t, n, NULL);
        if (!c.ain || !c.aout)
            goto out;
    }
    r->ms = bench_time(b, scan_once, &c);
    if (r->ms < 0)
        goto out;
    if (c.out && bench_read(b, c.out, bytes, hout) != 0)
        goto out;
    if (c.aout && gpgpu_array_read(b->ctx, c.aout, 0, hout, n) != GPGPU_SUCCESS)
        goto out;
    r->bytes = 2.0 * (double)bytes;
    r->verified = verify(t, hin, hout, n, excl);
    r->serial_ms = bench_wall_ms(serial, &c, b->repeat);
    snprintf(r->note, sizeof r->note, "%s SUM; serial C loop %.3f ms",
             excl ? "exclusive" : "inclusive", r->serial_ms);
    rc = 0;
out:
    BENCH_RELEASE(c.in, c.out);
    BENCH_DESTROY(c.ain, c.aout);
    BENCH_HOST_FREE(b, hin, hout);
    return rc;
}

const bench_op bench_op_scan = {
    "scan",
    run_scan,
    { { GPGPU_U32, { 0, "random" } }, { GPGPU_F32, { 0, "random" } } },
    2,
};
