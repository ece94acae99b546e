/*
 * search.c - gpgpu_search_sorted, gpgpu_argsort and gpgpu_gather, with their
 * _buffer and _array forms (kernels/search.cl).
 *
 * search_sorted is one binary search per needle: keys become unsigned
 * integers through the radix sort's XOR masks, so that one program per key
 * width compares every type in gpgpu_sort's order. argsort is the radix
 * sort of the keys carrying their indices: on GPUs (up to 2^32 keys) the
 * passes read the caller's keys in place, compute the 32-bit indices in the
 * first pass and write them home as 64-bit ones in the last, which writes
 * no keys; elsewhere a copy of the keys is sorted carrying 32-bit indices
 * while n fits them (half the bytes each pass moves), widened to the
 * caller's 64 bits by one last pass. gather reads its indices twice on the
 * host and array calls: a check (so that out is left as it was when one is
 * out of range) and the gather itself.
 *
 * Scratch slots: argsort uses IN (the keys' copy, where one is made) and
 * OUT (the indices) beside the sort's own, and on a discrete device its
 * host call brings the result back from HOST_ORIG; search and gather stage
 * host arrays in IN (sorted, in), OUT (needles, out) and AUX (positions,
 * indices: 8 bytes each, so that a search and a gather of one n need no
 * slot to grow); gather's check writes its per-group answers to PARTIALS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

enum { MIN_CHUNK = 4096 }; /* CPUs: needles or elements per item at least */

/* ---- plan and programs ----------------------------------------------------- */

/* How count needles or elements map to work items: chunked, g items in
   groups of one, each owning chunk of them (PoCL runs each group as one
   loop); else groups of wg adjacent items striding over the range, at
   most max_groups groups. */
typedef struct {
    size_t global, local;
    cl_ulong chunk;
} layout;

static layout layout_for(const gpgpu_context *ctx, size_t count, size_t max_groups)
{
    layout l;
    if (ctx->tune.chunked) {
        size_t most = ctx->tune.groups * ctx->tune.wg, g = count / MIN_CHUNK;
        g = g > most ? most : g < 1 ? 1 : g;
        l.global = g;
        l.local = 1;
        l.chunk = gpgpu__div_up(count, g);
    } else {
        size_t groups = gpgpu__div_up(count, ctx->tune.wg);
        groups = groups > max_groups ? max_groups : groups < 1 ? 1 : groups;
        l.local = ctx->tune.wg;
        l.global = groups * l.local;
        l.chunk = 0;
    }
    return l;
}

/* Levels of search_sorted's tree in __local memory for keys of bytes: the
   coalesced layout's 32-bit keys only. On an H200, 2^24 u32 needles in
   2^24 sorted took 1.787 ms with 12 levels (16 KiB), 1.882 with none and
   2.024 with 8; u64 keys 2.073 with 11 levels and 2.052 with none. */
static int search_tree(const gpgpu_context *ctx, size_t bytes)
{
    return bytes == 4 && !ctx->tune.chunked ? ctx->tune.search_tree : 0;
}

/* The program of kernels/search.cl for elements of bytes (4 or 8). */
static gpgpu_status search_program(gpgpu_context *ctx, size_t bytes, gpgpu__program **prog)
{
    char opts[64];
    snprintf(opts, sizeof opts, "-D KEY_BITS=%zu -D SEARCH_TREE=%d", bytes * 8,
             search_tree(ctx, bytes));
    return gpgpu__program_get(ctx, "search", NULL, opts, prog);
}

typedef gpgpu__key_masks key_masks;
#define MASK_ARGS GPGPU__MASK_ARGS

/* Ascending masks as the kernel argument type of t's width. */
static void masks_for(gpgpu_type t, key_masks *k)
{
    gpgpu__key_masks_for(t, GPGPU_ASCENDING, k);
}

/* Positions, indices and checks are cl_ulong on every device. */
static gpgpu_status need_int64(gpgpu_context *ctx, const char *func)
{
    if (!ctx->host && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: %s has no 64-bit integers for the 64-bit positions", func,
                           ctx->name);
    return GPGPU_SUCCESS;
}

/* ---- enqueues on device data (no lock, arguments checked) -------------------- */

