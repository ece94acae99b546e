/*
 * test_scan.c - gpgpu_scan, gpgpu_scan_init and gpgpu_scan_buffer against the
 * plain-C loop of ref_scan.c, on both of the device's paths (single-pass and
 * multi-pass), and on the host fallback.
 *
 * Float SUM inputs are whole numbers, so every order of combination gives
 * the same exact result and outputs compare bit for bit; rounding is tested
 * on its own (reproducible, and within a bound of the exact sums).
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "core/core.h" /* the tests force each path and small tiles through ctx->tune */
#include "ref_scan.h"
#include "util.h"

static const gpgpu_type types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                    GPGPU_I64, GPGPU_U64, GPGPU_F64 };
static const gpgpu_op ops[] = { GPGPU_SUM, GPGPU_MIN, GPGPU_MAX };
static const gpgpu_scan_kind kinds[] = { GPGPU_EXCLUSIVE, GPGPU_INCLUSIVE };
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the paths under test ------------------------------------------------- */

typedef struct {
    gpgpu_context *ctx;
    const char *name;
    size_t tile;        /* elements per tile the plan asks for */
} path;

/* On a device: single-pass and multi-pass, each with the plan's tile and with
   a tile of two elements per work item (and the plan's other way to fill), small enough that the totals need
   several levels (multi-pass) and the look-back walks long chains
   (single-pass). Floats on a GPU scan multi-pass whatever the plan says
   (lib/scan.c). On the host fallback: tu_ctx alone. */
static path paths[4];
static size_t npaths;

static gpgpu_context *open_path(int single, size_t tile)
{
    gpgpu_context *c = NULL;
    gpgpu_status st = gpgpu_context_create(&c, strcmp(tu_device, "default") ? tu_device : NULL);
    ck_assert_msg(st == GPGPU_SUCCESS, "context for %s: %s", tu_device, gpgpu_last_error(NULL));
    c->tune.scan_single = single;
    if (tile) {
        c->tune.scan_tile = c->tune.lookback_tile = tile;
        /* the small tiles' state zeroed the other way (fill command or
           kernels/fill.cl), so that both run on every device */
        c->tune.fill_kernel = !c->tune.fill_kernel;
    }
    return c;
}

static void paths_open(void)
{
    if (tu_is_host()) {
        paths[0] = (path){ tu_ctx, "host", 1024 };
        npaths = 1;
        return;
    }
    for (int single = 1; single >= 0; --single) {
        gpgpu_context *c = open_path(single, 0);
        size_t small = 2 * c->tune.wg;
        /* the single pass on a GPU has a tile of its own (scan_lookback) */
        size_t tile = single && !c->tune.chunked ? c->tune.lookback_tile : c->tune.scan_tile;
        paths[npaths++] = (path){ c, single ? "single-pass" : "multi-pass", tile };
        paths[npaths++] = (path){ open_path(single, small),
                                  single ? "single-pass, small tiles" : "multi-pass, small tiles",
                                  small };
    }
}

static void paths_close(void)
{
    for (size_t i = 0; i < npaths; ++i)
        if (paths[i].ctx != tu_ctx)
            gpgpu_context_destroy(paths[i].ctx);
    npaths = 0;
}

/* The paths with the plan's own tile (what users get). */
#define FOR_PLAN_PATHS(p) \
    for (const path *p = paths; p < paths + npaths; p += tu_is_host() ? 1 : 2)
/* The small-tile paths (tu_ctx on the host fallback). */
#define FOR_SMALL_PATHS(p) \
    for (const path *p = paths + (tu_is_host() ? 0 : 1); p < paths + npaths; p += 2)

/* ---- one checked call ----------------------------------------------------- */

static void fill_input(gpgpu_type t, gpgpu_op op, void *buf, size_t n, uint64_t seed)
{
    tu_fill(t, buf, n, seed);
    if (op != GPGPU_SUM)
        return;
    for (size_t i = 0; i < n; ++i) {
        if (t == GPGPU_F32)
            ((float *)buf)[i] = floorf(((float *)buf)[i]);
        if (t == GPGPU_F64)
            ((double *)buf)[i] = floor(((double *)buf)[i]);
    }
}

