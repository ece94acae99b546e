/* oclgrind_driver.c - runs every kernel of every primitive for each type
   family at sizes that span several work-groups and end in a ragged tile,
   checking each result, for tests/oclgrind.sh to run under oclgrind's race,
   uninitialised-memory, bounds and barrier checks. Sizes stay small:
   oclgrind interprets every work item.

     oclgrind_driver --list        the "case variant" pairs, one per line
     oclgrind_driver CASE VARIANT  runs that pair at every size

   One process per pair, largest size first, and the driver's own buffers
   made once: oclgrind 21.10 reports reads of a buffer created after another
   was released as uninitialised even when they were written (a two-kernel
   program reproduces it), so nothing here may allocate after it releases.
   Its other blind spots (fills, writes at an offset) are worked around
   below.
   The library's scratch buffers only grow, so the largest call first keeps
   them from being replaced.

   Cases are one table: to cover a new primitive, write a case function and
   add a line to `cases`. Exit status: 0 if every result was right. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"

/* Element counts, largest first: several groups with a ragged last one (the
   driver runs with small GPGPU_WG / GPGPU_GROUPS), a ragged group, one. */
static const size_t sizes[] = {4099, 1000, 300, 7, 1};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* The (type, op) pairs each case runs: one per kernel variant family. */
static const struct {
    gpgpu_type t;
    gpgpu_op op;
} variants[] = {
    {GPGPU_U32, GPGPU_SUM},
    {GPGPU_F32, GPGPU_MIN},
    {GPGPU_I64, GPGPU_MAX},
    {GPGPU_F64, GPGPU_SUM},
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

static int failures;

/* ---- oclgrind 21.10's blind spots --------------------------------------
   Its uninitialised-value checker counts only bytes stored by kernels and by
   host writes at offset 0: what clEnqueueFillBuffer writes, and what a
   write or a copy puts at a nonzero offset, stays "uninitialised" (a
   one-kernel program reproduces each). Worse, a host write marks the rest
   of its buffer uninitialised again: a scan's seed, put after the data
   slot and then followed by the data's write at offset 0, read as
   uninitialised though it was written (seeded scans reported it). The
   library's fills, writes and copies reach the definitions below instead
   (the executable's symbols come first: -export-dynamic in Makefile.am,
   default visibility here). They stage host bytes at offset 0 of a staging buffer and move
   them with a kernel, whose stores the checker sees; a copy loads its
   source in that kernel, so an uninitialised source is still reported.
   The staging buffer is made once (see the top of the file) and is the only
   buffer the host writes. A second limitation is the library's to work
   round: an atomic_xchg's stored value counts as uninitialised when the
   memory it replaces was (lib/scan.c zeroes its look-back state). */

#define EXPORTED __attribute__((visibility("default"))) CL_API_ENTRY

enum { STAGING_BYTES = 1 << 20 };
static cl_mem staging;
static cl_kernel mover;
/* Whole 8-byte words where both offsets and the length allow (the fills
   of bins and scratch: every one of their bytes is an interpreted load and
   store under oclgrind, which made up much of the run), bytes otherwise.
   A word holds the same bytes as the eight byte moves, and the checker
   tracks a word's bytes one by one, so what it reports is the same. */
static const char mover_source[] =
    "__kernel void move_bytes(__global uchar *dst, ulong doff, __global const uchar *src,\n"
    "                         ulong soff, ulong n)\n"
    "{\n"
    "    if (((doff | soff | n) & 7) == 0) {\n"
    "        __global ulong *d = (__global ulong *)(dst + doff);\n"
    "        __global const ulong *s = (__global const ulong *)(src + soff);\n"
    "        for (ulong i = get_global_id(0); i < n / 8; i += get_global_size(0))\n"
    "            d[i] = s[i];\n"
    "    } else {\n"
    "        for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "            dst[doff + i] = src[soff + i];\n"
    "    }\n"
    "}\n";

typedef cl_int (*write_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                           cl_uint, const cl_event *, cl_event *);

/* The OpenCL implementation's own clEnqueueWriteBuffer. */
static cl_int real_write(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t offset,
                         size_t size, const void *host, cl_uint nwait, const cl_event *wait,
                         cl_event *event)
{
    static write_fn fn;
    if (!fn)
        *(void **)&fn = dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
    return fn(q, buf, blocking, offset, size, host, nwait, wait, event);
}

/* The mover and the staging buffer of q's OpenCL context, made anew when a
   case's own gpgpu context brings another one (they are used in turn). */
static cl_int mover_init(cl_command_queue q)
{
    static cl_context made_for;
    cl_context cl;
    cl_device_id dev;
    cl_int err;
    const char *src = mover_source;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    if (mover && cl == made_for)
        return CL_SUCCESS;
    if (mover) {
        clReleaseKernel(mover);
        clReleaseMemObject(staging);
        mover = NULL;
    }
    made_for = cl;
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    cl_program prog = clCreateProgramWithSource(cl, 1, &src, NULL, &err);
    if (!prog || clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS)
        abort();
    mover = clCreateKernel(prog, "move_bytes", &err);
    staging = clCreateBuffer(cl, CL_MEM_READ_WRITE, STAGING_BYTES, NULL, &err);
    clReleaseProgram(prog);
    return mover && staging ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
}

/* dst[doff ..+n) = src[soff ..+n), by the kernel. */
static cl_int move(cl_command_queue q, cl_mem dst, size_t doff, cl_mem src, size_t soff,
                   size_t n, cl_uint nwait, const cl_event *wait, cl_event *event)
{
    cl_ulong d = doff, so = soff, len = n;
    size_t global = 64;
    cl_int err = mover_init(q);
    if (err == CL_SUCCESS) {
        clSetKernelArg(mover, 0, sizeof dst, &dst);
        clSetKernelArg(mover, 1, sizeof d, &d);
        clSetKernelArg(mover, 2, sizeof src, &src);
        clSetKernelArg(mover, 3, sizeof so, &so);
        clSetKernelArg(mover, 4, sizeof len, &len);
        err = clEnqueueNDRangeKernel(q, mover, 1, NULL, &global, NULL, nwait, wait, event);
    }
    return err;
}

/* Host bytes (or a repeated pattern) to buf[offset ..+size), staged. */
static cl_int staged_write(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t offset,
                           size_t size, const void *host, size_t pattern_size, cl_uint nwait,
                           const cl_event *wait, cl_event *event)
{
    unsigned char *chunk = pattern_size ? malloc(STAGING_BYTES) : NULL;
    for (size_t i = 0; chunk && i < STAGING_BYTES; i++)
        chunk[i] = ((const unsigned char *)host)[i % pattern_size];
    cl_int err = size ? mover_init(q) : move(q, buf, offset, staging, 0, 0, nwait, wait, event);
    for (size_t done = 0; err == CL_SUCCESS && done < size; done += STAGING_BYTES) {
        size_t len = size - done < STAGING_BYTES ? size - done : STAGING_BYTES;
        const void *from = chunk ? (const void *)chunk : (const unsigned char *)host + done;
        err = real_write(q, staging, CL_TRUE, 0, len, from, done ? 0 : nwait, wait, NULL);
        if (err == CL_SUCCESS)
            err = move(q, buf, offset + done, staging, 0, len, 0, NULL,
                       done + len == size ? event : NULL);
    }
    free(chunk);
    return err == CL_SUCCESS && blocking ? clFinish(q) : err;
}

EXPORTED cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem buf, cl_bool blocking,
                                                 size_t offset, size_t size, const void *host,
                                                 cl_uint nwait, const cl_event *wait,
                                                 cl_event *event)
{
    if (size == 0 || buf == staging)
        return real_write(q, buf, blocking, offset, size, host, nwait, wait, event);
    return staged_write(q, buf, blocking, offset, size, host, 0, nwait, wait, event);
}

