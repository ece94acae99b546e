/* bench_reduce.c - gpgpu-bench's reduce (SUM): one word read per element;
   bench_userop.c's transform_reduce runs through the same code with a map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct {
    bench *b;
    gpgpu_type t;
    const char *map;         /* NULL: plain reduce */
    const void *host;
    cl_mem in, out;          /* --api buffer */
    gpgpu_array *arr;        /* --api array */
    size_t n;
    unsigned char result[8];
} reduce_case;

/* On device buffers, arrays or host memory, with or without the map. */
static gpgpu_status call(void *arg)
{
    reduce_case *c = arg;
    if (c->arr)
        return c->map ? gpgpu_transform_reduce_array(c->b->ctx, c->map, GPGPU_SUM, c->arr,
                                                     c->result)
                      : gpgpu_reduce_array(c->b->ctx, GPGPU_SUM, c->arr, c->result);
    if (!c->in)
        return c->map ? gpgpu_transform_reduce(c->b->ctx, c->t, c->map, GPGPU_SUM, c->host, c->n,
                                               c->result)
                      : gpgpu_reduce(c->b->ctx, c->t, GPGPU_SUM, c->host, c->n, c->result);
    return c->map ? gpgpu_transform_reduce_buffer(c->b->ctx, c->t, c->map, GPGPU_SUM, c->in, 0,
                                                  c->n, c->out, 0, 0, NULL, NULL)
                  : gpgpu_reduce_buffer(c->b->ctx, c->t, GPGPU_SUM, c->in, 0, c->n, c->out, 0,
                                        0, NULL, NULL);
}

/* The loop a C programmer writes: one accumulator, in index order. */
typedef struct {
    gpgpu_type t;
    const void *in;
    size_t n;
    int square;            /* transform_reduce's x*x */
    volatile double sink;  /* keeps the loop from being optimised away */
} serial_sum;

#define SERIAL_SUM(T, ACC)                                                   \
    do {                                                                     \
        const T *x = s->in;                                                  \
        ACC acc = 0;                                                         \
        if (s->square)                                                       \
            for (size_t i = 0; i < s->n; i++)                                \
                acc += (ACC)(x[i] * x[i]);                                   \
        else                                                                 \
            for (size_t i = 0; i < s->n; i++)                                \
                acc += x[i];                                                 \
        s->sink = (double)acc;                                               \
    } while (0)

static void serial(void *arg)
{
    serial_sum *s = arg;
    switch (s->t) {
    case GPGPU_I32: case GPGPU_U32: SERIAL_SUM(uint32_t, uint32_t); break;
    case GPGPU_I64: case GPGPU_U64: SERIAL_SUM(uint64_t, uint64_t); break;
    case GPGPU_F32: SERIAL_SUM(float, float); break;
    case GPGPU_F64: SERIAL_SUM(double, double); break;
    }
}

int bench_sum_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r,
                  const char *map)
{
    size_t size = gpgpu_type_size(t);
    void *host = bench_host_alloc(b, n * size + 1);
    reduce_case c = {b, t, map, host, NULL, NULL, NULL, n, {0}};
    int rc = -1;
    if (!host)
        return -1;
    bench_fill(t, host, n, b->seed, p->pattern);
    if (BENCH_ON_BUFFERS(b)) {
        c.in = bench_buffer(b, n * size, host);
        c.out = bench_buffer(b, 8, NULL);
        if (!c.in || !c.out)
            goto done;
    } else if (BENCH_ON_ARRAYS(b) && !(c.arr = bench_array(b, t, n, host))) {
        goto done;
    }
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0 || (c.out && bench_read(b, c.out, size, c.result)))
        goto done;
    r->bytes = (double)n * (double)size;
    /* Floats: n * eps * sum |x| bounds any summation order's rounding; with
       the map, a work item's long run of float additions loses ~1e-5 of 2^24
       squares in [0, 1), as a plain reduce does. */
    double rel = map ? (t == GPGPU_F32 ? 1e-4 : 1e-12) : (t == GPGPU_F32 ? 1e-6 : 1e-14);
    r->verified = bench_check_sum(t, host, n, map != NULL, rel, c.result);
    serial_sum s = {t, host, n, map != NULL, 0};
    r->serial_ms = bench_wall_ms(serial, &s, b->repeat);
    snprintf(r->note, sizeof r->note, "sum%s%s; serial C loop %.3f ms", map ? " of " : "",
             map ? map : "", r->serial_ms);
    rc = 0;
done:
    BENCH_RELEASE(c.in, c.out);
    gpgpu_array_destroy(c.arr);
    bench_host_free(b, host);
    return rc;
}

static int run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return bench_sum_run(b, t, n, p, r, NULL);
}

const bench_op bench_op_reduce = {
    "reduce", run, {{GPGPU_U32, {0, NULL}}, {GPGPU_F32, {0, NULL}}}, 2};
