/*
 * test_array.c - gpgpu_array and the primitives on it, against the plain-C
 * references in tests/ (ref.c, ref_scan.c, ref_sort.c, ref_histogram.c)
 * and, for float sums, against the host-memory call on the same device
 * (an array call runs the same kernels: the same bits). Every type, sizes
 * around the tiles (GPU scan tile 4096, CPU 32768; sort chunk 4096 and
 * tiles), primes, n = 0 and 1, a few million; chains of calls read once at
 * the end; in place; bad arguments; threads with their own contexts.
 * Fault injection of the array calls is in test_faults.c (array_chain).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref.h"
#include "ref_histogram.h"
#include "ref_scan.h"
#include "ref_sort.h"
#include "util.h"

static const gpgpu_type types[] = {GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                   GPGPU_I64, GPGPU_U64, GPGPU_F64};
static const char *type_names[] = {"i32", "u32", "f32", "i64", "u64", "f64"};
#define NTYPES 6

static const size_t sizes[] = {0,     1,     2,     97,    255,   256,   257,  1009,
                               4095,  4096,  4097,  8191,  8193,  16385, 32767, 32768,
                               32769, 65537, 300007};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* A new array of n elements of t holding a copy of host. */
static gpgpu_array *array_of(gpgpu_context *ctx, gpgpu_type t, const void *host, size_t n)
{
    gpgpu_array *a = NULL;
    tu_assert_ok(gpgpu_array_create(ctx, t, n, &a));
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_eq(gpgpu_array_length(a), n);
    ck_assert_int_eq(gpgpu_array_type(a), t);
    tu_assert_ok(gpgpu_array_write(ctx, a, 0, host, n));
    return a;
}

/* Asserts that a holds exactly want's n elements. */
static void assert_holds(const gpgpu_array *a, const void *want, size_t n, const char *what)
{
    size_t size = gpgpu_type_size(gpgpu_array_type(a));
    void *got = tu_alloc(n * size);
    tu_assert_ok(gpgpu_array_read(tu_ctx, a, 0, got, n));
    ck_assert_msg(memcmp(got, want, n * size) == 0, "%s: %s, n=%zu differs [device %s, seed %llu]",
                  what, type_names[gpgpu_array_type(a)], n, tu_device,
                  (unsigned long long)tu_seed());
    free(got);
}

static int is_float(gpgpu_type t)
{
    return t == GPGPU_F32 || t == GPGPU_F64;
}

/* Device support as in the rest of the library: UNSUPPORTED is a skip only
   for 64-bit types. */
/* ---- handles and transfers ------------------------------------------------ */

TU_TEST(write_and_read_round_trip_every_type_and_range)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        gpgpu_type t = types[ti];
        size_t size = gpgpu_type_size(t);
        for (size_t si = 0; si < NSIZES; si++) {
            size_t n = sizes[si];
            void *x = tu_alloc(n * size), *y = tu_alloc(n * size);
            tu_fill(t, x, n, tu_seed_for(1, n * 8 + ti));
            gpgpu_array *a = array_of(tu_ctx, t, x, n);
            assert_holds(a, x, n, "whole write then read");
            /* a middle range written from y, then read at an offset */
            size_t off = n / 3, len = n - off - n / 4;
            tu_fill(t, y, n, tu_seed_for(2, n));
            tu_assert_ok(gpgpu_array_write(tu_ctx, a, off, y, len));
            memcpy((char *)x + off * size, y, len * size);
            assert_holds(a, x, n, "range write");
            memset(y, 0, n * size);
            tu_assert_ok(gpgpu_array_read(tu_ctx, a, off, y, len));
            ck_assert(memcmp(y, (char *)x + off * size, len * size) == 0);
            gpgpu_array_destroy(a);
            free(x);
            free(y);
        }
    }
    gpgpu_array_destroy(NULL);
    ck_assert_uint_eq(gpgpu_array_length(NULL), 0);
    ck_assert_ptr_null(gpgpu_array_buffer(NULL));
}
END_TEST

