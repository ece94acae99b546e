/*
 * test_select_k.c - gpgpu_top_k and gpgpu_quantiles against sort-based
 * plain-C references (ref_select_k.c): every type, both orders, sizes
 * around the parts the data is read in (4096 elements each) and primes,
 * k = 0, 1, a few, past the candidate sort's 1024 and n; ties in index
 * order, both zeros and both NaN signs; quantiles compared bit for bit
 * with NumPy's linear rule on the sorted reference; one NULL output; the
 * _buffer and _array forms; keys improving with the index (the host's
 * candidate buffer cut back again and again); the GPU layout on any
 * device; the errors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_select_k.h"
#include "util.h"

static const gpgpu_type types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                    GPGPU_I64, GPGPU_U64, GPGPU_F64 };
static const char *type_names[] = { "i32", "u32", "f32", "i64", "u64", "f64" };
#define NTYPES 6

static const size_t sizes[] = { 1, 2, 3, 97, 255, 256, 257, 1009, 4095, 4096, 4097,
                                8191, 8192, 8193, 10007, 65537 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* MISLEADING: every 17th element is the type's zero, the rest random; at
   n = 17 * 4096 the GPU's sample of 4096 evenly spaced keys sees only
   the zeros, so the windows it places miss the ranks. PERMUTATION: the
   integers 0 .. n-1 shuffled, so that GPU bins (spans of keys) hold
   known ranks. */
typedef enum { RANDOM, FEW_DISTINCT, ALL_EQUAL, SPECIALS, MISLEADING, PERMUTATION, RISING,
               FALLING } pattern;
static const char *pattern_names[] = { "random",      "few-distinct", "all-equal",
                                       "specials",    "misleading",   "permutation",
                                       "rising",      "falling" };

/* Both zeros, both infinities, NaNs of both signs, subnormals, one. */
static const uint32_t f32_specials[] = { 0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                         0x7fc00000u, 0xffc00000u, 0x00000001u, 0x80000001u,
                                         0x3f800000u, 0xbf800000u };
static const uint64_t f64_specials[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x0000000000000001ull, 0x8000000000000001ull, 0x3ff0000000000000ull,
    0xbff0000000000000ull };

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* n elements of t following p; SPECIALS without NaNs when no_nan. */
static void make(gpgpu_type t, void *x, size_t n, pattern p, int no_nan, uint64_t seed)
{
    size_t ks = gpgpu_type_size(t);
    unsigned char *k = x;
    uint64_t s = seed;
    tu_fill(t, x, n, seed);
    for (size_t i = 1; i < n && p == ALL_EQUAL; i++)
        memcpy(k + i * ks, k, ks);
    for (size_t i = 0; i < n && p == FEW_DISTINCT; i++)
        memcpy(k + i * ks, k + (splitmix(&s) % 5) * (n < 5 ? 0 : ks), ks);
    for (size_t i = 0; i < n && p == SPECIALS; i++) {
        uint64_t r = splitmix(&s);
        if (r & 1)
            continue;
        size_t w = (size_t)((r >> 1) % 10);
        if (no_nan && (w == 4 || w == 5))
            w = (size_t)(r >> 8) % 4;
        if (t == GPGPU_F32)
            memcpy(k + i * 4, &f32_specials[w], 4);
        else if (t == GPGPU_F64)
            memcpy(k + i * 8, &f64_specials[w], 8);
        else if (w < 2)
            memset(k + i * ks, w ? 0xff : 0, ks); /* integer extremes and ties */
    }
    for (size_t i = 0; i < n && p == MISLEADING; i += 17)
        memset(k + i * ks, 0, ks);
    for (size_t i = 0; i < n && p == PERMUTATION; i++) { /* ks >= 4 */
        size_t j = (size_t)(splitmix(&s) % (i + 1));
        memcpy(k + i * ks, k + j * ks, ks);
        uint64_t v = i;
        memset(k + j * ks, 0, ks);
        memcpy(k + j * ks, &v, 4);
    }
    for (size_t i = 0; i < n && (p == RISING || p == FALLING); i++) { /* ks >= 4 */
        uint32_t v = (uint32_t)(p == RISING ? i + 1 : n - i); /* positive in every type */
        memset(k + i * ks, 0, ks);
        memcpy(k + i * ks, &v, 4);
    }
}