EXPORTED cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem buf,
                                                const void *pattern, size_t pattern_size,
                                                size_t offset, size_t size, cl_uint nwait,
                                                const cl_event *wait, cl_event *event)
{
    return staged_write(q, buf, CL_FALSE, offset, size, pattern, pattern_size, nwait, wait,
                        event);
}

EXPORTED cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst,
                                                size_t src_offset, size_t dst_offset,
                                                size_t size, cl_uint nwait,
                                                const cl_event *wait, cl_event *event)
{
    return move(q, dst, dst_offset, src, src_offset, size, nwait, wait, event);
}

static void check(int ok, const char *what, gpgpu_type t, size_t n, gpgpu_context *ctx)
{
    if (ok)
        return;
    fprintf(stderr, "oclgrind_driver: %s, type %d, n=%zu: wrong (%s)\n", what, (int)t, n,
            gpgpu_last_error(ctx));
    failures++;
}

/* Small integers in every type: sums are exact whatever the order. */
static void fill(gpgpu_type t, void *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        int v = (int)((i * 2654435761u + seed) % 2001) - 1000;
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = v; break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
        case GPGPU_F32: ((float *)buf)[i] = (float)v; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = v; break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
        case GPGPU_F64: ((double *)buf)[i] = v; break;
        }
    }
}

/* Element i of buf as a double (exact for the small values of fill). */
static double get(gpgpu_type t, const void *buf, size_t i)
{
    switch (t) {
    case GPGPU_I32: return ((const int32_t *)buf)[i];
    case GPGPU_U32: return (double)(int32_t)((const uint32_t *)buf)[i];
    case GPGPU_F32: return ((const float *)buf)[i];
    case GPGPU_I64: return (double)((const int64_t *)buf)[i];
    case GPGPU_U64: return (double)(int64_t)((const uint64_t *)buf)[i];
    case GPGPU_F64: return ((const double *)buf)[i];
    }
    return NAN;
}

static double combine(gpgpu_op op, double a, double b)
{
    return op == GPGPU_MIN ? fmin(a, b) : op == GPGPU_MAX ? fmax(a, b) : a + b;
}

static void case_reduce(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc(n * size), result[8];
    if (!x)
        abort();
    fill(t, x, n, 7);
    double want = get(t, x, 0);
    for (size_t i = 1; i < n; i++)
        want = combine(op, want, get(t, x, i));
    gpgpu_status s = gpgpu_reduce(ctx, t, op, x, n, result);
    check(s == GPGPU_SUCCESS && get(t, result, 0) == want, "gpgpu_reduce", t, n, ctx);
    free(x);
}

/* The caller's buffers for the _buffer cases, made once at the largest
   size (see the top of the file). */
static cl_mem buf_in, buf_out, buf_bins, buf_scan;

static void make_buffers(gpgpu_context *ctx)
{
    cl_context cl;
    cl_int err;
    clGetCommandQueueInfo(gpgpu_queue(ctx), CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    buf_in = clCreateBuffer(cl, CL_MEM_READ_WRITE, (sizes[0] + 1) * 8, NULL, &err);
    buf_out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, 8, NULL, &err);
    buf_bins = clCreateBuffer(cl, CL_MEM_READ_WRITE, 512 * sizeof(cl_ulong), NULL, &err);
    buf_scan = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizes[0] * 8, NULL, &err);
    if (!buf_in || !buf_out || !buf_bins || !buf_scan)
        abort();
}

/* The _buffer path at an offset, so that the unaligned head and tail of the
   coalesced layout run too. */
static void case_reduce_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc((n + 1) * size), result[8];
    if (!x)
        abort();
    fill(t, x, n + 1, 11);
    double want = get(t, x, 1);
    for (size_t i = 2; i <= n; i++)
        want = combine(op, want, get(t, x, i));
    cl_command_queue q = gpgpu_queue(ctx);
    clEnqueueWriteBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, x, 0, NULL, NULL);
    gpgpu_status s = gpgpu_reduce_buffer(ctx, t, op, buf_in, 1, n, buf_out, 0, 0, NULL, NULL);
    if (s == GPGPU_SUCCESS)
        clEnqueueReadBuffer(q, buf_out, CL_TRUE, 0, size, result, 0, NULL, NULL);
    check(s == GPGPU_SUCCESS && get(t, result, 0) == want, "gpgpu_reduce_buffer", t, n, ctx);
    free(x);
}

