/* test_userop.c - gpgpu_op_define (with reduce and scan), gpgpu_transform_reduce
   and gpgpu_select against the plain-C references of ref_userop.c, and the
   expressions that must be refused. Each distinct expression is a program
   to compile, so the tables below give every type a few, not every pair. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "ref_userop.h"
#include "util.h"

/* 0, 1, 2, around a vector (4), a reduce work item's minimum share, a select
   tile on PoCL (32768) and on GPUs (4096), and primes. */
static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 31, 511, 512, 513, 4095, 4096, 4097,
                               32767, 32768, 32769, 65537, 1000003};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define BIG (((size_t)1 << 22) + 3)

/* ---- inputs ---------------------------------------------------------------- */

typedef enum { FILL_RANDOM, FILL_SIGNS, FILL_ODD } fill_kind;

/* FILL_SIGNS: +1 or -1 (signed integers: products stay exact); FILL_ODD:
   odd values (their wrapping products never reach 0). */
static void *make_input(gpgpu_type t, size_t n, fill_kind kind, uint64_t seed)
{
    void *in = tu_alloc(n * gpgpu_type_size(t));
    tu_fill(t, in, n, seed);
    for (size_t i = 0; i < n && kind != FILL_RANDOM; i++) {
        ref_val v = ref_get(t, in, i);
        int wide = gpgpu_type_size(t) == 8;
        if (kind == FILL_SIGNS && wide)
            v.i64 = v.i64 < 0 ? -1 : 1;
        else if (kind == FILL_SIGNS)
            v.i32 = v.i32 < 0 ? -1 : 1;
        else if (wide)
            v.u64 |= 1;
        else
            v.u32 |= 1;
        ref_put(t, in, i, v);
    }
    return in;
}

/* ---- reference operators ---------------------------------------------------- */

static ref_val mul_i32(ref_val a, ref_val b) { a.i32 = (int32_t)((uint32_t)a.i32 * (uint32_t)b.i32); return a; }
static ref_val mul_u64(ref_val a, ref_val b) { a.u64 *= b.u64; return a; }
static ref_val max_u32(ref_val a, ref_val b) { return a.u32 > b.u32 ? a : b; }
static ref_val min_i64(ref_val a, ref_val b) { return a.i64 < b.i64 ? a : b; }
static ref_val max_f(ref_val a, ref_val b) { return a.f > b.f ? a : b; }
static ref_val hypot_f(ref_val a, ref_val b) { a.f = sqrtl(a.f * a.f + b.f * b.f); return a; }
static ref_val sum_i32(ref_val a, ref_val b) { a.u32 += b.u32; return a; }
static ref_val sum_f(ref_val a, ref_val b) { a.f += b.f; return a; }

typedef struct {
    gpgpu_type t;
    const char *combine, *identity;
    ref_combine ref;
    ref_val ref_identity;
    fill_kind fill;
    double tol;          /* relative; 0: exact */
} op_case;

static const op_case op_cases[] = {
    {GPGPU_I32, "a * b", "1", mul_i32, {.i32 = 1}, FILL_SIGNS, 0},
    {GPGPU_U32, "a > b ? a : b", "0", max_u32, {.u32 = 0}, FILL_RANDOM, 0},
    {GPGPU_F32, "hypot(a, b)", "0", hypot_f, {.f = 0}, FILL_RANDOM, 1e-4},
    {GPGPU_I64, "min(a, b)", "LONG_MAX", min_i64, {.i64 = INT64_MAX}, FILL_RANDOM, 0},
    {GPGPU_U64, "a * b", "1", mul_u64, {.u64 = 1}, FILL_ODD, 0},
    {GPGPU_F64, "hypot(a, b)", "0.0", hypot_f, {.f = 0}, FILL_RANDOM, 1e-10},
    {GPGPU_F32, "a > b ? a : b", "-INFINITY", max_f, {.f = -INFINITY}, FILL_RANDOM, 0},
};
#define NOPS (sizeof op_cases / sizeof op_cases[0])

static gpgpu_op define(const op_case *c)
{
    gpgpu_op op = -1;
    tu_assert_ok(gpgpu_op_define(tu_ctx, c->t, c->combine, c->identity, &op));
    ck_assert_int_ge(op, GPGPU_OP_USER);
    return op;
}

/* got[i] (device bits) against want: exact, or within tol * scale. Check's
   assertions cost a call each, too many for every element of a scan: only
   a failure reaches one. */
static void check_value(gpgpu_type t, const void *got, size_t i, ref_val want, double tol,
                        long double scale, const char *what, size_t n)
{
    if (tol > 0) {
        long double g = ref_get(t, got, i).f;
        if (fabsl(g - want.f) > tol * scale + 1e-30L)
            ck_abort_msg("%s type %d n %zu [%zu]: got %.17Lg want %.17Lg, seed %llu", what, t,
                         n, i, g, want.f, (unsigned long long)tu_seed());
        return;
    }
    unsigned char w[8];
    size_t size = gpgpu_type_size(t);
    ref_put(t, w, 0, want);
    if (memcmp((const char *)got + i * size, w, size))
        ck_abort_msg("%s type %d n %zu [%zu]: wrong value, seed %llu", what, t, n, i,
                     (unsigned long long)tu_seed());
}

static ref_val sq_u32(ref_val x);

/* ---- user operators ---------------------------------------------------------- */

static void op_reduce(const op_case *c, gpgpu_op op, size_t n)
{
    void *in = make_input(c->t, n, c->fill, tu_seed_for(c->t, n));
    unsigned char got[8];
    tu_assert_ok(gpgpu_reduce(tu_ctx, c->t, op, in, n, got));
    ref_val want = ref_map_reduce(c->t, c->ref, c->ref_identity, NULL, in, n, NULL);
    check_value(c->t, got, 0, want, c->tol, fabsl(want.f), c->combine, n);
    free(in);
}