TU_TEST(buffer_is_the_arrays_memory)
{
    uint32_t x[5] = {1, 2, 3, 4, 5}, y[5] = {0};
    gpgpu_array *a = array_of(tu_ctx, GPGPU_U32, x, 5);
    cl_mem buf = gpgpu_array_buffer(a);
    if (tu_is_host()) {
        ck_assert_ptr_null(buf);
    } else {
        size_t bytes = 0;
        ck_assert_ptr_nonnull(buf);
        clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
        ck_assert_uint_eq(bytes, sizeof x);
        ck_assert_int_eq(clEnqueueReadBuffer(gpgpu_queue(tu_ctx), buf, CL_TRUE, 0, sizeof y, y,
                                             0, NULL, NULL), CL_SUCCESS);
        ck_assert(memcmp(x, y, sizeof x) == 0);
    }
    gpgpu_array_destroy(a);
}
END_TEST

/* ---- reduce --------------------------------------------------------------- */

/* Every type with SUM, and MAX on one (test_reduce covers every type and
   op: here each program variant is one more PoCL build). */
TU_TEST(reduce_matches_reference_for_every_type)
{
    static const gpgpu_op ops[] = {GPGPU_SUM, GPGPU_MAX};
    for (int ti = 0; ti < NTYPES; ti++) {
        gpgpu_type t = types[ti];
        size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            size_t n = sizes[si];
            /* Page-aligned, like the array's buffer: a float sum's tree
               depends on the alignment of what it reads (docs/guarantees.md),
               and the host call below reads x in place where it can. */
            void *x = NULL;
            ck_assert_int_eq(posix_memalign(&x, 4096, n ? n * size : 1), 0);
            tu_fill(t, x, n, tu_seed_for(3, n * 8 + ti));
            gpgpu_array *a = array_of(tu_ctx, t, x, n);
            for (int o = 0; o < (types[ti] == GPGPU_I32 ? 2 : 1); o++) {
                uint64_t got = 0, want = 0;
                long double exact, mag;
                tu_assert_ok(gpgpu_reduce_array(tu_ctx, ops[o], a, &got));
                if (is_float(t) && ops[o] == GPGPU_SUM) /* the host call's tree: same bits */
                    tu_assert_ok(gpgpu_reduce(tu_ctx, t, GPGPU_SUM, x, n, &want));
                else
                    ref_reduce(t, ops[o], x, n, &want, &exact, &mag);
                ck_assert_msg(memcmp(&got, &want, size) == 0,
                              "reduce op %d %s n=%zu [device %s, seed %llu]", ops[o],
                              type_names[ti], n, tu_device, (unsigned long long)tu_seed());
            }
            assert_holds(a, x, n, "reduce's input");
            gpgpu_array_destroy(a);
            free(x);
        }
    }
}
END_TEST

/* ---- scan ------------------------------------------------------------------ */

TU_TEST(scan_matches_reference_in_place_and_not)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        gpgpu_type t = types[ti];
        size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            size_t n = sizes[si];
            gpgpu_scan_kind kind = si % 2 ? GPGPU_INCLUSIVE : GPGPU_EXCLUSIVE;
            gpgpu_op op = t == GPGPU_I32 && si % 2 ? GPGPU_MAX : GPGPU_SUM;
            void *x = tu_alloc(n * size), *want = tu_alloc(n * size);
            tu_fill(t, x, n, tu_seed_for(4, n * 8 + ti));
            if (is_float(t) && op == GPGPU_SUM)
                tu_assert_ok(gpgpu_scan(tu_ctx, t, op, kind, x, want, n));
            else
                ref_scan(t, op, kind, x, want, n, NULL);
            gpgpu_array *in = array_of(tu_ctx, t, x, n), *out = NULL;
            tu_assert_ok(gpgpu_array_create(tu_ctx, t, n, &out));
            tu_assert_ok(gpgpu_scan_array(tu_ctx, op, kind, in, out));
            assert_holds(out, want, n, "scan");
            assert_holds(in, x, n, "scan's input");
            tu_assert_ok(gpgpu_scan_array(tu_ctx, op, kind, in, in));
            assert_holds(in, want, n, "scan in place");
            gpgpu_array_destroy(in);
            gpgpu_array_destroy(out);
            free(x);
            free(want);
        }
    }
}
END_TEST

/* ---- sort ------------------------------------------------------------------ */

/* Keys of t from seed, some repeated so that stability shows. */
static void fill_keys(gpgpu_type t, void *k, size_t n, uint64_t seed)
{
    size_t size = gpgpu_type_size(t);
    tu_fill(t, k, n, seed);
    for (size_t i = 1; i < n; i += 3)
        memcpy((char *)k + i * size, (char *)k + (i / 2) * size, size);
}