static gpgpu_status search_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem sorted,
                                   size_t sorted_off, size_t n, cl_mem needles,
                                   size_t needles_off, size_t m, unsigned side, cl_mem pos,
                                   size_t pos_off)
{
    gpgpu__program *prog;
    key_masks k;
    if (m == 0)
        return GPGPU_SUCCESS;
    if (n == 0) {
        cl_ulong zero = 0;
        return gpgpu__fill(ctx, pos, pos_off * sizeof zero, m * sizeof zero, &zero, sizeof zero);
    }
    const size_t bytes = gpgpu__type(t)->size;
    GPGPU__TRY(search_program(ctx, bytes, &prog));
    masks_for(t, &k);
    /* with a tree, fewer groups that each search more needles build it
       fewer times */
    layout l = layout_for(ctx, m, search_tree(ctx, bytes) ? 4 * ctx->tune.groups : 65536);
    cl_ulong so = sorted_off, nn = n, no = needles_off, mm = m, po = pos_off;
    cl_uint right = side == GPGPU_SEARCH_RIGHT;
    return gpgpu__run(ctx, prog, "search_sorted", l.global, l.local, GPGPU__ARG(sorted),
                      GPGPU__ARG(so), GPGPU__ARG(nn), GPGPU__ARG(needles), GPGPU__ARG(no),
                      GPGPU__ARG(mm), GPGPU__ARG(right), MASK_ARGS(k), GPGPU__ARG(pos),
                      GPGPU__ARG(po), GPGPU__ARG(l.chunk), GPGPU__END);
}

static gpgpu_status gather_enqueue(gpgpu_context *ctx, size_t vs, cl_mem in, size_t in_off,
                                   size_t n_in, cl_mem idx, size_t idx_off, size_t n,
                                   cl_mem out, size_t out_off)
{
    gpgpu__program *prog;
    if (n == 0)
        return GPGPU_SUCCESS;
    GPGPU__TRY(search_program(ctx, vs, &prog));
    layout l = layout_for(ctx, n, 65536);
    cl_ulong io = in_off, ni = n_in, xo = idx_off, nn = n, oo = out_off;
    if (!in) /* n_in == 0: nothing is read from it */
        in = idx;
    return gpgpu__run(ctx, prog, "gather", l.global, l.local, GPGPU__ARG(in), GPGPU__ARG(io),
                      GPGPU__ARG(ni), GPGPU__ARG(idx), GPGPU__ARG(xo), GPGPU__ARG(nn),
                      GPGPU__ARG(out), GPGPU__ARG(oo), GPGPU__ARG(l.chunk), GPGPU__END);
}

/* *first = the first i < n with idx[idx_off + i] >= n_in, or SIZE_MAX:
   a check on the device, waited for. */
static gpgpu_status gather_check(gpgpu_context *ctx, cl_mem idx, size_t idx_off, size_t n,
                                 size_t n_in, size_t *first)
{
    gpgpu__program *prog;
    cl_mem bad;
    *first = SIZE_MAX;
    if (n == 0)
        return GPGPU_SUCCESS;
    GPGPU__TRY(search_program(ctx, 4, &prog));
    layout l = layout_for(ctx, n, ctx->tune.groups);
    size_t parts = l.global / l.local;
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS, parts * sizeof(cl_ulong), &bad));
    cl_ulong xo = idx_off, nn = n, ni = n_in;
    GPGPU__TRY(gpgpu__run(ctx, prog, "gather_check", l.global, l.local, GPGPU__ARG(idx),
                          GPGPU__ARG(xo), GPGPU__ARG(nn), GPGPU__ARG(ni), GPGPU__ARG(l.chunk),
                          GPGPU__ARG(bad), GPGPU__END));
    cl_ulong *least = gpgpu__malloc(parts * sizeof *least);
    if (!least)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    gpgpu_status s = gpgpu__read(ctx, bad, 0, parts * sizeof *least, least);
    for (size_t i = 0; s == GPGPU_SUCCESS && i < parts; i++)
        if (least[i] < *first)
            *first = (size_t)least[i];
    free(least);
    return s;
}

/* The stable order of kc[koff .. +n) as cl_ulongs to dst[dst_off ..]. On
   GPUs the keys are only read; elsewhere kc is scratch slot IN with koff
   0, which the sort reorders. */
