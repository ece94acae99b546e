/*
 * test_segmented.c - gpgpu_reduce_index, gpgpu_segmented_reduce,
 * gpgpu_segmented_scan and their _buffer forms against ref_segmented.c.
 *
 * Each runs on the device's own plan and, on an OpenCL device, also with
 * the GPU layout forced (tune.chunked = 0: one work item per short segment,
 * a work-group per chunk of long ones), so that PoCL covers both.
 * Float SUM inputs are whole numbers, so every order of combination gives
 * the exact sums and results compare bit for bit; rounding is tested on its
 * own (reproducible, within a bound of the exact sums).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "core/core.h" /* the GPU layout is forced through ctx->tune */
#include "ref.h"
#include "ref_segmented.h"
#include "ref_sum_exact.h"
#include "util.h"

static const gpgpu_type types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                    GPGPU_I64, GPGPU_U64, GPGPU_F64 };
static const gpgpu_op ops[] = { GPGPU_SUM, GPGPU_MIN, GPGPU_MAX };
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the paths under test ----------------------------------------------------- */

static gpgpu_context *paths[2];
static const char *path_names[2] = { "plan", "gpu-layout" };
static size_t npaths;

static void paths_open(void)
{
    paths[0] = tu_ctx;
    npaths = 1;
    if (tu_is_host() || !tu_ctx->tune.chunked)
        return;
    /* On tu_ctx's queue, so that the buffer tests' buffers and events serve
       both paths. */
    gpgpu_context *c = NULL;
    gpgpu_status st = gpgpu_context_from_queue(&c, gpgpu_queue(tu_ctx));
    ck_assert_msg(st == GPGPU_SUCCESS, "context: %s", gpgpu_last_error(NULL));
    c->tune.chunked = 0;
    paths[npaths++] = c;
}

/* The GPU layout is tested with one operator per type (each pair is a
   program PoCL compiles): path p covers operator o of type index ti? */
static int path_covers(size_t p, size_t o, int ti)
{
    return p == 0 || o == (size_t)ti % 3;
}

static void paths_close(void)
{
    for (size_t p = 1; p < npaths; p++)
        gpgpu_context_destroy(paths[p]);
    npaths = 0;
}

/* ---- inputs ------------------------------------------------------------------- */


/* Random values; float sums get whole numbers in [-8, 8) (exact sums). */
static void fill_values(gpgpu_type t, gpgpu_op op, void *buf, size_t n, uint64_t seed)
{
    tu_fill(t, buf, n, seed);
    if (op != GPGPU_SUM || (t != GPGPU_F32 && t != GPGPU_F64))
        return;
    for (size_t i = 0; i < n; i++) {
        double v = (double)(int)(tu_splitmix(&seed) % 16) - 8;
        if (t == GPGPU_F32)
            ((float *)buf)[i] = (float)v;
        else
            ((double *)buf)[i] = v;
    }
}

/* Segment layouts over elements [lead, lead + n) of an array of
   lead + n + 3 (the 3 past the last segment and the lead before the first
   must stay untouched). */
enum { LAYOUT_RANDOM, LAYOUT_ONE, LAYOUT_EACH, LAYOUT_EMPTY, LAYOUT_EMPTY_ENDS, LAYOUTS };
static const char *layout_names[] = { "random", "one segment", "one per element",
                                      "all empty", "empty at the ends" };

/* Fills off (room for n + 8) and returns nseg. Random lengths are uniform
   in [0, 2 * mean], so about one in 2 * mean + 1 is empty. */
static size_t make_offsets(int layout, size_t lead, size_t n, size_t mean, uint64_t seed,
                           size_t *off)
{
    size_t k = 0;
    switch (layout) {
    case LAYOUT_ONE:
        off[0] = lead;
        off[1] = lead + n;
        return 1;
    case LAYOUT_EACH:
        for (size_t i = 0; i <= n; i++)
            off[i] = lead + i;
        return n;
    case LAYOUT_EMPTY:
        for (k = 0; k < 5; k++)
            off[k] = lead;
        return 4;
    case LAYOUT_EMPTY_ENDS:
        off[k++] = lead;
        off[k++] = lead;
        off[k++] = lead + n / 2;
        off[k++] = lead + n / 2;
        off[k++] = lead + n;
        off[k++] = lead + n;
        return k - 1;
    default:
        off[k] = lead;
        while (off[k] < lead + n) {
            size_t len = (size_t)(tu_splitmix(&seed) % (2 * mean + 1));
            size_t left = lead + n - off[k];
            off[k + 1] = off[k] + (len < left ? len : left);
            k++;
        }
        return k;
    }
}

/* Offsets of random layouts need room for about n + n / mean segments. */
static size_t *offsets_alloc(size_t n)
{
    return tu_alloc((2 * n + 16) * sizeof(size_t));
}

/* ---- segmented reduce ----------------------------------------------------------- */

static void check_reduce(gpgpu_context *c, const char *path, gpgpu_type t, gpgpu_op op,
                         const void *in, const size_t *off, size_t nseg, const char *what)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *got = tu_alloc((nseg + 1) * size), *want = tu_alloc((nseg + 1) * size);
    ref_segmented_reduce(t, op, in, off, nseg, want);
    memset(got, 0xa5, (nseg + 1) * size);
    gpgpu_status st = gpgpu_segmented_reduce(c, t, op, in, off, nseg, got);
    ck_assert_msg(st == GPGPU_SUCCESS, "%s (%s): %s: %s [seed %llu]", what, path,
                  gpgpu_status_string(st), gpgpu_last_error(c), (unsigned long long)tu_seed());
    for (size_t s = 0; memcmp(got, want, nseg * size) && s < nseg; s++)
        ck_assert_msg(!memcmp(got + s * size, want + s * size, size),
                      "%s (%s) type %d op %d: segment %zu of %zu [%zu, %zu) wrong [seed %llu]",
                      what, path, t, op, s, nseg, off[s], off[s + 1],
                      (unsigned long long)tu_seed());
    ck_assert_msg(got[nseg * size] == 0xa5, "%s (%s): wrote past out[nseg - 1]", what, path);
    free(got);
    free(want);
}

/* Every layout over n elements (after a lead of 3 that is not read). */
static void reduce_layouts(gpgpu_context *c, const char *path, gpgpu_type t, gpgpu_op op,
                           size_t n, size_t mean)
{
    size_t size = gpgpu_type_size(t), lead = 3;
    unsigned char *in = tu_alloc((lead + n + 3) * size), *keep = tu_alloc((lead + n + 3) * size);
    size_t *off = offsets_alloc(n);
    fill_values(t, op, in, lead + n + 3, tu_seed_for(t * 16 + op, n));
    memcpy(keep, in, (lead + n + 3) * size);
    for (int l = 0; l < LAYOUTS; l++) {
        char what[96];
        size_t nseg = make_offsets(l, lead, n, mean, tu_seed_for(l, n), off);
        snprintf(what, sizeof what, "segmented_reduce of %zu, %s (mean %zu)", n,
                 layout_names[l], mean);
        check_reduce(c, path, t, op, in, off, nseg, what);
    }
    ck_assert_msg(!memcmp(in, keep, (lead + n + 3) * size), "the reduce changed its input");
    free(in);
    free(keep);
    free(off);
}