TU_TEST(sort_and_sort_pairs_match_reference_for_every_type)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        gpgpu_type t = types[ti];
        size_t ks = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            size_t n = sizes[si];
            unsigned flags = si % 2 ? GPGPU_DESCENDING : GPGPU_ASCENDING;
            /* values: each key's index, as an array of another type */
            gpgpu_type vt = types[(ti + si) % NTYPES];
            size_t vs = gpgpu_type_size(vt);
            if (tu_skip_type(vt))
                continue;
            void *k = tu_alloc(n * ks), *kw = tu_alloc(n * ks), *v = tu_alloc(n * vs);
            fill_keys(t, k, n, tu_seed_for(5, n * 8 + ti));
            for (size_t i = 0; i < n; i++) {
                if (vs == 4)
                    ((uint32_t *)v)[i] = (uint32_t)i;
                else
                    ((uint64_t *)v)[i] = i;
            }
            gpgpu_array *ka = array_of(tu_ctx, t, k, n), *va = array_of(tu_ctx, vt, v, n);
            gpgpu_array *ko = array_of(tu_ctx, t, k, n);
            memcpy(kw, k, n * ks);
            ck_assert_int_eq(ref_sort(t, kw, NULL, 0, n, flags), 0);
            tu_assert_ok(gpgpu_sort_array(tu_ctx, ko, flags));
            assert_holds(ko, kw, n, "sort");
            ck_assert_int_eq(ref_sort(t, k, v, vs, n, flags), 0);
            tu_assert_ok(gpgpu_sort_pairs_array(tu_ctx, ka, va, flags));
            assert_holds(ka, k, n, "sort_pairs keys");
            assert_holds(va, v, n, "sort_pairs values");
            gpgpu_array_destroy(ka);
            gpgpu_array_destroy(va);
            gpgpu_array_destroy(ko);
            free(k);
            free(kw);
            free(v);
        }
    }
}
END_TEST

/* ---- histogram --------------------------------------------------------------- */

TU_TEST(histogram_matches_reference_for_every_type)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        gpgpu_type t = types[ti];
        size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            size_t n = sizes[si], nbins = si % 2 ? 7 : 256;
            /* floats fill [-1000, 1000), integers their range: bins over
               the middle, with samples outside on both sides */
            double lo = is_float(t) ? -500.0 : -1e9, hi = is_float(t) ? 700.0 : 3e9;
            void *x = tu_alloc(n * size);
            uint64_t *got = tu_alloc(nbins * sizeof *got), *want = tu_alloc(nbins * sizeof *want);
            tu_fill(t, x, n, tu_seed_for(6, n * 8 + ti));
            ref_histogram(t, x, n, nbins, lo, hi, want);
            gpgpu_array *a = array_of(tu_ctx, t, x, n);
            tu_assert_ok(gpgpu_histogram_array(tu_ctx, a, nbins, lo, hi, got));
            ck_assert_msg(memcmp(got, want, nbins * sizeof *got) == 0,
                          "histogram %s n=%zu [device %s, seed %llu]", type_names[ti], n,
                          tu_device, (unsigned long long)tu_seed());
            assert_holds(a, x, n, "histogram's input");
            gpgpu_array_destroy(a);
            free(x);
            free(got);
            free(want);
        }
    }
}
END_TEST

/* ---- user expressions ---------------------------------------------------------- */