/* ---- top_k ------------------------------------------------------------------ */

static void check_top_k(int ti, size_t n, size_t k, unsigned flags, pattern p, int outs,
                        uint64_t seed)
{
    gpgpu_type t = types[ti];
    size_t ks = gpgpu_type_size(t);
    void *x = tu_alloc(n * ks), *v = tu_alloc(k * ks), *wv = tu_alloc(k * ks);
    uint64_t *ix = tu_alloc(k * 8), *wi = tu_alloc(k * 8);
    make(t, x, n, p, 0, seed);
    memset(v, 0xa5, k * ks);
    memset(ix, 0xa5, k * 8);
    ck_assert_int_eq(ref_top_k(t, x, n, k, flags, wv, wi), 0);
    tu_assert_ok(gpgpu_top_k(tu_ctx, t, x, n, k, flags, outs & 1 ? v : NULL,
                             outs & 2 ? ix : NULL));
    for (size_t i = 0; i < k; i++) {
        int bad = ((outs & 1) && memcmp((char *)v + i * ks, (char *)wv + i * ks, ks)) ||
                  ((outs & 2) && ix[i] != wi[i]);
        ck_assert_msg(!bad,
                      "top_k %s %s %s n=%zu k=%zu: first difference at %zu (index %llu, want "
                      "%llu) [device %s, seed %llu]",
                      type_names[ti], pattern_names[p], flags ? "descending" : "ascending", n,
                      k, i, (unsigned long long)ix[i], (unsigned long long)wi[i], tu_device,
                      (unsigned long long)seed);
    }
    free(x);
    free(v);
    free(wv);
    free(ix);
    free(wi);
}

/* k = 0, 1, 5, past the candidate sort's limit (when n allows) and n. */
static void check_ks(int ti, size_t n, unsigned flags, pattern p, uint64_t seed)
{
    const size_t ks[] = { 0, 1, 5, 1025, n };
    for (size_t j = 0; j < 5; j++)
        if (ks[j] <= n && (j < 4 || n <= 8193))
            check_top_k(ti, n, ks[j], flags, p, 3, seed + j);
}

TU_TEST(top_k_of_every_type_order_and_size)
{
    for (int ti = 0; ti < NTYPES; ti++)
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t s = 0; s < NSIZES; s++)
                check_ks(ti, sizes[s], flags, RANDOM, tu_seed_for(ti * 2 + flags, sizes[s]));
}
END_TEST

