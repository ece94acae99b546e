/*
 * test_array_ops.c - the _array forms of the segmented, by-key and
 * compaction primitives (reduce_index, segmented_reduce, segmented_scan,
 * reduce_by_key, scan_by_key, unique, run_length_encode, partition,
 * histogram_edges), against the plain-C references of ref_segmented.c and
 * loops written here; float sums against the host-memory call on the same
 * device (the same kernels over the same layout: the same bits). Every
 * type, n = 0, 1, tile edges, primes; empty segments and runs of one;
 * in place where allowed; offsets past the end; bad arguments leave the
 * arrays as they were. Runs on the default device and the host fallback,
 * with GPGPU_SCRATCH_KEEP=0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu.h"
#include "ref_segmented.h"
#include "util.h"

static const gpgpu_type types[] = {GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                   GPGPU_I64, GPGPU_U64, GPGPU_F64};
static const char *type_names[] = {"i32", "u32", "f32", "i64", "u64", "f64"};
#define NTYPES 6

static const size_t sizes[] = {0, 1, 2, 255, 4097, 65537};
#define NSIZES (sizeof sizes / sizeof sizes[0])

#define WHERE(t, n) type_names[t], (n), tu_device, (unsigned long long)tu_seed()

static gpgpu_array *array_of(gpgpu_type t, const void *host, size_t n)
{
    gpgpu_array *a = NULL;
    tu_assert_ok(gpgpu_array_create(tu_ctx, t, n, &a));
    if (host)
        tu_assert_ok(gpgpu_array_write(tu_ctx, a, 0, host, n));
    return a;
}

static void *read_all(const gpgpu_array *a)
{
    void *h = tu_alloc(gpgpu_array_length(a) * gpgpu_type_size(gpgpu_array_type(a)) + 8);
    tu_assert_ok(gpgpu_array_read(tu_ctx, a, 0, h, gpgpu_array_length(a)));
    return h;
}

static int is_float(gpgpu_type t)
{
    return t == GPGPU_F32 || t == GPGPU_F64;
}

/* 64-bit types the device lacks are skipped (UNSUPPORTED); others must work. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* nseg + 1 offsets over [0, n]: random lengths from 0 to 2 * avg, so that
   empty segments and segments of one occur; the last ends at n. */
static size_t make_offsets(size_t n, size_t avg, uint64_t seed, size_t *off)
{
    size_t s = 0, at = 0;
    off[0] = 0;
    while (at < n) {
        size_t len = (size_t)(next(&seed) % (2 * avg + 1));
        at = at + len < n ? at + len : n;
        off[++s] = at;
    }
    if (s == 0)
        off[++s] = 0; /* n == 0: one empty segment */
    return s;
}

static gpgpu_array *offsets_array(const size_t *off, size_t nseg)
{
    uint64_t *o = tu_alloc((nseg + 1) * sizeof *o);
    for (size_t s = 0; s <= nseg; s++)
        o[s] = off[s];
    gpgpu_array *a = array_of(GPGPU_U64, o, nseg + 1);
    free(o);
    return a;
}

/* ---- reduce_index, segmented reduce and scan --------------------------------- */

TU_TEST(reduce_index_matches_reference)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        const gpgpu_type t = types[ti];
        const size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            const size_t n = sizes[si];
            void *x = tu_alloc(n * size);
            tu_fill(t, x, n, tu_seed_for(41, n * 8 + ti));
            gpgpu_array *a = array_of(t, x, n);
            for (int o = 0; o < 2; o++) {
                const gpgpu_op op = o ? GPGPU_MAX : GPGPU_MIN;
                uint64_t v = 0;
                size_t i = 0;
                tu_assert_ok(gpgpu_reduce_index_array(tu_ctx, op, a, &v, &i));
                const size_t want = ref_reduce_index(t, op, x, n);
                ck_assert_msg(i == want, "reduce_index op %d %s n=%zu: index %zu, want %zu "
                              "[device %s, seed %llu]", op, type_names[ti], n, i, want,
                              tu_device, (unsigned long long)tu_seed());
                if (n)
                    ck_assert(memcmp(&v, (char *)x + want * size, size) == 0);
            }
            gpgpu_array_destroy(a);
            free(x);
        }
    }
}
END_TEST