static void op_scan(const op_case *c, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(c->t);
    void *in = make_input(c->t, n, c->fill, tu_seed_for(c->t + 10, n));
    void *out = tu_alloc(n * size);
    ref_val *want = tu_alloc(n * sizeof *want);
    for (int kind = GPGPU_EXCLUSIVE; kind <= GPGPU_INCLUSIVE; kind++) {
        tu_assert_ok(gpgpu_scan(tu_ctx, c->t, op, kind, in, out, n));
        ref_user_scan(c->t, c->ref, c->ref_identity, kind, in, want, n);
        for (size_t i = 0; i < n; i++)
            check_value(c->t, out, i, want[i], c->tol, fabsl(want[i].f), c->combine, n);
    }
    free(in);
    free(out);
    free(want);
}

TU_LOOP_TEST(user_op_reduces_and_scans, NOPS)
{
    const op_case *c = &op_cases[_i];
    if (tu_is_host()) {
        gpgpu_op op;
        ck_assert_int_eq(gpgpu_op_define(tu_ctx, c->t, c->combine, c->identity, &op),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    gpgpu_op op = define(c);
    for (size_t k = 0; k < NSIZES; k++) {
        op_reduce(c, op, sizes[k]);
        op_scan(c, op, sizes[k]);
    }
}
END_TEST

TU_LOOP_TEST(user_op_millions, 2)
{
    if (tu_is_host())
        return;
    const op_case *c = &op_cases[_i == 0 ? 0 : 2]; /* exact i32 product, f32 hypot */
    gpgpu_op op = define(c);
    op_reduce(c, op, BIG);
    op_scan(c, op, BIG);
}
END_TEST

TU_TEST(same_definition_same_op)
{
    if (tu_is_host())
        return;
    gpgpu_op a, b, c;
    tu_assert_ok(gpgpu_op_define(tu_ctx, GPGPU_U32, "a > b ? a : b", "0", &a));
    tu_assert_ok(gpgpu_op_define(tu_ctx, GPGPU_U32, "a >\n b ? a : b", "0", &b));
    tu_assert_ok(gpgpu_op_define(tu_ctx, GPGPU_I32, "a * b", "1", &c));
    ck_assert_int_eq(a, b);
    ck_assert_int_ne(a, c);
}
END_TEST

TU_TEST(op_of_other_type_or_unknown_is_invalid)
{
    uint32_t x[3] = {1, 2, 3}, r;
    if (!tu_is_host()) {
        gpgpu_op op = define(&op_cases[0]); /* i32 */
        ck_assert_int_eq(gpgpu_reduce(tu_ctx, GPGPU_U32, op, x, 3, &r),
                         GPGPU_ERROR_INVALID_ARGUMENT);
        ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, op, GPGPU_INCLUSIVE, x, x, 3),
                         GPGPU_ERROR_INVALID_ARGUMENT);
        ck_assert_int_eq(gpgpu_reduce(tu_ctx, GPGPU_U32, GPGPU_OP_USER + 1000, x, 3, &r),
                         GPGPU_ERROR_INVALID_ARGUMENT);
    }
    ck_assert_int_eq(gpgpu_reduce(tu_ctx, GPGPU_U32, 7, x, 3, &r), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(x[0] == 1 && x[1] == 2 && x[2] == 3);
}
END_TEST

/* ---- maps -------------------------------------------------------------------- */

static ref_val sq_f(ref_val x) { x.f = x.f * x.f; return x; }
static ref_val abs_f(ref_val x) { x.f = fabsl(x.f); return x; }
static ref_val positive_i32(ref_val x) { x.i32 = x.i32 > 0; return x; }
static ref_val sq_u32(ref_val x) { x.u32 *= x.u32; return x; }
static ref_val low16_i64(ref_val x) { x.i64 &= 0xffff; return x; }
static ref_val odd_u64(ref_val x) { x.u64 |= 1; return x; }

typedef struct {
    gpgpu_type t;
    const char *map;
    ref_map ref;
    int user_op;         /* index into op_cases, or -1 for builtin */
    gpgpu_op builtin;
    ref_combine combine;
    ref_val identity;
    double tol;          /* relative to the sum of |map(x)|; 0: exact */
} map_case;

static const map_case map_cases[] = {
    {GPGPU_F32, "x * x", sq_f, -1, GPGPU_SUM, sum_f, {.f = 0}, 1e-5},
    {GPGPU_F64, "fabs(x)", abs_f, -1, GPGPU_SUM, sum_f, {.f = 0}, 1e-13},
    {GPGPU_I32, "x > 0 ? 1 : 0", positive_i32, -1, GPGPU_SUM, sum_i32, {.i32 = 0}, 0},
    {GPGPU_U32, "x * x", sq_u32, 1, 0, max_u32, {.u32 = 0}, 0},
    {GPGPU_I64, "x & 0xffff", low16_i64, 3, 0, min_i64, {.i64 = INT64_MAX}, 0},
    {GPGPU_U64, "x | 1", odd_u64, 4, 0, mul_u64, {.u64 = 1}, 0},
    {GPGPU_F32, "fabs(x)", abs_f, -1, GPGPU_MAX, max_f, {.f = -INFINITY}, 0},
};
#define NMAPS (sizeof map_cases / sizeof map_cases[0])

static void map_reduce(const map_case *c, gpgpu_op op, size_t n)
{
    void *in = make_input(c->t, n, FILL_RANDOM, tu_seed_for(c->t + 20, n));
    unsigned char got[8];
    long double abs_sum;
    tu_assert_ok(gpgpu_transform_reduce(tu_ctx, c->t, c->map, op, in, n, got));
    ref_val want = ref_map_reduce(c->t, c->combine, c->identity, c->ref, in, n, &abs_sum);
    check_value(c->t, got, 0, want, c->tol, abs_sum, c->map, n);
    free(in);
}

TU_LOOP_TEST(maps_fuse_into_reduce, NMAPS)
{
    const map_case *c = &map_cases[_i];
    if (tu_is_host() && c->user_op >= 0) {
        gpgpu_op op;
        ck_assert_int_eq(gpgpu_op_define(tu_ctx, op_cases[c->user_op].t,
                                         op_cases[c->user_op].combine,
                                         op_cases[c->user_op].identity, &op),
                         GPGPU_ERROR_UNSUPPORTED);
        return; /* user operators need a device; maps alone work on the fallback */
    }
    gpgpu_op op = c->user_op >= 0 ? define(&op_cases[c->user_op]) : c->builtin;
    for (size_t k = 0; k < NSIZES; k++)
        map_reduce(c, op, sizes[k]);
}
END_TEST

TU_TEST(map_millions)
{
    map_reduce(&map_cases[0], GPGPU_SUM, BIG);
}
END_TEST

/* ---- select ------------------------------------------------------------------ */

static int keep_positive_i32(ref_val x, uint64_t i) { (void)i; return x.i32 > 0; }
static int keep_low_bits_u32(ref_val x, uint64_t i) { (void)i; return (x.u32 & 3) == 0; }
static int keep_small_odd_f(ref_val x, uint64_t i) { return fabsl(x.f) < 500 && (i & 1); }
static int keep_third_i64(ref_val x, uint64_t i) { (void)x; return i % 3 == 0; }
static int keep_high_u64(ref_val x, uint64_t i) { (void)i; return x.u64 > 0x8000000000000000ull; }
static int keep_positive_f(ref_val x, uint64_t i) { (void)i; return x.f > 0; }
static int keep_all(ref_val x, uint64_t i) { (void)x; (void)i; return 1; }
static int keep_none(ref_val x, uint64_t i) { (void)x; (void)i; return 0; }

typedef struct {
    gpgpu_type t;
    const char *pred;
    ref_pred ref;
} select_case;

static const select_case select_cases[] = {
    {GPGPU_I32, "x > 0", keep_positive_i32},
    {GPGPU_U32, "(x & 3) == 0", keep_low_bits_u32},
    {GPGPU_F32, "fabs(x) < 500 && (i & 1)", keep_small_odd_f},
    {GPGPU_I64, "i % 3 == 0", keep_third_i64},
    {GPGPU_U64, "x > 0x8000000000000000UL", keep_high_u64},
    {GPGPU_F64, "x > 0", keep_positive_f},
    {GPGPU_I32, "1", keep_all},
    {GPGPU_F32, "0", keep_none},
};
#define NSELECTS (sizeof select_cases / sizeof select_cases[0])

/* in_place: out is in (allowed by the API). */
static void select_one(const select_case *c, size_t n, int in_place)
{
    size_t size = gpgpu_type_size(c->t), count = (size_t)-1;
    void *in = make_input(c->t, n, FILL_RANDOM, tu_seed_for(c->t + 30, n));
    void *copy = tu_alloc(n * size), *want = tu_alloc(n * size);
    void *out = in_place ? in : tu_alloc(n * size);
    memcpy(copy, in, n * size);
    tu_assert_ok(gpgpu_select(tu_ctx, c->t, c->pred, in, n, out, &count));
    size_t want_count = ref_select(c->t, c->ref, copy, n, want);
    ck_assert_msg(count == want_count, "%s n %zu: count %zu want %zu, seed %llu", c->pred, n,
                  count, want_count, (unsigned long long)tu_seed());
    ck_assert_msg(!memcmp(out, want, count * size), "%s n %zu: wrong elements, seed %llu",
                  c->pred, n, (unsigned long long)tu_seed());
    if (!in_place) {
        ck_assert_msg(!memcmp(in, copy, n * size), "%s: input changed", c->pred);
        free(out);
    }
    free(in);
    free(copy);
    free(want);
}

TU_LOOP_TEST(select_keeps_in_order, NSELECTS)
{
    const select_case *c = &select_cases[_i];
    for (size_t k = 0; k < NSIZES; k++)
        select_one(c, sizes[k], 0);
}
END_TEST

TU_TEST(select_in_place_and_millions)
{
    select_one(&select_cases[0], 100003, 1);
    select_one(&select_cases[2], BIG, 0);
}
END_TEST

/* The buffer form at several offsets, with a wait list and a done event;
   i counts from the first selected element, not from the buffer's start. */
TU_TEST(select_buffer_with_offsets)
{
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_select_buffer(tu_ctx, GPGPU_I64, "x > 0", NULL, 0, 0, NULL, 0,
                                             NULL, 0, 0, NULL, NULL),
                         GPGPU_ERROR_INVALID_ARGUMENT);
        return;
    }
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const select_case *c = &select_cases[3]; /* i64, i % 3 == 0 */
    size_t n = 70001, size = 8;
    int64_t *x = make_input(c->t, n, FILL_RANDOM, tu_seed_for(40, n));
    int64_t *got = tu_alloc(n * size), *want = tu_alloc(n * size);
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * size, x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, (n + 8) * size, NULL, &err);
    cl_mem cnt = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8 * sizeof(cl_ulong), NULL, &err);
    for (size_t off = 0; off < 4; off++) {
        size_t len = n - off - 1;
        cl_event marker, done;
        cl_ulong count;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
        tu_assert_ok(gpgpu_select_buffer(tu_ctx, c->t, c->pred, in, off, len, out, off + 3, cnt,
                                         off, 1, &marker, &done));
        clEnqueueReadBuffer(q, cnt, CL_TRUE, off * sizeof count, sizeof count, &count, 1, &done,
                            NULL);
        size_t want_count = ref_select(c->t, c->ref, x + off, len, want);
        ck_assert_uint_eq(count, want_count);
        clEnqueueReadBuffer(q, out, CL_TRUE, (off + 3) * size, count * size, got, 0, NULL, NULL);
        ck_assert(!memcmp(got, want, count * size));
        clReleaseEvent(marker);
        clReleaseEvent(done);
    }
    ck_assert_int_eq(gpgpu_select_buffer(tu_ctx, c->t, c->pred, in, 0, 100, in, 50, cnt, 0, 0,
                                         NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseMemObject(cnt);
    free(x);
    free(got);
    free(want);
}
END_TEST

/* A user operator through gpgpu_reduce_buffer, gpgpu_transform_reduce_buffer
   (at offsets, with a wait list and a done event) and gpgpu_scan_buffer. */
TU_TEST(user_op_buffer_forms)
{
    if (tu_is_host())
        return;
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    const op_case *c = &op_cases[1]; /* u32 max */
    gpgpu_op op = define(c);
    size_t n = 40009;
    uint32_t *x = make_input(c->t, n, FILL_RANDOM, tu_seed_for(50, n));
    uint32_t *got = tu_alloc(n * 4), r;
    ref_val *want = tu_alloc(n * sizeof *want);
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    tu_assert_ok(gpgpu_reduce_buffer(tu_ctx, c->t, op, in, 0, n, out, 0, 0, NULL, NULL));
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, 4, &r, 0, NULL, NULL);
    ck_assert_uint_eq(r, ref_map_reduce(c->t, c->ref, c->ref_identity, NULL, x, n, NULL).u32);
    cl_event marker, done;
    clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
    tu_assert_ok(gpgpu_transform_reduce_buffer(tu_ctx, c->t, "x * x", op, in, 5, n - 5, out, 3,
                                               1, &marker, &done));
    clEnqueueReadBuffer(q, out, CL_TRUE, 3 * 4, 4, &r, 1, &done, NULL);
    ck_assert_uint_eq(r, ref_map_reduce(c->t, c->ref, c->ref_identity, sq_u32, x + 5, n - 5,
                                        NULL).u32);
    clReleaseEvent(marker);
    clReleaseEvent(done);
    tu_assert_ok(gpgpu_scan_buffer(tu_ctx, c->t, op, GPGPU_INCLUSIVE, in, 0, out, 0, n, 0, NULL,
                                   NULL));
    clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * 4, got, 0, NULL, NULL);
    ref_user_scan(c->t, c->ref, c->ref_identity, GPGPU_INCLUSIVE, x, want, n);
    for (size_t i = 0; i < n; i++)
        check_value(c->t, got, i, want[i], 0, 0, c->combine, n);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
    free(got);
    free(want);
}
END_TEST

