/*
 * test_segsort.c - gpgpu_segmented_sort and _pairs in every form against a
 * plain-C reference (ref_segmented.c): the host API (on a CPU device the
 * host's threads), the GPU kernels forced on any device (GPGPU_CHUNKED=0:
 * group-per-segment in __local memory, one group per long segment through
 * scratch, the device-wide sort for a segment that fills the device), the
 * _buffer forms with offsets on the device, the _array forms, and errors.
 * Segment lengths cover 0, 1, a tile - 1, a tile, a tile + 1 (tiles of
 * 4096 keys here), primes, and keys with few distinct values so that
 * stability shows.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "core/core.h" /* the 64-bit path is forced through ctx->tune */
#include "ref_segmented.h"
#include "util.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static const gpgpu_type types[] = { GPGPU_I32, GPGPU_U32, GPGPU_F32,
                                    GPGPU_I64, GPGPU_U64, GPGPU_F64 };

/* Segment length patterns. */
enum { EDGES, SMALL, ONE_LONG, HUGE_ONE, PATTERNS };
static const char *const pattern_names[] = { "edges", "small", "one-long", "huge" };

/* Fills off[0 .. nseg] starting at lead; returns nseg. */
static size_t make_offsets(int pattern, size_t lead, uint64_t seed, size_t *off)
{
    static const size_t edges[] = { 0, 1, 2, 4095, 4096, 4097, 0, 3, 31, 32, 33, 257, 1,
                                    8191, 8193, 12289, 0 };
    size_t nseg = 0, at = lead;
    off[0] = lead;
    switch (pattern) {
    case EDGES:
        for (size_t i = 0; i < COUNT(edges); i++)
            off[++nseg] = at += edges[i];
        break;
    case SMALL: /* many short segments, lengths 0 .. 600 */
        for (size_t i = 0; i < 120; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            off[++nseg] = at += (size_t)(seed >> 33) % 601;
        }
        break;
    case ONE_LONG:
        off[++nseg] = at += 30011;
        break;
    case HUGE_ONE: /* long enough for the device-wide sort, among short ones */
        off[++nseg] = at += 100;
        off[++nseg] = at += 70001;
        off[++nseg] = at += 4099;
        break;
    }
    return nseg;
}

/* Keys with few distinct values (ties show stability); values count up. */
static void fill_case(gpgpu_type t, unsigned char *k, uint64_t *v, size_t all, size_t value_size,
                      uint64_t seed)
{
    size_t ks = gpgpu_type_size(t);
    tu_fill(t, k, all, seed);
    memset(v, 0, all * 8);
    for (size_t i = 0; i < all; i++) {
        if (i % 3)
            memcpy(k + i * ks, k + (i % 11) * ks, ks);
        if (value_size == 4)
            ((uint32_t *)v)[i] = (uint32_t)i;
        else
            v[i] = i * 0x100000001ull;
    }
}

static void check_host_api(gpgpu_type t, int pattern, unsigned flags, size_t value_size)
{
    size_t off[200], lead = 5;
    size_t nseg = make_offsets(pattern, lead, tu_seed_for(pattern, t), off);
    size_t ks = gpgpu_type_size(t), all = off[nseg] + 7;
    unsigned char *k = tu_alloc(all * ks), *want = tu_alloc(all * ks);
    uint64_t *v = tu_alloc(all * 8), *vwant = tu_alloc(all * 8);
    fill_case(t, k, v, all, value_size, tu_seed_for(t + 10 * pattern, flags + value_size));
    memcpy(want, k, all * ks);
    memcpy(vwant, v, all * 8);
    ref_segmented_sort(t, want, value_size ? vwant : NULL, value_size, off, nseg, flags);
    gpgpu_status st = value_size
                          ? gpgpu_segmented_sort_pairs(tu_ctx, t, k, v, value_size, off, nseg,
                                                       flags)
                          : gpgpu_segmented_sort(tu_ctx, t, k, off, nseg, flags);
    tu_assert_ok(st);
    ck_assert_msg(!memcmp(k, want, all * ks) && !memcmp(v, vwant, all * 8),
                  "segmented sort type %d %s flags %u values %zu wrong [device %s seed %llu]",
                  t, pattern_names[pattern], flags, value_size, tu_device,
                  (unsigned long long)tu_seed());
    free(k);
    free(want);
    free(v);
    free(vwant);
}

