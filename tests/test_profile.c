/* test_profile.c - per-kernel records from event timestamps. */
#include <stdlib.h>
#include <string.h>

#include "util.h"

TU_TEST(records_describe_each_pass)
{
    /* f32: integer reductions of this size may run on the host's threads
       (a discrete GPU's plan), float ones always run on the device */
    size_t n = 1 << 20;
    float *x = tu_alloc(n * 4), r;
    tu_fill(GPGPU_F32, x, n, 1);
    tu_assert_ok(gpgpu_set_profiling(tu_ctx, 1));
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_SUM, x, n, &r));
    const gpgpu_kernel_time *k;
    size_t nk = gpgpu_profile(tu_ctx, &k);
    if (tu_is_host()) {
        ck_assert_uint_eq(nk, 0);
    } else {
        ck_assert_uint_ge(nk, 1);
        for (size_t i = 0; i < nk; i++) {
            ck_assert_str_eq(k[i].kernel, "reduce_pass");
            ck_assert_uint_eq(k[i].pass, i);
            ck_assert_uint_gt(k[i].local_size, 0);
            ck_assert_uint_eq(k[i].global_size % k[i].local_size, 0);
            ck_assert(k[i].queued_ns <= k[i].submit_ns && k[i].submit_ns <= k[i].start_ns &&
                      k[i].start_ns <= k[i].end_ns);
            if (i)
                ck_assert(k[i - 1].end_ns <= k[i].start_ns);
        }
    }
    tu_assert_ok(gpgpu_set_profiling(tu_ctx, 0));
    tu_assert_ok(gpgpu_reduce(tu_ctx, GPGPU_F32, GPGPU_SUM, x, n, &r));
    ck_assert_uint_eq(gpgpu_profile(tu_ctx, &k), 0);
    ck_assert_uint_eq(gpgpu_profile(NULL, &k), 0);
    ck_assert_ptr_null(k);
    free(x);
}
END_TEST

int main(void)
{
    return tu_run("profile", 0, NULL);
}
