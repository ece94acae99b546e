/* test_errors.c - every invalid argument of the context, reduce and
   profiling functions gets INVALID_ARGUMENT (or its documented status), a
   message, and leaves the caller's data alone. The other primitives check
   their own arguments in their suites. */
#include <stdint.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "util.h"

TU_TEST(reduce_rejects_bad_arguments)
{
    uint32_t x[4] = {1, 2, 3, 4}, r = 77;
    REJECTED(gpgpu_reduce(NULL, GPGPU_U32, GPGPU_SUM, x, 4, &r));
    REJECTED(gpgpu_reduce(tu_ctx, (gpgpu_type)6, GPGPU_SUM, x, 4, &r));
    REJECTED(gpgpu_reduce(tu_ctx, (gpgpu_type)-1, GPGPU_SUM, x, 4, &r));
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "gpgpu_reduce"));
    REJECTED(gpgpu_reduce(tu_ctx, GPGPU_U32, 4, x, 4, &r));
    REJECTED(gpgpu_reduce(tu_ctx, GPGPU_U32, -1, x, 4, &r));
    REJECTED(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 4, &r));
    REJECTED(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, 4, NULL));
    REJECTED(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_SUM, x, SIZE_MAX, &r));
    REJECTED(gpgpu_reduce(tu_ctx, GPGPU_U64, GPGPU_SUM, x, SIZE_MAX / 4, &r));
    ck_assert_uint_eq(r, 77);
    ck_assert(x[0] == 1 && x[3] == 4);
}
END_TEST

TU_TEST(user_op_that_was_never_defined)
{
    uint32_t x[2] = {1, 2}, r = 5;
    gpgpu_status s = gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_OP_USER + 40, x, 2, &r);
    ck_assert(s == GPGPU_ERROR_INVALID_ARGUMENT || s == GPGPU_ERROR_UNSUPPORTED);
    ck_assert_uint_eq(r, 5);
}
END_TEST

TU_TEST(reduce_buffer_rejects_bad_arguments)
{
    cl_event ev;
    REJECTED(gpgpu_reduce_buffer(NULL, GPGPU_U32, GPGPU_SUM, NULL, 0, 0, NULL, 0, 0, NULL, NULL));
    REJECTED(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, 0, NULL, 0, 0, NULL, NULL));
    REJECTED(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, 5, NULL, 0, 0, NULL, NULL));
    REJECTED(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, 9, NULL, 0, 0, NULL, 0, 0, NULL, NULL));
    REJECTED(gpgpu_reduce_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, NULL, 0, 0, NULL, 0, 1, NULL, &ev));
}
END_TEST

TU_TEST(context_functions_accept_null)
{
    ck_assert_str_eq(gpgpu_device_name(NULL), "");
    ck_assert_ptr_null(gpgpu_queue(NULL));
    ck_assert_str_eq(gpgpu_plan_description(NULL), "");
    ck_assert_ptr_nonnull(gpgpu_last_error(NULL));
    REJECTED(gpgpu_set_profiling(NULL, 1));
    ck_assert_uint_eq(gpgpu_profile(NULL, NULL), 0);
    gpgpu_context_destroy(NULL);
}
END_TEST

int main(void)
{
    return tu_run("errors", 0, NULL);
}
