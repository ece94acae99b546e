/* bench_segmented.c - gpgpu-bench's segmented_reduce, segmented_scan,
   reduce_by_key, scan_by_key, argmin and segmented_sort, each timed beside
   its flat counterpart on the same data in the same run (gpgpu_reduce,
   gpgpu_scan, a serial C loop, gpgpu_sort of the whole array), which the
   note gives as a ratio. The sorts run on host memory (segmented_sort has
   no _buffer form yet) and both are timed in wall time, transfers
   included.

   --input segL (default seg1024) sets the segment length, or the run
   length for the by-key ops: every segment (run) has L elements, the last
   one what is left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static size_t seg_len(const bench_params *p)
{
    size_t len = 1024;
    if (p->pattern && !strncmp(p->pattern, "seg", 3))
        len = strtoul(p->pattern + 3, NULL, 10);
    return len ? len : 1;
}

typedef struct {
    bench *b;
    gpgpu_type t;
    gpgpu_op op;
    int which;              /* the call: see call() */
    size_t n, nseg;
    const void *in;         /* host data */
    void *out, *out2;       /* host outputs */
    size_t *offsets, runs, index;
    const void *keys;
    cl_mem din, doffs, dout, didx, dkeys, dkout;
} seg_case;

enum { SEG_REDUCE, SEG_SCAN, FLAT_REDUCE, FLAT_SCAN, BY_KEY_REDUCE, BY_KEY_SCAN, INDEX,
       SEG_SORT, FLAT_SORT };

static gpgpu_status call(void *arg)
{
    seg_case *c = arg;
    gpgpu_context *ctx = c->b->ctx;
    int dev = c->din != NULL;
    switch (c->which) {
    case SEG_REDUCE:
        return dev ? gpgpu_segmented_reduce_buffer(ctx, c->t, c->op, c->din, 0, c->doffs, 0,
                                                   c->nseg, c->dout, 0, 0, NULL, NULL)
                   : gpgpu_segmented_reduce(ctx, c->t, c->op, c->in, c->offsets, c->nseg,
                                            c->out);
    case SEG_SCAN:
        return dev ? gpgpu_segmented_scan_buffer(ctx, c->t, c->op, GPGPU_INCLUSIVE, c->din, 0,
                                                 c->dout, 0, c->doffs, 0, c->nseg, 0, NULL,
                                                 NULL)
                   : gpgpu_segmented_scan(ctx, c->t, c->op, GPGPU_INCLUSIVE, c->in, c->out,
                                          c->offsets, c->nseg);
    case FLAT_REDUCE:
        return dev ? gpgpu_reduce_buffer(ctx, c->t, c->op, c->din, 0, c->n, c->dout, 0, 0, NULL,
                                         NULL)
                   : gpgpu_reduce(ctx, c->t, c->op, c->in, c->n, c->out);
    case FLAT_SCAN:
        return dev ? gpgpu_scan_buffer(ctx, c->t, c->op, GPGPU_INCLUSIVE, c->din, 0, c->dout, 0,
                                       c->n, 0, NULL, NULL)
                   : gpgpu_scan(ctx, c->t, c->op, GPGPU_INCLUSIVE, c->in, c->out, c->n);
    case BY_KEY_REDUCE: /* the count of runs goes to didx */
        return dev ? gpgpu_reduce_by_key_buffer(ctx, GPGPU_U32, c->dkeys, 0, c->t, c->op,
                                                c->din, 0, c->n, c->dkout, 0, c->dout, 0,
                                                c->didx, 0, 0, NULL, NULL)
                   : gpgpu_reduce_by_key(ctx, GPGPU_U32, c->keys, c->t, c->op, c->in, c->n,
                                         c->out2, c->out, &c->runs);
    case BY_KEY_SCAN:
        return dev ? gpgpu_scan_by_key_buffer(ctx, GPGPU_U32, c->dkeys, 0, c->t, c->op,
                                              GPGPU_INCLUSIVE, c->din, 0, c->dout, 0, c->n, 0,
                                              NULL, NULL)
                   : gpgpu_scan_by_key(ctx, GPGPU_U32, c->keys, c->t, c->op, GPGPU_INCLUSIVE,
                                       c->in, c->out, c->n);
    case SEG_SORT: /* host memory: there is no _buffer form yet */
        memcpy(c->out, c->in, c->n * 4);
        return gpgpu_segmented_sort(ctx, c->t, c->out, c->offsets, c->nseg, 0);
    case FLAT_SORT:
        memcpy(c->out, c->in, c->n * 4);
        return gpgpu_sort(ctx, c->t, c->out, c->n, 0);
    default:
        return dev ? gpgpu_reduce_index_buffer(ctx, c->t, GPGPU_MIN, c->din, 0, c->n, c->dout,
                                               0, c->didx, 0, 0, NULL, NULL)
                   : gpgpu_reduce_index(ctx, c->t, GPGPU_MIN, c->in, c->n, c->out, &c->index);
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The serial C loop a user would write for reduce_by_key of u32 keys and
   u32 sums (best of three runs, wall time); returns the runs found. */
static double serial_by_key_ms(const uint32_t *keys, const uint32_t *v, size_t n,
                               uint32_t *kout, uint32_t *vout, size_t *runs)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double s = now_ms();
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                kout[k] = keys[i];
                vout[k++] = 0;
            }
            vout[k - 1] += v[i];
        }
        *runs = k;
        double ms = now_ms() - s;
        if (ms < best)
            best = ms;
    }
    return best;
}

