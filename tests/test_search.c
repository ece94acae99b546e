/*
 * test_search.c - gpgpu_search_sorted, gpgpu_argsort and gpgpu_gather (host
 * calls, _buffer and _array forms) against the plain-C references of
 * ref_search.c: every type, both sides and orders, sizes 0, 1, around the
 * chunk (4096) and group sizes, primes, about a million once; ties, both
 * zeros and both NaN signs; unsorted input; bad indices; the argument
 * checks. Cases of their own repeat them with the GPU layout, and with the
 * copying route of discrete GPUs, forced on whatever device this is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_search.h"
#include "ref_sort.h"
#include "util.h"

static const gpgpu_type types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                    GPGPU_I64, GPGPU_U64, GPGPU_F64 };
#define NTYPES 6

static const size_t sizes[] = { 0, 1, 2, 3, 97, 255, 256, 257, 1009, 4095, 4096, 4097, 8193,
                                65537 };
#define NSIZES (sizeof sizes / sizeof sizes[0])



/* Random elements of t where a third repeat one of few values (ties) and,
   for floats, a third are the special values (both zeros, both NaNs,
   infinities, subnormals). */
static void make_keys(gpgpu_type t, void *keys, size_t n, uint64_t seed)
{
    const size_t size = gpgpu_type_size(t);
    const int is_float = t == GPGPU_F32 || t == GPGPU_F64;
    char *k = keys;
    uint64_t s = seed;
    tu_fill(t, keys, n, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tu_splitmix(&s) % 3;
        if (r == 1 && i > 8)
            memcpy(k + i * size, k + (tu_splitmix(&s) % 8) * size, size);
        else if (r == 2 && is_float && size == 4)
            memcpy(k + i * 4, &tu_f32_specials[tu_splitmix(&s) % TU_NSPECIALS], 4);
        else if (r == 2 && is_float)
            memcpy(k + i * 8, &tu_f64_specials[tu_splitmix(&s) % TU_NSPECIALS], 8);
    }
}

static size_t first_difference(const void *a, const void *b, size_t size, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * size, (const char *)b + i * size, size))
            return i;
    return n;
}

/* ---- search_sorted ------------------------------------------------------------ */

/* sorted: n keys sorted by the reference; needles: m keys, half of them
   taken from sorted (exact ties), the rest from the same mix. */
static void search_case(gpgpu_type t, size_t n, size_t m, unsigned side, uint64_t seed)
{
    const size_t size = gpgpu_type_size(t);
    char *sorted = tu_alloc(n * size), *needles = tu_alloc(m * size);
    char *sorted0 = tu_alloc(n * size), *needles0 = tu_alloc(m * size);
    uint64_t *pos = tu_alloc(m * 8), *want = tu_alloc(m * 8), s = seed;
    make_keys(t, sorted, n, seed);
    ck_assert_int_eq(ref_sort(t, sorted, NULL, 0, n, 0), 0);
    make_keys(t, needles, m, seed ^ 0x5555);
    for (size_t j = 0; n > 0 && j < m; j += 2)
        memcpy(needles + j * size, sorted + (tu_splitmix(&s) % n) * size, size);
    memcpy(sorted0, sorted, n * size);
    memcpy(needles0, needles, m * size);
    memset(pos, 0xee, m * 8);
    ref_search_sorted(t, sorted, n, needles, m, side, want);
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, t, sorted, n, needles, m, side, pos));
    size_t d = first_difference(pos, want, 8, m);
    ck_assert_msg(d == m, "search_sorted type %d n=%zu m=%zu side=%u: pos[%zu] = %llu, want %llu "
                  "[device %s, seed %llu]", (int)t, n, m, side, d,
                  d < m ? (unsigned long long)pos[d] : 0ull,
                  d < m ? (unsigned long long)want[d] : 0ull, tu_device,
                  (unsigned long long)tu_seed());
    ck_assert(memcmp(sorted, sorted0, n * size) == 0);
    ck_assert(memcmp(needles, needles0, m * size) == 0);
    free(sorted);
    free(needles);
    free(sorted0);
    free(needles0);
    free(pos);
    free(want);
}

TU_TEST(search_sorted_matches_reference_every_type)
{
    static const size_t ms[] = { 1, 2, 97, 4097, 20011 };
    for (int ti = 0; ti < NTYPES; ti++)
        for (size_t si = 0; si < NSIZES; si++)
            for (unsigned side = 0; side < 2; side++)
                search_case(types[ti], sizes[si], ms[(si + side) % 5], side,
                            tu_seed_for(10 + ti * 2 + side, sizes[si]));
}
END_TEST

