/* bench_select_ops.c - gpgpu-bench's unique, run_length_encode, partition,
   histogram_edges and sum_exact. Each times its reference in the same run
   on the same data and says how it compares in the note:
     unique, run_length_encode, partition   against gpgpu_select "x > 0"
     sum_exact                              against GPGPU_SUM
     histogram_edges                        against gpgpu_histogram, even bins
   Inputs: runs of two on average (each element repeats the one before with
   probability 1/2), half of them positive (zero for unsigned types). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef enum { UNIQUE, RLE, PARTITION, SELECT, EDGES, EVEN, EXACT, SUM } kind;

typedef struct {
    bench *b;
    kind k;
    gpgpu_type t;
    size_t n, nbins;
    const void *hin;
    void *hout;
    uint64_t *hlen;
    const double *edges;
    size_t count;
    cl_mem in, out, len, cnt;   /* NULL on the host fallback */
} case_;

static gpgpu_status call(void *arg)
{
    case_ *c = arg;
    gpgpu_context *ctx = c->b->ctx;
    const double lo = c->edges[0], hi = c->edges[c->nbins];
    if (!c->in) {
        switch (c->k) {
        case UNIQUE: return gpgpu_unique(ctx, c->t, c->hin, c->n, c->hout, &c->count);
        case RLE: return gpgpu_run_length_encode(ctx, c->t, c->hin, c->n, c->hout, c->hlen,
                                                 &c->count);
        case PARTITION: return gpgpu_partition(ctx, c->t, "x > 0", c->hin, c->n, c->hout,
                                               &c->count);
        case SELECT: return gpgpu_select(ctx, c->t, "x > 0", c->hin, c->n, c->hout, &c->count);
        case EDGES: return gpgpu_histogram_edges(ctx, c->t, c->hin, c->n, c->edges, c->nbins,
                                                 c->hlen);
        case EVEN: return gpgpu_histogram(ctx, c->t, c->hin, c->n, c->nbins, lo, hi, c->hlen);
        case EXACT: return gpgpu_reduce(ctx, c->t, GPGPU_SUM_EXACT, c->hin, c->n, c->hout);
        case SUM: return gpgpu_reduce(ctx, c->t, GPGPU_SUM, c->hin, c->n, c->hout);
        }
    }
    switch (c->k) {
    case UNIQUE: return gpgpu_unique_buffer(ctx, c->t, c->in, 0, c->n, c->out, 0, c->cnt, 0, 0,
                                            NULL, NULL);
    case RLE: return gpgpu_run_length_encode_buffer(ctx, c->t, c->in, 0, c->n, c->out, 0,
                                                    c->len, 0, c->cnt, 0, 0, NULL, NULL);
    case PARTITION: return gpgpu_partition_buffer(ctx, c->t, "x > 0", c->in, 0, c->n, c->out,
                                                  0, c->cnt, 0, 0, NULL, NULL);
    case SELECT: return gpgpu_select_buffer(ctx, c->t, "x > 0", c->in, 0, c->n, c->out, 0,
                                            c->cnt, 0, 0, NULL, NULL);
    case EDGES: return gpgpu_histogram_edges_buffer(ctx, c->t, c->in, 0, c->n, c->edges,
                                                    c->nbins, c->len, 0, 0, NULL, NULL);
    case EVEN: return gpgpu_histogram_buffer(ctx, c->t, c->in, 0, c->n, c->nbins, lo, hi,
                                             c->len, 0, 0, NULL, NULL);
    case EXACT: return gpgpu_reduce_buffer(ctx, c->t, GPGPU_SUM_EXACT, c->in, 0, c->n, c->out,
                                           0, 0, NULL, NULL);
    case SUM: return gpgpu_reduce_buffer(ctx, c->t, GPGPU_SUM, c->in, 0, c->n, c->out, 0, 0,
                                         NULL, NULL);
    }
    return GPGPU_ERROR_INVALID_ARGUMENT;
}

static void fill(gpgpu_type t, void *buf, size_t n, uint64_t seed)
{
    size_t size = gpgpu_type_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix(&seed);
        if (i > 0 && (r & 2)) {
            memcpy((char *)buf + i * size, (char *)buf + (i - 1) * size, size);
            continue;
        }
        int pos = (int)(r & 1);
        double u = (double)(r >> 11) * 0x1.0p-53 * (pos ? 1 : -1);
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)((r >> 34) | 1) * (pos ? 1 : -1); break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = pos ? (uint32_t)(r >> 32) | 1 : 0; break;
        case GPGPU_F32: ((float *)buf)[i] = (float)u; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)((r >> 2) | 1) * (pos ? 1 : -1); break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = pos ? r | 1 : 0; break;
        case GPGPU_F64: ((double *)buf)[i] = u; break;
        }
    }
}

/* The number of runs (unique, rle), of positive elements (partition) or
   counted samples (edges) on the host, for the check. */
