/*
 * test_histogram2d.c - gpgpu_histogram_weighted, gpgpu_histogram2d and
 * gpgpu_histogram2d_weighted (host, _array and _buffer forms) against
 * tests/ref_histogram.c, on every device of tu_run (the default device,
 * then the host fallback), and on the GPU layout forced on the default
 * device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_histogram.h"
#include "util.h"

static const gpgpu_type all_types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                        GPGPU_I64, GPGPU_U64, GPGPU_F64 };
static const size_t sizes[] = { 0, 1, 2, 255, 256, 257, 1009, 16383, 16384, 16385, 65537 };
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* x's range is ref_histogram_cutting_range; y's cuts elsewhere, so that a
   swapped axis shows. */
static void range_y(gpgpu_type t, double *lo, double *hi)
{
    switch (t) {
    case GPGPU_I32: *lo = -2e9; *hi = 3e8; break;
    case GPGPU_U32: *lo = 0; *hi = 2.5e9; break;
    case GPGPU_I64: *lo = -0x1p63; *hi = 0x1p62; break;
    case GPGPU_U64: *lo = 0; *hi = 0x1p64; break;
    default: *lo = -900.0; *hi = 100.0; break;
    }
}

/* A device array holding n elements of t from host. */
static gpgpu_array *array_of(gpgpu_type t, const void *host, size_t n)
{
    gpgpu_array *a;
    tu_assert_ok(gpgpu_array_create(tu_ctx, t, n, &a));
    tu_assert_ok(gpgpu_array_write(tu_ctx, a, 0, host, n));
    return a;
}

static void *random_samples(gpgpu_type t, size_t n, uint64_t seed)
{
    void *p = tu_alloc(n * gpgpu_type_size(t));
    tu_fill(t, p, n, seed);
    return p;
}

/* ---- checks against the reference --------------------------------------- */

static void check_counts(gpgpu_type t, const void *x, const void *y, size_t n, size_t nx,
                         size_t ny, uint64_t seed)
{
    double xlo, xhi, ylo, yhi;
    ref_histogram_cutting_range(t, &xlo, &xhi);
    range_y(t, &ylo, &yhi);
    uint64_t *got = tu_alloc(nx * ny * sizeof *got), *want = tu_alloc(nx * ny * sizeof *want);
    memset(got, 0xA5, nx * ny * sizeof *got); /* bins are overwritten */
    tu_assert_ok(gpgpu_histogram2d(tu_ctx, t, x, y, n, nx, xlo, xhi, ny, ylo, yhi, got));
    ref_histogram2d(t, x, y, n, nx, xlo, xhi, ny, ylo, yhi, want);
    for (size_t i = 0; i < nx * ny; i++)
        ck_assert_msg(got[i] == want[i],
                      "type %d n %zu %zu x %zu: cell %zu is %llu, want %llu [device %s, seed "
                      "%llu]", (int)t, n, nx, ny, i, (unsigned long long)got[i],
                      (unsigned long long)want[i], tu_device, (unsigned long long)seed);
    free(got);
    free(want);
}

static void assert_cells(const ref_wcell *want, const double *got, size_t ncells,
                         const char *what, gpgpu_type t, gpgpu_type wt, size_t n,
                         uint64_t seed)
{
    for (size_t i = 0; i < ncells; i++)
        ck_assert_msg(ref_weighted_ok(&want[i], got[i]),
                      "%s type %d weights %d n %zu: cell %zu is %.17g, want %.17Lg (%llu "
                      "samples) [device %s, seed %llu]", what, (int)t, (int)wt, n, i, got[i],
                      want[i].sum, (unsigned long long)want[i].m, tu_device,
                      (unsigned long long)seed);
}