TU_TEST(search_sorted_needles_around_tile_sizes)
{
    static const size_t ms[] = { 0, 1, 4095, 4096, 4097, 65536, 65537, 262147 };
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        for (unsigned side = 0; side < 2; side++)
            search_case(i % 2 ? GPGPU_F32 : GPGPU_U32, 1009, ms[i], side,
                        tu_seed_for(30 + side, ms[i]));
}
END_TEST

TU_TEST(search_sorted_zeros_and_nans_follow_total_order)
{
    const float f[] = { -__builtin_nanf(""), -1.0f, -0.0f, -0.0f, 0.0f, 0.0f, 2.0f,
                        __builtin_nanf("") };
    const float x[] = { -0.0f, 0.0f, __builtin_nanf(""), -__builtin_nanf(""), 1.0f };
    const uint64_t left[] = { 2, 4, 7, 0, 6 }, right[] = { 4, 6, 8, 1, 6 };
    uint64_t pos[5];
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_F32, f, 8, x, 5, GPGPU_SEARCH_LEFT, pos));
    ck_assert(memcmp(pos, left, sizeof pos) == 0);
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_F32, f, 8, x, 5, GPGPU_SEARCH_RIGHT, pos));
    ck_assert(memcmp(pos, right, sizeof pos) == 0);
    const double d[] = { -__builtin_nan(""), -0.0, 0.0, __builtin_nan("") };
    const double y[] = { 0.0, -0.0, -__builtin_nan(""), __builtin_nan("") };
    const uint64_t dl[] = { 2, 1, 0, 3 }, dr[] = { 3, 2, 1, 4 };
    uint64_t p4[4];
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_F64, d, 4, y, 4, GPGPU_SEARCH_LEFT, p4));
    ck_assert(memcmp(p4, dl, sizeof p4) == 0);
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_F64, d, 4, y, 4, GPGPU_SEARCH_RIGHT, p4));
    ck_assert(memcmp(p4, dr, sizeof p4) == 0);
    /* the same needles 8 times over: the host's vector lanes (32 and 16
       searches a round) take them too */
    float x40[40];
    double y32[32];
    uint64_t p40[40];
    for (int i = 0; i < 40; i++)
        x40[i] = x[i % 5];
    for (int i = 0; i < 32; i++)
        y32[i] = y[i % 4];
    for (unsigned side = 0; side < 2; side++) {
        tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_F32, f, 8, x40, 40, side, p40));
        for (int i = 0; i < 40; i++)
            ck_assert_uint_eq(p40[i], (side ? right : left)[i % 5]);
        tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_F64, d, 4, y32, 32, side, p40));
        for (int i = 0; i < 32; i++)
            ck_assert_uint_eq(p40[i], (side ? dr : dl)[i % 4]);
    }
}
END_TEST

TU_TEST(search_sorted_of_a_million_u32)
{
    search_case(GPGPU_U32, 1u << 20, (1u << 20) + 3, GPGPU_SEARCH_LEFT, tu_seed_for(40, 0));
}
END_TEST

TU_TEST(search_sorted_of_unsorted_input_stays_in_bounds)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        const size_t size = gpgpu_type_size(types[ti]), n = 5003, m = 9001;
        char *keys = tu_alloc(n * size), *needles = tu_alloc(m * size);
        uint64_t *pos = tu_alloc(m * 8);
        make_keys(types[ti], keys, n, tu_seed_for(50, ti));
        make_keys(types[ti], needles, m, tu_seed_for(51, ti));
        for (unsigned side = 0; side < 2; side++) {
            tu_assert_ok(gpgpu_search_sorted(tu_ctx, types[ti], keys, n, needles, m, side, pos));
            for (size_t j = 0; j < m; j++)
                ck_assert_uint_le(pos[j], n);
        }
        free(keys);
        free(needles);
        free(pos);
    }
}
END_TEST

/* ---- argsort ------------------------------------------------------------------ */

/* Keys whose digits are all alike but some (the sort's passes then copy
   instead of sorting, or take none): shape 0 ascending already, 1 all
   equal, 2 only the top byte differs, 3 only the lowest byte differs, 4
   the two lowest bytes and the top one differ. */
static void shaped_keys(gpgpu_type t, void *keys, size_t n, int shape, uint64_t seed)
{
    const size_t size = gpgpu_type_size(t);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tu_splitmix(&s) % 200, v;
        v = shape == 0 ? i : shape == 1 ? 7 : shape == 2 ? r << (size * 8 - 8) : r;
        if (shape == 4)
            v = r | (r * 7 % 200) << 8 | (r * 13 % 200) << (size * 8 - 8);
        if (size == 4) {
            uint32_t w = (uint32_t)v;
            memcpy((char *)keys + i * 4, &w, 4);
        } else {
            memcpy((char *)keys + i * 8, &v, 8);
        }
    }
}

