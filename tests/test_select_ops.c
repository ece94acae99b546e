/* test_select_ops.c - gpgpu_unique, gpgpu_run_length_encode and
   gpgpu_partition (host and buffer forms) against the plain-C references of
   ref_select_ops.c, on every type, on inputs made of runs, and in the GPU
   layout forced on any device. Each (type, predicate) is a program to
   compile, so partition gets one predicate per type. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_select_ops.h"
#include "util.h"

/* 0, 1, 2, small primes, a select tile on GPUs (4096) and on PoCL (32768),
   +-1 around each, and a million and a bit. */
static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 31, 511, 4095, 4096, 4097,
                               32767, 32768, 32769, 65537, 1000003};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define BIG (((size_t)1 << 22) + 3)

static const gpgpu_type types[] = {GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                   GPGPU_I64, GPGPU_U64, GPGPU_F64};
#define NTYPES (sizeof types / sizeof types[0])

/* ---- inputs made of runs ----------------------------------------------------- */

typedef enum { RUNS, ALL_EQUAL, ALL_DISTINCT, ALTERNATING, SPECIALS, BOUNDARIES,
               NPATTERNS } pattern;
static const char *const pattern_names[] = {"runs", "all equal", "all distinct",
                                            "alternating", "specials", "boundaries"};

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void put_bits(void *a, size_t i, size_t size, uint64_t v)
{
    if (size == 4)
        ((uint32_t *)a)[i] = (uint32_t)v;
    else
        ((uint64_t *)a)[i] = v;
}

/* Bit patterns that compare equal as numbers but not as bits (+0.0 and
   -0.0), NaNs of two payloads, infinities. */
static uint64_t special(gpgpu_type t, uint64_t r)
{
    static const uint32_t f[] = {0x00000000u, 0x80000000u, 0x7fc00000u, 0x7fc00001u,
                                 0xff800000u, 0x3f800000u};
    static const uint64_t d[] = {0, 0x8000000000000000ull, 0x7ff8000000000000ull,
                                 0x7ff8000000000001ull, 0xfff0000000000000ull,
                                 0x3ff0000000000000ull};
    if (t == GPGPU_F32)
        return f[r % 6];
    if (t == GPGPU_F64)
        return d[r % 6];
    return r % 6;
}

/* Runs of random lengths (mostly 1 to 8, now and then thousands). */
static void *make_input(gpgpu_type t, size_t n, pattern p, uint64_t seed)
{
    size_t size = gpgpu_type_size(t);
    void *in = tu_alloc(n * size);
    uint64_t s = seed, a = next(&s), b = next(&s);
    for (size_t i = 0; i < n;) {
        uint64_t r = next(&s);
        size_t len = (r & 0xff) == 0 ? 1 + (r >> 8) % 5000 : 1 + (r >> 8) % 8;
        uint64_t v = next(&s);
        if (p == SPECIALS)
            v = special(t, v);
        for (size_t k = 0; k < len && i < n; k++, i++) {
            uint64_t x = v;
            if (p == ALL_EQUAL)
                x = a;
            else if (p == ALL_DISTINCT)
                x = (i + 1) * 0x9e3779b97f4a7c15ull;  /* odd multiplier: distinct */
            else if (p == ALTERNATING)
                x = i % 2 ? a : b;
            else if (p == BOUNDARIES) /* heads at multiples of 4096, one run from
                                         0.3 n to 0.7 n, short runs after it */
                x = i >= n / 10 * 3 && i < n / 10 * 7 ? a
                    : i < n / 10 * 3 ? (uint64_t)(i / 4096) * 0x9e3779b97f4a7c15ull
                                     : (uint64_t)(i / 3) * 0x9e3779b97f4a7c15ull;
            put_bits(in, i, size, x);
        }
    }
    return in;
}

/* ---- unique and run-length encoding ------------------------------------------- */

