/* test_context.c - device choice, names, versions, contexts from queues and
   contexts shared between threads. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "util.h"

TU_TEST(version_and_status_strings)
{
    ck_assert_str_eq(gpgpu_version(), GPGPU_VERSION_STRING);
    ck_assert_str_eq(gpgpu_status_string(GPGPU_SUCCESS), "success");
    for (int a = 0; a <= GPGPU_ERROR_OPENCL; a++)
        for (int b = a + 1; b <= GPGPU_ERROR_OPENCL; b++)
            ck_assert_str_ne(gpgpu_status_string(a), gpgpu_status_string(b));
    ck_assert_str_eq(gpgpu_status_string((gpgpu_status)1234), "unknown status");
    ck_assert_uint_eq(gpgpu_type_size(GPGPU_F64), 8);
    ck_assert_uint_eq(gpgpu_type_size(GPGPU_I32), 4);
    ck_assert_uint_eq(gpgpu_type_size((gpgpu_type)77), 0);
}
END_TEST

TU_TEST(host_spec_gives_fallback)
{
    gpgpu_context *c;
    tu_assert_ok(gpgpu_context_create(&c, "host"));
    ck_assert_str_eq(gpgpu_device_name(c), "host");
    ck_assert_ptr_null(gpgpu_queue(c));
    uint32_t x[3] = {1, 2, 3}, r;
    tu_assert_ok(gpgpu_reduce(c, GPGPU_U32, GPGPU_SUM, x, 3, &r));
    ck_assert_uint_eq(r, 6);
    gpgpu_context_destroy(c);
}
END_TEST

TU_TEST(unknown_spec_is_no_device)
{
    gpgpu_context *c = (gpgpu_context *)&c;
    ck_assert_int_eq(gpgpu_context_create(&c, "no-such-device-anywhere"), GPGPU_ERROR_NO_DEVICE);
    ck_assert_ptr_null(c);
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(NULL), "no-such-device-anywhere"));
    ck_assert_int_eq(gpgpu_context_create(&c, "9:9"), GPGPU_ERROR_NO_DEVICE);
    ck_assert_int_eq(gpgpu_context_create(NULL, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
}
END_TEST

TU_TEST(environment_chooses_device)
{
    gpgpu_context *c;
    setenv("GPGPU_DEVICE", "host", 1);
    tu_assert_ok(gpgpu_context_create(&c, NULL));
    ck_assert_str_eq(gpgpu_device_name(c), "host");
    gpgpu_context_destroy(c);
    setenv("GPGPU_DEVICE", "bogus-device-name", 1);
    ck_assert_int_eq(gpgpu_context_create(&c, NULL), GPGPU_ERROR_NO_DEVICE);
    /* the argument wins over the environment */
    tu_assert_ok(gpgpu_context_create(&c, "host"));
    gpgpu_context_destroy(c);
    unsetenv("GPGPU_DEVICE");
}
END_TEST

/* The default device is found again by its index and by a part of its
   name in another case. */
TU_TEST(index_and_name_specs)
{
    if (tu_is_host())
        return;
    char part[8] = "";
    const char *name = gpgpu_device_name(tu_ctx);
    for (int i = 0; i < 6 && name[i]; i++)
        part[i] = (char)toupper((unsigned char)name[i]);
    gpgpu_context *c;
    tu_assert_ok(gpgpu_context_create(&c, part));
    ck_assert_str_eq(gpgpu_device_name(c), name);
    gpgpu_context_destroy(c);
    tu_assert_ok(gpgpu_context_create(&c, "0:0"));
    gpgpu_context_destroy(c);
    gpgpu_context_destroy(NULL);
}
END_TEST

TU_TEST(context_from_callers_queue)
{
    if (tu_is_host())
        return;
    cl_command_queue q0 = gpgpu_queue(tu_ctx);
    cl_context cl;
    cl_device_id dev;
    clGetCommandQueueInfo(q0, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    clGetCommandQueueInfo(q0, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    gpgpu_context *c;
    tu_assert_ok(gpgpu_context_from_queue(&c, q));
    ck_assert_ptr_eq(gpgpu_queue(c), q);
    clReleaseCommandQueue(q); /* the context holds its own reference */
    ck_assert_int_eq(gpgpu_set_profiling(c, 1), GPGPU_ERROR_UNSUPPORTED);
    uint32_t x[5] = {5, 4, 3, 2, 1}, r;
    tu_assert_ok(gpgpu_reduce(c, GPGPU_U32, GPGPU_MIN, x, 5, &r));
    ck_assert_uint_eq(r, 1);
    ck_assert_uint_eq(gpgpu_profile(c, NULL), 0);
    gpgpu_context_destroy(c);
    ck_assert_int_eq(gpgpu_context_from_queue(&c, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
}
END_TEST

typedef struct {
    gpgpu_context *ctx;
    int seed, ok;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    size_t n = 10007 + 1000 * (size_t)w->seed;
    int64_t *x = malloc(n * sizeof *x), want = 0, got;
    w->ok = 1;
    for (size_t i = 0; i < n; i++)
        want += x[i] = (int64_t)(i * 31 + (size_t)w->seed);
    for (int r = 0; r < 5; r++)
        if (gpgpu_reduce(w->ctx, GPGPU_I64, GPGPU_SUM, x, n, &got) != GPGPU_SUCCESS || got != want)
            w->ok = 0;
    free(x);
    return NULL;
}

TU_TEST(one_context_many_threads)
{
    pthread_t th[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){tu_ctx, i, 0};
        pthread_create(&th[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(w[i].ok, "thread %d got a wrong sum", i);
    }
}
END_TEST

int main(void)
{
    return tu_run("context", 0, NULL);
}