static const struct { size_t n, mean; } shapes[] = {
    { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 2 }, { 31, 3 }, { 1009, 7 }, { 4099, 40 },
    { 65537, 1000 }, { 100003, 33 },
};

TU_LOOP_TEST(segmented_reduce_every_type_op_and_layout, 6)
{
    paths_open();
    for (size_t p = 0; p < npaths; p++)
        for (size_t o = 0; o < COUNT(ops); o++)
            for (size_t s = 0; s < COUNT(shapes) && path_covers(p, o, _i); s++)
                reduce_layouts(paths[p], path_names[p], types[_i], ops[o], shapes[s].n,
                               shapes[s].mean);
    paths_close();
}
END_TEST

/* A million elements and more: segments of about 1000 and of about 10,
   and one segment of them all. */
TU_LOOP_TEST(segmented_reduce_millions, 6)
{
    const size_t n = ((size_t)1 << 20) + 3;
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        reduce_layouts(paths[p], path_names[p], types[_i], ops[_i % 3], n, 1000);
        reduce_layouts(paths[p], path_names[p], types[_i], ops[_i % 3], n / 8, 10);
    }
    paths_close();
}
END_TEST

/* ---- segmented scan --------------------------------------------------------------- */

static void check_scan(gpgpu_context *c, const char *path, gpgpu_type t, gpgpu_op op,
                       gpgpu_scan_kind kind, size_t n, size_t mean, int layout, int in_place)
{
    size_t size = gpgpu_type_size(t), lead = 3, all = lead + n + 3;
    unsigned char *in = tu_alloc(all * size), *keep = tu_alloc(all * size);
    unsigned char *out = tu_alloc(all * size), *want = tu_alloc(all * size);
    size_t *off = offsets_alloc(n);
    size_t nseg = make_offsets(layout, lead, n, mean, tu_seed_for(layout + 10, n), off);
    fill_values(t, op, in, all, tu_seed_for(t * 16 + op + 100, n));
    memcpy(keep, in, all * size);
    if (!in_place)
        memset(out, 0xa5, all * size);
    unsigned char *dst = in_place ? in : out;
    memcpy(want, dst, all * size);
    ref_segmented_scan(t, op, kind, in, want, off, nseg);
    gpgpu_status st = gpgpu_segmented_scan(c, t, op, kind, in, dst, off, nseg);
    ck_assert_msg(st == GPGPU_SUCCESS, "segmented_scan (%s) of %zu: %s: %s [seed %llu]", path,
                  n, gpgpu_status_string(st), gpgpu_last_error(c),
                  (unsigned long long)tu_seed());
    for (size_t i = 0; memcmp(dst, want, all * size) && i < all; i++)
        ck_assert_msg(!memcmp(dst + i * size, want + i * size, size),
                      "segmented_scan (%s) type %d op %d kind %d%s, %s of %zu (mean %zu): "
                      "element %zu wrong [seed %llu]", path, t, op, kind,
                      in_place ? " in place" : "", layout_names[layout], n, mean, i,
                      (unsigned long long)tu_seed());
    if (!in_place)
        ck_assert_msg(!memcmp(in, keep, all * size), "the scan changed its input");
    free(in);
    free(keep);
    free(out);
    free(want);
    free(off);
}

TU_LOOP_TEST(segmented_scan_every_type_op_kind_and_layout, 6)
{
    paths_open();
    for (size_t p = 0; p < npaths; p++)
        for (size_t o = 0; o < COUNT(ops); o++)
            for (int kind = 0; kind < 2; kind++)
                for (size_t s = 0; s < COUNT(shapes) && path_covers(p, o, _i); s++)
                    for (int l = 0; l < LAYOUTS; l++)
                        check_scan(paths[p], path_names[p], types[_i], ops[o],
                                   (gpgpu_scan_kind)kind, shapes[s].n, shapes[s].mean, l,
                                   (int)(s + l) % 2);
    paths_close();
}
END_TEST

TU_LOOP_TEST(segmented_scan_millions, 6)
{
    const size_t n = ((size_t)1 << 20) + 3;
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        check_scan(paths[p], path_names[p], types[_i], ops[_i % 3], (gpgpu_scan_kind)(_i % 2),
                   n, 1000, LAYOUT_RANDOM, _i % 2);
        check_scan(paths[p], path_names[p], types[_i], ops[_i % 3], GPGPU_INCLUSIVE, n, 0,
                   LAYOUT_ONE, 1);
        check_scan(paths[p], path_names[p], types[_i], ops[_i % 3], GPGPU_EXCLUSIVE, n / 8, 10,
                   LAYOUT_RANDOM, 0);
    }
    paths_close();
}
END_TEST

/* Random floats (not whole numbers): the same bits on every run, and each
   segment's sum (segmented reduce, and reduce_by_key over the segments as
   runs) within a bound of its exact value. */