/* ---- expressions that must be refused ------------------------------------------ */

static const char *const hostile[] = {
    "a; }",
    "a) + (b",
    "(a + b",
    "a + b)",
    "a[0) + (b]",
    "({ a; })",
    "a }\n__kernel void evil(__global int *p) { p[0] = 1; } int f(int a, int b) { return a",
    "a\n#define USER_COMBINE 0",
    "a /* b */",
    "a // b",
    "a + \"b\"",
    "a + 'b'",
    "a \\\n + b",
    "a ?" "?> b", /* a trigraph for } */
    "a <% b %>",
    "a %: b",
    "",
    "   \n\t ",
    "a \x01 b",
    "a + b\xc3\xa9",
    /* pointer use: address spaces, pointer casts, unary & */
    "(*(__global int *)0 = 1) + a + b",
    "a + *(global float *)0",
    "a + (local float)b",
    "a + (__private float)b",
    "constant + a",
    "a + (__generic float)b",
    "a + *(float *)0",
    "a + *(float * const volatile )0",
    "a + *&b",
    "a + (&b)[0]",
    "a && &b",
    "a + -&b[0]",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

/* The buffer forms get a dummy handle: the expression is refused before
   any buffer is looked at. */
TU_TEST(hostile_expressions_are_invalid)
{
    gpgpu_op op = 12345;
    float x[4] = {1, 2, 3, 4}, out[4] = {0}, r;
    size_t count = 99;
    for (size_t k = 0; k < NHOSTILE; k++) {
        const char *e = hostile[k];
        ck_assert_msg(gpgpu_op_define(tu_ctx, GPGPU_F32, e, "0", &op) ==
                          GPGPU_ERROR_INVALID_ARGUMENT, "combine \"%s\" accepted", e);
        ck_assert_msg(strlen(gpgpu_last_error(tu_ctx)) > 0, "no detail for \"%s\"", e);
        ck_assert_msg(gpgpu_op_define(tu_ctx, GPGPU_F32, "a + b", e, &op) ==
                          GPGPU_ERROR_INVALID_ARGUMENT, "identity \"%s\" accepted", e);
        ck_assert_msg(gpgpu_transform_reduce(tu_ctx, GPGPU_F32, e, GPGPU_SUM, x, 4, &r) ==
                          GPGPU_ERROR_INVALID_ARGUMENT, "map \"%s\" accepted", e);
        ck_assert_msg(gpgpu_select(tu_ctx, GPGPU_F32, e, x, 4, out, &count) ==
                          GPGPU_ERROR_INVALID_ARGUMENT, "predicate \"%s\" accepted", e);
        ck_assert(gpgpu_transform_reduce_buffer(tu_ctx, GPGPU_F32, e, GPGPU_SUM, NULL, 0, 0,
                                                (cl_mem)&out, 0, 0, NULL, NULL) ==
                  GPGPU_ERROR_INVALID_ARGUMENT);
        ck_assert(gpgpu_select_buffer(tu_ctx, GPGPU_F32, e, NULL, 0, 0, NULL, 0, (cl_mem)&out,
                                      0, 0, NULL, NULL) == GPGPU_ERROR_INVALID_ARGUMENT);
    }
    ck_assert_int_eq(op, 12345);
    ck_assert_uint_eq(count, 99);
    ck_assert(x[0] == 1 && x[3] == 4 && out[0] == 0);
}
END_TEST

/* Binary '&', '&&', '*' and names that merely contain a keyword are not
   pointer use. */
TU_TEST(values_that_look_like_pointer_use_are_accepted)
{
    static const char *const ok[] = {"(a & b) | (a * b)", "a && b ? a : b", "(a * (b))",
                                     "a & (b * 3)", "a&b", "(a)&b"};
    gpgpu_op op;
    int32_t x[3] = {6, 3, 5}, r = 0;
    if (tu_is_host())
        return; /* user operators need a device: UNSUPPORTED */
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++)
        tu_assert_ok(gpgpu_op_define(tu_ctx, GPGPU_I32, ok[k], "0", &op));
    tu_assert_ok(gpgpu_transform_reduce(tu_ctx, GPGPU_I32, "x & (x * 3)", GPGPU_SUM, x, 3, &r));
    ck_assert_int_eq(r, (6 & 18) + (3 & 9) + (5 & 15));
    size_t count = 0;
    int32_t out[3];
    tu_assert_ok(gpgpu_select(tu_ctx, GPGPU_I32, "(x & 1) && (i & 3) != 3", x, 3, out, &count));
    ck_assert_uint_eq(count, 2);
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, GPGPU_I32, "a + *(int *)0", "0", &op),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(gpgpu_last_error(tu_ctx), "pointer"));
}
END_TEST

