/* test_hostile.c - inputs a careless or hostile caller may pass: NULLs,
   absurd sizes, sizes whose byte count overflows, invalid enums, misaligned
   arrays, ranges outside the caller's buffers, unknown device specs. Each
   gets its documented status and a message, and nothing else happens: no
   crash, no sanitizer report, no write to the caller's data.
   (Cache directory attacks are in test_cache.c, failing allocations in
   test_faults.c.) One test case per behaviour; the other primitives add
   theirs beside these. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpgpu_cl.h"
#include "util.h"

/* A message for the caller names nothing of the library's insides: no
   internal function or macro (gpgpu__*, GPGPU__*), no struct field. */
static int no_internal_names(const char *msg)
{
    for (const char *p = msg; *p; p++)
        if (!strncasecmp(p, "gpgpu__", 7) || !strncmp(p, "->", 2))
            return 0;
    return 1;
}

/* Hostile calls made, for the closing count. */
static long hostile_calls;

/* call gives status want and leaves a message. */
#define EXPECT(want, call)                                                                 \
    do {                                                                                   \
        gpgpu_status s_ = (call);                                                          \
        hostile_calls++;                                                                   \
        ck_assert_msg(s_ == (want), "%s gave %s, not %s (%s) [device %s]", #call,          \
                      gpgpu_status_string(s_), gpgpu_status_string(want),                  \
                      gpgpu_last_error(tu_ctx), tu_device);                                \
        ck_assert_msg(*gpgpu_last_error(tu_ctx) != '\0', "%s left no message", #call);     \
        ck_assert_msg(no_internal_names(gpgpu_last_error(tu_ctx)),                         \
                      "%s: message names an internal: %s", #call, gpgpu_last_error(tu_ctx)); \
    } while (0)

/* Absurd element counts: the byte count overflows, or exceeds what any
   object can be (PTRDIFF_MAX): both are INVALID_ARGUMENT before anything is
   read, on every device. */
static const size_t absurd_n[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2, SIZE_MAX / 4 + 1,
                                  (size_t)PTRDIFF_MAX / 4 + 1};
enum { NABSURD = sizeof absurd_n / sizeof absurd_n[0] };

static const gpgpu_type bad_types[] = {(gpgpu_type)-1, (gpgpu_type)6, (gpgpu_type)1000,
                                       (gpgpu_type)INT32_MIN};
static const gpgpu_op bad_ops[] = {-1, 4, 15, INT32_MIN};

/* ---- library and context ---------------------------------------------- */

START_TEST(status_and_type_queries_take_any_value)
{
    ck_assert_str_eq(gpgpu_status_string((gpgpu_status)99), "unknown status");
    ck_assert_str_eq(gpgpu_status_string((gpgpu_status)-1), "unknown status");
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
        ck_assert_uint_eq(gpgpu_type_size(bad_types[i]), 0);
}
END_TEST

START_TEST(unknown_device_specs_are_no_device)
{
    static const char *specs[] = {"no-such-device-xyz", "99:0", "0:99", "4294967296:0",
                                  "0:", ":0", "-1:0", "0:0:0", " gpu", "GPU\n"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gpgpu_context *c = (gpgpu_context *)&c;
        gpgpu_status s = gpgpu_context_create(&c, specs[i]);
        if (tu_is_host() && s == GPGPU_SUCCESS) /* nothing else to compare with */
            continue;
        ck_assert_msg(s == GPGPU_ERROR_NO_DEVICE, "\"%s\" gave %s", specs[i],
                      gpgpu_status_string(s));
        ck_assert_ptr_null(c);
        ck_assert(*gpgpu_last_error(NULL));
    }
}
END_TEST

START_TEST(a_huge_device_spec_is_no_device)
{
    size_t n = 1 << 20;
    char *spec = tu_alloc(n + 1);
    memset(spec, 'x', n);
    spec[n] = '\0';
    gpgpu_context *c = (gpgpu_context *)&c;
    gpgpu_status s = gpgpu_context_create(&c, spec);
    free(spec);
    ck_assert_msg(s == GPGPU_ERROR_NO_DEVICE, "gave %s", gpgpu_status_string(s));
    ck_assert_ptr_null(c);
}
END_TEST

START_TEST(context_from_a_null_queue_is_invalid)
{
    gpgpu_context *c = (gpgpu_context *)&c;
    ck_assert_int_eq(gpgpu_context_from_queue(NULL, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_context_from_queue(&c, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_null(c);
    ck_assert_int_eq(gpgpu_context_create(NULL, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* An out-of-order queue would break the library's ordering of its passes. */
START_TEST(context_from_an_out_of_order_queue_is_unsupported)
{
    cl_command_queue q = gpgpu_queue(tu_ctx);
    if (!q)
        return;
    cl_context cl;
    cl_device_id dev;
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return; /* the device cannot make one */
    cl_int err;
    cl_command_queue ooo = clCreateCommandQueue(cl, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    ck_assert_ptr_nonnull(ooo);
    gpgpu_context *c = (gpgpu_context *)&c;
    ck_assert_int_eq(gpgpu_context_from_queue(&c, ooo), GPGPU_ERROR_UNSUPPORTED);
    ck_assert_ptr_null(c);
    clReleaseCommandQueue(ooo);
}
END_TEST

/* A queue without CL_QUEUE_PROFILING_ENABLE cannot time kernels. */
START_TEST(profiling_without_a_profiling_queue_is_unsupported)
{
    cl_command_queue q = gpgpu_queue(tu_ctx);
    if (!q)
        return;
    cl_context cl;
    cl_device_id dev;
    cl_int err;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    cl_command_queue plain = clCreateCommandQueue(cl, dev, 0, &err);
    ck_assert_ptr_nonnull(plain);
    gpgpu_context *c;
    tu_assert_ok(gpgpu_context_from_queue(&c, plain));
    ck_assert_int_eq(gpgpu_set_profiling(c, 1), GPGPU_ERROR_UNSUPPORTED);
    ck_assert(*gpgpu_last_error(c));
    tu_assert_ok(gpgpu_set_profiling(c, 0));
    uint32_t x[3] = {1, 2, 3}, r = 0;
    tu_assert_ok(gpgpu_reduce(c, GPGPU_U32, GPGPU_SUM, x, 3, &r));
    ck_assert_uint_eq(r, 6);
    ck_assert_uint_eq(gpgpu_profile(c, NULL), 0);
    gpgpu_context_destroy(c);
    clReleaseCommandQueue(plain);
}
END_TEST

/* ---- reduce -------------------------------------------------------------- */

START_TEST(reduce_with_absurd_n_is_invalid)
{
    uint32_t x[4] = {1, 2, 3, 4}, r = 77;
    for (int i = 0; i < NABSURD; i++) {
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, absurd_n[i], &r));
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_reduce(tu_ctx, GPGPU_F64, GPGPU_MAX, x, absurd_n[i], &r));
    }
    ck_assert_uint_eq(r, 77);
    ck_assert(x[0] == 1 && x[1] == 2 && x[2] == 3 && x[3] == 4);
}
END_TEST

START_TEST(reduce_with_invalid_enums_is_invalid)
{
    uint32_t x[4] = {1, 2, 3, 4}, r = 77;
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, bad_types[i], GPGPU_SUM, x, 4, &r));
    for (size_t i = 0; i < sizeof bad_ops / sizeof bad_ops[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, GPGPU_U32, bad_ops[i], x, 4, &r));
    gpgpu_status s = gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_OP_USER + 1000, x, 4, &r);
    ck_assert(s == GPGPU_ERROR_INVALID_ARGUMENT || s == GPGPU_ERROR_UNSUPPORTED);
    ck_assert_uint_eq(r, 77);
}
END_TEST

START_TEST(reduce_with_nulls_is_invalid_unless_n_is_zero)
{
    uint32_t x[2] = {5, 6}, r = 77;
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(NULL, GPGPU_U32, GPGPU_SUM, x, 2, &r));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 2, &r));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, 2, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, NULL));
    ck_assert_uint_eq(r, 77);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_MIN, NULL, 0, &r));
    ck_assert_uint_eq(r, UINT32_MAX);
}
END_TEST

