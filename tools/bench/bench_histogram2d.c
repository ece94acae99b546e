/*
 * bench_histogram2d.c - gpgpu-bench --op histogram2d [--bins B] and
 * --op histogram_weighted [--bins B].
 *
 * f32 samples in [0, 1) (x, and y drawn apart from it), f32 weights in
 * [0, 1): histogram2d counts B x B cells (default 256 x 256) over [0, 1)^2,
 * histogram_weighted sums the weights into B bins (default 256). Each case
 * is checked against the host fallback (counts exactly; weighted sums within
 * the documented bound) and carries the serial C loop of the same data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct {
    bench *b;
    int two_d;
    size_t n, nb, ncells;
    const float *x, *y, *w;            /* host data */
    cl_mem bx, by, bw, out;            /* --api buffer */
    gpgpu_array *ax, *ay, *aw;         /* --api array */
    void *cells;                       /* uint64_t (2-D) or double (weighted) */
} h2_case;

static gpgpu_status call(void *arg)
{
    h2_case *c = arg;
    gpgpu_context *ctx = c->b->ctx;
    const size_t nb = c->nb, n = c->n;
    if (c->two_d) {
        if (c->ax)
            return gpgpu_histogram2d_array(ctx, c->ax, c->ay, nb, 0, 1, nb, 0, 1, c->cells);
        if (c->bx)
            return gpgpu_histogram2d_buffer(ctx, GPGPU_F32, c->bx, 0, c->by, 0, n, nb, 0, 1, nb,
                                            0, 1, c->out, 0, 0, NULL, NULL);
        return gpgpu_histogram2d(ctx, GPGPU_F32, c->x, c->y, n, nb, 0, 1, nb, 0, 1, c->cells);
    }
    if (c->ax)
        return gpgpu_histogram_weighted_array(ctx, c->ax, c->aw, nb, 0, 1, c->cells);
    if (c->bx)
        return gpgpu_histogram_weighted_buffer(ctx, GPGPU_F32, c->bx, 0, GPGPU_F32, c->bw, 0, n,
                                               nb, 0, 1, c->out, 0, 0, NULL, NULL);
    return gpgpu_histogram_weighted(ctx, GPGPU_F32, c->x, GPGPU_F32, c->w, n, nb, 0, 1,
                                    c->cells);
}

/* The loops a C programmer writes first. */
static void serial(void *arg)
{
    h2_case *c = arg;
    const float s = (float)c->nb;
    if (c->two_d) {
        uint64_t *cells = c->cells;
        memset(cells, 0, c->ncells * sizeof *cells);
        for (size_t i = 0; i < c->n; i++) {
            size_t ix = (size_t)(c->x[i] * s), iy = (size_t)(c->y[i] * s);
            cells[(ix < c->nb ? ix : c->nb - 1) * c->nb + (iy < c->nb ? iy : c->nb - 1)]++;
        }
    } else {
        double *bins = c->cells;
        memset(bins, 0, c->nb * sizeof *bins);
        for (size_t i = 0; i < c->n; i++) {
            size_t k = (size_t)(c->x[i] * s);
            bins[k < c->nb ? k : c->nb - 1] += c->w[i];
        }
    }
}

/* The host fallback's answer against got: counts equal; sums within
   (m + 2) * 2^-52 * sum |w| of the bin, which bounds both. */
