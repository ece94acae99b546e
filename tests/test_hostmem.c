/* test_hostmem.c - the routes a host array takes to the device: in place
   (zero copy), through pinned memory from gpgpu_host_alloc, and through the
   staging ring (forced on any device with GPGPU_ZERO_COPY=0 and small
   slots, so that arrays cross several slots). Every primitive's host call
   on each route matches the plain-C references, at offsets that are
   aligned to the element but not to the device's base alignment, in place,
   and on input the process cannot write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ref.h"
#include "ref_histogram.h"
#include "ref_scan.h"
#include "ref_sort.h"
#include "util.h"

/* The routes, as the environment that makes a context take them (on the
   host fallback every route is the host's). */
typedef enum { ROUTE_DEFAULT, ROUTE_STAGED, ROUTE_SMALL_ON_HOST, ROUTE_GPU_LAYOUT, NROUTES } route;

static gpgpu_context *open_route(route r)
{
    static const char *const settings[NROUTES] = {
        [ROUTE_DEFAULT] = "",
        [ROUTE_STAGED] = "GPGPU_ZERO_COPY=0 GPGPU_HOST_READS=0 GPGPU_STAGE_BYTES=65536 "
                         "GPGPU_STAGE_MIN=4096",
        /* what discrete GPUs do below 4097 elements, and with integer
           reductions above */
        [ROUTE_SMALL_ON_HOST] = "GPGPU_SMALL_HOST=70000 GPGPU_ZERO_COPY=0 GPGPU_HOST_READS=1",
        /* a GPU's kernels on the caller's arrays in place */
        [ROUTE_GPU_LAYOUT] = "GPGPU_CHUNKED=0 GPGPU_SORT_TILE=1280",
    };
    return tu_context_with(settings[r]);
}

/* Where the arrays live: malloc'd, or inside a gpgpu_host_alloc block. */
typedef struct {
    gpgpu_context *ctx;
    int pinned;
    void *block;
} arena;

/* bytes at skew bytes past a 4096-aligned start: element-aligned, and for
   skew != 0 not aligned to any device's base alignment. */
static void *arena_get(arena *a, size_t bytes, size_t skew)
{
    if (a->pinned) {
        a->block = gpgpu_host_alloc(a->ctx, bytes + skew + 1);
        ck_assert_msg(a->block != NULL, "gpgpu_host_alloc: %s", gpgpu_last_error(a->ctx));
        ck_assert_uint_eq((uintptr_t)a->block % 4096, 0);
    } else {
        ck_assert_int_eq(posix_memalign(&a->block, 4096, bytes + skew + 1), 0);
    }
    return (char *)a->block + skew;
}

static void arena_put(arena *a)
{
    if (a->pinned)
        gpgpu_host_free(a->ctx, a->block);
    else
        free(a->block);
    a->block = NULL;
}

static const size_t sizes[] = {0, 1, 1000, 4097, 65537, 300007};
enum { NSIZES = sizeof sizes / sizeof *sizes };
static const size_t skews[] = {0, 8, 24};

/* One case of every primitive on ctx with arrays from where (pinned or
   not), n elements at skew. */