TU_TEST(top_k_keeps_ties_in_index_order)
{
    static const size_t ns[] = { 7, 4097, 40009 };
    for (pattern p = FEW_DISTINCT; p <= SPECIALS; p++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (unsigned flags = 0; flags < 2; flags++)
                for (size_t s = 0; s < 3; s++)
                    check_ks(ti, ns[s], flags, p, tu_seed_for(100 + p * 16 + ti * 2 + flags, ns[s]));
}
END_TEST

TU_TEST(top_k_writes_only_the_output_given)
{
    for (int ti = 0; ti < NTYPES; ti += 2)
        for (int outs = 1; outs <= 2; outs++) {
            check_top_k(ti, 10007, 100, 0, FEW_DISTINCT, outs, tu_seed_for(200 + ti, outs));
            check_top_k(ti, 3001, 2000, 1, RANDOM, outs, tu_seed_for(210 + ti, outs));
        }
}
END_TEST

TU_TEST(top_k_of_a_million)
{
    check_top_k(2, 1000003, 100, GPGPU_DESCENDING, RANDOM, 3, tu_seed_for(300, 0));
    check_top_k(3, 1000003, 1000, 0, FEW_DISTINCT, 3, tu_seed_for(301, 0));
}
END_TEST

/* Keys that each beat the ones before them (rising for the largest,
   falling for the smallest) enter the host's candidates one after
   another, so its buffer of 2k + 64 fills and is cut back to k again and
   again; sizes around the buffer's, k around the blocks of 64 keys. */
TU_TEST(top_k_of_keys_improving_with_the_index)
{
    static const size_t ns[] = { 263, 264, 265, 329, 1021, 4099, 70001 };
    static const size_t kk[] = { 1, 63, 64, 65, 100, 257 };
    for (int ti = 0; ti < NTYPES; ti++)
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++) {
                pattern p = flags ? RISING : FALLING, q = flags ? FALLING : RISING;
                for (size_t j = 0; j < sizeof kk / sizeof kk[0]; j++) {
                    check_top_k(ti, ns[s], kk[j], flags, p, 3, tu_seed_for(400 + ti, j));
                    check_top_k(ti, ns[s], kk[j], flags, q, 3, tu_seed_for(410 + ti, j));
                }
                check_top_k(ti, ns[s], ns[s] - 1, flags, p, 3, tu_seed_for(420 + ti, s));
                check_top_k(ti, ns[s], ns[s] / 2, flags, RANDOM, 3, tu_seed_for(430 + ti, s));
            }
    check_top_k(1, 1000003, 100, GPGPU_DESCENDING, RISING, 3, tu_seed_for(440, 0));
    check_top_k(4, 1000003, 100, 0, FALLING, 3, tu_seed_for(441, 0));
}
END_TEST

/* The host's AVX2 scans (32-bit keys at every size; 64-bit floating-point
   keys from 2^15 elements, integers from 2^17; tests/no-avx2.sh runs
   the suite without them): sizes past those bounds and past a vector by a
   few keys, both zeros and NaNs, ties, keys improving with the index. */
TU_TEST(top_k_around_the_vector_scans)
{
    static const size_t ns[] = { 32771, 131079, 262147 };
    static const size_t kk[] = { 1, 7, 100, 257 };
    static const pattern ps[] = { RANDOM, SPECIALS, FEW_DISTINCT, RISING, FALLING };
    for (int ti = 2; ti < NTYPES; ti++) /* f32, i64, u64, f64 */
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t s = 0; s < sizeof ns / sizeof ns[0]; s++)
                for (size_t q = 0; q < sizeof ps / sizeof ps[0]; q++)
                    for (size_t j = 0; j < sizeof kk / sizeof kk[0]; j += 1 + (q > 0))
                        check_top_k(ti, ns[s], kk[j], flags, ps[q], 3,
                                    tu_seed_for(1200 + ti * 8 + flags * 4 + q, ns[s] + j));
}
END_TEST

TU_TEST(top_k_rejects_bad_arguments)
{
    uint32_t x[4] = { 4, 3, 2, 1 }, v[4];
    uint64_t ix[4];
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, x, 4, 5, 0, v, ix));
    ck_assert_str_eq(gpgpu_last_error(tu_ctx), "gpgpu_top_k: k is 5; at most n = 4");
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, x, SIZE_MAX, 2, 0, v, ix)); /* bytes overflow */
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, (char *)x + 1, 3, 2, 0, v, ix)); /* misaligned */
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, x, 4, 2, 0, v, (uint64_t *)((char *)ix + 4)));
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, x, 4, 2, 2, v, ix));
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, x, 4, 2, 0, NULL, NULL));
    REJECTED(gpgpu_top_k(tu_ctx, GPGPU_U32, NULL, 4, 2, 0, v, ix));
    REJECTED(gpgpu_top_k(tu_ctx, (gpgpu_type)99, x, 4, 2, 0, v, ix));
    ck_assert_int_eq(gpgpu_top_k(NULL, GPGPU_U32, x, 4, 2, 0, v, ix),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    tu_assert_ok(gpgpu_top_k(tu_ctx, GPGPU_U32, x, 4, 0, 0, NULL, NULL));
    tu_assert_ok(gpgpu_top_k(tu_ctx, GPGPU_U32, NULL, 0, 0, 0, NULL, NULL));
}
END_TEST