TU_TEST(segmented_reduce_and_scan_match_reference)
{
    static const size_t avgs[] = {1, 7, 300};
    for (int ti = 0; ti < NTYPES; ti++) {
        const gpgpu_type t = types[ti];
        const size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++)
            for (size_t ai = 0; ai < 3; ai++) {
                const size_t n = sizes[si];
                const uint64_t seed = tu_seed_for(42, n * 32 + ti * 4 + ai);
                size_t *off = tu_alloc((2 * n + 2) * sizeof *off);
                const size_t nseg = make_offsets(n, avgs[ai], seed, off);
                char *x = tu_alloc(n * size), *want = tu_alloc((n + nseg) * size + 8);
                char *got;
                tu_fill(t, x, n, seed);
                gpgpu_array *in = array_of(t, x, n), *offs = offsets_array(off, nseg);
                gpgpu_array *out = array_of(t, NULL, nseg), *scan = array_of(t, x, n);
                /* reduce */
                tu_assert_ok(gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, in, offs, out));
                if (is_float(t)) /* the host call's layout: the same bits */
                    tu_assert_ok(gpgpu_segmented_reduce(tu_ctx, t, GPGPU_SUM, x, off, nseg,
                                                        want));
                else
                    ref_segmented_reduce(t, GPGPU_SUM, x, off, nseg, want);
                got = read_all(out);
                ck_assert_msg(memcmp(got, want, nseg * size) == 0,
                              "segmented_reduce %s n=%zu avg %zu [device %s, seed %llu]",
                              type_names[ti], n, avgs[ai], tu_device,
                              (unsigned long long)tu_seed());
                free(got);
                /* scan in place, exclusive, then MAX inclusive out of place */
                tu_assert_ok(gpgpu_segmented_scan_array(tu_ctx, GPGPU_SUM, GPGPU_EXCLUSIVE,
                                                        scan, scan, offs));
                if (is_float(t))
                    tu_assert_ok(gpgpu_segmented_scan(tu_ctx, t, GPGPU_SUM, GPGPU_EXCLUSIVE,
                                                      x, want, off, nseg));
                else
                    ref_segmented_scan(t, GPGPU_SUM, GPGPU_EXCLUSIVE, x, want, off, nseg);
                got = read_all(scan);
                ck_assert_msg(memcmp(got, want, n * size) == 0,
                              "segmented_scan in place %s n=%zu avg %zu [device %s, seed %llu]",
                              type_names[ti], n, avgs[ai], tu_device,
                              (unsigned long long)tu_seed());
                free(got);
                gpgpu_array_destroy(scan);
                scan = array_of(t, NULL, n);
                tu_assert_ok(gpgpu_segmented_scan_array(tu_ctx, GPGPU_MAX, GPGPU_INCLUSIVE,
                                                        in, scan, offs));
                ref_segmented_scan(t, GPGPU_MAX, GPGPU_INCLUSIVE, x, want, off, nseg);
                got = read_all(scan);
                ck_assert_msg(memcmp(got, want, n * size) == 0,
                              "segmented_scan max %s n=%zu [device %s, seed %llu]",
                              WHERE(ti, n));
                free(got);
                got = read_all(in); /* the input as it was */
                ck_assert(memcmp(got, x, n * size) == 0);
                free(got);
                gpgpu_array_destroy(in);
                gpgpu_array_destroy(offs);
                gpgpu_array_destroy(out);
                gpgpu_array_destroy(scan);
                free(off);
                free(x);
                free(want);
            }
    }
}
END_TEST

/* Offsets past the array's end are its end; a segment range that does not
   start at 0 leaves the elements before it alone. */
