/*
 * bench_search.c - gpgpu-bench --op search_sorted, argsort and gather, each
 * in the form --api asks for, checked against a plain-C loop, with a
 * yardstick timed in the same run on the same data:
 *   search_sorted  n needles (random) in n sorted elements, against a
 *                  serial C loop of binary searches
 *   argsort        n random keys, against gpgpu_sort_pairs of the same
 *                  keys with 32-bit values in the same form
 *   gather         n elements by n random indices into n, against a serial
 *                  C loop
 * Bytes: what each must move at least (needles read and positions written;
 * keys read and indices written; indices and elements read, elements
 * written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef enum { SEARCH, ARGSORT, GATHER, PAIRS } kind;

typedef struct {
    bench *b;
    kind k;
    gpgpu_type t;
    size_t n, size;
    void *keys, *needles, *out, *keys_copy;  /* host: keys sorted (search) or not */
    uint64_t *pos;                           /* positions, indices */
    uint32_t *vals;                          /* PAIRS' values */
    cl_mem bkeys, bneedles, bout, bpos, bsrc; /* --api buffer; bsrc: PAIRS' original keys */
    gpgpu_array *akeys, *aneedles, *aout, *apos, *avals, *asrc;
} case_;

static gpgpu_status call(void *arg)
{
    case_ *c = arg;
    gpgpu_context *ctx = c->b->ctx;
    if (c->akeys) {
        switch (c->k) {
        case SEARCH: return gpgpu_search_sorted_array(ctx, c->akeys, c->aneedles, 0, c->apos);
        case ARGSORT: return gpgpu_argsort_array(ctx, c->akeys, 0, c->apos);
        case GATHER: return gpgpu_gather_array(ctx, c->akeys, c->apos, c->aout);
        case PAIRS: return gpgpu_sort_pairs_array(ctx, c->akeys, c->avals, 0);
        }
    }
    if (c->bkeys) {
        switch (c->k) {
        case SEARCH: return gpgpu_search_sorted_buffer(ctx, c->t, c->bkeys, 0, c->n, c->bneedles,
                                                       0, c->n, 0, c->bpos, 0, 0, NULL, NULL);
        case ARGSORT: return gpgpu_argsort_buffer(ctx, c->t, c->bkeys, 0, c->n, 0, c->bpos, 0, 0,
                                                  NULL, NULL);
        case GATHER: return gpgpu_gather_buffer(ctx, c->size, c->bkeys, 0, c->n, c->bpos, 0,
                                                c->n, c->bout, 0, 0, NULL, NULL);
        case PAIRS: return gpgpu_sort_pairs_buffer(ctx, c->t, c->bkeys, 0, c->bout, 0, 4, c->n,
                                                   0, 0, NULL, NULL);
        }
    }
    switch (c->k) {
    case SEARCH: return gpgpu_search_sorted(ctx, c->t, c->keys, c->n, c->needles, c->n, 0, c->pos);
    case ARGSORT: return gpgpu_argsort(ctx, c->t, c->keys, c->n, 0, c->pos);
    case GATHER: return gpgpu_gather(ctx, c->size, c->keys, c->n, c->pos, c->n, c->out);
    case PAIRS: return gpgpu_sort_pairs(ctx, c->t, c->keys, c->vals, 4, c->n, 0);
    }
    return GPGPU_ERROR_INVALID_ARGUMENT;
}

/* PAIRS sorts in place: the keys come back before each run. */
static void restore(void *arg)
{
    case_ *c = arg;
    const size_t bytes = c->n * c->size;
    if (c->akeys)
        gpgpu_array_write(c->b->ctx, c->akeys, 0, c->keys_copy, c->n);
    else if (c->bkeys) {
        clEnqueueCopyBuffer(c->b->queue, c->bsrc, c->bkeys, 0, 0, bytes, 0, NULL, NULL);
        clFinish(c->b->queue);
    } else
        memcpy(c->keys, c->keys_copy, bytes);
}

/* The loops a C programmer writes. */
#define SERIAL_SEARCH(T)                                                   \
    do {                                                                   \
        const T *s = c->keys, *x = c->needles;                             \
        for (size_t j = 0; j < c->n; j++) {                                \
            size_t lo = 0, hi = c->n;                                      \
            while (lo < hi) {                                              \
                size_t mid = lo + (hi - lo) / 2;                           \
                if (s[mid] < x[j])                                         \
                    lo = mid + 1;                                          \
                else                                                       \
                    hi = mid;                                              \
            }                                                              \
            out[j] = lo;                                                   \
        }                                                                  \
    } while (0)