TU_LOOP_TEST(host_api_every_type_pattern_and_order, 6)
{
    for (int p = 0; p < HUGE_ONE; p++)
        for (unsigned flags = 0; flags < 2; flags++)
            check_host_api(types[_i], p, flags, (p + flags) % 3 == 0 ? 0 : (p + flags) % 3 * 4);
}
END_TEST

/* ---- the GPU kernels on any device ------------------------------------------------ */

/* tu_ctx becomes a context with the GPU layout; 0 on the fallback. */
static int use_gpu_layout(void)
{
    return tu_force("GPGPU_CHUNKED=0");
}

/* Three programs: u32 keys, f32 keys with 4-byte values, u64 keys with
   8-byte values (each pattern in each, both orders). */
TU_TEST(gpu_kernels_sort_on_any_device)
{
    if (!use_gpu_layout())
        return;
    static const struct { gpgpu_type t; size_t vs; } progs[] = {
        { GPGPU_U32, 0 }, { GPGPU_F32, 4 }, { GPGPU_U64, 8 } };
    for (size_t i = 0; i < COUNT(progs); i++)
        for (int p = 0; p < (i ? HUGE_ONE : PATTERNS); p++) /* one sort program */
            check_host_api(progs[i].t, p, (unsigned)(p + i) % 2, progs[i].vs);
    tu_restore_ctx();
}
END_TEST

/* The _buffer form with offsets on the device: at an offset into their
   buffer, counting from an offset into keys; elements around the segments
   untouched; clamped and decreasing offsets do not crash or write outside. */
static void check_buffer(gpgpu_type t, size_t vs, unsigned flags)
{
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_context cl = tu_cl_context();
    size_t off[200], koff = 3, ooff = 2;
    size_t nseg = make_offsets(EDGES, 4, tu_seed_for(77, t), off);
    size_t ks = gpgpu_type_size(t), n = off[nseg] + 5;
    unsigned char *k = tu_alloc(n * ks), *want = tu_alloc(n * ks), *got = tu_alloc(n * ks);
    uint64_t *v = tu_alloc(n * 8), *vwant = tu_alloc(n * 8), *vgot = tu_alloc(n * 8);
    cl_ulong *o = tu_alloc((nseg + 1 + ooff) * sizeof *o);
    fill_case(t, k, v, n, vs, tu_seed_for(78, t + flags));
    memcpy(want, k, n * ks);
    memcpy(vwant, v, n * 8);
    ref_segmented_sort(t, want, vs ? vwant : NULL, vs, off, nseg, flags);
    for (size_t s = 0; s <= nseg; s++)
        o[ooff + s] = off[s];
    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE, (koff + n) * ks, NULL, &err);
    cl_mem vb = clCreateBuffer(cl, CL_MEM_READ_WRITE, (koff + n) * 8, NULL, &err);
    cl_mem ob = clCreateBuffer(cl, CL_MEM_READ_WRITE, (nseg + 1 + ooff) * 8, NULL, &err);
    clEnqueueWriteBuffer(q, kb, CL_TRUE, koff * ks, n * ks, k, 0, NULL, NULL);
    if (vs)
        clEnqueueWriteBuffer(q, vb, CL_TRUE, koff * vs, n * vs, v, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, ob, CL_TRUE, 0, (nseg + 1 + ooff) * 8, o, 0, NULL, NULL);
    cl_event done = NULL;
    gpgpu_status st = vs ? gpgpu_segmented_sort_pairs_buffer(tu_ctx, t, kb, koff, vb, koff, vs,
                                                             ob, ooff, nseg, flags, 0, NULL,
                                                             &done)
                         : gpgpu_segmented_sort_buffer(tu_ctx, t, kb, koff, ob, ooff, nseg,
                                                       flags, 0, NULL, &done);
    tu_assert_ok(st);
    ck_assert(done != NULL);
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
    clEnqueueReadBuffer(q, kb, CL_TRUE, koff * ks, n * ks, got, 0, NULL, NULL);
    if (vs)
        clEnqueueReadBuffer(q, vb, CL_TRUE, koff * vs, n * vs, vgot, 0, NULL, NULL);
    ck_assert_msg(!memcmp(got, want, n * ks) && (!vs || !memcmp(vgot, vwant, n * vs)),
                  "segmented sort buffer type %d values %zu flags %u wrong [seed %llu]", t, vs,
                  flags, (unsigned long long)tu_seed());

    /* Offsets past the end and decreasing: nothing outside the buffer, no hang. */
    o[ooff + 1] = n + 1000;
    o[ooff + 2] = 1;
    o[ooff + nseg] = (cl_ulong)-1;
    clEnqueueWriteBuffer(q, ob, CL_TRUE, 0, (nseg + 1 + ooff) * 8, o, 0, NULL, NULL);
    st = vs ? gpgpu_segmented_sort_pairs_buffer(tu_ctx, t, kb, koff, vb, koff, vs, ob, ooff,
                                                nseg, flags, 0, NULL, NULL)
            : gpgpu_segmented_sort_buffer(tu_ctx, t, kb, koff, ob, ooff, nseg, flags, 0, NULL,
                                          NULL);
    tu_assert_ok(st);
    clFinish(q);
    clReleaseMemObject(kb);
    clReleaseMemObject(vb);
    clReleaseMemObject(ob);
    free(k);
    free(want);
    free(got);
    free(v);
    free(vwant);
    free(vgot);
    free(o);
}