TU_TEST(float_sums_reproducible_and_close)
{
    const size_t n = 300007;
    float *x = tu_alloc(n * sizeof *x), *a = tu_alloc(n * sizeof *x), *b = tu_alloc(n * sizeof *x);
    uint32_t *keys = tu_alloc(n * sizeof *keys), *kout = tu_alloc(n * sizeof *kout);
    size_t *off = offsets_alloc(n);
    tu_fill(GPGPU_F32, x, n, tu_seed_for(77, n));
    size_t nseg = make_offsets(LAYOUT_RANDOM, 0, n, 5000, tu_seed_for(78, n), off);
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        tu_assert_ok(gpgpu_segmented_reduce(paths[p], GPGPU_F32, GPGPU_SUM, x, off, nseg, a));
        tu_assert_ok(gpgpu_segmented_reduce(paths[p], GPGPU_F32, GPGPU_SUM, x, off, nseg, b));
        ck_assert_msg(!memcmp(a, b, nseg * sizeof *a), "two runs gave other bits");
        for (size_t s = 0; s < nseg; s++) {
            float w;
            long double exact, abs_sum;
            ref_reduce(GPGPU_F32, GPGPU_SUM, x + off[s], off[s + 1] - off[s], &w, &exact,
                       &abs_sum);
            long double bound = (64 + 2 * log2l((long double)(off[s + 1] - off[s]) + 1)) *
                                0x1p-24L * abs_sum;
            ck_assert_msg(fabsl(a[s] - exact) <= bound, "segment %zu: %.9g vs %.9Lg (%s)", s,
                          a[s], exact, path_names[p]);
        }
        tu_assert_ok(gpgpu_segmented_scan(paths[p], GPGPU_F32, GPGPU_SUM, GPGPU_INCLUSIVE, x,
                                          a, off, nseg));
        tu_assert_ok(gpgpu_segmented_scan(paths[p], GPGPU_F32, GPGPU_SUM, GPGPU_INCLUSIVE, x,
                                          b, off, nseg));
        ck_assert_msg(!memcmp(a, b, n * sizeof *a), "two scans gave other bits");
        /* The non-empty segments as runs of keys (each its segment's number). */
        size_t runs_a, runs_b, r = 0;
        for (size_t s = 0; s < nseg; s++)
            for (size_t i = off[s]; i < off[s + 1]; i++)
                keys[i] = (uint32_t)s;
        tu_assert_ok(gpgpu_reduce_by_key(paths[p], GPGPU_U32, keys, GPGPU_F32, GPGPU_SUM, x, n,
                                         kout, a, &runs_a));
        tu_assert_ok(gpgpu_reduce_by_key(paths[p], GPGPU_U32, keys, GPGPU_F32, GPGPU_SUM, x, n,
                                         kout, b, &runs_b));
        ck_assert_msg(runs_a == runs_b && !memcmp(a, b, runs_a * sizeof *a),
                      "two reduce_by_key gave other bits (%s)", path_names[p]);
        for (size_t s = 0; s < nseg; s++) {
            if (off[s] == off[s + 1])
                continue;
            float w;
            long double exact, abs_sum;
            ref_reduce(GPGPU_F32, GPGPU_SUM, x + off[s], off[s + 1] - off[s], &w, &exact,
                       &abs_sum);
            long double bound = (64 + 2 * log2l((long double)(off[s + 1] - off[s]) + 1)) *
                                0x1p-24L * abs_sum;
            ck_assert_msg(r < runs_a && fabsl(a[r] - exact) <= bound,
                          "reduce_by_key run %zu: %.9g vs %.9Lg (%s)", r, a[r], exact,
                          path_names[p]);
            r++;
        }
        ck_assert_uint_eq(r, runs_a);
    }
    paths_close();
    free(x);
    free(a);
    free(b);
    free(keys);
    free(kout);
    free(off);
}
END_TEST

/* ---- user operators ------------------------------------------------------------- */

/* Adversarial elements for the exact sums: huge cancellations, subnormals,
   ties at half an ulp, wide exponents, signed zeros, now and then an inf. */
static void fill_exact(int is_f32, void *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tu_splitmix(&seed);
        double v;
        switch (r % 8) {
        case 0: v = (r >> 8) % 2 ? 1e300 : -1e300; break;
        case 1: v = ldexp((double)(r >> 40), -1074 + (int)(r % 5)); break; /* subnormal */
        case 2: v = 1.0 + ldexp(1.0, -53); break;                          /* a tie in f64 */
        case 3: v = (r >> 8) % 2 ? 0.0 : -0.0; break;
        case 4: v = r % 101 == 0 ? INFINITY : 1.0; break;
        default: v = ldexp((double)(int32_t)(r >> 32), (int)((r >> 8) % 200) - 100); break;
        }
        if (is_f32) {
            if (r % 8 == 0)
                v = (r >> 8) % 2 ? 3e38 : -3e38;
            ((float *)buf)[i] = (float)v;
        } else {
            ((double *)buf)[i] = v;
        }
    }
}

/* GPGPU_SUM_EXACT per segment and per run: each result has the bits of the
   exact reference over its segment, on both layouts, through the host call,
   the _buffer form and reduce_by_key over the same segments as runs. */
TU_TEST(exact_sums_per_segment_and_per_run)
{
    static const size_t ns[] = { 0, 1, 97, 4099, 70001 };
    paths_open();
    for (int f32 = 0; f32 < 2; f32++) {
        const gpgpu_type t = f32 ? GPGPU_F32 : GPGPU_F64;
        const size_t size = gpgpu_type_size(t);
        uint64_t probe = 0;
        if (gpgpu_reduce(tu_ctx, t, GPGPU_SUM_EXACT, &probe, 0, &probe) ==
            GPGPU_ERROR_UNSUPPORTED)
            continue; /* no f64 or no 64-bit integers on the device */
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
            for (int layout = 0; layout < LAYOUTS; layout++) {
                const size_t n = ns[ni];
                if (layout == LAYOUT_EMPTY)
                    continue;
                const uint64_t seed = tu_seed_for(61, n * 8 + (size_t)f32 * 4 + (size_t)layout);
                size_t *off = offsets_alloc(n);
                const size_t nseg = make_offsets(layout, 0, n, 9, seed, off);
                char *x = tu_alloc(n * size + 8), *want = tu_alloc((nseg + 1) * size);
                char *got = tu_alloc((nseg + 1) * size), *vout = tu_alloc(n * size + 8);
                uint32_t *keys = tu_alloc(n * 4 + 4), *kout = tu_alloc(n * 4 + 4);
                fill_exact(f32, x, n, seed);
                size_t nonempty = 0;
                for (size_t sg = 0; sg < nseg; sg++) {
                    const double w = ref_sum_exact(f32, x + off[sg] * size, off[sg + 1] - off[sg]);
                    if (f32)
                        ((float *)want)[sg] = (float)w;
                    else
                        ((double *)want)[sg] = w;
                    for (size_t i = off[sg]; i < off[sg + 1]; i++)
                        keys[i] = (uint32_t)nonempty;
                    nonempty += off[sg + 1] > off[sg];
                }
                for (size_t p = 0; p < npaths; p++) {
                    gpgpu_context *c = paths[p];
                    tu_assert_ok(gpgpu_segmented_reduce(c, t, GPGPU_SUM_EXACT, x, off, nseg, got));
                    for (size_t sg = 0; sg < nseg; sg++)
                        ck_assert_msg(!memcmp(got + sg * size, want + sg * size, size),
                                      "exact %s n=%zu %s: segment %zu [%zu, %zu) (%s) [seed %llu]",
                                      f32 ? "f32" : "f64", n, layout_names[layout], sg, off[sg],
                                      off[sg + 1], path_names[p], (unsigned long long)tu_seed());
                    size_t runs = 0;
                    tu_assert_ok(gpgpu_reduce_by_key(c, GPGPU_U32, keys, t, GPGPU_SUM_EXACT, x, n,
                                                     kout, vout, &runs));
                    ck_assert_uint_eq(runs, nonempty);
                    for (size_t sg = 0, r = 0; sg < nseg; sg++) {
                        if (off[sg + 1] == off[sg])
                            continue;
                        ck_assert_msg(kout[r] == keys[off[sg]] &&
                                          !memcmp(vout + r * size, want + sg * size, size),
                                      "exact reduce_by_key %s n=%zu: run %zu (%s) [seed %llu]",
                                      f32 ? "f32" : "f64", n, r, path_names[p],
                                      (unsigned long long)tu_seed());
                        r++;
                    }
                    if (tu_is_host() || nseg == 0)
                        continue;
                    /* the _buffer forms, on the device */
                    cl_command_queue q = gpgpu_queue(c);
                    cl_context cl;
                    cl_int err;
                    ck_assert_int_eq(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl,
                                                           NULL), CL_SUCCESS);
                    cl_ulong *o64 = tu_alloc((nseg + 1) * 8), nr = 0;
                    for (size_t sg = 0; sg <= nseg; sg++)
                        o64[sg] = off[sg];
                    cl_mem din = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                n * size + 8, x, &err);
                    cl_mem dk = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                               n * 4 + 4, keys, &err);
                    cl_mem doff = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                 (nseg + 1) * 8, o64, &err);
                    cl_mem dout = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * size + 8 * nseg + 8,
                                                 NULL, &err);
                    cl_mem dko = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4 + 4, NULL, &err);
                    cl_mem dnr = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8, NULL, &err);
                    tu_assert_ok(gpgpu_segmented_reduce_buffer(c, t, GPGPU_SUM_EXACT, din, 0, doff,
                                                               0, nseg, dout, 0, 0, NULL, NULL));
                    ck_assert_int_eq(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, nseg * size, got, 0,
                                                         NULL, NULL), CL_SUCCESS);
                    ck_assert_msg(!memcmp(got, want, nseg * size),
                                  "exact segmented_reduce_buffer %s n=%zu (%s) [seed %llu]",
                                  f32 ? "f32" : "f64", n, path_names[p],
                                  (unsigned long long)tu_seed());
                    tu_assert_ok(gpgpu_reduce_by_key_buffer(c, GPGPU_U32, dk, 0, t,
                                                            GPGPU_SUM_EXACT, din, 0, n, dko, 0,
                                                            dout, 0, dnr, 0, 0, NULL, NULL));
                    ck_assert_int_eq(clEnqueueReadBuffer(q, dnr, CL_TRUE, 0, 8, &nr, 0, NULL,
                                                         NULL), CL_SUCCESS);
                    ck_assert_uint_eq(nr, nonempty);
                    ck_assert_int_eq(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, nonempty * size,
                                                         got, 0, NULL, NULL), CL_SUCCESS);
                    ck_assert_msg(!memcmp(got, vout, nonempty * size),
                                  "exact reduce_by_key_buffer %s n=%zu (%s) [seed %llu]",
                                  f32 ? "f32" : "f64", n, path_names[p],
                                  (unsigned long long)tu_seed());
                    clReleaseMemObject(din);
                    clReleaseMemObject(dk);
                    clReleaseMemObject(doff);
                    clReleaseMemObject(dout);
                    clReleaseMemObject(dko);
                    clReleaseMemObject(dnr);
                    free(o64);
                }
                /* the scans do not take it */
                ck_assert_int_eq(gpgpu_segmented_scan(tu_ctx, t, GPGPU_SUM_EXACT, GPGPU_INCLUSIVE,
                                                      x, got, off, nseg > 1 ? 1 : nseg),
                                 GPGPU_ERROR_INVALID_ARGUMENT);
                ck_assert_int_eq(gpgpu_scan_by_key(tu_ctx, GPGPU_U32, keys, t, GPGPU_SUM_EXACT,
                                                   GPGPU_INCLUSIVE, x, vout, n),
                                 GPGPU_ERROR_INVALID_ARGUMENT);
                free(off);
                free(x);
                free(want);
                free(got);
                free(vout);
                free(keys);
                free(kout);
            }
    }
    paths_close();
}
END_TEST

