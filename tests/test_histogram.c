/*
 * test_histogram.c - gpgpu_histogram, gpgpu_histogram_buffer and
 * gpgpu_histogram_rgba8 against tests/ref_histogram.c, on every device of
 * tu_main (the default device, then the host fallback).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_histogram.h"
#include "util.h"

static const gpgpu_type all_types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                        GPGPU_I64, GPGPU_U64, GPGPU_F64 };

/* Runs both the library and the reference on in and compares every bin. */
static void check_against_ref(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                              double hi, uint64_t seed)
{
    uint64_t *got = tu_alloc(nbins * sizeof *got), *want = tu_alloc(nbins * sizeof *want);
    memset(got, 0xA5, nbins * sizeof *got);  /* bins are overwritten */
    tu_assert_ok(gpgpu_histogram(tu_ctx, t, in, n, nbins, lo, hi, got));
    ref_histogram(t, in, n, nbins, lo, hi, want);
    for (size_t i = 0; i < nbins; i++)
        ck_assert_msg(got[i] == want[i],
                      "type %d n %zu nbins %zu [%g, %g): bin %zu is %llu, want %llu "
                      "[device %s, seed %llu]", (int)t, n, nbins, lo, hi, i,
                      (unsigned long long)got[i], (unsigned long long)want[i], tu_device,
                      (unsigned long long)seed);
    free(got);
    free(want);
}

/* Random samples of t, n of them, through check_against_ref. */
static void check_random(gpgpu_type t, size_t n, size_t nbins, double lo, double hi)
{
    uint64_t seed = tu_seed_for((uint64_t)t * 1000003u + nbins, n);
    void *in = tu_alloc(n * gpgpu_type_size(t));
    tu_fill(t, in, n, seed);
    check_against_ref(t, in, n, nbins, lo, hi, seed);
    free(in);
}

TU_LOOP_TEST(every_type_and_size_matches_reference, 6)
{
    static const size_t sizes[] = { 0, 1, 2, 255, 256, 257, 1009, 16383, 16384, 16385, 65537 };
    gpgpu_type t = all_types[_i];
    double lo, hi;
    ref_histogram_cutting_range(t, &lo, &hi);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_random(t, sizes[i], 256, lo, hi);
}
END_TEST

TU_TEST(bin_counts_from_one_to_100000)
{
    static const size_t nbins[] = { 1, 2, 3, 256, 4096, 100000 };
    static const gpgpu_type types[] = { GPGPU_I32, GPGPU_F32, GPGPU_U64 };
    for (size_t k = 0; k < 3; k++) {
        double lo, hi;
        ref_histogram_cutting_range(types[k], &lo, &hi);
        for (size_t i = 0; i < sizeof nbins / sizeof *nbins; i++)
            check_random(types[k], 100003, nbins[i], lo, hi);
    }
}
END_TEST

TU_TEST(millions_of_bins_use_global_memory)
{
    check_random(GPGPU_F32, 200003, (size_t)3 << 20, -1000.0, 1000.0);
    check_random(GPGPU_U32, 200003, (size_t)1 << 22, 0.0, 4294967296.0);
}
END_TEST

TU_TEST(large_inputs)
{
    size_t n = ((size_t)1 << 22) + 1;
    check_random(GPGPU_F32, n, 256, -1000.0, 1000.0);
    check_random(GPGPU_U32, n, 4096, 0.0, 4294967296.0);
    check_random(GPGPU_I64, n, 1000, -0x1p63, 0x1p63);
}
END_TEST