TU_TEST(transform_reduce_and_select_match_loops)
{
    for (size_t si = 0; si < NSIZES; si++) {
        size_t n = sizes[si], count = 99;
        uint32_t *x = tu_alloc(n * sizeof *x), *want = tu_alloc(n * sizeof *want);
        uint32_t got = 0, sq = 0;
        size_t kept = 0;
        tu_fill(GPGPU_U32, x, n, tu_seed_for(7, n));
        for (size_t i = 0; i < n; i++) {
            sq += x[i] * x[i];
            if (x[i] % 3 == 0)
                want[kept++] = x[i];
        }
        gpgpu_array *a = array_of(tu_ctx, GPGPU_U32, x, n), *out = NULL;
        tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, n + 5, &out));
        gpgpu_status s = gpgpu_transform_reduce_array(tu_ctx, "x * x", GPGPU_SUM, a, &got);
        gpgpu_status s2 = gpgpu_select_array(tu_ctx, "x % 3 == 0", a, out, &count);
        tu_assert_ok(s);
        tu_assert_ok(s2);
        ck_assert_uint_eq(got, sq);
        ck_assert_uint_eq(count, kept);
        uint32_t *back = tu_alloc(n * sizeof *back);
        tu_assert_ok(gpgpu_array_read(tu_ctx, out, 0, back, kept));
        ck_assert(memcmp(back, want, kept * sizeof *back) == 0);
        free(back);
        assert_holds(a, x, n, "select's input");
        gpgpu_array_destroy(a);
        gpgpu_array_destroy(out);
        free(x);
        free(want);
    }
}
END_TEST

TU_TEST(user_operators_work_on_arrays)
{
    uint32_t x[1000], got = 0, want = 0;
    gpgpu_op op;
    tu_fill(GPGPU_U32, x, 1000, tu_seed_for(8, 0));
    for (int i = 0; i < 1000; i++)
        want ^= x[i];
    gpgpu_array *a = array_of(tu_ctx, GPGPU_U32, x, 1000);
    gpgpu_status s = gpgpu_op_define(tu_ctx, GPGPU_U32, "a ^ b", "0", &op);
    if (tu_is_host()) {
        ck_assert_int_eq(s, GPGPU_ERROR_UNSUPPORTED);
        ck_assert_int_eq(gpgpu_reduce_array(tu_ctx, GPGPU_OP_USER, a, &got),
                         GPGPU_ERROR_UNSUPPORTED);
        ck_assert_int_eq(gpgpu_scan_array(tu_ctx, GPGPU_OP_USER, GPGPU_INCLUSIVE, a, a),
                         GPGPU_ERROR_UNSUPPORTED);
    } else {
        tu_assert_ok(s);
        tu_assert_ok(gpgpu_reduce_array(tu_ctx, op, a, &got));
        ck_assert_uint_eq(got, want);
        tu_assert_ok(gpgpu_scan_array(tu_ctx, op, GPGPU_INCLUSIVE, a, a));
        tu_assert_ok(gpgpu_array_read(tu_ctx, a, 999, &got, 1));
        ck_assert_uint_eq(got, want);
    }
    assert_holds(a, x, tu_is_host() ? 1000 : 0, "after unsupported calls");
    gpgpu_array_destroy(a);
}
END_TEST

/* ---- chains ----------------------------------------------------------------------- */

/* The README's particle step on n particles in ncells cells, every call
   enqueued before the one read at the end: sort_pairs by cell, histogram
   of the cells, exclusive scan of the counts, reduce of the energies; then
   the same with a select of one cell and a scan in place. */
