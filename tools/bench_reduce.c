/* bench_reduce.c - gpgpu-bench's reduce (SUM): one word read per element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct {
    bench *b;
    gpgpu_type t;
    const void *host;
    cl_mem in, out;
    size_t n;
    unsigned char result[8];
} reduce_case;

static gpgpu_status call(void *arg)
{
    reduce_case *c = arg;
    if (!c->b->queue)
        return gpgpu_reduce(c->b->ctx, c->t, GPGPU_SUM, c->host, c->n, c->result);
    return gpgpu_reduce_buffer(c->b->ctx, c->t, GPGPU_SUM, c->in, 0, c->n, c->out, 0, 0, NULL,
                               NULL);
}

static int run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    size_t size = gpgpu_type_size(t);
    void *host = malloc(n * size + 1);
    reduce_case c = {b, t, host, NULL, NULL, n, {0}};
    int rc = -1;
    if (!host)
        return -1;
    bench_fill(t, host, n, b->seed, p->pattern);
    if (b->queue) {
        c.in = bench_buffer(b, n * size, host);
        c.out = bench_buffer(b, 8, NULL);
        if (!c.in || !c.out)
            goto done;
    }
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0)
        goto done;
    if (b->queue && bench_read(b, c.out, size, c.result))
        goto done;
    r->bytes = (double)n * (double)size;
    /* floats: n * eps * sum |x| bounds any summation order's rounding */
    r->verified = bench_check_sum(t, host, n, 0, t == GPGPU_F32 ? 1e-6 : 1e-14, c.result);
    snprintf(r->note, sizeof r->note, "sum");
    rc = 0;
done:
    if (c.in)
        clReleaseMemObject(c.in);
    if (c.out)
        clReleaseMemObject(c.out);
    free(host);
    return rc;
}

const bench_op bench_op_reduce = {
    "reduce", run, {{GPGPU_U32, {0, NULL}}, {GPGPU_F32, {0, NULL}}}, 2};
