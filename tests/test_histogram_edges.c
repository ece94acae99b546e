/* test_histogram_edges.c - gpgpu_histogram_edges (host and buffer forms)
   against a plain-C reference that compares every sample with the edges in
   long double, which holds every 64-bit integer and every double exactly:
   the comparisons are those of the real numbers. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "util.h"

_Static_assert(LDBL_MANT_DIG >= 64, "the reference needs a 64-bit long double mantissa");

static const size_t sizes[] = {0, 1, 2, 7, 31, 4095, 4096, 4097, 16383, 16384, 16385,
                               65537, 1000003};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static const gpgpu_type types[] = {GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                   GPGPU_I64, GPGPU_U64, GPGPU_F64};
#define NTYPES (sizeof types / sizeof types[0])

/* ---- the reference ------------------------------------------------------------ */

/* Element i of in as a real number; 0 with *nan set for a NaN. */
static long double real_at(gpgpu_type t, const void *in, size_t i, int *nan)
{
    long double v = 0;
    switch (t) {
    case GPGPU_I32: v = ((const int32_t *)in)[i]; break;
    case GPGPU_U32: v = ((const uint32_t *)in)[i]; break;
    case GPGPU_F32: v = ((const float *)in)[i]; break;
    case GPGPU_I64: v = ((const int64_t *)in)[i]; break;
    case GPGPU_U64: v = ((const uint64_t *)in)[i]; break;
    case GPGPU_F64: v = ((const double *)in)[i]; break;
    }
    *nan = isnan(v);
    return v;
}

