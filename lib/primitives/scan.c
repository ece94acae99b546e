/*
 * scan.c - prefix scan: gpgpu_scan, gpgpu_scan_init, gpgpu_scan_buffer, and
 * gpgpu__scan_enqueue for the primitives built on it (sort, select).
 *
 * The kernels (kernels/scan.cl) work in tiles of wg * items elements. Across
 * tiles there are two paths, chosen per device by the plan (tune.scan_single;
 * GPGPU_SCAN=multipass|single overrides it):
 *   single-pass  one launch: each tile chains to its predecessors through
 *                decoupled look-back (~2n words moved). CPUs: scan_single,
 *                every type. GPUs: scan_lookback, integers only (a warp
 *                looks back over 32 tiles, or 32 blocks of 32 tiles, at a
 *                time on NVIDIA) by groups and tiles of its own
 *                (tune.lookback_wg, _tile), at every size for 32-bit
 *                integers and up to scan_single_max_64 elements for
 *                64-bit ones (scan_single_max for 32-bit ones, where set);
 *                floats and longer arrays take the multi-pass path there;
 *   multi-pass   tile totals, a scan of the totals (recursively, into the
 *                same scratch buffer), then each tile scanned from its
 *                offset (~3n words moved).
 * Float scans combine in an order fixed by n and the plan (never by timing):
 * within a tile each work item's run of consecutive elements (in
 * SCAN_LANES-wide blocks), the items' totals in a log2(wg)-step tree; across
 * tiles a left-to-right chain of tile totals (single-pass), or the recursive
 * scan of the totals (multi-pass).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "primitives/primitives.h"

typedef struct {
    gpgpu__program *prog;
    size_t wg;      /* work items per group */
    size_t tile;    /* elements per tile */
} scan_plan;

/* Elements each work item scans serially: the tile split over the group
   of wg. On a GPU the group holds a padded copy of its tile (one word per
   32) and the items' totals in __local memory, which bounds the tile. */
static size_t scan_items(const gpgpu_context *ctx, size_t size, size_t wg, size_t tile)
{
    size_t items = tile / wg;
    if (!ctx->tune.chunked) {
        size_t words = ctx->local_mem / size;
        size_t fit = words > 2 * wg + 64 ? (words - 2 * wg - 64) * 32 / 33 / wg : 1;
        if (items > fit)
            items = fit;
    }
    return items ? items : 1;
}

/* The scan program for t and op on this device: for GPUs' single pass
   (lookback) with its own group and tile (tune.lookback_wg, _tile), else
   with the plan's group and tune.scan_tile. */
static gpgpu_status scan_plan_get(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, int lookback,
                                  scan_plan *p)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    const char *extra = NULL;
    char opts[512];
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, op, opts, sizeof opts, &extra));
    p->wg = lookback ? ctx->tune.lookback_wg : ctx->tune.wg;
    size_t items = scan_items(ctx, ti->size, p->wg,
                              lookback ? ctx->tune.lookback_tile : ctx->tune.scan_tile);
    size_t used = strlen(opts);
    used += (size_t)snprintf(opts + used, sizeof opts - used,
                             " -D SCAN_ITEMS=%zu -D SCAN_LB=%d -D SCAN_TICKET=%d", items,
                             ctx->tune.chunked ? 1 : ctx->tune.scan_lb,
                             ctx->tune.chunked || !ctx->tune.tiles_by_group);
    if (p->wg != ctx->tune.wg && used < sizeof opts)
        snprintf(opts + used, sizeof opts - used, " -D GROUP=%zu", p->wg);
    p->tile = p->wg * items;
    return gpgpu__program_get(ctx, "scan", extra, opts, &p->prog);
}

/* Where the seed combined on the left of every output comes from. */
typedef struct {
    cl_mem buf;         /* any valid buffer when has is 0 */
    cl_ulong off;
    cl_int has;
} scan_seed;

static size_t tiles_of(const scan_plan *p, size_t n)
{
    return (n + p->tile - 1) / p->tile;
}

/* scan_lookback's calls of at most this many tiles leave its state zero
   for the next call, which then enqueues no fill before it: on an H200 the
   fill and the gap after it took 0.013 ms of a 2^20 scan's 0.024 (the
   kernel 0.010; bench/results/2026-11-26-h200-fills). Above it the
   zeroing, by one group, would cost more than the fill. */