TU_TEST(buffer_forms_with_offsets_and_events)
{
    if (!use_gpu_layout())
        return;
    check_buffer(GPGPU_U32, 0, 0);
    check_buffer(GPGPU_F32, 4, 1);
    check_buffer(GPGPU_U64, 8, 1);
    tu_restore_ctx();
}
END_TEST

/* Segments longer than the segmented kernels count (2^32 - 1 keys) go to
   the device-wide sort: here from 4097 keys on (tune.wide_from), in the
   host API and, after a read of the offsets, in the _buffer form. */
TU_TEST(long_segments_take_the_device_wide_sort)
{
    if (!use_gpu_layout())
        return;
    tu_ctx->tune.wide_from = 4097;
    tu_ctx->tune.segsort_host = 0;
    check_host_api(GPGPU_U32, EDGES, 0, 0);
    check_host_api(GPGPU_F32, HUGE_ONE, 1, 4);
    check_buffer(GPGPU_U32, 0, 0);
    check_buffer(GPGPU_U64, 8, 1);
    tu_restore_ctx();
}
END_TEST

/* The _array forms: device arrays where there is a device, host memory on
   the fallback. */
TU_TEST(array_forms)
{
    int gpu = use_gpu_layout();
    size_t off[200];
    size_t nseg = make_offsets(SMALL, 0, tu_seed_for(90, 1), off), n = off[nseg] + 2;
    uint32_t *k = tu_alloc(n * 4), *want = tu_alloc(n * 4), *vwant = tu_alloc(n * 4);
    uint64_t *v = tu_alloc(n * 8), *o = tu_alloc((nseg + 1) * 8);
    fill_case(GPGPU_U32, (unsigned char *)k, v, n, 4, tu_seed_for(91, 1));
    memcpy(want, k, n * 4);
    memcpy(vwant, v, n * 4);
    ref_segmented_sort(GPGPU_U32, want, vwant, 4, off, nseg, GPGPU_DESCENDING);
    for (size_t s = 0; s <= nseg; s++)
        o[s] = off[s];
    gpgpu_array *ka, *va, *oa, *bad;
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, n, &ka));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_I32, n, &va));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_U64, nseg + 1, &oa));
    tu_assert_ok(gpgpu_array_create(tu_ctx, GPGPU_I64, nseg + 1, &bad));
    tu_assert_ok(gpgpu_array_write(tu_ctx, ka, 0, k, n));
    tu_assert_ok(gpgpu_array_write(tu_ctx, va, 0, v, n));
    tu_assert_ok(gpgpu_array_write(tu_ctx, oa, 0, o, nseg + 1));
    ck_assert_int_eq(gpgpu_segmented_sort_array(tu_ctx, ka, bad, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "GPGPU_U64") != NULL);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs_array(tu_ctx, ka, ka, oa, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    tu_assert_ok(gpgpu_segmented_sort_pairs_array(tu_ctx, ka, va, oa, GPGPU_DESCENDING));
    memset(k, 0, n * 4);
    memset(v, 0, n * 4);
    tu_assert_ok(gpgpu_array_read(tu_ctx, ka, 0, k, n));
    tu_assert_ok(gpgpu_array_read(tu_ctx, va, 0, v, n));
    ck_assert_msg(!memcmp(k, want, n * 4) && !memcmp(v, vwant, n * 4),
                  "segmented sort array wrong [device %s seed %llu]", tu_device,
                  (unsigned long long)tu_seed());
    /* keys only, ascending, on the sorted keys */
    ref_segmented_sort(GPGPU_U32, want, NULL, 0, off, nseg, 0);
    tu_assert_ok(gpgpu_segmented_sort_array(tu_ctx, ka, oa, 0));
    tu_assert_ok(gpgpu_array_read(tu_ctx, ka, 0, k, n));
    ck_assert(!memcmp(k, want, n * 4));
    gpgpu_array_destroy(ka);
    gpgpu_array_destroy(va);
    gpgpu_array_destroy(oa);
    gpgpu_array_destroy(bad);
    if (gpu)
        tu_restore_ctx();
    free(k);
    free(want);
    free(vwant);
    free(v);
    free(o);
}
END_TEST