/* Histograms of fill()'s integers over [-1024, 1024): every bin edge is
   exact in every type, so bin = (x + 1024) * nbins / 2048. 512 bins fit
   __local memory; 8192 take the global-memory path. */
static void histogram_want(gpgpu_type t, const void *x, size_t n, size_t nbins, uint64_t *want)
{
    memset(want, 0, nbins * sizeof *want);
    for (size_t i = 0; i < n; i++) {
        double v = get(t, x, i);
        if (v < 0 && (t == GPGPU_U32 || t == GPGPU_U64))
            continue; /* a huge unsigned value: outside */
        want[(size_t)(v + 1024) * nbins / 2048]++;
    }
}

static void histogram_run(gpgpu_context *ctx, gpgpu_type t, size_t n, size_t nbins)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc(n * size);
    uint64_t *bins = malloc(nbins * sizeof *bins), *want = malloc(nbins * sizeof *want);
    if (!x || !bins || !want)
        abort();
    fill(t, x, n, 3);
    histogram_want(t, x, n, nbins, want);
    gpgpu_status s = gpgpu_histogram(ctx, t, x, n, nbins, -1024, 1024, bins);
    check(s == GPGPU_SUCCESS && !memcmp(bins, want, nbins * sizeof *bins), "gpgpu_histogram", t,
          n, ctx);
    free(x);
    free(bins);
    free(want);
}

static void case_histogram(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    histogram_run(ctx, t, n, 512);
}

static void case_histogram_global(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    histogram_run(ctx, t, n, 8192);
}

static void case_histogram_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    enum { NB = 512 };
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc((n + 1) * size);
    uint64_t bins[NB], want[NB];
    if (!x)
        abort();
    fill(t, x, n + 1, 5);
    histogram_want(t, x + size, n, NB, want);
    cl_command_queue q = gpgpu_queue(ctx);
    clEnqueueWriteBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, x, 0, NULL, NULL);
    gpgpu_status s = gpgpu_histogram_buffer(ctx, t, buf_in, 1, n, NB, -1024, 1024, buf_bins, 0,
                                            0, NULL, NULL);
    if (s == GPGPU_SUCCESS)
        clEnqueueReadBuffer(q, buf_bins, CL_TRUE, 0, sizeof bins, bins, 0, NULL, NULL);
    check(s == GPGPU_SUCCESS && !memcmp(bins, want, sizeof bins), "gpgpu_histogram_buffer", t,
          n, ctx);
    free(x);
}

/* n pixels in rows of 61 with a padded stride; gray levels make the
   expected bins plain: every channel and the luminance in g * 16 / 255. */
static void case_histogram_rgba8(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t w = n < 61 ? n : 61, h = (n + w - 1) / w, stride = 4 * w + 8;
    uint8_t *px = calloc(h, stride);
    uint64_t bins[64], want[64] = {0};
    if (!px)
        abort();
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < w; i++) {
            uint8_t g = (uint8_t)((y * w + i) * 37 % 256);
            memset(px + y * stride + 4 * i, g, 4);
            for (int c = 0; c < 4; c++)
                want[16 * c + (g == 255 ? 15 : g * 16 / 255)]++;
        }
    gpgpu_status s = gpgpu_histogram_rgba8(ctx, px, w, h, stride, 16, bins);
    check(s == GPGPU_SUCCESS && !memcmp(bins, want, sizeof bins), "gpgpu_histogram_rgba8", t,
          n, ctx);
    free(px);
}

/* Scans: inclusive out of place; exclusive in place seeded with 5. */
static void scan_run(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n, int in_place)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc(n * size), *copy = malloc(n * size), *out = malloc(n * size);
    unsigned char init[8];
    if (!x || !copy || !out)
        abort();
    fill(t, x, n, 9);
    fill(t, init, 1, 1005); /* the value 5 */
    memcpy(copy, x, n * size);
    gpgpu_status s = in_place ? gpgpu_scan_init(ctx, t, op, GPGPU_EXCLUSIVE, x, x, n, init)
                              : gpgpu_scan(ctx, t, op, GPGPU_INCLUSIVE, x, out, n);
    const unsigned char *got = in_place ? x : out;
    int ok = s == GPGPU_SUCCESS;
    double acc = in_place ? 5 : get(t, copy, 0);
    for (size_t i = 0; ok && i < n; i++) {
        double next = in_place || i > 0 ? combine(op, acc, get(t, copy, i)) : acc;
        ok = get(t, got, i) == (in_place ? acc : next);
        acc = next;
    }
    check(ok, in_place ? "gpgpu_scan_init in place" : "gpgpu_scan", t, n, ctx);
    free(x);
    free(copy);
    free(out);
}

static void case_scan(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    scan_run(ctx, t, op, n, 0);
}

static void case_scan_in_place(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    scan_run(ctx, t, op, n, 1);
}

static void case_scan_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc((n + 1) * size), *got = malloc(n * size);
    if (!x || !got)
        abort();
    fill(t, x, n + 1, 13);
    cl_command_queue q = gpgpu_queue(ctx);
    clEnqueueWriteBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, x, 0, NULL, NULL);
    gpgpu_status s = gpgpu_scan_buffer(ctx, t, op, GPGPU_INCLUSIVE, buf_in, 1, buf_scan, 0, n, 0,
                                       NULL, NULL);
    if (s == GPGPU_SUCCESS)
        clEnqueueReadBuffer(q, buf_scan, CL_TRUE, 0, n * size, got, 0, NULL, NULL);
    int ok = s == GPGPU_SUCCESS;
    double acc = get(t, x, 1);
    for (size_t i = 0; ok && i < n; i++) {
        acc = i ? combine(op, acc, get(t, x, i + 1)) : acc;
        ok = get(t, got, i) == acc;
    }
    check(ok, "gpgpu_scan_buffer", t, n, ctx);
    free(x);
    free(got);
}

/* Type-aware order of two elements (fill() makes no NaN). */
static gpgpu_type cmp_type;