static void chain(gpgpu_context *ctx, size_t n, uint64_t seed, char *why, size_t whylen)
{
    const uint32_t ncells = 1000;
    uint32_t *cell = malloc(n * sizeof *cell + 4), *gcell = malloc(n * sizeof *cell + 4);
    float *e = malloc(n * sizeof *e + 4), *ge = malloc(n * sizeof *e + 4);
    uint64_t *bins = malloc(ncells * 8), *starts = malloc(ncells * 8), *gstarts = malloc(ncells * 8);
    gpgpu_array *ca = NULL, *ea = NULL, *counts = NULL;
    float energy = 0, want_energy = 0;
    why[0] = '\0';
    if (!cell || !gcell || !e || !ge || !bins || !starts || !gstarts)
        abort();
    tu_fill(GPGPU_U32, cell, n, seed);
    tu_fill(GPGPU_F32, e, n, seed + 1);
    for (size_t i = 0; i < n; i++)
        cell[i] %= ncells;
    gpgpu_status s = gpgpu_array_create(ctx, GPGPU_U32, n, &ca);
    if (!s)
        s = gpgpu_array_create(ctx, GPGPU_F32, n, &ea);
    if (!s)
        s = gpgpu_array_create(ctx, GPGPU_U64, ncells, &counts);
    if (!s)
        s = gpgpu_array_write(ctx, ca, 0, cell, n);
    if (!s)
        s = gpgpu_array_write(ctx, ea, 0, e, n);
    if (!s)
        s = gpgpu_sort_pairs_array(ctx, ca, ea, 0);
    if (!s)
        s = gpgpu_histogram_array(ctx, ca, ncells, 0, ncells, bins);
    if (!s)
        s = gpgpu_array_write(ctx, counts, 0, bins, ncells);
    if (!s)
        s = gpgpu_scan_array(ctx, GPGPU_SUM, GPGPU_EXCLUSIVE, counts, counts);
    if (!s)
        s = gpgpu_reduce_array(ctx, GPGPU_SUM, ea, &energy);
    if (!s)
        s = gpgpu_array_read(ctx, counts, 0, gstarts, ncells);
    if (!s)
        s = gpgpu_array_read(ctx, ca, 0, gcell, n);
    if (!s)
        s = gpgpu_array_read(ctx, ea, 0, ge, n);
    /* the same step with host-memory calls (the same kernels: same bits) */
    if (!s)
        s = gpgpu_sort_pairs(ctx, GPGPU_U32, cell, e, 4, n, 0);
    if (!s)
        s = gpgpu_reduce(ctx, GPGPU_F32, GPGPU_SUM, e, n, &want_energy);
    if (s) {
        snprintf(why, whylen, "n=%zu: %s (%s)", n, gpgpu_status_string(s), gpgpu_last_error(ctx));
    } else {
        uint64_t at = 0;
        for (uint32_t c = 0; c < ncells; c++) {
            starts[c] = at;
            for (; at < n && cell[at] == c; at++)
                ;
        }
        if (at != n || memcmp(starts, gstarts, ncells * 8))
            snprintf(why, whylen, "n=%zu: wrong cell starts", n);
        else if (memcmp(cell, gcell, n * 4) || memcmp(e, ge, n * 4))
            snprintf(why, whylen, "n=%zu: wrong sorted particles", n);
        else if (memcmp(&energy, &want_energy, 4))
            snprintf(why, whylen, "n=%zu: energy %g, want %g", n, energy, want_energy);
    }
    gpgpu_array_destroy(ca);
    gpgpu_array_destroy(ea);
    gpgpu_array_destroy(counts);
    free(cell);
    free(gcell);
    free(e);
    free(ge);
    free(bins);
    free(starts);
    free(gstarts);
}

TU_TEST(chain_of_calls_read_once_gives_the_host_calls_result)
{
    static const size_t ns[] = {0, 1, 4097, 32769, 100003};
    char why[256];
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        chain(tu_ctx, ns[i], tu_seed_for(9, ns[i]), why, sizeof why);
        ck_assert_msg(!why[0], "%s [device %s, seed %llu]", why, tu_device,
                      (unsigned long long)tu_seed());
    }
}
END_TEST

TU_TEST(millions_of_elements)
{
    const size_t n = 3000017;
    uint32_t *k = tu_alloc(n * 4), *v = tu_alloc(n * 4), *p = tu_alloc(n * 4);
    uint32_t sum = 0, got = 0;
    tu_fill(GPGPU_U32, k, n, tu_seed_for(10, n));
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    gpgpu_array *ka = array_of(tu_ctx, GPGPU_U32, k, n), *va = array_of(tu_ctx, GPGPU_U32, v, n);
    tu_assert_ok(gpgpu_sort_pairs_array(tu_ctx, ka, va, GPGPU_DESCENDING));
    tu_assert_ok(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, va, va));
    tu_assert_ok(gpgpu_reduce_array(tu_ctx, GPGPU_SUM, ka, &got));
    ck_assert_int_eq(ref_sort(GPGPU_U32, k, v, 4, n, GPGPU_DESCENDING), 0);
    for (size_t i = 0; i < n; i++) {
        sum += k[i];
        p[i] = (i ? p[i - 1] : 0) + v[i];
    }
    ck_assert_uint_eq(got, sum);
    assert_holds(ka, k, n, "sorted keys");
    assert_holds(va, p, n, "scanned values");
    gpgpu_array_destroy(ka);
    gpgpu_array_destroy(va);
    free(k);
    free(v);
    free(p);
}
END_TEST

/* ---- n == 0 ------------------------------------------------------------------------ */

