/* test_sum_exact.c - GPGPU_SUM_EXACT against the exact reference of
   ref_sum_exact.c on adversarial data (huge cancellations, subnormals,
   half-ulp ties, specials), and bit for bit across the device under test,
   the host fallback and the GPU layout forced on the same device; partial
   sums (gpgpu_exact_partial_*) of pieces cut anywhere, added and rounded,
   give the bits of the whole. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_sum_exact.h"
#include "util.h"

static const size_t sizes[] = {0, 1, 2, 3, 5, 63, 64, 65, 1023, 1024, 1025, 8191, 65537,
                               1000003};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Bits of the result as a double (floats widened exactly); NaNs compare by
   being NaN. */
static int same(double a, double b)
{
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static double run(gpgpu_context *ctx, int is_f32, const void *in, size_t n)
{
    double r = 12345;
    float rf = 12345;
    gpgpu_status s = gpgpu_reduce(ctx, is_f32 ? GPGPU_F32 : GPGPU_F64, GPGPU_SUM_EXACT, in, n,
                                  is_f32 ? (void *)&rf : (void *)&r);
    ck_assert_msg(s == GPGPU_SUCCESS, "reduce failed: %s (%s)", gpgpu_status_string(s),
                  gpgpu_last_error(ctx));
    return is_f32 ? (double)rf : r;
}

static void check(int is_f32, const void *in, size_t n, const char *what, uint64_t seed)
{
    double got = run(tu_ctx, is_f32, in, n), want = ref_sum_exact(is_f32, in, n);
    ck_assert_msg(same(got, want), "%s %s n %zu: got %a want %a [device %s, seed %llu]", what,
                  is_f32 ? "f32" : "f64", n, got, want, tu_device, (unsigned long long)seed);
}

/* Random values over a wide range of exponents, with signs, plus exact
   cancellations: x and later -x. */
static void *wide_input(int is_f32, size_t n, int span, uint64_t seed)
{
    uint64_t s = seed;
    void *in = tu_alloc(n * (is_f32 ? 4 : 8));
    for (size_t i = 0; i < n; i++) {
        double m = (double)(next(&s) >> 11) * 0x1p-53 - 0.5;
        int e = (int)(next(&s) % (unsigned)(2 * span + 1)) - span;
        double x = ldexp(m, e);
        if (i % 7 == 3 && i > 10) /* cancel an earlier element */
            x = is_f32 ? -(double)((float *)in)[i / 2] : -((double *)in)[i / 2];
        if (is_f32)
            ((float *)in)[i] = (float)x;
        else
            ((double *)in)[i] = x;
    }
    return in;
}

TU_LOOP_TEST(random_wide_ranges_are_exact, 2)
{
    int is_f32 = _i;
    for (size_t k = 0; k < NSIZES; k++) {
        uint64_t seed = tu_seed_for(800 + is_f32, sizes[k]);
        void *in = wide_input(is_f32, sizes[k], is_f32 ? 120 : 1000, seed);
        check(is_f32, in, sizes[k], "wide", seed);
        free(in);
        seed = tu_seed_for(810 + is_f32, sizes[k]);
        in = wide_input(is_f32, sizes[k], 30, seed);
        check(is_f32, in, sizes[k], "narrow", seed);
        free(in);
    }
}
END_TEST

TU_TEST(huge_cancellations)
{
    const double a[] = {1e308, 1, -1e308};
    const double b[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    const double c[] = {DBL_MAX, 0x1p970};               /* max + half an ulp: inf */
    const double d[] = {DBL_MAX, 0x1p969};               /* below the half: max */
    const double e[] = {-DBL_MAX, -DBL_MAX, 1e300};
    const double f[] = {0x1p-1074, 1e300, -1e300, 0x1p-1074};
    const float g[] = {3e38f, 3e38f, -3e38f, 1, -3e38f};
    const float h[] = {FLT_MAX, 0x1p103f};
    ck_assert(same(run(tu_ctx, 0, a, 3), 1));
    ck_assert(same(run(tu_ctx, 0, b, 3), DBL_MAX));
    ck_assert(same(run(tu_ctx, 0, c, 2), INFINITY));
    ck_assert(same(run(tu_ctx, 0, d, 2), DBL_MAX));
    ck_assert(same(run(tu_ctx, 0, e, 3), -INFINITY));
    ck_assert(same(run(tu_ctx, 0, f, 4), 0x1p-1073));
    ck_assert(same(run(tu_ctx, 1, g, 5), 1));
    ck_assert(same(run(tu_ctx, 1, h, 2), INFINITY));
    check(0, a, 3, "1e308 1 -1e308", 0);
    check(0, c, 2, "max + half ulp", 0);
    check(1, h, 2, "f32 max + half ulp", 0);
}
END_TEST

TU_TEST(subnormals)
{
    for (int is_f32 = 0; is_f32 < 2; is_f32++) {
        size_t n = 100003;
        uint64_t s = tu_seed_for(820 + is_f32, n);
        void *in = tu_alloc(n * 8);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next(&s);
            if (is_f32) {
                uint32_t w = (uint32_t)(r & 0x807fffffu); /* exponent field 0 */
                memcpy((float *)in + i, &w, 4);
            } else {
                uint64_t w = r & 0x800fffffffffffffull;
                memcpy((double *)in + i, &w, 8);
            }
        }
        check(is_f32, in, n, "subnormals", s);
        const double tiny[] = {0x1p-1074, 0x1p-1074, 0x1p-1074, -0x1p-1073};
        const float tinyf[] = {0x1p-149f, 0x1p-149f, 0x1p-149f};
        ck_assert(same(run(tu_ctx, 0, tiny, 4), 0x1p-1074));
        ck_assert(same(run(tu_ctx, 1, tinyf, 3), 0x1.8p-148));
        free(in);
    }
}
END_TEST

/* Sums that land exactly half an ulp between two values: ties go to the
   even significand; a little more goes up. */
TU_TEST(half_ulp_ties)
{
    const double up[] = {1, 0x1p-52, 0x1p-53};          /* 1 + 1.5 ulp -> 1 + 2 ulp */
    const double down[] = {1, 0x1p-53};                  /* 1 + 0.5 ulp -> 1 */
    const double more[] = {1, 0x1p-53, 0x1p-1074};       /* past the tie -> 1 + ulp */
    ck_assert(same(run(tu_ctx, 0, up, 3), 1 + 0x1p-51));
    ck_assert(same(run(tu_ctx, 0, down, 2), 1));
    ck_assert(same(run(tu_ctx, 0, more, 3), 1 + 0x1p-52));
    for (int is_f32 = 0; is_f32 < 2; is_f32++) {
        /* many ties: a random value, then its half ulp in 2^12 pieces, then
           the pieces' cancellation partners elsewhere in the array */
        size_t n = 3 * 4096 + 1;
        uint64_t s = tu_seed_for(830 + is_f32, n);
        for (int round = 0; round < 8; round++) {
            double *d = tu_alloc((n + 1) * 8);
            float *f = tu_alloc((n + 1) * 4);
            double a = ldexp((double)(next(&s) >> 11) * 0x1p-53 + 0.5, (int)(next(&s) % 40));
            if (is_f32)
                a = (float)a;
            double ulp = is_f32 ? ldexp(1, ilogb(a) - 23) : ldexp(1, ilogb(a) - 52);
            d[0] = a;
            for (size_t i = 1; i <= 4096; i++)
                d[i] = ulp / 2 / 4096;
            for (size_t i = 4097; i < n; i += 2) {
                d[i] = ldexp(1, (int)(next(&s) % 20));
                d[i + 1] = -d[i];
            }
            d[n] = round % 2 ? ulp / 8192 / 4096 : 0; /* every other round past the tie */
            for (size_t i = 0; i <= n; i++)
                f[i] = (float)d[i];
            check(is_f32, is_f32 ? (void *)f : (void *)d, n + 1, "ties", s);
            free(d);
            free(f);
        }
    }
}
END_TEST

TU_TEST(special_values)
{
    const double nan_[] = {1, NAN, 2};
    const double both[] = {INFINITY, 1, -INFINITY};
    const double pinf[] = {INFINITY, -DBL_MAX, INFINITY};
    const double ninf[] = {1, -INFINITY};
    const double negz[] = {-0.0, -0.0, -0.0};
    const double mixz[] = {-0.0, 0.0, -0.0};
    const double cancel[] = {-1, 1};
    const float negzf[] = {-0.0f};
    ck_assert(isnan(run(tu_ctx, 0, nan_, 3)));
    ck_assert(isnan(run(tu_ctx, 0, both, 3)));
    ck_assert(same(run(tu_ctx, 0, pinf, 3), INFINITY));
    ck_assert(same(run(tu_ctx, 0, ninf, 2), -INFINITY));
    ck_assert(same(run(tu_ctx, 0, negz, 3), -0.0));
    ck_assert(same(run(tu_ctx, 0, mixz, 3), 0.0));
    ck_assert(same(run(tu_ctx, 0, cancel, 2), 0.0));
    ck_assert(same(run(tu_ctx, 1, negzf, 1), -0.0));
    ck_assert(same(run(tu_ctx, 0, NULL, 0), 0.0));
    ck_assert(same(run(tu_ctx, 1, NULL, 0), 0.0));
}
END_TEST

/* The same bits from the device under test, the host fallback, the GPU
   layout (coalesced, 64-item groups, 7 groups) and a chunked plan of 3
   groups: every split of the input gives the same integer. */
TU_TEST(same_bits_on_every_device_and_plan)
{
    gpgpu_context *host = NULL;
    tu_assert_ok(gpgpu_context_create(&host, "host"));
    gpgpu_context *gpu = tu_context_with("GPGPU_CHUNKED=0 GPGPU_WG=64 GPGPU_GROUPS=7");
    gpgpu_context *few = tu_context_with("GPGPU_CHUNKED=1 GPGPU_GROUPS=3 GPGPU_WG=4");
    for (int wide = 0; wide < 4; wide++) { /* narrow data: one window for a whole group */
        const int is_f32 = wide & 1;
        for (size_t k = 0; k < NSIZES; k++) {
            uint64_t seed = tu_seed_for(840 + (uint64_t)wide, sizes[k]);
            void *in = wide_input(is_f32, sizes[k], wide < 2 ? 2 : is_f32 ? 100 : 600, seed);
            double want = ref_sum_exact(is_f32, in, sizes[k]);
            double a = run(tu_ctx, is_f32, in, sizes[k]), b = run(host, is_f32, in, sizes[k]);
            double c = run(gpu, is_f32, in, sizes[k]), d = run(few, is_f32, in, sizes[k]);
            ck_assert_msg(same(a, want) && same(b, want) && same(c, want) && same(d, want),
                          "n %zu: device %a host %a gpu layout %a 3 groups %a want %a, seed "
                          "%llu", sizes[k], a, b, c, d, want, (unsigned long long)seed);
            free(in);
        }
    }
    gpgpu_context_destroy(host);
    gpgpu_context_destroy(gpu);
    gpgpu_context_destroy(few);
}
END_TEST

/* On CPUs whole blocks of 1024 (f32) or 512 (f64) elements go through the
   window with no per-element test (f32 in double lanes) when their values
   span few enough bits (sum_exact.cl's sx_block), and the window is emptied
   into the limbs every 2^12 (f32) or 2^10 (f64) steps of 16 or 8 elements.
   One work item (GPGPU_WG=1, GPGPU_GROUPS=1) sees every block and more than
   one emptying: spans around the limits of those paths, ties, subnormals
   and specials inside blocks. */
TU_TEST(vector_blocks_are_exact)
{
    static const int spans[] = {0, 8, 20, 40, 50, 60, 70, 80, 90, 110, 200};
    if (!tu_force("GPGPU_WG=1 GPGPU_GROUPS=1"))
        return;
    const size_t n = 5 * 16384 + 17;
    for (int is_f32 = 0; is_f32 < 2; is_f32++) {
        for (size_t k = 0; k < sizeof spans / sizeof *spans; k++) {
            uint64_t seed = tu_seed_for(860 + is_f32, (uint64_t)spans[k]);
            void *in = wide_input(is_f32, n, spans[k] / 2, seed);
            check(is_f32, in, n, "blocks", seed);
            if (is_f32) /* a subnormal, a -0.0 and an infinity in the blocks */
                ((float *)in)[5000] = 0x1p-140f;
            else
                ((double *)in)[5000] = 0x1p-1070;
            check(is_f32, in, n, "blocks with a subnormal", seed);
            if (is_f32)
                ((float *)in)[9000] = INFINITY;
            else
                ((double *)in)[9000] = -INFINITY;
            check(is_f32, in, n, "blocks with an infinity", seed);
            free(in);
        }
        double *d = tu_alloc(n * 8);
        float *f = tu_alloc(n * 4);
        for (size_t i = 0; i < n; i++) {  /* 1, then half an ulp of 1 in 2^13 pieces */
            d[i] = i == 0 ? 1 : i <= 8192 ? 0x1p-66 : 0;
            f[i] = i == 0 ? 1 : i <= 8192 ? 0x1p-37f : 0;
        }
        check(is_f32, is_f32 ? (void *)f : (void *)d, n, "blocks of ties", 0);
        for (size_t i = 0; i < n; i++) { /* -0.0 everywhere */
            d[i] = -0.0;
            f[i] = -0.0f;
        }
        check(is_f32, is_f32 ? (void *)f : (void *)d, n, "blocks of -0.0", 0);
        free(d);
        free(f);
    }
    tu_restore_ctx();
}
END_TEST

/* On every device (the host fallback too): the host's bins, by lanes and
   (f64) blocks of 1024 whose exponent range is read first, around their
   edges: lengths that leave a lane or a block part-full, data of few
   exponents (floats in [0, 1), the usual case) and of exponents that grow
   from block to block, zeros alone with a +0.0 deep inside, and NaN or
   infinities in a late block. */
TU_TEST(bins_lanes_blocks_and_flags)
{
    static const size_t ns[] = {4, 7, 1023, 1025, 2049, 3 * 1024 + 3, 65536 + 5};
    for (int is_f32 = 0; is_f32 < 2; is_f32++) {
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            const size_t n = ns[k];
            uint64_t seed = tu_seed_for(870 + is_f32, n);
            uint64_t s = seed;
            double *d = tu_alloc(n * 8);
            float *f = tu_alloc(n * 4);
            void *in = is_f32 ? (void *)f : (void *)d;
            for (size_t i = 0; i < n; i++) { /* [0, 1), a few negatives */
                double u = (double)(next(&s) >> 11) * 0x1p-53;
                if (i % 13 == 5)
                    u = -u;
                d[i] = u;
                f[i] = (float)u;
            }
            check(is_f32, in, n, "[0, 1)", seed);
            for (size_t i = 0; i < n; i++) { /* exponents growing by block */
                double u = ldexp((double)(next(&s) >> 11) * 0x1p-53 + 1, (int)(i / 512) - 40);
                d[i] = i % 3 ? u : -u;
                f[i] = (float)d[i];
            }
            check(is_f32, in, n, "growing exponents", seed);
            for (size_t i = 0; i < n; i++) {
                d[i] = -0.0;
                f[i] = -0.0f;
            }
            ck_assert(same(run(tu_ctx, is_f32, in, n), -0.0));
            d[n - 2] = 0.0;
            f[n - 2] = 0.0f;
            ck_assert(same(run(tu_ctx, is_f32, in, n), 0.0));
            d[n - 3] = 0x1p-1074; /* a subnormal among the zeros */
            f[n - 3] = 0x1p-149f;
            check(is_f32, in, n, "zeros and a subnormal", seed);
            d[n - 1] = -INFINITY;
            f[n - 1] = -INFINITY;
            ck_assert(same(run(tu_ctx, is_f32, in, n), -INFINITY));
            d[0] = INFINITY;
            f[0] = INFINITY;
            ck_assert(isnan(run(tu_ctx, is_f32, in, n)));
            d[0] = d[n - 1] = 1;
            f[0] = f[n - 1] = 1;
            d[n / 2 + 1] = NAN;
            f[n / 2 + 1] = NAN;
            ck_assert(isnan(run(tu_ctx, is_f32, in, n)));
            for (size_t i = 0; i < n; i++) { /* huge values of few exponents */
                double u = (double)(next(&s) >> 11) * 0x1p-53 + 1;
                d[i] = ldexp(i % 5 ? u : -u, 900 + (int)(i % 50));
                f[i] = ldexpf((float)(i % 5 ? u : -u), 100 + (int)(i % 20));
            }
            check(is_f32, in, n, "huge", seed);
            d[n / 2] = INFINITY; /* with an infinity among them */
            f[n / 2] = INFINITY;
            ck_assert(same(run(tu_ctx, is_f32, in, n), INFINITY));
            d[n - 1] = -INFINITY;
            f[n - 1] = -INFINITY;
            ck_assert(isnan(run(tu_ctx, is_f32, in, n)));
            free(d);
            free(f);
        }
    }
}
END_TEST