TU_TEST(overlong_expression_is_invalid)
{
    char *e = tu_alloc(5000);
    gpgpu_op op;
    strcpy(e, "a");
    for (int k = 0; k < 1200; k++)
        strcat(e, "+b");
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, GPGPU_I32, e, "0", &op),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "long") != NULL);
    free(e);
}
END_TEST

TU_TEST(null_arguments_are_invalid)
{
    gpgpu_op op;
    int32_t x[2] = {1, 2}, r;
    size_t count;
    ck_assert_int_eq(gpgpu_op_define(NULL, GPGPU_I32, "a", "0", &op), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, GPGPU_I32, NULL, "0", &op), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, GPGPU_I32, "a", NULL, &op), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, GPGPU_I32, "a", "0", NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, (gpgpu_type)9, "a", "0", &op), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_transform_reduce(tu_ctx, GPGPU_I32, NULL, GPGPU_SUM, x, 2, &r), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_transform_reduce(tu_ctx, GPGPU_I32, "x", GPGPU_SUM, NULL, 2, &r), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_transform_reduce(tu_ctx, GPGPU_I32, "x", 5, x, 2, &r), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_select(tu_ctx, GPGPU_I32, NULL, x, 2, x, &count), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_select(tu_ctx, GPGPU_I32, "x", x, 2, NULL, &count), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_select(tu_ctx, GPGPU_I32, "x", x, 2, x, NULL), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_select(tu_ctx, GPGPU_I32, "x", x, 2, x + 1, &count), GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(x[0] == 1 && x[1] == 2);
}
END_TEST

