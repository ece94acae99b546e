/* test_reduce.c - gpgpu_reduce and gpgpu_reduce_buffer against ref_reduce. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref.h"
#include "util.h"

static const gpgpu_type types[] = {GPGPU_I32, GPGPU_U32, GPGPU_F32, GPGPU_I64, GPGPU_U64, GPGPU_F64};
static const gpgpu_op ops[] = {GPGPU_SUM, GPGPU_MIN, GPGPU_MAX};
/* 0, 1, 2, around a vector (4), a work item's minimum share (64 x 8 items
   on PoCL, 64 x 256 on GPUs), the single-group limit and primes. */
static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 31, 511, 512, 513, 16383, 16384, 16385,
                               65537, 1000003};
#define BIG (((size_t)1 << 22) + 3)

/* Checks one result; floats sums within the bound of a tree of at most
   n additions. */
static void check(gpgpu_type t, gpgpu_op op, const void *in, size_t n, const void *got,
                  const char *what)
{
    unsigned char want[8];
    long double exact, abs_sum;
    size_t size = gpgpu_type_size(t);
    ref_reduce(t, op, in, n, want, &exact, &abs_sum);
    if ((t == GPGPU_F32 || t == GPGPU_F64) && op == GPGPU_SUM) {
        long double g = t == GPGPU_F32 ? *(const float *)got : *(const double *)got;
        long double eps = t == GPGPU_F32 ? 0x1p-24L : 0x1p-53L;
        long double bound = (64 + 2 * log2l((long double)n + 1)) * eps * abs_sum;
        ck_assert_msg(fabsl(g - exact) <= bound,
                      "%s type %d op %d n %zu: got %.17Lg want %.17Lg (bound %.3Lg) seed %llu",
                      what, t, op, n, g, exact, bound, (unsigned long long)tu_seed());
        return;
    }
    ck_assert_msg(!memcmp(got, want, size), "%s type %d op %d n %zu: wrong result, seed %llu",
                  what, t, op, n, (unsigned long long)tu_seed());
}

static void reduce_sizes(gpgpu_type t, const size_t *ns, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        size_t n = ns[k], size = gpgpu_type_size(t);
        void *in = tu_alloc(n * size), *copy = tu_alloc(n * size);
        tu_fill(t, in, n, tu_seed_for(t, n));
        memcpy(copy, in, n * size);
        for (size_t o = 0; o < 3; o++) {
            unsigned char got[8];
            gpgpu_status s = gpgpu_reduce(tu_ctx, t, ops[o], in, n, got);
            tu_assert_ok(s);
            check(t, ops[o], in, n, got, "gpgpu_reduce");
        }
        ck_assert_msg(!memcmp(in, copy, n * size), "input changed");
        free(in);
        free(copy);
    }
}

TU_LOOP_TEST(every_type_op_and_size, 6)
{
    reduce_sizes(types[_i], sizes, sizeof sizes / sizeof sizes[0]);
}
END_TEST

TU_LOOP_TEST(millions, 6)
{
    size_t n = BIG;
    reduce_sizes(types[_i], &n, 1);
}
END_TEST

TU_TEST(empty_gives_identity)
{
    int32_t i;
    float f;
    uint64_t u;
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_I32, GPGPU_MIN, NULL, 0, &i));
    ck_assert_int_eq(i, INT32_MAX);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_I32, GPGPU_MAX, NULL, 0, &i));
    ck_assert_int_eq(i, INT32_MIN);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_MIN, NULL, 0, &f));
    ck_assert(isinf(f) && f > 0);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_MAX, NULL, 0, &f));
    ck_assert(isinf(f) && f < 0);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U64, GPGPU_SUM, NULL, 0, &u));
    ck_assert_uint_eq(u, 0);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U64, GPGPU_MIN, NULL, 0, &u));
    ck_assert_uint_eq(u, UINT64_MAX);
}
END_TEST

TU_TEST(integer_sums_wrap)
{
    uint32_t u[3] = {UINT32_MAX, 2, 5}, r;
    int32_t s[2] = {INT32_MAX, 1}, q;
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, u, 3, &r));
    ck_assert_uint_eq(r, 6);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_I32, GPGPU_SUM, s, 2, &q));
    ck_assert_int_eq(q, INT32_MIN);
}
END_TEST

TU_TEST(float_min_max_skip_nan)
{
    float x[5] = {NAN, 3.0f, -2.0f, NAN, 7.0f}, r;
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_MIN, x, 5, &r));
    ck_assert(r == -2.0f);
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_MAX, x, 5, &r));
    ck_assert(r == 7.0f);
}
END_TEST