/* transform_reduce: the exact sum of the mapped values as converted to t
   (on the fallback too); the buffer form at an offset; integers:
   GPGPU_SUM; scan: refused. */
TU_TEST(maps_buffers_integers_and_scan)
{
    size_t n = 50001;
    uint64_t seed = tu_seed_for(850, n);
    double *x = wide_input(0, n, 200, seed), *sq = tu_alloc(n * 8), r;
    for (size_t i = 0; i < n; i++)
        sq[i] = x[i] * x[i];
    uint32_t u[] = {0xffffffffu, 2, 7}, ur;
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM_EXACT, u, 3, &ur));
    ck_assert_uint_eq(ur, 8);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_F64, GPGPU_SUM_EXACT, GPGPU_INCLUSIVE, x, sq, 3),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    /* the fallback maps on the host, then sums exactly */
    tu_assert_ok(gpgpu_transform_reduce(tu_ctx, GPGPU_F64, "x * x", GPGPU_SUM_EXACT, x, n, &r));
    ck_assert(same(r, ref_sum_exact(0, sq, n)));
    if (!tu_is_host()) {
        cl_command_queue q = gpgpu_queue(tu_ctx);
        cl_context cl = tu_cl_context();
        cl_int err;
        cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, x, &err);
        cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, 4 * 8, NULL, &err);
        cl_event done;
        tu_assert_ok(gpgpu_reduce_buffer(tu_ctx, GPGPU_F64, GPGPU_SUM_EXACT, in, 3, n - 5, out,
                                         2, 0, NULL, &done));
        clEnqueueReadBuffer(q, out, CL_TRUE, 16, 8, &r, 1, &done, NULL);
        ck_assert(same(r, ref_sum_exact(0, x + 3, n - 5)));
        clReleaseEvent(done);
        clReleaseMemObject(in);
        clReleaseMemObject(out);
    }
    free(x);
    free(sq);
}
END_TEST