/* Expressions that pass the checks but do not compile: BUILD with the
   compiler's words about them. */
TU_TEST(non_compiling_expression_is_build_error)
{
    gpgpu_op op = 12345;
    float x[3] = {1, 2, 3}, out[3], r;
    size_t count;
    gpgpu_status want = tu_is_host() ? GPGPU_ERROR_UNSUPPORTED : GPGPU_ERROR_BUILD;
    ck_assert_int_eq(gpgpu_op_define(tu_ctx, GPGPU_F32, "a + no_such_name", "0", &op), want);
    ck_assert_int_eq(op, 12345);
    if (tu_is_host())
        return;
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "no_such_name") != NULL, "log: %s",
                  gpgpu_last_error(tu_ctx));
    ck_assert_int_eq(gpgpu_transform_reduce(tu_ctx, GPGPU_F32, "x +* 2", GPGPU_SUM, x, 3, &r),
                     GPGPU_ERROR_BUILD);
    ck_assert_int_eq(gpgpu_select(tu_ctx, GPGPU_F32, "x > undefined_limit", x, 3, out, &count),
                     GPGPU_ERROR_BUILD);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "undefined_limit") != NULL);
}
END_TEST

TU_TEST(empty_input)
{
    int32_t r = 7;
    size_t count = 7;
    tu_assert_ok(gpgpu_transform_reduce(tu_ctx, GPGPU_I32, "x > 0 ? 1 : 0", GPGPU_SUM, NULL, 0, &r));
    ck_assert_int_eq(r, 0);
    tu_assert_ok(gpgpu_select(tu_ctx, GPGPU_I32, "x > 0", NULL, 0, NULL, &count));
    ck_assert_uint_eq(count, 0);
}
END_TEST

/* Several threads define the same operators and use them at once: the
   operator list is shared and may grow under their feet. */
static void *define_and_reduce(void *arg)
{
    const op_case *c = &op_cases[(uintptr_t)arg % 2];
    size_t n = 10007;
    void *in = make_input(c->t, n, c->fill, tu_seed_for(60, n));
    unsigned char got[8], want[8];
    uintptr_t ok = 1;
    for (int r = 0; r < 4; r++) {
        gpgpu_op op;
        ok &= gpgpu_op_define(tu_ctx, c->t, c->combine, c->identity, &op) == GPGPU_SUCCESS;
        ok &= gpgpu_reduce(tu_ctx, c->t, op, in, n, got) == GPGPU_SUCCESS;
        ref_put(c->t, want, 0, ref_map_reduce(c->t, c->ref, c->ref_identity, NULL, in, n, NULL));
        ok &= !memcmp(got, want, gpgpu_type_size(c->t));
    }
    free(in);
    return (void *)ok;
}

TU_TEST(threads_define_concurrently)
{
    if (tu_is_host())
        return;
    pthread_t th[4];
    for (uintptr_t k = 0; k < 4; k++)
        pthread_create(&th[k], NULL, define_and_reduce, (void *)k);
    for (int k = 0; k < 4; k++) {
        void *ok;
        pthread_join(th[k], &ok);
        ck_assert_msg(ok == (void *)1, "thread %d failed", k);
    }
}
END_TEST

/* ---- maps and predicates on the host ---------------------------------------- */

