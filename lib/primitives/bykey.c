/*
 * bykey.c - gpgpu_reduce_by_key and gpgpu_scan_by_key.
 *
 * reduce_by_key reads its input once (kernels/segmented.cl, "reduce by
 * key"): each unit reduces the runs of its chunk into scratch, one group
 * carries the runs that cross chunks and counts the runs, each unit moves
 * its runs to their place. Nothing is read back between the launches, so
 * the _buffer form never blocks.
 *
 * scan_by_key takes the runs of equal keys as segments (kernels/bykey.cl:
 * run heads, an inclusive scan of them with the library's scan, each run's
 * start scattered to its rank), then the segmented scan of segmented.c
 * runs over the values. The _buffer form runs it over n segments: the
 * start offsets past the last run are all n (filled first), so the padding
 * segments are empty and the chunked path skips them (pad_end).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "segmented.h"

static int key_type_ok(gpgpu_type t)
{
    return t == GPGPU_I32 || t == GPGPU_U32 || t == GPGPU_I64 || t == GPGPU_U64;
}

/* Do [a, a + abytes) and [b, b + bbytes) share a byte? */
/* Whether a host call over n elements runs the host's own code (the
   plan's host-below; float values by reduce-f: their bits follow the
   combining order), the types supported. */
static int host_below(gpgpu_context *ctx, gpgpu_type key_type, gpgpu_type value_type, int scan,
                      size_t n)
{
    return gpgpu__host_below(ctx, gpgpu__type(value_type)->is_float ? GPGPU__HB_REDUCE_F
                                  : scan ? GPGPU__HB_SCAN_BY_KEY
                                         : GPGPU__HB_BY_KEY, n) &&
           gpgpu__type_supported(ctx, key_type) == GPGPU_SUCCESS &&
           gpgpu__type_supported(ctx, value_type) == GPGPU_SUCCESS;
}

static int overlap(const void *a, size_t abytes, const void *b, size_t bbytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return abytes && bbytes && x < y + bbytes && y < x + abytes;
}

/* Where the runs go: run starts (offs, n + 1 cl_ulong: run r's start at r,
   n after the last) and their count (one cl_ulong at nruns[nruns_off]). */
typedef struct {
    cl_mem offs, nruns;
    cl_ulong nruns_off;
    cl_mem kout;        /* NULL, or where each run's key goes (at kout_off) */
    cl_ulong kout_off;
} runs_out;

/* Whether the runs' ranks of n elements are 64-bit (kernels/bykey.cl,
   RANK_T): from tune.wide_from (2^32) elements on. */
static int wide_ranks(const gpgpu_context *ctx, size_t n)
{
    return n >= ctx->tune.wide_from;
}

/* The rank scratch of n elements (rank_bytes bytes a rank): where 64-bit
   ranks are needed and the device has no 64-bit integers, UNSUPPORTED. */
static gpgpu_status rank_scratch(gpgpu_context *ctx, size_t n, cl_mem *rank)
{
    if (wide_ranks(ctx, n) && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "n = %zu: the by-key primitives count runs of 2^32 elements or more "
                           "in 64 bits, and %s has no 64-bit integers", n, ctx->name);
    size_t size = wide_ranks(ctx, n) ? sizeof(cl_ulong) : sizeof(cl_uint);
    return gpgpu__scratch(ctx, GPGPU__SLOT_SORT_COUNTS, n * size, rank);
}

/* The runs of keys[key_off .. +n) on the device, n > 0. rank is n ranks
   of scratch (rank_scratch). */