/* 1-D when y is NULL (nx bins over x's range), else nx x ny cells. */
static void check_weighted(gpgpu_type t, const void *x, const void *y, gpgpu_type wt,
                           const void *w, size_t n, size_t nx, size_t ny, uint64_t seed)
{
    double xlo, xhi, ylo, yhi;
    ref_histogram_cutting_range(t, &xlo, &xhi);
    range_y(t, &ylo, &yhi);
    size_t ncells = nx * (y ? ny : 1);
    double *got = tu_alloc(ncells * sizeof *got);
    ref_wcell *want = tu_alloc(ncells * sizeof *want);
    memset(got, 0xA5, ncells * sizeof *got);
    if (y)
        tu_assert_ok(gpgpu_histogram2d_weighted(tu_ctx, t, x, y, wt, w, n, nx, xlo, xhi, ny,
                                                ylo, yhi, got));
    else
        tu_assert_ok(gpgpu_histogram_weighted(tu_ctx, t, x, wt, w, n, nx, xlo, xhi, got));
    ref_histogram_weighted(t, x, y, wt, w, n, nx, xlo, xhi, ny, ylo, yhi, want);
    assert_cells(want, got, ncells, y ? "2-D" : "1-D", t, wt, n, seed);
    free(got);
    free(want);
}

/* Weights of mixed sign and magnitude, some exactly representable. */
static void *random_weights(gpgpu_type wt, size_t n, uint64_t seed)
{
    void *w = random_samples(wt, n, seed);
    for (size_t i = 0; i < n; i += 7) {
        if (wt == GPGPU_F32)
            ((float *)w)[i] = (float)(i % 5) - 2.0f;
        else
            ((double *)w)[i] = ldexp((double)(i % 9) - 4.0, (int)(i % 40) - 20);
    }
    return w;
}

/* Counts, 1-D weighted and 2-D weighted at every size for type t. */
static void check_type_all_sizes(gpgpu_type t)
{
    static const size_t grids[][2] = { {1, 1}, {3, 5}, {16, 16}, {64, 33}, {256, 256} };
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        uint64_t seed = tu_seed_for((uint64_t)t * 7919u, n);
        void *x = random_samples(t, n, seed), *y = random_samples(t, n, seed + 1);
        gpgpu_type wt = k % 2 ? GPGPU_F32 : GPGPU_F64;
        void *w = random_weights(wt, n, seed + 2);
        const size_t *g = grids[k % 5];
        check_counts(t, x, y, n, g[0], g[1], seed);
        check_weighted(t, x, NULL, wt, w, n, g[0] * g[1] < 1000 ? g[0] * g[1] : 256, 0, seed);
        check_weighted(t, x, y, wt, w, n, g[0], g[1], seed);
        free(x);
        free(y);
        free(w);
    }
}

TU_LOOP_TEST(every_type_and_size_matches_reference, 6)
{
    check_type_all_sizes(all_types[_i]);
}
END_TEST

/* Over 2^18 cells: beyond __local memory on every device (atomics into
   the result). */
/* Many cells (f32 samples, f64 weights), then a million samples (u32, f32
   weights). */
TU_LOOP_TEST(many_cells_and_a_million_samples, 2)
{
    const gpgpu_type t = _i ? GPGPU_U32 : GPGPU_F32, wt = _i ? GPGPU_F32 : GPGPU_F64;
    const size_t n = _i ? 1000003 : 100003;
    uint64_t seed = tu_seed_for(_i ? 1000003 : 4242, n);
    void *x = random_samples(t, n, seed), *y = random_samples(t, n, seed + 1);
    void *w = random_weights(wt, n, seed + 2);
    if (_i) {
        check_counts(t, x, y, n, 256, 256, seed);
        check_weighted(t, x, NULL, wt, w, n, 256, 0, seed);
        check_weighted(t, x, y, wt, w, n, 100, 37, seed);
    } else {
        check_counts(t, x, y, n, 700, 500, seed);
        check_weighted(t, x, y, wt, w, n, 701, 499, seed);
        check_weighted(t, x, NULL, wt, w, n, 300007, 0, seed);
    }
    free(x);
    free(y);
    free(w);
}
END_TEST

/* F32 samples and weights at the sizes where the host's code counts in
   32-bit counters (four samples a cell) and splits the samples among its
   threads (from 2^19 samples a part), with a block's last few samples one
   at a time. */