#define CLEAN_TILES_MAX ((size_t)4096)

/* The single passes: one launch of `kernel` over every tile, with its
   look-back state in one scratch buffer of `bytes`, zero as a whole before
   it (kernels/scan.cl says what it holds): scan_single's filled each call,
   scan_lookback's in a slot of its own, which the kernel may leave zero. */
static gpgpu_status scan_one_pass(gpgpu_context *ctx, const scan_plan *p, const char *kernel,
                                  size_t bytes, cl_int inclusive, cl_mem in, cl_ulong in_off,
                                  cl_mem out, cl_ulong out_off, cl_ulong n, scan_seed seed)
{
    int lookback = !strcmp(kernel, "scan_lookback");
    int slot = lookback ? GPGPU__SLOT_SCAN_STATE : GPGPU__SLOT_PARTIALS2;
    cl_uint clean = lookback && tiles_of(p, n) <= CLEAN_TILES_MAX;
    if (lookback) /* the state's words */
        bytes = gpgpu__div_up(bytes, sizeof(cl_ulong)) * sizeof(cl_ulong);
    cl_ulong words = bytes / sizeof(cl_ulong);
    cl_mem state;
    GPGPU__TRY(gpgpu__scratch_zeroed(ctx, slot, bytes, &state));
    /* scan_single's arguments end at state: an argument of size 0 ends
       the list there */
    size_t more = lookback ? sizeof clean : 0;
    GPGPU__TRY(gpgpu__run(ctx, p->prog, kernel, tiles_of(p, n) * p->wg, p->wg,
                          GPGPU__ARG(in), GPGPU__ARG(in_off), GPGPU__ARG(out),
                          GPGPU__ARG(out_off), GPGPU__ARG(n), GPGPU__ARG(inclusive),
                          GPGPU__ARG(seed.buf), GPGPU__ARG(seed.off), GPGPU__ARG(seed.has),
                          GPGPU__ARG(state), more, (const void *)&clean, GPGPU__ARG(words),
                          GPGPU__END));
    if (clean)
        gpgpu__scratch_mark_zeroed(ctx, slot, bytes);
    return GPGPU_SUCCESS;
}

/* CPUs, scan_single: the flags (the ticket, then one per tile), then from
   the next even word the published values, two per tile. Zeroing the
   values is not needed for results, but oclgrind takes an atomic_xchg's
   stored value as tainted by what it replaces, so never-written slots
   would be reported.
   GPUs, scan_lookback (integers): the ticket, then one 64-bit status word
   per tile; for 32-bit integers one per block of 32 tiles and a 32-bit
   counter per block (NVIDIA's look-back over blocks), for 64-bit ones
   two value words per tile. */
static size_t one_pass_bytes(const gpgpu_context *ctx, const scan_plan *p, size_t size, size_t n)
{
    size_t tiles = tiles_of(p, n), blocks = (tiles + 31) / 32;
    if (!ctx->tune.chunked && size == 8)
        return (1 + 3 * tiles) * sizeof(cl_ulong);
    if (!ctx->tune.chunked)
        return (1 + tiles + blocks) * sizeof(cl_ulong) + blocks * sizeof(cl_uint);
    return ((tiles + 2) & ~(size_t)1) * sizeof(cl_uint) + 2 * tiles * size;
}

/* Elements of scratch the multi-pass scan of n needs: one total per tile at
   each level of the recursion. */
static size_t multipass_scratch(const scan_plan *p, size_t n)
{
    size_t total = 0;
    for (size_t tiles = tiles_of(p, n); tiles > 1; tiles = tiles_of(p, tiles))
        total += tiles;
    return total;
}

/* Multi-pass scan of in[in_off ..+n) into out; the tile totals of this level
   go to part[part_off ..], deeper levels after them. */