TU_TEST(offsets_are_clamped_and_elements_outside_left_alone)
{
    enum { N = 1000 };
    int32_t x[N], got[N], want[N];
    const uint64_t o[4] = {10, 500, 900, 5000};
    const size_t off[4] = {10, 500, 900, N};
    tu_fill(GPGPU_I32, x, N, tu_seed_for(43, 0));
    gpgpu_array *in = array_of(GPGPU_I32, x, N), *offs = array_of(GPGPU_U64, o, 4);
    gpgpu_array *out = array_of(GPGPU_I32, x, N);
    tu_assert_ok(gpgpu_segmented_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, in, out, offs));
    memcpy(want, x, sizeof x);
    ref_segmented_scan(GPGPU_I32, GPGPU_SUM, GPGPU_INCLUSIVE, x, want, off, 3);
    tu_assert_ok(gpgpu_array_read(tu_ctx, out, 0, got, N));
    ck_assert_msg(memcmp(got, want, sizeof got) == 0, "clamped scan [device %s, seed %llu]",
                  tu_device, (unsigned long long)tu_seed());
    tu_assert_ok(gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, in, offs, out));
    ref_segmented_reduce(GPGPU_I32, GPGPU_SUM, x, off, 3, want);
    tu_assert_ok(gpgpu_array_read(tu_ctx, out, 0, got, 3));
    ck_assert(memcmp(got, want, 3 * sizeof *got) == 0);
    gpgpu_array_destroy(in);
    gpgpu_array_destroy(offs);
    gpgpu_array_destroy(out);
}
END_TEST

/* ---- by key ----------------------------------------------------------------------- */

/* Keys in runs of random length (1 .. 2 * avg) of random values. */
static void make_keys(gpgpu_type kt, void *k, size_t n, size_t avg, uint64_t seed)
{
    uint64_t key = next(&seed);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        if (left == 0) {
            key = next(&seed);
            left = 1 + (size_t)(next(&seed) % (2 * avg));
        }
        left--;
        if (gpgpu_type_size(kt) == 4)
            ((uint32_t *)k)[i] = (uint32_t)key;
        else
            ((uint64_t *)k)[i] = key;
    }
}

/* Inclusive sums per run within a rounding bound: |got - want| at most
   n_run * eps * (the run's sum of |x| so far), eps 2^-22 for f32, 2^-50
   for f64. */
static int floats_close(gpgpu_type t, const void *got, const void *want, const void *x,
                        const size_t *starts, size_t nr)
{
    const double eps = t == GPGPU_F32 ? 0x1p-22 : 0x1p-50;
    for (size_t r = 0; r < nr; r++) {
        double mag = 0;
        for (size_t i = starts[r]; i < starts[r + 1]; i++) {
            const double g = t == GPGPU_F32 ? ((const float *)got)[i] : ((const double *)got)[i];
            const double w = t == GPGPU_F32 ? ((const float *)want)[i] : ((const double *)want)[i];
            const double v = t == GPGPU_F32 ? ((const float *)x)[i] : ((const double *)x)[i];
            mag += v < 0 ? -v : v;
            const double d = g - w;
            if ((d < 0 ? -d : d) > (double)(starts[r + 1] - starts[r]) * eps * mag)
                return 0;
        }
    }
    return 1;
}