static void argsort_check(gpgpu_type t, char *keys, size_t n, unsigned flags)
{
    const size_t size = gpgpu_type_size(t);
    char *keys0 = tu_alloc(n * size);
    uint64_t *idx = tu_alloc(n * 8), *want = tu_alloc(n * 8);
    memcpy(keys0, keys, n * size);
    ck_assert_int_eq(ref_argsort(t, keys, n, flags, want), 0);
    tu_assert_ok(gpgpu_argsort(tu_ctx, t, keys, n, flags, idx));
    size_t d = first_difference(idx, want, 8, n);
    ck_assert_msg(d == n, "argsort type %d n=%zu flags=%u: indices[%zu] = %llu, want %llu "
                  "[device %s, seed %llu]", (int)t, n, flags, d,
                  d < n ? (unsigned long long)idx[d] : 0ull,
                  d < n ? (unsigned long long)want[d] : 0ull, tu_device,
                  (unsigned long long)tu_seed());
    ck_assert(memcmp(keys, keys0, n * size) == 0);
    free(keys0);
    free(idx);
    free(want);
}

static void argsort_case(gpgpu_type t, size_t n, unsigned flags, uint64_t seed)
{
    char *keys = tu_alloc(n * gpgpu_type_size(t));
    make_keys(t, keys, n, seed);
    argsort_check(t, keys, n, flags);
    free(keys);
}

static void argsort_shaped_case(gpgpu_type t, size_t n, int shape, unsigned flags,
                                uint64_t seed)
{
    char *keys = tu_alloc(n * gpgpu_type_size(t));
    shaped_keys(t, keys, n, shape, seed);
    argsort_check(t, keys, n, flags);
    free(keys);
}

TU_TEST(argsort_matches_reference_every_type)
{
    for (int ti = 0; ti < NTYPES; ti++)
        for (size_t si = 0; si < NSIZES; si++)
            for (unsigned flags = 0; flags < 2; flags++)
                argsort_case(types[ti], sizes[si], flags, tu_seed_for(60 + ti * 2 + flags,
                                                                      sizes[si]));
}
END_TEST

TU_TEST(argsort_of_a_million_f32)
{
    argsort_case(GPGPU_F32, (1u << 20) - 1, GPGPU_DESCENDING, tu_seed_for(70, 0));
}
END_TEST

/* ---- gather ------------------------------------------------------------------- */

/* gpgpu_gather of good indices into out matches the reference (want:
   n * vs bytes of room). */
static void gather_check(size_t vs, const void *in, size_t n_in, const uint64_t *idx, size_t n,
                         void *out, void *want)
{
    ref_gather(vs, in, idx, n, want);
    tu_assert_ok(gpgpu_gather(tu_ctx, vs, in, n_in, idx, n, out));
    const size_t d = first_difference(out, want, vs, n);
    ck_assert_msg(d == n, "gather vs=%zu n_in=%zu n=%zu: out[%zu] differs [device %s, seed %llu]",
                  vs, n_in, n, d, tu_device, (unsigned long long)tu_seed());
}

static void gather_case(size_t vs, size_t n_in, size_t n, uint64_t seed)
{
    char *in = tu_alloc(n_in * vs), *out = tu_alloc(n * vs), *want = tu_alloc(n * vs);
    uint64_t *idx = tu_alloc(n * 8), s = seed;
    tu_fill(vs == 4 ? GPGPU_U32 : GPGPU_U64, in, n_in, seed);
    for (size_t i = 0; i < n; i++)
        idx[i] = i % 7 == 3 ? n_in - 1 : tu_splitmix(&s) % n_in; /* repeats too */
    gather_check(vs, in, n_in, idx, n, out, want);
    free(in);
    free(out);
    free(want);
    free(idx);
}

TU_TEST(gather_matches_reference)
{
    for (size_t vs = 4; vs <= 8; vs += 4)
        for (size_t si = 1; si < NSIZES; si++) {
            gather_case(vs, sizes[si], sizes[NSIZES - si], tu_seed_for(80 + vs, si));
            gather_case(vs, 100003, sizes[si], tu_seed_for(90 + vs, si));
        }
    gather_case(4, 1u << 20, (1u << 20) + 1, tu_seed_for(99, 0));
}
END_TEST

