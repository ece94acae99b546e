/*
 * test_sort.c - gpgpu_sort and gpgpu_sort_pairs against a stable plain-C
 * merge sort (ref_sort.c): every key type, both orders, keys only and pairs
 * with 4- and 8-byte values carrying each key's original index (so the
 * comparison checks stability too), sizes around the chunk, bucket and tile
 * sizes, primes, input patterns and float special values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_sort.h"
#include "util.h"

static const gpgpu_type types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                    GPGPU_I64, GPGPU_U64, GPGPU_F64 };
static const char *type_names[] = { "i32", "u32", "f32", "i64", "u64", "f64" };
#define NTYPES 6

/* 256: the radix; 4096: a chunk; 4608, 7168 and 8192: GPU tiles (64-bit
   keys or 8-byte values, 32-bit pairs, 32-bit keys); 16384: a CPU tile. */
static const size_t sizes[] = { 0,    1,    2,    3,    97,   255,   256,   257,   1009,
                                4095, 4096, 4097, 4608, 4609, 7168, 7169, 8191,  8192,
                                8193, 16383, 16384, 16385, 65537 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* TOP_BYTE, LOW_BYTE, END_BYTES: random keys with every other byte zero,
   so that only some radix digits differ (the GPU passes' routes). */
typedef enum {
    RANDOM, SORTED, REVERSED, ALL_EQUAL, FEW_DISTINCT, NARROW, SORTED_RUNS,
    TOP_BYTE, LOW_BYTE, END_BYTES, SPECIALS, LOW_3_BYTES, UNIT, SLICE
} pattern;
static const char *pattern_names[] = { "random",      "sorted",   "reversed",  "all-equal",
                                       "few-distinct", "narrow",  "sorted-runs", "top-byte",
                                       "low-byte",     "end-bytes", "specials",
                                       "low-3-bytes", "unit",     "slice" };
enum { RUN = 4099 }; /* SORTED_RUNS: sorted pieces, out of order only where they meet */



/* n keys of t following pattern p. */
static void make_keys(gpgpu_type t, void *keys, size_t n, pattern p, uint64_t seed)
{
    size_t ks = gpgpu_type_size(t);
    unsigned char *k = keys;
    uint64_t s = seed;

    tu_fill(t, keys, n, seed);
    if (n == 0)
        return;
    if (p == SORTED || p == REVERSED)
        ck_assert_int_eq(ref_sort(t, keys, NULL, 0, n, p == REVERSED ? GPGPU_DESCENDING : 0), 0);
    for (size_t i = 0; i < n && p == ALL_EQUAL; i++)
        memcpy(k + i * ks, k, ks);
    for (size_t i = 0; i < n && p == FEW_DISTINCT; i++)
        memcpy(k + i * ks, k + (tu_splitmix(&s) % 5) * (n < 5 ? 0 : ks), ks);
    for (size_t i = 0; i < n && p == NARROW; i++) {
        uint64_t v = tu_splitmix(&s) & 0xffff;
        if (t == GPGPU_F32) {
            float f = (float)v - 30000.0f;
            memcpy(k + i * ks, &f, 4);
        } else if (t == GPGPU_F64) {
            double d = (double)v - 30000.0;
            memcpy(k + i * ks, &d, 8);
        } else {
            memcpy(k + i * ks, &v, ks); /* little-endian: the low bytes */
        }
    }
    /* UNIT: floats in [0, 1), most keys in a few binades; integers below
       2^20, whose highest 8 bits that vary straddle two bytes */
    for (size_t i = 0; i < n && p == UNIT; i++) {
        uint64_t r = tu_splitmix(&s);
        double u = (double)(r >> 11) * 0x1.0p-53;
        float f = (float)u;
        uint64_t v = r & 0xfffff;
        if (t == GPGPU_F32)
            memcpy(k + i * 4, &f, 4);
        else if (t == GPGPU_F64)
            memcpy(k + i * 8, &u, 8);
        else
            memcpy(k + i * ks, &v, ks); /* little-endian: the low bytes */
    }
    /* SLICE: a quarter of the range of bits, across the top bit's change
       (as a distributed sort's bucket is a slice of the keys' range) */
    for (size_t i = 0; i < n && p == SLICE; i++) {
        uint64_t r = tu_splitmix(&s);
        uint64_t v = 0x7d2b7400u + (r >> 32) % 0x3fc00000u;
        v = ks == 8 ? v << 32 | (r & 0xffffffffu) : v;
        memcpy(k + i * ks, &v, ks);
    }
    uint64_t top = (uint64_t)0xff << (8 * ks - 8);
    uint64_t mask = p == TOP_BYTE ? top : p == LOW_BYTE ? 0xff : p == END_BYTES ? top | 0xff
                  : p == LOW_3_BYTES ? 0xffffff : 0;
    for (size_t i = 0; i < n && mask; i++) {
        uint64_t v = 0;
        memcpy(&v, k + i * ks, ks); /* little-endian: the low bytes */
        v &= mask;
        memcpy(k + i * ks, &v, ks);
    }
    for (size_t i = 0; i < n && p == SORTED_RUNS; i += RUN)
        ck_assert_int_eq(ref_sort(t, k + i * ks, NULL, 0, n - i < RUN ? n - i : RUN, 0), 0);
    for (size_t i = 0; i < n && p == SPECIALS; i++) {
        uint64_t r = tu_splitmix(&s);
        if (r & 1)
            continue; /* half stay random */
        if (ks == 4)
            memcpy(k + i * 4, &tu_f32_specials[(r >> 1) % TU_NSPECIALS], 4);
        else
            memcpy(k + i * 8, &tu_f64_specials[(r >> 1) % TU_NSPECIALS], 8);
    }
}

/* Each value is its key's original index, spread over all 8 bytes when the
   values are 8 bytes wide, so that any reordering of equal keys shows. */
static void make_values(void *values, size_t value_size, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (value_size == 4) {
            ((uint32_t *)values)[i] = (uint32_t)i;
        } else {
            ((uint64_t *)values)[i] = ((uint64_t)~i << 32) | (uint32_t)i;
        }
    }
}

static size_t first_difference(const void *a, const void *b, size_t size, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * size, (const char *)b + i * size, size))
            return i;
    return n;
}