static gpgpu_status runs_find(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                              cl_ulong key_off, size_t n, cl_mem rank, const runs_out *ro)
{
    char opts[512];
    const char *extra = NULL;
    gpgpu__program *prog;
    const int wide = wide_ranks(ctx, n);
    GPGPU__TRY(gpgpu__type_op_options(ctx, key_type, GPGPU_SUM, opts, sizeof opts, &extra));
    if (wide) {
        size_t used = strlen(opts);
        snprintf(opts + used, sizeof opts - used, " -D RANK_T=ulong");
    }
    GPGPU__TRY(gpgpu__program_get(ctx, "bykey", NULL, opts, &prog));
    const size_t wg = ctx->tune.wg, most = (ctx->tune.chunked ? 1 : 16) * ctx->tune.groups;
    size_t groups = (n + wg - 1) / wg;
    if (groups > most)
        groups = most;
    cl_ulong count = n;
    GPGPU__TRY(gpgpu__run(ctx, prog, "bykey_heads", groups * wg, wg, GPGPU__ARG(keys),
                          GPGPU__ARG(key_off), GPGPU__ARG(count), GPGPU__ARG(rank),
                          GPGPU__END));
    GPGPU__TRY(gpgpu__scan_enqueue(ctx, wide ? GPGPU_U64 : GPGPU_U32, GPGPU_SUM,
                                   GPGPU_INCLUSIVE, rank, 0, rank, 0, n, NULL, 0));
    if (ro->kout)
        return gpgpu__run(ctx, prog, "bykey_scatter_keys", groups * wg, wg, GPGPU__ARG(keys),
                          GPGPU__ARG(key_off), GPGPU__ARG(count), GPGPU__ARG(rank),
                          GPGPU__ARG(ro->offs), GPGPU__ARG(ro->nruns),
                          GPGPU__ARG(ro->nruns_off), GPGPU__ARG(ro->kout),
                          GPGPU__ARG(ro->kout_off), GPGPU__END);
    return gpgpu__run(ctx, prog, "bykey_scatter", groups * wg, wg, GPGPU__ARG(keys),
                      GPGPU__ARG(key_off), GPGPU__ARG(count), GPGPU__ARG(rank),
                      GPGPU__ARG(ro->offs), GPGPU__ARG(ro->nruns), GPGPU__ARG(ro->nruns_off),
                      GPGPU__END);
}

/* ---- reduce by key ---------------------------------------------------------- */

/* CPUs: elements a work item should have at least. GPUs: a group's chunk
   is a whole number of sub-tiles (as RBK_SUB in segmented.cl), and there
   are at most RBK_GROUPS groups per tune.groups. NVIDIA: a warp's chunk is
   a whole number of RBK_WARP_STEP elements (32 lanes times RBK_ROUNDS), one
   warp for each that the plan's groups hold. */
enum { RBK_PER_ITEM = 4096, RBK_GROUPS = 4, RBK_WARP_STEP = 32 * 8 };

/* GPGPU_SUM_EXACT on float values: the runs found as scan_by_key finds
   them (their keys written on the way), then an exact sum per run, a work
   item each (gpgpu__segmented_enqueue), n items of which those past the
   number of runs (on the device) do nothing. The outputs must not be the
   inputs. */
static gpgpu_status rbk_exact_enqueue(gpgpu_context *ctx, gpgpu_type key_type,
                                      gpgpu_type value_type, cl_mem keys, cl_ulong key_off,
                                      cl_mem vals, cl_ulong val_off, cl_ulong n, cl_mem kout,
                                      cl_ulong kout_off, cl_mem vout, cl_ulong vout_off,
                                      cl_mem nruns, cl_ulong nruns_off)
{
    cl_mem rank;
    runs_out ro = {NULL, nruns, nruns_off, kout, kout_off};
    GPGPU__TRY(rank_scratch(ctx, n, &rank));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, (n + 1) * sizeof(cl_ulong),
                              &ro.offs));
    GPGPU__TRY(runs_find(ctx, key_type, keys, key_off, n, rank, &ro));
    /* n work items, those past the number of runs (read on the device) idle */
    gpgpu__segments sg = { vals, val_off, ro.offs, 0, n, 0, n, vout, vout_off, 1, 1,
                           nruns, nruns_off };
    return gpgpu__segmented_enqueue(ctx, value_type, GPGPU_SUM_EXACT, 0, GPGPU_EXCLUSIVE, &sg);
}

/* The reduce by key of keys[key_off .. +n) and values[val_off ..] into
   kout[kout_off ..] and vout[vout_off ..], the number of runs to
   nruns[nruns_off] (a cl_ulong); n > 0. No locking. */
