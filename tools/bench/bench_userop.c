/* bench_userop.c - gpgpu-bench's run-time expressions:
     transform_reduce  SUM of x*x (a squared norm): one word read per element,
                       to compare with --op reduce (the map should be free);
     select            keep x > 0, with half the elements positive: one word
                       read per element and one written per kept element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- transform_reduce ------------------------------------------------------ */

/* The squared norm through bench_reduce.c's code, so that the two compare. */
static int tr_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return bench_sum_run(b, t, n, p, r, "x*x");
}

const bench_op bench_op_transform_reduce = {
    "transform_reduce", tr_run, {{GPGPU_F32, {0, NULL}}, {GPGPU_U32, {0, NULL}}}, 2};

/* ---- select ---------------------------------------------------------------- */

typedef struct {
    bench *b;
    gpgpu_type t;
    size_t n;
    const void *hin;
    void *hout;
    size_t count;
    cl_mem in, out, cnt;     /* --api buffer */
    gpgpu_array *ain, *aout; /* --api array */
} sel_case;

/* The serial loop: keep x > 0, in order, into scratch. */
typedef struct {
    gpgpu_type t;
    size_t n;
    const void *in;
    void *out;
    volatile size_t sink;
} sel_serial;

#define SEL_SERIAL(T)                                                        \
    do {                                                                     \
        size_t k = 0;                                                        \
        BENCH_SERIAL_KEEP(T, s->in, s->n, s->out, k, BENCH_POSITIVE);        \
        s->sink = k;                                                         \
    } while (0)

static void sel_serial_loop(void *arg)
{
    sel_serial *s = arg;
    BENCH_BY_TYPE(s->t, SEL_SERIAL)
}

static gpgpu_status sel_call(void *arg)
{
    sel_case *c = arg;
    if (c->ain)
        return gpgpu_select_array(c->b->ctx, "x > 0", c->ain, c->aout, &c->count);
    if (!c->in)
        return gpgpu_select(c->b->ctx, c->t, "x > 0", c->hin, c->n, c->hout, &c->count);
    return gpgpu_select_buffer(c->b->ctx, c->t, "x > 0", c->in, 0, c->n, c->out, 0, c->cnt, 0,
                               0, NULL, NULL);
}

/* Half the elements positive, at random places; the rest negative, or zero
   for unsigned types. */
static void sel_fill(gpgpu_type t, void *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix(&seed);
        int pos = (int)(r & 1);
        double u = (double)(r >> 11) * 0x1.0p-53 * (pos ? 1 : -1);
        int64_t s = (int64_t)((r >> 2) | 1) * (pos ? 1 : -1);
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)((r >> 34) | 1) * (pos ? 1 : -1); break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = pos ? (uint32_t)(r >> 32) | 1 : 0; break;
        case GPGPU_F32: ((float *)buf)[i] = pos ? (float)u + 0x1p-20f : (float)u; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = s; break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = pos ? r | 1 : 0; break;
        case GPGPU_F64: ((double *)buf)[i] = pos ? u + 0x1p-40 : u; break;
        }
    }
}

static int is_positive(gpgpu_type t, const void *in, size_t i)
{
    switch (t) {
    case GPGPU_I32: return ((const int32_t *)in)[i] > 0;
    case GPGPU_U32: return ((const uint32_t *)in)[i] > 0;
    case GPGPU_F32: return ((const float *)in)[i] > 0;
    case GPGPU_I64: return ((const int64_t *)in)[i] > 0;
    case GPGPU_U64: return ((const uint64_t *)in)[i] > 0;
    case GPGPU_F64: return ((const double *)in)[i] > 0;
    }
    return 0;
}

static int sel_verify(gpgpu_type t, const void *in, size_t n, const void *out, size_t count)
{
    size_t size = gpgpu_type_size(t), k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_positive(t, in, i))
            continue;
        if (k >= count || memcmp((const char *)in + i * size, (const char *)out + k * size, size))
            return 0;
        k++;
    }
    return k == count;
}

static int sel_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    size_t size = gpgpu_type_size(t);
    void *hin = bench_host_alloc(b, n * size + 1), *hout = bench_host_alloc(b, n * size + 1);
    sel_case c = {b, t, n, hin, hout, 0, NULL, NULL, NULL, NULL, NULL};
    int rc = -1;
    (void)p;
    if (!hin || !hout)
        goto done;
    sel_fill(t, hin, n, b->seed);
    if (BENCH_ON_BUFFERS(b)) {
        c.in = bench_buffer(b, n * size, hin);
        c.out = bench_buffer(b, n * size, NULL);
        c.cnt = bench_buffer(b, sizeof(cl_ulong), NULL);
        if (!c.in || !c.out || !c.cnt)
            goto done;
    } else if (BENCH_ON_ARRAYS(b)) {
        c.ain = bench_array(b, t, n, hin);
        c.aout = bench_array(b, t, n, NULL);
        if (!c.ain || !c.aout)
            goto done;
    }
    r->ms = bench_time(b, sel_call, &c);
    if (r->ms < 0)
        goto done;
    if (c.in) {
        cl_ulong got;
        if (bench_read(b, c.cnt, sizeof got, &got) || got > n ||
            bench_read(b, c.out, (size_t)got * size, hout))
            goto done;
        c.count = (size_t)got;
    }
    if (c.aout && (c.count > n || gpgpu_array_read(b->ctx, c.aout, 0, hout, c.count)))
        goto done;
    r->bytes = (double)(n + c.count) * (double)size;
    r->verified = sel_verify(t, hin, n, hout, c.count);
    void *scratch = malloc(n * size + 1);
    if (scratch) {
        sel_serial ss = {t, n, hin, scratch, 0};
        r->serial_ms = bench_wall_ms(sel_serial_loop, &ss, b->repeat);
        free(scratch);
    }
    snprintf(r->note, sizeof r->note, "x > 0, %.1f%% kept; serial C loop %.3f ms",
             n ? 100.0 * c.count / n : 0.0, r->serial_ms);
    rc = 0;
done:
    BENCH_RELEASE(c.in, c.out, c.cnt);
    BENCH_DESTROY(c.ain, c.aout);
    BENCH_HOST_FREE(b, hin, hout);
    return rc;
}

const bench_op bench_op_select = {
    "select", sel_run, {{GPGPU_U32, {0, NULL}}, {GPGPU_F32, {0, NULL}}}, 2};