/* Changes the keys of a case after make_keys (NULL: none). */
static void (*reshape)(void *keys, size_t ks, size_t n);

/* Sorts one case with the library and the reference and compares bits. */
static void check_case(int ti, size_t n, unsigned flags, size_t value_size, pattern p,
                       uint64_t seed)
{
    gpgpu_type t = types[ti];
    size_t ks = gpgpu_type_size(t);
    void *keys = tu_alloc(n * ks), *want = tu_alloc(n * ks);
    void *values = value_size ? tu_alloc(n * value_size) : NULL;
    void *want_values = value_size ? tu_alloc(n * value_size) : NULL;

    make_keys(t, keys, n, p, seed);
    if (reshape)
        reshape(keys, ks, n);
    memcpy(want, keys, n * ks);
    if (value_size) {
        make_values(values, value_size, n);
        memcpy(want_values, values, n * value_size);
    }
    ck_assert_int_eq(ref_sort(t, want, want_values, value_size, n, flags), 0);
    if (value_size)
        tu_assert_ok(gpgpu_sort_pairs(tu_ctx, t, keys, values, value_size, n, flags));
    else
        tu_assert_ok(gpgpu_sort(tu_ctx, t, keys, n, flags));

    size_t bad = first_difference(keys, want, ks, n);
    if (bad == n && value_size)
        bad = first_difference(values, want_values, value_size, n);
    ck_assert_msg(bad == n,
                  "%s %s %s n=%zu values=%zu: first difference at %zu [device %s, seed %llu]",
                  type_names[ti], pattern_names[p], flags ? "descending" : "ascending", n,
                  value_size, bad, tu_device, (unsigned long long)seed);
    free(keys);
    free(want);
    free(values);
    free(want_values);
}