static void check_all(gpgpu_context *ctx, route r, int pinned, size_t n, size_t skew,
                      uint64_t seed)
{
    arena a = {ctx, pinned, NULL}, b = {ctx, pinned, NULL};
    const gpgpu_type t = GPGPU_U32;
    uint32_t *x = arena_get(&a, n * 4, skew), *y = arena_get(&b, n * 4, skew);
    uint32_t *want = tu_alloc(n * 4 + 4), *vals = tu_alloc(n * 4 + 4);
    uint32_t got = 0, expect = 0;
    char where[96];
    snprintf(where, sizeof where, "%s n=%zu skew=%zu seed=%llu", pinned ? "pinned" : "malloc",
             n, skew, (unsigned long long)seed);
    tu_fill(t, x, n, seed);
    for (size_t i = 0; i < n; i++)
        x[i] %= 100000; /* keys with repeats; sums exact in u32 */

    /* reduce */
    tu_assert_ok(gpgpu_reduce(ctx, t, GPGPU_SUM, x, n, &got));
    { long double e, m; ref_reduce(t, GPGPU_SUM, x, n, &expect, &e, &m); }
    ck_assert_msg(got == expect, "reduce %s: %u, want %u", where, got, expect);

    /* histogram */
    uint64_t bins[16], wbins[16];
    tu_assert_ok(gpgpu_histogram(ctx, t, x, n, 16, 0, 100000, bins));
    ref_histogram(t, x, n, 16, 0, 100000, wbins);
    ck_assert_msg(!memcmp(bins, wbins, sizeof bins), "histogram %s", where);

    /* scan, out of place, then in place */
    ref_scan(t, GPGPU_SUM, GPGPU_INCLUSIVE, x, want, n, NULL);
    tu_assert_ok(gpgpu_scan(ctx, t, GPGPU_SUM, GPGPU_INCLUSIVE, x, y, n));
    ck_assert_msg(!memcmp(y, want, n * 4), "scan %s", where);
    memcpy(y, x, n * 4);
    ref_scan(t, GPGPU_SUM, GPGPU_EXCLUSIVE, x, want, n, NULL);
    tu_assert_ok(gpgpu_scan(ctx, t, GPGPU_SUM, GPGPU_EXCLUSIVE, y, y, n));
    ck_assert_msg(!memcmp(y, want, n * 4), "in-place scan %s", where);

    /* select, out of place and in place (predicates need an OpenCL device;
       PoCL 3.1's compiler crashes on the select kernel's GPU layout) */
    size_t count = 0, wcount = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] % 3 == 0)
            want[wcount++] = x[i];
    if (!tu_is_host() && r != ROUTE_GPU_LAYOUT) {
        tu_assert_ok(gpgpu_select(ctx, t, "x % 3 == 0", x, n, y, &count));
        ck_assert_msg(count == wcount && !memcmp(y, want, count * 4), "select %s", where);
        memcpy(y, x, n * 4);
        tu_assert_ok(gpgpu_select(ctx, t, "x % 3 == 0", y, n, y, &count));
        ck_assert_msg(count == wcount && !memcmp(y, want, count * 4), "in-place select %s",
                      where);
    }

    /* sort, then sort_pairs with values the original positions */
    memcpy(y, x, n * 4);
    memcpy(want, x, n * 4);
    ck_assert(ref_sort(t, want, NULL, 0, n, GPGPU_ASCENDING) == 0);
    tu_assert_ok(gpgpu_sort(ctx, t, y, n, GPGPU_ASCENDING));
    ck_assert_msg(!memcmp(y, want, n * 4), "sort %s", where);
    /* the pairs' values in a third array of the same kind */
    arena c = {ctx, pinned, NULL};
    uint32_t *pv = arena_get(&c, n * 4, skew);
    memcpy(y, x, n * 4);
    for (size_t i = 0; i < n; i++)
        vals[i] = pv[i] = (uint32_t)i;
    tu_assert_ok(gpgpu_sort_pairs(ctx, t, y, pv, 4, n, GPGPU_DESCENDING));
    ck_assert(ref_sort(t, x, vals, 4, n, GPGPU_DESCENDING) == 0);
    ck_assert_msg(!memcmp(y, x, n * 4) && !memcmp(pv, vals, n * 4), "sort_pairs %s", where);
    arena_put(&c);
    arena_put(&b);
    arena_put(&a);
    free(want);
    free(vals);
}

TU_LOOP_TEST(every_primitive_on_every_route, NROUTES)
{
    route r = (route)_i;
    gpgpu_context *ctx = open_route(r);
    for (int pinned = 0; pinned <= 1; pinned++)
        for (size_t s = 0; s < NSIZES; s++)
            for (size_t k = 0; k < sizeof skews / sizeof *skews; k++)
                check_all(ctx, r, pinned, sizes[s], skews[k],
                          tu_seed_for(1400 + (uint64_t)r * 100 + (uint64_t)pinned * 10 + k,
                                      sizes[s]));
    gpgpu_context_destroy(ctx);
}
END_TEST