TU_TEST(user_operator)
{
    const size_t n = 20011;
    uint32_t *x = tu_alloc(n * 4), *got = tu_alloc(n * 4), *want = tu_alloc(n * 4);
    size_t *off = offsets_alloc(n);
    size_t nseg = make_offsets(LAYOUT_RANDOM, 0, n, 300, tu_seed_for(5, n), off);
    gpgpu_op prod;
    for (size_t i = 0; i < n; i++)
        x[i] = (uint32_t)(i % 7) + 1;
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_OP_USER, x, off, nseg,
                                                got), GPGPU_ERROR_UNSUPPORTED);
        ck_assert_int_eq(gpgpu_segmented_scan(tu_ctx, GPGPU_U32, GPGPU_OP_USER,
                                              GPGPU_INCLUSIVE, x, got, off, nseg),
                         GPGPU_ERROR_UNSUPPORTED);
        goto done;
    }
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        tu_assert_ok(gpgpu_op_define(paths[p], GPGPU_U32, "a * b", "1", &prod));
        tu_assert_ok(gpgpu_segmented_reduce(paths[p], GPGPU_U32, prod, x, off, nseg, got));
        for (size_t s = 0; s < nseg; s++) {
            uint32_t w = 1;
            for (size_t i = off[s]; i < off[s + 1]; i++)
                w *= x[i];
            ck_assert_msg(got[s] == w, "segment %zu: %u, want %u (%s)", s, got[s], w,
                          path_names[p]);
        }
        tu_assert_ok(gpgpu_segmented_scan(paths[p], GPGPU_U32, prod, GPGPU_EXCLUSIVE, x, got,
                                          off, nseg));
        for (size_t s = 0; s < nseg; s++) {
            uint32_t w = 1;
            for (size_t i = off[s]; i < off[s + 1]; w *= x[i], i++)
                want[i] = w;
        }
        ck_assert_msg(!memcmp(got, want, n * 4), "user scan wrong (%s)", path_names[p]);
    }
    paths_close();
done:
    free(x);
    free(got);
    free(want);
    free(off);
}
END_TEST

/* ---- reduce_index ------------------------------------------------------------------ */

static void check_index_on(gpgpu_context *c, const char *path, gpgpu_type t, gpgpu_op op,
                           const void *in, size_t n, const char *what)
{
    size_t size = gpgpu_type_size(t), idx = 12345;
    unsigned char v[8], id[8];
    size_t want = ref_reduce_index(t, op, in, n);
    gpgpu_status st = gpgpu_reduce_index(c, t, op, in, n, v, &idx);
    ck_assert_msg(st == GPGPU_SUCCESS, "%s (%s): %s: %s", what, path, gpgpu_status_string(st),
                  gpgpu_last_error(c));
    ck_assert_msg(idx == want, "%s (%s) type %d op %d n %zu: index %zu, want %zu [seed %llu]",
                  what, path, t, op, n, idx, want, (unsigned long long)tu_seed());
    if (want == SIZE_MAX) {
        long double e, a;
        ref_reduce(t, op, NULL, 0, id, &e, &a);
        ck_assert_msg(!memcmp(v, id, size), "%s: value of none is not the identity", what);
    } else {
        ck_assert_msg(!memcmp(v, (const char *)in + want * size, size),
                      "%s (%s): value is not in[index]", what, path);
    }
}

static void check_index(gpgpu_type t, gpgpu_op op, const void *in, size_t n, const char *what)
{
    check_index_on(tu_ctx, "plan", t, op, in, n, what);
}