static gpgpu_status rbk_enqueue(gpgpu_context *ctx, gpgpu_type key_type, gpgpu_type value_type,
                                gpgpu_op op, cl_mem keys, cl_ulong key_off, cl_mem vals,
                                cl_ulong val_off, cl_ulong n, cl_mem kout, cl_ulong kout_off,
                                cl_mem vout, cl_ulong vout_off, cl_mem nruns,
                                cl_ulong nruns_off)
{
    if (op == GPGPU_SUM_EXACT && gpgpu__type(value_type)->is_float)
        return rbk_exact_enqueue(ctx, key_type, value_type, keys, key_off, vals, val_off, n,
                                 kout, kout_off, vout, vout_off, nruns, nruns_off);
    if (op == GPGPU_SUM_EXACT)
        op = GPGPU_SUM;
    gpgpu__program *prog;
    GPGPU__TRY(gpgpu__segmented_program(ctx, value_type, op, &prog));
    const size_t wg = ctx->tune.wg, ks = gpgpu__type(key_type)->size,
                 vs = gpgpu__type(value_type)->size;
    const cl_int wide = ks == 8;
    cl_ulong units, per;
    size_t global, local = wg, move_global;
    if (ctx->tune.nv_ptx && !ctx->tune.chunked && wg % 32 == 0) { /* RBK_WARP */
        const size_t warps = ctx->tune.groups * (wg / 32);
        per = gpgpu__div_up(gpgpu__div_up(n, warps), RBK_WARP_STEP) * RBK_WARP_STEP;
        units = gpgpu__div_up(n, per);
        global = gpgpu__div_up(units * 32, wg) * wg;
    } else if (ctx->tune.chunked) {
        size_t groups = gpgpu__div_up(n, wg * RBK_PER_ITEM);
        groups = groups < ctx->tune.groups ? groups : ctx->tune.groups;
        units = groups * wg;
        per = gpgpu__div_up(n, units);
        global = units;
        local = 1; /* see rbk_chunks */
    } else {
        const size_t least = vs == 4 ? 4096 : 2048;
        const size_t sub = wg * (least / wg ? least / wg : 1);
        per = gpgpu__div_up(gpgpu__div_up(n, RBK_GROUPS * ctx->tune.groups), sub) * sub;
        units = gpgpu__div_up(n, per);
        global = units * wg;
    }
    move_global = ctx->tune.chunked ? units : units * wg; /* rbk_move: a group per unit */
    cl_mem tk, tv, part, cnt;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, n * ks, &tk));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, n * vs, &tv));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, 2 * units * vs, &part));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, 2 * units * sizeof(cl_ulong), &cnt));
    GPGPU__TRY(gpgpu__run(ctx, prog, "rbk_chunks", global, local, GPGPU__ARG(keys),
                          GPGPU__ARG(key_off), GPGPU__ARG(wide), GPGPU__ARG(vals),
                          GPGPU__ARG(val_off), GPGPU__ARG(n), GPGPU__ARG(per),
                          GPGPU__ARG(units), GPGPU__ARG(tk), GPGPU__ARG(tv), GPGPU__ARG(part),
                          GPGPU__ARG(cnt), GPGPU__END));
    GPGPU__TRY(gpgpu__run(ctx, prog, "rbk_carry", wg, wg, GPGPU__ARG(part), GPGPU__ARG(cnt),
                          GPGPU__ARG(units), GPGPU__ARG(vout), GPGPU__ARG(vout_off),
                          GPGPU__ARG(nruns), GPGPU__ARG(nruns_off), GPGPU__END));
    return gpgpu__run(ctx, prog, "rbk_move", move_global, local, GPGPU__ARG(tk), GPGPU__ARG(tv),
                      GPGPU__ARG(cnt), GPGPU__ARG(per), GPGPU__ARG(units), GPGPU__ARG(wide),
                      GPGPU__ARG(kout), GPGPU__ARG(kout_off), GPGPU__ARG(vout),
                      GPGPU__ARG(vout_off), GPGPU__END);
}

/* Devices that share host memory: the kernels read keys and values where
   they are and write the runs into the caller's outputs (which overlap
   neither). *taken 0: not taken (an allocation too large). */
static gpgpu_status rbk_in_place(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                 gpgpu_type value_type, gpgpu_op op, const void *values,
                                 size_t n, void *keys_out, void *values_out, size_t *nruns,
                                 int *taken)
{
    const size_t ks = gpgpu__type(key_type)->size, vs = gpgpu__type(value_type)->size;
    *taken = gpgpu__in_place(ctx, n * ks) && gpgpu__in_place(ctx, n * vs);
    if (!*taken)
        return GPGPU_SUCCESS;
    cl_mem v[4] = {NULL, NULL, NULL, NULL}, count;
    size_t o[4] = {0, 0, 0, 0};
    cl_ulong runs = 0;
    gpgpu_status s = gpgpu__scratch(ctx, GPGPU__SLOT_OUT, sizeof runs, &count);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, keys, n * ks, 0, &v[0], &o[0]);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, values, n * vs, 0, &v[1], &o[1]);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, keys_out, n * ks, 1, &v[2], &o[2]);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__host_view(ctx, values_out, n * vs, 1, &v[3], &o[3]);
    if (s == GPGPU_SUCCESS) {
        gpgpu__note_route(ctx, "zero-copy");
        s = rbk_enqueue(ctx, key_type, value_type, op, v[0], o[0] / ks, v[1], o[1] / vs, n,
                        v[2], o[2] / ks, v[3], o[3] / vs, count, 0);
    }
    if (s == GPGPU_SUCCESS) /* blocking: the runs are in the outputs by then */
        s = gpgpu__read(ctx, count, 0, sizeof runs, &runs);
    for (int i = 0; i < 4; i++)
        if (v[i])
            clReleaseMemObject(v[i]);
    if (s == GPGPU_SUCCESS)
        *nruns = (size_t)runs;
    return s;
}