/* Expressions in the part of OpenCL C that the host evaluates itself
   (lib/host/host_expr.c): small calls on a CPU device and every call on
   the fallback. Each against its own C reference on the same inputs: on
   the fallback, its context; on a device, a context whose plan gives
   every such call to the host (GPGPU_HOST_BELOW=expr=all: the exact
   part only) and one that gives them all to the kernels (expr=0): the
   kernel compiler's reading of the expression, its conversions and its
   rounding must be the reference's too. */
typedef union {
    int32_t i32;
    uint32_t u32;
    float f32;
    int64_t i64;
    uint64_t u64;
    double f64;
} hx;

typedef struct {
    gpgpu_type t;
    const char *expr;
    int pred;       /* 1: a predicate (select); 0: a map (transform_reduce) */
    int specials;   /* inputs include the types' edge values (NaN, INT_MIN, ...) */
    void (*ref)(const hx *x, uint64_t i, hx *out); /* pred: out->i32 */
} hexpr_case;

#define HREF(NAME, BODY) \
    static void NAME(const hx *x, uint64_t i, hx *o) { (void)i; BODY; }
HREF(u_lin, o->u32 = x->u32 * 3u + 7u)
HREF(u_shl, o->u32 = x->u32 << 1)
HREF(u_shr, o->u32 = x->u32 >> 3)
HREF(u_xor_rem, o->u32 = (x->u32 ^ 0xdeadbeefu) % 1000u)
HREF(u_not_div, o->u32 = ~x->u32 / 7u)
HREF(u_neg, o->u32 = 0u - x->u32)
HREF(u_cond, o->u32 = x->u32 > 100u ? x->u32 - 100u : 0u)
HREF(u_sdiv, o->u32 = (uint32_t)((int32_t)x->u32 / -3))
HREF(u_abs, { int32_t v = (int32_t)x->u32; o->u32 = v < 0 ? 0u - (uint32_t)v : (uint32_t)v; })
HREF(u_minmax, o->u32 = (x->u32 < 1000u ? x->u32 : 1000u) + (x->u32 > 5u ? x->u32 : 5u))
HREF(u_lits, o->u32 = x->u32 + 32u)
HREF(u_lt_neg, o->u32 = x->u32 < 0xffffffffu)
HREF(i_divrem, o->i32 = (int32_t)((uint32_t)(x->i32 / 7) - (uint32_t)(x->i32 % 7)))
HREF(i_sar, o->i32 = x->i32 >> 3)
HREF(i_cmps, o->i32 = (x->i32 < -5) + (x->i32 >= 5) * 2)
HREF(i_wrap, o->i32 = (int32_t)((uint32_t)x->i32 * 2147483647u))
HREF(i_min_div, o->i32 = INT32_MIN / ((x->i32 & 15) + 1))
HREF(i_by_float, o->i32 = (int32_t)((float)(x->i32 & 0xffff) * 1.5f))
HREF(f_half, o->f32 = x->f32 * 0.5f)
HREF(f_third, o->f32 = x->f32 / 3.0f)
HREF(f_prod, o->f32 = (x->f32 - 1.5f) * (x->f32 + 2.5f))
HREF(f_dbl, o->f32 = (float)((double)x->f32 * 0.1))
HREF(f_clip, o->f32 = fabsf(x->f32) > 1e3f ? 1e3f : x->f32)
HREF(f_floor_ceil, o->f32 = floorf(x->f32) + ceilf(x->f32))
HREF(f_trunc, o->f32 = truncf(x->f32) - x->f32)
HREF(f_fma, o->f32 = fmaf(x->f32, x->f32, 1.0f))
HREF(f_int, o->f32 = (float)(int32_t)x->f32)
HREF(f_neg, o->f32 = -x->f32)
HREF(f_nan, o->f32 = isnan(x->f32) ? -1.0f : x->f32)
HREF(f_bits, o->f32 = (float)((signbit(x->f32) != 0) + (isinf(x->f32) != 0) * 2))
HREF(f_ne, o->f32 = (float)(x->f32 != x->f32))
HREF(f_mixed, o->f32 = x->f32 > 0 ? 1.0f : 0.5f)
HREF(d_sq, o->f64 = x->f64 * x->f64)
HREF(d_div_add, o->f64 = x->f64 / 7.0 + 1.0)
HREF(d_flt_lit, o->f64 = x->f64 > (double)0.1f ? x->f64 : -x->f64)
HREF(l_lin, o->i64 = (int64_t)((uint64_t)x->i64 * 3u - (uint64_t)(x->i64 >> 2)))
HREF(l_zext, o->i64 = (int64_t)(uint32_t)x->i64)
HREF(ul_rem, o->u64 = x->u64 % 1000000007u)
HREF(ul_shr64, o->u64 = x->u64)
HREF(ul_add_hex, o->u64 = x->u64 + 0xffffffffu)
HREF(p_u_lt_neg, o->i32 = x->u32 < 0xffffffffu)
HREF(p_i_logic, o->i32 = (x->i32 > 0 && x->i32 % 3 == 0) || i == 5)
HREF(p_f_not_ge, o->i32 = !(x->f32 >= 0.0f))
HREF(p_d_gt, o->i32 = x->f64 > (double)0.1f)
HREF(p_l_xor, o->i32 = ((i & 1) != 0) ^ (x->i64 < 0))
HREF(p_ul_high, o->i32 = x->u64 > 0x8000000000000000u)
HREF(p_f_classes, o->i32 = isinf(x->f32) || (isfinite(x->f32) && x->f32 < 0))
HREF(p_u_index, o->i32 = (x->u32 & 0xffu) == i % 256u)