static gpgpu_status argsort_scratch(gpgpu_context *ctx, gpgpu_type t, cl_mem kc, size_t koff,
                                    size_t n, unsigned flags, cl_mem dst, size_t dst_off)
{
    const size_t ib = n <= UINT32_MAX ? 4 : 8;
    gpgpu__program *prog;
    cl_mem ic;
    GPGPU__TRY(gpgpu__sort_words_ok(ctx, "gpgpu_argsort", t, ib));
    /* GPUs: the sort computes the indices and writes them home as
       cl_ulongs, with no buffer of indices to fill and widen, and no keys.
       Past 2^32 keys its passes carry 8-byte indices: the keys, the
       passes' two copies of them, one of the indices and the result (which
       serves as the other). Say so at once rather than fail mid-sort. */
    const size_t ks = gpgpu__type(t)->size;
    if (gpgpu__sort_index_direct(ctx)) {
        if (n > UINT32_MAX && n > ctx->global_mem / (3 * ks + 16))
            return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                               "gpgpu_argsort: %zu keys need %.1f GiB of device memory (the "
                               "keys, two copies of them and two buffers of 8-byte indices); "
                               "%s has %.1f GiB", n, (double)n * (3 * ks + 16) / (1 << 30),
                               ctx->name, (double)ctx->global_mem / (1 << 30));
        return gpgpu__sort_order_enqueue(ctx, t, kc, koff, n, flags, dst, dst_off);
    }
    /* Elsewhere, past 2^32 keys, the keys and the indices each three
       times (in, the passes' two copies), and the result. */
    const size_t per_key = 3 * ks + 4 * ib;
    if (n > ctx->global_mem / per_key)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                           "gpgpu_argsort: %zu keys need %.1f GiB of device memory (keys "
                           "and 8-byte indices, with the passes' copies of each); %s has "
                           "%.1f GiB", n, (double)n * per_key / (1 << 30), ctx->name,
                           (double)ctx->global_mem / (1 << 30));
    GPGPU__TRY(search_program(ctx, ib, &prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, n * ib, &ic));
    layout l = layout_for(ctx, n, 65536);
    cl_ulong nn = n, doff = dst_off;
    GPGPU__TRY(gpgpu__run(ctx, prog, "argsort_iota", l.global, l.local, GPGPU__ARG(ic),
                          GPGPU__ARG(nn), GPGPU__ARG(l.chunk), GPGPU__END));
    GPGPU__TRY(gpgpu__sort_iota_enqueue(ctx, t, kc, ic, ib, n, flags));
    if (ib == 8)
        return gpgpu__copy(ctx, ic, 0, dst, dst_off * 8, n * 8);
    return gpgpu__run(ctx, prog, "argsort_widen", l.global, l.local, GPGPU__ARG(ic),
                      GPGPU__ARG(nn), GPGPU__ARG(dst), GPGPU__ARG(doff), GPGPU__ARG(l.chunk),
                      GPGPU__END);
}

/* The same from keys[keys_off .. +n), which stay as they are. */
static gpgpu_status argsort_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                    size_t keys_off, size_t n, unsigned flags, cl_mem dst,
                                    size_t dst_off)
{
    const size_t ks = gpgpu__type(t)->size;
    cl_mem kc;
    if (n == 0)
        return GPGPU_SUCCESS;
    /* GPUs read the keys where they are (the sort writes only the order);
       elsewhere the sort reorders a copy. */
    if (!gpgpu__sort_index_direct(ctx)) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, n * ks, &kc));
        GPGPU__TRY(gpgpu__copy(ctx, keys, keys_off * ks, kc, 0, n * ks));
        keys = kc;
        keys_off = 0;
    }
    return argsort_scratch(ctx, t, keys, keys_off, n, flags, dst, dst_off);
}

/* ---- argument checks ----------------------------------------------------------- */

static int overlap_ptr(const void *a, size_t abytes, const void *b, size_t bbytes)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return abytes && bbytes && x < y + bbytes && y < x + abytes;
}

static gpgpu_status check_side(gpgpu_context *ctx, const char *func, unsigned side)
{
    GPGPU__REQUIRE(ctx, side == GPGPU_SEARCH_LEFT || side == GPGPU_SEARCH_RIGHT, func,
                   "side is %u; need GPGPU_SEARCH_LEFT (0) or GPGPU_SEARCH_RIGHT (1)", side);
    return GPGPU_SUCCESS;
}