/* A host array must be aligned to its element type (the host fallback reads
   it as one); the result is written byte-wise and may sit anywhere. */
START_TEST(reduce_of_a_misaligned_array_is_invalid)
{
    uint64_t store[9] = {0};
    unsigned char *bytes = (unsigned char *)store;
    for (int off = 1; off < 8; off++) {
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_reduce(tu_ctx, GPGPU_U64, GPGPU_SUM, bytes + off, 4, store + 8));
        if (off % 4)
            EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
                   gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_SUM, bytes + off, 4, store + 8));
    }
    ck_assert_uint_eq(store[8], 0);
    uint32_t x[5] = {1, 2, 3, 4, 5};
    for (int off = 0; off < 4; off++) {
        uint32_t r;
        tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, 5, bytes + 3 + off));
        memcpy(&r, bytes + 3 + off, sizeof r);
        ck_assert_uint_eq(r, 15);
    }
}
END_TEST

/* ---- reduce_buffer ----------------------------------------------------------- */

/* Buffers of the test's own on tu_ctx's context: 16 u32 in, 2 out. */
typedef struct {
    cl_mem in, out;
} bufs;

static int make_bufs(bufs *b)
{
    cl_command_queue q = gpgpu_queue(tu_ctx);
    if (!q)
        return 0;
    cl_context cl;
    cl_int err;
    uint32_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (uint32_t)i + 1;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    b->in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    b->out = clCreateBuffer(cl, CL_MEM_READ_WRITE, 2 * sizeof(uint32_t), NULL, &err);
    ck_assert(b->in && b->out);
    return 1;
}