static void show(gpgpu_type t, const void *p, char *buf, size_t size)
{
    switch (t) {
    case GPGPU_I32: snprintf(buf, size, "%d", *(const int32_t *)p); break;
    case GPGPU_U32: snprintf(buf, size, "%u", *(const uint32_t *)p); break;
    case GPGPU_F32: snprintf(buf, size, "%.9g", *(const float *)p); break;
    case GPGPU_I64: snprintf(buf, size, "%lld", (long long)*(const int64_t *)p); break;
    case GPGPU_U64: snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)p); break;
    case GPGPU_F64: snprintf(buf, size, "%.17g", *(const double *)p); break;
    }
}

static const char *op_name(gpgpu_op op)
{
    return op == GPGPU_SUM ? "SUM" : op == GPGPU_MIN ? "MIN" : op == GPGPU_MAX ? "MAX" : "user";
}

/* Asserts got[0..n) == want[0..n) bit for bit, naming the first difference. */
static void assert_same(const path *p, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                        const void *got, const void *want, size_t n, const char *what)
{
    size_t size = gpgpu_type_size(t);
    for (size_t i = 0; i < n; ++i) {
        const char *g = (const char *)got + i * size, *w = (const char *)want + i * size;
        if (memcmp(g, w, size) == 0)
            continue;
        char gs[40], ws[40];
        show(t, g, gs, sizeof gs);
        show(t, w, ws, sizeof ws);
        ck_abort_msg("%s %s %s n=%zu%s: out[%zu] = %s, want %s [%s, device %s, seed %llu]",
                     gpgpu_type_size(t) == 4 ? "32-bit" : "64-bit", op_name(op),
                     kind == GPGPU_INCLUSIVE ? "inclusive" : "exclusive", n, what, i, gs, ws,
                     p->name, tu_device, (unsigned long long)tu_seed());
    }
}

/* Scans a fresh random input of n elements on path p (in place or not,
   seeded with init when not NULL) and compares with ref_scan. */
static void check_scan(const path *p, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                       size_t n, int in_place, const void *init)
{
    size_t size = gpgpu_type_size(t);
    void *in = tu_alloc(n * size), *out = tu_alloc(n * size);
    void *want = tu_alloc(n * size), *keep = tu_alloc(n * size);
    fill_input(t, op, in, n, tu_seed_for((uint64_t)t << 8 | (uint64_t)op << 4 | kind, n));
    memcpy(keep, in, n * size);
    ref_scan(t, op, kind, in, want, n, init);
    gpgpu_status st = gpgpu_scan_init(p->ctx, t, op, kind, in, in_place ? in : out, n, init);
    ck_assert_msg(st == GPGPU_SUCCESS, "scan of %zu (%s): %s: %s [seed %llu]", n, p->name,
                  gpgpu_status_string(st), gpgpu_last_error(p->ctx),
                  (unsigned long long)tu_seed());
    assert_same(p, t, op, kind, in_place ? in : out, want, n, in_place ? " in place" : "");
    if (!in_place)
        ck_assert_msg(memcmp(in, keep, n * size) == 0, "the scan changed its input");
    free(in);
    free(out);
    free(want);
    free(keep);
}

/* ---- every type, operator and kind ---------------------------------------- */

/* The sizes around the tile edges, plus small primes. */
static size_t edge_sizes(size_t tile, size_t *sizes)
{
    const size_t fixed[] = { 0, 1, 2, 3, 31, 1009, 4099 };
    size_t k = 0;
    for (size_t i = 0; i < COUNT(fixed); ++i)
        sizes[k++] = fixed[i];
    sizes[k++] = tile - 1;
    sizes[k++] = tile;
    sizes[k++] = tile + 1;
    sizes[k++] = 2 * tile + 7;
    return k;
}