static gpgpu_status check_flags(gpgpu_context *ctx, const char *func, unsigned flags)
{
    GPGPU__REQUIRE(ctx, (flags & ~(unsigned)GPGPU_DESCENDING) == 0, func,
                   "flags is 0x%x; only GPGPU_DESCENDING (0x%x) may be set", flags,
                   (unsigned)GPGPU_DESCENDING);
    return GPGPU_SUCCESS;
}

static gpgpu_status check_value_size(gpgpu_context *ctx, const char *func, size_t vs)
{
    GPGPU__REQUIRE(ctx, vs == 4 || vs == 8, func, "value_size is %zu; need 4 or 8", vs);
    if (!ctx->host && vs == 8 && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: %s has no 64-bit integers for 8-byte values", func, ctx->name);
    return GPGPU_SUCCESS;
}

/* Two ranges of elements of one buffer (or of two) that must not overlap. */
static gpgpu_status check_apart(gpgpu_context *ctx, const char *func, const char *a_name,
                                cl_mem a, size_t a_off, size_t a_n, size_t a_size,
                                const char *b_name, cl_mem b, size_t b_off, size_t b_n,
                                size_t b_size)
{
    GPGPU__REQUIRE(ctx, a != b || !gpgpu__overlap(a_off * a_size, a_n * a_size, b_off * b_size,
                                                  b_n * b_size), func,
                   "%s and %s are one buffer and their ranges overlap; they must be apart",
                   a_name, b_name);
    return GPGPU_SUCCESS;
}

static gpgpu_status index_error(gpgpu_context *ctx, const char *func, size_t at, uint64_t index,
                                size_t n_in)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                       "%s: indices[%zu] is %llu; it must be below n_in = %zu (out is unchanged)",
                       func, at, (unsigned long long)index, n_in);
}

/* ---- the host API ---------------------------------------------------------------- */

/* A host array seen by the device: a view of it where the device shares
   host memory, else a scratch slot it is uploaded to (in) or read back
   from (out). elem_off counts elements of size from the buffer's start. */
typedef struct {
    cl_mem buf;
    size_t off;
    int owned;
} host_arr;

/* writes: the device writes the array (read back, or seen in place). */
static gpgpu_status arr_get(gpgpu_context *ctx, int zero_copy, int slot, const void *p, size_t n,
                            size_t size, int writes, host_arr *a)
{
    a->buf = NULL;
    a->off = 0;
    a->owned = zero_copy;
    if (zero_copy) {
        GPGPU__TRY(gpgpu__host_view(ctx, p, n * size, writes, &a->buf, &a->off));
        a->off /= size;
        return GPGPU_SUCCESS;
    }
    GPGPU__TRY(gpgpu__scratch(ctx, slot, n * size, &a->buf));
    return writes ? GPGPU_SUCCESS : gpgpu__upload(ctx, a->buf, 0, n * size, p);
}
#define arr_in(ctx, zc, slot, p, n, size, a) arr_get(ctx, zc, slot, p, n, size, 0, a)
#define arr_out(ctx, zc, slot, p, n, size, a) arr_get(ctx, zc, slot, p, n, size, 1, a)

static void arr_release(host_arr *a)
{
    if (a->owned && a->buf)
        clReleaseMemObject(a->buf); /* OpenCL keeps it until its commands end */
}

/* The result into p: a zero-copy call waits for its last kernel, which
   wrote it; else it is read back. */
static gpgpu_status arr_finish(gpgpu_context *ctx, int zero_copy, const host_arr *out, void *p,
                               size_t bytes)
{
    if (zero_copy)
        return gpgpu__wait_done(ctx);
    return gpgpu__download(ctx, out->buf, 0, bytes, p, 1);
}

static gpgpu_status search_host_api(gpgpu_context *ctx, gpgpu_type t, const void *sorted,
                                    size_t n, const void *needles, size_t m, unsigned side,
                                    uint64_t *pos)
{
    const size_t size = gpgpu__type(t)->size;
    const int zc = gpgpu__in_place(ctx, n * size) && gpgpu__in_place(ctx, m * size) &&
                   gpgpu__in_place(ctx, m * sizeof *pos);
    host_arr s = {0}, x = {0}, p = {0};
    gpgpu__note_route(ctx, zc ? "zero-copy" : "copy");
    gpgpu_status st = arr_in(ctx, zc, GPGPU__SLOT_IN, sorted, n, size, &s);
    if (st == GPGPU_SUCCESS)
        st = arr_in(ctx, zc, GPGPU__SLOT_OUT, needles, m, size, &x);
    if (st == GPGPU_SUCCESS)
        st = arr_out(ctx, zc, GPGPU__SLOT_AUX, pos, m, sizeof *pos, &p);
    if (st == GPGPU_SUCCESS)
        st = search_enqueue(ctx, t, s.buf, s.off, n, x.buf, x.off, m, side, p.buf, p.off);
    if (st == GPGPU_SUCCESS)
        st = arr_finish(ctx, zc, &p, pos, m * sizeof *pos);
    arr_release(&s);
    arr_release(&x);
    arr_release(&p);
    return st;
}