/* Every type, both orders, every size of the list, random keys. */
static void check_sizes(size_t value_size)
{
    for (int ti = 0; ti < NTYPES; ti++)
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t s = 0; s < NSIZES; s++)
                check_case(ti, sizes[s], flags, value_size, RANDOM,
                           tu_seed_for(ti * 2 + flags, sizes[s]));
}

TU_TEST(keys_of_every_type_and_order_are_sorted)
{
    check_sizes(0);
}
END_TEST

TU_TEST(pairs_with_4_byte_values_are_sorted_stably)
{
    check_sizes(4);
}
END_TEST

TU_TEST(pairs_with_8_byte_values_are_sorted_stably)
{
    check_sizes(8);
}
END_TEST

TU_TEST(input_patterns_are_sorted_stably)
{
    static const size_t ns[] = { 5, 10007, 65537 };
    for (pattern p = SORTED; p <= END_BYTES; p++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (unsigned flags = 0; flags < 2; flags++)
                for (size_t s = 0; s < 3; s++)
                    check_case(ti, ns[s], flags, s == 1 ? 0 : p % 2 ? 8 : 4, p,
                               tu_seed_for(100 + p * 16 + ti * 2 + flags, ns[s]));
}
END_TEST

/* The first 8192 keys with their top bytes zero (top and bottom: the
   sort masks may flip them); the rest as they are. */
static void low_first(void *keys, size_t ks, size_t n)
{
    for (size_t i = 0; i < n && i < 8192; i++) {
        unsigned char *k = (unsigned char *)keys + i * ks;
        memset(k + 1, 0, ks - 1); /* little-endian: the low byte stays */
    }
}

/* Three keys in four with the same top byte as the first key. */
static void mostly_one_top_byte(void *keys, size_t ks, size_t n)
{
    unsigned char *k = keys;
    for (size_t i = 1; i < n; i++)
        if (i % 4)
            k[i * ks + ks - 1] = k[ks - 1]; /* little-endian: the top byte */
}

/* Keys the host's sort does not sample (its top digit's slices come from
   every (n / 4096)th key, every 32nd here), one in four below the sampled
   range of a slice and one in four above it for unsigned keys (the first
   and the last bucket then take them). */
static void outside_sample(void *keys, size_t ks, size_t n)
{
    unsigned char *k = keys;
    for (size_t i = 0; i < n; i++)
        if (i % 32 && i % 2)
            k[i * ks + ks - 1] = i % 4 == 1 ? 0x00 : 0xff; /* little-endian: the top byte */
}

/* The host's sort from 2^17 keys: the top digit's pass first (256 slices
   of the sampled keys' range), then each of its buckets by the bytes that
   vary in it, which differ from bucket to bucket: all of them (random),
   one (narrow, end bytes), two (low 3 bytes), none (few distinct keys: a
   bucket of equal keys), mixed (float specials), a slice across two bytes
   (unit: floats in [0, 1), integers below 2^20), a slice that does not
   start at 0 and crosses the top bit (slice). */
TU_TEST(top_digit_buckets_are_sorted_stably)
{
    static const pattern ps[] = { RANDOM, FEW_DISTINCT, NARROW, END_BYTES, LOW_3_BYTES,
                                  SPECIALS, UNIT, SLICE };
    const size_t n = ((size_t)1 << 17) + 7;
    for (size_t p = 0; p < sizeof ps / sizeof *ps; p++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (unsigned flags = 0; flags < 2; flags++) {
                if (ps[p] == SPECIALS && types[ti] != GPGPU_F32 && types[ti] != GPGPU_F64)
                    continue;
                check_case(ti, n, flags, (size_t)(p + ti + flags) % 3 * 4, ps[p],
                           tu_seed_for(700 + p * 16 + ti * 2 + flags, n));
            }
    /* the first keys vary less than the array; one bucket of the top
       digit holds most keys; half the keys lie outside the sample's range */
    void (*const shapes[])(void *, size_t, size_t) = { low_first, mostly_one_top_byte,
                                                        outside_sample };
    for (size_t k = 0; k < 3; k++) {
        reshape = shapes[k];
        for (int ti = 0; ti < NTYPES; ti++)
            check_case(ti, n, (unsigned)(ti % 2), (size_t)(ti % 3) * 4, k == 2 ? SLICE : RANDOM,
                       tu_seed_for(760 + k * 8 + ti, n));
        reshape = NULL;
    }
}
END_TEST

/* Three keys in eight with the first key's top byte, the others with
   another: the top digit's biggest bucket holds those keys alone (and
   less than half of all, past which the LSD passes go instead). With
   top_shape 1 they share the first key's byte 1 too, with 2 also their
   byte 0 is their byte 2; with 3, three keys in seven share all its
   bits but the low 12. */
static int top_shape;
static void big_top_bucket(void *keys, size_t ks, size_t n)
{
    unsigned char *k = keys;
    for (size_t i = 0; i < n; i++) {
        unsigned char *x = k + i * ks;
        if (top_shape == 3 && i % 7 < 3) {
            memcpy(x + 2, k + 2, ks - 2);
            x[1] = (unsigned char)((k[1] & 0xf0) | (x[1] & 0x0f));
        } else if (top_shape != 3 && i % 8 < 3) {
            x[ks - 1] = k[ks - 1];
            x[1] = top_shape >= 1 ? k[1] : x[1];
            x[0] = top_shape == 2 ? x[2] : x[0];
        } else if (x[ks - 1] == k[ks - 1]) {
            x[ks - 1] ^= 0x40;
        }
    }
}

/* The host's sort splits a bucket of the top digit that is too big for
   the cache (1.5 to 6 MiB here) by its highest digit left, then sorts
   each part by the digits that vary in it: parts with an even (top_shape
   0 for 32-bit keys), an odd (1, and 0 for 64-bit keys) and no number of
   passes left (2), keys alone and with 4- and 8-byte values. */
TU_TEST(big_buckets_are_split_and_sorted_stably)
{
    static const int tis[] = { 1, 2, 4 }; /* u32, f32, u64 */
    const size_t n = ((size_t)1 << 20) + 3;
    reshape = big_top_bucket;
    for (top_shape = 0; top_shape < 3; top_shape++)
        for (size_t i = 0; i < sizeof tis / sizeof *tis; i++)
            check_case(tis[i], n, (unsigned)((i + (size_t)top_shape) % 2),
                       (i + (size_t)top_shape) % 3 * 4, RANDOM,
                       tu_seed_for(780 + (size_t)top_shape * 8 + i, n));
    reshape = NULL;
}
END_TEST

/* The host's sort of keys alone takes wide digits (up to 12 bits) in
   buckets of 8192 keys or more where the CPU runs them faster, bytes
   elsewhere: both ways on any CPU (GPGPU_SORT_WIDE), and unset, where
   the first such sort is a trial with both in it: random u32 and u64
   keys and floats in [0, 1), both orders, and a bucket too big for the
   cache (3 MiB and more) whose keys vary in 12 bits (top_shape 3), which
   wide digits take in one pass. */
TU_TEST(host_digit_widths_sort_alike)
{
    static const int tis[] = { 1, 2, 4 }; /* u32, f32, u64 */
    static const pattern ps[] = { RANDOM, UNIT, RANDOM };
    const size_t n = ((size_t)1 << 21) + 5;
    if (!tu_is_host())
        return;
    for (int wide = 0; wide < 3; wide++) {
        if (wide < 2)
            ck_assert_int_eq(setenv("GPGPU_SORT_WIDE", wide ? "1" : "0", 1), 0);
        else
            ck_assert_int_eq(unsetenv("GPGPU_SORT_WIDE"), 0);
        for (size_t i = 0; i < sizeof tis / sizeof *tis; i++) {
            const unsigned flags = (unsigned)((i + (size_t)wide) % 2);
            check_case(tis[i], n, flags, 0, ps[i], tu_seed_for(790 + (size_t)wide * 4 + i, n));
            reshape = big_top_bucket;
            top_shape = 3;
            check_case(tis[i], n, flags, 0, RANDOM, tu_seed_for(800 + (size_t)wide * 4 + i, n));
            reshape = NULL;
        }
        /* the plan names the digits taken: forced, or the trial's verdict
           (random u32 keys of 2^21 leave about 64 buckets in each half) */
        static const char *const said[] = { "host-sort=bytes", "host-sort=wide", NULL };
        const char *plan = gpgpu_plan_description(tu_ctx);
        if (said[wide])
            ck_assert_msg(strstr(plan, said[wide]) != NULL, "plan: %s", plan);
        else
            ck_assert_msg(strstr(plan, "host-sort=trial") == NULL, "plan: %s", plan);
    }
}
END_TEST

/* The GPU layout (tiles ranked by warp, the look-back, the passes' routes)
   on whatever device this is, with tiles of 1280 keys so that small inputs
   span several: the form GPUs without NVIDIA's inline assembly run, and,
   besides the oclgrind driver, the only run of it that `make check` makes
   on a machine without a GPU. 64-bit keys go through __local memory by
   halves (GPGPU_SORT_SPLIT=1: keys alone too, where NVIDIA's plan splits
   only keys with 4-byte values), except with 8-byte values, which keep
   whole keys. */
TU_TEST(tiled_layout_sorts_on_any_device)
{
    static const pattern ps[] = { RANDOM, SORTED, TOP_BYTE, LOW_BYTE, END_BYTES };
    static const int tis[] = { 1, 2, 4 }; /* u32, f32, u64 */
    static const size_t ns[] = { 3001, 20011 };
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_SORT_TILE=1280 GPGPU_SORT_SPLIT=1"))
        return;
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "layout=coalesced") != NULL);
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "sort_split=always") != NULL);
    for (size_t p = 0; p < sizeof ps / sizeof *ps; p++)
        for (size_t i = 0; i < sizeof tis / sizeof *tis; i++)
            for (size_t vs = 0; vs <= 8; vs += 4)
                for (size_t s = 0; s < 2; s++)
                    check_case(tis[i], ns[s], (unsigned)(p % 2), vs, ps[p],
                               tu_seed_for(400 + p * 16 + i * 4 + vs, ns[s]));
}
END_TEST