TU_TEST(by_key_matches_reference)
{
    static const gpgpu_type key_types[] = {GPGPU_U32, GPGPU_I64};
    static const size_t avgs[] = {1, 8, 500};
    for (int ki = 0; ki < 2; ki++)
        for (int ti = 0; ti < NTYPES; ti++) {
            const gpgpu_type kt = key_types[ki], t = types[ti];
            const size_t ks = gpgpu_type_size(kt), size = gpgpu_type_size(t);
            if (tu_skip_type(kt) || tu_skip_type(t))
                continue;
            for (size_t si = 0; si < NSIZES; si++)
                for (size_t ai = 0; ai < 3; ai++) {
                    const size_t n = sizes[si];
                    const uint64_t seed = tu_seed_for(44, n * 64 + ki * 32 + ti * 4 + ai);
                    char *k = tu_alloc(n * ks), *x = tu_alloc(n * size);
                    char *want = tu_alloc(n * size + 8), *wkeys = tu_alloc(n * ks + 8);
                    size_t *starts = tu_alloc((n + 1) * sizeof *starts), runs = 7, got_runs;
                    make_keys(kt, k, n, avgs[ai], seed);
                    tu_fill(t, x, n, seed + 1);
                    const size_t nr = ref_runs(kt, k, n, starts);
                    gpgpu_array *ka = array_of(kt, k, n), *va = array_of(t, x, n);
                    gpgpu_array *ko = array_of(kt, NULL, n), *vo = array_of(t, NULL, n);
                    tu_assert_ok(gpgpu_reduce_by_key_array(tu_ctx, GPGPU_SUM, ka, va, ko, vo,
                                                           &runs));
                    ck_assert_msg(runs == nr, "reduce_by_key %s n=%zu: %zu runs, want %zu "
                                  "[device %s, seed %llu]", type_names[ti], n, runs, nr,
                                  tu_device, (unsigned long long)tu_seed());
                    if (is_float(t))
                        tu_assert_ok(gpgpu_reduce_by_key(tu_ctx, kt, k, t, GPGPU_SUM, x, n,
                                                         wkeys, want, &got_runs));
                    else
                        ref_segmented_reduce(t, GPGPU_SUM, x, starts, nr, want);
                    for (size_t r = 0; r < nr; r++)
                        memcpy(wkeys + r * ks, k + starts[r] * ks, ks);
                    char *gk = read_all(ko), *gv = read_all(vo);
                    ck_assert_msg(memcmp(gk, wkeys, nr * ks) == 0 &&
                                      memcmp(gv, want, nr * size) == 0,
                                  "reduce_by_key %s n=%zu avg %zu [device %s, seed %llu]",
                                  type_names[ti], n, avgs[ai], tu_device,
                                  (unsigned long long)tu_seed());
                    free(gk);
                    free(gv);
                    /* scan by key, in place */
                    tu_assert_ok(gpgpu_scan_by_key_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE,
                                                         ka, va, va));
                    ref_segmented_scan(t, GPGPU_SUM, GPGPU_INCLUSIVE, x, want, starts, nr);
                    gv = read_all(va);
                    /* floats: the _buffer form's grouping (n padded segments) is
                       not the host call's (the runs counted first) on a GPU */
                    ck_assert_msg(is_float(t) ? floats_close(t, gv, want, x, starts, nr)
                                              : memcmp(gv, want, n * size) == 0,
                                  "scan_by_key %s n=%zu avg %zu [device %s, seed %llu]",
                                  type_names[ti], n, avgs[ai], tu_device,
                                  (unsigned long long)tu_seed());
                    free(gv);
                    gk = read_all(ka); /* the keys as they were */
                    ck_assert(memcmp(gk, k, n * ks) == 0);
                    free(gk);
                    gpgpu_array_destroy(ka);
                    gpgpu_array_destroy(va);
                    gpgpu_array_destroy(ko);
                    gpgpu_array_destroy(vo);
                    free(k);
                    free(x);
                    free(want);
                    free(wkeys);
                    free(starts);
                }
        }
}
END_TEST

/* ---- unique, run-length encoding, partition -------------------------------------------- */