/* gather of n indices fails, naming indices[bad], with out as out0 */
static void assert_gather_names(size_t vs, const char *in, size_t n_in, const uint64_t *idx,
                                size_t n, char *out, const char *out0, size_t bad)
{
    char name[40];
    ck_assert_int_eq(gpgpu_gather(tu_ctx, vs, in, n_in, idx, n, out),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    snprintf(name, sizeof name, "indices[%zu]", bad);
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), name) != NULL, "%s",
                  gpgpu_last_error(tu_ctx));
    ck_assert(memcmp(out, out0, n * vs) == 0);
}

TU_TEST(gather_rejects_an_index_out_of_range_and_leaves_out)
{
    /* 70001: parts of the host's check; 2^19 + 7: its threads */
    for (size_t k = 0; k < 4; k++) {
        const size_t vs = k % 2 ? 8 : 4, n_in = 1000, n = k < 2 ? 70001 : (1u << 19) + 7;
        char *in = tu_alloc(n_in * vs), *out = tu_alloc(n * vs), *out0 = tu_alloc(n * vs);
        uint64_t *idx = tu_alloc(n * 8);
        for (size_t i = 0; i < n; i++)
            idx[i] = (i * 37) % n_in;
        idx[n - 5] = n_in;          /* the first bad one, named */
        idx[n - 1] = UINT64_MAX;
        memset(out, 0x5a, n * vs);
        memcpy(out0, out, n * vs);
        assert_gather_names(vs, in, n_in, idx, n, out, out0, n - 5);
        /* bad ones in two parts of the host's check: the first named */
        idx[40000] = n_in + 7;
        assert_gather_names(vs, in, n_in, idx, n, out, out0, 40000);
        idx[40000] = 0;
        /* a bad one in the first part alone (the host's threads each check
           the other's part too), its top bit set: no part writes */
        idx[n - 5] = idx[n - 1] = 0;
        idx[10] = (uint64_t)1 << 63;
        assert_gather_names(vs, in, n_in, idx, n, out, out0, 10);
        idx[10] = 0;
        idx[n - 5] = n_in;
        idx[n - 1] = UINT64_MAX;
        /* small n (the host path on discrete devices) and n_in == 0 */
        ck_assert_int_eq(gpgpu_gather(tu_ctx, vs, in, n_in, idx + n - 5, 5, out),
                         GPGPU_ERROR_INVALID_ARGUMENT);
        ck_assert_int_eq(gpgpu_gather(tu_ctx, vs, NULL, 0, idx, 3, out),
                         GPGPU_ERROR_INVALID_ARGUMENT);
        ck_assert(memcmp(out, out0, n * vs) == 0);
        free(in);
        free(out);
        free(out0);
        free(idx);
    }
}
END_TEST

/* One bad index at a time, at the places the host's check and gather treat
   apart (either end of the array and of the check's blocks of 1024, the
   ends of the gather's steps of 8, the middle), with values the check
   could miss by looking at part of an index (past n_in by one, the top bit
   alone, a high word over in-range low bits): the call names it and out
   is as it was; with the index put back, the gather matches the
   reference. n_in a power of two (whose blocks the OR of their indices
   proves) and not. */
TU_TEST(gather_names_a_bad_index_anywhere)
{
    static const size_t ns[] = { 1, 9, 1023, 1025, 5003, 70001 };
    for (size_t c = 0; c < 2 * 2 * 6; c++) {
        const size_t vs = c % 2 ? 8 : 4, n_in = c / 2 % 2 ? 1000 : 1024, n = ns[c / 4];
        const uint64_t seed = tu_seed_for(200 + c, n);
        char *in = tu_alloc(n_in * vs), *out = tu_alloc(n * vs), *out0 = tu_alloc(n * vs);
        char *want = tu_alloc(n * vs);
        uint64_t *idx = tu_alloc(n * 8), s = seed;
        tu_fill(vs == 4 ? GPGPU_U32 : GPGPU_U64, in, n_in, seed);
        tu_fill(vs == 4 ? GPGPU_U32 : GPGPU_U64, out0, n, seed + 1);
        for (size_t i = 0; i < n; i++)
            idx[i] = tu_splitmix(&s) % n_in;
        const size_t at[] = { 0, 1, 7, 8, 1023, 1024, 1031, n / 2, n - 9, n - 8, n - 2, n - 1 };
        const uint64_t bad[] = { n_in, (uint64_t)1 << 63, ((uint64_t)1 << 32) | 5, UINT64_MAX };
        for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
            const size_t pos = at[a];
            if (pos >= n)
                continue;
            const uint64_t good = idx[pos];
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                idx[pos] = bad[b];
                memcpy(out, out0, n * vs);
                ck_assert_int_eq(gpgpu_gather(tu_ctx, vs, in, n_in, idx, n, out),
                                 GPGPU_ERROR_INVALID_ARGUMENT);
                char name[40];
                snprintf(name, sizeof name, "indices[%zu]", pos);
                ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), name) != NULL,
                              "gather vs=%zu n_in=%zu n=%zu bad at %zu: %s [device %s, seed %llu]",
                              vs, n_in, n, pos, gpgpu_last_error(tu_ctx), tu_device,
                              (unsigned long long)tu_seed());
                const size_t d = first_difference(out, out0, vs, n);
                ck_assert_msg(d == n,
                              "gather vs=%zu n_in=%zu n=%zu bad at %zu: out[%zu] written "
                              "[device %s, seed %llu]",
                              vs, n_in, n, pos, d, tu_device, (unsigned long long)tu_seed());
            }
            idx[pos] = good;
        }
        gather_check(vs, in, n_in, idx, n, out, want);
        free(in);
        free(out);
        free(out0);
        free(want);
        free(idx);
    }
}
END_TEST

