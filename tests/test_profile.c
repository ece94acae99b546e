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

/* A _buffer call's records hold its copies and fills as well as its
   kernels: top_k of more than 1024 keys copies them next to their indices
   before it sorts them (and copies the first k of each out after). */
TU_TEST(records_hold_copies_and_fills)
{
    enum { N = 3001, K = 2000 };
    uint32_t keys[N];
    if (tu_is_host())
        return;
    tu_fill(GPGPU_U32, keys, N, 2);
    cl_context cl;
    cl_int err;
    ck_assert_int_eq(clGetCommandQueueInfo(gpgpu_queue(tu_ctx), CL_QUEUE_CONTEXT, sizeof cl,
                                           &cl, NULL), CL_SUCCESS);
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof keys, keys,
                               &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem vb = clCreateBuffer(cl, CL_MEM_READ_WRITE, K * sizeof keys[0], NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem ib = clCreateBuffer(cl, CL_MEM_READ_WRITE, K * sizeof(uint64_t), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    tu_assert_ok(gpgpu_set_profiling(tu_ctx, 1));
    cl_event done;
    tu_assert_ok(gpgpu_top_k_buffer(tu_ctx, GPGPU_U32, kb, 0, N, K, 0, vb, 0, ib, 0, 0, NULL,
                                    &done));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    const gpgpu_kernel_time *k;
    size_t nk = gpgpu_profile(tu_ctx, &k), copies = 0, kernels = 0;
    ck_assert_uint_ge(nk, 2);
    for (size_t i = 0; i < nk; i++) {
        ck_assert_uint_eq(k[i].pass, i);
        if (k[i].kernel[0] == '(') {
            ck_assert_uint_eq(k[i].local_size, 0);
            ck_assert_uint_gt(k[i].global_size, 0);
            copies += !strcmp(k[i].kernel, "(copy)") && k[i].global_size == sizeof keys;
        } else {
            kernels++;
        }
        ck_assert(k[i].start_ns <= k[i].end_ns);
        if (i)
            ck_assert(k[i - 1].end_ns <= k[i].start_ns);
    }
    ck_assert_uint_eq(copies, 1);
    ck_assert_uint_ge(kernels, 1);
    ck_assert_str_eq(k[0].kernel, "(copy)"); /* the keys' copy comes first */
    ck_assert_str_eq(k[nk - 1].kernel, "(copy)"); /* the indices out last */
    tu_assert_ok(gpgpu_set_profiling(tu_ctx, 0));
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    clReleaseMemObject(ib);
}
END_TEST

int main(void)
{
    return tu_run("profile", 0, NULL);
}