START_TEST(scan_every_type_op_kind_at_tile_edges)
{
    FOR_PLAN_PATHS(p) {
        size_t sizes[16], ns = edge_sizes(p->tile, sizes);
        for (size_t a = 0; a < COUNT(types); ++a)
            for (size_t b = 0; b < COUNT(ops); ++b)
                for (size_t c = 0; c < COUNT(kinds); ++c)
                    for (size_t s = 0; s < ns; ++s)
                        check_scan(p, types[a], ops[b], kinds[c], sizes[s], 0, NULL);
    }
}
END_TEST

START_TEST(scan_in_place_every_type_op_kind)
{
    FOR_PLAN_PATHS(p) {
        const size_t sizes[] = { 1, p->tile + 1, 3 * p->tile + 5 };
        for (size_t a = 0; a < COUNT(types); ++a)
            for (size_t b = 0; b < COUNT(ops); ++b)
                for (size_t c = 0; c < COUNT(kinds); ++c)
                    for (size_t s = 0; s < COUNT(sizes); ++s)
                        check_scan(p, types[a], ops[b], kinds[c], sizes[s], 1, NULL);
    }
}
END_TEST

/* Many small tiles: several levels of totals (multi-pass), long look-back
   chains (single-pass), tile^2 + 1 and tile^3 + 1. */
START_TEST(scan_many_levels_of_tiles)
{
    FOR_SMALL_PATHS(p) {
        size_t tile = p->tile;
        const size_t sizes[] = { tile * tile - 1, tile * tile + 1, tile * tile * tile + 1 };
        for (size_t a = 0; a < COUNT(types); ++a)
            for (size_t s = 0; s < COUNT(sizes); ++s)
                if (sizes[s] <= (1u << 24))
                    check_scan(p, types[a], ops[a % 3], kinds[a % 2], sizes[s], a % 2, NULL);
    }
}
END_TEST

START_TEST(scan_large_inputs)
{
    static const struct { gpgpu_type t; gpgpu_op op; gpgpu_scan_kind kind; } cases[] = {
        { GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE }, { GPGPU_I32, GPGPU_MAX, GPGPU_EXCLUSIVE },
        { GPGPU_F32, GPGPU_SUM, GPGPU_EXCLUSIVE }, { GPGPU_U64, GPGPU_SUM, GPGPU_INCLUSIVE },
        { GPGPU_F64, GPGPU_MIN, GPGPU_INCLUSIVE }, { GPGPU_I64, GPGPU_SUM, GPGPU_EXCLUSIVE },
    };
    size_t n = ((size_t)1 << 22) + 3;
    FOR_PLAN_PATHS(p) {
        for (size_t i = 0; i < COUNT(cases); ++i)
            check_scan(p, cases[i].t, cases[i].op, cases[i].kind, n, i % 2, NULL);
    }
}
END_TEST

START_TEST(scan_init_seeds_every_output)
{
    FOR_PLAN_PATHS(p) {
        const size_t sizes[] = { 0, 1, p->tile + 3, 5 * p->tile + 1 };
        for (size_t a = 0; a < COUNT(types); ++a) {
            for (size_t b = 0; b < COUNT(ops); ++b) {
                uint64_t init[1];
                fill_input(types[a], ops[b], init, 1, tu_seed_for(a, 99));
                for (size_t c = 0; c < COUNT(kinds); ++c)
                    for (size_t s = 0; s < COUNT(sizes); ++s)
                        check_scan(p, types[a], ops[b], kinds[c], sizes[s], s % 2, init);
            }
        }
    }
    FOR_SMALL_PATHS(p) {
        int64_t init = -12345;
        check_scan(p, GPGPU_I64, GPGPU_SUM, GPGPU_EXCLUSIVE, p->tile * p->tile + 1, 0, &init);
    }
}
END_TEST

/* Host inputs larger than one device buffer go through in chunks, each
   seeded with the running total of those before (device limit shrunk). */