gpgpu_status gpgpu_search_sorted(gpgpu_context *ctx, gpgpu_type t, const void *sorted, size_t n,
                                 const void *needles, size_t m, unsigned side, uint64_t *pos)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(check_side(ctx, __func__, side));
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "sorted", sorted, n, size, 1, size));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "needles", needles, m, size, 1, size));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "pos", pos, m, sizeof *pos, 1, sizeof *pos));
    GPGPU__REQUIRE(ctx, !overlap_ptr(pos, m * sizeof *pos, sorted, n * size) &&
                            !overlap_ptr(pos, m * sizeof *pos, needles, m * size), __func__,
                   "pos overlaps sorted or needles; it must be apart from both");
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    GPGPU__TRY(need_int64(ctx, __func__));
    if (m == 0)
        return GPGPU_SUCCESS;
    if (ctx->host || n == 0 || gpgpu__small_on_host(ctx, m) ||
        gpgpu__host_below(ctx, GPGPU__HB_SEARCH, m)) {
        gpgpu__host_search_sorted(t, sorted, n, needles, m, side, pos);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    ctx->prints_own = 1;
    gpgpu_status s = search_host_api(ctx, t, sorted, n, needles, m, side, pos);
    gpgpu__end(ctx, NULL);
    return gpgpu__host_call_end(ctx, __func__, s);
}

/* Zero copy: the keys are read in their view (on CPUs, copied to scratch
   first) and the indices written in place; else the keys are uploaded
   straight into the scratch the sort reads, and the indices come back from
   HOST_ORIG. */
static gpgpu_status argsort_host_api(gpgpu_context *ctx, gpgpu_type t, const void *keys,
                                     size_t n, unsigned flags, uint64_t *indices)
{
    const size_t size = gpgpu__type(t)->size;
    const int zc = gpgpu__in_place(ctx, n * size) && gpgpu__in_place(ctx, n * sizeof *indices);
    host_arr k = {0}, x = {0};
    gpgpu_status st;
    gpgpu__note_route(ctx, zc ? "zero-copy" : "copy");
    if (zc) {
        st = arr_in(ctx, 1, 0, keys, n, size, &k);
        if (st == GPGPU_SUCCESS)
            st = arr_out(ctx, 1, 0, indices, n, sizeof *indices, &x);
        if (st == GPGPU_SUCCESS)
            st = argsort_enqueue(ctx, t, k.buf, k.off, n, flags, x.buf, x.off);
    } else {
        st = arr_in(ctx, 0, GPGPU__SLOT_IN, keys, n, size, &k);
        if (st == GPGPU_SUCCESS)
            st = arr_out(ctx, 0, GPGPU__SLOT_HOST_ORIG, indices, n, sizeof *indices, &x);
        if (st == GPGPU_SUCCESS)
            st = argsort_scratch(ctx, t, k.buf, 0, n, flags, x.buf, 0);
    }
    if (st == GPGPU_SUCCESS)
        st = arr_finish(ctx, zc, &x, indices, n * sizeof *indices);
    arr_release(&k);
    arr_release(&x);
    return st;
}

gpgpu_status gpgpu_argsort(gpgpu_context *ctx, gpgpu_type t, const void *keys, size_t n,
                           unsigned flags, uint64_t *indices)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(check_flags(ctx, __func__, flags));
    const size_t size = gpgpu__type(t)->size;
    /* the scratch holds two copies of the keys and of the indices */
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "keys", keys, n, size, 3, size));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "indices", indices, n, sizeof *indices, 3,
                                  sizeof *indices));
    GPGPU__REQUIRE(ctx, !overlap_ptr(indices, n * sizeof *indices, keys, n * size), __func__,
                   "indices overlaps keys; they must be apart");
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    GPGPU__TRY(need_int64(ctx, __func__));
    if (n == 0)
        return GPGPU_SUCCESS;
    if (ctx->host || n < 2 || gpgpu__small_on_host(ctx, n))
        return gpgpu__host_argsort(t, keys, n, flags, indices) == GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", __func__);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    ctx->prints_own = 1;
    gpgpu_status s = argsort_host_api(ctx, t, keys, n, flags, indices);
    gpgpu__end(ctx, NULL);
    return gpgpu__host_call_end(ctx, __func__, s);
}