static int cmp_elem(const void *a, const void *b)
{
    switch (cmp_type) {
#define CMP_(T) return (*(const T *)a > *(const T *)b) - (*(const T *)a < *(const T *)b)
    case GPGPU_I32: CMP_(int32_t);
    case GPGPU_U32: CMP_(uint32_t);
    case GPGPU_F32: CMP_(float);
    case GPGPU_I64: CMP_(int64_t);
    case GPGPU_U64: CMP_(uint64_t);
    case GPGPU_F64: CMP_(double);
#undef CMP_
    }
    return 0;
}

/* Sorts (descending for MAX variants), with u32 values holding each key's
   first index when pairs: keys sorted, values following them stably. */
static void sort_run(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n, int pairs)
{
    size_t size = gpgpu_type_size(t);
    unsigned desc = op == GPGPU_MAX ? GPGPU_DESCENDING : GPGPU_ASCENDING;
    unsigned char *k = malloc(n * size), *k0 = malloc(n * size), *want = malloc(n * size);
    uint32_t *v = malloc(n * sizeof *v);
    if (!k || !k0 || !want || !v)
        abort();
    fill(t, k, n, 17);
    for (size_t i = 0; i < n; i++) {
        v[i] = (uint32_t)i;
        if (i % 3 == 1) /* repeats, for stability */
            memcpy(k + i * size, k + (i - 1) * size, size);
    }
    memcpy(k0, k, n * size);
    memcpy(want, k, n * size);
    cmp_type = t;
    qsort(want, n, size, cmp_elem);
    gpgpu_status s = pairs ? gpgpu_sort_pairs(ctx, t, k, v, sizeof *v, n, desc)
                           : gpgpu_sort(ctx, t, k, n, desc);
    int ok = s == GPGPU_SUCCESS;
    for (size_t i = 0; ok && i < n; i++)
        ok = !memcmp(k + i * size, want + (desc ? n - 1 - i : i) * size, size);
    for (size_t i = 0; ok && pairs && i < n; i++)
        ok = v[i] < n && !memcmp(k0 + v[i] * size, k + i * size, size) &&
             (i == 0 || memcmp(k + i * size, k + (i - 1) * size, size) || v[i] > v[i - 1]);
    check(ok, pairs ? "gpgpu_sort_pairs" : "gpgpu_sort", t, n, ctx);
    free(k);
    free(k0);
    free(want);
    free(v);
}

static void case_sort(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    sort_run(ctx, t, op, n, 0);
}

static void case_sort_pairs(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    sort_run(ctx, t, op, n, 1);
}

static void case_sort_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc((n + 1) * size), *got = malloc((n + 1) * size);
    if (!x || !got)
        abort();
    fill(t, x, n + 1, 19);
    cl_command_queue q = gpgpu_queue(ctx);
    clEnqueueWriteBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, x, 0, NULL, NULL);
    gpgpu_status s = gpgpu_sort_buffer(ctx, t, buf_in, 1, n, GPGPU_ASCENDING, 0, NULL, NULL);
    if (s == GPGPU_SUCCESS)
        clEnqueueReadBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, got, 0, NULL, NULL);
    cmp_type = t;
    qsort(x + size, n, size, cmp_elem);
    check(s == GPGPU_SUCCESS && !memcmp(x, got, (n + 1) * size), "gpgpu_sort_buffer", t, n, ctx);
    free(x);
    free(got);
}

/* The segmented sort's _pairs_buffer form, keys at an offset: segments of
   2, 0 and the rest, so that at 4099 a long segment (one group through
   scratch) follows a short one (one group in __local memory); u32 values
   hold each key's first index. Offsets in buf_bins, values in buf_scan.
   Its kernels are the same in both layouts (groups of 256 whatever
   GPGPU_WG): they run in the GPU one only, on 16-bit keys (two live
   digits, two passes, half oclgrind's time; and ties for stability). */
static void case_segsort_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    const char *chunked = getenv("GPGPU_CHUNKED");
    if (chunked && !strcmp(chunked, "1"))
        return;
    size_t size = gpgpu_type_size(t), head = n < 2 ? n : 2;
    cl_ulong off[4] = {0, head, head, n};
    unsigned char *k = malloc((n + 1) * size), *got = malloc((n + 1) * size);
    uint32_t *v = malloc(n * sizeof *v), *vgot = malloc(n * sizeof *v);
    if (!k || !got || !v || !vgot)
        abort();
    fill(t, k, n + 1, 29);
    for (size_t i = 0; i < n; i++) {
        v[i] = (uint32_t)i;
        if (t == GPGPU_U32)
            ((uint32_t *)k)[i + 1] &= 0xffff;
    }
    cl_command_queue q = gpgpu_queue(ctx);
    clEnqueueWriteBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, k, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, buf_scan, CL_TRUE, 0, n * sizeof *v, v, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, buf_bins, CL_TRUE, 0, sizeof off, off, 0, NULL, NULL);
    unsigned desc = op == GPGPU_MAX ? GPGPU_DESCENDING : GPGPU_ASCENDING;
    gpgpu_status s = gpgpu_segmented_sort_pairs_buffer(ctx, t, buf_in, 1, buf_scan, 0, sizeof *v,
                                                       buf_bins, 0, 3, desc, 0, NULL, NULL);
    if (s == GPGPU_SUCCESS) {
        clEnqueueReadBuffer(q, buf_in, CL_TRUE, 0, (n + 1) * size, got, 0, NULL, NULL);
        clEnqueueReadBuffer(q, buf_scan, CL_TRUE, 0, n * sizeof *v, vgot, 0, NULL, NULL);
    }
    int ok = s == GPGPU_SUCCESS && !memcmp(got, k, size);
    for (size_t i = 0; ok && i < n; i++) {
        int first = i == 0 || i == head;
        ok = vgot[i] < n && (vgot[i] < head) == (i < head) &&
             !memcmp(got + (i + 1) * size, k + (vgot[i] + 1) * size, size);
        if (ok && !first) {
            int c = (cmp_type = t, cmp_elem(got + i * size, got + (i + 1) * size));
            ok = (desc ? c >= 0 : c <= 0) && (c != 0 || vgot[i] > vgot[i - 1]);
        }
    }
    check(ok, "gpgpu_segmented_sort_pairs_buffer", t, n, ctx);
    free(k);
    free(got);
    free(v);
    free(vgot);
}