static void free_bufs(bufs *b)
{
    clReleaseMemObject(b->in);
    clReleaseMemObject(b->out);
}

START_TEST(reduce_buffer_outside_the_buffers_is_invalid)
{
    bufs b;
    if (!make_bufs(&b))
        return;
    static const struct {
        size_t in_off, n, out_off;
    } bad[] = {{0, 17, 0},        {1, 16, 0},          {16, 1, 0},       {0, 16, 2},
               {0, 16, SIZE_MAX}, {SIZE_MAX, 1, 0},   {1, SIZE_MAX, 0}, {SIZE_MAX / 4, 2, 0},
               {0, SIZE_MAX / 4 + 1, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cl_event done = (cl_event)&done;
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, b.in, bad[i].in_off, bad[i].n,
                                   b.out, bad[i].out_off, 0, NULL, &done));
        ck_assert_msg(done == NULL, "case %zu: a failed call left *done set", i);
    }
    /* 64-bit elements: 8 of them fill the same 64 bytes. */
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U64, GPGPU_SUM, b.in, 0, 9, b.out, 0, 0, NULL, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U64, GPGPU_SUM, b.in, 0, 8, b.out, 1, 0, NULL, NULL));
    free_bufs(&b);
}
END_TEST

START_TEST(reduce_buffer_at_the_end_of_its_buffers_works)
{
    bufs b;
    if (!make_bufs(&b))
        return;
    cl_event done;
    uint32_t r = 0;
    tu_assert_ok(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, b.in, 10, 6, b.out, 1, 0, NULL,
                                     &done));
    clEnqueueReadBuffer(gpgpu_queue(tu_ctx), b.out, CL_TRUE, sizeof r, sizeof r, &r, 1, &done,
                        NULL);
    clReleaseEvent(done);
    ck_assert_uint_eq(r, 11 + 12 + 13 + 14 + 15 + 16);
    tu_assert_ok(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, b.in, 16, 0, b.out, 0, 0, NULL,
                                     NULL));
    clFinish(gpgpu_queue(tu_ctx));
    free_bufs(&b);
}
END_TEST

START_TEST(reduce_buffer_with_bad_arguments_is_invalid)
{
    bufs b;
    if (!make_bufs(&b))
        return;
    cl_event ev = NULL;
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_reduce_buffer(tu_ctx, bad_types[i], GPGPU_SUM, b.in, 0, 4, b.out, 0, 0, NULL, NULL));
    for (size_t i = 0; i < sizeof bad_ops / sizeof bad_ops[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, bad_ops[i], b.in, 0, 4, b.out, 0, 0, NULL, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, 4, b.out, 0, 0, NULL, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, b.in, 0, 4, NULL, 0, 0, NULL, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, b.in, 0, 4, b.out, 0, 1, NULL, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, b.in, 0, 4, b.out, 0, 0, &ev, NULL));
    free_bufs(&b);
}
END_TEST

/* ---- histogram -------------------------------------------------------------- */