/* Input in pages the process cannot write: a call that wrote its input
   back (say, a buffer "copied back" over the caller's array) would die. */
TU_LOOP_TEST(read_only_input_is_never_written, NROUTES)
{
    gpgpu_context *ctx = open_route((route)_i);
    const size_t n = 262147, page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (n * 4 + page - 1) / page * page;
    uint32_t *x = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(x != MAP_FAILED);
    tu_fill(GPGPU_U32, x, n, tu_seed_for(1500, (uint64_t)_i));
    ck_assert_int_eq(mprotect(x, bytes, PROT_READ), 0);
    uint32_t got = 0, expect = 0, *out = tu_alloc(n * 4);
    uint64_t bins[8], wbins[8];
    size_t count = 0;
    tu_assert_ok(gpgpu_reduce(ctx, GPGPU_U32, GPGPU_SUM, x, n, &got));
    { long double e, m; ref_reduce(GPGPU_U32, GPGPU_SUM, x, n, &expect, &e, &m); }
    ck_assert_uint_eq(got, expect);
    tu_assert_ok(gpgpu_histogram(ctx, GPGPU_U32, x, n, 8, 0, 4294967296.0, bins));
    ref_histogram(GPGPU_U32, x, n, 8, 0, 4294967296.0, wbins);
    ck_assert(!memcmp(bins, wbins, sizeof bins));
    tu_assert_ok(gpgpu_scan(ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, out, n));
    if (!tu_is_host() && _i != ROUTE_GPU_LAYOUT)
        tu_assert_ok(gpgpu_select(ctx, GPGPU_U32, "x & 1", x, n, out, &count));
    munmap(x, bytes);
    free(out);
    gpgpu_context_destroy(ctx);
}
END_TEST

TU_TEST(host_alloc_rules)
{
    void *p = gpgpu_host_alloc(tu_ctx, 0);
    ck_assert(p == NULL);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "bytes") != NULL);
    ck_assert(gpgpu_host_alloc(NULL, 64) == NULL);
    p = gpgpu_host_alloc(tu_ctx, 12345);
    ck_assert_msg(p != NULL, "%s", gpgpu_last_error(tu_ctx));
    memset(p, 0xab, 12345); /* all of it is the caller's */
    int local;
    gpgpu_host_free(tu_ctx, &local); /* not an allocation: ignored, reported */
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "gpgpu_host_alloc") != NULL);
    gpgpu_host_free(tu_ctx, NULL);
    gpgpu_host_free(tu_ctx, p);
    /* what is left is freed with its context (LeakSanitizer checks) */
    gpgpu_context *c = open_route(ROUTE_DEFAULT);
    ck_assert(gpgpu_host_alloc(c, 1 << 20) != NULL);
    ck_assert(gpgpu_host_alloc(c, 100) != NULL);
    gpgpu_context_destroy(c);
}
END_TEST

/* Floats sum to the same bits whichever way the array reaches the device,
   for a given context: the route never changes the combining order. */
TU_TEST(routes_agree_bit_for_bit)
{
    if (tu_is_host())
        return;
    const size_t n = 1000003;
    float *x = tu_alloc(n * 4);
    tu_fill(GPGPU_F32, x, n, tu_seed_for(1600, 0));
    gpgpu_context *c = open_route(ROUTE_DEFAULT);
    float *pinned = gpgpu_host_alloc(c, n * 4);
    ck_assert(pinned != NULL);
    memcpy(pinned, x, n * 4);
    float a = 0, b = 0;
    tu_assert_ok(gpgpu_reduce(c, GPGPU_F32, GPGPU_SUM, x, n, &a));
    tu_assert_ok(gpgpu_reduce(c, GPGPU_F32, GPGPU_SUM, pinned, n, &b));
    ck_assert(!memcmp(&a, &b, sizeof a));
    gpgpu_host_free(c, pinned);
    gpgpu_context_destroy(c);
    free(x);
}
END_TEST

int main(void)
{
    return tu_run("hostmem", 600, NULL);
}