static void case_select(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t), count = 0, m = 0;
    unsigned char *x = malloc(n * size), *out = malloc(n * size);
    if (!x || !out)
        abort();
    fill(t, x, n, 23);
    gpgpu_status s = gpgpu_select(ctx, t, "x > 0 && i % 3 != 1", x, n, out, &count);
    int ok = s == GPGPU_SUCCESS;
    for (size_t i = 0; ok && i < n; i++) {
        double v = get(t, x, i);
        int unsigned_t = t == GPGPU_U32 || t == GPGPU_U64;
        if ((v > 0 || (unsigned_t && v != 0)) && i % 3 != 1)
            ok = m < count && !memcmp(out + m++ * size, x + i * size, size);
    }
    check(ok && m == count, "gpgpu_select", t, n, ctx);
    free(x);
    free(out);
}

static void case_transform_reduce(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t);
    unsigned char *x = malloc(n * size), result[8];
    if (!x)
        abort();
    fill(t, x, n, 29);
    double want = 2 * get(t, x, 0);
    for (size_t i = 1; i < n; i++)
        want = combine(op, want, 2 * get(t, x, i));
    gpgpu_status s = gpgpu_transform_reduce(ctx, t, "x * 2", op, x, n, result);
    check(s == GPGPU_SUCCESS && get(t, result, 0) == want, "gpgpu_transform_reduce", t, n, ctx);
    free(x);
}

/* A user operator (xor on u32) through reduce and scan. */
static void case_user_op(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    uint32_t *x = malloc(n * sizeof *x), *out = malloc(n * sizeof *x), r = 0, acc = 0;
    gpgpu_op xor_op;
    if (!x || !out)
        abort();
    fill(GPGPU_U32, x, n, 31);
    gpgpu_status s = gpgpu_op_define(ctx, GPGPU_U32, "a ^ b", "0", &xor_op);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_reduce(ctx, GPGPU_U32, xor_op, x, n, &r);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_scan(ctx, GPGPU_U32, xor_op, GPGPU_EXCLUSIVE, x, out, n);
    int ok = s == GPGPU_SUCCESS;
    for (size_t i = 0; ok && i < n; i++) {
        ok = out[i] == acc;
        acc ^= x[i];
    }
    check(ok && r == acc, "user operator", GPGPU_U32, n, ctx);
    free(x);
    free(out);
}

/* Unique and run-length encoding on runs of three equal elements. */
static void case_unique(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t), count = 0, runs = 0;
    unsigned char *x = malloc(n * size), *out = malloc(n * size);
    uint64_t *len = malloc(n * sizeof *len);
    if (!x || !out || !len)
        abort();
    fill(t, x, n, 37);
    for (size_t i = 0; i < n; i++)
        memcpy(x + i * size, x + i / 3 * size, size);
    gpgpu_status s = gpgpu_unique(ctx, t, x, n, out, &count);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_run_length_encode(ctx, t, x, n, out, len, &runs);
    int ok = s == GPGPU_SUCCESS && count == runs;
    for (size_t i = 0, r = 0; ok && i < n; i += len[r++])
        ok = r < runs && len[r] > 0 && !memcmp(out + r * size, x + i * size, size);
    check(ok, "gpgpu_unique/run_length_encode", t, n, ctx);
    free(x);
    free(out);
    free(len);
}

static void case_partition(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t), count = 0, yes = 0, no = 0;
    unsigned char *x = malloc(n * size), *out = malloc(n * size);
    if (!x || !out)
        abort();
    fill(t, x, n, 41);
    gpgpu_status s = gpgpu_partition(ctx, t, "i % 3 != 1", x, n, out, &count);
    int ok = s == GPGPU_SUCCESS && count <= n;
    for (size_t i = 0; ok && i < n; i++)
        ok = !memcmp(out + (i % 3 != 1 ? yes++ : count + no++) * size, x + i * size, size);
    check(ok, "gpgpu_partition", t, n, ctx);
    free(x);
    free(out);
}

static void case_histogram_edges(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    static const double edges[] = {-500.5, -3, 0, 0.5, 250, 900};
    unsigned char *x = malloc(n * gpgpu_type_size(t));
    uint64_t bins[5], want[5] = {0, 0, 0, 0, 0};
    if (!x)
        abort();
    fill(t, x, n, 43);
    for (size_t i = 0; i < n; i++) {
        double v = t == GPGPU_U32 ? (double)((const uint32_t *)x)[i] : get(t, x, i);
        for (int b = 0; b < 5; b++)
            if (edges[b] <= v && (v < edges[b + 1] || (b == 4 && v == edges[5])))
                want[b]++;
    }
    gpgpu_status s = gpgpu_histogram_edges(ctx, t, x, n, edges, 5, bins);
    check(s == GPGPU_SUCCESS && !memcmp(bins, want, sizeof bins), "gpgpu_histogram_edges", t, n,
          ctx);
    free(x);
}

/* 2-D histograms of fill()'s integers over [-1024, 1024) on both axes,
   counted (16 x 8 cells in __local memory, 200 x 200 through atomics) and,
   when weighted, summing small integers (exact in any order). The weighted
   __local path is left out: oclgrind 21.10 reports the merge's stores of
   its empty cells as uninitialised, which no other check (PoCL, the host,
   an H100) bears out; not yet explained. */