static const hexpr_case hexpr_cases[] = {
    {GPGPU_U32, "x * 3u + 7", 0, 1, u_lin},
    {GPGPU_U32, "x << 33", 0, 1, u_shl},
    {GPGPU_U32, "x >> 35", 0, 1, u_shr},
    {GPGPU_U32, "(x ^ 0xdeadbeef) % 1000", 0, 1, u_xor_rem},
    {GPGPU_U32, "~x / 7", 0, 1, u_not_div},
    {GPGPU_U32, "-x", 0, 1, u_neg},
    {GPGPU_U32, "x > 100 ? x - 100 : 0", 0, 1, u_cond},
    {GPGPU_U32, "(int)x / -3", 0, 1, u_sdiv},
    {GPGPU_U32, "abs((int)x)", 0, 1, u_abs},
    {GPGPU_U32, "min(x, 1000u) + max(x, 5u)", 0, 1, u_minmax},
    {GPGPU_U32, "017 + 0x10 + 1u + x", 0, 1, u_lits},
    {GPGPU_U32, "x < -1", 0, 1, u_lt_neg},
    {GPGPU_I32, "x / 7 - x % 7", 0, 1, i_divrem},
    {GPGPU_I32, "x >> 3", 0, 1, i_sar},
    {GPGPU_I32, "(x < -5) + (x >= 5) * 2", 0, 1, i_cmps},
    {GPGPU_I32, "x * 2147483647", 0, 1, i_wrap},
    {GPGPU_I32, "INT_MIN / ((x & 15) + 1)", 0, 1, i_min_div},
    {GPGPU_I32, "(x & 0xffff) * 1.5f", 0, 1, i_by_float},
    {GPGPU_F32, "x * 0.5f", 0, 1, f_half},
    {GPGPU_F32, "x / 3.0f", 0, 1, f_third},
    {GPGPU_F32, "(x - 1.5f) * (x + 2.5f)", 0, 1, f_prod},
    {GPGPU_F32, "x * 0.1", 0, 1, f_dbl},
    {GPGPU_F32, "fabs(x) > 1e3f ? 1e3f : x", 0, 1, f_clip},
    {GPGPU_F32, "floor(x) + ceil(x)", 0, 1, f_floor_ceil},
    {GPGPU_F32, "trunc(x) - x", 0, 1, f_trunc},
    {GPGPU_F32, "fma(x, x, 1.0f)", 0, 1, f_fma},
    {GPGPU_F32, "(float)(int)x", 0, 0, f_int},
    {GPGPU_F32, "-x", 0, 1, f_neg},
    {GPGPU_F32, "isnan(x) ? -1.0f : x", 0, 1, f_nan},
    {GPGPU_F32, "signbit(x) + isinf(x) * 2", 0, 1, f_bits},
    {GPGPU_F32, "x != x", 0, 1, f_ne},
    {GPGPU_F32, "x > 0 ? 1 : 0.5f", 0, 1, f_mixed},
    {GPGPU_F64, "x * x", 0, 1, d_sq},
    {GPGPU_F64, "x / 7 + 1", 0, 1, d_div_add},
    {GPGPU_F64, "x > 0.1f ? x : -x", 0, 1, d_flt_lit},
    {GPGPU_I64, "x * 3 - (x >> 2)", 0, 1, l_lin},
    {GPGPU_I64, "(long)(uint)x", 0, 1, l_zext},
    {GPGPU_U64, "x % 1000000007ul", 0, 1, ul_rem},
    {GPGPU_U64, "x >> 64", 0, 1, ul_shr64},
    {GPGPU_U64, "x + 0xffffffff", 0, 1, ul_add_hex},
    {GPGPU_U32, "x < -1", 1, 1, p_u_lt_neg},
    {GPGPU_I32, "x > 0 && x % 3 == 0 || i == 5", 1, 1, p_i_logic},
    {GPGPU_F32, "!(x >= 0.0f)", 1, 1, p_f_not_ge},
    {GPGPU_F64, "x > 0.1f", 1, 1, p_d_gt},
    {GPGPU_I64, "(i & 1) != 0 ^ x < 0", 1, 1, p_l_xor},
    {GPGPU_U64, "x > 0x8000000000000000", 1, 1, p_ul_high},
    {GPGPU_F32, "isinf(x) || isfinite(x) && x < 0", 1, 1, p_f_classes},
    {GPGPU_U32, "(x & 0xff) == i % 256", 1, 1, p_u_index},
};
#define NHEXPRS (sizeof hexpr_cases / sizeof hexpr_cases[0])

enum { HX_N = 331 };

/* Random values of t, then (specials) its edge values every 17th place. */
static void hexpr_inputs(gpgpu_type t, int specials, void *buf, uint64_t seed)
{
    static const uint64_t edges32[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 2, 100, 101};
    static const uint64_t edges64[] = {0, 1, UINT64_MAX, INT64_MAX, (uint64_t)INT64_MIN,
                                       0x8000000000000000u, 0xffffffffu, 0x100000000u};
    const size_t size = gpgpu_type_size(t);
    tu_fill(t, buf, HX_N, seed);
    if (!specials)
        return;
    for (size_t k = 0, at = 3; at < HX_N; k++, at += 17) {
        unsigned char *p = (unsigned char *)buf + at * size;
        if (t == GPGPU_F32) {
            memcpy(p, &tu_f32_specials[k % TU_NSPECIALS], 4);
        } else if (t == GPGPU_F64) {
            memcpy(p, &tu_f64_specials[k % TU_NSPECIALS], 8);
        } else if (size == 4) {
            uint32_t v = (uint32_t)edges32[k % 8];
            memcpy(p, &v, 4);
        } else {
            memcpy(p, &edges64[k % 8], 8);
        }
    }
}

/* Values equal, or both NaN (-0 and +0 equal: a sum of one element may
   add it to +0), or floats of one sign at most ulps apart. */