TU_TEST(f32_weights_and_cells_on_the_hosts_threads)
{
    static const size_t ns[] = { 4099, 262147, 1048583, 2097169 };
    for (size_t k = 0; k < 4; k++) {
        const size_t n = ns[k];
        uint64_t seed = tu_seed_for(2611, n);
        void *x = random_samples(GPGPU_F32, n, seed), *y = random_samples(GPGPU_F32, n, seed + 1);
        void *w = random_weights(GPGPU_F32, n, seed + 2);
        check_weighted(GPGPU_F32, x, NULL, GPGPU_F32, w, n, 256, 0, seed);
        check_weighted(GPGPU_F32, x, y, GPGPU_F32, w, n, 33, 17, seed);
        check_counts(GPGPU_F32, x, y, n, 256, 256, seed);
        free(x);
        free(y);
        free(w);
    }
}
END_TEST

/* NaN samples (either sign, either axis) and out-of-range ones are not
   counted; a NaN weight makes its own cell NaN and no other. */
TU_TEST(nan_samples_and_nan_weights)
{
    enum { N = 40009 };
    static float x[N], y[N], w[N];
    static double xd[N], yd[N], wd[N];
    tu_fill(GPGPU_F32, x, N, tu_seed_for(77, 1));
    tu_fill(GPGPU_F32, y, N, tu_seed_for(77, 2));
    tu_fill(GPGPU_F32, w, N, tu_seed_for(77, 3));
    for (size_t i = 0; i < N; i += 101) {
        x[i] = i % 2 ? NAN : -NAN;
        y[i + 50 < N ? i + 50 : i] = -NAN;
    }
    for (size_t i = 0; i < N; i++) {
        xd[i] = x[i];
        yd[i] = y[i];
        wd[i] = w[i];
    }
    w[5] = NAN;   /* x[5], y[5] in range below; elsewhere finite */
    wd[5] = NAN;
    x[5] = 0.5f;
    y[5] = 0.5f;
    xd[5] = yd[5] = 0.5;
    check_counts(GPGPU_F32, x, y, N, 20, 30, 77);
    check_weighted(GPGPU_F32, x, NULL, GPGPU_F32, w, N, 25, 0, 77);
    check_weighted(GPGPU_F32, x, y, GPGPU_F32, w, N, 20, 30, 77);
    check_weighted(GPGPU_F64, xd, yd, GPGPU_F64, wd, N, 20, 30, 77);
    /* exactly one NaN cell */
    double bins[600];
    size_t nans = 0;
    tu_assert_ok(gpgpu_histogram2d_weighted(tu_ctx, GPGPU_F64, xd, yd, GPGPU_F64, wd, N, 20,
                                            -500, 750, 30, -900, 100, bins));
    for (size_t i = 0; i < 600; i++)
        nans += isnan(bins[i]) != 0;
    ck_assert_uint_eq(nans, 1);
}
END_TEST

/* Integer samples on the edges of integer bins go to the bin the edge
   opens; the last edge is outside. Cells are row-major, x first. */
TU_TEST(bin_edges_and_cell_order)
{
    int32_t x[] = { 0, 1, 9, 10, -1, 5, 5, 9 }, y[] = { 0, 3, 3, 0, 0, 4, 2, 1 };
    uint64_t bins[10 * 4];
    double w[8] = { 1, 2, 4, 8, 16, 32, 64, 128 }, sums[10 * 4], wb[10];
    tu_assert_ok(gpgpu_histogram2d(tu_ctx, GPGPU_I32, x, y, 8, 10, 0, 10, 4, 0, 4, bins));
    for (int i = 0; i < 40; i++) {
        uint64_t want = i == 0 * 4 + 0 || i == 1 * 4 + 3 || i == 9 * 4 + 3 || i == 5 * 4 + 2 ||
                        i == 9 * 4 + 1;
        ck_assert_msg(bins[i] == want, "cell %d is %llu", i, (unsigned long long)bins[i]);
    }
    tu_assert_ok(gpgpu_histogram2d_weighted(tu_ctx, GPGPU_I32, x, y, GPGPU_F64, w, 8, 10, 0,
                                            10, 4, 0, 4, sums));
    ck_assert(sums[0] == 1 && sums[7] == 2 && sums[39] == 4 && sums[22] == 64 &&
              sums[37] == 128 && sums[20] == 0);
    tu_assert_ok(gpgpu_histogram_weighted(tu_ctx, GPGPU_I32, x, GPGPU_F64, w, 8, 10, 0, 10, wb));
    ck_assert(wb[0] == 1 && wb[1] == 2 && wb[9] == 4 + 128 && wb[5] == 32 + 64 && wb[2] == 0);
}
END_TEST