static const size_t index_sizes[] = { 0, 1, 2, 3, 5, 63, 64, 65, 511, 512, 513, 16385, 65537,
                                      1000003 };

/* Both operators on the plan; on the GPU layout the one of ops[] that
   path_covers gives the type (none for types whose turn is SUM). */
static void check_index_paths(gpgpu_type t, int ti, const void *x, size_t n, const char *what)
{
    static const gpgpu_op index_ops[] = { GPGPU_MIN, GPGPU_MAX };
    for (size_t p = 0; p < npaths; p++)
        for (size_t o = 0; o < COUNT(index_ops); o++)
            if (p == 0 || ops[ti % 3] == index_ops[o])
                check_index_on(paths[p], path_names[p], t, index_ops[o], x, n, what);
}

TU_LOOP_TEST(reduce_index_every_type_and_size, 6)
{
    gpgpu_type t = types[_i];
    size_t size = gpgpu_type_size(t);
    paths_open();
    for (size_t k = 0; k < COUNT(index_sizes); k++) {
        size_t n = index_sizes[k];
        unsigned char *x = tu_alloc(n * size + size);
        tu_fill(t, x, n + 1, tu_seed_for(t + 200, n));
        check_index_paths(t, _i, x, n, "random");
        check_index_paths(t, _i, x + size, n, "random, from x + 1");
        /* Few distinct values: many ties, the lowest index must win. */
        for (size_t i = 0; i < n; i++)
            memcpy(x + i * size, x + (i % 5 + n / 2) % n * size, size);
        check_index_paths(t, _i, x, n, "ties");
        free(x);
    }
    paths_close();
}
END_TEST

TU_TEST(reduce_index_all_equal_and_none)
{
    const size_t n = 300007;
    double *d = tu_alloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = 2.5;
    check_index(GPGPU_F64, GPGPU_MIN, d, n, "all equal");
    check_index(GPGPU_F64, GPGPU_MAX, d, n, "all equal");
    for (size_t i = 0; i < n; i++)
        d[i] = NAN;
    check_index(GPGPU_F64, GPGPU_MIN, d, n, "all NaN");
    check_index(GPGPU_F64, GPGPU_MAX, d, n, "all NaN");
    d[n - 1] = -1;
    check_index(GPGPU_F64, GPGPU_MAX, d, n, "one number among NaN");
    check_index(GPGPU_F64, GPGPU_MIN, NULL, 0, "empty");
    free(d);
}
END_TEST

TU_TEST(reduce_index_nan_and_signed_zeros)
{
    float f[6] = { NAN, 0.0f, -0.0f, NAN, -0.0f, 0.0f };
    size_t idx;
    float v;
    tu_assert_ok(gpgpu_reduce_index(tu_ctx, GPGPU_F32, GPGPU_MIN, f, 6, &v, &idx));
    ck_assert_uint_eq(idx, 1);
    ck_assert(v == 0.0f && !signbit(v));
    tu_assert_ok(gpgpu_reduce_index(tu_ctx, GPGPU_F32, GPGPU_MAX, f + 2, 4, &v, &idx));
    ck_assert_uint_eq(idx, 0);
    ck_assert(v == 0.0f && signbit(v));
    float g[4] = { NAN, 3, -INFINITY, -INFINITY };
    tu_assert_ok(gpgpu_reduce_index(tu_ctx, GPGPU_F32, GPGPU_MIN, g, 4, &v, &idx));
    ck_assert_uint_eq(idx, 2);
    tu_assert_ok(gpgpu_reduce_index(tu_ctx, GPGPU_F32, GPGPU_MAX, g, 4, &v, &idx));
    ck_assert_uint_eq(idx, 1);
    ck_assert(v == 3);
}
END_TEST

/* ---- errors ----------------------------------------------------------------------- */

TU_TEST(bad_arguments_are_rejected)
{
    uint32_t x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8], keep[8];
    size_t off[4] = { 0, 5, 3, 8 }, good[3] = { 0, 4, 8 }, idx;
    memcpy(keep, x, sizeof x);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, off, 3, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "offsets[2] = 3") != NULL, "message: %s",
                  gpgpu_last_error(tu_ctx));
    ck_assert_int_eq(gpgpu_segmented_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, x,
                                          off, 3), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_msg(!memcmp(x, keep, sizeof x), "a failed in-place scan changed its input");
    ck_assert_int_eq(gpgpu_segmented_reduce(NULL, GPGPU_U32, GPGPU_SUM, x, good, 2, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, (gpgpu_type)9, GPGPU_SUM, x, good, 2, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, 7, x, good, 2, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, NULL, 2, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, good, 2, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, good, 2, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM,
                                            (const char *)x + 1, good, 2, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, (gpgpu_scan_kind)5, x,
                                          out, good, 2), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x,
                                          x + 1, good, 2), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_reduce_index(tu_ctx, GPGPU_U32, GPGPU_SUM, x, 8, out, &idx),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_reduce_index(tu_ctx, GPGPU_U32, GPGPU_MIN, x, 8, out, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_reduce_index(tu_ctx, GPGPU_U32, GPGPU_MIN, NULL, 8, out, &idx),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    /* Nothing to do is not an error: no segments, or only empty ones. */
    tu_assert_ok(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, NULL, 0, NULL));
    size_t empty[3] = { 4, 4, 4 };
    tu_assert_ok(gpgpu_segmented_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, NULL,
                                      NULL, empty, 2));
    tu_assert_ok(gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_MIN, NULL, empty, 2, out));
    ck_assert_uint_eq(out[0], UINT32_MAX);
    ck_assert_uint_eq(out[1], UINT32_MAX);
}
END_TEST

/* ---- the buffer forms ---------------------------------------------------------------- */