TU_TEST(unique_and_runs_match_loops)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        const gpgpu_type t = types[ti];
        const size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            const size_t n = sizes[si];
            char *x = tu_alloc(n * size), *want = tu_alloc(n * size + 8);
            uint64_t *wlen = tu_alloc((n + 1) * sizeof *wlen);
            make_keys(size == 4 ? GPGPU_U32 : GPGPU_U64, x, n, 1 + si % 3,
                      tu_seed_for(45, n * 8 + ti));
            size_t runs = 0, count = 9, nruns = 9;
            for (size_t i = 0; i < n; i++) {
                if (i == 0 || memcmp(x + i * size, x + (i - 1) * size, size)) {
                    memcpy(want + runs * size, x + i * size, size);
                    wlen[runs++] = 0;
                }
                wlen[runs - 1]++;
            }
            gpgpu_array *in = array_of(t, x, n), *out = array_of(t, NULL, n + 3);
            gpgpu_array *len = array_of(GPGPU_U64, NULL, n);
            tu_assert_ok(gpgpu_unique_array(tu_ctx, in, out, &count));
            char *got = read_all(out);
            ck_assert_msg(count == runs && memcmp(got, want, runs * size) == 0,
                          "unique %s n=%zu: %zu, want %zu [device %s, seed %llu]",
                          type_names[ti], n, count, runs, tu_device,
                          (unsigned long long)tu_seed());
            free(got);
            tu_assert_ok(gpgpu_run_length_encode_array(tu_ctx, in, out, len, &nruns));
            got = read_all(out);
            uint64_t *gl = read_all(len);
            ck_assert_msg(nruns == runs && memcmp(got, want, runs * size) == 0 &&
                              memcmp(gl, wlen, runs * sizeof *gl) == 0,
                          "run_length_encode %s n=%zu [device %s, seed %llu]", WHERE(ti, n));
            free(got);
            free(gl);
            gpgpu_array_destroy(in);
            gpgpu_array_destroy(out);
            gpgpu_array_destroy(len);
            free(x);
            free(want);
            free(wlen);
        }
    }
}
END_TEST

TU_TEST(partition_matches_loop)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        const gpgpu_type t = types[ti];
        const size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            const size_t n = sizes[si];
            char *x = tu_alloc(n * size), *want = tu_alloc(n * size + 8);
            size_t kept = 0, count = 5, selected = 0;
            tu_fill(t, x, n, tu_seed_for(46, n * 8 + ti));
            gpgpu_array *in = array_of(t, x, n), *out = array_of(t, NULL, n);
            gpgpu_status s = gpgpu_partition_array(tu_ctx, "x > 0 && i % 3 != 1", in, out,
                                                   &count);
            tu_assert_ok(s);
            for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < n; i++) {
                    const char *e = x + i * size;
                    int pos;
                    switch (t) {
                    case GPGPU_I32: pos = *(const int32_t *)e > 0; break;
                    case GPGPU_U32: pos = *(const uint32_t *)e > 0; break;
                    case GPGPU_F32: pos = *(const float *)e > 0; break;
                    case GPGPU_I64: pos = *(const int64_t *)e > 0; break;
                    case GPGPU_U64: pos = *(const uint64_t *)e > 0; break;
                    default: pos = *(const double *)e > 0; break;
                    }
                    const int keep = pos && i % 3 != 1;
                    if (keep == !pass)
                        memcpy(want + kept++ * size, e, size);
                    if (pass == 0 && i + 1 == n)
                        selected = kept;
                }
            char *got = read_all(out);
            ck_assert_msg(count == selected, "partition %s n=%zu: count %zu, want %zu "
                          "[device %s, seed %llu]", type_names[ti], n, count, selected,
                          tu_device, (unsigned long long)tu_seed());
            ck_assert_msg(memcmp(got, want, n * size) == 0,
                          "partition %s n=%zu [device %s, seed %llu]", WHERE(ti, n));
            free(got);
            gpgpu_array_destroy(in);
            gpgpu_array_destroy(out);
            free(x);
            free(want);
        }
    }
}
END_TEST

/* ---- histogram over edges -------------------------------------------------------------------- */