/* ---- partial sums: gpgpu_exact_partial_init, _sum, _add, _round ------------- */

static gpgpu_type type_of(int is_f32)
{
    return is_f32 ? GPGPU_F32 : GPGPU_F64;
}

/* The bits of one element (f32 widened to 64 bits), for exact comparisons. */
static uint64_t bits_of(int is_f32, const void *x)
{
    uint64_t b = 0;
    if (is_f32) {
        uint32_t w;
        memcpy(&w, x, 4);
        b = w;
    } else {
        memcpy(&b, x, 8);
    }
    return b;
}

static double value_of(int is_f32, uint64_t b)
{
    if (is_f32) {
        uint32_t w = (uint32_t)b;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* The contexts that sum the pieces: the one under test, then the host
   fallback and, on a device, the GPU layout (one row per group, rows that
   are not in canonical form: the host adds them). Made once per run. */
static gpgpu_context *piece_ctx[3];
static int npiece_ctx;

static void piece_contexts(void)
{
    piece_ctx[0] = tu_ctx;
    npiece_ctx = 1;
    if (tu_is_host())
        return;
    gpgpu_context *host = NULL;
    tu_assert_ok(gpgpu_context_create(&host, "host"));
    piece_ctx[npiece_ctx++] = host;
    piece_ctx[npiece_ctx++] = tu_context_with("GPGPU_CHUNKED=0 GPGPU_WG=64 GPGPU_GROUPS=7");
}

static void piece_contexts_free(void)
{
    for (int i = 1; i < npiece_ctx; i++)
        gpgpu_context_destroy(piece_ctx[i]);
    npiece_ctx = 0;
}

/* in[0 .. n) cut at cut[1 .. k-1] (cut[0] = 0, cut[k] = n, non-decreasing:
   equal cuts make empty pieces). Each piece's partial comes from one of
   the piece contexts in turn; the partials are added in order from an
   empty sum, in a shuffled order from one of them, and pairwise as a tree:
   the same partial each way, whose rounding must be bit for bit
   gpgpu_reduce's GPGPU_SUM_EXACT of the whole on the context under test
   (and the exact reference). */
static void check_cuts(int is_f32, const void *in, size_t n, const size_t *cut, size_t k,
                       uint64_t seed, const char *what)
{
    const gpgpu_type t = type_of(is_f32);
    const size_t size = is_f32 ? 4 : 8;
    gpgpu_exact_partial *part = tu_alloc(k * sizeof *part), *tree = tu_alloc(k * sizeof *tree);
    size_t *perm = tu_alloc(k * sizeof *perm);
    for (size_t i = 0; i < k; i++) {
        gpgpu_context *ctx = piece_ctx[(i + seed) % (uint64_t)npiece_ctx];
        const void *piece = n ? (const char *)in + cut[i] * size : NULL;
        gpgpu_status st = gpgpu_exact_partial_sum(ctx, t, piece, cut[i + 1] - cut[i], &part[i]);
        ck_assert_msg(st == GPGPU_SUCCESS, "%s: partial sum of piece %zu failed: %s (%s)", what,
                      i, gpgpu_status_string(st), gpgpu_last_error(ctx));
    }
    gpgpu_exact_partial acc, shuffled;
    tu_assert_ok(gpgpu_exact_partial_init(&acc, t));
    for (size_t i = 0; i < k; i++)
        tu_assert_ok(gpgpu_exact_partial_add(&acc, &part[i]));
    uint64_t s = seed;
    for (size_t i = 0; i < k; i++) {
        size_t j = (size_t)(next(&s) % (i + 1));
        perm[i] = perm[j];
        perm[j] = i;
    }
    shuffled = part[perm[0]];
    for (size_t i = 1; i < k; i++)
        tu_assert_ok(gpgpu_exact_partial_add(&shuffled, &part[perm[i]]));
    memcpy(tree, part, k * sizeof *tree);
    for (size_t w = 1; w < k; w *= 2)
        for (size_t i = 0; i + w < k; i += 2 * w)
            tu_assert_ok(gpgpu_exact_partial_add(&tree[i], &tree[i + w]));
    ck_assert_msg(memcmp(&acc, &shuffled, sizeof acc) == 0 && memcmp(&acc, tree, sizeof acc) == 0,
                  "%s %s n %zu, %zu pieces: the partials' sum depends on the order [seed %llu]",
                  what, is_f32 ? "f32" : "f64", n, k, (unsigned long long)seed);
    unsigned char got[8] = {0}, whole[8] = {0};
    tu_assert_ok(gpgpu_exact_partial_round(&acc, got));
    tu_assert_ok(gpgpu_reduce(tu_ctx, t, GPGPU_SUM_EXACT, in, n, whole));
    const uint64_t g = bits_of(is_f32, got), w = bits_of(is_f32, whole);
    const double want = ref_sum_exact(is_f32, in, n);
    ck_assert_msg(g == w && same(value_of(is_f32, g), want),
                  "%s %s n %zu, %zu pieces (first cut %zu): partials give %a (%#llx), the whole "
                  "%a (%#llx), want %a [device %s, seed %llu]",
                  what, is_f32 ? "f32" : "f64", n, k, k > 1 ? cut[1] : n, value_of(is_f32, g),
                  (unsigned long long)g, value_of(is_f32, w), (unsigned long long)w, want,
                  tu_device, (unsigned long long)seed);
    free(part);
    free(tree);
    free(perm);
}

/* k pieces at random cuts (repeats allowed: empty pieces). */
static void check_random_cuts(int is_f32, const void *in, size_t n, size_t k, uint64_t seed,
                              const char *what)
{
    size_t *cut = tu_alloc((k + 1) * sizeof *cut);
    uint64_t s = seed;
    cut[0] = 0;
    cut[k] = n;
    for (size_t i = 1; i < k; i++) {
        size_t c = (size_t)(next(&s) % (n + 1)), j = i;
        for (; j > 1 && cut[j - 1] > c; j--) /* insertion: cut stays sorted */
            cut[j] = cut[j - 1];
        cut[j] = c;
    }
    check_cuts(is_f32, in, n, cut, k, seed, what);
    free(cut);
}

/* Every cut of a short array into three pieces (each possibly empty). */
static void check_all_cuts(int is_f32, const void *in, size_t n, const char *what)
{
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            const size_t cut[] = {0, a, b, n};
            check_cuts(is_f32, in, n, cut, 3, a * 31 + b, what);
        }
    check_random_cuts(is_f32, in, n, 1, 0, what);
}

TU_TEST(partials_of_short_adversarial_arrays)
{
    static const double d[][5] = {
        {1e308, 1, -1e308},     {DBL_MAX, DBL_MAX, -DBL_MAX}, {DBL_MAX, 0x1p970},
        {DBL_MAX, 0x1p969},     {-DBL_MAX, -DBL_MAX, 1e300},  {0x1p-1074, 1e300, -1e300, 0x1p-1074},
        {1, 0x1p-52, 0x1p-53},  {1, 0x1p-53},                 {1, 0x1p-53, 0x1p-1074},
        {1, 0x1p-54, 0x1p-54, 0x1p-1074, -0x1p-1074},          {0x1p-1074, 0x1p-1074, 0x1p-1074, -0x1p-1073},
        {1, NAN, 2},            {INFINITY, 1, -INFINITY},     {INFINITY, -DBL_MAX, INFINITY},
        {1, -INFINITY},         {-0.0, -0.0, -0.0},           {-0.0, 0.0, -0.0},
        {-1, 1},                {-0.0},                       {NAN, -INFINITY, 0x1p-1074, -0.0},
        {-DBL_MAX, -0x1p970, 0x1p-1074}};
    static const size_t dn[] = {3, 3, 2, 2, 3, 4, 3, 2, 3, 5, 4, 3, 3, 3, 2, 3, 3, 2, 1, 4, 3};
    static const float f[][5] = {
        {3e38f, 3e38f, -3e38f, 1, -3e38f}, {FLT_MAX, 0x1p103f},  {FLT_MAX, 0x1p102f},
        {1, 0x1p-23f, 0x1p-24f},           {1, 0x1p-24f},        {1, 0x1p-24f, 0x1p-149f},
        {0x1p-149f, 0x1p-149f, 0x1p-149f}, {3e38f, 1, -3e38f},   {INFINITY, 1, -INFINITY},
        {1, NAN},                          {-0.0f, -0.0f},       {-0.0f, 0.0f},
        {-INFINITY, -FLT_MAX},             {-FLT_MAX, -0x1p103f, 0x1p-149f}};
    static const size_t fn[] = {5, 2, 2, 3, 2, 3, 3, 3, 3, 2, 2, 2, 2, 3};
    ck_assert_uint_eq(sizeof d / sizeof d[0], sizeof dn / sizeof dn[0]);
    ck_assert_uint_eq(sizeof f / sizeof f[0], sizeof fn / sizeof fn[0]);
    piece_contexts();
    for (size_t i = 0; i < sizeof dn / sizeof dn[0]; i++)
        check_all_cuts(0, d[i], dn[i], "short");
    for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++)
        check_all_cuts(1, f[i], fn[i], "short");
    for (int is_f32 = 0; is_f32 < 2; is_f32++) /* every piece empty: +0.0 */
        check_all_cuts(is_f32, NULL, 0, "empty");
    piece_contexts_free();
}
END_TEST