static void histogram2d_run(gpgpu_context *ctx, gpgpu_type t, size_t n, size_t nx, size_t ny,
                            int weighted)
{
    size_t size = gpgpu_type_size(t), nc = nx * ny;
    unsigned char *x = malloc(n * size), *y = malloc(n * size);
    double *w = malloc(n * sizeof *w), *sums = malloc(nc * sizeof *sums);
    double *wsum = calloc(nc, sizeof *wsum);
    uint64_t *bins = malloc(nc * sizeof *bins), *want = calloc(nc, sizeof *want);
    if (!x || !y || !w || !sums || !wsum || !bins || !want)
        abort();
    fill(t, x, n, 51);
    fill(t, y, n, 52);
    for (size_t i = 0; i < n; i++) {
        double a = get(t, x, i), b = get(t, y, i);
        w[i] = (double)(i % 7) - 3;
        if ((a < 0 || b < 0) && (t == GPGPU_U32 || t == GPGPU_U64))
            continue; /* a huge unsigned value: outside */
        size_t c = (size_t)(a + 1024) * nx / 2048 * ny + (size_t)(b + 1024) * ny / 2048;
        want[c]++;
        wsum[c] += w[i];
    }
    gpgpu_status s = gpgpu_histogram2d(ctx, t, x, y, n, nx, -1024, 1024, ny, -1024, 1024, bins);
    check(s == GPGPU_SUCCESS && !memcmp(bins, want, nc * sizeof *bins), "gpgpu_histogram2d", t,
          n, ctx);
    if (weighted) {
        s = gpgpu_histogram2d_weighted(ctx, t, x, y, GPGPU_F64, w, n, nx, -1024, 1024, ny,
                                       -1024, 1024, sums);
        check(s == GPGPU_SUCCESS && !memcmp(sums, wsum, nc * sizeof *sums),
              "gpgpu_histogram2d_weighted", t, n, ctx);
    }
    free(x);
    free(y);
    free(w);
    free(sums);
    free(wsum);
    free(bins);
    free(want);
}

static void case_histogram2d(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    (void)op;
    histogram2d_run(ctx, t, n, 16, 8, 0);
    histogram2d_run(ctx, t, n, 200, 200, 1);
}

/* Counts by bands: a context whose plan sees 4 KiB of __local memory and
   takes bands from one sample per cell, so that at the largest size 64 x
   64 cells are split into six bands of 32-bit counters (the last one
   shorter), a part of the entries each, and 32 x 32 cells go in one
   band of 16-bit counters. */
static void case_histogram2d_banded(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    gpgpu_context *small;
    (void)ctx;
    (void)op;
    if (n < 64 * 64)
        return;
    setenv("GPGPU_HIST_BANDED", "1", 1);
    setenv("GPGPU_LOCAL_MEM", "4096", 1);
    gpgpu_status s = gpgpu_context_create(&small, NULL);
    unsetenv("GPGPU_HIST_BANDED");
    unsetenv("GPGPU_LOCAL_MEM");
    check(s == GPGPU_SUCCESS, "gpgpu_context_create", t, n, NULL);
    if (s != GPGPU_SUCCESS)
        return;
    histogram2d_run(small, t, n, 64, 64, 0);
    histogram2d_run(small, t, n, 32, 32, 0);
    gpgpu_context_destroy(small);
}

/* Small integers as floats: their exact sum is the integer sum. */
static void case_sum_exact(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    unsigned char *x = malloc(n * gpgpu_type_size(t)), result[8];
    double want = 0;
    if (!x)
        abort();
    fill(t, x, n, 47);
    for (size_t i = 0; i < n; i++)
        want += get(t, x, i);
    gpgpu_status s = gpgpu_reduce(ctx, t, GPGPU_SUM_EXACT, x, n, result);
    check(s == GPGPU_SUCCESS && get(t, result, 0) == want, "GPGPU_SUM_EXACT", t, n, ctx);
    free(x);
}

/* Segments of 0 .. 40 elements (several empty) over x; small integers, so
   that every order of the sums gives the same value. */
static size_t segments(size_t n, size_t *off)
{
    size_t k = 0;
    off[0] = 0;
    while (off[k] < n) {
        const size_t len = (k * 7919) % 41;
        off[k + 1] = off[k] + (len < n - off[k] ? len : n - off[k]);
        k++;
    }
    return k;
}

/* op over x[b .. e) by a loop, as a double (the values are small). */
static double fold(gpgpu_type t, gpgpu_op op, const void *x, size_t b, size_t e)
{
    double a = get(t, x, b);
    for (size_t i = b + 1; i < e; i++) {
        const double v = get(t, x, i);
        a = op == GPGPU_MIN ? (v < a ? v : a) : op == GPGPU_MAX ? (v > a ? v : a) : a + v;
    }
    return a;
}

/* The segmented reduce, then the segmented scan in place: a segment's
   last prefix is its reduce. op GPGPU_SUM_EXACT (exact) on floats runs
   the exact sum per segment. */
static void segmented_run(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n, int exact)
{
    const size_t size = gpgpu_type_size(t);
    size_t *off = malloc((n + 2) * sizeof *off), nseg = segments(n, off);
    unsigned char *x = malloc(n * size), *out = malloc((nseg + 1) * size);
    if (!off || !x || !out)
        abort();
    fill(t, x, n, 53);
    gpgpu_status s = gpgpu_segmented_reduce(ctx, t, exact ? GPGPU_SUM_EXACT : op, x, off, nseg,
                                            out);
    int ok = s == GPGPU_SUCCESS;
    for (size_t g = 0; ok && g < nseg; g++)
        ok = off[g] == off[g + 1] ||
             get(t, out, g) == fold(t, exact ? GPGPU_SUM : op, x, off[g], off[g + 1]);
    check(ok, exact ? "gpgpu_segmented_reduce SUM_EXACT" : "gpgpu_segmented_reduce", t, n, ctx);
    if (!exact) {
        s = gpgpu_segmented_scan(ctx, t, op, GPGPU_INCLUSIVE, x, x, off, nseg);
        ok = s == GPGPU_SUCCESS;
        for (size_t g = 0; ok && g < nseg; g++)
            ok = off[g] == off[g + 1] || get(t, x, off[g + 1] - 1) == get(t, out, g);
        check(ok, "gpgpu_segmented_scan", t, n, ctx);
    }
    free(off);
    free(x);
    free(out);
}

static void case_segmented(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    segmented_run(ctx, t, op, n, 0);
}