static void ref_edges(gpgpu_type t, const void *in, size_t n, const double *edges,
                      size_t nbins, uint64_t *bins)
{
    memset(bins, 0, nbins * sizeof *bins);
    for (size_t i = 0; i < n; i++) {
        int nan;
        long double x = real_at(t, in, i, &nan);
        if (nan || x < (long double)edges[0] || x > (long double)edges[nbins])
            continue;
        size_t lo = 0, hi = nbins; /* the last edge <= x among edges[0 .. nbins) */
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if ((long double)edges[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
        bins[lo]++;
    }
}

/* ---- inputs --------------------------------------------------------------------- */

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* nbins + 1 uneven edges from lo to hi: gaps of random widths. */
static double *uneven_edges(size_t nbins, double lo, double hi, uint64_t seed)
{
    double *e = tu_alloc((nbins + 1) * sizeof *e), *w = tu_alloc(nbins * sizeof *w), sum = 0;
    uint64_t s = seed;
    for (size_t i = 0; i < nbins; i++)
        sum += w[i] = 1 + (double)(next(&s) % 1000);
    double at = 0;
    e[0] = lo;
    for (size_t i = 1; i < nbins; i++) {
        at += w[i - 1];
        e[i] = lo + (hi - lo) * (at / sum);
    }
    e[nbins] = hi;
    free(w);
    return e;
}

/* A typical range of t's random samples (util.c: integers over their whole
   range, floats in [-1000, 1000)), a bit narrower so that some fall out. */
static void sample_range(gpgpu_type t, double *lo, double *hi)
{
    switch (t) {
    case GPGPU_I32: *lo = -2e9 - 0.5; *hi = 1.5e9 + 0.25; break;
    case GPGPU_U32: *lo = 1e8 + 0.5; *hi = 4e9; break;
    case GPGPU_I64: *lo = -8e18; *hi = 9e18 + 1024; break;
    case GPGPU_U64: *lo = 1e17 + 0.5; *hi = 1.7e19; break;
    default: *lo = -900.3; *hi = 800.7; break;
    }
}

static void check(gpgpu_type t, const void *in, size_t n, const double *edges, size_t nbins,
                  const char *what)
{
    uint64_t *got = tu_alloc(nbins * sizeof *got), *want = tu_alloc(nbins * sizeof *want);
    size_t size = gpgpu_type_size(t);
    void *copy = tu_alloc(n * size);
    memcpy(copy, in, n * size);
    memset(got, 0xab, nbins * sizeof *got);
    tu_assert_ok(gpgpu_histogram_edges(tu_ctx, t, in, n, edges, nbins, got));
    ref_edges(t, in, n, edges, nbins, want);
    for (size_t b = 0; b < nbins; b++)
        ck_assert_msg(got[b] == want[b], "%s: type %d n %zu nbins %zu: bin %zu has %llu, want "
                      "%llu [device %s, seed %llu]", what, t, n, nbins, b,
                      (unsigned long long)got[b], (unsigned long long)want[b], tu_device,
                      (unsigned long long)tu_seed());
    ck_assert_msg(!memcmp(in, copy, n * size), "%s: input changed", what);
    free(got);
    free(want);
    free(copy);
}

/* ---- tests ------------------------------------------------------------------------ */

TU_LOOP_TEST(uneven_edges_match_reference, NTYPES)
{
    gpgpu_type t = types[_i];
    double lo, hi;
    sample_range(t, &lo, &hi);
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        void *in = tu_alloc(n * gpgpu_type_size(t));
        tu_fill(t, in, n, tu_seed_for(700 + t, n));
        for (size_t nbins = 1; nbins <= 256; nbins *= 16) {
            double *e = uneven_edges(nbins, lo, hi, tu_seed_for(710 + t, nbins));
            check(t, in, n, e, nbins, "uneven");
            free(e);
        }
        free(in);
    }
}
END_TEST

/* Samples on, just below and just above integer and non-integer edges. */
TU_LOOP_TEST(samples_on_edges, NTYPES)
{
    static const double ints[] = {-7, -3, 0, 1, 2, 10, 11, 40};
    static const double fracs[] = {-2.5, -0.1, 0.1, 0.2, 0.3, 7.75, 1e6 + 0.5};
    gpgpu_type t = types[_i];
    size_t size = gpgpu_type_size(t), n = 0;
    unsigned char *in = tu_alloc(300 * size);
    for (int v = -12; v <= 45; v++) {
        double d = v, f[3] = {0.1, 0.2, 0.3};
        if (t == GPGPU_U32 || t == GPGPU_U64)
            d = fabs(d);
        switch (t) {
        case GPGPU_I32: ((int32_t *)in)[n++] = (int32_t)d; break;
        case GPGPU_U32: ((uint32_t *)in)[n++] = (uint32_t)d; break;
        case GPGPU_I64: ((int64_t *)in)[n++] = (int64_t)d; break;
        case GPGPU_U64: ((uint64_t *)in)[n++] = (uint64_t)d; break;
        case GPGPU_F32:
            ((float *)in)[n++] = (float)d;
            ((float *)in)[n++] = (float)(d + 0.5);
            ((float *)in)[n++] = (float)f[(v + 12) % 3] + (float)d;
            ((float *)in)[n++] = nextafterf((float)f[(v + 12) % 3], -INFINITY);
            break;
        case GPGPU_F64:
            ((double *)in)[n++] = d;
            ((double *)in)[n++] = d + 0.5;
            ((double *)in)[n++] = f[(v + 12) % 3];
            ((double *)in)[n++] = nextafter(f[(v + 12) % 3], INFINITY) + d;
            break;
        }
    }
    check(t, in, n, ints, 7, "integer edges");
    check(t, in, n, fracs, 6, "non-integer edges");
    check(t, in, n, ints + 2, 1, "one bin");
    check(t, in, n, fracs + 2, 1, "one bin between floats");
    free(in);
}
END_TEST

/* 64-bit integers that double would round onto, or across, an edge. */
TU_TEST(wide_integers_are_not_rounded)
{
    const double e60[] = {0, 0x1p60 + 256, 0x1p61};
    const int64_t i[] = {((int64_t)1 << 60) + 255, ((int64_t)1 << 60) + 256,
                         ((int64_t)1 << 60) + 257, (int64_t)1 << 61, ((int64_t)1 << 61) + 1,
                         INT64_MAX, INT64_MIN, -1, 0};
    check(GPGPU_I64, i, sizeof i / sizeof *i, e60, 2, "i64 near 2^60");
    const double top[] = {0, 1e19, 0x1p64};
    const uint64_t u[] = {UINT64_MAX, UINT64_MAX - 1, 10000000000000000000ull,
                          9999999999999999999ull, 0, 1};
    check(GPGPU_U64, u, sizeof u / sizeof *u, top, 2, "u64 up to 2^64");
    const double low[] = {-0x1p63 - 4096, -0x1p63 + 1024, 0.5};
    const int64_t m[] = {INT64_MIN, INT64_MIN + 1023, INT64_MIN + 1024, INT64_MIN + 1025, 0, 1};
    check(GPGPU_I64, m, sizeof m / sizeof *m, low, 2, "i64 near -2^63");
}
END_TEST

/* Edges partly or wholly outside the type's range. */
TU_TEST(edges_beyond_the_type)
{
    const double e[] = {-1e300, -5.5, 3.25, 1e10, 1e300};
    const double above[] = {5e9, 6e9};
    const double below[] = {-1e20, -1e19};
    uint32_t u[] = {0, 3, 4, 4000000000u, UINT32_MAX};
    int32_t i[] = {INT32_MIN, -6, -5, 3, 4, INT32_MAX};
    float f[] = {-FLT_MAX, -INFINITY, INFINITY, FLT_MAX, 0, -0.0f, NAN, 3.25f};
    double d[] = {-DBL_MAX, -INFINITY, INFINITY, DBL_MAX, 0, -0.0, NAN, 3.25, -1e300};
    check(GPGPU_U32, u, 5, e, 4, "u32, wide edges");
    check(GPGPU_I32, i, 6, e, 4, "i32, wide edges");
    check(GPGPU_F32, f, 8, e, 4, "f32, wide edges and specials");
    check(GPGPU_F64, d, 9, e, 4, "f64, wide edges and specials");
    check(GPGPU_U32, u, 5, above, 1, "u32 under every edge");
    check(GPGPU_I64, i, 0, below, 1, "empty");
    int64_t w[] = {INT64_MIN, 0};
    check(GPGPU_I64, w, 2, below, 1, "i64 over every edge");
}
END_TEST

/* ---- the lookup table of the CPU paths (histogram_edges.c) ------------------ */

/* A sample's cell comes from (x - lo) * scale + 1 rounded in float (double
   for f64) and the count from the cuts of its cell: these put samples on
   and beside every edge and every cell boundary, in cells holding many
   cuts, one or none, below and above the range, in parts for several
   threads (n past 2^17), and specials. */

/* n samples of t: every kth a NaN or an infinity (floats), the rest
   spread over [lo, hi] and nudged onto or next to the edges. */
static void *edge_samples(gpgpu_type t, size_t n, const double *e, size_t nbins, double lo,
                          double hi, uint64_t seed)
{
    void *in = tu_alloc(n * gpgpu_type_size(t) + 8);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next(&s);
        double u = (double)(r >> 11) * 0x1p-53, v = lo + (hi - lo) * u;
        int on = (int)(r % 4);
        if (on) { /* on an edge, or one step of the type either side */
            v = e[(r >> 8) % (nbins + 1)];
        }
        switch (t) {
        case GPGPU_F32: {
            float f = (float)v;
            if (on == 2)
                f = nextafterf(f, -INFINITY);
            if (on == 3)
                f = nextafterf(f, INFINITY);
            if (i % 97 == 5)
                f = i % 3 ? NAN : -NAN;
            if (i % 89 == 7)
                f = i % 2 ? INFINITY : -INFINITY;
            ((float *)in)[i] = f;
            break;
        }
        case GPGPU_F64: {
            if (on == 2)
                v = nextafter(v, -INFINITY);
            if (on == 3)
                v = nextafter(v, INFINITY);
            if (i % 97 == 5)
                v = i % 3 ? NAN : -NAN;
            if (i % 89 == 7)
                v = i % 2 ? INFINITY : -INFINITY;
            ((double *)in)[i] = v;
            break;
        }
        case GPGPU_I32: {
            double c = floor(v) + (on == 3) - (on == 2);
            ((int32_t *)in)[i] = (int32_t)(c < -0x1p31 ? -0x1p31 : c >= 0x1p31 ? 0x1p31 - 1 : c);
            break;
        }
        case GPGPU_U32: {
            double c = floor(v) + (on == 3) - (on == 2);
            ((uint32_t *)in)[i] = (uint32_t)(c < 0 ? 0 : c >= 0x1p32 ? 0x1p32 - 1 : c);
            break;
        }
        case GPGPU_I64:
            ((int64_t *)in)[i] = v <= -0x1p63 ? INT64_MIN : v >= 0x1p63 ? INT64_MAX
                                 : (int64_t)v + (on == 3) - (on == 2);
            break;
        case GPGPU_U64:
            ((uint64_t *)in)[i] = v <= 0 ? (uint64_t)(on == 3) : v >= 0x1p64 ? UINT64_MAX
                                  : (uint64_t)v + (on == 3) - (v >= 1 && on == 2);
            break;
        }
    }
    return in;
}