static gpgpu_status scan_multipass(gpgpu_context *ctx, const scan_plan *p, cl_int inclusive,
                                   cl_mem in, cl_ulong in_off, cl_mem out, cl_ulong out_off,
                                   cl_ulong n, scan_seed seed, cl_mem part, cl_ulong part_off)
{
    size_t tiles = tiles_of(p, n);
    cl_uint stride = 0;
    if (tiles > 1) {
        GPGPU__TRY(gpgpu__run(ctx, p->prog, "scan_reduce_tiles", tiles * p->wg, p->wg,
                              GPGPU__ARG(in), GPGPU__ARG(in_off), GPGPU__ARG(n),
                              GPGPU__ARG(part), GPGPU__ARG(part_off), GPGPU__END));
        GPGPU__TRY(scan_multipass(ctx, p, 0, part, part_off, part, part_off, tiles, seed, part,
                                  part_off + tiles));
        seed = (scan_seed){ part, part_off, 1 };
        stride = 1;
    }
    return gpgpu__run(ctx, p->prog, "scan_tiles", tiles * p->wg, p->wg, GPGPU__ARG(in),
                      GPGPU__ARG(in_off), GPGPU__ARG(out), GPGPU__ARG(out_off), GPGPU__ARG(n),
                      GPGPU__ARG(inclusive), GPGPU__ARG(seed.buf), GPGPU__ARG(seed.off),
                      GPGPU__ARG(stride), GPGPU__ARG(seed.has), GPGPU__END);
}

/* The plan's path. On GPUs the single pass is scan_lookback, for integers
   only: it gathers a prefix from predecessors in whatever grouping they
   have published, exact for integers but not for float bits (floats keep
   the multi-pass scan's fixed grouping, so that their bits never depend
   on timing). */
static int use_single(const gpgpu_context *ctx, gpgpu_type t, size_t n)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    if (!ctx->tune.scan_single)
        return 0;
    if (ctx->tune.chunked)
        return 1;
    size_t max = ti->size == 8 ? ctx->tune.scan_single_max_64 : ctx->tune.scan_single_max;
    return !ti->is_float && (!max || n <= max);
}

gpgpu_status gpgpu__scan_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                 gpgpu_scan_kind kind, cl_mem in, size_t in_off, cl_mem out,
                                 size_t out_off, size_t n, cl_mem init_buf, size_t init_off)
{
    scan_plan p;
    if (n == 0)
        return GPGPU_SUCCESS;
    size_t size = gpgpu__type(t)->size;
    cl_int inclusive = kind == GPGPU_INCLUSIVE;
    scan_seed seed = { init_buf ? init_buf : in, init_off, init_buf != NULL };
    if (use_single(ctx, t, n)) {
        int lookback = !ctx->tune.chunked;
        GPGPU__TRY(scan_plan_get(ctx, t, op, lookback, &p));
        /* scan_lookback holds an item's elements in registers: a plan with
           more than 64 per item (a CPU's tiles forced onto the GPU layout)
           takes the multi-pass path. */
        if (!lookback || p.tile / p.wg <= 64)
            return scan_one_pass(ctx, &p, lookback ? "scan_lookback" : "scan_single",
                                 one_pass_bytes(ctx, &p, size, n), inclusive, in, in_off, out,
                                 out_off, n, seed);
    }
    GPGPU__TRY(scan_plan_get(ctx, t, op, 0, &p));
    cl_mem part = in;
    size_t parts = multipass_scratch(&p, n);
    if (parts)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, parts * size, &part));
    return scan_multipass(ctx, &p, inclusive, in, in_off, out, out_off, n, seed, part, 0);
}

/* ---- the public entry points ---------------------------------------------- */

/* Do [a, a + bytes) and [b, b + bytes) overlap without being the same range? */
static int partial_overlap(uintptr_t a, uintptr_t b, size_t bytes)
{
    return a != b && a < b + bytes && b < a + bytes;
}

/* INVALID_ARGUMENT or UNSUPPORTED for an operator or type this device cannot
   scan, found without building anything (ctx locked: user ops live there). */
static gpgpu_status check_op(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op)
{
    char opts[512];
    const char *extra = NULL;
    return gpgpu__type_op_options(ctx, t, op, opts, sizeof opts, &extra);
}