TU_TEST(float_specials_follow_total_order)
{
    static const int float_types[] = { 2, 5 };
    for (int f = 0; f < 2; f++)
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t vs = 0; vs <= 8; vs += 4) {
                check_case(float_types[f], 18, flags, vs, SPECIALS, tu_seed_for(200 + f, vs));
                check_case(float_types[f], 70001, flags, vs, SPECIALS,
                           tu_seed_for(210 + f, vs + flags));
            }
}
END_TEST

TU_TEST(large_inputs_are_sorted)
{
    size_t n = (1u << 22) + 3;
    check_case(1, n, 0, 0, RANDOM, tu_seed_for(300, 1));           /* u32 keys */
    check_case(2, n, GPGPU_DESCENDING, 4, RANDOM, tu_seed_for(300, 2)); /* f32 pairs */
    check_case(3, n, 0, 8, FEW_DISTINCT, tu_seed_for(300, 3));     /* i64 pairs */
}
END_TEST

/* A sort of a range inside larger buffers leaves everything else alone and
   completes through its event. */
TU_TEST(buffer_form_sorts_only_its_range)
{
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_sort_buffer(tu_ctx, GPGPU_U32, NULL, 0, 4, 0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    size_t n = 50001, koff = 7, voff = 3, total = n + 20;
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl;
    ck_assert_int_eq(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL), 0);
    int32_t *keys = tu_alloc(total * 4), *got = tu_alloc(total * 4), *want = tu_alloc(total * 4);
    uint64_t *vals = tu_alloc(total * 8), *gotv = tu_alloc(total * 8), *wantv = tu_alloc(total * 8);
    tu_fill(GPGPU_I32, keys, total, tu_seed_for(400, 0));
    make_values(vals, 8, total);
    memcpy(want, keys, total * 4);
    memcpy(wantv, vals, total * 8);
    ck_assert_int_eq(ref_sort(GPGPU_I32, want + koff, wantv + voff, 8, n, GPGPU_DESCENDING), 0);

    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, total * 4, keys, &err);
    cl_mem vb = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, total * 8, vals, &err);
    cl_event ready = NULL, done = NULL;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q, 0, NULL, &ready), 0);
    tu_assert_ok(gpgpu_sort_pairs_buffer(tu_ctx, GPGPU_I32, kb, koff, vb, voff, 8, n,
                                         GPGPU_DESCENDING, 1, &ready, &done));
    ck_assert_ptr_nonnull(done);
    ck_assert_int_eq(clEnqueueReadBuffer(q, kb, CL_TRUE, 0, total * 4, got, 1, &done, NULL), 0);
    ck_assert_int_eq(clEnqueueReadBuffer(q, vb, CL_TRUE, 0, total * 8, gotv, 0, NULL, NULL), 0);
    ck_assert_int_eq(memcmp(got, want, total * 4), 0);
    ck_assert_int_eq(memcmp(gotv, wantv, total * 8), 0);
    clReleaseEvent(ready);
    clReleaseEvent(done);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    free(keys);
    free(got);
    free(want);
    free(vals);
    free(gotv);
    free(wantv);
}
END_TEST