TU_TEST(empty_arrays_work_everywhere)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        gpgpu_type t = types[ti];
        if (tu_skip_type(t))
            continue;
        gpgpu_array *a = NULL, *b = NULL;
        uint64_t r = 77, id = 0, bins[3] = {5, 5, 5};
        size_t count = 9;
        tu_assert_ok(gpgpu_array_create(tu_ctx, t, 0, &a));
        tu_assert_ok(gpgpu_array_create(tu_ctx, t, 0, &b));
        tu_assert_ok(gpgpu_array_write(tu_ctx, a, 0, NULL, 0));
        tu_assert_ok(gpgpu_array_read(tu_ctx, a, 0, NULL, 0));
        tu_assert_ok(gpgpu_reduce_array(tu_ctx, GPGPU_MIN, a, &r));
        ref_identity(t, GPGPU_MIN, &id);
        ck_assert(memcmp(&r, &id, gpgpu_type_size(t)) == 0);
        tu_assert_ok(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_EXCLUSIVE, a, b));
        tu_assert_ok(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, a));
        tu_assert_ok(gpgpu_sort_array(tu_ctx, a, 0));
        tu_assert_ok(gpgpu_sort_pairs_array(tu_ctx, a, b, GPGPU_DESCENDING));
        tu_assert_ok(gpgpu_histogram_array(tu_ctx, a, 3, 0, 1, bins));
        ck_assert(bins[0] == 0 && bins[1] == 0 && bins[2] == 0);
        if (!tu_is_host()) {
            tu_assert_ok(gpgpu_select_array(tu_ctx, "x > 0", a, b, &count));
            ck_assert_uint_eq(count, 0);
            tu_assert_ok(gpgpu_transform_reduce_array(tu_ctx, "x * 2", GPGPU_SUM, a, &r));
        }
        gpgpu_array_destroy(a);
        gpgpu_array_destroy(b);
    }
}
END_TEST

/* ---- bad arguments ------------------------------------------------------------------ */