/* Two calls give the same bits with groups of one work item and on the
   host fallback (the documented order of the additions). */
TU_TEST(weighted_sums_repeat_with_private_bins)
{
    if (!tu_is_host() && !strstr(gpgpu_plan_description(tu_ctx), "histogram=private-bins"))
        return;
    size_t n = 300007;
    float *x = random_samples(GPGPU_F32, n, 5), *y = random_samples(GPGPU_F32, n, 6);
    double *w = random_samples(GPGPU_F64, n, 7), a[64 * 64], b[64 * 64];
    tu_assert_ok(gpgpu_histogram2d_weighted(tu_ctx, GPGPU_F32, x, y, GPGPU_F64, w, n, 64,
                                            -1000, 1000, 64, -1000, 1000, a));
    tu_assert_ok(gpgpu_histogram2d_weighted(tu_ctx, GPGPU_F32, x, y, GPGPU_F64, w, n, 64,
                                            -1000, 1000, 64, -1000, 1000, b));
    ck_assert(memcmp(a, b, sizeof a) == 0);
    free(x);
    free(y);
    free(w);
}
END_TEST

TU_TEST(errors_are_invalid_argument)
{
    float x[4] = { 0 }, y[4] = { 0 }, w[4] = { 0 };
    uint64_t b[4];
    double d[4];
    gpgpu_context *c = tu_ctx;
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, 0, 0, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, 2, 0, 1, 0, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, (size_t)1 << 16, 0, 1,
                               ((size_t)1 << 15) + 1, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, SIZE_MAX, 0, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, 2, 1, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, 2, 0, 1, 2, 0, INFINITY, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, 2, 0, 1, 2, NAN, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, NULL, y, 4, 2, 0, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, NULL, 4, 2, 0, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram2d(c, GPGPU_F32, x, y, 4, 2, 0, 1, 2, 0, 1, NULL));
    REJECTED(gpgpu_histogram2d(c, (gpgpu_type)99, x, y, 4, 2, 0, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram2d(NULL, GPGPU_F32, x, y, 4, 2, 0, 1, 2, 0, 1, b));
    REJECTED(gpgpu_histogram_weighted(c, GPGPU_F32, x, GPGPU_I32, w, 4, 2, 0, 1, d));
    REJECTED(gpgpu_histogram_weighted(c, GPGPU_F32, x, GPGPU_U64, w, 4, 2, 0, 1, d));
    REJECTED(gpgpu_histogram_weighted(c, GPGPU_F32, x, GPGPU_F32, NULL, 4, 2, 0, 1, d));
    REJECTED(gpgpu_histogram_weighted(c, GPGPU_F32, x, GPGPU_F32, w, 4, 0, 0, 1, d));
    REJECTED(gpgpu_histogram_weighted(c, GPGPU_F32, x, GPGPU_F32, w, 4, 2, 0, 1, NULL));
    REJECTED(gpgpu_histogram_weighted(c, GPGPU_F32, x, (gpgpu_type)-1, w, 4, 2, 0, 1, d));
    REJECTED(gpgpu_histogram2d_weighted(c, GPGPU_F32, x, y, GPGPU_F32, NULL, 4, 2, 0, 1, 2, 0,
                                        1, d));
    REJECTED(gpgpu_histogram2d_weighted(c, GPGPU_F32, x, y, GPGPU_I64, w, 4, 2, 0, 1, 2, 0, 1,
                                        d));
    REJECTED(gpgpu_histogram2d_weighted(c, GPGPU_F32, x, y, GPGPU_F32, w, 4, 2, 0, 1, 2, 3, 1,
                                        d));
    /* n == 0 takes NULL arrays and zeroes the bins */
    memset(d, 0xff, sizeof d);
    tu_assert_ok(gpgpu_histogram2d_weighted(c, GPGPU_F32, NULL, NULL, GPGPU_F32, NULL, 0, 2, 0,
                                            1, 2, 0, 1, d));
    for (int i = 0; i < 4; i++)
        ck_assert(d[i] == 0.0 && !signbit(d[i]));
}
END_TEST