/* ---- quantiles ---------------------------------------------------------------- */

/* The first 6 need at most 12 ranks: one round of the radix select; all
   12 need up to 24: two rounds. (Every percentile at once takes the
   sort.) */
static const double qs[] = { 0.5, 0, 1, 0.25, 0.999, 1.0 / 3, 0.75, 0.1, 0.9, 0.001,
                             0.37, 0.63 };
#define NQS (sizeof qs / sizeof qs[0])
#define NQ_RADIX 6

static void check_quantiles(int ti, size_t n, pattern p, int no_nan, size_t nq, uint64_t seed)
{
    gpgpu_type t = types[ti];
    size_t ks = gpgpu_type_size(t);
    void *x = tu_alloc(n * ks);
    double got[NQS], want[NQS];
    make(t, x, n, p, no_nan, seed);
    ck_assert_int_eq(ref_quantiles(t, x, n, qs, nq, want), 0);
    tu_assert_ok(gpgpu_quantiles(tu_ctx, t, x, n, qs, nq, got));
    for (size_t j = 0; j < nq; j++)
        ck_assert_msg(memcmp(&got[j], &want[j], 8) == 0 || (isnan(got[j]) && isnan(want[j])),
                      "quantiles %s %s n=%zu q=%g: %.17g, want %.17g [device %s, seed %llu]",
                      type_names[ti], pattern_names[p], n, qs[j], got[j], want[j], tu_device,
                      (unsigned long long)seed);
    free(x);
}

TU_TEST(quantiles_of_every_type_and_size_follow_the_linear_rule)
{
    for (int ti = 0; ti < NTYPES; ti++)
        for (size_t s = 0; s < NSIZES; s++) {
            check_quantiles(ti, sizes[s], RANDOM, 1, 1, tu_seed_for(400 + ti, sizes[s]));
            check_quantiles(ti, sizes[s], RANDOM, 1, NQ_RADIX, tu_seed_for(410 + ti, sizes[s]));
            check_quantiles(ti, sizes[s], RANDOM, 1, NQS, tu_seed_for(420 + ti, sizes[s]));
        }
    /* the host's radix select of 32-bit keys: from 1024 keys, with more
       digits from 16384 */
    static const size_t edges[] = { 1023, 1024, 1025, 16383, 16384, 16385 };
    for (int ti = 0; ti < NTYPES; ti++)
        for (size_t s = 0; s < sizeof edges / sizeof *edges; s++) {
            check_quantiles(ti, edges[s], RANDOM, 1, 1, tu_seed_for(430 + ti, edges[s]));
            check_quantiles(ti, edges[s], RANDOM, 1, NQS, tu_seed_for(440 + ti, edges[s]));
            check_quantiles(ti, edges[s], SPECIALS, 0, NQS, tu_seed_for(450 + ti, edges[s]));
        }
}
END_TEST