/* The device half of gpgpu_reduce_by_key, ctx locked: the runs are moved
   over the uploaded keys and values (read by then), then read back. */
static gpgpu_status rbk_host_api(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                 gpgpu_type value_type, gpgpu_op op, const void *values,
                                 size_t n, void *keys_out, void *values_out, size_t *nruns)
{
    const size_t ks = gpgpu__type(key_type)->size, vs = gpgpu__type(value_type)->size;
    GPGPU__TRY(gpgpu__type_supported(ctx, key_type));
    GPGPU__TRY(gpgpu__check_type_op(ctx, value_type, op));
    if (n == 0)
        return GPGPU_SUCCESS;
    int taken;
    GPGPU__TRY(rbk_in_place(ctx, key_type, keys, value_type, op, values, n, keys_out,
                            values_out, nruns, &taken));
    if (taken)
        return GPGPU_SUCCESS;
    cl_mem kbuf, vbuf, count;
    cl_ulong runs;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, n * ks, &kbuf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, n * vs, &vbuf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, sizeof runs, &count));
    GPGPU__TRY(gpgpu__upload(ctx, kbuf, 0, n * ks, keys));
    GPGPU__TRY(gpgpu__upload(ctx, vbuf, 0, n * vs, values));
    cl_mem kres = kbuf, vres = vbuf; /* the runs over the inputs (read by then) */
    if (op == GPGPU_SUM_EXACT && gpgpu__type(value_type)->is_float) {
        /* here the outputs are written while other items still read */
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, n * ks, &kres));
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, n * vs, &vres));
    }
    GPGPU__TRY(rbk_enqueue(ctx, key_type, value_type, op, kbuf, 0, vbuf, 0, n, kres, 0, vres,
                           0, count, 0));
    GPGPU__TRY(gpgpu__read(ctx, count, 0, sizeof runs, &runs));
    GPGPU__TRY(gpgpu__download(ctx, kres, 0, runs * ks, keys_out, 0));
    GPGPU__TRY(gpgpu__download(ctx, vres, 0, runs * vs, values_out, 0));
    *nruns = (size_t)runs;
    return GPGPU_SUCCESS;
}

/* ---- scan by key ------------------------------------------------------------ */

/* CPUs (chunk per work item): scan_by_key in two passes over the caller's
   layout, the runs found as the scan goes (sbk_chunk_carry and
   sbk_chunk_scan in segmented.cl): no run offsets, no count read back.
   Work items of at least SBK_PER_ITEM elements, at most the plan's. */
enum { SBK_PER_ITEM = 4096 };

static gpgpu_status sbk_chunked(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                cl_ulong key_off, gpgpu_type value_type, gpgpu_op op,
                                gpgpu_scan_kind kind, cl_mem in, cl_ulong in_off, cl_mem out,
                                cl_ulong out_off, size_t n)
{
    gpgpu__program *prog;
    GPGPU__TRY(gpgpu__segmented_program(ctx, value_type, op, &prog));
    const size_t wg = ctx->tune.wg, vsize = gpgpu__type(value_type)->size;
    size_t groups = gpgpu__div_up(n, wg * SBK_PER_ITEM);
    if (groups > ctx->tune.groups)
        groups = ctx->tune.groups;
    const size_t items = wg * (groups ? groups : 1);
    cl_mem part, heads;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, items * vsize, &part));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2, items * sizeof(cl_uint), &heads));
    cl_int k64 = gpgpu__type(key_type)->size == 8, inclusive = kind == GPGPU_INCLUSIVE;
    cl_ulong count = n;
    GPGPU__TRY(gpgpu__run(ctx, prog, "sbk_chunk_carry", items, wg, GPGPU__ARG(keys),
                          GPGPU__ARG(key_off), GPGPU__ARG(k64), GPGPU__ARG(in),
                          GPGPU__ARG(in_off), GPGPU__ARG(count), GPGPU__ARG(part),
                          GPGPU__ARG(heads), GPGPU__END));
    return gpgpu__run(ctx, prog, "sbk_chunk_scan", items, wg, GPGPU__ARG(keys),
                      GPGPU__ARG(key_off), GPGPU__ARG(k64), GPGPU__ARG(in), GPGPU__ARG(in_off),
                      GPGPU__ARG(out), GPGPU__ARG(out_off), GPGPU__ARG(count),
                      GPGPU__ARG(part), GPGPU__ARG(heads), GPGPU__ARG(inclusive), GPGPU__END);
}