static void fill_sentinel(uint64_t *bins, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bins[i] = 0x5a5a5a5a5a5a5a5aull;
}

static void assert_sentinel(const uint64_t *bins, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(bins[i] == 0x5a5a5a5a5a5a5a5aull, "a failed call wrote bins[%zu]", i);
}

START_TEST(histogram_with_absurd_n_is_invalid)
{
    uint32_t x[4] = {1, 2, 3, 4};
    uint64_t bins[4];
    fill_sentinel(bins, 4);
    for (int i = 0; i < NABSURD; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram(tu_ctx, GPGPU_U32, x, absurd_n[i], 4, 0, 4, bins));
    assert_sentinel(bins, 4);
}
END_TEST

START_TEST(histogram_with_non_finite_or_empty_bounds_is_invalid)
{
    static const double bounds[][2] = {
        {NAN, 1}, {0, NAN}, {-NAN, 1}, {NAN, NAN}, {-INFINITY, 0}, {0, INFINITY},
        {-INFINITY, INFINITY}, {INFINITY, INFINITY}, {1, 1}, {2, 1}, {-0.0, 0.0}, {0.0, -0.0}};
    float x[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    uint64_t bins[4];
    fill_sentinel(bins, 4);
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram(tu_ctx, GPGPU_F32, x, 4, 4, bounds[i][0], bounds[i][1], bins));
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram(tu_ctx, GPGPU_I32, x, 4, 4, bounds[i][0], bounds[i][1], bins));
    }
    assert_sentinel(bins, 4);
}
END_TEST

START_TEST(histogram_with_bad_bin_counts_is_invalid)
{
    static const size_t nbins[] = {0, ((size_t)1 << 31) + 1, SIZE_MAX, SIZE_MAX / 8 + 1};
    float x[4] = {0.5f, 1.5f, 2.5f, 3.5f};
    uint64_t bins[4];
    fill_sentinel(bins, 4);
    for (size_t i = 0; i < sizeof nbins / sizeof nbins[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram(tu_ctx, GPGPU_F32, x, 4, nbins[i], 0, 4, bins));
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram(tu_ctx, bad_types[i], x, 4, 4, 0, 4, bins));
    assert_sentinel(bins, 4);
}
END_TEST

START_TEST(histogram_of_a_misaligned_array_is_invalid)
{
    uint64_t store[5] = {0};
    uint64_t bins[4];
    fill_sentinel(bins, 4);
    for (int off = 1; off < 8; off++) {
        const unsigned char *in = (const unsigned char *)store + off;
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_histogram(tu_ctx, GPGPU_F64, in, 4, 4, 0, 4, bins));
        if (off % 4)
            EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
                   gpgpu_histogram(tu_ctx, GPGPU_I32, in, 4, 4, 0, 4, bins));
    }
    assert_sentinel(bins, 4);
}
END_TEST

/* 2^31 bins are 16 GiB of counters: more than the device can allocate
   (when that is so), which is OUT_OF_MEMORY before anything is written. */
START_TEST(histogram_beyond_device_memory_is_out_of_memory)
{
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_device_id dev;
    cl_ulong max_alloc = 0;
    if (!q) /* the host fallback would write all 2^31 bins */
        return;
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (max_alloc >= (cl_ulong)8 << 31)
        return;
    uint32_t x[4] = {1, 2, 3, 4};
    uint64_t bins[4];
    fill_sentinel(bins, 4);
    /* the kernels: a plan that keeps small calls on the host's code would
       count into all 2^31 bins, which a caller must provide */
    tu_force("GPGPU_HOST_BELOW=0");
    EXPECT(GPGPU_ERROR_OUT_OF_MEMORY,
           gpgpu_histogram(tu_ctx, GPGPU_U32, x, 4, (size_t)1 << 31, 0, 4, bins));
    assert_sentinel(bins, 4);
    tu_restore_ctx();
}
END_TEST