TU_TEST(bad_arguments_are_rejected)
{
    uint32_t k[4] = { 4, 3, 2, 1 }, v[4] = { 0, 1, 2, 3 };
    size_t bad[3] = { 0, 3, 2 }, good[3] = { 0, 2, 4 };
    ck_assert_int_eq(gpgpu_segmented_sort(tu_ctx, GPGPU_U32, k, bad, 2, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "offsets[2] = 2") != NULL);
    ck_assert_int_eq(gpgpu_segmented_sort(tu_ctx, GPGPU_U32, k, good, 2, 2),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs(tu_ctx, GPGPU_U32, k, v, 2, good, 2, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "value_size is 2") != NULL);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs(tu_ctx, GPGPU_U32, k, v, 0, good, 2, 0),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(k[0] == 4 && k[3] == 1 && v[0] == 0);
    if (tu_is_host()) {
        ck_assert_int_eq(gpgpu_segmented_sort_buffer(tu_ctx, GPGPU_U32, NULL, 0, NULL, 0, 0, 0,
                                                     0, NULL, NULL),
                         GPGPU_ERROR_UNSUPPORTED);
        return;
    }
    cl_context cl = tu_cl_context();
    cl_int err;
    cl_mem kb = clCreateBuffer(cl, CL_MEM_READ_WRITE, 16, NULL, &err);
    cl_mem ob = clCreateBuffer(cl, CL_MEM_READ_WRITE, 24, NULL, &err);
    cl_event done = (cl_event)1;
    ck_assert_int_eq(gpgpu_segmented_sort_buffer(tu_ctx, GPGPU_U32, kb, 0, NULL, 0, 2, 0, 0,
                                                 NULL, &done),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(done == NULL);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "NULL with nseg = 2") != NULL);
    ck_assert_int_eq(gpgpu_segmented_sort_buffer(tu_ctx, GPGPU_U32, kb, 0, ob, 1, 2, 0, 0,
                                                 NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT); /* 3 offsets past 1 need 32 bytes */
    ck_assert_int_eq(gpgpu_segmented_sort_buffer(tu_ctx, GPGPU_U32, kb, 0, ob, 0, 2, 7, 0,
                                                 NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "flags is 7") != NULL);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs_buffer(tu_ctx, GPGPU_U32, kb, 0, kb, 2, 4, ob,
                                                       0, 2, 0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    ck_assert(strstr(gpgpu_last_error(tu_ctx), "same buffer") != NULL);
    ck_assert_int_eq(gpgpu_segmented_sort_pairs_buffer(tu_ctx, GPGPU_U32, kb, 0, kb, 2, 3, ob,
                                                       0, 2, 0, 0, NULL, NULL),
                     GPGPU_ERROR_INVALID_ARGUMENT);
    tu_assert_ok(gpgpu_segmented_sort_buffer(tu_ctx, GPGPU_U32, NULL, 0, NULL, 0, 0, 0, 0, NULL,
                                             NULL));
    clReleaseMemObject(kb);
    clReleaseMemObject(ob);
}
END_TEST

int main(void)
{
    return tu_run("segsort", 900, NULL);
}