/* The device half of gpgpu_scan_by_key, ctx locked: out gets the values
   scanned per run (the number of runs is read back between the passes, so
   that the segmented scan runs over exactly the runs). */
static gpgpu_status sbk_host_api(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                 gpgpu_type value_type, gpgpu_op op, gpgpu_scan_kind kind,
                                 const void *values, size_t n, void *out)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    GPGPU__TRY(gpgpu__type_supported(ctx, key_type));
    GPGPU__TRY(gpgpu__check_type_op(ctx, value_type, op));
    if (n == 0)
        return GPGPU_SUCCESS;
    cl_mem kbuf, vbuf, rank;
    if (ctx->tune.chunked && out != values && gpgpu__in_place(ctx, n * ksize) &&
        gpgpu__in_place(ctx, n * vsize)) {
        /* the caller's arrays in place (out apart from values: a failed
           call leaves values as they were) */
        cl_mem v[3] = {NULL, NULL, NULL};
        size_t o[3] = {0, 0, 0};
        gpgpu_status st = gpgpu__host_view(ctx, keys, n * ksize, 0, &v[0], &o[0]);
        if (st == GPGPU_SUCCESS)
            st = gpgpu__host_view(ctx, values, n * vsize, 0, &v[1], &o[1]);
        if (st == GPGPU_SUCCESS)
            st = gpgpu__host_view(ctx, out, n * vsize, 1, &v[2], &o[2]);
        if (st == GPGPU_SUCCESS) {
            gpgpu__note_route(ctx, "zero-copy");
            st = sbk_chunked(ctx, key_type, v[0], o[0] / ksize, value_type, op, kind, v[1],
                             o[1] / vsize, v[2], o[2] / vsize, n);
        }
        if (st == GPGPU_SUCCESS)
            st = gpgpu__finish(ctx);
        for (int i = 0; i < 3; i++)
            if (v[i])
                clReleaseMemObject(v[i]);
        return st;
    }
    if (ctx->tune.chunked) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, n * ksize, &kbuf));
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, n * vsize, &vbuf));
        GPGPU__TRY(gpgpu__upload(ctx, kbuf, 0, n * ksize, keys));
        GPGPU__TRY(gpgpu__upload(ctx, vbuf, 0, n * vsize, values));
        GPGPU__TRY(sbk_chunked(ctx, key_type, kbuf, 0, value_type, op, kind, vbuf, 0, vbuf, 0,
                               n));
        return gpgpu__download(ctx, vbuf, 0, n * vsize, out, out == values);
    }
    runs_out ro = { NULL, NULL, 0, NULL, 0 };
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, n * ksize, &kbuf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, n * vsize, &vbuf));
    GPGPU__TRY(rank_scratch(ctx, n, &rank));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, (n + 1) * sizeof(cl_ulong),
                              &ro.offs));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, sizeof(cl_ulong), &ro.nruns));
    GPGPU__TRY(gpgpu__upload(ctx, kbuf, 0, n * ksize, keys));
    GPGPU__TRY(gpgpu__upload(ctx, vbuf, 0, n * vsize, values));
    GPGPU__TRY(runs_find(ctx, key_type, kbuf, 0, n, rank, &ro));
    cl_ulong runs;
    GPGPU__TRY(gpgpu__read(ctx, ro.nruns, 0, sizeof runs, &runs));
    /* in place on the device: each element is read before it is written */
    gpgpu__segments sg = { vbuf, 0, ro.offs, 0, runs, 0, n, vbuf, 0, n / runs, 0, NULL, 0 };
    GPGPU__TRY(gpgpu__segmented_enqueue(ctx, value_type, op, 1, kind, &sg));
    /* in place: all or nothing, so that a failed call leaves values as they were */
    return gpgpu__download(ctx, vbuf, 0, n * vsize, out, out == values);
}