TU_TEST(quantiles_of_ties_zeros_and_nans)
{
    static const size_t ns[] = { 2, 4097, 40009 };
    for (pattern p = FEW_DISTINCT; p <= SPECIALS; p++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (size_t s = 0; s < 3; s++)
                for (int no_nan = 0; no_nan < 2; no_nan++) {
                    check_quantiles(ti, ns[s], p, no_nan, NQ_RADIX,
                                    tu_seed_for(500 + p * 16 + ti * 2 + no_nan, ns[s]));
                    check_quantiles(ti, ns[s], p, no_nan, NQS,
                                    tu_seed_for(550 + p * 16 + ti * 2 + no_nan, ns[s]));
                }
}
END_TEST

TU_TEST(every_percentile_at_once)
{
    const size_t n = 30011;
    double q[101], got[101], want[101];
    float *x = tu_alloc(n * sizeof *x);
    for (int j = 0; j <= 100; j++)
        q[j] = j / 100.0;
    make(GPGPU_F32, x, n, FEW_DISTINCT, 1, tu_seed_for(650, n));
    ck_assert_int_eq(ref_quantiles(GPGPU_F32, x, n, q, 101, want), 0);
    tu_assert_ok(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, n, q, 101, got));
    ck_assert(memcmp(got, want, sizeof got) == 0);
    /* random u32 keys: more digits wanted than the host's radix select
       takes (about 200 of 2048), then a few (quantiles in 1/4 .. 1/4 + 1/400) */
    make(GPGPU_U32, x, n, RANDOM, 1, tu_seed_for(651, n));
    ck_assert_int_eq(ref_quantiles(GPGPU_U32, x, n, q, 101, want), 0);
    tu_assert_ok(gpgpu_quantiles(tu_ctx, GPGPU_U32, x, n, q, 101, got));
    ck_assert(memcmp(got, want, sizeof got) == 0);
    for (int j = 0; j <= 100; j++)
        q[j] = 0.25 + j / 40000.0;
    ck_assert_int_eq(ref_quantiles(GPGPU_U32, x, n, q, 101, want), 0);
    tu_assert_ok(gpgpu_quantiles(tu_ctx, GPGPU_U32, x, n, q, 101, got));
    ck_assert(memcmp(got, want, sizeof got) == 0);
    free(x);
}
END_TEST

TU_TEST(quantiles_of_a_million)
{
    check_quantiles(2, 1000003, RANDOM, 1, NQ_RADIX, tu_seed_for(600, 0));
}
END_TEST

TU_TEST(quantiles_reject_bad_arguments)
{
    float x[3] = { 1, 2, 3 };
    double out[2], bad[2] = { 0.5, 1.5 }, nanq[1] = { NAN }, neg[1] = { -0.1 };
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, 0, qs, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, 3, bad, 2, out));
    ck_assert_str_eq(gpgpu_last_error(tu_ctx), "gpgpu_quantiles: q[1] is 1.5; need 0 <= q <= 1");
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, SIZE_MAX, qs, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, (char *)x + 2, 2, qs, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, 3, nanq, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, 3, neg, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, NULL, 3, qs, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, 3, NULL, 1, out));
    REJECTED(gpgpu_quantiles(tu_ctx, GPGPU_F32, x, 3, qs, 1, NULL));
    REJECTED(gpgpu_quantiles(tu_ctx, (gpgpu_type)99, x, 3, qs, 1, out));
}
END_TEST

/* ---- the _array and _buffer forms ------------------------------------------------ */

TU_TEST(array_forms_match_the_host_calls)
{
    const size_t n = 20011, k = 37;
    float *x = tu_alloc(n * sizeof *x), v[37], wv[37];
    uint64_t ix[37], wi[37];
    double got[NQS], want[NQS];
    gpgpu_array *a, *av, *ai;
    make(GPGPU_F32, x, n, SPECIALS, 1, tu_seed_for(700, n));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_F32, n, &a));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_F32, k, &av));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U64, k, &ai));
    tu_assert_ok(gpgpu_array_write(tu_ctx, a, 0, x, n));
    tu_assert_ok(gpgpu_top_k_array(tu_ctx, a, k, GPGPU_DESCENDING, av, ai));
    tu_assert_ok(gpgpu_array_read(tu_ctx, av, 0, v, k));
    tu_assert_ok(gpgpu_array_read(tu_ctx, ai, 0, ix, k));
    ck_assert_int_eq(ref_top_k(GPGPU_F32, x, n, k, GPGPU_DESCENDING, wv, wi), 0);
    ck_assert(memcmp(v, wv, sizeof v) == 0 && memcmp(ix, wi, sizeof ix) == 0);
    REJECTED(gpgpu_top_k_array(tu_ctx, a, k, 0, ai, NULL)); /* values of another type */
    REJECTED(gpgpu_top_k_array(tu_ctx, a, k + 1, 0, av, NULL)); /* too short */
    tu_assert_ok(gpgpu_quantiles_array(tu_ctx, a, qs, NQS, got));
    ck_assert_int_eq(ref_quantiles(GPGPU_F32, x, n, qs, NQS, want), 0);
    ck_assert(memcmp(got, want, sizeof got) == 0);
    gpgpu_array_destroy(a);
    gpgpu_array_destroy(av);
    gpgpu_array_destroy(ai);
    free(x);
}
END_TEST