/* Exact u32 checks of the outputs against plain loops. */
static int check_u32(const seg_case *c, const uint32_t *x)
{
    const uint32_t *got = c->out;
    if (c->which == SEG_REDUCE) {
        for (size_t s = 0; s < c->nseg; s++) {
            uint32_t w = 0;
            for (size_t i = c->offsets[s]; i < c->offsets[s + 1]; i++)
                w += x[i];
            if (got[s] != w)
                return 0;
        }
        return 1;
    }
    if (c->which == SEG_SCAN) {
        for (size_t s = 0; s < c->nseg; s++) {
            uint32_t w = 0;
            for (size_t i = c->offsets[s]; i < c->offsets[s + 1]; i++)
                if (got[i] != (w += x[i]))
                    return 0;
        }
        return 1;
    }
    if (c->which == SEG_SORT) {
        for (size_t g = 0; g < c->nseg; g++)
            for (size_t i = c->offsets[g] + 1; i < c->offsets[g + 1]; i++)
                if (got[i - 1] > got[i])
                    return 0;
        return 1;
    }
    size_t best = 0;
    for (size_t i = 1; i < c->n; i++)
        if (x[i] < x[best])
            best = i;
    return c->n == 0 || c->index == best;
}

/* Runs op `which` and its counterpart; u32 and SUM (argmin: MIN). */
static int run_which(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r,
                     int which)
{
    if (t != GPGPU_U32) {
        fprintf(stderr, "gpgpu-bench: the segmented ops run on u32 only\n");
        return -1;
    }
    const size_t len = seg_len(p), nseg = (n + len - 1) / len;
    uint32_t *x = malloc(n * 4 + 4), *out = malloc(n * 4 + 4), *keys = NULL, *kout = NULL;
    size_t *offsets = malloc((nseg + 1) * sizeof *offsets);
    seg_case c = { b, t, which == INDEX ? GPGPU_MIN : GPGPU_SUM, which, n, nseg, x, out, NULL,
                   offsets, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    int rc = -1;
    if (!x || !out || !offsets)
        goto done;
    bench_fill(t, x, n, b->seed, NULL);
    for (size_t s = 0; s <= nseg; s++)
        offsets[s] = s * len < n ? s * len : n;
    double base_ms = -1;
    const char *base = "";
    if (which == BY_KEY_REDUCE || which == BY_KEY_SCAN) {
        keys = malloc(n * 4 + 4);
        kout = malloc(n * 4 + 4);
        if (!keys || !kout)
            goto done;
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)(i / len);
        c.keys = keys;
        c.out2 = kout;
        size_t runs;
        base_ms = serial_by_key_ms(keys, x, n, kout, out, &runs);
        base = "a serial C loop";
    }
    if (b->queue) {
        cl_ulong *o64 = malloc((nseg + 1) * sizeof *o64);
        if (!o64)
            goto done;
        for (size_t s = 0; s <= nseg; s++)
            o64[s] = offsets[s];
        c.din = bench_buffer(b, n * 4 + 4, x);
        c.doffs = bench_buffer(b, (nseg + 1) * 8, o64);
        c.dout = bench_buffer(b, n * 4 + 4, NULL);
        c.didx = bench_buffer(b, 8, NULL);
        free(o64);
        if (!c.din || !c.doffs || !c.dout || !c.didx)
            goto done;
        if (keys) {
            c.dkeys = bench_buffer(b, n * 4 + 4, keys);
            c.dkout = bench_buffer(b, n * 4 + 4, NULL);
            if (!c.dkeys || !c.dkout)
                goto done;
        }
    }
    if (which == SEG_SORT) /* wall time: the call is several sorts and host work */
        gpgpu_set_profiling(b->ctx, 0);
    if (which == SEG_REDUCE || which == SEG_SCAN || which == INDEX || which == SEG_SORT) {
        c.which = which == SEG_SCAN ? FLAT_SCAN : which == SEG_SORT ? FLAT_SORT : FLAT_REDUCE;
        base_ms = bench_time(b, call, &c);
        base = which == SEG_SCAN   ? "gpgpu_scan"
               : which == INDEX    ? "gpgpu_reduce min"
               : which == SEG_SORT ? "gpgpu_sort of it all"
                                   : "gpgpu_reduce";
        c.which = which;
    }
    r->ms = bench_time(b, call, &c);
    gpgpu_set_profiling(b->ctx, 1);
    if (r->ms < 0 || base_ms < 0)
        goto done;
    if (c.din && which != SEG_SORT) {
        size_t outs = which == SEG_REDUCE || which == BY_KEY_REDUCE ? nseg
                      : which == INDEX                              ? 1
                                                                    : n;
        cl_ulong i = 0;
        if (bench_read(b, c.dout, outs * 4, out) ||
            ((which == INDEX || which == BY_KEY_REDUCE) && bench_read(b, c.didx, 8, &i)))
            goto done;
        c.index = c.runs = (size_t)i;
    }
    if (which == BY_KEY_REDUCE) {
        c.which = SEG_REDUCE; /* the runs are the segments */
        r->verified = c.runs == nseg && check_u32(&c, x);
    } else if (which == BY_KEY_SCAN) {
        c.which = SEG_SCAN;
        r->verified = check_u32(&c, x);
    } else {
        r->verified = check_u32(&c, x);
    }
    const int twice = which == SEG_SCAN || which == BY_KEY_SCAN || which == SEG_SORT;
    r->bytes = (double)n * 4 * (twice ? 2 : 1) +
               (which == BY_KEY_REDUCE || which == BY_KEY_SCAN ? (double)n * 4 : 0);
    snprintf(r->note, sizeof r->note, "len %zu: %.2fx %s (%.3f ms)", len, base_ms / r->ms, base,
             base_ms);
    rc = 0;
done:
    if (c.din)
        clReleaseMemObject(c.din);
    if (c.doffs)
        clReleaseMemObject(c.doffs);
    if (c.dout)
        clReleaseMemObject(c.dout);
    if (c.didx)
        clReleaseMemObject(c.didx);
    if (c.dkeys)
        clReleaseMemObject(c.dkeys);
    if (c.dkout)
        clReleaseMemObject(c.dkout);
    free(x);
    free(out);
    free(keys);
    free(kout);
    free(offsets);
    return rc;
}