/* Runs of keys i / 5: reduce_by_key and scan_by_key (a run's last prefix
   is its reduce), and argmin over the same data. oclgrind 21.10's
   uninitialised-value plugin crashes (SIGSEGV) on the chunked layout's
   reduce_by_key, whose blocks compare keys in 8-lane vectors (the crash on
   vector code noted in oclgrind.sh; its race and API checks pass it), so
   that layout leaves it out unless OCLGRIND_CHUNKED_RBK is set (the exact
   sum per run takes other kernels and always runs). */
static void by_key_run(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n, int exact)
{
    const size_t size = gpgpu_type_size(t), runs = (n + 4) / 5;
    unsigned char *x = malloc(n * size), *vout = malloc(n * size), *scan = malloc(n * size);
    uint32_t *keys = malloc(n * sizeof *keys), *kout = malloc(n * sizeof *kout);
    const char *chunked = getenv("GPGPU_CHUNKED");
    const int rbk = exact || !chunked || strcmp(chunked, "1") || getenv("OCLGRIND_CHUNKED_RBK");
    const gpgpu_op fop = exact ? GPGPU_SUM : op;
    size_t got = 0;
    if (!x || !vout || !scan || !keys || !kout)
        abort();
    fill(t, x, n, 59);
    for (size_t i = 0; i < n; i++)
        keys[i] = (uint32_t)(i / 5);
    if (rbk) {
        gpgpu_status s = gpgpu_reduce_by_key(ctx, GPGPU_U32, keys, t,
                                             exact ? GPGPU_SUM_EXACT : op, x, n, kout, vout, &got);
        int ok = s == GPGPU_SUCCESS && got == runs;
        for (size_t r = 0; ok && r < runs; r++)
            ok = kout[r] == r &&
                 get(t, vout, r) == fold(t, fop, x, 5 * r, 5 * r + 5 < n ? 5 * r + 5 : n);
        check(ok, exact ? "gpgpu_reduce_by_key SUM_EXACT" : "gpgpu_reduce_by_key", t, n, ctx);
    }
    if (!exact) {
        gpgpu_status s = gpgpu_scan_by_key(ctx, GPGPU_U32, keys, t, op, GPGPU_INCLUSIVE, x, scan,
                                           n);
        int ok = s == GPGPU_SUCCESS;
        for (size_t r = 0; ok && r < runs; r++) {
            const size_t e = 5 * r + 5 < n ? 5 * r + 5 : n;
            ok = get(t, scan, e - 1) == fold(t, op, x, 5 * r, e);
        }
        check(ok, "gpgpu_scan_by_key", t, n, ctx);
        unsigned char v[8];
        size_t at = 0, want = 0; /* the first smallest, in the type's own order */
        for (size_t i = 1; i < n; i++)
            if (t == GPGPU_U32 ? ((const uint32_t *)x)[i] < ((const uint32_t *)x)[want]
                               : get(t, x, i) < get(t, x, want))
                want = i;
        s = gpgpu_reduce_index(ctx, t, GPGPU_MIN, x, n, v, &at);
        check(s == GPGPU_SUCCESS && at == want && !memcmp(v, x + at * size, size),
              "gpgpu_reduce_index", t, n, ctx);
    }
    free(x);
    free(vout);
    free(scan);
    free(keys);
    free(kout);
}

static void case_by_key(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    by_key_run(ctx, t, op, n, 0);
}

/* GPGPU_SUM_EXACT per run, then per segment (F32 and F64 variants). Per
   run first: its run offsets take more of the library's scratch slot than
   the segments' offsets, and a slot grown after a smaller one was released
   reads as uninitialised to oclgrind 21.10 past the old size (the 257th run
   on, when the segments went first), one of the blind spots above. */
static void case_exact_segments(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    (void)op;
    by_key_run(ctx, t, GPGPU_SUM, n, 1);
    segmented_run(ctx, t, GPGPU_SUM, n, 1);
}

/* search_sorted (both sides) in sorted keys, gather of the keys by the
   positions (clamped, with its index check), and argsort (small n: the
   sort is slow under oclgrind), against plain loops. */