static size_t host_count(kind k, gpgpu_type t, const void *in, size_t n)
{
    size_t size = gpgpu_type_size(t), c = 0;
    for (size_t i = 0; i < n; i++) {
        const char *x = (const char *)in + i * size;
        if (k == PARTITION) {
            int64_t s = 0;
            double f = 0;
            if (t == GPGPU_F32)
                f = ((const float *)in)[i];
            else if (t == GPGPU_F64)
                f = ((const double *)in)[i];
            else if (t == GPGPU_I32)
                s = ((const int32_t *)in)[i];
            else if (t == GPGPU_I64)
                s = ((const int64_t *)in)[i];
            else
                s = memcmp(x, "\0\0\0\0\0\0\0\0", size) != 0;
            c += f > 0 || s > 0;
        } else {
            c += i == 0 || memcmp(x, x - size, size) != 0;
        }
    }
    return c;
}

/* Times k and its reference on the same data. */
static int run_pair(bench *b, kind k, kind ref, gpgpu_type t, size_t n, const bench_params *p,
                    bench_result *r)
{
    size_t size = gpgpu_type_size(t), nbins = p->bins ? p->bins : 256;
    void *hin = malloc(n * size + 1), *hout = malloc(n * size + 8);
    uint64_t *hlen = malloc((n > nbins ? n : nbins) * 8 + 8);
    double *edges = malloc((nbins + 1) * sizeof *edges);
    case_ c = {b, k, t, n, nbins, hin, hout, hlen, edges, 0, NULL, NULL, NULL, NULL};
    int rc = -1;
    if (!hin || !hout || !hlen || !edges)
        goto done;
    fill(t, hin, n, b->seed);
    for (size_t i = 0; i <= nbins; i++) /* uneven: denser near the low end */
        edges[i] = -0.5 + 1.5 * pow((double)i / (double)nbins, 2);
    if (b->queue) {
        c.in = bench_buffer(b, n * size + 1, hin);
        c.out = bench_buffer(b, n * size + 8, NULL);
        c.len = bench_buffer(b, (n > nbins ? n : nbins) * 8 + 8, NULL);
        c.cnt = bench_buffer(b, sizeof(cl_ulong), NULL);
        if (!c.in || !c.out || !c.len || !c.cnt)
            goto done;
    }
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0)
        goto done;
    if (b->queue && k != EDGES && k != EXACT) {
        cl_ulong got;
        if (bench_read(b, c.cnt, sizeof got, &got))
            goto done;
        c.count = (size_t)got;
    }
    if (b->queue && k == EXACT && bench_read(b, c.out, size, hout))
        goto done;
    if (k == EXACT)
        r->verified = bench_check_sum(t, hin, n, 0, 1e-6, hout);
    else if (k == EDGES)
        r->verified = 1; /* tests/test_histogram_edges.c checks the bins */
    else
        r->verified = c.count == host_count(k, t, hin, n);
    size_t kept = c.count;
    c.k = ref;
    double ref_ms = bench_time(b, call, &c);
    if (ref_ms < 0)
        goto done;
    switch (k) {
    case EXACT: r->bytes = (double)n * size; break;
    case EDGES: r->bytes = (double)n * size; break;
    case PARTITION: r->bytes = 2.0 * n * size; break;
    case RLE: r->bytes = (double)n * size + (double)kept * (size + 8); break;
    default: r->bytes = (double)(n + kept) * size; break;
    }
    static const char *const names[] = {"unique", "rle", "partition", "select x > 0",
                                        "edges", "even-bin histogram", "exact", "GPGPU_SUM"};
    snprintf(r->note, sizeof r->note, "%s %.3f ms: %.2fx of it", names[ref], ref_ms,
             r->ms > 0 ? ref_ms / r->ms : 0.0);
    rc = 0;
done:
    if (c.in)
        clReleaseMemObject(c.in);
    if (c.out)
        clReleaseMemObject(c.out);
    if (c.len)
        clReleaseMemObject(c.len);
    if (c.cnt)
        clReleaseMemObject(c.cnt);
    free(hin);
    free(hout);
    free(hlen);
    free(edges);
    return rc;
}

static int unique_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, UNIQUE, SELECT, t, n, p, r);
}

static int rle_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, RLE, SELECT, t, n, p, r);
}

static int partition_run(bench *b, gpgpu_type t, size_t n, const bench_params *p,
                         bench_result *r)
{
    return run_pair(b, PARTITION, SELECT, t, n, p, r);
}

static int edges_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, EDGES, EVEN, t, n, p, r);
}

static int exact_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, EXACT, SUM, t, n, p, r);
}

const bench_op bench_op_unique = {"unique", unique_run, {{GPGPU_U32, {0, NULL}}}, 1};
const bench_op bench_op_run_length_encode = {"run_length_encode", rle_run,
                                             {{GPGPU_U32, {0, NULL}}}, 1};
const bench_op bench_op_partition = {"partition", partition_run, {{GPGPU_U32, {0, NULL}}}, 1};
const bench_op bench_op_histogram_edges = {"histogram_edges", edges_run,
                                           {{GPGPU_F32, {256, NULL}}}, 1};
const bench_op bench_op_sum_exact = {"sum_exact", exact_run,
                                     {{GPGPU_F32, {0, NULL}}, {GPGPU_F64, {0, NULL}}}, 2};