/* ---- argument checks ------------------------------------------------------------ */

TU_TEST(bad_arguments_are_rejected)
{
    uint32_t k[4] = { 1, 2, 3, 4 }, x[2] = { 2, 3 };
    uint64_t pos[4] = { 9, 9, 9, 9 }, idx[2] = { 0, 1 };
    REJECTED(gpgpu_search_sorted(NULL, GPGPU_U32, k, 4, x, 2, 0, pos));
    REJECTED(gpgpu_search_sorted(tu_ctx, GPGPU_U32, k, 4, x, 2, 2, pos));
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "side"));
    REJECTED(gpgpu_search_sorted(tu_ctx, (gpgpu_type)99, k, 4, x, 2, 0, pos));
    REJECTED(gpgpu_search_sorted(tu_ctx, GPGPU_U32, NULL, 4, x, 2, 0, pos));
    REJECTED(gpgpu_search_sorted(tu_ctx, GPGPU_U32, k, 4, NULL, 2, 0, pos));
    REJECTED(gpgpu_search_sorted(tu_ctx, GPGPU_U32, k, 4, x, 2, 0, NULL));
    REJECTED(gpgpu_search_sorted(tu_ctx, GPGPU_U32, k, 4, x, 2, 0, (uint64_t *)(void *)k));
    ck_assert(pos[0] == 9);
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_U32, NULL, 0, x, 2, 0, pos));
    ck_assert(pos[0] == 0 && pos[1] == 0 && pos[2] == 9);
    tu_assert_ok(gpgpu_search_sorted(tu_ctx, GPGPU_U32, k, 4, NULL, 0, 1, NULL));

    REJECTED(gpgpu_argsort(tu_ctx, GPGPU_U32, k, 4, 2, pos));
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "flags"));
    REJECTED(gpgpu_argsort(tu_ctx, (gpgpu_type)-1, k, 4, 0, pos));
    REJECTED(gpgpu_argsort(tu_ctx, GPGPU_U32, NULL, 4, 0, pos));
    REJECTED(gpgpu_argsort(tu_ctx, GPGPU_U32, k, 4, 0, NULL));
    REJECTED(gpgpu_argsort(NULL, GPGPU_U32, k, 4, 0, pos));
    tu_assert_ok(gpgpu_argsort(tu_ctx, GPGPU_F64, NULL, 0, GPGPU_DESCENDING, NULL));
    tu_assert_ok(gpgpu_argsort(tu_ctx, GPGPU_U32, k, 1, 0, pos));
    ck_assert(pos[0] == 0);

    REJECTED(gpgpu_gather(tu_ctx, 3, k, 4, idx, 2, x));
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "value_size"));
    REJECTED(gpgpu_gather(tu_ctx, 4, NULL, 4, idx, 2, x));
    REJECTED(gpgpu_gather(tu_ctx, 4, k, 4, NULL, 2, x));
    REJECTED(gpgpu_gather(tu_ctx, 4, k, 4, idx, 2, NULL));
    REJECTED(gpgpu_gather(tu_ctx, 4, k, 4, idx, 2, k + 1));     /* out overlaps in */
    REJECTED(gpgpu_gather(tu_ctx, 4, k, 4, idx, 2, (void *)idx)); /* out overlaps indices */
    REJECTED(gpgpu_gather(NULL, 4, k, 4, idx, 2, x));
    ck_assert(x[0] == 2 && x[1] == 3 && k[0] == 1);
    tu_assert_ok(gpgpu_gather(tu_ctx, 8, NULL, 0, NULL, 0, NULL));
}
END_TEST