static void check_runs(gpgpu_type t, size_t n, pattern p, int in_place)
{
    size_t size = gpgpu_type_size(t), count = (size_t)-1, nruns = (size_t)-1;
    uint64_t seed = tu_seed_for(t * 16 + p, n);
    void *in = make_input(t, n, p, seed);
    void *copy = tu_alloc(n * size), *want = tu_alloc(n * size);
    uint64_t *want_len = tu_alloc(n * sizeof *want_len), *len = tu_alloc(n * sizeof *len);
    memcpy(copy, in, n * size);
    size_t want_runs = ref_runs(size, copy, n, want, want_len);

    void *out = in_place ? in : tu_alloc(n * size);
    tu_assert_ok(gpgpu_unique(tu_ctx, t, in, n, out, &count));
    ck_assert_msg(count == want_runs, "unique type %d n %zu %s: count %zu want %zu, seed %llu",
                  t, n, pattern_names[p], count, want_runs, (unsigned long long)seed);
    ck_assert_msg(!memcmp(out, want, count * size), "unique type %d n %zu %s: wrong values, "
                  "seed %llu", t, n, pattern_names[p], (unsigned long long)seed);
    if (in_place)
        memcpy(in, copy, n * size);
    else
        ck_assert_msg(!memcmp(in, copy, n * size), "unique changed its input");

    tu_assert_ok(gpgpu_run_length_encode(tu_ctx, t, in, n, out, len, &nruns));
    ck_assert_msg(nruns == want_runs, "rle type %d n %zu %s: %zu runs want %zu, seed %llu", t,
                  n, pattern_names[p], nruns, want_runs, (unsigned long long)seed);
    ck_assert_msg(!memcmp(out, want, nruns * size) &&
                  !memcmp(len, want_len, nruns * sizeof *len),
                  "rle type %d n %zu %s: wrong runs, seed %llu", t, n, pattern_names[p],
                  (unsigned long long)seed);
    if (!in_place) {
        ck_assert_msg(!memcmp(in, copy, n * size), "run_length_encode changed its input");
        free(out);
    }
    free(in);
    free(copy);
    free(want);
    free(want_len);
    free(len);
}

TU_LOOP_TEST(unique_and_runs_match_reference, NTYPES)
{
    for (int p = 0; p < NPATTERNS; p++)
        for (size_t k = 0; k < NSIZES; k++)
            check_runs(types[_i], sizes[k], (pattern)p, 0);
}
END_TEST

/* The host's code cuts the elements in parts (a few per thread, of at
   least 2^17): runs that start on a part's first element, end on its
   last, span several parts, parts without a head, for several thread
   counts; the kernels' tiles and work items (4096 elements on CPUs) too. */
TU_TEST(runs_across_part_boundaries)
{
    static const char *const threads[] = {NULL, "1", "3", "8"};
    static const size_t ns[] = {((size_t)1 << 19) + 5, (size_t)7 << 17, 1000003};
    for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
        if (threads[k])
            setenv("GPGPU_THREADS", threads[k], 1);
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
            check_runs(GPGPU_U32, ns[j], BOUNDARIES, 0);
            check_runs(GPGPU_F64, ns[j], BOUNDARIES, 0);
            check_runs(GPGPU_I32, ns[j], ALL_EQUAL, 0);
            check_runs(GPGPU_U64, ns[j], RUNS, 0);
        }
        check_runs(GPGPU_U32, ns[0], BOUNDARIES, 1);
        unsetenv("GPGPU_THREADS");
    }
}
END_TEST

TU_TEST(unique_and_runs_in_place_and_millions)
{
    check_runs(GPGPU_U32, 100003, RUNS, 1);
    check_runs(GPGPU_F64, 4097, SPECIALS, 1);
    check_runs(GPGPU_I64, BIG, RUNS, 0);
}
END_TEST

/* The buffer forms at several offsets, with a wait list and a done event:
   runs are those of the range, whatever lies before it. */