TU_TEST(bad_arguments_are_rejected_and_arrays_kept)
{
    enum { N = 100 };
    uint32_t x[N], y[N + 1];
    uint64_t r = 0, bins[4];
    size_t count;
    tu_fill(GPGPU_U32, x, N, tu_seed_for(11, 0));
    gpgpu_array *a = array_of(tu_ctx, GPGPU_U32, x, N), *b = array_of(tu_ctx, GPGPU_U32, x, N);
    gpgpu_array *shorter = NULL, *f = NULL, *other = NULL, *made = (gpgpu_array *)&made;
    gpgpu_context *ctx2 = NULL;
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, N - 1, &shorter));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_F32, N, &f));
    tu_assert_ok(gpgpu_context_create(&ctx2, tu_is_host() ? "host" : NULL));
    tu_assert_ok(gpgpu_array_create(ctx2, GPGPU_U32, N, &other));

    /* create */
    REJECTED(gpgpu_array_create(NULL, GPGPU_U32, 1, &made));
    REJECTED(gpgpu_array_create(tu_ctx, GPGPU_U32, 1, NULL));
    REJECTED(gpgpu_array_create(tu_ctx, (gpgpu_type)42, 1, &made));
    ck_assert_ptr_null(made);
    REJECTED(gpgpu_array_create(tu_ctx, GPGPU_U64, (size_t)PTRDIFF_MAX / 4, &made));
    ck_assert_ptr_null(made);
    /* another context's array, NULL arrays */
    REJECTED(gpgpu_array_write(tu_ctx, other, 0, x, 1));
    REJECTED(gpgpu_array_read(tu_ctx, other, 0, y, 1));
    REJECTED(gpgpu_reduce_array(tu_ctx, GPGPU_SUM, other, &r));
    REJECTED(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, other));
    REJECTED(gpgpu_sort_pairs_array(tu_ctx, other, a, 0));
    REJECTED(gpgpu_sort_array(ctx2, a, 0));
    REJECTED(gpgpu_histogram_array(ctx2, a, 4, 0, 1, bins));
    REJECTED(gpgpu_reduce_array(tu_ctx, GPGPU_SUM, NULL, &r));
    REJECTED(gpgpu_reduce_array(NULL, GPGPU_SUM, a, &r));
    REJECTED(gpgpu_sort_array(tu_ctx, NULL, 0));
    REJECTED(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, NULL, a));
    REJECTED(gpgpu_select_array(tu_ctx, "x > 1", a, NULL, &count));
    /* ranges */
    REJECTED(gpgpu_array_write(tu_ctx, a, 1, y, N));
    REJECTED(gpgpu_array_write(tu_ctx, a, N + 1, y, 0));
    REJECTED(gpgpu_array_read(tu_ctx, a, SIZE_MAX, y, 2));
    REJECTED(gpgpu_array_read(tu_ctx, a, 0, NULL, 1));
    REJECTED(gpgpu_array_write(tu_ctx, a, 0, (const char *)y + 1, 1));
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "host is not aligned") != NULL, "%s",
                  gpgpu_last_error(tu_ctx));
    /* lengths, types, the same array where two are needed */
    REJECTED(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, shorter));
    REJECTED(gpgpu_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, f));
    REJECTED(gpgpu_sort_pairs_array(tu_ctx, a, shorter, 0));
    REJECTED(gpgpu_sort_pairs_array(tu_ctx, a, a, 0));
    REJECTED(gpgpu_select_array(tu_ctx, "x > 1", a, shorter, &count));
    REJECTED(gpgpu_select_array(tu_ctx, "x > 1", a, f, &count));
    REJECTED(gpgpu_select_array(tu_ctx, "x > 1", a, a, &count));
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "out != in") != NULL, "%s",
                  gpgpu_last_error(tu_ctx));
    /* the rules of the host calls */
    REJECTED(gpgpu_sort_array(tu_ctx, a, 2));
    REJECTED(gpgpu_reduce_array(tu_ctx, 7, a, &r));
    REJECTED(gpgpu_reduce_array(tu_ctx, GPGPU_SUM, a, NULL));
    REJECTED(gpgpu_scan_array(tu_ctx, GPGPU_SUM, (gpgpu_scan_kind)5, a, b));
    REJECTED(gpgpu_histogram_array(tu_ctx, a, 0, 0, 1, bins));
    REJECTED(gpgpu_histogram_array(tu_ctx, a, 4, 1, 1, bins));
    REJECTED(gpgpu_histogram_array(tu_ctx, a, 4, 0, 1, NULL));
    REJECTED(gpgpu_select_array(tu_ctx, "x > 1", a, b, NULL));
    REJECTED(gpgpu_select_array(tu_ctx, "x; }", a, b, &count));
    REJECTED(gpgpu_transform_reduce_array(tu_ctx, NULL, GPGPU_SUM, a, &r));
    REJECTED(gpgpu_transform_reduce_array(tu_ctx, "x /* y", GPGPU_SUM, a, &r));
    assert_holds(a, x, N, "a after rejected calls");
    assert_holds(b, x, N, "b after rejected calls");
    gpgpu_array_destroy(a);
    gpgpu_array_destroy(b);
    gpgpu_array_destroy(shorter);
    gpgpu_array_destroy(f);
    /* an array may be destroyed after its context */
    gpgpu_context_destroy(ctx2);
    gpgpu_array_destroy(other);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------- */

typedef struct {
    uint64_t seed;
    char why[256];
} thread_job;

/* Each thread makes its own context and arrays and runs chains on them. */
static void *thread_main(void *arg)
{
    thread_job *j = arg;
    gpgpu_context *ctx = NULL;
    gpgpu_status s = gpgpu_context_create(&ctx, tu_is_host() ? "host" : NULL);
    if (s != GPGPU_SUCCESS) {
        snprintf(j->why, sizeof j->why, "context: %s", gpgpu_last_error(NULL));
        return NULL;
    }
    static const size_t ns[] = {37, 4099, 65537};
    for (size_t i = 0; i < 3 && !j->why[0]; i++)
        chain(ctx, ns[i], j->seed + i, j->why, sizeof j->why);
    gpgpu_context_destroy(ctx);
    return NULL;
}

TU_TEST(threads_each_with_their_own_context_and_arrays)
{
    enum { THREADS = 3 };
    pthread_t th[THREADS];
    thread_job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].seed = tu_seed_for(12, (uint64_t)i);
        jobs[i].why[0] = '\0';
        ck_assert_int_eq(pthread_create(&th[i], NULL, thread_main, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(!jobs[i].why[0], "thread %d: %s [device %s, seed %llu]", i, jobs[i].why,
                      tu_device, (unsigned long long)tu_seed());
}
END_TEST

int main(void)
{
    return tu_run("array", 600, NULL);
}