START_TEST(scan_host_input_larger_than_one_buffer)
{
    for (const path *p = paths; p < paths + npaths; ++p) {
        uint64_t saved = p->ctx->max_alloc, init = 77;
        p->ctx->max_alloc = 1 << 16;
        size_t n = 5 * ((1 << 16) / 8) + 7;
        check_scan(p, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, n, 0, NULL);
        check_scan(p, GPGPU_U32, GPGPU_SUM, GPGPU_EXCLUSIVE, n, 1, NULL);
        check_scan(p, GPGPU_F64, GPGPU_MAX, GPGPU_EXCLUSIVE, n, 0, NULL);
        check_scan(p, GPGPU_I64, GPGPU_SUM, GPGPU_EXCLUSIVE, n, 0, &init);
        check_scan(p, GPGPU_I64, GPGPU_MIN, GPGPU_INCLUSIVE, n, 1, &init);
        p->ctx->max_alloc = saved;
    }
}
END_TEST

/* ---- floats: rounding ----------------------------------------------------- */

/* Real-valued f32 sums: the same bits on every call, and each output within
   n_eps * eps * sum|x| of the exact prefix sum (computed in double). */
START_TEST(scan_float_sums_are_reproducible)
{
    const size_t n = ((size_t)1 << 20) + 17;
    float *in = tu_alloc(n * sizeof *in), *a = tu_alloc(n * sizeof *a);
    float *b = tu_alloc(n * sizeof *b);
    tu_fill(GPGPU_F32, in, n, tu_seed_for(7, n));
    FOR_PLAN_PATHS(p) {
        tu_assert_ok(gpgpu_scan(p->ctx, GPGPU_F32, GPGPU_SUM, GPGPU_INCLUSIVE, in, a, n));
        tu_assert_ok(gpgpu_scan(p->ctx, GPGPU_F32, GPGPU_SUM, GPGPU_INCLUSIVE, in, b, n));
        ck_assert_msg(memcmp(a, b, n * sizeof *a) == 0, "two f32 scans differ [%s]", p->name);
        double exact = 0, mass = 0;
        for (size_t i = 0; i < n; ++i) {
            exact += in[i];
            mass += fabs(in[i]);
            ck_assert_msg(fabs(a[i] - exact) <= 8 * FLT_EPSILON * mass,
                          "out[%zu] = %.9g, exact %.9g [%s, seed %llu]", i, a[i], exact,
                          p->name, (unsigned long long)tu_seed());
        }
    }
    free(in);
    free(a);
    free(b);
}
END_TEST

/* Host calls of float sums that the plan's scan-f keeps on the host follow
   the kernels' own order there (lib/host/host_scan_tree.c): the same bits
   as the kernels of a context that keeps them on the device, inclusive and
   exclusive, seeded or not, in place or not, on the default plan (whole
   blocks of 8 per item) and on small tiles (5 elements an item, many
   tiles, a partial last one), for random data and data with the special values (NaN,
   infinities, zeros of both signs, subnormals) scattered in. A NaN's
   payload is the adder's pick. (On a GPU both contexts use the kernels.) */
