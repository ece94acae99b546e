/* bench_segmented.c - gpgpu-bench's segmented_reduce, segmented_scan,
   reduce_by_key, scan_by_key, argmin and segmented_sort, each timed beside
   its flat counterpart on the same data in the same run (gpgpu_reduce,
   gpgpu_scan, a serial C loop, gpgpu_sort of the whole array), which the
   note gives as a ratio.

   Each op times the form --api names (_buffer by kernel events, the host
   call on host arrays by the wall clock, or the _array form), and its flat
   counterpart in the same form; the check reads what the timed call wrote,
   untimed.

   segmented_sort's input is restored untimed before each call; it is timed
   beside gpgpu_sort of the whole array and a serial C sort of each segment
   (an LSD radix sort, the loop a user would write), whose result the
   library's must equal. On a GPU above 2^24 keys the serial sort is skipped
   (seconds of the machine for nothing) and each segment is checked in one
   pass instead: in order and the same keys.

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
    void *out, *out2;       /* host outputs (and the _array forms' values) */
    size_t *offsets, runs, index;
    const void *keys;
    cl_mem din, doffs, dout, didx, dkeys, dkout;            /* --api buffer */
    gpgpu_array *ain, *aoffs, *aout, *akeys, *akout;        /* --api array */
} seg_case;

enum { SEG_REDUCE, SEG_SCAN, FLAT_REDUCE, FLAT_SCAN, BY_KEY_REDUCE, BY_KEY_SCAN, INDEX };

/* The _array forms: outputs to other arrays than the inputs (the rule of
   the array calls), counts and single values to host memory. */
static gpgpu_status array_call(seg_case *c)
{
    gpgpu_context *ctx = c->b->ctx;
    switch (c->which) {
    case SEG_REDUCE:
        return gpgpu_segmented_reduce_array(ctx, c->op, c->ain, c->aoffs, c->aout);
    case SEG_SCAN:
        return gpgpu_segmented_scan_array(ctx, c->op, GPGPU_INCLUSIVE, c->ain, c->aout,
                                          c->aoffs);
    case FLAT_REDUCE:
        return gpgpu_reduce_array(ctx, c->op, c->ain, c->out);
    case FLAT_SCAN:
        return gpgpu_scan_array(ctx, c->op, GPGPU_INCLUSIVE, c->ain, c->aout);
    case BY_KEY_REDUCE:
        return gpgpu_reduce_by_key_array(ctx, c->op, c->akeys, c->ain, c->akout, c->aout,
                                         &c->runs);
    case BY_KEY_SCAN:
        return gpgpu_scan_by_key_array(ctx, c->op, GPGPU_INCLUSIVE, c->akeys, c->ain, c->aout);
    default:
        return gpgpu_reduce_index_array(ctx, GPGPU_MIN, c->ain, c->out, &c->index);
    }
}