/* Checks shared by the host and buffer entry points. */
static gpgpu_status scan_check(gpgpu_context *ctx, const char *func, gpgpu_type t,
                               gpgpu_op op, gpgpu_scan_kind kind)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__TRY(gpgpu__check_op(ctx, func, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, func,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    return GPGPU_SUCCESS;
}

/* Elements of the caller's data per device pass: one buffer holds them, one
   element more (where an exclusive scan leaves its running total) and the
   seed. */
static size_t scan_chunk(const gpgpu_context *ctx, size_t size)
{
    size_t c = gpgpu__chunk_elems(ctx, size);
    return c > 3 ? c - 2 : 1;
}

/* Zero copy: the kernels read in and write out where they are; only the
   scan's last command writes out, so an in-place scan that fails leaves
   the input as it was. */
static gpgpu_status scan_in_place(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                  gpgpu_scan_kind kind, const void *in, void *out, size_t n,
                                  const void *init)
{
    const size_t size = gpgpu__type(t)->size;
    cl_mem vin = NULL, vout = NULL, seed = NULL;
    size_t oin = 0, oout = 0;
    gpgpu_status s = gpgpu__host_view(ctx, in, n * size, in == out, &vin, &oin);
    if (s == GPGPU_SUCCESS && in != out)
        s = gpgpu__host_view(ctx, out, n * size, 1, &vout, &oout);
    if (s == GPGPU_SUCCESS && init) {
        s = gpgpu__scratch(ctx, GPGPU__SLOT_OUT, size, &seed);
        if (s == GPGPU_SUCCESS)
            s = gpgpu__write(ctx, seed, 0, size, init);
    }
    if (s == GPGPU_SUCCESS) {
        gpgpu__note_route(ctx, "zero-copy");
        s = gpgpu__scan_enqueue(ctx, t, op, kind, vin, oin / size, vout ? vout : vin,
                                (vout ? oout : oin) / size, n, seed, 0);
    }
    if (s == GPGPU_SUCCESS)
        s = gpgpu__wait_done(ctx);
    if (vin)
        clReleaseMemObject(vin);
    if (vout)
        clReleaseMemObject(vout);
    return s;
}

/* gpgpu_scan_init on the device, with ctx locked. In place where the
   device shares host memory; else the data goes through one scratch buffer
   in chunks, each scanned in place and read back; each chunk's running
   total is copied into the seed slot of the next. */
static gpgpu_status scan_host_api(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                  gpgpu_scan_kind kind, const void *in, void *out, size_t n,
                                  const void *init)
{
    const size_t size = gpgpu__type(t)->size, chunk = scan_chunk(ctx, size);
    const size_t cap = n < chunk ? n : chunk, seed_at = cap + 1;
    cl_mem buf;
    GPGPU__TRY(check_op(ctx, t, op));
    if (n == 0)
        return GPGPU_SUCCESS;
    if (gpgpu__in_place(ctx, n * size))
        return scan_in_place(ctx, t, op, kind, in, out, n, init);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (cap + 2) * size, &buf));
    if (init)
        GPGPU__TRY(gpgpu__write(ctx, buf, seed_at * size, size, init));
    for (size_t first = 0; first < n; first += cap) {
        size_t len = n - first < cap ? n - first : cap;
        int more = first + len < n;
        /* An exclusive scan of one element more leaves the total at buf[len]. */
        size_t m = len + (more && kind == GPGPU_EXCLUSIVE);
        GPGPU__TRY(gpgpu__upload(ctx, buf, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__scan_enqueue(ctx, t, op, kind, buf, 0, buf, 0, m,
                                       init || first ? buf : NULL, seed_at));
        /* In place in one chunk: only a whole result may reach the caller. */
        GPGPU__TRY(gpgpu__download(ctx, buf, 0, len * size, (char *)out + first * size,
                                   in == out && !more));
        if (more)
            GPGPU__TRY(gpgpu__copy(ctx, buf, (m - 1) * size, buf, seed_at * size, size));
    }
    return GPGPU_SUCCESS;
}