START_TEST(scan_float_sums_on_the_host_match_the_kernels)
{
    if (tu_is_host())
        return;
    const char *was = getenv("GPGPU_HOST_BELOW");
    char keep[64];
    snprintf(keep, sizeof keep, "%s", was ? was : "");
    static const char *const tiles[] = {"", "GPGPU_WG=8 GPGPU_SCAN_TILE=40"};
    static const size_t ns[] = {1, 5, 8, 9, 63, 64, 65, 1000, 4097, 70001, (1 << 20) + 3};
    for (size_t pi = 0; pi < sizeof tiles / sizeof *tiles; pi++) {
        char on[128], off[128];
        snprintf(on, sizeof on, "GPGPU_HOST_BELOW=scan-f=all %s", tiles[pi]);
        snprintf(off, sizeof off, "GPGPU_HOST_BELOW=scan-f=0 %s", tiles[pi]);
        gpgpu_context *host = tu_context_with(on), *kern = tu_context_with(off);
        for (int ti = 0; ti < 2; ti++) {
            const gpgpu_type t = ti ? GPGPU_F64 : GPGPU_F32;
            const size_t size = gpgpu_type_size(t);
            if (tu_skip_type(t))
                continue;
            for (size_t si = 0; si < sizeof ns / sizeof *ns; si++) {
                const size_t n = ns[si];
                /* the million only on the default plan, each way once */
                const int ways = n > 100000 ? 1 : 8;
                char *x = tu_alloc(n * size), *a = tu_alloc(n * size), *b = tu_alloc(n * size);
                for (int w = 0; w < ways; w++) {
                    const int specials = w & 1, seeded = w >> 1 & 1, inplace = w >> 2 & 1;
                    const gpgpu_scan_kind kind = (w + (int)si) & 1 ? GPGPU_EXCLUSIVE
                                                                   : GPGPU_INCLUSIVE;
                    if (n > 100000 && pi > 0)
                        break;
                    tu_fill(t, x, n, tu_seed_for(1800 + w, n * 4 + pi * 2 + ti));
                    for (size_t k = 0; specials && k < TU_NSPECIALS && k < n; k++)
                        memcpy(x + (k * 7919 % n) * size,
                               ti ? (const void *)&tu_f64_specials[k]
                                  : (const void *)&tu_f32_specials[k], size);
                    const double seed64 = -1.5;
                    const float seed32 = -1.5f;
                    const void *init = !seeded ? NULL : ti ? (const void *)&seed64
                                                           : (const void *)&seed32;
                    if (inplace) {
                        memcpy(a, x, n * size);
                        memcpy(b, x, n * size);
                    }
                    tu_assert_ok(gpgpu_scan_init(host, t, GPGPU_SUM, kind, inplace ? a : x, a,
                                                 n, init));
                    tu_assert_ok(gpgpu_scan_init(kern, t, GPGPU_SUM, kind, inplace ? b : x, b,
                                                 n, init));
                    for (size_t i = 0; i < n; i++) {
                        double av, bv;
                        ck_assert_msg(tu_same_float(t, a + i * size, b + i * size, &av, &bv),
                                      "%s n=%zu out[%zu] host %.17g, kernels %.17g (%s, "
                                      "specials %d, seeded %d, in place %d, plan \"%s\") "
                                      "[device %s, seed %llu]",
                                      ti ? "f64" : "f32", n, i, av, bv,
                                      kind == GPGPU_INCLUSIVE ? "inclusive" : "exclusive",
                                      specials, seeded, inplace, tiles[pi], tu_device,
                                      (unsigned long long)tu_seed());
                    }
                }
                free(x);
                free(a);
                free(b);
            }
        }
        gpgpu_context_destroy(host);
        gpgpu_context_destroy(kern);
    }
    if (was)
        setenv("GPGPU_HOST_BELOW", keep, 1);
}
END_TEST

/* ---- user-defined operators ----------------------------------------------- */

/* Composition of affine maps x -> m x + c (mod 2^32), packed as m << 32 | c:
   associative but not commutative, so any operand swapped shows. */
#define AFFINE_COMBINE                                                                 \
    "((((a >> 32) * (b >> 32)) & 0xffffffffUL) << 32) | "                              \
    "(((b >> 32) * (a & 0xffffffffUL) + (b & 0xffffffffUL)) & 0xffffffffUL)"

static uint64_t affine(uint64_t a, uint64_t b)
{
    uint64_t m = ((a >> 32) * (b >> 32)) & 0xffffffffu;
    return m << 32 | (((b >> 32) * (a & 0xffffffffu) + (b & 0xffffffffu)) & 0xffffffffu);
}