TU_TEST(buffer_forms_with_offsets_and_events)
{
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_segmented_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0,
                                                       NULL, 0, 0, NULL, 0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const size_t n = 50021, lead = 5;
    int64_t *x = tu_alloc((n + lead) * 8), *got = tu_alloc((n + lead) * 8);
    int64_t *want = tu_alloc((n + lead) * 8);
    size_t *off = offsets_alloc(n);
    cl_ulong *off64 = tu_alloc((2 * n + 16) * 8);
    tu_fill(GPGPU_I64, x, n + lead, tu_seed_for(31, n));
    size_t nseg = make_offsets(LAYOUT_RANDOM, 0, n, 100, tu_seed_for(32, n), off);
    for (size_t s = 0; s <= nseg; s++)
        off64[s + 2] = off[s];
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n + lead) * 8, x,
                               &err);
    cl_mem ob = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (nseg + 3) * 8,
                               off64, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + lead) * 8, NULL, &err);
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        cl_event marker, done;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
        ck_assert_int_eq(gpgpu_segmented_reduce_buffer(paths[p], GPGPU_I64, GPGPU_MAX, in,
                                                       lead, ob, 2, nseg, out, 1, 1, &marker,
                                                       &done), GPGPU_SUCCESS);
        clEnqueueReadBuffer(q, out, CL_TRUE, 8, nseg * 8, got, 1, &done, NULL);
        ref_segmented_reduce(GPGPU_I64, GPGPU_MAX, x + lead, off, nseg, want);
        ck_assert_msg(!memcmp(got, want, nseg * 8), "reduce_buffer wrong (%s)", path_names[p]);
        clReleaseEvent(done);
        ck_assert_int_eq(gpgpu_segmented_scan_buffer(paths[p], GPGPU_I64, GPGPU_SUM,
                                                     GPGPU_EXCLUSIVE, in, lead, out, 0, ob, 2,
                                                     nseg, 1, &marker, &done), GPGPU_SUCCESS);
        clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * 8, got, 1, &done, NULL);
        ref_segmented_scan(GPGPU_I64, GPGPU_SUM, GPGPU_EXCLUSIVE, x + lead, want, off, nseg);
        ck_assert_msg(!memcmp(got, want, n * 8), "scan_buffer wrong (%s)", path_names[p]);
        clReleaseEvent(done);
        cl_mem idx = clCreateBuffer(cl, CL_MEM_READ_WRITE, 16, NULL, &err);
        ck_assert_int_eq(gpgpu_reduce_index_buffer(paths[p], GPGPU_I64, GPGPU_MIN, in, lead, n,
                                                   out, 3, idx, 1, 1, &marker, &done),
                         GPGPU_SUCCESS);
        cl_ulong i;
        int64_t v;
        clEnqueueReadBuffer(q, idx, CL_TRUE, 8, 8, &i, 1, &done, NULL);
        clEnqueueReadBuffer(q, out, CL_TRUE, 24, 8, &v, 0, NULL, NULL);
        ck_assert_uint_eq(i, ref_reduce_index(GPGPU_I64, GPGPU_MIN, x + lead, n));
        ck_assert_int_eq(v, x[lead + i]);
        clReleaseEvent(done);
        clReleaseMemObject(idx);
        /* An offsets range past its buffer is refused before anything runs. */
        ck_assert_int_eq(gpgpu_segmented_reduce_buffer(paths[p], GPGPU_I64, GPGPU_SUM, in, 0,
                                                       ob, 3, nseg, out, 0, 0, NULL, &done),
                         GPGPU_ERROR_INVALID_ARGUMENT);
        ck_assert_ptr_null(done);
        clReleaseEvent(marker);
    }
    paths_close();
    clReleaseMemObject(in);
    clReleaseMemObject(ob);
    clReleaseMemObject(out);
    free(x);
    free(got);
    free(want);
    free(off);
    free(off64);
}
END_TEST

/* Offsets in a buffer that decrease or point past its end: the kernels
   clamp them, so the call finishes and touches nothing outside. */
TU_TEST(buffer_form_survives_bad_offsets)
{
    if (tu_is_host())
        return;
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    uint32_t x[16];
    cl_ulong off[6] = { 0, 9, 4, 1000000, 3, 0xffffffffffffffffull };
    for (int i = 0; i < 16; i++)
        x[i] = (uint32_t)i;
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem ob = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof off, off,
                               &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        tu_assert_ok(gpgpu_segmented_reduce_buffer(paths[p], GPGPU_U32, GPGPU_SUM, in, 0, ob, 0,
                                                   5, out, 0, 0, NULL, NULL));
        tu_assert_ok(gpgpu_segmented_scan_buffer(paths[p], GPGPU_U32, GPGPU_SUM,
                                                 GPGPU_INCLUSIVE, in, 0, out, 0, ob, 0, 5, 0,
                                                 NULL, NULL));
        clFinish(q);
    }
    paths_close();
    clReleaseMemObject(in);
    clReleaseMemObject(ob);
    clReleaseMemObject(out);
}
END_TEST

/* ---- by key ------------------------------------------------------------------------- */

static const gpgpu_type key_types[] = { GPGPU_I32, GPGPU_U32, GPGPU_I64, GPGPU_U64 };

/* Keys in runs: mean 0 gives all keys equal, 1 every run of length one
   (distinct neighbours), else random lengths in [1, 2 * mean]. Run keys
   come from few values, so that equal keys also meet across runs. */
static void fill_keys(gpgpu_type kt, void *keys, size_t n, size_t mean, uint64_t seed)
{
    size_t size = gpgpu_type_size(kt), i = 0;
    uint64_t key = 0, r = seed;
    while (i < n) {
        size_t len = mean == 0 ? n : mean == 1 ? 1 : 1 + (size_t)(tu_splitmix(&r) % (2 * mean));
        uint64_t next = tu_splitmix(&r) % 5 | (tu_splitmix(&r) & 0x8000000080000000ull);
        key = next == key ? next + 1 : next;
        for (size_t j = 0; j < len && i < n; j++, i++)
            memcpy((char *)keys + i * size, &key, size); /* the low bytes (little-endian) */
    }
}

static void check_by_key(gpgpu_context *c, const char *path, gpgpu_type kt, gpgpu_type vt,
                         gpgpu_op op, size_t n, size_t mean)
{
    size_t ks = gpgpu_type_size(kt), vs = gpgpu_type_size(vt);
    unsigned char *keys = tu_alloc(n * ks), *vals = tu_alloc(n * vs);
    unsigned char *kout = tu_alloc(n * ks), *vout = tu_alloc(n * vs);
    unsigned char *want = tu_alloc((n + 1) * vs), *scan = tu_alloc(n * vs);
    size_t *starts = tu_alloc((n + 1) * sizeof *starts), runs = 12345;
    fill_keys(kt, keys, n, mean, tu_seed_for(kt * 64 + mean, n));
    fill_values(vt, op, vals, n, tu_seed_for(vt * 64 + op, n));
    size_t want_runs = ref_runs(kt, keys, n, starts);
    gpgpu_status st = gpgpu_reduce_by_key(c, kt, keys, vt, op, vals, n, kout, vout, &runs);
    ck_assert_msg(st == GPGPU_SUCCESS, "reduce_by_key (%s): %s: %s", path,
                  gpgpu_status_string(st), gpgpu_last_error(c));
    ck_assert_msg(runs == want_runs, "reduce_by_key (%s) n %zu mean %zu: %zu runs, want %zu",
                  path, n, mean, runs, want_runs);
    ref_segmented_reduce(vt, op, vals, starts, runs, want);
    for (size_t r = 0; r < runs; r++)
        ck_assert_msg(!memcmp(kout + r * ks, keys + starts[r] * ks, ks) &&
                          !memcmp(vout + r * vs, want + r * vs, vs),
                      "reduce_by_key (%s) key %d value %d op %d n %zu mean %zu: run %zu "
                      "wrong [seed %llu]", path, kt, vt, op, n, mean, r,
                      (unsigned long long)tu_seed());
    for (int kind = 0; kind < 2; kind++) {
        int in_place = (int)(n + mean + kind) % 2;
        unsigned char *dst = in_place ? scan : vout;
        if (in_place)
            memcpy(scan, vals, n * vs);
        ref_segmented_scan(vt, op, (gpgpu_scan_kind)kind, vals, want, starts, runs);
        st = gpgpu_scan_by_key(c, kt, keys, vt, op, (gpgpu_scan_kind)kind,
                               in_place ? scan : vals, dst, n);
        ck_assert_msg(st == GPGPU_SUCCESS, "scan_by_key (%s): %s: %s", path,
                      gpgpu_status_string(st), gpgpu_last_error(c));
        ck_assert_msg(!memcmp(dst, want, n * vs),
                      "scan_by_key (%s) key %d value %d op %d kind %d n %zu mean %zu%s wrong "
                      "[seed %llu]", path, kt, vt, op, kind, n, mean,
                      in_place ? " in place" : "", (unsigned long long)tu_seed());
    }
    free(keys);
    free(vals);
    free(kout);
    free(vout);
    free(want);
    free(scan);
    free(starts);
}