/* Checks both entry points share. */
static gpgpu_status bykey_check(gpgpu_context *ctx, const char *func, gpgpu_type key_type, const void *keys,
                                gpgpu_type value_type, gpgpu_op op, const void *values,
                                size_t n)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__REQUIRE(ctx, key_type_ok(key_type), func,
                   "key_type is %d; need GPGPU_I32, GPGPU_U32, GPGPU_I64 or GPGPU_U64", (int)key_type);
    GPGPU__TRY(gpgpu__check_type(ctx, func, "value_type", value_type));
    GPGPU__TRY(gpgpu__check_reduce_op(ctx, func, op)); /* scan_by_key refuses SUM_EXACT itself */
    GPGPU__REQUIRE(ctx, n == 0 || (keys != NULL && values != NULL), func,
                   "keys, values: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / 8 - 1, func,
                   "n is %zu; at most %zu", n, (size_t)PTRDIFF_MAX / 8 - 1);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(keys, key_type) && GPGPU__ALIGNED(values, value_type), func,
                   "keys is %p and values is %p; each must be aligned to the size of one element of its type", (const void *)keys, (const void *)values);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_reduce_by_key(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                                 gpgpu_type value_type, gpgpu_op op, const void *values,
                                 size_t n, void *keys_out, void *values_out, size_t *nruns)
{
    GPGPU__TRY(bykey_check(ctx, __func__, key_type, keys, value_type, op, values, n));
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__REQUIRE(ctx, n == 0 || (keys_out != NULL && values_out != NULL), __func__,
                   "keys_out, values_out: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(keys_out, key_type) &&
                        GPGPU__ALIGNED(values_out, value_type), __func__,
                   "keys_out is %p and values_out is %p; each must be aligned to the size of one element of its type", (const void *)keys_out, (const void *)values_out);
    const size_t kb = n * gpgpu__type(key_type)->size, vb = n * gpgpu__type(value_type)->size;
    GPGPU__REQUIRE(ctx, !overlap(keys_out, kb, keys, kb) && !overlap(keys_out, kb, values, vb) &&
                        !overlap(values_out, vb, keys, kb) &&
                        !overlap(values_out, vb, values, vb) &&
                        !overlap(keys_out, kb, values_out, vb), __func__,
                   "keys_out or values_out overlaps keys, values or the other (n = %zu); the outputs must not overlap the inputs or each other", n);
    if (ctx->host || (op < GPGPU_OP_USER && host_below(ctx, key_type, value_type, 0, n))) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        *nruns = gpgpu__host_reduce_by_key(key_type, keys, value_type, op, values, n, keys_out,
                                           values_out);
        return GPGPU_SUCCESS;
    }
    size_t runs = 0;
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = gpgpu__host_call_end(ctx, "gpgpu_reduce_by_key",
                                          rbk_host_api(ctx, key_type, keys, value_type, op,
                                                       values, n, keys_out, values_out,
                                                       &runs));
    if (s == GPGPU_SUCCESS)
        *nruns = runs;
    return s;
}

gpgpu_status gpgpu_scan_by_key(gpgpu_context *ctx, gpgpu_type key_type, const void *keys,
                               gpgpu_type value_type, gpgpu_op op, gpgpu_scan_kind kind,
                               const void *values, void *out, size_t n)
{
    GPGPU__TRY(bykey_check(ctx, __func__, key_type, keys, value_type, op, values, n));
    GPGPU__REQUIRE(ctx, op != GPGPU_SUM_EXACT, __func__,
                   "op is GPGPU_SUM_EXACT; scans do not take it (only the reduces do)");
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__REQUIRE(ctx, out != NULL || n == 0, __func__,
                   "out is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(out, value_type), __func__,
                   "out is %p; it must be aligned to %zu bytes, the size of one element of value_type", (const void *)out, gpgpu__type(value_type)->size);
    const size_t kb = n * gpgpu__type(key_type)->size, vb = n * gpgpu__type(value_type)->size;
    GPGPU__REQUIRE(ctx, (out == values || !overlap(out, vb, values, vb)) &&
                        !overlap(out, vb, keys, kb), __func__,
                   "out overlaps keys or partly overlaps values (n = %zu); out may be values itself but must not otherwise overlap keys or values", n);
    if (ctx->host || (op < GPGPU_OP_USER && host_below(ctx, key_type, value_type, 1, n))) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        gpgpu__host_scan_by_key(key_type, keys, value_type, op, kind, values, out, n);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_scan_by_key",
                                sbk_host_api(ctx, key_type, keys, value_type, op, kind,
                                             values, n, out));
}

/* ---- device buffers ---------------------------------------------------------- */