START_TEST(scan_user_op_keeps_operand_order)
{
    FOR_SMALL_PATHS(p) {
        gpgpu_op op;
        gpgpu_status st = gpgpu_op_define(p->ctx, GPGPU_U64, AFFINE_COMBINE, "(1UL << 32)", &op);
        if (tu_is_host()) {
            ck_assert_int_eq(st, GPGPU_ERROR_UNSUPPORTED);
            uint64_t x = 1;
            ck_assert_int_eq(gpgpu_scan(p->ctx, GPGPU_U64, GPGPU_OP_USER, GPGPU_INCLUSIVE, &x,
                                        &x, 1),
                             GPGPU_ERROR_UNSUPPORTED);
            continue;
        }
        ck_assert_msg(st == GPGPU_SUCCESS, "gpgpu_op_define: %s", gpgpu_last_error(p->ctx));
        size_t n = p->tile * p->tile + 3;
        uint64_t *in = tu_alloc(n * sizeof *in), *out = tu_alloc(n * sizeof *out);
        tu_fill(GPGPU_U64, in, n, tu_seed_for(11, n));
        tu_assert_ok(gpgpu_scan(p->ctx, GPGPU_U64, op, GPGPU_EXCLUSIVE, in, out, n));
        uint64_t acc = (uint64_t)1 << 32;
        for (size_t i = 0; i < n; ++i) {
            ck_assert_msg(out[i] == acc, "out[%zu] = %#llx, want %#llx [%s, seed %llu]", i,
                          (unsigned long long)out[i], (unsigned long long)acc, p->name,
                          (unsigned long long)tu_seed());
            acc = affine(acc, in[i]);
        }
        free(in);
        free(out);
    }
}
END_TEST

/* ---- bad input ------------------------------------------------------------ */

START_TEST(scan_rejects_bad_arguments)
{
    uint32_t in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, keep[8], out[8];
    memcpy(keep, in, sizeof in);
    ck_assert_int_eq(gpgpu_scan(NULL, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in, out, 8),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, (gpgpu_type)42, GPGPU_SUM, GPGPU_INCLUSIVE, in, out, 8),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, (gpgpu_scan_kind)7, in, out, 8),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, 9, GPGPU_INCLUSIVE, in, out, 8),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, NULL, out, 8),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in, NULL, 8),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in, in + 1, 7),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in + 1, in, 7),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(gpgpu_last_error(tu_ctx), "overlap") != NULL, "detail: %s",
                  gpgpu_last_error(tu_ctx));
    ck_assert(memcmp(in, keep, sizeof in) == 0);
    /* n == 0 needs no pointers, and adjacent ranges do not overlap. */
    tu_assert_ok(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, NULL, NULL, 0));
    tu_assert_ok(gpgpu_scan(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in, in + 4, 4));
    ck_assert_uint_eq(in[7], 1 + 2 + 3 + 4);
}
END_TEST

/* ---- buffers -------------------------------------------------------------- */

static cl_mem make_buffer(size_t bytes, const void *host)
{
    cl_context cl;
    cl_int err = clGetCommandQueueInfo(gpgpu_queue(tu_ctx), CL_QUEUE_CONTEXT, sizeof cl, &cl,
                                       NULL);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)host,
                              &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return m;
}