static void case_search(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    const size_t size = gpgpu_type_size(t);
    unsigned char *k = malloc(n * size), *x = malloc(n * size), *g = malloc(n * size);
    uint64_t *pos = malloc(n * sizeof *pos), *idx = malloc(n * sizeof *idx);
    if (!k || !x || !g || !pos || !idx)
        abort();
    (void)op;
    fill(t, k, n, 23);
    fill(t, x, n, 29);
    cmp_type = t;
    if (n <= 300) {
        gpgpu_status s = gpgpu_argsort(ctx, t, k, n, GPGPU_ASCENDING, idx);
        int ok = s == GPGPU_SUCCESS;
        for (size_t i = 1; ok && i < n; i++) {
            int c = cmp_elem(k + idx[i - 1] * size, k + idx[i] * size);
            ok = idx[i] < n && (c < 0 || (c == 0 && idx[i - 1] < idx[i]));
        }
        check(ok, "gpgpu_argsort", t, n, ctx);
    }
    qsort(k, n, size, cmp_elem);
    for (unsigned side = 0; side < 2; side++) {
        gpgpu_status s = gpgpu_search_sorted(ctx, t, k, n, x, n, side, pos);
        int ok = s == GPGPU_SUCCESS;
        for (size_t j = 0; ok && j < n; j++) {
            size_t before = 0;
            for (size_t i = 0; i < n; i++)
                before += side ? cmp_elem(k + i * size, x + j * size) <= 0
                               : cmp_elem(k + i * size, x + j * size) < 0;
            ok = pos[j] == before;
        }
        check(ok, "gpgpu_search_sorted", t, n, ctx);
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = pos[i] < n ? pos[i] : n - 1;
    gpgpu_status s = gpgpu_gather(ctx, size, k, n, idx, n, g);
    int ok = s == GPGPU_SUCCESS;
    for (size_t i = 0; ok && i < n; i++)
        ok = !memcmp(g + i * size, k + idx[i] * size, size);
    check(ok, "gpgpu_gather", t, n, ctx);
    free(k);
    free(x);
    free(g);
    free(pos);
    free(idx);
}

/* Element i as a double (get() reads unsigned as signed, for the sums). */
static double value(gpgpu_type t, const void *buf, size_t i)
{
    if (t == GPGPU_U32)
        return ((const uint32_t *)buf)[i];
    if (t == GPGPU_U64)
        return (double)((const uint64_t *)buf)[i];
    return get(t, buf, i);
}

/* top_k (k = 5, the largest for MAX variants) and the quantiles 0, 0.5
   and 0.9: the radix select's passes and, on the chunk-per-item layout,
   the per-chunk heaps and their merge; against qsort. Ties come from
   repeats, as in sort_run. */
static void case_select_k(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n)
{
    size_t size = gpgpu_type_size(t), k = n < 5 ? n : 5;
    unsigned desc = op == GPGPU_MAX ? GPGPU_DESCENDING : GPGPU_ASCENDING;
    unsigned char *x = malloc(n * size), *want = malloc(n * size), vals[5 * 8];
    uint64_t idx[5];
    double q[3] = {0, 0.5, 0.9}, got[3];
    if (!x || !want)
        abort();
    fill(t, x, n, 23);
    for (size_t i = 1; i < n; i += 3)
        memcpy(x + i * size, x + (i - 1) * size, size);
    memcpy(want, x, n * size);
    cmp_type = t;
    qsort(want, n, size, cmp_elem);
    int ok = gpgpu_top_k(ctx, t, x, n, k, desc, vals, idx) == GPGPU_SUCCESS;
    for (size_t i = 0; ok && i < k; i++) {
        const unsigned char *w = want + (desc ? n - 1 - i : i) * size;
        ok = idx[i] < n && !memcmp(vals + i * size, w, size) &&
             !memcmp(x + idx[i] * size, w, size) &&
             (i == 0 || memcmp(vals + i * size, vals + (i - 1) * size, size) ||
              idx[i] > idx[i - 1]);
    }
    check(ok, "gpgpu_top_k", t, n, ctx);
    ok = gpgpu_quantiles(ctx, t, x, n, q, 3, got) == GPGPU_SUCCESS;
    for (int j = 0; ok && j < 3; j++) {
        double h = (double)(n - 1) * q[j], fl = (double)(size_t)h, g = h - fl;
        double a = value(t, want, (size_t)fl), b = g != 0 ? value(t, want, (size_t)fl + 1) : a;
        volatile double d = b - a, e = g * d;
        ok = got[j] == (g == 0 ? a : a + e);
    }
    check(ok, "gpgpu_quantiles", t, n, ctx);
    free(x);
    free(want);
}

/* Variant masks: every family, or the few whose kernels differ where
   oclgrind is slow (the sorts' GPU layout takes seconds a variant): 32-bit
   keys, and the 64-bit float ones whose bits are flipped for order. */
enum { ALL = 0xf, FIRST = 0x1, SORT_KEYS = 0x9 };

static const struct {
    const char *name;
    void (*run)(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n);
    unsigned variants; /* bit v set: run variant v (an untyped case: 1) */
    size_t max_n;      /* 0, or the largest size to run (oclgrind is slow on it) */
} cases[] = {
    {"reduce", case_reduce, ALL, 0},
    {"reduce_buffer", case_reduce_buffer, ALL, 0},
    {"histogram", case_histogram, ALL, 0},
    {"histogram_global", case_histogram_global, ALL, 0},
    {"histogram_buffer", case_histogram_buffer, ALL, 0},
    {"histogram_rgba8", case_histogram_rgba8, FIRST, 0},
    {"scan", case_scan, ALL, 0},
    {"scan_in_place", case_scan_in_place, ALL, 0},
    {"scan_buffer", case_scan_buffer, ALL, 0},
    {"sort", case_sort, SORT_KEYS, 300},
    {"sort_pairs", case_sort_pairs, FIRST, 300},
    {"sort_buffer", case_sort_buffer, FIRST, 300},
    {"segsort_buffer", case_segsort_buffer, FIRST, 0},
    {"select", case_select, ALL, 0},
    {"transform_reduce", case_transform_reduce, ALL, 0},
    {"user_op", case_user_op, FIRST, 0},
    {"unique", case_unique, 0x9, 0},
    {"partition", case_partition, FIRST, 0},
    {"histogram_edges", case_histogram_edges, 0x9, 0},
    {"histogram2d", case_histogram2d, 0x9, 0},
    {"histogram2d_banded", case_histogram2d_banded, 0x9, 0},
    {"sum_exact", case_sum_exact, 0xa, 0},
    {"segmented", case_segmented, 0x9, 0},
    {"by_key", case_by_key, 0x9, 0},
    {"exact_segments", case_exact_segments, 0xa, 0},
    {"search", case_search, 0x9, 0},
    {"select_k", case_select_k, 0x7, 1000},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (int c = 0; c < NCASES; c++)
            for (int v = 0; v < NVARIANTS; v++)
                if (cases[c].variants >> v & 1)
                    printf("%s %d\n", cases[c].name, v);
        return 0;
    }
    int c = 0, v = argc == 3 ? atoi(argv[2]) : -1;
    while (argc == 3 && c < NCASES && strcmp(cases[c].name, argv[1]))
        c++;
    if (argc != 3 || c == NCASES || v < 0 || v >= NVARIANTS) {
        fprintf(stderr, "usage: oclgrind_driver --list | CASE VARIANT\n");
        return 2;
    }
    gpgpu_context *ctx;
    if (gpgpu_context_create(&ctx, NULL) != GPGPU_SUCCESS || !gpgpu_queue(ctx)) {
        fprintf(stderr, "oclgrind_driver: no OpenCL device: %s\n", gpgpu_last_error(NULL));
        return 1;
    }
    make_buffers(ctx);
    for (int i = 0; i < NSIZES; i++)
        if (!cases[c].max_n || sizes[i] <= cases[c].max_n)
            cases[c].run(ctx, variants[v].t, variants[v].op, sizes[i]);
    clReleaseMemObject(buf_in);
    clReleaseMemObject(buf_out);
    clReleaseMemObject(buf_bins);
    clReleaseMemObject(buf_scan);
    gpgpu_context_destroy(ctx);
    return failures ? 1 : 0;
}