static void serial_search_into(const case_ *c, uint64_t *out)
{
    switch (c->t) {
    case GPGPU_I32: SERIAL_SEARCH(int32_t); break;
    case GPGPU_U32: SERIAL_SEARCH(uint32_t); break;
    case GPGPU_F32: SERIAL_SEARCH(float); break;
    case GPGPU_I64: SERIAL_SEARCH(int64_t); break;
    case GPGPU_U64: SERIAL_SEARCH(uint64_t); break;
    case GPGPU_F64: SERIAL_SEARCH(double); break;
    }
}

static void serial_gather_into(const case_ *c, void *out)
{
    if (c->size == 4)
        for (size_t i = 0; i < c->n; i++)
            ((uint32_t *)out)[i] = ((const uint32_t *)c->keys)[c->pos[i]];
    else
        for (size_t i = 0; i < c->n; i++)
            ((uint64_t *)out)[i] = ((const uint64_t *)c->keys)[c->pos[i]];
}

static uint64_t *serial_out;

/* The loop a case is compared with. A gather's loop writes the host array
   the library's call wrote (checked by then): into an array of its own,
   placed elsewhere, the loop's time alone differed by up to 1.7x from one
   process to the next (u32, 2^14 .. 2^20, 2-core EPYC). */
static void serial(void *arg)
{
    const case_ *c = arg;
    if (c->k == SEARCH)
        serial_search_into(c, serial_out);
    else
        serial_gather_into(c, c->out);
}

/* Whether the result is the serial loop's (search, gather), or an order of
   the keys that is sorted and stable (argsort). */
static int verify(case_ *c)
{
    const size_t n = c->n, size = c->size;
    uint64_t *want = malloc(n * 8 + 8);
    int ok = want != NULL;
    if (ok && c->k == SEARCH) {
        serial_search_into(c, want);
        ok = !memcmp(want, c->pos, n * 8);
    } else if (ok && c->k == GATHER) {
        serial_gather_into(c, want);
        ok = !memcmp(want, c->out, n * size);
    } else if (ok) { /* integer keys in bench_fill's range, or floats in [0, 1) */
        char *seen = calloc(n + 1, 1);
        const char *k = c->keys;
        ok = seen != NULL;
        for (size_t i = 0; ok && i < n; i++) {
            uint64_t at = c->pos[i];
            ok = at < n && !seen[at];
            if (ok)
                seen[at] = 1;
            if (ok && i > 0) {
                uint64_t p = c->pos[i - 1];
                int cmp;
                switch (c->t) {
#define CMP(T) cmp = (((const T *)k)[p] > ((const T *)k)[at]) - (((const T *)k)[p] < ((const T *)k)[at])
                case GPGPU_I32: CMP(int32_t); break;
                case GPGPU_U32: CMP(uint32_t); break;
                case GPGPU_F32: CMP(float); break;
                case GPGPU_I64: CMP(int64_t); break;
                case GPGPU_U64: CMP(uint64_t); break;
                default: CMP(double); break;
#undef CMP
                }
                ok = cmp < 0 || (cmp == 0 && p < at);
            }
        }
        free(seen);
    }
    free(want);
    return ok;
}

static void release(case_ *c)
{
    cl_mem *bufs[] = { &c->bkeys, &c->bneedles, &c->bout, &c->bpos, &c->bsrc };
    gpgpu_array **arrs[] = { &c->akeys, &c->aneedles, &c->aout, &c->apos, &c->avals, &c->asrc };
    for (size_t i = 0; i < 5; i++) {
        if (*bufs[i])
            clReleaseMemObject(*bufs[i]);
        *bufs[i] = NULL;
    }
    for (size_t i = 0; i < 6; i++) {
        gpgpu_array_destroy(*arrs[i]);
        *arrs[i] = NULL;
    }
}

/* The case's device side, per --api, from its host arrays. */
static int place(case_ *c)
{
    bench *b = c->b;
    const size_t n = c->n, bytes = n * c->size;
    if (BENCH_ON_BUFFERS(b)) {
        c->bkeys = bench_buffer(b, bytes, c->keys);
        c->bneedles = bench_buffer(b, bytes, c->needles);
        c->bout = bench_buffer(b, bytes, NULL); /* gather's out, or sort_pairs' values */
        c->bpos = bench_buffer(b, n * 8, c->pos);
        c->bsrc = bench_buffer(b, bytes, c->keys);
        return c->bkeys && c->bneedles && c->bout && c->bpos && c->bsrc ? 0 : -1;
    }
    if (BENCH_ON_ARRAYS(b)) {
        c->akeys = bench_array(b, c->t, n, c->keys);
        c->aneedles = bench_array(b, c->t, n, c->needles);
        c->aout = bench_array(b, c->t, n, NULL);
        c->apos = bench_array(b, GPGPU_U64, n, c->pos);
        c->avals = bench_array(b, GPGPU_U32, n, c->vals);
        return c->akeys && c->aneedles && c->aout && c->apos && c->avals ? 0 : -1;
    }
    return 0;
}