static const struct { size_t n, mean; } key_shapes[] = {
    { 0, 3 }, { 1, 3 }, { 2, 1 }, { 3, 0 }, { 31, 1 }, { 1009, 8 }, { 4099, 0 },
    { 65537, 64 }, { 100003, 1 }, { 100003, 3 },
};

/* Every key type with every value type and operator. */
TU_LOOP_TEST(by_key_every_type_op_and_run_length, 4)
{
    paths_open();
    for (size_t p = 0; p < npaths; p++)
        for (size_t v = 0; v < COUNT(types); v++)
            for (size_t s = 0; s < COUNT(key_shapes); s++)
                if (path_covers(p, (s + v) % 3, (int)v))
                    check_by_key(paths[p], path_names[p], key_types[_i], types[v],
                                 ops[(s + v) % 3], key_shapes[s].n, key_shapes[s].mean);
    paths_close();
}
END_TEST

TU_TEST(by_key_millions)
{
    const size_t n = ((size_t)1 << 20) + 7;
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        check_by_key(paths[p], path_names[p], GPGPU_U32, GPGPU_U32, GPGPU_SUM, n, 64);
        check_by_key(paths[p], path_names[p], GPGPU_I64, GPGPU_F64, GPGPU_MIN, n, 8);
    }
    paths_close();
}
END_TEST

/* The 64-bit ranks that by-key takes from 2^32 elements, at small sizes:
   contexts that take them from one element on, in each layout. */
TU_TEST(by_key_wide_ranks)
{
    static const struct { size_t n, mean; } wide_shapes[] = { { 1, 3 }, { 4099, 0 }, { 100003, 3 } };
    if (tu_is_host())
        return;
    paths_open();
    for (size_t p = 0; p < npaths; p++) {
        gpgpu_context *c = NULL;
        gpgpu_status st = gpgpu_context_from_queue(&c, gpgpu_queue(tu_ctx));
        ck_assert_msg(st == GPGPU_SUCCESS, "context: %s", gpgpu_last_error(NULL));
        c->tune = paths[p]->tune;
        c->tune.wide_from = 1;
        for (size_t s = 0; s < COUNT(wide_shapes); s++)
            check_by_key(c, path_names[p], GPGPU_U32, GPGPU_U32, GPGPU_SUM, wide_shapes[s].n,
                         wide_shapes[s].mean);
        gpgpu_context_destroy(c);
    }
    paths_close();
}
END_TEST

TU_TEST(by_key_user_operator_and_errors)
{
    int32_t keys[6] = { 4, 4, 9, 9, 9, -1 }, kout[6];
    uint32_t vals[6] = { 2, 3, 4, 5, 6, 7 }, vout[6];
    float fkeys[6] = { 0 };
    size_t runs;
    gpgpu_op prod;
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_reduce_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, GPGPU_OP_USER,
                                             vals, 6, kout, vout, &runs),
                         GPGPU_ERROR_UNSUPPORTED);
    } else {
        tu_assert_ok(gpgpu_op_define(tu_ctx, GPGPU_U32, "a * b", "1", &prod));
        tu_assert_ok(gpgpu_reduce_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, prod, vals, 6,
                                         kout, vout, &runs));
        ck_assert_uint_eq(runs, 3);
        ck_assert(kout[0] == 4 && kout[1] == 9 && kout[2] == -1);
        ck_assert(vout[0] == 6 && vout[1] == 120 && vout[2] == 7);
        tu_assert_ok(gpgpu_scan_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, prod,
                                       GPGPU_INCLUSIVE, vals, vout, 6));
        ck_assert(vout[0] == 2 && vout[1] == 6 && vout[2] == 4 && vout[3] == 20 &&
                  vout[4] == 120 && vout[5] == 7);
    }
    ck_assert_int_eq(gpgpu_reduce_by_key(tu_ctx, GPGPU_F32, fkeys, GPGPU_U32, GPGPU_SUM, vals,
                                         6, kout, vout, &runs), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_reduce_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, GPGPU_SUM, vals, 6,
                                         kout, vout, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_reduce_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, GPGPU_SUM, vals, 6,
                                         keys, vout, &runs), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, GPGPU_SUM,
                                       GPGPU_INCLUSIVE, vals, vals + 1, 5),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan_by_key(tu_ctx, GPGPU_I32, keys, GPGPU_U32, 5, GPGPU_INCLUSIVE,
                                       vals, vout, 6), GPGPU_ERROR_INVALID_ARGUMENT);
    tu_assert_ok(gpgpu_reduce_by_key(tu_ctx, GPGPU_U64, NULL, GPGPU_F32, GPGPU_SUM, NULL, 0,
                                     NULL, NULL, &runs));
    ck_assert_uint_eq(runs, 0);
}
END_TEST

/* The by-key buffer forms, with offsets, a wait list and a done event, over
   short and long runs (the padding segments past the last run must not
   matter). */