/* ---- the _buffer and _array forms ---------------------------------------------- */

static cl_mem buffer_of(const void *host, size_t bytes)
{
    cl_context cl;
    cl_int err;
    ck_assert_int_eq(clGetCommandQueueInfo(gpgpu_queue(tu_ctx), CL_QUEUE_CONTEXT, sizeof cl,
                                           &cl, NULL), CL_SUCCESS);
    cl_mem b = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                              (void *)(uintptr_t)host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return b;
}

static void read_buffer(cl_mem b, size_t offset, size_t bytes, void *host)
{
    ck_assert_int_eq(clEnqueueReadBuffer(gpgpu_queue(tu_ctx), b, CL_TRUE, offset, bytes, host,
                                         0, NULL, NULL), CL_SUCCESS);
}

TU_TEST(buffer_forms_match_the_host_calls)
{
    enum { N = 5000, M = 7001, OFF = 3 };
    int64_t keys[N + OFF], needles[M];
    uint64_t pos[M], want[M + OFF], idx[N], gidx[M + OFF];
    int64_t out[M + OFF], gwant[M], kback[N + OFF];
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_search_sorted_buffer(tu_ctx, GPGPU_U32, NULL, 0, 0, NULL, 0, 0,
                                                    0, NULL, 0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        ck_assert_int_eq(gpgpu_argsort_buffer(tu_ctx, GPGPU_U32, NULL, 0, 0, 0, NULL, 0, 0,
                                              NULL, NULL), GPGPU_ERROR_UNSUPPORTED);
        ck_assert_int_eq(gpgpu_gather_buffer(tu_ctx, 4, NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, NULL,
                                             NULL), GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    for (size_t i = 0; i < OFF; i++)
        keys[i] = -5;
    make_keys(GPGPU_I64, keys + OFF, N, tu_seed_for(100, 0));
    make_keys(GPGPU_I64, needles, M, tu_seed_for(101, 0));
    /* argsort of keys[OFF ..] into idx */
    cl_mem kb = buffer_of(keys, sizeof keys), ib = buffer_of(idx, sizeof idx);
    cl_event done;
    tu_assert_ok(gpgpu_argsort_buffer(tu_ctx, GPGPU_I64, kb, OFF, N, GPGPU_DESCENDING, ib, 0, 0,
                                      NULL, &done));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    read_buffer(ib, 0, sizeof idx, idx);
    ck_assert_int_eq(ref_argsort(GPGPU_I64, keys + OFF, N, GPGPU_DESCENDING, want), 0);
    ck_assert(memcmp(idx, want, sizeof idx) == 0);
    /* the keys' buffer is only read */
    read_buffer(kb, 0, sizeof kback, kback);
    ck_assert(memcmp(kback, keys, sizeof keys) == 0);
    /* search: sorted is keys[OFF ..] sorted ascending in place */
    ck_assert_int_eq(ref_sort(GPGPU_I64, keys + OFF, NULL, 0, N, 0), 0);
    clReleaseMemObject(kb);
    kb = buffer_of(keys, sizeof keys);
    cl_mem xb = buffer_of(needles, sizeof needles), pb = buffer_of(want, sizeof want);
    tu_assert_ok(gpgpu_search_sorted_buffer(tu_ctx, GPGPU_I64, kb, OFF, N, xb, 0, M,
                                            GPGPU_SEARCH_RIGHT, pb, OFF, 0, NULL, NULL));
    read_buffer(pb, OFF * 8, sizeof pos, pos);
    ref_search_sorted(GPGPU_I64, keys + OFF, N, needles, M, GPGPU_SEARCH_RIGHT, want);
    ck_assert(memcmp(pos, want, sizeof pos) == 0);
    /* gather needles by the positions (clamped below M), one index bad */
    for (size_t i = 0; i < M; i++)
        gidx[OFF + i] = pos[i] % M;
    gidx[OFF + 17] = M;
    ref_gather(8, needles, gidx + OFF, 17, gwant);
    ref_gather(8, needles, gidx + OFF + 18, M - 18, gwant + 18);
    for (size_t i = 0; i < M + OFF; i++)
        out[i] = -7;
    gwant[17] = -7; /* left as it was */
    cl_mem gb = buffer_of(gidx, sizeof gidx), ob = buffer_of(out, sizeof out);
    tu_assert_ok(gpgpu_gather_buffer(tu_ctx, 8, xb, 0, M, gb, OFF, M, ob, OFF, 0, NULL, NULL));
    read_buffer(ob, OFF * 8, M * 8, out);
    ck_assert(memcmp(out, gwant, M * 8) == 0);
    /* ranges and overlap */
    ck_assert_int_eq(gpgpu_gather_buffer(tu_ctx, 8, xb, 0, M, gb, OFF, M, xb, 0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_search_sorted_buffer(tu_ctx, GPGPU_I64, kb, OFF + 1, N, xb, 0, M, 0,
                                                pb, 0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_argsort_buffer(tu_ctx, GPGPU_I64, kb, 0, N, 0, kb, 0, 0, NULL,
                                          NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(kb);
    clReleaseMemObject(ib);
    clReleaseMemObject(xb);
    clReleaseMemObject(pb);
    clReleaseMemObject(gb);
    clReleaseMemObject(ob);
}
END_TEST

static gpgpu_array *array_of(gpgpu_type t, const void *host, size_t n)
{
    gpgpu_array *a;
    tu_assert_ok(gpgpu_array_create(tu_ctx, t, n, &a));
    tu_assert_ok(gpgpu_array_write(tu_ctx, a, 0, host, n));
    return a;
}

TU_TEST(array_forms_match_the_host_calls)
{
    enum { N = 9001, M = 4099 };
    float keys[N], needles[M], got[M], gwant[M];
    uint64_t idx[N], want[N], pos[M], gidx[M];
    make_keys(GPGPU_F32, keys, N, tu_seed_for(110, 0));
    make_keys(GPGPU_F32, needles, M, tu_seed_for(111, 0));
    gpgpu_array *k = array_of(GPGPU_F32, keys, N), *x = array_of(GPGPU_F32, needles, M);
    gpgpu_array *ia, *pa, *ga, *oa;
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U64, N, &ia));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U64, M, &pa));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_F32, M, &oa));
    /* argsort, then search in keys sorted by gather of the order */
    tu_assert_ok(gpgpu_argsort_array(tu_ctx, k, 0, ia));
    tu_assert_ok(gpgpu_array_read(tu_ctx, ia, 0, idx, N));
    ck_assert_int_eq(ref_argsort(GPGPU_F32, keys, N, 0, want), 0);
    ck_assert(memcmp(idx, want, sizeof idx) == 0);
    gpgpu_array *sorted;
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_F32, N, &sorted));
    tu_assert_ok(gpgpu_gather_array(tu_ctx, k, ia, sorted));
    tu_assert_ok(gpgpu_search_sorted_array(tu_ctx, sorted, x, GPGPU_SEARCH_LEFT, pa));
    tu_assert_ok(gpgpu_array_read(tu_ctx, pa, 0, pos, M));
    ck_assert_int_eq(ref_sort(GPGPU_F32, keys, NULL, 0, N, 0), 0);
    ref_search_sorted(GPGPU_F32, keys, N, needles, M, GPGPU_SEARCH_LEFT, want);
    ck_assert(memcmp(pos, want, sizeof pos) == 0);
    /* gather: a bad index is named and out stays */
    for (size_t i = 0; i < M; i++)
        gidx[i] = (i * 31) % M;
    ga = array_of(GPGPU_U64, gidx, M);
    tu_assert_ok(gpgpu_gather_array(tu_ctx, x, ga, oa));
    tu_assert_ok(gpgpu_array_read(tu_ctx, oa, 0, got, M));
    ref_gather(4, needles, gidx, M, gwant);
    ck_assert(memcmp(got, gwant, sizeof got) == 0);
    gidx[1234] = M;
    tu_assert_ok(gpgpu_array_write(tu_ctx, ga, 0, gidx, M));
    ck_assert_int_eq(gpgpu_gather_array(tu_ctx, x, ga, oa), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "indices[1234]") != NULL, "%s",
                  gpgpu_last_error(tu_ctx));
    tu_assert_ok(gpgpu_array_read(tu_ctx, oa, 0, got, M));
    ck_assert(memcmp(got, gwant, sizeof got) == 0);
    /* the array rules */
    REJECTED(gpgpu_search_sorted_array(tu_ctx, sorted, x, GPGPU_SEARCH_LEFT, oa));
    REJECTED(gpgpu_search_sorted_array(tu_ctx, sorted, ga, GPGPU_SEARCH_LEFT, pa));
    REJECTED(gpgpu_argsort_array(tu_ctx, k, 0, pa));
    REJECTED(gpgpu_argsort_array(tu_ctx, k, 4, ia));
    REJECTED(gpgpu_gather_array(tu_ctx, x, ga, x));
    REJECTED(gpgpu_gather_array(tu_ctx, x, oa, oa));
    gpgpu_array_destroy(k);
    gpgpu_array_destroy(x);
    gpgpu_array_destroy(ia);
    gpgpu_array_destroy(pa);
    gpgpu_array_destroy(ga);
    gpgpu_array_destroy(oa);
    gpgpu_array_destroy(sorted);
}
END_TEST