/* gpgpu_scan and gpgpu_scan_init; f names the one called. */
static gpgpu_status scan_host(gpgpu_context *ctx, const char *f, gpgpu_type t, gpgpu_op op,
                              gpgpu_scan_kind kind, const void *in, void *out, size_t n,
                              const void *init)
{
    GPGPU__TRY(scan_check(ctx, f, t, op, kind));
    size_t size = gpgpu__type(t)->size;
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / size - 1, f, "n is %zu; at most %zu elements of %zu "
                   "bytes", n, (size_t)PTRDIFF_MAX / size - 1, size);
    GPGPU__TRY(gpgpu__check_array(ctx, f, "in", in, n, size, 1, size));
    GPGPU__TRY(gpgpu__check_array(ctx, f, "out", out, n, size, 1, size));
    GPGPU__TRY(gpgpu__check_array(ctx, f, "init", init, 0, size, 1, size));
    GPGPU__REQUIRE(ctx, !partial_overlap((uintptr_t)in, (uintptr_t)out, n * size), f,
                   "in (%p) and out (%p) overlap for n = %zu; they must be the same array "
                   "or apart", in, out, n);
    /* Float sums of the chunked single pass below the plan's scan-f: the
       kernels' own order on the host's threads, the same bits without the
       launches. */
    if (!ctx->host && op == GPGPU_SUM && gpgpu__type(t)->is_float && ctx->tune.chunked &&
        ctx->tune.scan_single && gpgpu__host_below(ctx, GPGPU__HB_SCAN_F, n)) {
        GPGPU__TRY(gpgpu__type_supported(ctx, t));
        size_t wg = ctx->tune.wg, items = ctx->tune.scan_tile / wg;
        if (gpgpu__host_scan_tree(t, kind, in, out, n, init, wg, items ? items : 1))
            return GPGPU_SUCCESS;
    }
    /* Integer scans the plan keeps on the host run there (the same bits in
       any order); other float scans only with the plan's reduce-f (their
       bits follow the combining order). */
    if (ctx->host ||
        (op < GPGPU_OP_USER &&
         gpgpu__host_below(ctx, gpgpu__type(t)->is_float ? GPGPU__HB_REDUCE_F : GPGPU__HB_SCAN,
                           n))) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                               "user-defined operators need an OpenCL device");
        if (!ctx->host)
            GPGPU__TRY(gpgpu__type_supported(ctx, t));
        gpgpu__host_scan(t, op, kind, in, out, n, init);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_scan",
                                scan_host_api(ctx, t, op, kind, in, out, n, init));
}

gpgpu_status gpgpu_scan_init(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                             gpgpu_scan_kind kind, const void *in, void *out, size_t n,
                             const void *init)
{
    return scan_host(ctx, __func__, t, op, kind, in, out, n, init);
}

gpgpu_status gpgpu_scan(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                        const void *in, void *out, size_t n)
{
    return scan_host(ctx, __func__, t, op, kind, in, out, n, NULL);
}

gpgpu_status gpgpu_scan_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                               gpgpu_scan_kind kind, cl_mem in, size_t in_offset, cl_mem out,
                               size_t out_offset, size_t n, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(scan_check(ctx, __func__, t, op, kind));
    GPGPU__REQUIRE(ctx, n == 0 || (in != NULL && out != NULL), __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    GPGPU__REQUIRE(ctx, in != out || !partial_overlap(in_offset, out_offset, n), __func__,
                   "in and out are one buffer and in_offset %zu and out_offset %zu make "
                   "[%zu, +%zu) overlap; they must be equal or apart", in_offset, out_offset,
                   in_offset, n);
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_scan_buffer: no OpenCL device");
    size_t size = gpgpu__type(t)->size;
    if (n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n, size));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "out", out, out_offset, n, size));
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = check_op(ctx, t, op);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__scan_enqueue(ctx, t, op, kind, in, in_offset, out, out_offset, n, NULL, 0);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

/* ---- scan ------------------------------------------------------------------------ */

gpgpu_status gpgpu_scan_array(gpgpu_context *ctx, gpgpu_op op, gpgpu_scan_kind kind,
                              const gpgpu_array *in, gpgpu_array *out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__TRY(gpgpu__check_op(ctx, __func__, op));
    GPGPU__REQUIRE(ctx, kind == GPGPU_EXCLUSIVE || kind == GPGPU_INCLUSIVE, __func__,
                   "kind is %d; need GPGPU_EXCLUSIVE or GPGPU_INCLUSIVE", (int)kind);
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", in, out, 1, 1));
    if (ctx->host) {
        if (op >= GPGPU_OP_USER)
            return gpgpu__array_needs_device(ctx, __func__);
        gpgpu__host_scan(in->t, op, kind, in->host, out->host, in->n, NULL);
        return GPGPU_SUCCESS;
    }
    char opts[512];
    const char *extra;
    gpgpu__array_begin(ctx);
    /* The operator and type are checked even when there is nothing to scan. */
    gpgpu_status s = gpgpu__type_op_options(ctx, in->t, op, opts, sizeof opts, &extra);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__scan_enqueue(ctx, in->t, op, kind, in->buf, 0, out->buf, 0, in->n, NULL, 0);
    return gpgpu__array_end(ctx, __func__, s);
}