/* The device half of gpgpu_scan_by_key_buffer, ctx locked. */
static gpgpu_status sbk_buffers(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                size_t keys_offset, gpgpu_type value_type, gpgpu_op op,
                                gpgpu_scan_kind kind, cl_mem values, size_t values_offset,
                                size_t n, cl_mem out, size_t out_offset)
{
    GPGPU__TRY(gpgpu__type_supported(ctx, key_type));
    GPGPU__TRY(gpgpu__check_type_op(ctx, value_type, op));
    if (n == 0)
        return GPGPU_SUCCESS;
    if (ctx->tune.chunked)
        return sbk_chunked(ctx, key_type, keys, keys_offset, value_type, op, kind, values,
                           values_offset, out, out_offset, n);
    cl_mem rank;
    cl_ulong end = n;
    runs_out ro = { NULL, NULL, 0, NULL, 0 };
    GPGPU__TRY(rank_scratch(ctx, n, &rank));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, (n + 2) * sizeof(cl_ulong),
                              &ro.offs));
    ro.nruns = ro.offs; /* the count goes after the offsets */
    ro.nruns_off = n + 1;
    GPGPU__TRY(gpgpu__fill(ctx, ro.offs, 0, (n + 1) * sizeof end, &end, sizeof end));
    GPGPU__TRY(runs_find(ctx, key_type, keys, keys_offset, n, rank, &ro));
    gpgpu__segments sg = { values, values_offset, ro.offs, 0, n, 0, n, out, out_offset, 1, 1, NULL, 0 };
    return gpgpu__segmented_enqueue(ctx, value_type, op, 1, kind, &sg);
}

/* The device half of gpgpu_reduce_by_key_buffer, ctx locked. */
static gpgpu_status rbk_buffers(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                size_t keys_offset, gpgpu_type value_type, gpgpu_op op,
                                cl_mem values, size_t values_offset, size_t n, cl_mem keys_out,
                                size_t keys_out_offset, cl_mem values_out,
                                size_t values_out_offset, cl_mem nruns, size_t nruns_offset)
{
    GPGPU__TRY(gpgpu__type_supported(ctx, key_type));
    GPGPU__TRY(gpgpu__check_type_op(ctx, value_type, op));
    if (n == 0) {
        cl_ulong zero = 0;
        return gpgpu__fill(ctx, nruns, nruns_offset * sizeof zero, sizeof zero, &zero,
                           sizeof zero);
    }
    return rbk_enqueue(ctx, key_type, value_type, op, keys, keys_offset, values, values_offset,
                       n, keys_out, keys_out_offset, values_out, values_out_offset, nruns,
                       nruns_offset);
}

gpgpu_status gpgpu_reduce_by_key_buffer(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                        size_t keys_offset, gpgpu_type value_type, gpgpu_op op,
                                        cl_mem values, size_t values_offset, size_t n,
                                        cl_mem keys_out, size_t keys_out_offset,
                                        cl_mem values_out, size_t values_out_offset,
                                        cl_mem nruns, size_t nruns_offset, cl_uint num_wait,
                                        const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, key_type_ok(key_type), __func__,
                   "key_type is %d; need GPGPU_I32, GPGPU_U32, GPGPU_I64 or GPGPU_U64", (int)key_type);
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "value_type", value_type));
    GPGPU__TRY(gpgpu__check_reduce_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, n == 0 || (keys && values && keys_out && values_out), __func__,
                   "keys, values, keys_out, values_out: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", __func__);
    const size_t ks = gpgpu__type(key_type)->size, vs = gpgpu__type(value_type)->size;
    if (n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "keys", keys, keys_offset, n, ks));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "values", values, values_offset, n, vs));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "keys_out", keys_out, keys_out_offset, n,
                                      ks));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "values_out", values_out,
                                      values_out_offset, n, vs));
    }
    GPGPU__TRY(gpgpu__check_range(ctx, __func__, "nruns", nruns, nruns_offset, 1,
                                  sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = rbk_buffers(ctx, key_type, keys, keys_offset, value_type, op, values,
                                 values_offset, n, keys_out, keys_out_offset, values_out,
                                 values_out_offset, nruns, nruns_offset);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_scan_by_key_buffer(gpgpu_context *ctx, gpgpu_type key_type, cl_mem keys,
                                      size_t keys_offset, gpgpu_type value_type, gpgpu_op op,
                                      gpgpu_scan_kind kind, cl_mem values, size_t values_offset,
                                      cl_mem out, size_t out_offset, size_t n,
                                      cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done)
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, key_type_ok(key_type), __func__,
                   "key_type is %d; need GPGPU_I32, GPGPU_U32, GPGPU_I64 or GPGPU_U64", (int)key_type);
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "value_type", value_type));
    GPGPU__TRY(gpgpu__check_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__REQUIRE(ctx, n == 0 || (keys && values && out), __func__,
                   "keys, values, out: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, values != out || values_offset == out_offset, __func__,
                   "values and out are the same buffer with values_offset = %zu and out_offset = %zu; the same buffer is allowed only at the same offset", values_offset, out_offset);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", __func__);
    const size_t ks = gpgpu__type(key_type)->size, vs = gpgpu__type(value_type)->size;
    if (n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "keys", keys, keys_offset, n, ks));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "values", values, values_offset, n, vs));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "out", out, out_offset, n, vs));
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = sbk_buffers(ctx, key_type, keys, keys_offset, value_type, op, kind, values,
                                 values_offset, n, out, out_offset);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