/* ---- the GPU layout on any device ----------------------------------------------- */

TU_TEST(coalesced_layout_on_any_device)
{
    static const size_t ns[] = { 1, 257, 4097, 20011 };
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_SORT_TILE=1280 GPGPU_SORT_SPLIT=1"))
        return;
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "layout=coalesced") != NULL);
    for (int ti = 0; ti < NTYPES; ti++)
        for (size_t i = 0; i < 4; i++) {
            search_case(types[ti], ns[i], ns[3 - i], (unsigned)i % 2, tu_seed_for(120 + ti, i));
            argsort_case(types[ti], ns[i], (unsigned)i % 2, tu_seed_for(130 + ti, i));
        }
    /* one tile more than half full, which PoCL's optimiser got wrong
       (lib/primitives/sort.c builds this layout's sort without it there) */
    argsort_case(GPGPU_I32, 1200, 0, tu_seed_for(135, 0));
    /* passes that copy, or none at all, in both orders */
    for (int shape = 0; shape < 4; shape++)
        for (size_t i = 0; i < 4; i++)
            argsort_shaped_case(shape % 2 ? GPGPU_U64 : GPGPU_U32, ns[i], shape,
                                (unsigned)i % 2, tu_seed_for(190 + shape, i));
    for (size_t i = 0; i < 4; i++)
        gather_case(i % 2 ? 8 : 4, ns[i], ns[3 - i], tu_seed_for(140, i));
    tu_restore_ctx();
    /* a shallower tree than the searches' depth (32-bit keys: 64-bit ones
       search without it) */
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_SEARCH_TREE=5"))
        return;
    for (size_t i = 0; i < 4; i++) {
        search_case(i % 2 ? GPGPU_F32 : GPGPU_U32, ns[i], ns[3 - i], (unsigned)i % 2,
                    tu_seed_for(180, i));
    }
    tu_restore_ctx();
}
END_TEST