/* Images whose last byte lies beyond the address space. */
START_TEST(rgba8_with_overflowing_dimensions_is_invalid)
{
    static const size_t dims[][3] = {{1, SIZE_MAX / 2, 4},
                                     {2, 3, SIZE_MAX / 2},
                                     {SIZE_MAX / 4 + 1, 1, SIZE_MAX},
                                     {(size_t)1 << 31, (size_t)1 << 31, (size_t)1 << 33}};
    uint8_t px[64] = {0};
    uint64_t bins[16];
    fill_sentinel(bins, 16);
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram_rgba8(tu_ctx, px, dims[i][0], dims[i][1], dims[i][2], 4, bins));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_histogram_rgba8(tu_ctx, px, 2, 2, 8, ((size_t)1 << 29) + 1, bins));
    assert_sentinel(bins, 16);
}
END_TEST

START_TEST(histogram_buffer_outside_the_buffers_is_invalid)
{
    bufs b;
    if (!make_bufs(&b))
        return;
    /* in: 16 u32; bins (b.out): 8 bytes, one counter. */
    static const struct {
        size_t in_off, n, nbins, bins_off;
    } bad[] = {{0, 17, 1, 0}, {1, 16, 1, 0}, {SIZE_MAX, 1, 1, 0}, {1, SIZE_MAX, 1, 0},
               {0, 16, 2, 0}, {0, 16, 1, 1}, {0, 16, 1, SIZE_MAX}, {0, 16, (size_t)1 << 31, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cl_event done = (cl_event)&done;
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_histogram_buffer(tu_ctx, GPGPU_U32, b.in, bad[i].in_off, bad[i].n,
                                      bad[i].nbins, 0, 100, b.out, bad[i].bins_off, 0, NULL,
                                      &done));
        ck_assert_msg(done == NULL, "case %zu: a failed call left *done set", i);
    }
    free_bufs(&b);
}
END_TEST

/* ---- scan, sort, select, user operators ------------------------------------ */

START_TEST(scan_with_bad_arguments_is_invalid)
{
    uint32_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
    for (int i = 0; i < NABSURD; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, out, absurd_n[i]));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, (gpgpu_scan_kind)2, x, out, 8));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, (gpgpu_scan_kind)-1, x, out, 8));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, x + 1, 7));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x + 1, x, 7));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, (char *)x + 1, out, 4));
    for (int i = 0; i < 8; i++)
        ck_assert(x[i] == (uint32_t)i + 1 && out[i] == 0);
}
END_TEST

START_TEST(sort_with_bad_arguments_is_invalid)
{
    uint32_t k[8] = {8, 7, 6, 5, 4, 3, 2, 1}, v[8] = {0};
    static const unsigned bad_flags[] = {2, 3, 0x100, ~0u};
    for (size_t i = 0; i < sizeof bad_flags / sizeof bad_flags[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_sort(tu_ctx, GPGPU_U32, k, 8, bad_flags[i]));
    for (int i = 0; i < NABSURD; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_sort(tu_ctx, GPGPU_U32, k, absurd_n[i], 0));
    static const size_t bad_value_sizes[] = {0, 1, 3, 16, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad_value_sizes / sizeof bad_value_sizes[0]; i++)
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
               gpgpu_sort_pairs(tu_ctx, GPGPU_U32, k, v, bad_value_sizes[i], 8, 0));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_sort_pairs(tu_ctx, GPGPU_U32, k, NULL, 4, 8, 0));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_sort_pairs(tu_ctx, GPGPU_U32, k, v, 4, SIZE_MAX / 4 + 1, 0));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_sort(tu_ctx, GPGPU_U32, (char *)k + 2, 4, 0));
    for (int i = 0; i < 8; i++)
        ck_assert(k[i] == 8 - (uint32_t)i && v[i] == 0);
}
END_TEST

/* The other _buffer forms: in holds 16 u32, out 2. Every range outside a
   buffer is INVALID_ARGUMENT, and a failed call hands out no event. */
#define EXPECT_NO_EVENT(call)                                                          \
    do {                                                                               \
        cl_event done = (cl_event)&done;                                               \
        EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, call);                                    \
        ck_assert_msg(done == NULL, "%s left *done set", #call);                       \
    } while (0)