/* ---- _array and _buffer forms ---------------------------------------------- */

TU_TEST(array_forms_match_host_forms)
{
    size_t n = 70001, nx = 40, ny = 24;
    uint64_t seed = tu_seed_for(31, n);
    double *x = random_samples(GPGPU_F64, n, seed), *y = random_samples(GPGPU_F64, n, seed + 1);
    float *w = random_weights(GPGPU_F32, n, seed + 2);
    gpgpu_array *ax = array_of(GPGPU_F64, x, n), *ay = array_of(GPGPU_F64, y, n);
    gpgpu_array *aw = array_of(GPGPU_F32, w, n);
    uint64_t counts[40 * 24], want[40 * 24];
    double sums[40 * 24], wsum[40];
    ref_wcell cells[40 * 24];
    tu_assert_ok(gpgpu_histogram2d_array(tu_ctx, ax, ay, nx, -500, 750, ny, -900, 100, counts));
    ref_histogram2d(GPGPU_F64, x, y, n, nx, -500, 750, ny, -900, 100, want);
    ck_assert(memcmp(counts, want, sizeof want) == 0);
    tu_assert_ok(gpgpu_histogram2d_weighted_array(tu_ctx, ax, ay, aw, nx, -500, 750, ny, -900,
                                                  100, sums));
    ref_histogram_weighted(GPGPU_F64, x, y, GPGPU_F32, w, n, nx, -500, 750, ny, -900, 100,
                           cells);
    assert_cells(cells, sums, nx * ny, "2-D array", GPGPU_F64, GPGPU_F32, n, seed);
    tu_assert_ok(gpgpu_histogram_weighted_array(tu_ctx, ax, aw, nx, -500, 750, wsum));
    ref_histogram_weighted(GPGPU_F64, x, NULL, GPGPU_F32, w, n, nx, -500, 750, 0, 0, 0, cells);
    assert_cells(cells, wsum, nx, "1-D array", GPGPU_F64, GPGPU_F32, n, seed);
    /* lengths and types must match */
    gpgpu_array *short_y = array_of(GPGPU_F64, y, n - 1);
    REJECTED(gpgpu_histogram2d_array(tu_ctx, ax, short_y, nx, 0, 1, ny, 0, 1, counts));
    REJECTED(gpgpu_histogram2d_array(tu_ctx, ax, aw, nx, 0, 1, ny, 0, 1, counts));
    REJECTED(gpgpu_histogram_weighted_array(tu_ctx, ax, short_y, nx, 0, 1, sums));
    gpgpu_array *ints = array_of(GPGPU_I64, x, n);
    REJECTED(gpgpu_histogram_weighted_array(tu_ctx, ax, ints, nx, 0, 1, sums));
    gpgpu_array_destroy(ints);
    gpgpu_array_destroy(short_y);
    gpgpu_array_destroy(ax);
    gpgpu_array_destroy(ay);
    gpgpu_array_destroy(aw);
    free(x);
    free(y);
    free(w);
}
END_TEST