TU_TEST(partials_of_long_adversarial_arrays)
{
    static const size_t pieces[] = {1, 2, 3, 5, 17};
    static const size_t lens[] = {1000, 65537, 1000003};
    piece_contexts();
    for (int is_f32 = 0; is_f32 < 2; is_f32++) {
        const size_t size = is_f32 ? 4 : 8;
        for (size_t z = 0; z < sizeof lens / sizeof lens[0]; z++) {
            const size_t n = lens[z];
            for (int kind = 0; kind < 5; kind++) {
                uint64_t seed = tu_seed_for(870 + (uint64_t)(10 * is_f32 + kind), n), s = seed;
                void *in;
                if (kind < 2) { /* wide ranges with cancellations; narrow ranges */
                    in = wide_input(is_f32, n, kind == 0 ? (is_f32 ? 120 : 1000) : 30, seed);
                } else if (kind == 2) { /* subnormals of both signs */
                    in = tu_alloc(n * size);
                    for (size_t i = 0; i < n; i++) {
                        uint64_t r = next(&s);
                        uint32_t w = (uint32_t)(r & 0x807fffffu);
                        uint64_t v = r & 0x800fffffffffffffull;
                        memcpy((char *)in + i * size, is_f32 ? (void *)&w : (void *)&v, size);
                    }
                } else { /* a value, its half ulp in pieces, cancelling pairs (kind 4:
                            and a little more, past the tie) */
                    double *x = tu_alloc(n * 8);
                    double a = ldexp((double)(next(&s) >> 11) * 0x1p-53 + 0.5,
                                     (int)(next(&s) % 40));
                    if (is_f32)
                        a = (float)a;
                    double ulp = ldexp(1, ilogb(a) - (is_f32 ? 23 : 52));
                    size_t q = 1;
                    while (2 * q <= (n - 1) / 2)
                        q *= 2;
                    x[0] = a;
                    for (size_t i = 1; i <= q; i++)
                        x[i] = ulp / 2 / (double)q;
                    for (size_t i = q + 1; i < n; i += 2) {
                        x[i] = ldexp(1, (int)(next(&s) % 20));
                        if (i + 1 < n)
                            x[i + 1] = -x[i];
                        else
                            x[i] = 0;
                    }
                    if (kind == 4)
                        x[n - 1] = is_f32 ? 0x1p-149 : 0x1p-1074;
                    in = tu_alloc(n * size);
                    for (size_t i = 0; i < n; i++) {
                        if (is_f32)
                            ((float *)in)[i] = (float)x[i];
                        else
                            ((double *)in)[i] = x[i];
                    }
                    free(x);
                }
                for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
                    if (n > 100000 && pieces[p] > 5)
                        continue;
                    check_random_cuts(is_f32, in, n, pieces[p], seed + p, "long");
                }
                if (kind == 1) { /* specials among them: NaN; then +inf and -inf far apart */
                    if (is_f32) {
                        ((float *)in)[n / 3] = INFINITY;
                        check_random_cuts(1, in, n, 3, seed, "long with +inf");
                        ((float *)in)[n - 2] = -INFINITY;
                        check_random_cuts(1, in, n, 4, seed, "long with +inf and -inf");
                        ((float *)in)[n / 2] = NAN;
                    } else {
                        ((double *)in)[n / 3] = -INFINITY;
                        check_random_cuts(0, in, n, 3, seed, "long with -inf");
                        ((double *)in)[n - 2] = INFINITY;
                        check_random_cuts(0, in, n, 4, seed, "long with -inf and +inf");
                        ((double *)in)[n / 2] = NAN;
                    }
                    check_random_cuts(is_f32, in, n, 5, seed, "long with a NaN");
                }
                free(in);
            }
        }
    }
    piece_contexts_free();
}
END_TEST