static gpgpu_status gather_host_api(gpgpu_context *ctx, size_t vs, const void *in, size_t n_in,
                                    const uint64_t *indices, size_t n, void *out)
{
    const int zc = gpgpu__in_place(ctx, n_in * vs) && gpgpu__in_place(ctx, n * vs) &&
                   gpgpu__in_place(ctx, n * sizeof *indices);
    host_arr a = {0}, x = {0}, o = {0};
    size_t bad;
    gpgpu__note_route(ctx, zc ? "zero-copy" : "copy");
    gpgpu_status st = arr_in(ctx, zc, GPGPU__SLOT_AUX, indices, n, sizeof *indices, &x);
    if (st == GPGPU_SUCCESS)
        st = gather_check(ctx, x.buf, x.off, n, n_in, &bad);
    if (st == GPGPU_SUCCESS && bad != SIZE_MAX)
        st = index_error(ctx, "gpgpu_gather", bad, indices[bad], n_in);
    if (st == GPGPU_SUCCESS)
        st = arr_in(ctx, zc, GPGPU__SLOT_IN, in, n_in, vs, &a);
    if (st == GPGPU_SUCCESS)
        st = arr_out(ctx, zc, GPGPU__SLOT_OUT, out, n, vs, &o);
    if (st == GPGPU_SUCCESS)
        st = gather_enqueue(ctx, vs, a.buf, a.off, n_in, x.buf, x.off, n, o.buf, o.off);
    if (st == GPGPU_SUCCESS)
        st = arr_finish(ctx, zc, &o, out, n * vs);
    arr_release(&a);
    arr_release(&x);
    arr_release(&o);
    return st;
}

gpgpu_status gpgpu_gather(gpgpu_context *ctx, size_t value_size, const void *in, size_t n_in,
                          const uint64_t *indices, size_t n, void *out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(check_value_size(ctx, __func__, value_size));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n_in, value_size, 1, value_size));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "indices", indices, n, sizeof *indices, 1,
                                  sizeof *indices));
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "out", out, n, value_size, 1, value_size));
    GPGPU__REQUIRE(ctx, !overlap_ptr(out, n * value_size, in, n_in * value_size) &&
                            !overlap_ptr(out, n * value_size, indices, n * sizeof *indices),
                   __func__, "out overlaps in or indices; it must be apart from both");
    GPGPU__TRY(need_int64(ctx, __func__));
    if (n == 0)
        return GPGPU_SUCCESS;
    if (ctx->host || n_in == 0 || gpgpu__small_on_host(ctx, n) ||
        gpgpu__host_below(ctx, GPGPU__HB_GATHER, n)) {
        size_t bad = gpgpu__host_gather_checked(value_size, in, n_in, indices, n, out);
        if (bad != SIZE_MAX)
            return index_error(ctx, __func__, bad, indices[bad], n_in);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    ctx->prints_own = 1;
    gpgpu_status s = gather_host_api(ctx, value_size, in, n_in, indices, n, out);
    gpgpu__end(ctx, NULL);
    return gpgpu__host_call_end(ctx, __func__, s);
}

/* ---- the _buffer forms ------------------------------------------------------------ */

/* What every _buffer form does around its enqueues: lock, the caller's
   events, the done event. */
static gpgpu_status buffer_begin(gpgpu_context *ctx, const char *func, cl_uint num_wait,
                                 const cl_event *wait, cl_event *done)
{
    GPGPU__TRY(gpgpu__check_wait(ctx, func, num_wait, wait));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", func);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    ctx->prints_own = 1;
    return GPGPU_SUCCESS;
}

static gpgpu_status buffer_end(gpgpu_context *ctx, const char *func, gpgpu_status s,
                               cl_event *done)
{
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    if (s != GPGPU_SUCCESS)
        gpgpu__end(ctx, NULL);
    else if (ctx->profile_print)
        gpgpu__profile_print(ctx, func);
    gpgpu__unlock(ctx);
    return s;
}