TU_TEST(unique_and_runs_buffer_forms)
{
    if (tu_is_host()) {
        cl_ulong dummy;
        ck_assert_int_eq(gpgpu_unique_buffer(tu_ctx, GPGPU_U32, NULL, 0, 0, NULL, 0,
                                             (cl_mem)&dummy, 0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        ck_assert_int_eq(gpgpu_run_length_encode_buffer(tu_ctx, GPGPU_U32, NULL, 0, 0, NULL, 0,
                                                        NULL, 0, (cl_mem)&dummy, 0, 0, NULL,
                                                        NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const gpgpu_type t = GPGPU_F32;
    const size_t n = 70001, size = 4;
    float *x = make_input(t, n, RUNS, tu_seed_for(90, n));
    float *got = tu_alloc(n * size), *want = tu_alloc(n * size);
    uint64_t *got_len = tu_alloc(n * 8), *want_len = tu_alloc(n * 8);
    x[1] = x[0]; /* offset 1 starts in the middle of a run */
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * size, x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + 8) * size, NULL, &err);
    cl_mem lens = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + 8) * 8, NULL, &err);
    cl_mem cnt = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8 * sizeof(cl_ulong), NULL, &err);
    for (size_t off = 0; off < 4; off++) {
        size_t len = n - off - 1, want_runs = ref_runs(size, x + off, len, want, want_len);
        cl_event marker, done;
        cl_ulong count;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
        tu_assert_ok(gpgpu_unique_buffer(tu_ctx, t, in, off, len, out, off + 3, cnt, off, 1,
                                         &marker, &done));
        clEnqueueReadBuffer(q, cnt, CL_TRUE, off * sizeof count, sizeof count, &count, 1, &done,
                            NULL);
        ck_assert_uint_eq(count, want_runs);
        clEnqueueReadBuffer(q, out, CL_TRUE, (off + 3) * size, count * size, got, 0, NULL, NULL);
        ck_assert(!memcmp(got, want, count * size));
        clReleaseEvent(done);
        tu_assert_ok(gpgpu_run_length_encode_buffer(tu_ctx, t, in, off, len, out, off + 2, lens,
                                                    off + 5, cnt, off + 1, 1, &marker, &done));
        clEnqueueReadBuffer(q, cnt, CL_TRUE, (off + 1) * sizeof count, sizeof count, &count, 1,
                            &done, NULL);
        ck_assert_uint_eq(count, want_runs);
        clEnqueueReadBuffer(q, out, CL_TRUE, (off + 2) * size, count * size, got, 0, NULL, NULL);
        clEnqueueReadBuffer(q, lens, CL_TRUE, (off + 5) * 8, count * 8, got_len, 0, NULL, NULL);
        ck_assert(!memcmp(got, want, count * size));
        ck_assert(!memcmp(got_len, want_len, count * 8));
        clReleaseEvent(marker);
        clReleaseEvent(done);
    }
    ck_assert_int_eq(gpgpu_unique_buffer(tu_ctx, t, in, 0, 100, in, 50, cnt, 0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_run_length_encode_buffer(tu_ctx, t, in, 0, 100, out, 0, in, 0, cnt,
                                                    0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_run_length_encode_buffer(tu_ctx, t, in, 0, 100, out, 0, lens, n, cnt,
                                                    0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT); /* lengths past the buffer's end */
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(lens);
    clReleaseMemObject(cnt);
    free(x);
    free(got);
    free(want);
    free(got_len);
    free(want_len);
}
END_TEST

/* ---- partition ---------------------------------------------------------------- */

static int keep_positive_i32(ref_val x, uint64_t i) { (void)i; return x.i32 > 0; }
static int keep_low_bits_u32(ref_val x, uint64_t i) { (void)i; return (x.u32 & 3) == 0; }
static int keep_small_odd_f(ref_val x, uint64_t i) { return fabsl(x.f) < 500 && (i & 1); }
static int keep_all(ref_val x, uint64_t i) { (void)x; (void)i; return 1; }
static int keep_none(ref_val x, uint64_t i) { (void)x; (void)i; return 0; }
static int keep_positive_f(ref_val x, uint64_t i) { (void)i; return x.f > 0; }

typedef struct {
    gpgpu_type t;
    const char *pred;
    ref_pred ref;
} partition_case;

static const partition_case partition_cases[] = {
    {GPGPU_I32, "x > 0", keep_positive_i32},
    {GPGPU_U32, "(x & 3) == 0", keep_low_bits_u32},
    {GPGPU_F32, "fabs(x) < 500 && (i & 1)", keep_small_odd_f},
    {GPGPU_I64, "1", keep_all},
    {GPGPU_U64, "0", keep_none},
    {GPGPU_F64, "x > 0", keep_positive_f},
};
#define NPARTITIONS (sizeof partition_cases / sizeof partition_cases[0])

static void check_partition(const partition_case *c, size_t n, int in_place)
{
    size_t size = gpgpu_type_size(c->t), count = (size_t)-1;
    uint64_t seed = tu_seed_for(c->t + 50, n);
    void *in = tu_alloc(n * size);
    tu_fill(c->t, in, n, seed);
    void *copy = tu_alloc(n * size), *want = tu_alloc(n * size);
    void *out = in_place ? in : tu_alloc(n * size);
    memcpy(copy, in, n * size);
    size_t want_count = ref_partition(c->t, c->ref, copy, n, want);
    tu_assert_ok(gpgpu_partition(tu_ctx, c->t, c->pred, in, n, out, &count));
    ck_assert_msg(count == want_count, "%s n %zu: count %zu want %zu, seed %llu", c->pred, n,
                  count, want_count, (unsigned long long)seed);
    ck_assert_msg(!memcmp(out, want, n * size), "%s n %zu: wrong order, seed %llu", c->pred, n,
                  (unsigned long long)seed);
    if (!in_place) {
        ck_assert_msg(!memcmp(in, copy, n * size), "%s: input changed", c->pred);
        free(out);
    }
    free(in);
    free(copy);
    free(want);
}

TU_LOOP_TEST(partition_is_stable, NPARTITIONS)
{
    const partition_case *c = &partition_cases[_i];
    for (size_t k = 0; k < NSIZES; k++)
        check_partition(c, sizes[k], 0);
}
END_TEST

TU_TEST(partition_in_place_and_millions)
{
    check_partition(&partition_cases[0], 100003, 1);
    check_partition(&partition_cases[2], BIG, 0);
}
END_TEST

TU_TEST(partition_buffer_with_offsets)
{
    if (tu_is_host())
        return;
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const partition_case *c = &partition_cases[2]; /* f32, uses i */
    const size_t n = 70001, size = 4;
    float *x = tu_alloc(n * size), *got = tu_alloc(n * size), *want = tu_alloc(n * size);
    tu_fill(c->t, x, n, tu_seed_for(91, n));
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * size, x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + 8) * size, NULL, &err);
    cl_mem cnt = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8 * sizeof(cl_ulong), NULL, &err);
    for (size_t off = 0; off < 3; off++) {
        size_t len = n - off - 1, want_count = ref_partition(c->t, c->ref, x + off, len, want);
        cl_event marker, done;
        cl_ulong count;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
        tu_assert_ok(gpgpu_partition_buffer(tu_ctx, c->t, c->pred, in, off, len, out, off + 3,
                                            cnt, off, 1, &marker, &done));
        clEnqueueReadBuffer(q, cnt, CL_TRUE, off * sizeof count, sizeof count, &count, 1, &done,
                            NULL);
        ck_assert_uint_eq(count, want_count);
        clEnqueueReadBuffer(q, out, CL_TRUE, (off + 3) * size, len * size, got, 0, NULL, NULL);
        ck_assert(!memcmp(got, want, len * size));
        clReleaseEvent(marker);
        clReleaseEvent(done);
    }
    ck_assert_int_eq(gpgpu_partition_buffer(tu_ctx, c->t, c->pred, in, 0, 100, in, 99, cnt, 0,
                                            0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(cnt);
    free(x);
    free(got);
    free(want);
}
END_TEST

/* ---- the GPU layout on any device ------------------------------------------------ */

/* Coalesced rounds with small tiles (64 items x 8 rounds), so that a few
   thousand elements cross many tiles and the counts' scan has levels. */
TU_TEST(coalesced_layout_on_any_device)
{
    static const size_t ns[] = {1, 511, 512, 513, 3001, 20011};
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_WG=64 GPGPU_SCAN_TILE=512"))
        return;
    ck_assert(strstr(gpgpu_plan_description(tu_ctx), "layout=coalesced") != NULL);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        check_runs(GPGPU_U32, ns[k], RUNS, 0);
        check_runs(GPGPU_F64, ns[k], SPECIALS, 0);
        check_runs(GPGPU_I32, ns[k], ALL_EQUAL, 0); /* tiles without a head */
        check_partition(&partition_cases[2], ns[k], 0);
    }
}
END_TEST

/* ---- bad arguments --------------------------------------------------------------- */

TU_TEST(bad_arguments_are_invalid)
{
    uint32_t x[4] = {1, 1, 2, 3}, out[4];
    uint64_t len[4], wide[2] = {0, 0};
    size_t count = 7;
    const gpgpu_status bad = GPGPU_ERROR_INVALID_ARGUMENT;
    ck_assert_int_eq(gpgpu_unique(NULL, GPGPU_U32, x, 4, out, &count), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, (gpgpu_type)99, x, 4, out, &count), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, GPGPU_U32, NULL, 4, out, &count), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, GPGPU_U32, x, 4, NULL, &count), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, GPGPU_U32, x, 4, out, NULL), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, GPGPU_U32, x, 4, x + 1, &count), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, GPGPU_U64, (char *)wide + 4, 1, len, &count), bad);
    ck_assert_int_eq(gpgpu_unique(tu_ctx, GPGPU_U32, x, (size_t)-1 / 2, out, &count), bad);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "gpgpu_unique") != NULL);
    ck_assert_int_eq(gpgpu_run_length_encode(tu_ctx, GPGPU_U32, x, 4, out, NULL, &count), bad);
    ck_assert_int_eq(gpgpu_run_length_encode(tu_ctx, GPGPU_U32, x, 4, out, len, NULL), bad);
    ck_assert_int_eq(gpgpu_run_length_encode(tu_ctx, GPGPU_U32, x, 4, x + 1, len, &count), bad);
    ck_assert_int_eq(gpgpu_run_length_encode(tu_ctx, GPGPU_U32, x, 4, out, (uint64_t *)x,
                                             &count), bad);
    ck_assert_int_eq(gpgpu_run_length_encode(tu_ctx, GPGPU_U32, x, 4, out,
                                             (uint64_t *)((char *)len + 4), &count), bad);
    ck_assert_int_eq(gpgpu_partition(tu_ctx, GPGPU_U32, NULL, x, 4, out, &count), bad);
    ck_assert_int_eq(gpgpu_partition(tu_ctx, GPGPU_U32, "x; x", x, 4, out, &count), bad);
    ck_assert_int_eq(gpgpu_partition(tu_ctx, GPGPU_U32, "x", x, 4, x + 2, &count), bad);
    ck_assert_int_eq(gpgpu_partition(tu_ctx, GPGPU_U32, "x", x, 4, out, NULL), bad);
    ck_assert_uint_eq(count, 7);
    ck_assert_uint_eq(x[0] + x[1] + x[2] + x[3], 7);
    /* n == 0 takes NULL arrays */
    tu_assert_ok(gpgpu_unique(tu_ctx, GPGPU_U32, NULL, 0, NULL, &count));
    ck_assert_uint_eq(count, 0);
    tu_assert_ok(gpgpu_run_length_encode(tu_ctx, GPGPU_F64, NULL, 0, NULL, NULL, &count));
    ck_assert_uint_eq(count, 0);
}
END_TEST

int main(void)
{
    return tu_run("select_ops", 600, NULL);
}