/* -0.0 only where every element is -0.0, over pieces; the empty sum, an
   empty piece and a partial added to itself. */
TU_TEST(partials_zeros_and_doubling)
{
    gpgpu_exact_partial a, b, c;
    const double negz[] = {-0.0, -0.0}, posz[] = {0.0}, x[] = {1.5, 0x1p-1074};
    double r = 7;
    tu_assert_ok(gpgpu_exact_partial_init(&a, GPGPU_F64));
    tu_assert_ok(gpgpu_exact_partial_round(&a, &r));
    ck_assert(same(r, 0.0));
    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, negz, 2, &b));
    tu_assert_ok(gpgpu_exact_partial_add(&a, &b));
    tu_assert_ok(gpgpu_exact_partial_round(&a, &r));
    ck_assert(same(r, -0.0));
    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, NULL, 0, &c));
    tu_assert_ok(gpgpu_exact_partial_add(&a, &c));
    tu_assert_ok(gpgpu_exact_partial_round(&a, &r));
    ck_assert(same(r, -0.0));
    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, posz, 1, &c));
    tu_assert_ok(gpgpu_exact_partial_add(&a, &c));
    tu_assert_ok(gpgpu_exact_partial_round(&a, &r));
    ck_assert(same(r, 0.0));
    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, x, 2, &a));
    tu_assert_ok(gpgpu_exact_partial_add(&a, &a));
    tu_assert_ok(gpgpu_exact_partial_round(&a, &r));
    ck_assert(same(r, 3));              /* 3 + 2^-1073: rounds to 3 */
    const float big[] = {FLT_MAX};
    float rf = 0;
    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F32, big, 1, &a));
    tu_assert_ok(gpgpu_exact_partial_add(&a, &a));
    tu_assert_ok(gpgpu_exact_partial_round(&a, &rf));
    ck_assert(same(rf, INFINITY));      /* 2 FLT_MAX overflows */
}
END_TEST