static int verify(const h2_case *c, const void *got)
{
    size_t cells = c->two_d ? c->ncells : c->nb, esize = c->two_d ? 8 : sizeof(double);
    void *want = malloc(cells * esize);
    uint64_t *count = c->two_d ? NULL : calloc(cells, sizeof *count);
    gpgpu_context *host = NULL;
    int ok = want && (c->two_d || count) &&
             gpgpu_context_create(&host, "host") == GPGPU_SUCCESS;
    if (ok)
        ok = (c->two_d ? gpgpu_histogram2d(host, GPGPU_F32, c->x, c->y, c->n, c->nb, 0, 1,
                                           c->nb, 0, 1, want)
                       : gpgpu_histogram_weighted(host, GPGPU_F32, c->x, GPGPU_F32, c->w, c->n,
                                                  c->nb, 0, 1, want)) == GPGPU_SUCCESS;
    if (ok && c->two_d) {
        ok = memcmp(want, got, cells * esize) == 0;
    } else if (ok) {
        const double *a = want, *g = got;
        if (gpgpu_histogram(host, GPGPU_F32, c->x, c->n, c->nb, 0, 1, count) != GPGPU_SUCCESS)
            ok = 0;
        for (size_t k = 0; ok && k < cells; k++) /* weights in [0, 1): sum |w| = sum w */
            ok = fabs(a[k] - g[k]) <= ((double)count[k] + 2) * 0x1p-52 * a[k] * 2;
    }
    gpgpu_context_destroy(host);
    free(want);
    free(count);
    return ok;
}

static int run_which(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r,
                     int two_d)
{
    const char *name = two_d ? "histogram2d" : "histogram_weighted";
    if (t != GPGPU_F32 || n == 0) {
        fprintf(stderr, "%s: the case is f32 samples, n > 0\n", name);
        return -1;
    }
    h2_case c = { b, two_d, n, p->bins ? p->bins : 256, 0, NULL, NULL, NULL,
                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    c.ncells = two_d ? c.nb * c.nb : c.nb;
    float *x = bench_host_alloc(b, n * 4 + 1), *y = bench_host_alloc(b, n * 4 + 1);
    void *got = malloc(c.ncells * 8), *mine = malloc(c.ncells * 8);
    int rc = -1;
    if (!x || !y || !got || !mine) {
        fprintf(stderr, "%s: out of memory\n", name);
        goto done;
    }
    bench_fill(GPGPU_F32, x, n, b->seed, "random");
    bench_fill(GPGPU_F32, y, n, b->seed + 1, "random");
    c.x = x;
    c.y = two_d ? y : NULL;
    c.w = two_d ? NULL : y;
    c.cells = got;
    if (BENCH_ON_BUFFERS(b)) {
        c.bx = bench_buffer(b, n * 4, x);
        c.by = two_d ? bench_buffer(b, n * 4, y) : NULL;
        c.bw = two_d ? NULL : bench_buffer(b, n * 4, y);
        c.out = bench_buffer(b, c.ncells * 8, NULL);
        if (!c.bx || !c.out || !(c.by || c.bw))
            goto done;
    } else if (BENCH_ON_ARRAYS(b)) {
        c.ax = bench_array(b, GPGPU_F32, n, x);
        c.ay = two_d ? bench_array(b, GPGPU_F32, n, y) : NULL;
        c.aw = two_d ? NULL : bench_array(b, GPGPU_F32, n, y);
        if (!c.ax || !(c.ay || c.aw))
            goto done;
    }
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0)
        goto done;
    if (c.out && bench_read(b, c.out, c.ncells * 8, got))
        goto done;
    r->bytes = (double)n * 8;
    r->verified = verify(&c, got);
    c.cells = mine;
    r->serial_ms = bench_wall_ms(serial, &c, b->repeat);
    if (two_d)
        snprintf(r->note, sizeof r->note, "%zu x %zu cells", c.nb, c.nb);
    else
        snprintf(r->note, sizeof r->note, "%zu bins, f32 weights", c.nb);
    rc = 0;
done:
    BENCH_RELEASE(c.bx, c.by, c.bw, c.out);
    BENCH_DESTROY(c.ax, c.ay, c.aw);
    BENCH_HOST_FREE(b, x, y);
    free(got);
    free(mine);
    return rc;
}

static int run_2d(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_which(b, t, n, p, r, 1);
}

static int run_weighted(bench *b, gpgpu_type t, size_t n, const bench_params *p,
                        bench_result *r)
{
    return run_which(b, t, n, p, r, 0);
}

const bench_op bench_op_histogram2d = {
    "histogram2d", run_2d, { { GPGPU_F32, { 256, "random" } } }, 1
};
const bench_op bench_op_histogram_weighted = {
    "histogram_weighted", run_weighted, { { GPGPU_F32, { 256, "random" } } }, 1
};