/* Values on and beside the bin edges of the full range of t. */
static void check_full_range_edges(gpgpu_type t, double lo, double hi, size_t nbins)
{
    enum { N = 3 * 1024 + 4 };
    uint64_t v[N];
    int is_signed = t == GPGPU_I32 || t == GPGPU_I64;
    int bits = t == GPGPU_I32 || t == GPGPU_U32 ? 32 : 64;
    size_t k = 0;
    for (size_t i = 0; i < 1024 && k + 3 <= N; i++) {
        /* the edge of bin i of 1024 and its neighbours (wrapping is fine) */
        uint64_t e = bits == 64 ? (uint64_t)i << 54 : (uint64_t)i << 22;
        v[k++] = e;
        v[k++] = e - 1;
        v[k++] = e + 1;
    }
    v[k++] = 0;
    v[k++] = bits == 64 ? UINT64_MAX : UINT32_MAX;
    while (k < N)
        v[k++] = 7;
    void *in = tu_alloc(N * 8);
    for (size_t i = 0; i < N; i++) {
        if (bits == 32) {
            uint32_t u = (uint32_t)v[i] ^ (is_signed ? 0x80000000u : 0);
            memcpy((uint32_t *)in + i, &u, 4);
        } else {
            uint64_t u = v[i] ^ (is_signed ? (uint64_t)1 << 63 : 0);
            memcpy((uint64_t *)in + i, &u, 8);
        }
    }
    check_against_ref(t, in, N, nbins, lo, hi, 0);
    free(in);
}

TU_TEST(full_integer_ranges_bin_exactly)
{
    static const size_t nbins[] = { 1, 3, 256, 1000, 1024 };
    for (size_t i = 0; i < sizeof nbins / sizeof *nbins; i++) {
        check_full_range_edges(GPGPU_U32, 0.0, 0x1p32, nbins[i]);
        check_full_range_edges(GPGPU_I32, -0x1p31, 0x1p31, nbins[i]);
        check_full_range_edges(GPGPU_U64, 0.0, 0x1p64, nbins[i]);
        check_full_range_edges(GPGPU_I64, -0x1p63, 0x1p63, nbins[i]);
    }
}
END_TEST

/* Every bin edge, and its neighbours, of ranges whose width is no power of
   two: where an estimate of the bin (the CPUs' 16-wide rule) can land one
   off either way and must be corrected. */
TU_TEST(integer_bin_edges_of_uneven_ranges_are_exact)
{
    enum { NB = 1000, N = 3 * NB + 5 };
    static const double lo[] = { 0.0, -1.5e9, 7.0 };
    static const double width[] = { 3e9, 3e9, 4000000007.0 };
    for (int r = 0; r < 3; r++) {
        int32_t x[N];
        uint32_t u[N];
        size_t k = 0;
        /* every value fits the array it goes to: i32 for the negative lo */
        for (int b = 0; b < NB; b++) {
            /* the first integer of bin b: ceil(lo + b * width / NB) */
            int64_t e = (int64_t)ceil(lo[r] + (double)b * width[r] / NB);
            for (int o = -1; o <= 1; o++, k++) {
                x[k] = lo[r] < 0 ? (int32_t)(e + o) : 0;
                u[k] = lo[r] < 0 ? 0 : (uint32_t)(e + o); /* e - 1 = -1 wraps: fine */
            }
        }
        for (; k < N; k++) {
            x[k] = lo[r] < 0 ? (int32_t)lo[r] : 0;
            u[k] = lo[r] < 0 ? 0 : (uint32_t)lo[r];
        }
        if (lo[r] >= 0)
            check_against_ref(GPGPU_U32, u, N, NB, lo[r], lo[r] + width[r], 0);
        else
            check_against_ref(GPGPU_I32, x, N, NB, lo[r], lo[r] + width[r], 0);
    }
    /* Ranges far wider than the type (yet narrow enough for 64-bit
       arithmetic), with bin edges at 0: the rule's numerator then lies
       beyond a double's 53 bits, and its estimate needs correcting. */
    int32_t z[64];
    for (int i = 0; i < 64; i++)
        z[i] = i % 4 == 0 ? INT32_MIN + i : i % 4 == 1 ? INT32_MAX - (i - 1) : i / 4 - 8;
    for (int k = 0; k < 64; k++) {
        double c = 8e15 - k * 123456789.0;
        check_against_ref(GPGPU_I32, z, 64, 1000, -c, c, 0);
        /* the type's top value is the range's last: a numerator one below
           a multiple of the width, which a double may round up to it */
        check_against_ref(GPGPU_I32, z, 64, 1 + k % 3, -1e16 - k * 1001.0, 0x1p31, 0);
    }
}
END_TEST