START_TEST(buffer_forms_outside_their_buffers_are_invalid)
{
    bufs b;
    if (!make_bufs(&b))
        return;
    EXPECT_NO_EVENT(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, b.in, 0,
                                      b.out, 0, 3, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, b.in,
                                      SIZE_MAX, b.out, 0, 1, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, (gpgpu_scan_kind)7, b.in, 0,
                                      b.out, 0, 1, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_sort_buffer(tu_ctx, GPGPU_U32, b.in, 1, 16, 0, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_sort_buffer(tu_ctx, GPGPU_U32, b.in, 0, SIZE_MAX, 0, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_sort_buffer(tu_ctx, GPGPU_U32, b.in, 0, 4, 2, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_sort_pairs_buffer(tu_ctx, GPGPU_U32, b.in, 0, b.out, 0, 4, 3, 0, 0,
                                            NULL, &done));
    EXPECT_NO_EVENT(gpgpu_sort_pairs_buffer(tu_ctx, GPGPU_U32, b.in, 0, b.out, 0, 3, 2, 0, 0,
                                            NULL, &done));
    EXPECT_NO_EVENT(gpgpu_select_buffer(tu_ctx, GPGPU_U32, "x > 1", b.in, 0, 16, b.out, 0,
                                        b.out, 0, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_select_buffer(tu_ctx, GPGPU_U32, "x > 1", b.in, 0, 16, b.in, 16,
                                        b.out, 1, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_transform_reduce_buffer(tu_ctx, GPGPU_U32, "x * 2", GPGPU_SUM, b.in,
                                                  1, 16, b.out, 0, 0, NULL, &done));
    EXPECT_NO_EVENT(gpgpu_transform_reduce_buffer(tu_ctx, GPGPU_U32, "x * 2", GPGPU_SUM, b.in,
                                                  0, 16, b.out, 2, 0, NULL, &done));
    free_bufs(&b);
}
END_TEST

/* Expressions that try to leave their place in the kernel, or are absurd. */
static const char *const hostile_expressions[] = {
    "a); } __kernel void evil(__global int *p) { p[0] = 1; ", "a + b; }", "a /* b */",
    "a // b", "#define X 1", "\"a\"", "'a'", "(a + b", "a + b)", "a)(b", "", "{a}",
    "a\n#include <x>"};

static char *huge_expression(void)
{
    size_t n = 1 << 20;
    char *e = tu_alloc(n + 1);
    for (size_t i = 0; i < n; i += 4)
        memcpy(e + i, "a+b+", 4);
    e[n - 1] = 'b';
    e[n] = '\0';
    return e;
}

START_TEST(select_with_hostile_predicates_is_invalid)
{
    uint32_t x[4] = {1, 2, 3, 4}, out[4] = {0};
    size_t count = 77;
    for (size_t i = 0; i < sizeof hostile_expressions / sizeof hostile_expressions[0]; i++) {
        gpgpu_status s = gpgpu_select(tu_ctx, GPGPU_U32, hostile_expressions[i], x, 4, out, &count);
        /* the fallback refuses what it does not evaluate: UNSUPPORTED */
        ck_assert_msg(s == GPGPU_ERROR_INVALID_ARGUMENT ||
                          s == (tu_is_host() ? GPGPU_ERROR_UNSUPPORTED : GPGPU_ERROR_BUILD),
                      "predicate \"%s\" gave %s", hostile_expressions[i], gpgpu_status_string(s));
    }
    char *huge = huge_expression();
    gpgpu_status s = gpgpu_select(tu_ctx, GPGPU_U32, huge, x, 4, out, &count);
    free(huge);
    ck_assert_msg(s != GPGPU_SUCCESS, "a 1 MiB predicate gave success");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_select(tu_ctx, GPGPU_U32, NULL, x, 4, out, &count));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_select(tu_ctx, GPGPU_U32, "x > 1", x, 4, out, NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_select(tu_ctx, GPGPU_U32, "x > 1", x, SIZE_MAX / 2, out, &count));
    ck_assert(x[0] == 1 && x[3] == 4);
}
END_TEST

START_TEST(op_define_with_hostile_expressions_fails_cleanly)
{
    gpgpu_op op = -7;
    if (tu_is_host())
        return; /* user operators need a device: UNSUPPORTED */
    for (size_t i = 0; i < sizeof hostile_expressions / sizeof hostile_expressions[0]; i++) {
        gpgpu_status s = gpgpu_op_define(tu_ctx, GPGPU_U32, hostile_expressions[i], "0", &op);
        ck_assert_msg(s == GPGPU_ERROR_INVALID_ARGUMENT || s == GPGPU_ERROR_BUILD,
                      "combine \"%s\" gave %s", hostile_expressions[i], gpgpu_status_string(s));
        s = gpgpu_op_define(tu_ctx, GPGPU_U32, "a + b", hostile_expressions[i], &op);
        ck_assert_msg(s == GPGPU_ERROR_INVALID_ARGUMENT || s == GPGPU_ERROR_BUILD,
                      "identity \"%s\" gave %s", hostile_expressions[i], gpgpu_status_string(s));
    }
    char *huge = huge_expression();
    ck_assert(gpgpu_op_define(tu_ctx, GPGPU_U32, huge, "0", &op) != GPGPU_SUCCESS);
    free(huge);
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_op_define(tu_ctx, GPGPU_U32, NULL, "0", &op));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_op_define(tu_ctx, GPGPU_U32, "a + b", NULL, &op));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_op_define(tu_ctx, GPGPU_U32, "a + b", "0", NULL));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_op_define(tu_ctx, (gpgpu_type)9, "a + b", "0", &op));
    ck_assert_int_eq(op, -7);
    uint32_t x[3] = {1, 2, 3}, r = 0;
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_transform_reduce(tu_ctx, GPGPU_U32, hostile_expressions[0], GPGPU_SUM, x, 3, &r));
    ck_assert_uint_eq(r, 0);
}
END_TEST