static gpgpu_status call(void *arg)
{
    seg_case *c = arg;
    if (c->ain)
        return array_call(c);
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

/* The serial C loops a user would write for each op (u32 SUM, argmin: MIN
   and its first index), timed by bench_wall_ms into serial_out. */
typedef struct {
    int which;
    const uint32_t *x, *keys;
    const size_t *offsets;
    size_t n, nseg;
    uint32_t *out, *kout;
    volatile size_t sink;
} seg_serial;

static void serial_loop(void *arg)
{
    seg_serial *s = arg;
    const uint32_t *x = s->x, *keys = s->keys;
    uint32_t *out = s->out;
    switch (s->which) {
    case SEG_REDUCE:
        for (size_t g = 0; g < s->nseg; g++) {
            uint32_t acc = 0;
            for (size_t i = s->offsets[g]; i < s->offsets[g + 1]; i++)
                acc += x[i];
            out[g] = acc;
        }
        break;
    case SEG_SCAN:
        for (size_t g = 0; g < s->nseg; g++) {
            uint32_t acc = 0;
            for (size_t i = s->offsets[g]; i < s->offsets[g + 1]; i++)
                out[i] = acc += x[i];
        }
        break;
    case BY_KEY_REDUCE: {
        size_t k = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (i == 0 || keys[i] != keys[i - 1]) {
                s->kout[k] = keys[i];
                out[k++] = 0;
            }
            out[k - 1] += x[i];
        }
        s->sink = k;
        break;
    }
    case BY_KEY_SCAN: {
        uint32_t acc = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (i > 0 && keys[i] != keys[i - 1])
                acc = 0;
            out[i] = acc += x[i];
        }
        break;
    }
    default: {
        size_t best = 0;
        for (size_t i = 1; i < s->n; i++)
            if (x[i] < x[best])
                best = i;
        s->sink = best;
        break;
    }
    }
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
    const int by_key = which == BY_KEY_REDUCE || which == BY_KEY_SCAN;
    /* bench_host_alloc: the host call's arrays are pinned with --pinned */
    uint32_t *x = bench_host_alloc(b, n * 4 + 4), *out = bench_host_alloc(b, n * 4 + 4);
    uint32_t *keys = NULL, *kout = NULL;
    size_t *offsets = malloc((nseg + 1) * sizeof *offsets);
    cl_ulong *o64 = malloc((nseg + 1) * sizeof *o64);
    seg_case c = { b, t, which == INDEX ? GPGPU_MIN : GPGPU_SUM, which, n, nseg, x, out, NULL,
                   offsets, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                   NULL, NULL, NULL, NULL, NULL };
    int rc = -1;
    if (!x || !out || !offsets || !o64)
        goto done;
    bench_fill(t, x, n, b->seed, NULL);
    for (size_t s = 0; s <= nseg; s++)
        o64[s] = offsets[s] = s * len < n ? s * len : n;
    double base_ms = -1;
    const char *base = "";
    if (by_key) {
        keys = bench_host_alloc(b, n * 4 + 4);
        kout = bench_host_alloc(b, n * 4 + 4);
        if (!keys || !kout)
            goto done;
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)(i / len);
        c.keys = keys;
        c.out2 = kout;
    }
    {
        seg_serial ss = {which, x, keys, offsets, n, nseg, out, kout, 0};
        r->serial_ms = bench_wall_ms(serial_loop, &ss, b->repeat);
        base_ms = r->serial_ms;
        base = "a serial C loop";
    }
    if (BENCH_ON_BUFFERS(b)) {
        c.din = bench_buffer(b, n * 4 + 4, x);
        c.doffs = bench_buffer(b, (nseg + 1) * 8, o64);
        c.dout = bench_buffer(b, n * 4 + 4, NULL);
        c.didx = bench_buffer(b, 8, NULL);
        if (!c.din || !c.doffs || !c.dout || !c.didx)
            goto done;
        if (by_key) {
            c.dkeys = bench_buffer(b, n * 4 + 4, keys);
            c.dkout = bench_buffer(b, n * 4 + 4, NULL);
            if (!c.dkeys || !c.dkout)
                goto done;
        }
    } else if (BENCH_ON_ARRAYS(b)) {
        /* offsets arrays are GPGPU_U64 whatever size_t is */
        c.ain = bench_array(b, t, n, x);
        c.aoffs = bench_array(b, GPGPU_U64, nseg + 1, o64);
        c.aout = bench_array(b, t, n, NULL);
        if (!c.ain || !c.aoffs || !c.aout)
            goto done;
        if (by_key) {
            c.akeys = bench_array(b, GPGPU_U32, n, keys);
            c.akout = bench_array(b, GPGPU_U32, n, NULL);
            if (!c.akeys || !c.akout)
                goto done;
        }
    }
    if (which == SEG_REDUCE || which == SEG_SCAN || which == INDEX) {
        c.which = which == SEG_SCAN ? FLAT_SCAN : FLAT_REDUCE;
        base_ms = bench_time(b, call, &c);
        base = which == SEG_SCAN ? "gpgpu_scan"
               : which == INDEX  ? "gpgpu_reduce min"
                                 : "gpgpu_reduce";
        c.which = which;
    }
    /* Poisoned outputs, so that the check sees only what the timed call
       wrote: the counterpart wrote the same places (a flat scan of one
       segment is its segmented scan, the serial loop's sums are the runs'). */
    memset(out, 0xa5, n * 4 + 4);
    c.runs = c.index = SIZE_MAX;
    if ((c.dout && clEnqueueWriteBuffer(b->queue, c.dout, CL_TRUE, 0, n * 4 + 4, out, 0, NULL,
                                        NULL) != CL_SUCCESS) ||
        (c.aout && gpgpu_array_write(b->ctx, c.aout, 0, out, n) != GPGPU_SUCCESS)) {
        fprintf(stderr, "gpgpu-bench: clearing the output failed\n");
        goto done;
    }
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0 || base_ms < 0)
        goto done;
    /* The outputs the timed call left on the device; the host calls wrote
       out, runs and index themselves, and so did the _array forms that wait
       (reduce_by_key's count, argmin's value and index). */
    size_t outs = which == SEG_REDUCE || which == BY_KEY_REDUCE ? nseg
                  : which == INDEX                              ? 1
                                                                : n;
    if (c.din) {
        cl_ulong i = 0;
        if (bench_read(b, c.dout, outs * 4, out) ||
            ((which == INDEX || which == BY_KEY_REDUCE) && bench_read(b, c.didx, 8, &i)))
            goto done;
        c.index = c.runs = (size_t)i;
    }
    if (c.ain && which != INDEX &&
        gpgpu_array_read(b->ctx, c.aout, 0, out, outs) != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu-bench: reading the output: %s\n", gpgpu_last_error(b->ctx));
        goto done;
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
    const int twice = which == SEG_SCAN || which == BY_KEY_SCAN;
    r->bytes = (double)n * 4 * (twice ? 2 : 1) + (by_key ? (double)n * 4 : 0);
    if (base_ms == r->serial_ms)
        snprintf(r->note, sizeof r->note, "len %zu: serial C loop %.3f ms", len, base_ms);
    else
        snprintf(r->note, sizeof r->note, "len %zu: %.2fx %s (%.3f ms)", len, base_ms / r->ms,
                 base, base_ms);
    rc = 0;
done:
    BENCH_RELEASE(c.din, c.doffs, c.dout, c.didx, c.dkeys, c.dkout);
    BENCH_DESTROY(c.ain, c.aoffs, c.aout, c.akeys, c.akout);
    BENCH_HOST_FREE(b, x, out, keys, kout);
    free(offsets);
    free(o64);
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

/* ---- segmented_sort ------------------------------------------------------------ */

/* A serial LSD radix sort of n u32 keys (8-bit digits, one read for all
   counts, constant digits skipped); tmp holds n keys. */
static void serial_lsd_u32(uint32_t *k, uint32_t *tmp, size_t n)
{
    size_t count[4][256] = {{0}};
    uint32_t *src = k, *dst = tmp;
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 4; d++)
            count[d][k[i] >> (8 * d) & 255]++;
    for (int d = 0; d < 4 && n > 0; d++) {
        size_t pos[256], sum = 0;
        if (count[d][src[0] >> (8 * d) & 255] == n)
            continue;
        for (int u = 0; u < 256; u++) {
            pos[u] = sum;
            sum += count[d][u];
        }
        for (size_t i = 0; i < n; i++)
            dst[pos[src[i] >> (8 * d) & 255]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, n * sizeof *k);
}

typedef struct {
    bench *b;
    int flat;                /* 1: gpgpu_sort of the whole array instead */
    size_t n, nseg;
    const uint32_t *in;
    uint32_t *work, *tmp;    /* host calls sort work; the serial sort uses tmp */
    const size_t *offsets;
    cl_mem din, dwork, doffs;  /* --api buffer */
    gpgpu_array *awork, *aoffs; /* --api array */
} segsort_case;

/* The unsorted keys back in place, untimed. */
static void segsort_restore(void *arg)
{
    segsort_case *c = arg;
    if (c->dwork)
        clEnqueueCopyBuffer(c->b->queue, c->din, c->dwork, 0, 0, c->n * 4, 0, NULL, NULL);
    else if (c->awork)
        gpgpu_array_write(c->b->ctx, c->awork, 0, c->in, c->n);
    else
        memcpy(c->work, c->in, c->n * 4);
}

static gpgpu_status segsort_call(void *arg)
{
    segsort_case *c = arg;
    gpgpu_context *ctx = c->b->ctx;
    if (c->dwork)
        return c->flat ? gpgpu_sort_buffer(ctx, GPGPU_U32, c->dwork, 0, c->n, 0, 0, NULL, NULL)
                       : gpgpu_segmented_sort_buffer(ctx, GPGPU_U32, c->dwork, 0, c->doffs, 0,
                                                     c->nseg, 0, 0, NULL, NULL);
    if (c->awork)
        return c->flat ? gpgpu_sort_array(ctx, c->awork, 0)
                       : gpgpu_segmented_sort_array(ctx, c->awork, c->aoffs, 0);
    return c->flat ? gpgpu_sort(ctx, GPGPU_U32, c->work, c->n, 0)
                   : gpgpu_segmented_sort(ctx, GPGPU_U32, c->work, c->offsets, c->nseg, 0);
}

/* Serial sort of each segment of want (a copy of the input): median ms of
   the run's repeats, the copy back untimed. */
static double serial_segsort_ms(const segsort_case *c, uint32_t *want)
{
    double t[64];
    int runs = c->b->repeat < 1 ? 1 : c->b->repeat > 64 ? 64 : c->b->repeat;
    for (int r = 0; r < runs; r++) {
        memcpy(want, c->in, c->n * 4);
        double start = now_ms();
        for (size_t s = 0; s < c->nseg; s++)
            serial_lsd_u32(want + c->offsets[s], c->tmp, c->offsets[s + 1] - c->offsets[s]);
        t[r] = now_ms() - start;
    }
    for (int i = 1; i < runs; i++)
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[runs / 2];
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
}

/* One pass: each segment of got in order and holding in's keys (by a sum
   of hashes). */
static int segments_sorted(const segsort_case *c, const uint32_t *got)
{
    for (size_t s = 0; s < c->nseg; s++) {
        uint64_t hi = 0, hg = 0;
        for (size_t i = c->offsets[s]; i < c->offsets[s + 1]; i++) {
            if (i > c->offsets[s] && got[i - 1] > got[i])
                return 0;
            hi += mix64(c->in[i]);
            hg += mix64(got[i]);
        }
        if (hi != hg)
            return 0;
    }
    return 1;
}

/* Whether the serial sort is worth its time: CPU devices, the fallback,
   and up to 2^24 keys anywhere. */
static int serial_wanted(bench *b, size_t n)
{
    cl_device_id dev;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    if (n <= (1u << 24) || !b->queue ||
        clGetCommandQueueInfo(b->queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) ||
        clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL))
        return 1;
    return (type & CL_DEVICE_TYPE_CPU) != 0;
}