/* Edges at lo * (hi / lo)^(i / nbins): most of them crowd the low end, many
   into the table's first cells. */
static double *log_edges(size_t nbins, double lo, double hi)
{
    double *e = tu_alloc((nbins + 1) * sizeof *e);
    for (size_t i = 0; i <= nbins; i++)
        e[i] = lo * pow(hi / lo, (double)i / (double)nbins);
    e[nbins] = hi;
    for (size_t i = 1; i <= nbins; i++) /* strictly increasing after rounding */
        if (!(e[i] > e[i - 1]))
            e[i] = nextafter(e[i - 1], INFINITY);
    return e;
}

static void check_sampled(gpgpu_type t, const double *e, size_t nbins, double lo, double hi,
                          const char *what)
{
    static const size_t ns[] = {1, 5, 63, 64, 65, 1000, 4099, 300007};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        void *in = edge_samples(t, ns[k], e, nbins, lo, hi, tu_seed_for(740 + t, ns[k]));
        check(t, in, ns[k], e, nbins, what);
        free(in);
    }
}

TU_LOOP_TEST(crowded_cells_and_samples_on_edges, NTYPES)
{
    gpgpu_type t = types[_i];
    double lo, hi;
    sample_range(t, &lo, &hi);
    double pos_lo = lo > 1 ? lo : 1;
    double *e = log_edges(300, pos_lo, hi);
    check_sampled(t, e, 300, lo - (hi - lo) / 8, hi + (hi - lo) / 8, "log-spaced edges");
    free(e);
    e = uneven_edges(1000, lo, hi, tu_seed_for(741, t));
    check_sampled(t, e, 1000, lo - (hi - lo) / 8, hi + (hi - lo) / 8, "1000 uneven edges");
    free(e);
    e = uneven_edges(3, lo, hi, tu_seed_for(742, t));
    check_sampled(t, e, 3, lo, hi, "3 bins");
    free(e);
}
END_TEST