/* ---- messages in the caller's words --------------------------------------- */

/* The detail of the last failure starts with want (the public function, the
   parameter, the value given and the rule). */
#define EXPECT_MESSAGE(c, want)                                                            \
    do {                                                                                   \
        const char *m_ = gpgpu_last_error(c);                                              \
        ck_assert_msg(!strncmp(m_, (want), strlen(want)), "message \"%s\", not \"%s...\"", \
                      m_, (want));                                                         \
        ck_assert_msg(no_internal_names(m_), "internal name in \"%s\"", m_);               \
    } while (0)

START_TEST(messages_name_the_parameter_the_value_and_the_rule)
{
    uint32_t x[4] = {1, 2, 3, 4}, r = 0;
    uint64_t bins[4] = {0};
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_histogram(tu_ctx, GPGPU_U32, x, 4, (size_t)3000000000u, 0, 1, bins));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_histogram: nbins is 3000000000; at most 2147483648");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_histogram(tu_ctx, GPGPU_U32, x, 4, 4, 5, 5, bins));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_histogram: lo is 5 and hi is 5; lo must be below hi");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_histogram_rgba8(tu_ctx, (const uint8_t *)x, 4, 1, 15, 4, bins));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_histogram_rgba8: row_stride is 15 bytes and width 4 pixels");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, (gpgpu_type)1000, GPGPU_SUM, x, 4, &r));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_reduce: t is 1000; not a gpgpu_type");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, GPGPU_U32, 15, x, 4, &r));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_reduce: op is 15; need GPGPU_SUM, GPGPU_MIN, GPGPU_MAX");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 4, &r));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_reduce: in is NULL with n = 4; it may be NULL only when n is 0");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, (const char *)x + 1, 2, &r));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_reduce: in is ");
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "aligned to 4 bytes"));
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_sort(tu_ctx, GPGPU_U32, x, SIZE_MAX / 2, 0));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_sort: n is 9223372036854775807; at most ");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_sort(tu_ctx, GPGPU_U32, x, 4, 4));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_sort: flags is 0x4; only GPGPU_DESCENDING");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_sort_pairs(tu_ctx, GPGPU_U32, x, x, 2, 4, 0));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_sort_pairs: value_size is 2; need 4 or 8");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, (gpgpu_scan_kind)7, x, x, 4));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_scan: kind is 7; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, 0, NULL, 0, 1, NULL, NULL));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_reduce_buffer: result is NULL");
    ck_assert_int_eq(gpgpu_reduce(NULL, GPGPU_U32, GPGPU_SUM, x, 4, &r),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    EXPECT_MESSAGE(NULL, "gpgpu_reduce: ctx is NULL");
    size_t offs[2] = {0, 4}, cnt = 0;
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_segmented_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, NULL, 1, &r));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_segmented_reduce: offsets is NULL with nseg = 1; it may be "
                           "NULL only when nseg is 0");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_segmented_sort(tu_ctx, GPGPU_U32, x, offs, 1, 4));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_segmented_sort: flags is 4; need GPGPU_ASCENDING or "
                           "GPGPU_DESCENDING");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_reduce_by_key(tu_ctx, GPGPU_F32, x, GPGPU_U32, GPGPU_SUM, x, 4, x, x, &cnt));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_reduce_by_key: key_type is 2; need GPGPU_I32, GPGPU_U32, "
                           "GPGPU_I64 or GPGPU_U64");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT,
           gpgpu_histogram_edges(tu_ctx, GPGPU_U32, x, 4, (const double *)x, 0, bins));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_histogram_edges: nbins is 0; need at least 1");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_unique(tu_ctx, GPGPU_U32, x, 4, x + 1, &cnt));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_unique: in and out partly overlap (n = 4)");
    EXPECT(GPGPU_ERROR_INVALID_ARGUMENT, gpgpu_array_create(tu_ctx, GPGPU_U32, 4, NULL));
    EXPECT_MESSAGE(tu_ctx, "gpgpu_array_create: a is NULL");
    ck_assert_uint_eq(r, 0);
    ck_assert_uint_eq(bins[0], 0);
}
END_TEST