/* ---- device arrays ------------------------------------------------------------ */

/* What both array forms check: keys' type, values of keys' length, op. */
static gpgpu_status bykey_arrays_check(gpgpu_context *ctx, const char *func, gpgpu_op op,
                                       const gpgpu_array *keys, const gpgpu_array *values)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__array_check(ctx, func, "keys", keys));
    GPGPU__TRY(gpgpu__array_check(ctx, func, "values", values));
    GPGPU__TRY(gpgpu__check_reduce_op(ctx, func, op)); /* scan_by_key refuses SUM_EXACT itself */
    GPGPU__REQUIRE(ctx, key_type_ok(keys->t), func,
                   "keys holds %s elements; need GPGPU_I32, GPGPU_U32, GPGPU_I64 or GPGPU_U64",
                   gpgpu__type(keys->t)->name);
    GPGPU__REQUIRE(ctx, values != keys, func,
                   "values and keys are the same array; they must differ");
    return gpgpu__array_match(ctx, func, "values", keys, values, 0, 1);
}

gpgpu_status gpgpu_reduce_by_key_array(gpgpu_context *ctx, gpgpu_op op, const gpgpu_array *keys,
                                       const gpgpu_array *values, gpgpu_array *keys_out,
                                       gpgpu_array *values_out, size_t *nruns)
{
    GPGPU__TRY(bykey_arrays_check(ctx, __func__, op, keys, values));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "keys_out", keys_out));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "values_out", values_out));
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__REQUIRE(ctx, keys_out != keys && keys_out != values && values_out != keys &&
                        values_out != values && keys_out != values_out, __func__,
                   "keys_out or values_out is keys, values or the other; the outputs must be arrays of their own");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "keys_out", keys, keys_out, 1, 0));
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "values_out", values, values_out, 1, 0));
    const size_t n = keys->n;
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "%s: user-defined operators need an OpenCL device", __func__);
        *nruns = gpgpu__host_reduce_by_key(keys->t, keys->host, values->t, op, values->host, n,
                                           keys_out->host, values_out->host);
        return GPGPU_SUCCESS;
    }
    cl_mem count;
    cl_ulong runs = 0;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, sizeof runs, &count);
    if (s == GPGPU_SUCCESS)
        s = rbk_buffers(ctx, keys->t, keys->buf, 0, values->t, op, values->buf, 0, n,
                        keys_out->buf, 0, values_out->buf, 0, count, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, count, 0, sizeof runs, &runs);
    if (s == GPGPU_SUCCESS)
        *nruns = (size_t)runs;
    return gpgpu__array_end(ctx, __func__, s);
}

gpgpu_status gpgpu_scan_by_key_array(gpgpu_context *ctx, gpgpu_op op, gpgpu_scan_kind kind,
                                     const gpgpu_array *keys, const gpgpu_array *values,
                                     gpgpu_array *out)
{
    GPGPU__TRY(bykey_arrays_check(ctx, __func__, op, keys, values));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__REQUIRE(ctx, op != GPGPU_SUM_EXACT, __func__,
                   "op is GPGPU_SUM_EXACT; scans do not take it (only the reduces do)");
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__REQUIRE(ctx, out != keys, __func__,
                   "out and keys are the same array; out may be values, never keys");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", values, out, 1, 1));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "%s: user-defined operators need an OpenCL device", __func__);
        gpgpu__host_scan_by_key(keys->t, keys->host, values->t, op, kind, values->host,
                                out->host, keys->n);
        return GPGPU_SUCCESS;
    }
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, __func__,
                            sbk_buffers(ctx, keys->t, keys->buf, 0, values->t, op, kind,
                                        values->buf, 0, keys->n, out->buf, 0));
}