TU_TEST(histogram_edges_matches_loop)
{
    static const double edges[] = {-1000, -700.5, -3, 0, 0.25, 1, 10, 999.75};
    enum { NB = 7 };
    for (int ti = 0; ti < NTYPES; ti++) {
        const gpgpu_type t = types[ti];
        const size_t size = gpgpu_type_size(t);
        if (tu_skip_type(t))
            continue;
        for (size_t si = 0; si < NSIZES; si++) {
            const size_t n = sizes[si];
            char *x = tu_alloc(n * size);
            uint64_t got[NB], want[NB] = {0};
            tu_fill(t, x, n, tu_seed_for(47, n * 8 + ti));
            for (size_t i = 0; i < n; i++) {
                const char *e = x + i * size;
                long double v;
                switch (t) { /* integers: their exact value; the edges are exact too */
                case GPGPU_I32: v = *(const int32_t *)e; break;
                case GPGPU_U32: v = *(const uint32_t *)e; break;
                case GPGPU_F32: v = *(const float *)e; break;
                case GPGPU_I64: v = (long double)*(const int64_t *)e; break;
                case GPGPU_U64: v = (long double)*(const uint64_t *)e; break;
                default: v = *(const double *)e; break;
                }
                if (gpgpu_type_size(t) == 8 && !is_float(t) && (v > 2e3 || v < -2e3))
                    continue; /* far outside: exactness of the cast does not matter */
                for (int b = 0; b < NB; b++)
                    if (v >= edges[b] && (v < edges[b + 1] || (b == NB - 1 && v == edges[NB]))) {
                        want[b]++;
                        break;
                    }
            }
            gpgpu_array *in = array_of(t, x, n);
            tu_assert_ok(gpgpu_histogram_edges_array(tu_ctx, in, edges, NB, got));
            ck_assert_msg(memcmp(got, want, sizeof got) == 0,
                          "histogram_edges %s n=%zu [device %s, seed %llu]", WHERE(ti, n));
            gpgpu_array_destroy(in);
            free(x);
        }
    }
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------------- */

TU_TEST(bad_arguments_are_rejected_and_arrays_kept)
{
    enum { N = 100 };
    uint32_t x[N], y[N];
    const uint64_t o[3] = {0, 50, N}, down[3] = {0, 60, 40};
    const double edges[3] = {0, 1, 2}, bad_edges[3] = {0, 2, 1};
    uint64_t bins[2], v = 0;
    size_t count = 77, index = 77;
    tu_fill(GPGPU_U32, x, N, tu_seed_for(48, 0));
    gpgpu_array *a = array_of(GPGPU_U32, x, N), *b = array_of(GPGPU_U32, NULL, N);
    gpgpu_array *offs = array_of(GPGPU_U64, o, 3), *offs32 = array_of(GPGPU_U32, o, 3);
    gpgpu_array *shorter = array_of(GPGPU_U32, NULL, N - 1), *f = array_of(GPGPU_F32, NULL, N);
    gpgpu_array *len = array_of(GPGPU_U64, NULL, N), *other = NULL;
    gpgpu_context *ctx2 = NULL;
    tu_assert_ok(gpgpu_context_create(&ctx2, tu_is_host() ? "host" : NULL));
    tu_assert_ok(gpgpu_array_create(ctx2, GPGPU_U32, N, &other));

    REJECTED(gpgpu_reduce_index_array(tu_ctx, GPGPU_SUM, a, &v, &index));
    REJECTED(gpgpu_reduce_index_array(tu_ctx, GPGPU_MIN, a, NULL, &index));
    REJECTED(gpgpu_reduce_index_array(tu_ctx, GPGPU_MIN, other, &v, &index));
    REJECTED(gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, a, offs32, b));
    REJECTED(gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, a, offs, f));
    REJECTED(gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, a, offs, a));
    REJECTED(gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, a, NULL, b));
    REJECTED(gpgpu_segmented_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, shorter, offs));
    REJECTED(gpgpu_segmented_scan_array(tu_ctx, GPGPU_SUM, (gpgpu_scan_kind)9, a, b, offs));
    REJECTED(gpgpu_segmented_scan_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, b, other));
    REJECTED(gpgpu_reduce_by_key_array(tu_ctx, GPGPU_SUM, f, a, b, len, &count));
    REJECTED(gpgpu_reduce_by_key_array(tu_ctx, GPGPU_SUM, a, shorter, b, len, &count));
    REJECTED(gpgpu_reduce_by_key_array(tu_ctx, GPGPU_SUM, a, b, a, len, &count));
    REJECTED(gpgpu_reduce_by_key_array(tu_ctx, GPGPU_SUM, a, b, f, len, &count));
    REJECTED(gpgpu_reduce_by_key_array(tu_ctx, GPGPU_SUM, a, b, len, f, NULL));
    REJECTED(gpgpu_scan_by_key_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, b, a));
    REJECTED(gpgpu_scan_by_key_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, a, b));
    REJECTED(gpgpu_scan_by_key_array(tu_ctx, GPGPU_SUM, GPGPU_INCLUSIVE, a, b, f));
    REJECTED(gpgpu_unique_array(tu_ctx, a, a, &count));
    REJECTED(gpgpu_unique_array(tu_ctx, a, shorter, &count));
    REJECTED(gpgpu_unique_array(tu_ctx, a, f, &count));
    REJECTED(gpgpu_unique_array(tu_ctx, a, b, NULL));
    REJECTED(gpgpu_unique_array(ctx2, a, other, &count));
    REJECTED(gpgpu_run_length_encode_array(tu_ctx, a, b, f, &count));
    REJECTED(gpgpu_run_length_encode_array(tu_ctx, a, b, b, &count));
    REJECTED(gpgpu_run_length_encode_array(tu_ctx, a, len, b, &count));
    REJECTED(gpgpu_partition_array(tu_ctx, NULL, a, b, &count));
    REJECTED(gpgpu_partition_array(tu_ctx, "x > 1", a, a, &count));
    REJECTED(gpgpu_partition_array(tu_ctx, "x > 1", a, shorter, &count));
    REJECTED(gpgpu_histogram_edges_array(tu_ctx, a, bad_edges, 2, bins));
    REJECTED(gpgpu_histogram_edges_array(tu_ctx, a, edges, 0, bins));
    REJECTED(gpgpu_histogram_edges_array(tu_ctx, a, NULL, 2, bins));
    REJECTED(gpgpu_histogram_edges_array(tu_ctx, other, edges, 2, bins));
    ck_assert_uint_eq(count, 77);
    ck_assert_uint_eq(index, 77);
    /* decreasing offsets: the fallback checks them; a device reads them
       unchecked (results unspecified, nothing outside the arrays touched) */
    gpgpu_array *bad = array_of(GPGPU_U64, down, 3);
    gpgpu_status s = gpgpu_segmented_reduce_array(tu_ctx, GPGPU_SUM, a, bad, b);
    if (tu_is_host())
        ck_assert_int_eq(s, GPGPU_ERROR_INVALID_ARGUMENT);
    else
        tu_assert_ok(s);
    tu_assert_ok(gpgpu_array_read(tu_ctx, a, 0, y, N));
    ck_assert(memcmp(x, y, sizeof x) == 0);
    gpgpu_array_destroy(bad);
    gpgpu_array_destroy(a);
    gpgpu_array_destroy(b);
    gpgpu_array_destroy(offs);
    gpgpu_array_destroy(offs32);
    gpgpu_array_destroy(shorter);
    gpgpu_array_destroy(f);
    gpgpu_array_destroy(len);
    gpgpu_array_destroy(other);
    gpgpu_context_destroy(ctx2);
}
END_TEST

int main(void)
{
    /* Scratch that earlier calls left cached is released whenever a call
       needs a new buffer (the plan keeps up to a quarter of the device's
       memory; the other suites run that way): these primitives take many
       scratch buffers each, so a buffer released while its own call still
       used it would show here as a wrong result or an OpenCL error. */
    setenv("GPGPU_SCRATCH_KEEP", "0", 1);
    return tu_run("array_ops", 600, NULL);
}