/* f32 cuts are the edges rounded up to floats: distinct edges can share
   one (duplicate cuts, so empty bins between them), and subnormal edges
   need the table's arithmetic to keep subnormals. */
TU_TEST(shared_and_subnormal_float_cuts)
{
    double dup[12];
    for (int i = 0; i < 12; i++) /* three edges a float interval near 1 */
        dup[i] = 1 + (i / 3) * 0x1p-23 + (i % 3) * 0x1p-26 + 0x1p-28;
    check_sampled(GPGPU_F32, dup, 11, 0.999999, 1.000001, "edges sharing a float");
    double sub[9] = {-1e-40, -0x1p-149, 0, 1e-45, 0x1p-149, 3 * 0x1p-149, 1e-42, 1e-39,
                     0x1p-126};
    check_sampled(GPGPU_F32, sub, 8, -2e-40, 2e-38, "subnormal edges, f32");
    double dsub[6] = {-1e-310, -0x1p-1074, 0, 0x1p-1074, 1e-320, 0x1p-1022};
    check_sampled(GPGPU_F64, dsub, 5, -2e-310, 1e-307, "subnormal edges, f64");
    /* the kernels' check of the table, which devices that may flush
       subnormals take */
    if (tu_force("GPGPU_EDGES_CHECK=1")) {
        check_sampled(GPGPU_F32, sub, 8, -2e-40, 2e-38, "subnormal edges, checked");
        check_sampled(GPGPU_F64, dsub, 5, -2e-310, 1e-307, "subnormal edges, f64, checked");
        double *e = log_edges(300, 1, 1e6);
        check_sampled(GPGPU_F32, e, 300, -1, 2e6, "log-spaced edges, checked");
        free(e);
        tu_restore_ctx();
    }
}
END_TEST

/* Ranges whose span overflows the type, and a first edge past it. */
TU_TEST(edge_spans_beyond_the_type)
{
    double ff[5] = {-3.4e38, -1, 0, 1, 3.4e38};
    check_sampled(GPGPU_F32, ff, 4, -3.4e38, 3.4e38, "f32 edges near +-FLT_MAX");
    double fd[5] = {-1.7e308, -1, 0, 1, 1.7e308};
    check_sampled(GPGPU_F64, fd, 4, -1.7e308, 1.7e308, "f64 edges near +-DBL_MAX");
    double past[3] = {1e39, 1e40, 1e41};
    check_sampled(GPGPU_F32, past, 2, 3e38, 3.4e38, "f32 edges past FLT_MAX");
    double some_past[5] = {-2, 0, 3e38, 1e39, 1e300};
    check_sampled(GPGPU_F32, some_past, 4, -3, 3.4e38, "f32 last edges past FLT_MAX");
}
END_TEST