TU_TEST(small_integer_ranges_put_edges_in_the_upper_bin)
{
    int32_t x[25];
    uint64_t bins[7];
    for (int i = 0; i < 25; i++)
        x[i] = i - 12;
    /* [-10, 11) in 7 bins of width 3: -10..-8 | -7..-5 | ... | 8..10 */
    tu_assert_ok(gpgpu_histogram(tu_ctx, GPGPU_I32, x, 25, 7, -10.0, 11.0, bins));
    for (int i = 0; i < 7; i++)
        ck_assert_uint_eq(bins[i], 3);
    check_against_ref(GPGPU_I32, x, 25, 4, -10.0, 11.0, 0);
    check_against_ref(GPGPU_I32, x, 25, 25, -12.0, 13.0, 0);
}
END_TEST

TU_TEST(non_integer_bounds_round_up_for_integer_samples)
{
    int32_t x[25];
    for (int i = 0; i < 25; i++)
        x[i] = i - 12;
    check_against_ref(GPGPU_I32, x, 25, 3, -2.5, 7.3, 0);
    check_against_ref(GPGPU_I32, x, 25, 4, -12.9, 11.0001, 0);
    check_against_ref(GPGPU_I32, x, 25, 2, 0.2, 0.7, 0);   /* no integer inside */
    check_random(GPGPU_U32, 10007, 100, -1000.5, 1e10);    /* lo, hi beyond u32 */
    check_random(GPGPU_I32, 10007, 77, -3e9, 3e9);
    /* ranges near the CPUs' 16-wide integer rule's limit (D < 2^62) */
    check_random(GPGPU_I32, 10007, 1000, -3e9, 4.5e18);
    check_random(GPGPU_U32, 10007, 256, 0.0, 1.5e19);
    check_random(GPGPU_U32, 10007, 4096, 100.0, 4294967000.0);
    check_random(GPGPU_U64, 10007, 256, -5.0, 1e19);
    check_random(GPGPU_I64, 10007, 256, -9e18, 9e18);
}
END_TEST

TU_TEST(nan_inf_and_outside_values_are_not_counted)
{
    float f[] = { NAN, -NAN, INFINITY, -INFINITY, -1.0f, -0.0f, 0.0f, 0.5f, 0.999999f,
                  1.0f, 2.0f, nextafterf(1.0f, 0.0f), nextafterf(0.0f, -1.0f), 1e30f };
    double d[] = { NAN, INFINITY, -INFINITY, -1.0, -0.0, 0.0, 0.5, 1.0, 2.0,
                   nextafter(1.0, 0.0), nextafter(0.0, -1.0), 1e300 };
    size_t nf = sizeof f / sizeof *f, nd = sizeof d / sizeof *d;
    uint64_t bins[4];
    tu_assert_ok(gpgpu_histogram(tu_ctx, GPGPU_F32, f, nf, 4, 0.0, 1.0, bins));
    ck_assert_uint_eq(bins[0] + bins[1] + bins[2] + bins[3], 5);
    check_against_ref(GPGPU_F32, f, nf, 4, 0.0, 1.0, 0);
    check_against_ref(GPGPU_F32, f, nf, 3, -0.1, 0.9, 0);
    check_against_ref(GPGPU_F32, f, nf, 7, -3.0, 1e38, 0);
    tu_assert_ok(gpgpu_histogram(tu_ctx, GPGPU_F64, d, nd, 4, 0.0, 1.0, bins));
    ck_assert_uint_eq(bins[0] + bins[1] + bins[2] + bins[3], 4);
    check_against_ref(GPGPU_F64, d, nd, 4, 0.0, 1.0, 0);
    check_against_ref(GPGPU_F64, d, nd, 5, -0.3, 0.7, 0);
    /* the same values through the 16-wide path of CPUs, at every lane */
    float fl[1003];
    double dl[1003];
    for (size_t i = 0; i < 1003; i++) {
        fl[i] = f[i % nf];
        dl[i] = d[i % nd];
    }
    check_against_ref(GPGPU_F32, fl, 1003, 4, 0.0, 1.0, 0);
    check_against_ref(GPGPU_F64, dl, 1003, 7, -0.3, 0.7, 0);
}
END_TEST