static int run_reduce(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_which(b, t, n, p, r, SEG_REDUCE);
}

static int run_scan(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_which(b, t, n, p, r, SEG_SCAN);
}

static int run_by_key(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_which(b, t, n, p, r, BY_KEY_REDUCE);
}

static int run_scan_by_key(bench *b, gpgpu_type t, size_t n, const bench_params *p,
                           bench_result *r)
{
    return run_which(b, t, n, p, r, BY_KEY_SCAN);
}

static int run_sort(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_which(b, t, n, p, r, SEG_SORT);
}

static int run_argmin(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_which(b, t, n, p, r, INDEX);
}

const bench_op bench_op_segmented_reduce = {
    "segmented_reduce", run_reduce, {{GPGPU_U32, {0, "seg1024"}}, {GPGPU_U32, {0, "seg64"}}}, 2};
const bench_op bench_op_segmented_scan = {
    "segmented_scan", run_scan, {{GPGPU_U32, {0, "seg1024"}}}, 1};
const bench_op bench_op_reduce_by_key = {
    "reduce_by_key", run_by_key, {{GPGPU_U32, {0, "seg64"}}}, 1};
const bench_op bench_op_scan_by_key = {
    "scan_by_key", run_scan_by_key, {{GPGPU_U32, {0, "seg64"}}}, 1};
const bench_op bench_op_argmin = {"argmin", run_argmin, {{GPGPU_U32, {0, NULL}}}, 1};
/* Not in the standard suite: seconds a call on CPUs (gpgpu-bench --op
   segmented_sort times it). */
const bench_op bench_op_segmented_sort = {
    "segmented_sort", run_sort, {{GPGPU_U32, {0, "seg1024"}}}, 0};