/* Offsets are honoured and the bins outside are left alone. */
TU_TEST(buffer_forms_with_offsets)
{
    if (tu_is_host())
        return;
    enum { N = 5003, XO = 17, YO = 5, WO = 3, NX = 10, NY = 7, BO = 2 };
    static float x[N + XO], y[N + YO], w[N + WO];
    uint64_t got[NX * NY + BO + 1], want[NX * NY];
    double sums[NX * NY + BO + 1];
    ref_wcell cells[NX * NY];
    cl_int err;
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    tu_fill(GPGPU_F32, x, N + XO, tu_seed_for(8, 1));
    tu_fill(GPGPU_F32, y, N + YO, tu_seed_for(8, 2));
    tu_fill(GPGPU_F32, w, N + WO, tu_seed_for(8, 3));
    memset(got, 0x11, sizeof got);
    memset(sums, 0x11, sizeof sums);
    cl_mem bx = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem by = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
    cl_mem bw = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof w, w, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof got, got,
                                &err);
    cl_mem outw = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof sums,
                                 sums, &err);
    cl_event done, donew;
    tu_assert_ok(gpgpu_histogram2d_buffer(tu_ctx, GPGPU_F32, bx, XO, by, YO, N, NX, -900, 900,
                                          NY, -500, 500, out, BO, 0, NULL, &done));
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 1, &done, NULL);
    ref_histogram2d(GPGPU_F32, x + XO, y + YO, N, NX, -900, 900, NY, -500, 500, want);
    for (int i = 0; i < NX * NY; i++)
        ck_assert_uint_eq(got[BO + i], want[i]);
    ck_assert_uint_eq(got[0], 0x1111111111111111ull);
    ck_assert_uint_eq(got[NX * NY + BO], 0x1111111111111111ull);
    if (gpgpu_histogram2d_weighted_buffer(tu_ctx, GPGPU_F32, bx, XO, by, YO, GPGPU_F32, bw, WO,
                                          N, NX, -900, 900, NY, -500, 500, outw, BO, 0, NULL,
                                          &donew) == GPGPU_SUCCESS) {
        clEnqueueReadBuffer(q, outw, CL_TRUE, 0, sizeof sums, sums, 1, &donew, NULL);
        ref_histogram_weighted(GPGPU_F32, x + XO, y + YO, GPGPU_F32, w + WO, N, NX, -900, 900,
                               NY, -500, 500, cells);
        assert_cells(cells, sums + BO, NX * NY, "2-D buffer", GPGPU_F32, GPGPU_F32, N, 8);
        clReleaseEvent(donew);
        tu_assert_ok(gpgpu_histogram_weighted_buffer(tu_ctx, GPGPU_F32, bx, XO, GPGPU_F32, bw,
                                                     WO, N, NX, -900, 900, outw, BO, 0, NULL,
                                                     &donew));
        clEnqueueReadBuffer(q, outw, CL_TRUE, 0, sizeof sums, sums, 1, &donew, NULL);
        ref_histogram_weighted(GPGPU_F32, x + XO, NULL, GPGPU_F32, w + WO, N, NX, -900, 900, 0,
                               0, 0, cells);
        assert_cells(cells, sums + BO, NX, "1-D buffer", GPGPU_F32, GPGPU_F32, N, 8);
        clReleaseEvent(donew);
    }
    /* a range outside the buffer is refused */
    REJECTED(gpgpu_histogram2d_buffer(tu_ctx, GPGPU_F32, bx, XO + 1, by, YO, N + YO, NX, 0, 1,
                                      NY, 0, 1, out, 0, 0, NULL, NULL));
    clReleaseEvent(done);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseMemObject(bw);
    clReleaseMemObject(out);
    clReleaseMemObject(outw);
}
END_TEST

/* ---- the GPU layout (work-groups sharing __local cells) on this device ---- */

TU_TEST(gpu_layout_forced)
{
    if (!tu_force("GPGPU_CHUNKED=0 GPGPU_HIST=local"))
        return;
    static const gpgpu_type types[] = { GPGPU_U32, GPGPU_F32, GPGPU_I64 };
    static const size_t ns[] = { 1, 257, 16385, 100003 };
    for (size_t k = 0; k < 4; k++) {
        gpgpu_type t = types[k % 3];
        size_t n = ns[k];
        uint64_t seed = tu_seed_for(555, n);
        void *x = random_samples(t, n, seed), *y = random_samples(t, n, seed + 1);
        void *w = random_weights(GPGPU_F64, n, seed + 2);
        check_counts(t, x, y, n, 16, 16, seed);
        check_counts(t, x, y, n, 256, 256, seed);
        check_weighted(t, x, NULL, GPGPU_F64, w, n, 256, 0, seed);
        check_weighted(t, x, y, GPGPU_F64, w, n, 16, 16, seed);
        check_weighted(t, x, y, GPGPU_F64, w, n, 256, 256, seed);
        free(x);
        free(y);
        free(w);
    }
    tu_restore_ctx();
}
END_TEST