TU_TEST(by_key_buffer_forms)
{
    if (tu_is_host()) {
        cl_mem none = NULL;
        ck_assert_int_eq(gpgpu_scan_by_key_buffer(tu_ctx, GPGPU_U32, none, 0, GPGPU_U32,
                                                  GPGPU_SUM, GPGPU_INCLUSIVE, none, 0, none, 0,
                                                  0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const size_t n = 30011, lead = 3;
    const size_t means[] = { 1, 8, 5000 };
    uint64_t *keys = tu_alloc((n + lead) * 8), *kout = tu_alloc(n * 8);
    float *vals = tu_alloc((n + lead) * 4), *vout = tu_alloc(n * 4), *want = tu_alloc(n * 4);
    size_t *starts = tu_alloc((n + 1) * sizeof *starts);
    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + lead) * 8, NULL, &err);
    cl_mem vb = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + lead) * 4, NULL, &err);
    cl_mem ko = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + 1) * 8, NULL, &err);
    cl_mem vo = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + 2) * 4, NULL, &err);
    cl_mem cnt = clCreateBuffer(cl, CL_MEM_READ_WRITE, 16, NULL, &err);
    paths_open();
    for (size_t m = 0; m < COUNT(means); m++) {
        fill_keys(GPGPU_U64, keys, n + lead, means[m], tu_seed_for(41, m));
        fill_values(GPGPU_F32, GPGPU_SUM, vals, n + lead, tu_seed_for(42, m));
        clEnqueueWriteBuffer(q, kb, CL_TRUE, 0, (n + lead) * 8, keys, 0, NULL, NULL);
        clEnqueueWriteBuffer(q, vb, CL_TRUE, 0, (n + lead) * 4, vals, 0, NULL, NULL);
        size_t runs = ref_runs(GPGPU_U64, keys + lead, n, starts);
        for (size_t p = 0; p < npaths; p++) {
            cl_event marker, done;
            cl_ulong got_runs = 0;
            clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
            ck_assert_int_eq(gpgpu_reduce_by_key_buffer(paths[p], GPGPU_U64, kb, lead,
                                                        GPGPU_F32, GPGPU_SUM, vb, lead, n, ko,
                                                        1, vo, 2, cnt, 1, 1, &marker, &done),
                             GPGPU_SUCCESS);
            clEnqueueReadBuffer(q, cnt, CL_TRUE, 8, 8, &got_runs, 1, &done, NULL);
            ck_assert_uint_eq(got_runs, runs);
            clEnqueueReadBuffer(q, ko, CL_TRUE, 8, runs * 8, kout, 0, NULL, NULL);
            clEnqueueReadBuffer(q, vo, CL_TRUE, 8, runs * 4, vout, 0, NULL, NULL);
            ref_segmented_reduce(GPGPU_F32, GPGPU_SUM, vals + lead, starts, runs, want);
            for (size_t r = 0; r < runs; r++)
                ck_assert_msg(kout[r] == keys[lead + starts[r]] && vout[r] == want[r],
                              "reduce_by_key_buffer (%s) mean %zu: run %zu wrong", path_names[p],
                              means[m], r);
            clReleaseEvent(done);
            ck_assert_int_eq(gpgpu_scan_by_key_buffer(paths[p], GPGPU_U64, kb, lead, GPGPU_F32,
                                                      GPGPU_MAX, GPGPU_EXCLUSIVE, vb, lead, vo,
                                                      2, n, 1, &marker, &done), GPGPU_SUCCESS);
            clEnqueueReadBuffer(q, vo, CL_TRUE, 8, n * 4, vout, 1, &done, NULL);
            ref_segmented_scan(GPGPU_F32, GPGPU_MAX, GPGPU_EXCLUSIVE, vals + lead, want, starts,
                               runs);
            ck_assert_msg(!memcmp(vout, want, n * 4), "scan_by_key_buffer (%s) mean %zu wrong",
                          path_names[p], means[m]);
            clReleaseEvent(done);
            clReleaseEvent(marker);
        }
    }
    paths_close();
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    clReleaseMemObject(ko);
    clReleaseMemObject(vo);
    clReleaseMemObject(cnt);
    free(keys);
    free(kout);
    free(vals);
    free(vout);
    free(want);
    free(starts);
}
END_TEST

/* ---- segmented sort ------------------------------------------------------------------ */

static void check_sort(gpgpu_type t, size_t n, size_t mean, int layout, unsigned flags,
                       size_t value_size)
{
    size_t ks = gpgpu_type_size(t), lead = 3, all = lead + n + 3;
    unsigned char *k = tu_alloc(all * ks), *want = tu_alloc(all * ks);
    uint64_t *v = tu_alloc(all * 8), *vwant = tu_alloc(all * 8);
    size_t *off = offsets_alloc(n);
    size_t nseg = make_offsets(layout, lead, n, mean, tu_seed_for(layout + 20, n), off);
    tu_fill(t, k, all, tu_seed_for(t + 300, n));
    memset(v, 0, all * 8);
    for (size_t i = 0; i < all; i++) { /* few distinct keys: stability shows */
        if (i % 3)
            memcpy(k + i * ks, k + (i % 7) * ks, ks);
        if (value_size == 4)
            ((uint32_t *)v)[i] = (uint32_t)i;
        else
            v[i] = i * 0x100000001ull;
    }
    memcpy(want, k, all * ks);
    memcpy(vwant, v, all * 8);
    ref_segmented_sort(t, want, value_size ? vwant : NULL, value_size, off, nseg, flags);
    gpgpu_status st = value_size
                          ? gpgpu_segmented_sort_pairs(tu_ctx, t, k, v, value_size, off, nseg,
                                                       flags)
                          : gpgpu_segmented_sort(tu_ctx, t, k, off, nseg, flags);
    tu_assert_ok(st);
    ck_assert_msg(!memcmp(k, want, all * ks) && !memcmp(v, vwant, all * 8),
                  "segmented_sort type %d n %zu mean %zu %s flags %u values %zu wrong "
                  "[seed %llu]", t, n, mean, layout_names[layout], flags, value_size,
                  (unsigned long long)tu_seed());
    free(k);
    free(want);
    free(v);
    free(vwant);
    free(off);
}

TU_LOOP_TEST(segmented_sort_every_type_layout_and_order, 6)
{
    const struct { size_t n, mean; } cases[] = { { 0, 1 }, { 1, 1 }, { 5, 2 }, { 1009, 7 },
                                                 { 30011, 500 } };
    for (size_t c = 0; c < COUNT(cases); c++)
        for (int l = 0; l < LAYOUTS; l++)
            for (unsigned flags = 0; flags < 2; flags++)
                check_sort(types[_i], cases[c].n, cases[c].mean, l, flags,
                           (c + l + flags) % 3 == 0 ? 0 : (c + flags) % 2 ? 4 : 8);
}
END_TEST

TU_TEST(segmented_sort_errors)
{
    uint32_t k[4] = { 4, 3, 2, 1 }, v[4] = { 0, 1, 2, 3 };
    size_t bad[3] = { 0, 3, 2 }, good[3] = { 0, 2, 4 };
    ck_assert_int_eq(gpgpu_segmented_sort(tu_ctx, GPGPU_U32, k, bad, 2, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_sort(tu_ctx, GPGPU_U32, k, good, 2, 4),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs(tu_ctx, GPGPU_U32, k, v, 2, good, 2, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs(tu_ctx, GPGPU_U32, k, NULL, 4, good, 2, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(k[0] == 4 && k[3] == 1 && v[0] == 0);
    tu_assert_ok(gpgpu_segmented_sort_pairs(tu_ctx, GPGPU_U32, k, v, 4, good, 2, 0));
    ck_assert(k[0] == 3 && k[1] == 4 && k[2] == 1 && k[3] == 2);
    ck_assert(v[0] == 1 && v[1] == 0 && v[2] == 3 && v[3] == 2);
}
END_TEST

int main(void)
{
    return tu_run("segmented", 900, NULL);
}