gpgpu_status gpgpu_search_sorted_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem sorted,
                                        size_t sorted_offset, size_t n, cl_mem needles,
                                        size_t needles_offset, size_t m, unsigned side,
                                        cl_mem pos, size_t pos_offset, cl_uint num_wait,
                                        const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(check_side(ctx, __func__, side));
    const size_t size = gpgpu__type(t)->size;
    if (!ctx->host && n > 0)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "sorted", sorted, sorted_offset, n, size));
    if (!ctx->host && m > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "needles", needles, needles_offset, m,
                                      size));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "pos", pos, pos_offset, m,
                                      sizeof(cl_ulong)));
        GPGPU__TRY(check_apart(ctx, __func__, "pos", pos, pos_offset, m, sizeof(cl_ulong),
                               "sorted", sorted, sorted_offset, n, size));
        GPGPU__TRY(check_apart(ctx, __func__, "pos", pos, pos_offset, m, sizeof(cl_ulong),
                               "needles", needles, needles_offset, m, size));
    }
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    GPGPU__TRY(need_int64(ctx, __func__));
    GPGPU__TRY(buffer_begin(ctx, __func__, num_wait, wait, done));
    return buffer_end(ctx, __func__,
                      search_enqueue(ctx, t, n ? sorted : needles, sorted_offset, n, needles,
                                     needles_offset, m, side, pos, pos_offset),
                      done);
}

gpgpu_status gpgpu_argsort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                  size_t keys_offset, size_t n, unsigned flags, cl_mem indices,
                                  size_t indices_offset, cl_uint num_wait, const cl_event *wait,
                                  cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__TRY(check_flags(ctx, __func__, flags));
    const size_t size = gpgpu__type(t)->size;
    if (!ctx->host && n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "keys", keys, keys_offset, n, size));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "indices", indices, indices_offset, n,
                                      sizeof(cl_ulong)));
        GPGPU__TRY(check_apart(ctx, __func__, "indices", indices, indices_offset, n,
                               sizeof(cl_ulong), "keys", keys, keys_offset, n, size));
    }
    GPGPU__TRY(gpgpu__type_supported(ctx, t));
    GPGPU__TRY(need_int64(ctx, __func__));
    GPGPU__TRY(buffer_begin(ctx, __func__, num_wait, wait, done));
    return buffer_end(ctx, __func__,
                      argsort_enqueue(ctx, t, keys, keys_offset, n, flags, indices,
                                      indices_offset),
                      done);
}

gpgpu_status gpgpu_gather_buffer(gpgpu_context *ctx, size_t value_size, cl_mem in,
                                 size_t in_offset, size_t n_in, cl_mem indices,
                                 size_t indices_offset, size_t n, cl_mem out, size_t out_offset,
                                 cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(check_value_size(ctx, __func__, value_size));
    if (!ctx->host && n_in > 0)
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "in", in, in_offset, n_in, value_size));
    if (!ctx->host && n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "indices", indices, indices_offset, n,
                                      sizeof(cl_ulong)));
        GPGPU__TRY(gpgpu__check_range(ctx, __func__, "out", out, out_offset, n, value_size));
        GPGPU__TRY(check_apart(ctx, __func__, "out", out, out_offset, n, value_size, "in", in,
                               in_offset, n_in, value_size));
        GPGPU__TRY(check_apart(ctx, __func__, "out", out, out_offset, n, value_size, "indices",
                               indices, indices_offset, n, sizeof(cl_ulong)));
    }
    GPGPU__TRY(need_int64(ctx, __func__));
    GPGPU__TRY(buffer_begin(ctx, __func__, num_wait, wait, done));
    return buffer_end(ctx, __func__,
                      gather_enqueue(ctx, value_size, n_in ? in : NULL, in_offset, n_in,
                                     indices, indices_offset, n, out, out_offset),
                      done);
}

/* ---- device arrays ------------------------------------------------------------------ */