TU_TEST(buffer_forms_work_at_offsets)
{
    double q2[2] = { 0.5, 0.9 }, outq[2];
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_top_k_buffer(tu_ctx, GPGPU_U32, NULL, 0, 0, 0, 0, NULL, 0, NULL,
                                            0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    cl_command_queue cq = gpgpu_queue(tu_ctx);
    cl_context cl;
    cl_int err;
    clGetCommandQueueInfo(cq, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    const size_t n = 9001, off = 3, k = 50;
    int64_t *x = tu_alloc((n + off) * sizeof *x), v[50], wv[50];
    uint64_t ix[50], wi[50];
    double want[2];
    make(GPGPU_I64, x, n + off, FEW_DISTINCT, 1, tu_seed_for(800, n));
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n + off) * 8, x,
                               &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, 4 * k * 8, NULL, &err);
    cl_event done;
    tu_assert_ok(gpgpu_top_k_buffer(tu_ctx, GPGPU_I64, in, off, n, k, 0, out, 1, out, k + 2, 0,
                                    NULL, &done));
    clEnqueueReadBuffer(cq, out, CL_TRUE, 8, k * 8, v, 1, &done, NULL);
    clEnqueueReadBuffer(cq, out, CL_TRUE, (k + 2) * 8, k * 8, ix, 0, NULL, NULL);
    clReleaseEvent(done);
    ck_assert_int_eq(ref_top_k(GPGPU_I64, x + off, n, k, 0, wv, wi), 0);
    ck_assert(memcmp(v, wv, sizeof v) == 0 && memcmp(ix, wi, sizeof ix) == 0);
    REJECTED(gpgpu_top_k_buffer(tu_ctx, GPGPU_I64, in, off + 1, n + off, k, 0, out, 0, NULL, 0,
                                0, NULL, NULL));
    gpgpu_status st = gpgpu_quantiles_buffer(tu_ctx, GPGPU_I64, in, off, n, q2, 2, out, 5, 0,
                                             NULL, &done);
    if (st != GPGPU_ERROR_UNSUPPORTED) {
        tu_assert_ok(st);
        clEnqueueReadBuffer(cq, out, CL_TRUE, 5 * 8, sizeof outq, outq, 1, &done, NULL);
        clReleaseEvent(done);
        ck_assert_int_eq(ref_quantiles(GPGPU_I64, x + off, n, q2, 2, want), 0);
        ck_assert(memcmp(outq, want, sizeof want) == 0);
        double qm[40], many[40], wmany[40]; /* 40 quantiles: the sort's route */
        for (int j = 0; j < 40; j++)
            qm[j] = j / 39.0;
        tu_assert_ok(gpgpu_quantiles_buffer(tu_ctx, GPGPU_I64, in, off, n, qm, 40, out, 7, 0,
                                            NULL, &done));
        clEnqueueReadBuffer(cq, out, CL_TRUE, 7 * 8, sizeof many, many, 1, &done, NULL);
        clReleaseEvent(done);
        ck_assert_int_eq(ref_quantiles(GPGPU_I64, x + off, n, qm, 40, wmany), 0);
        ck_assert(memcmp(many, wmany, sizeof many) == 0);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
}
END_TEST

/* ---- the GPU layout on any device ------------------------------------------------- */

/* The sample the host's threads and GPUs take (4096 evenly spaced keys)
   sees only zeros, or every key is equal: the results stay exact. */
TU_TEST(samples_that_mislead)
{
    const size_t n = 17 * 4096;
    for (int ti = 0; ti < NTYPES; ti += 5) /* i32, f64 */
        for (pattern p = MISLEADING; p >= ALL_EQUAL; p -= 2) {
            check_top_k(ti, n, 100, GPGPU_DESCENDING, p, 3, tu_seed_for(1100 + ti, p));
            check_top_k(ti, n, 1000, 0, p, 3, tu_seed_for(1110 + ti, p));
            check_quantiles(ti, n, p, 1, NQ_RADIX, tu_seed_for(1120 + ti, p));
        }
}
END_TEST

/* The GPU's two reads and the passes they fall back to: the sample
   misled, many equal keys, ranks at the edges of the bins, and a million
   keys (on GPUs from GPGPU_SELECT_SAMPLE = 2^15 keys). */
TU_TEST(gpu_layout_reads_twice_or_falls_back)
{
    static const size_t edges[] = { 1, 2, 63, 64, 65, 255, 256, 257, 1023, 1024 };
    const size_t n = 17 * 4096;
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_WG=64"))
        return;
    for (int ti = 1; ti < NTYPES; ti += 2) { /* u32, i64, f64 */
        for (unsigned flags = 0; flags < 2; flags++) {
            check_top_k(ti, n, 100, flags, MISLEADING, 3, tu_seed_for(1000 + ti, flags));
            check_top_k(ti, n, 1000, flags, ALL_EQUAL, 3, tu_seed_for(1010 + ti, flags));
        }
        check_quantiles(ti, n, MISLEADING, 1, NQ_RADIX, tu_seed_for(1020 + ti, n));
        check_quantiles(ti, n, ALL_EQUAL, 1, NQ_RADIX, tu_seed_for(1030 + ti, n));
    }
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
        for (unsigned flags = 0; flags < 2; flags++)
            check_top_k(1, n, edges[e], flags, PERMUTATION, 3, tu_seed_for(1040 + e, flags));
    check_quantiles(1, n, PERMUTATION, 1, NQS, tu_seed_for(1050, n));
    check_top_k(2, 1000003, 100, GPGPU_DESCENDING, RANDOM, 3, tu_seed_for(1060, 0));
    check_top_k(5, 1000003, 1024, 0, SPECIALS, 3, tu_seed_for(1061, 0));

    check_quantiles(2, 1000003, RANDOM, 1, NQS, tu_seed_for(1062, 0));
    check_quantiles(5, 1000003, SPECIALS, 0, NQ_RADIX, tu_seed_for(1063, 0));
    tu_restore_ctx();
    /* above 1024 the sort of (key, index) pairs, here with 8-byte indices
       as past 2^32 keys */
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_WG=64 GPGPU_WIDE_FROM=2"))
        return;
    check_top_k(1, 20011, 1025, GPGPU_DESCENDING, RANDOM, 3, tu_seed_for(1064, 0));
    check_top_k(4, 20011, 2000, 0, FEW_DISTINCT, 3, tu_seed_for(1065, 0));
    tu_restore_ctx();
}
END_TEST

TU_TEST(gpu_layout_selects_on_any_device)
{
    static const size_t ns[] = { 3001, 70001 };
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_WG=64"))
        return;
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "layout=coalesced") != NULL);
    for (int ti = 1; ti < NTYPES; ti += 2) /* u32, i64, f64 */
        for (size_t s = 0; s < 2; s++) {
            for (pattern p = RANDOM; p <= SPECIALS; p += 3)
                for (unsigned flags = 0; flags < 2; flags++)
                    check_ks(ti, ns[s], flags, p, tu_seed_for(900 + ti * 4 + p + flags, ns[s]));
            check_top_k(ti, ns[s], 300, 0, FEW_DISTINCT, 3, tu_seed_for(950 + ti, ns[s]));
            check_quantiles(ti, ns[s], SPECIALS, 1, NQ_RADIX, tu_seed_for(960 + ti, ns[s]));
            check_quantiles(ti, ns[s], FEW_DISTINCT, 0, NQ_RADIX, tu_seed_for(970 + ti, ns[s]));
            check_quantiles(ti, ns[s], SPECIALS, 0, NQS, tu_seed_for(980 + ti, ns[s]));
        }
    tu_restore_ctx();
}
END_TEST

int main(void)
{
    return tu_run("select_k", 600, NULL);
}