TU_TEST(partials_refuse_bad_arguments)
{
    static const gpgpu_type ints[] = {GPGPU_I32, GPGPU_U32, GPGPU_I64, GPGPU_U64};
    double x[4] = {1, 2, 3, 4}, r = 5;
    gpgpu_exact_partial p, q, keep, f32;
    const gpgpu_status bad = GPGPU_ERROR_INVALID_ARGUMENT;
    memset(&p, 0xab, sizeof p);
    keep = p;
    ck_assert_int_eq(gpgpu_exact_partial_init(NULL, GPGPU_F64), bad);
    ck_assert_int_eq(gpgpu_exact_partial_init(&p, (gpgpu_type)99), bad);
    ck_assert_int_eq(gpgpu_exact_partial_sum(NULL, GPGPU_F64, x, 4, &p), bad);
    ck_assert(gpgpu_last_error(NULL)[0] != '\0');
    ck_assert_int_eq(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, NULL, 4, &p), bad);
    ck_assert_int_eq(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, x, 4, NULL), bad);
    ck_assert_int_eq(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, (char *)x + 4, 2, &p), bad);
    ck_assert_int_eq(gpgpu_exact_partial_sum(tu_ctx, (gpgpu_type)99, x, 4, &p), bad);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        ck_assert_int_eq(gpgpu_exact_partial_init(&p, ints[i]), bad);
        ck_assert_int_eq(gpgpu_exact_partial_sum(tu_ctx, ints[i], x, 4, &p), bad);
        ck_assert(strstr(gpgpu_last_error(tu_ctx), "gpgpu_exact_partial_sum") != NULL);
    }
    ck_assert(memcmp(&p, &keep, sizeof p) == 0); /* untouched by the failures */

    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F64, x, 4, &p));
    tu_assert_ok(gpgpu_exact_partial_sum(tu_ctx, GPGPU_F32, NULL, 0, &f32));
    keep = p;
    ck_assert_int_eq(gpgpu_exact_partial_add(NULL, &p), bad);
    ck_assert_int_eq(gpgpu_exact_partial_add(&p, NULL), bad);
    ck_assert_int_eq(gpgpu_exact_partial_add(&p, &f32), bad);   /* another type */
    ck_assert(gpgpu_last_error(NULL)[0] != '\0');
    ck_assert_int_eq(gpgpu_exact_partial_add(&f32, &p), bad);
    ck_assert(memcmp(&p, &keep, sizeof p) == 0);
    ck_assert_int_eq(gpgpu_exact_partial_round(NULL, &r), bad);
    ck_assert_int_eq(gpgpu_exact_partial_round(&p, NULL), bad);
    /* fields no function writes: an integer type, unknown flags, limbs out
       of canonical form or past the type's */
    for (int how = 0; how < 6; how++) {
        q = p;
        switch (how) {
        case 0: q.type = GPGPU_U32; break;
        case 1: q.type = 99; break;
        case 2: q.flags |= 1u << 10; break;
        case 3: q.limb[3] = -1; break;
        case 4: q.limb[5] = (int64_t)1 << 33; break;
        case 5: q.limb[67] = (int64_t)1 << 62; break;
        }
        gpgpu_exact_partial q2 = q;
        ck_assert_int_eq(gpgpu_exact_partial_add(&p, &q), bad);
        ck_assert_int_eq(gpgpu_exact_partial_add(&q2, &p), bad);
        ck_assert_int_eq(gpgpu_exact_partial_round(&q, &r), bad);
    }
    q = f32;
    q.limb[20] = 1; /* past an f32 sum's 12 limbs */
    ck_assert_int_eq(gpgpu_exact_partial_round(&q, &r), bad);
    ck_assert(memcmp(&p, &keep, sizeof p) == 0);
    ck_assert(same(r, 5));
    tu_assert_ok(gpgpu_exact_partial_round(&p, &r));
    ck_assert(same(r, 10));
}
END_TEST

int main(void)
{
    return tu_run("sum_exact", 600, NULL);
}