static int hx_same(gpgpu_type t, const hx *a, const hx *b, unsigned ulps)
{
    switch (t) {
    case GPGPU_F32:
        return a->f32 == b->f32 || (isnan(a->f32) && isnan(b->f32)) ||
               (signbit(a->f32) == signbit(b->f32) && !isnan(a->f32) && !isnan(b->f32) &&
                (a->u32 > b->u32 ? a->u32 - b->u32 : b->u32 - a->u32) <= ulps);
    case GPGPU_F64:
        return a->f64 == b->f64 || (isnan(a->f64) && isnan(b->f64)) ||
               (signbit(a->f64) == signbit(b->f64) && !isnan(a->f64) && !isnan(b->f64) &&
                (a->u64 > b->u64 ? a->u64 - b->u64 : b->u64 - a->u64) <= ulps);
    case GPGPU_I32: case GPGPU_U32: return a->u32 == b->u32;
    default: return a->u64 == b->u64;
    }
}

/* ulps: how far a float may be from the reference (0: the same value). */
static void check_hexpr(gpgpu_context *ctx, const hexpr_case *c, const char *where,
                        unsigned ulps)
{
    const size_t size = gpgpu_type_size(c->t);
    unsigned char *in = tu_alloc(HX_N * size), *out = tu_alloc(HX_N * size);
    unsigned char *want = tu_alloc(HX_N * size);
    hexpr_inputs(c->t, c->specials, in, tu_seed_for(400 + (uint64_t)c->t, HX_N));
    if (c->pred) {
        size_t count = 0, wc = 0;
        gpgpu_status s = gpgpu_select(ctx, c->t, c->expr, in, HX_N, out, &count);
        ck_assert_msg(s == GPGPU_SUCCESS, "%s: select \"%s\": %s", where, c->expr,
                      gpgpu_last_error(ctx));
        for (size_t k = 0; k < HX_N; k++) {
            hx x = {0}, r = {0};
            memcpy(&x, in + k * size, size);
            c->ref(&x, k, &r);
            if (r.i32)
                memcpy(want + wc++ * size, in + k * size, size);
        }
        ck_assert_msg(count == wc && !memcmp(out, want, wc * size),
                      "%s: select \"%s\" kept %zu, want %zu (seed %llu)", where, c->expr, count,
                      wc, (unsigned long long)tu_seed());
    } else {
        for (size_t k = 0; k < HX_N; k++) {
            hx x = {0}, r = {0}, got = {0};
            memcpy(&x, in + k * size, size);
            c->ref(&x, k, &r);
            gpgpu_status s = gpgpu_transform_reduce(ctx, c->t, c->expr, GPGPU_SUM, &x, 1, &got);
            ck_assert_msg(s == GPGPU_SUCCESS, "%s: map \"%s\": %s", where, c->expr,
                          gpgpu_last_error(ctx));
            ck_assert_msg(hx_same(c->t, &got, &r, ulps),
                          "%s: map \"%s\" of input %zu (bits %016llx): got bits %016llx, want %016llx (seed %llu)",
                          where, c->expr, k, (unsigned long long)x.u64,
                          (unsigned long long)got.u64, (unsigned long long)r.u64,
                          (unsigned long long)tu_seed());
        }
    }
    free(in);
    free(out);
    free(want);
}

TU_TEST(host_expressions_match_their_references)
{
    gpgpu_context *host = tu_is_host() ? tu_ctx : tu_context_with("GPGPU_HOST_BELOW=expr=all");
    gpgpu_context *kernels = tu_is_host() ? NULL : tu_context_with("GPGPU_HOST_BELOW=expr=0");
    const int cpu = tu_is_host() || strstr(gpgpu_plan_description(tu_ctx), "chunk-per-item");
    for (size_t k = 0; k < NHEXPRS; k++) {
        const hexpr_case *c = &hexpr_cases[k];
        if (tu_skip_type(c->t))
            continue;
        check_hexpr(host, c, tu_is_host() ? "host fallback" : "the host's evaluation", 0);
        if (kernels) /* a CPU device's kernels round as the host does; a GPU's
                        division need not (OpenCL allows 2.5 ulp: NVIDIA's
                        is 1 off at times), which is why GPUs keep
                        expressions on their kernels */
            check_hexpr(kernels, c, "kernels", cpu ? 0 : 3);
    }
    if (kernels) {
        gpgpu_context_destroy(host);
        gpgpu_context_destroy(kernels);
    }
}
END_TEST

/* What the host does not evaluate goes to the kernels on a device and is
   UNSUPPORTED on the fallback, with the reason; the fallback takes the C
   library's functions and unfused products, which no kernel must match. */
TU_TEST(host_expressions_outside_the_exact_part)
{
    float x[5] = {-4, 0.25f, 9, 150, 1e4f}, out[5], r = 0;
    size_t count = 0;
    gpgpu_status s = gpgpu_select(tu_ctx, GPGPU_F32, "native_sqrt(x) > 10.0f", x, 5, out, &count);
    if (tu_is_host()) {
        ck_assert_int_eq(s, GPGPU_ERROR_UNSUPPORTED);
        ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "native_sqrt") != NULL, "message: %s",
                      gpgpu_last_error(tu_ctx));
    } else {
        tu_assert_ok(s);
        ck_assert_uint_eq(count, 2);
    }
    tu_assert_ok(gpgpu_select(tu_ctx, GPGPU_F32, "sqrt(x) > 10.0f", x, 5, out, &count));
    ck_assert_uint_eq(count, 2);
    ck_assert(out[0] == 150 && out[1] == 1e4f);
    tu_assert_ok(gpgpu_transform_reduce(tu_ctx, GPGPU_F32, "x * x + 1.0f", GPGPU_SUM, x, 5, &r));
    ck_assert_msg(fabs(r - 100022602.0625) <= 16, "sum %.3f", r); /* float steps of 8 there */
    tu_assert_ok(gpgpu_partition(tu_ctx, GPGPU_F32, "pow(x, 2.0f) < 100.0f", x, 5, out, &count));
    ck_assert_uint_eq(count, 3);
    ck_assert(out[0] == -4 && out[2] == 9 && out[3] == 150 && out[4] == 1e4f);
}
END_TEST

int main(void)
{
    return tu_run("userop", 600, NULL);
}