TU_TEST(float_sum_is_deterministic)
{
    size_t n = 3000017;
    float *x = tu_alloc(n * sizeof *x), a, b;
    tu_fill(GPGPU_F32, x, n, tu_seed_for(99, n));
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_SUM, x, n, &a));
    for (int r = 0; r < 3; r++) {
        tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_SUM, x, n, &b));
        ck_assert_msg(!memcmp(&a, &b, sizeof a), "run %d gave other bits", r);
    }
    free(x);
}
END_TEST

/* Host calls of float sums that the plan's sum-f keeps on the host run
   the kernels' own combining tree there: the same bits as the kernels
   (the _array form; a NaN sum is a NaN), on the default plan and on an
   overridden one, for random data and data with the special values (NaN,
   infinities, zeros of both signs, subnormals) scattered in. */
TU_TEST(float_sums_on_the_host_match_the_kernels)
{
    if (tu_is_host())
        return;
    const char *was = getenv("GPGPU_HOST_BELOW");
    char keep[64];
    snprintf(keep, sizeof keep, "%s", was ? was : "");
    static const char *const plans[] = {"GPGPU_HOST_BELOW=sum-f=all",
                                        "GPGPU_HOST_BELOW=sum-f=all GPGPU_WG=4 GPGPU_GROUPS=3"};
    static const size_t ns[] = {1, 5, 1000, 4097, 70001, (1 << 20) + 3};
    for (size_t pi = 0; pi < 2; pi++) {
        gpgpu_context *c = tu_context_with(plans[pi]);
        for (int ti = 0; ti < 2; ti++) {
            const gpgpu_type t = ti ? GPGPU_F64 : GPGPU_F32;
            const size_t size = gpgpu_type_size(t);
            if (tu_skip_type(t))
                continue;
            for (size_t si = 0; si < sizeof ns / sizeof *ns; si++)
                for (int specials = 0; specials < 2; specials++) {
                    const size_t n = ns[si];
                    char *x = tu_alloc(n * size);
                    tu_fill(t, x, n, tu_seed_for(1700 + specials, n * 4 + pi * 2 + ti));
                    for (size_t k = 0; specials && k < TU_NSPECIALS && k < n; k++)
                        memcpy(x + (k * 7919 % n) * size,
                               ti ? (const void *)&tu_f64_specials[k]
                                  : (const void *)&tu_f32_specials[k], size);
                    uint64_t host = 0, kernels = 0;
                    gpgpu_array *a = NULL;
                    tu_assert_ok(gpgpu_reduce(c, t, GPGPU_SUM, x, n, &host));
                    tu_assert_ok(gpgpu_array_create(c, t, n, &a));
                    tu_assert_ok(gpgpu_array_write(c, a, 0, x, n));
                    tu_assert_ok(gpgpu_reduce_array(c, GPGPU_SUM, a, &kernels));
                    /* a NaN sum's payload is the adder's pick among its NaN
                       operands, which the compiler may commute */
                    double hv, kv;
                    ck_assert_msg(tu_same_float(t, &host, &kernels, &hv, &kv),
                                  "%s n=%zu specials %d, plan %s [device %s, seed %llu]",
                                  ti ? "f64" : "f32", n, specials, plans[pi], tu_device,
                                  (unsigned long long)tu_seed());
                    gpgpu_array_destroy(a);
                    free(x);
                }
        }
        gpgpu_context_destroy(c);
    }
    if (was)
        setenv("GPGPU_HOST_BELOW", keep, 1);
}
END_TEST

/* The buffer form at every alignment of the offset, with a wait list and a
   done event. */
TU_TEST(buffer_form_with_offsets)
{
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, 0, NULL, 0,
                                             0, NULL, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
        return;
    }
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    size_t n = 100003;
    uint64_t *x = tu_alloc(n * 8);
    tu_fill(GPGPU_U64, x, n, tu_seed_for(7, n));
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8 * 8, NULL, &err);
    for (size_t off = 0; off < 4; off++) {
        cl_event marker, done;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
        tu_assert_ok(gpgpu_reduce_buffer(tu_ctx, GPGPU_U64, GPGPU_SUM, in, off, n - off - 1, out,
                                         off + 2, 1, &marker, &done));
        uint64_t got, want = 0;
        clEnqueueReadBuffer(q, out, CL_TRUE, (off + 2) * 8, 8, &got, 1, &done, NULL);
        for (size_t i = off; i < n - 1; i++)
            want += x[i];
        ck_assert_uint_eq(got, want);
        clReleaseEvent(marker);
        clReleaseEvent(done);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
}
END_TEST

int main(void)
{
    return tu_run("reduce", 600, NULL);
}