static int run_sort(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    if (t != GPGPU_U32) {
        fprintf(stderr, "gpgpu-bench: the segmented ops run on u32 only\n");
        return -1;
    }
    const size_t len = seg_len(p), nseg = (n + len - 1) / len;
    const int serial = serial_wanted(b, n);
    uint32_t *x = malloc(n * 4 + 4), *work = malloc(n * 4 + 4), *want = NULL;
    size_t *offsets = malloc((nseg + 1) * sizeof *offsets);
    cl_ulong *o64 = malloc((nseg + 1) * sizeof *o64);
    segsort_case c = { b, 0, n, nseg, x, work, NULL, offsets, NULL, NULL, NULL, NULL, NULL };
    int rc = -1;
    if (!x || !work || !offsets || !o64)
        goto done;
    if (serial && (!(want = malloc(n * 4 + 4)) || !(c.tmp = malloc(len * 4 + 4))))
        goto done;
    bench_fill(t, x, n, b->seed, NULL);
    for (size_t s = 0; s <= nseg; s++)
        o64[s] = offsets[s] = s * len < n ? s * len : n;
    if (BENCH_ON_BUFFERS(b)) {
        c.din = bench_buffer(b, n * 4 + 4, x);
        c.dwork = bench_buffer(b, n * 4 + 4, NULL);
        c.doffs = bench_buffer(b, (nseg + 1) * 8, o64);
        if (!c.din || !c.dwork || !c.doffs)
            goto done;
    } else if (BENCH_ON_ARRAYS(b)) {
        c.awork = bench_array(b, GPGPU_U32, n, NULL);
        c.aoffs = bench_array(b, GPGPU_U64, nseg + 1, o64);
        if (!c.awork || !c.aoffs)
            goto done;
    }
    c.flat = 1;
    double flat_ms = bench_time_prepared(b, segsort_restore, segsort_call, &c);
    c.flat = 0;
    r->ms = bench_time_prepared(b, segsort_restore, segsort_call, &c);
    if (r->ms < 0 || flat_ms < 0)
        goto done;
    if ((c.dwork && bench_read(b, c.dwork, n * 4, work)) ||
        (c.awork && gpgpu_array_read(b->ctx, c.awork, 0, work, n) != GPGPU_SUCCESS))
        goto done;
    double serial_ms = serial ? serial_segsort_ms(&c, want) : -1;
    r->serial_ms = serial ? serial_ms : 0;
    r->verified = serial ? !memcmp(work, want, n * 4) : segments_sorted(&c, work);
    r->bytes = (double)n * 4 * 2;
    if (serial)
        snprintf(r->note, sizeof r->note, "len %zu: serial C %.3f ms, %.2fx gpgpu_sort",
                 len, serial_ms, flat_ms / r->ms);
    else
        snprintf(r->note, sizeof r->note, "len %zu: %.2fx gpgpu_sort of it all (%.3f ms)", len,
                 flat_ms / r->ms, flat_ms);
    rc = 0;
done:
    BENCH_RELEASE(c.din, c.dwork, c.doffs);
    BENCH_DESTROY(c.awork, c.aoffs);
    free(x);
    free(work);
    free(want);
    free(c.tmp);
    free(offsets);
    free(o64);
    return rc;
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
/* Not in the standard suite: a second a call on CPUs at the suite's sizes
   (gpgpu-bench --op segmented_sort times it). */
const bench_op bench_op_segmented_sort = {
    "segmented_sort", run_sort, {{GPGPU_U32, {0, "seg1024"}}}, 0};