TU_TEST(float_edges_follow_the_documented_formula)
{
    enum { N = 4096 };
    float f[N];
    double d[N];
    /* every edge of 1000 bins over [-1, 1.5) and its float neighbours */
    for (int i = 0; i < N; i++) {
        double e = -1.0 + (i / 4) * 2.5 / 1000.0;
        float fe = (float)e;
        f[i] = i % 4 == 0 ? fe : i % 4 == 1 ? nextafterf(fe, -2) : nextafterf(fe, 2);
        d[i] = i % 4 == 0 ? e : i % 4 == 1 ? nextafter(e, -2) : nextafter(e, 2);
    }
    check_against_ref(GPGPU_F32, f, N, 1000, -1.0, 1.5, 0);
    check_against_ref(GPGPU_F64, d, N, 1000, -1.0, 1.5, 0);
    check_against_ref(GPGPU_F32, f, N, 333, -0.7, 1.1, 0);
    check_against_ref(GPGPU_F64, d, N, 333, -0.7, 1.1, 0);
}
END_TEST

TU_TEST(invalid_arguments_are_rejected)
{
    float x[4] = { 0 };
    uint64_t bins[4];
    ck_assert_int_eq(gpgpu_histogram(NULL, GPGPU_F32, x, 4, 4, 0, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_F32, x, 4, 0, 0, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "nbins") != NULL);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_F32, x, 4, 4, 1, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_F32, x, 4, 4, 2, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_I32, x, 4, 4, NAN, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_I32, x, 4, 4, 0, INFINITY, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_F64, x, 4, 4, -INFINITY, 0, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_F32, NULL, 4, 4, 0, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_F32, x, 4, 4, 0, 1, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, (gpgpu_type)99, x, 4, 4, 0, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram_rgba8(tu_ctx, (uint8_t *)x, 2, 2, 7, 4, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram_rgba8(tu_ctx, (uint8_t *)x, 2, 2, 8, 0, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram_rgba8(tu_ctx, NULL, 2, 2, 8, 1, bins),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_histogram_rgba8(tu_ctx, (uint8_t *)x, 2, 2, 8, 1, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
}
END_TEST

TU_TEST(integer_ranges_wider_than_2_to_the_64_are_unsupported)
{
    int32_t x[2] = { 1, 2 };
    uint64_t bins[2];
    ck_assert_int_eq(gpgpu_histogram(tu_ctx, GPGPU_I32, x, 2, 2, -1e30, 1e30, bins),
                     GPGPU_ERROR_UNSUPPORTED);
    /* ... unless no sample of the type can fall inside */
    tu_assert_ok(gpgpu_histogram(tu_ctx, GPGPU_U32, x, 2, 2, -1e30, -1e20, bins));
    ck_assert_uint_eq(bins[0] + bins[1], 0);
}
END_TEST

TU_TEST(empty_input_zeroes_the_bins)
{
    uint64_t bins[300];
    for (size_t i = 0; i < 6; i++) {
        memset(bins, 0xFF, sizeof bins);
        tu_assert_ok(gpgpu_histogram(tu_ctx, all_types[i], NULL, 0, 300, -1, 1, bins));
        for (size_t b = 0; b < 300; b++)
            ck_assert_uint_eq(bins[b], 0);
    }
    memset(bins, 0xFF, sizeof bins);
    tu_assert_ok(gpgpu_histogram_rgba8(tu_ctx, NULL, 0, 0, 0, 75, bins));
    for (size_t b = 0; b < 300; b++)
        ck_assert_uint_eq(bins[b], 0);
}
END_TEST

/* An image of width x height with rows stride bytes apart (padding random). */
static void check_rgba8(size_t width, size_t height, size_t stride, size_t nbins)
{
    uint64_t seed = tu_seed_for(width * 7919 + height, stride * 31 + nbins);
    size_t bytes = (height - 1) * stride + 4 * width;
    uint8_t *img = tu_alloc(bytes);
    uint64_t *got = tu_alloc(4 * nbins * 8), *want = tu_alloc(4 * nbins * 8);
    tu_fill(GPGPU_U32, img, bytes / 4, seed);
    for (size_t i = bytes / 4 * 4; i < bytes; i++)
        img[i] = (uint8_t)(i * 37);
    memset(got, 0x5A, 4 * nbins * 8);
    tu_assert_ok(gpgpu_histogram_rgba8(tu_ctx, img, width, height, stride, nbins, got));
    ref_histogram_rgba8(img, width, height, stride, nbins, want);
    for (size_t i = 0; i < 4 * nbins; i++)
        ck_assert_msg(got[i] == want[i],
                      "%zux%zu stride %zu nbins %zu: bin %zu is %llu, want %llu "
                      "[device %s, seed %llu]", width, height, stride, nbins, i,
                      (unsigned long long)got[i], (unsigned long long)want[i], tu_device,
                      (unsigned long long)seed);
    free(img);
    free(got);
    free(want);
}

TU_TEST(rgba8_odd_widths_and_padded_strides)
{
    static const size_t widths[] = { 1, 3, 17, 641 }, heights[] = { 1, 5, 37 };
    static const size_t pads[] = { 0, 3, 64 }, nbins[] = { 1, 3, 256, 1000 };
    for (size_t w = 0; w < 4; w++)
        for (size_t h = 0; h < 3; h++)
            for (size_t p = 0; p < 3; p++)
                check_rgba8(widths[w], heights[h], 4 * widths[w] + pads[p],
                            nbins[(w + h + p) % 4]);
}
END_TEST

TU_TEST(rgba8_image_sized)
{
    check_rgba8(1023, 769, 4 * 1024, 256);
    check_rgba8(333, 100, 4 * 333, 70000);
    /* the host's threads take parts of whole pixels that start and end
       inside rows, or span many one-pixel rows */
    check_rgba8(4099, 70, 4 * 4099 + 12, 1000);
    check_rgba8(1, 200003, 8, 7);
    check_rgba8(300007, 1, 4 * 300007, 4096);
}
END_TEST

TU_TEST(rgba8_gray_ramp_fills_every_bin_once)
{
    uint8_t img[256 * 4];
    uint64_t bins[4 * 256];
    for (int i = 0; i < 256; i++) {
        img[4 * i] = img[4 * i + 1] = img[4 * i + 2] = (uint8_t)i;
        img[4 * i + 3] = 0;
    }
    /* floor(c / 255 * 256) = c for c < 255; 255 -> bin 255 after the clamp;
       the luminance of gray c is c / 255 (the weights sum to 1). */
    tu_assert_ok(gpgpu_histogram_rgba8(tu_ctx, img, 256, 1, 1024, 256, bins));
    for (int i = 0; i < 4 * 256; i++)
        ck_assert_uint_eq(bins[i], 1);
}
END_TEST

/* The buffer form honours offsets and leaves the bins outside alone. */
TU_TEST(buffer_form_with_offsets)
{
    if (tu_is_host())
        return;
    enum { N = 5003, OFF = 17, NB = 100, BOFF = 3 };
    float x[N + OFF];
    uint64_t got[NB + BOFF + 1], want[NB];
    cl_int err;
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    tu_fill(GPGPU_F32, x, N + OFF, tu_seed_for(5, 5));
    memset(got, 0x11, sizeof got);
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof got, got,
                                &err);
    cl_event done;
    tu_assert_ok(gpgpu_histogram_buffer(tu_ctx, GPGPU_F32, in, OFF, N, NB, -900, 900, out,
                                        BOFF, 0, NULL, &done));
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 1, &done, NULL);
    ref_histogram(GPGPU_F32, x + OFF, N, NB, -900, 900, want);
    for (int i = 0; i < NB; i++)
        ck_assert_uint_eq(got[BOFF + i], want[i]);
    ck_assert_uint_eq(got[0], 0x1111111111111111ull);
    ck_assert_uint_eq(got[NB + BOFF], 0x1111111111111111ull);
    clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
}
END_TEST

int main(void)
{
    return tu_run("histogram", 300, NULL);
}