TU_TEST(bad_edges_are_invalid)
{
    const double bad_order[] = {0, 1, 1, 2}, bad_nan[] = {0, NAN}, bad_inf[] = {-INFINITY, 0};
    const double good[] = {0, 1};
    float x[2] = {0.5f, 1};
    uint64_t bins[3] = {7, 7, 7};
    const gpgpu_status bad = GPGPU_ERROR_INVALID_ARGUMENT;
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, x, 2, bad_order, 3, bins), bad);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "edges[2]") != NULL);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, x, 2, bad_nan, 1, bins), bad);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "edges[1]") != NULL);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, x, 2, bad_inf, 1, bins), bad);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, x, 2, good, 0, bins), bad);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, x, 2, NULL, 1, bins), bad);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, x, 2, good, 1, NULL), bad);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, NULL, 2, good, 1, bins), bad);
    ck_assert_int_eq(gpgpu_histogram_edges(tu_ctx, (gpgpu_type)42, x, 2, good, 1, bins), bad);
    ck_assert_int_eq(gpgpu_histogram_edges(NULL, GPGPU_F32, x, 2, good, 1, bins), bad);
    ck_assert_uint_eq(bins[0] + bins[1] + bins[2], 21);
    tu_assert_ok(gpgpu_histogram_edges(tu_ctx, GPGPU_F32, NULL, 0, good, 1, bins));
    ck_assert_uint_eq(bins[0], 0);
}
END_TEST

TU_TEST(buffer_form_with_offsets)
{
    const double e[] = {-500, -100.5, 0, 0.25, 333, 700};
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_histogram_edges_buffer(tu_ctx, GPGPU_F64, NULL, 0, 0, e, 5,
                                                      (cl_mem)e, 0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const size_t n = 50001;
    double *x = tu_alloc(n * sizeof *x);
    uint64_t got[5], want[5];
    tu_fill(GPGPU_F64, x, n, tu_seed_for(720, n));
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, x, &err);
    cl_mem bins = clCreateBuffer(cl, CL_MEM_READ_WRITE, 16 * 8, NULL, &err);
    for (size_t off = 0; off < 3; off++) {
        cl_event marker, done;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
        tu_assert_ok(gpgpu_histogram_edges_buffer(tu_ctx, GPGPU_F64, in, off, n - off - 1, e, 5,
                                                  bins, off + 2, 1, &marker, &done));
        clEnqueueReadBuffer(q, bins, CL_TRUE, (off + 2) * 8, sizeof got, got, 1, &done, NULL);
        ref_edges(GPGPU_F64, x + off, n - off - 1, e, 5, want);
        ck_assert(!memcmp(got, want, sizeof got));
        clReleaseEvent(marker);
        clReleaseEvent(done);
    }
    ck_assert_int_eq(gpgpu_histogram_edges_buffer(tu_ctx, GPGPU_F64, in, 0, n, e, 5, bins, 12,
                                                  0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(in);
    clReleaseMemObject(bins);
    free(x);
}
END_TEST

/* The GPU strategy (local atomics, coalesced) on any device, and more bins
   than __local memory holds (global counters). */
TU_TEST(gpu_strategy_and_many_bins)
{
    size_t n = 200003, nbins = 1 << 19;
    uint32_t *u = tu_alloc(n * sizeof *u);
    tu_fill(GPGPU_U32, u, n, tu_seed_for(730, n));
    double *e = uneven_edges(nbins, 0.5, 4.2e9, 731);
    check(GPGPU_U32, u, n, e, nbins, "many bins");
    if (tu_force("GPGPU_CHUNKED=0 GPGPU_HIST=local")) {
        double *e2 = uneven_edges(256, 1e8, 4e9, 732);
        check(GPGPU_U32, u, n, e2, 256, "local atomics");
        check(GPGPU_U32, u, n, e, nbins, "local atomics, many bins");
        free(e2);
        tu_restore_ctx();
    }
    free(u);
    free(e);
}
END_TEST

int main(void)
{
    return tu_run("histogram_edges", 600, NULL);
}