/* ---- counts by bands of 16-bit counters (GPUs: cells beyond __local) ---- */

/* The plan of a device with 48 KiB of __local memory, whatever this one
   has, and bands from one sample per cell, samples beyond 8 per cell in
   several parts: first with the samples split by band (the plan's way
   from two bands of 16-bit counters), in bands of 32-bit counters (256 x
   256 cells in six, the last one shorter, and 97 x 500 in five, a band to
   a part of the entries; 300 x 300 in eight, two bands to a part; 420 x
   420 in fifteen, three to a part; 150 x 200 in three and 100 x 200 in
   two, a band to a part; 600 x 600 in thirty: too many, atomics per
   sample), then with
   every band's groups reading every sample, in bands of 16-bit counters
   (three, three, four; fifteen: atomics), at the first size and with the
   hot cells below. */
TU_LOOP_TEST(counts_by_bands, 2)
{
    static const char *const ways[] = {
        "GPGPU_CHUNKED=0 GPGPU_HIST=local GPGPU_HIST_BANDED=1 GPGPU_LOCAL_MEM=49152",
        "GPGPU_CHUNKED=0 GPGPU_HIST=local GPGPU_HIST_BANDED=1 GPGPU_LOCAL_MEM=49152 "
        "GPGPU_HIST_SPLIT=0",
    };
    if (!tu_force(ways[_i]))
        return;
    static const gpgpu_type types[] = { GPGPU_F32, GPGPU_U32, GPGPU_I64 };
    static const size_t ns[] = { 65537, 100003, 1100009 };
    for (size_t k = 0; k < (_i == 0 ? 3 : 1); k++) { /* the second way: its kernel's cases */
        gpgpu_type t = types[k];
        size_t n = ns[k];
        uint64_t seed = tu_seed_for(777, n);
        void *x = random_samples(t, n, seed), *y = random_samples(t, n, seed + 1);
        check_counts(t, x, y, n, 256, 256, seed);
        check_counts(t, x, y, n, 97, 500, seed);
        check_counts(t, x, y, n, k == 2 ? 420 : 300, k == 2 ? 420 : 300, seed);
        if (_i == 0) /* three bands and two, a part each */
            check_counts(t, x, y, n, k == 1 ? 100 : 150, 200, seed);
        if (_i == 0 && k == 2)
            check_counts(t, x, y, n, 600, 600, seed);
        free(x);
        free(y);
    }
    /* Counts past 2^15 in one group: most samples in the two cells of one
       32-bit word of __local counters (and a neighbour's word), which
       carry into 0x8000 many times; some out of range and NaN. */
    double xlo, xhi, ylo, yhi;
    ref_histogram_cutting_range(GPGPU_F32, &xlo, &xhi);
    range_y(GPGPU_F32, &ylo, &yhi);
    const size_t n = 200003;
    float *x = tu_alloc(n * sizeof *x), *y = tu_alloc(n * sizeof *y);
    uint64_t seed = tu_seed_for(778, n), r = seed;
    for (size_t i = 0; i < n; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        unsigned pick = (unsigned)(r >> 33) % 100;
        size_t iy = pick < 60 ? 6 : pick < 90 ? 7 : pick < 98 ? 8 : 9;
        x[i] = (float)(xlo + (xhi - xlo) * (100 + 0.5) / 256);
        y[i] = (float)(ylo + (yhi - ylo) * (iy + 0.5) / 256);
        if (pick == 98)
            y[i] = (float)(yhi + 1.0);
        if (pick == 99)
            x[i] = (i & 1) ? NAN : -NAN;
    }
    check_counts(GPGPU_F32, x, y, n, 256, 256, seed);
    free(x);
    free(y);
    tu_restore_ctx();
}
END_TEST

int main(void)
{
    return tu_run("histogram2d", 600, NULL);
}