static gpgpu_status check_u64(gpgpu_context *ctx, const char *func, const char *what,
                              const gpgpu_array *a)
{
    GPGPU__REQUIRE(ctx, a->t == GPGPU_U64, func, "%s holds %s elements; it must hold u64", what,
                   gpgpu__type(a->t)->name);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_search_sorted_array(gpgpu_context *ctx, const gpgpu_array *sorted,
                                       const gpgpu_array *needles, unsigned side,
                                       gpgpu_array *pos)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "sorted", sorted));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "needles", needles));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "pos", pos));
    GPGPU__TRY(check_side(ctx, __func__, side));
    GPGPU__REQUIRE(ctx, needles->t == sorted->t, __func__,
                   "needles holds %s elements; it must hold %s like sorted",
                   gpgpu__type(needles->t)->name, gpgpu__type(sorted->t)->name);
    GPGPU__TRY(check_u64(ctx, __func__, "pos", pos));
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "pos", needles, pos, 0, 1));
    GPGPU__REQUIRE(ctx, pos != sorted && pos != needles, __func__,
                   "pos is one of the inputs; it must be another array");
    GPGPU__TRY(gpgpu__type_supported(ctx, sorted->t));
    GPGPU__TRY(need_int64(ctx, __func__));
    if (ctx->host) {
        gpgpu__host_search_sorted(sorted->t, sorted->host, sorted->n, needles->host,
                                  needles->n, side, pos->host);
        return GPGPU_SUCCESS;
    }
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, __func__,
                            search_enqueue(ctx, sorted->t, sorted->buf, 0, sorted->n,
                                           needles->buf, 0, needles->n, side, pos->buf, 0));
}

gpgpu_status gpgpu_argsort_array(gpgpu_context *ctx, const gpgpu_array *keys, unsigned flags,
                                 gpgpu_array *indices)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "keys", keys));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "indices", indices));
    GPGPU__TRY(check_flags(ctx, __func__, flags));
    GPGPU__TRY(check_u64(ctx, __func__, "indices", indices));
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "indices", keys, indices, 0, 1));
    GPGPU__REQUIRE(ctx, indices != keys, __func__,
                   "indices and keys are the same array; they must differ");
    GPGPU__TRY(gpgpu__type_supported(ctx, keys->t));
    GPGPU__TRY(need_int64(ctx, __func__));
    if (ctx->host)
        return gpgpu__host_argsort(keys->t, keys->host, keys->n, flags, indices->host) ==
                       GPGPU_SUCCESS
                   ? GPGPU_SUCCESS
                   : gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "%s: no host memory", __func__);
    gpgpu__array_begin(ctx);
    return gpgpu__array_end(ctx, __func__,
                            argsort_enqueue(ctx, keys->t, keys->buf, 0, keys->n, flags,
                                            indices->buf, 0));
}

gpgpu_status gpgpu_gather_array(gpgpu_context *ctx, const gpgpu_array *in,
                                const gpgpu_array *indices, gpgpu_array *out)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "indices", indices));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "out", out));
    GPGPU__TRY(check_u64(ctx, __func__, "indices", indices));
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "out", indices, out, 0, 1));
    GPGPU__REQUIRE(ctx, out->t == in->t, __func__,
                   "out holds %s elements; it must hold %s like in", gpgpu__type(out->t)->name,
                   gpgpu__type(in->t)->name);
    GPGPU__REQUIRE(ctx, out != in && out != indices, __func__,
                   "out is one of the inputs; it must be another array");
    const size_t vs = gpgpu__type(in->t)->size;
    GPGPU__TRY(check_value_size(ctx, __func__, vs));
    GPGPU__TRY(need_int64(ctx, __func__));
    if (ctx->host) {
        size_t bad = gpgpu__host_gather_checked(vs, in->host, in->n, indices->host,
                                                indices->n, out->host);
        if (bad != SIZE_MAX)
            return index_error(ctx, __func__, bad, ((const uint64_t *)indices->host)[bad], in->n);
        return GPGPU_SUCCESS;
    }
    size_t bad;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gather_check(ctx, indices->buf, 0, indices->n, in->n, &bad);
    if (s == GPGPU_SUCCESS && bad != SIZE_MAX) {
        cl_ulong v = 0;
        s = gpgpu__read(ctx, indices->buf, bad * sizeof v, sizeof v, &v);
        if (s == GPGPU_SUCCESS)
            s = index_error(ctx, __func__, bad, v, in->n);
    }
    if (s == GPGPU_SUCCESS)
        s = gather_enqueue(ctx, vs, in->n ? in->buf : NULL, 0, in->n, indices->buf, 0,
                           indices->n, out->buf, 0);
    return gpgpu__array_end(ctx, __func__, s);
}