/* The GPU layout's argsort with 8-byte indices, as past 2^32 keys, at
   small sizes: the result's buffer is the indices' second copy, so the
   passes' routes start from one copy or the other by the number of live
   digits below the top one (shapes 0 and 4: two, 3: one, random keys:
   three or seven, 2: the top alone, 1: none). */
TU_TEST(eight_byte_indices_on_any_device)
{
    static const size_t ns[] = { 1, 257, 4097, 20011 };
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_SORT_TILE=1280 GPGPU_WIDE_FROM=2"))
        return;
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "layout=coalesced") != NULL);
    for (int ti = 0; ti < NTYPES; ti++)
        argsort_case(types[ti], ns[ti % 4], (unsigned)ti % 2, tu_seed_for(200 + ti, 0));
    for (int shape = 0; shape < 5; shape++)
        for (size_t i = 1; i < 4; i++)
            argsort_shaped_case(i % 2 ? GPGPU_U64 : GPGPU_U32, ns[i], shape, (unsigned)shape % 2,
                                tu_seed_for(210 + shape, i));
    tu_restore_ctx();
}
END_TEST

/* The host calls' route on discrete GPUs (copies through the staging ring,
   results read back), forced on any device. */
TU_TEST(copy_route_on_any_device)
{
    static const size_t ns[] = { 2, 4097, 100003 };
    if (!tu_force("GPGPU_ZERO_COPY=0 GPGPU_STAGE_BYTES=65536 GPGPU_STAGE_MIN=4096"))
        return;
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "zero-copy") == NULL);
    for (size_t i = 0; i < 3; i++) {
        search_case(i ? GPGPU_F64 : GPGPU_I32, ns[i], ns[2 - i], (unsigned)i % 2,
                    tu_seed_for(150, i));
        argsort_case(i == 1 ? GPGPU_U64 : GPGPU_F32, ns[i], (unsigned)i % 2,
                     tu_seed_for(160, i));
        gather_case(i % 2 ? 8 : 4, ns[i], ns[2 - i], tu_seed_for(170, i));
    }
    tu_restore_ctx();
}
END_TEST

int main(void)
{
    return tu_run("search", 300, NULL);
}