/* Reads the timed call's result back to the host arrays. */
static int fetch(case_ *c)
{
    bench *b = c->b;
    const size_t n = c->n;
    void *dst = c->k == GATHER ? c->out : (void *)c->pos;
    size_t bytes = c->k == GATHER ? n * c->size : n * 8;
    if (c->bkeys)
        return bench_read(b, c->k == GATHER ? c->bout : c->bpos, bytes, dst);
    if (c->akeys)
        return gpgpu_array_read(b->ctx, c->k == GATHER ? c->aout : c->apos, 0, dst, n) ==
                       GPGPU_SUCCESS ? 0 : -1;
    return 0;
}

static int run(bench *b, kind k, gpgpu_type t, size_t n, bench_result *r)
{
    case_ c = { 0 };
    const size_t size = gpgpu_type_size(t);
    int rc = -1;
    c.b = b;
    c.k = k;
    c.t = t;
    c.n = n;
    c.size = size;
    c.keys = bench_host_alloc(b, n * size + 8);
    c.needles = bench_host_alloc(b, n * size + 8);
    c.out = bench_host_alloc(b, n * size + 8);
    c.keys_copy = malloc(n * size + 8);
    c.pos = bench_host_alloc(b, n * 8 + 8);
    c.vals = malloc(n * 4 + 4);
    serial_out = malloc(n * 8 + 8);
    if (!c.keys || !c.needles || !c.out || !c.keys_copy || !c.pos || !c.vals || !serial_out) {
        fprintf(stderr, "%s: out of host memory for %zu elements\n",
                k == SEARCH ? "search_sorted" : k == ARGSORT ? "argsort" : "gather", n);
        goto out;
    }
    bench_fill(t, c.keys, n, b->seed, k == SEARCH ? "sorted" : "random");
    bench_fill(t, c.needles, n, b->seed + 1, "random");
    memcpy(c.keys_copy, c.keys, n * size);
    uint64_t s = b->seed;
    for (size_t i = 0; i < n; i++) {
        c.pos[i] = k == GATHER ? bench_splitmix(&s) % n : 0;
        c.vals[i] = (uint32_t)i;
    }
    if (place(&c) != 0)
        goto out;
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0 || fetch(&c) != 0)
        goto out;
    r->bytes = (double)n * (k == GATHER ? 8.0 + 2.0 * (double)size : 8.0 + (double)size);
    r->verified = verify(&c);
    if (k == ARGSORT) {
        c.k = PAIRS;
        double ms = bench_time_prepared(b, restore, call, &c);
        restore(&c);
        if (ms < 0)
            goto out;
        snprintf(r->note, sizeof r->note, "sort_pairs (32-bit values) %.3f ms (argsort %.2fx)",
                 ms, r->ms / ms);
    } else {
        double ms = bench_wall_ms(serial, &c, b->repeat);
        snprintf(r->note, sizeof r->note, "serial C loop %.3f ms (library %.2fx)", ms,
                 ms / r->ms);
    }
    rc = 0;
out:
    release(&c);
    void *hosts[] = { c.keys, c.needles, c.out, c.pos };
    for (size_t i = 0; i < 4; i++)
        if (hosts[i])
            bench_host_free(b, hosts[i]);
    free(c.keys_copy);
    free(c.vals);
    free(serial_out);
    serial_out = NULL;
    return rc;
}

static int run_search(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    (void)p;
    return run(b, SEARCH, t, n, r);
}

static int run_argsort(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    (void)p;
    return run(b, ARGSORT, t, n, r);
}

static int run_gather(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    (void)p;
    return run(b, GATHER, t, n, r);
}

const bench_op bench_op_search_sorted = {
    "search_sorted", run_search, { { GPGPU_U32, { 0, "random" } } }, 1,
};
const bench_op bench_op_argsort = {
    "argsort", run_argsort, { { GPGPU_U32, { 0, "random" } } }, 1,
};
const bench_op bench_op_gather = {
    "gather", run_gather, { { GPGPU_U32, { 0, "random" } } }, 1,
};