START_TEST(scan_buffer_honours_offsets_and_events)
{
    uint32_t host[1000], want[1000], got[1000];
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, NULL,
                                           0, NULL, 0, 0, 0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    tu_fill(GPGPU_U32, host, 1000, tu_seed_for(3, 1000));
    cl_mem a = make_buffer(sizeof host, host), b = make_buffer(sizeof host, host);
    cl_event done;
    /* in[10 .. 510) into out[300 .. 800), then in place over b[0 .. 999). */
    tu_assert_ok(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_MAX, GPGPU_EXCLUSIVE, a, 10, b, 300,
                                   500, 0, NULL, &done));
    ck_assert_int_eq(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    ck_assert_int_eq(clEnqueueReadBuffer(gpgpu_queue(tu_ctx), b, CL_TRUE, 0, sizeof got, got, 0,
                                         NULL, NULL),
                     CL_SUCCESS);
    memcpy(want, host, sizeof host);
    ref_scan(GPGPU_U32, GPGPU_MAX, GPGPU_EXCLUSIVE, host + 10, want + 300, 500, NULL);
    ck_assert(memcmp(got, want, sizeof got) == 0);
    tu_assert_ok(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, b, 0, b, 0,
                                   999, 0, NULL, NULL));
    ck_assert_int_eq(clEnqueueReadBuffer(gpgpu_queue(tu_ctx), b, CL_TRUE, 0, sizeof got, got, 0,
                                         NULL, NULL),
                     CL_SUCCESS);
    ref_scan(GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, want, want, 999, NULL);
    ck_assert(memcmp(got, want, sizeof got) == 0);
    /* Ranges past the end, and overlapping ranges of one buffer. */
    ck_assert_int_eq(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, a, 1, b, 0,
                                       1000, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, a, 0, b,
                                       SIZE_MAX, 2, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_scan_buffer(tu_ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, a, 0, a, 1,
                                       10, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}
END_TEST

/* Profiling records one launch per pass: one for single-pass; tile totals,
   their scan and the tile scans for multi-pass. */
START_TEST(scan_profile_shows_each_pass)
{
    FOR_PLAN_PATHS(p) {
        size_t n = 3 * p->tile;
        uint32_t *x = tu_alloc(n * sizeof *x);
        tu_fill(GPGPU_U32, x, n, 5);
        const gpgpu_kernel_time *rec;
        if (tu_is_host()) {
            ck_assert_int_eq(gpgpu_profile(p->ctx, &rec), 0);
            free(x);
            continue;
        }
        tu_assert_ok(gpgpu_set_profiling(p->ctx, 1));
        tu_assert_ok(gpgpu_scan(p->ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, x, n));
        size_t nall = gpgpu_profile(p->ctx, &rec), nrec = 0;
        /* the kernels, without the copies and fills ("(fill)", ...) */
        const gpgpu_kernel_time *kr[8];
        for (size_t i = 0; i < nall; i++)
            if (rec[i].kernel[0] != '(') {
                ck_assert_uint_lt(nrec, 8);
                kr[nrec++] = &rec[i];
            }
        /* u32: the plan's path on every device (on the GPU layout, while an
           item holds at most 64 elements: lib/scan.c) */
        if (p->ctx->tune.scan_single &&
            (p->ctx->tune.chunked || p->tile / p->ctx->tune.lookback_wg <= 64)) {
            ck_assert_msg(nrec == 1, "%s: %zu kernels of %zu records", p->name, nrec, nall);
            ck_assert_str_eq(kr[0]->kernel,
                             p->ctx->tune.chunked ? "scan_single" : "scan_lookback");
        } else {
            ck_assert_uint_eq(nrec, 3);
            ck_assert_str_eq(kr[0]->kernel, "scan_reduce_tiles");
            ck_assert_str_eq(kr[1]->kernel, "scan_tiles");
            ck_assert_str_eq(kr[2]->kernel, "scan_tiles");
            ck_assert_uint_eq(kr[2]->global_size, 3 * kr[2]->local_size);
        }
        tu_assert_ok(gpgpu_set_profiling(p->ctx, 0));
        free(x);
    }
}
END_TEST

static Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *grid = tcase_create("results");
    tcase_add_unchecked_fixture(grid, paths_open, paths_close);
    tcase_set_timeout(grid, 600);
    tcase_add_test(grid, scan_every_type_op_kind_at_tile_edges);
    tcase_add_test(grid, scan_in_place_every_type_op_kind);
    tcase_add_test(grid, scan_many_levels_of_tiles);
    tcase_add_test(grid, scan_large_inputs);
    tcase_add_test(grid, scan_init_seeds_every_output);
    tcase_add_test(grid, scan_host_input_larger_than_one_buffer);
    tcase_add_test(grid, scan_float_sums_are_reproducible);
    tcase_add_test(grid, scan_user_op_keeps_operand_order);
    tcase_add_test(grid, scan_profile_shows_each_pass);
    suite_add_tcase(s, grid);
    /* its own case, so that tests/no-avx2.sh can run it alone */
    TCase *order = tcase_create("host-order");
    tcase_set_timeout(order, 600);
    tcase_add_test(order, scan_float_sums_on_the_host_match_the_kernels);
    suite_add_tcase(s, order);
    TCase *api = tcase_create("api");
    tcase_add_test(api, scan_rejects_bad_arguments);
    tcase_add_test(api, scan_buffer_honours_offsets_and_events);
    suite_add_tcase(s, api);
    return s;
}

int main(void)
{
    return tu_main(scan_suite);
}