/* Buffers too small for offset + n, and keys and values that overlap in
   one buffer, are refused before anything runs. */
TU_TEST(buffer_form_rejects_bad_buffers)
{
    if (tu_is_host())
        return;
    cl_context cl;
    cl_int err;
    uint32_t keys[64] = { 5, 4, 3, 2, 1 };
    ck_assert_int_eq(clGetCommandQueueInfo(gpgpu_queue(tu_ctx), CL_QUEUE_CONTEXT, sizeof cl,
                                           &cl, NULL), 0);
    cl_mem kb = clCreateBuffer(cl, CL_MEM_COPY_HOST_PTR, sizeof keys, keys, &err);
    ck_assert_int_eq(gpgpu_sort_buffer(tu_ctx, GPGPU_U32, kb, 60, 5, 0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_sort_pairs_buffer(tu_ctx, GPGPU_U32, kb, 0, kb, 16, 4, 20, 0, 0,
                                             NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_sort_buffer(tu_ctx, GPGPU_U32, kb, 0, 5, 0, 1, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    tu_assert_ok(gpgpu_sort_pairs_buffer(tu_ctx, GPGPU_U32, kb, 0, kb, 32, 4, 5, 0, 0, NULL,
                                         NULL));
    ck_assert_int_eq(clEnqueueReadBuffer(gpgpu_queue(tu_ctx), kb, CL_TRUE, 0, sizeof keys, keys,
                                         0, NULL, NULL), 0);
    ck_assert(keys[0] == 1 && keys[4] == 5 && keys[5] == 0);
    clReleaseMemObject(kb);
}
END_TEST

TU_TEST(bad_arguments_are_rejected_and_keys_kept)
{
    uint32_t keys[3] = { 3, 1, 2 }, vals[3] = { 0, 1, 2 };
    ck_assert_int_eq(gpgpu_sort(tu_ctx, GPGPU_U32, keys, 3, 2), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "flags"));
    ck_assert_int_eq(gpgpu_sort(tu_ctx, (gpgpu_type)99, keys, 3, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_sort(tu_ctx, GPGPU_U32, NULL, 3, 0), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_sort_pairs(tu_ctx, GPGPU_U32, keys, vals, 3, 3, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_sort_pairs(tu_ctx, GPGPU_U32, keys, NULL, 4, 3, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_sort(NULL, GPGPU_U32, keys, 3, 0), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(keys[0] == 3 && keys[1] == 1 && keys[2] == 2);
    ck_assert(vals[0] == 0 && vals[1] == 1 && vals[2] == 2);
    tu_assert_ok(gpgpu_sort(tu_ctx, GPGPU_U32, NULL, 0, 0));
    tu_assert_ok(gpgpu_sort_pairs(tu_ctx, GPGPU_F64, NULL, NULL, 8, 0, GPGPU_DESCENDING));
}
END_TEST

int main(void)
{
    return tu_run("sort", 300, NULL);
}