/* After all of the above, the context still computes. */
START_TEST(the_context_still_works_after_hostile_calls)
{
    uint32_t x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = (uint32_t)i;
    uint32_t r = 0;
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, 1000, &r));
    ck_assert_uint_eq(r, 499500);
}
END_TEST

static Suite *make(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("context");
    tcase_add_test(tc, status_and_type_queries_take_any_value);
    tcase_add_test(tc, unknown_device_specs_are_no_device);
    tcase_add_test(tc, a_huge_device_spec_is_no_device);
    tcase_add_test(tc, context_from_a_null_queue_is_invalid);
    tcase_add_test(tc, context_from_an_out_of_order_queue_is_unsupported);
    tcase_add_test(tc, profiling_without_a_profiling_queue_is_unsupported);
    suite_add_tcase(s, tc);
    tc = tcase_create("reduce");
    tcase_add_test(tc, reduce_with_absurd_n_is_invalid);
    tcase_add_test(tc, reduce_with_invalid_enums_is_invalid);
    tcase_add_test(tc, reduce_with_nulls_is_invalid_unless_n_is_zero);
    tcase_add_test(tc, reduce_of_a_misaligned_array_is_invalid);
    tcase_add_test(tc, reduce_buffer_outside_the_buffers_is_invalid);
    tcase_add_test(tc, reduce_buffer_at_the_end_of_its_buffers_works);
    tcase_add_test(tc, reduce_buffer_with_bad_arguments_is_invalid);
    suite_add_tcase(s, tc);
    tc = tcase_create("histogram");
    tcase_add_test(tc, histogram_with_absurd_n_is_invalid);
    tcase_add_test(tc, histogram_with_non_finite_or_empty_bounds_is_invalid);
    tcase_add_test(tc, histogram_with_bad_bin_counts_is_invalid);
    tcase_add_test(tc, histogram_of_a_misaligned_array_is_invalid);
    tcase_add_test(tc, histogram_beyond_device_memory_is_out_of_memory);
    tcase_add_test(tc, rgba8_with_overflowing_dimensions_is_invalid);
    tcase_add_test(tc, histogram_buffer_outside_the_buffers_is_invalid);
    suite_add_tcase(s, tc);
    tc = tcase_create("scan, sort, select, user operators");
    tcase_add_test(tc, scan_with_bad_arguments_is_invalid);
    tcase_add_test(tc, sort_with_bad_arguments_is_invalid);
    tcase_add_test(tc, buffer_forms_outside_their_buffers_are_invalid);
    tcase_add_test(tc, select_with_hostile_predicates_is_invalid);
    tcase_add_test(tc, op_define_with_hostile_expressions_fails_cleanly);
    suite_add_tcase(s, tc);
    tc = tcase_create("messages");
    tcase_add_test(tc, messages_name_the_parameter_the_value_and_the_rule);
    suite_add_tcase(s, tc);
    tc = tcase_create("afterwards");
    tcase_add_test(tc, the_context_still_works_after_hostile_calls);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int rc = tu_main(make);
    fprintf(stderr, "test_hostile: %ld hostile calls checked in all\n", hostile_calls);
    return rc;
}
