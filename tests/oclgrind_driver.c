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
static const size_t sizes[] = {4099, 1000, 7, 1};
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
   one-kernel program reproduces each). The library's fills, writes at an
   offset and copies reach the definitions below instead (the executable's
   symbols come first: -export-dynamic in Makefile.am, default visibility
   here). They stage host bytes at offset 0 of a staging buffer and move
   them with a kernel, whose stores the checker sees; a copy loads its
   source in that kernel, so an uninitialised source is still reported.
   The staging buffer is made once (see the top of the file). */

#define EXPORTED __attribute__((visibility("default"))) CL_API_ENTRY

enum { STAGING_BYTES = 1 << 20 };
static cl_mem staging;
static cl_kernel mover;
static const char mover_source[] =
    "__kernel void move_bytes(__global uchar *dst, ulong doff, __global const uchar *src,\n"
    "                         ulong soff, ulong n)\n"
    "{\n"
    "    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "        dst[doff + i] = src[soff + i];\n"
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

static cl_int mover_init(cl_command_queue q)
{
    if (mover)
        return CL_SUCCESS;
    cl_context cl;
    cl_device_id dev;
    cl_int err;
    const char *src = mover_source;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
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
    if (offset == 0 || size == 0)
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
static cl_mem buf_in, buf_out, buf_bins;

static void make_buffers(gpgpu_context *ctx)
{
    cl_context cl;
    cl_int err;
    clGetCommandQueueInfo(gpgpu_queue(ctx), CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    buf_in = clCreateBuffer(cl, CL_MEM_READ_ONLY, (sizes[0] + 1) * 8, NULL, &err);
    buf_out = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, 8, NULL, &err);
    buf_bins = clCreateBuffer(cl, CL_MEM_READ_WRITE, 512 * sizeof(cl_ulong), NULL, &err);
    if (!buf_in || !buf_out || !buf_bins)
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

static const struct {
    const char *name;
    void (*run)(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, size_t n);
    int typed; /* run once per variant; else once */
} cases[] = {
    {"reduce", case_reduce, 1},
    {"reduce_buffer", case_reduce_buffer, 1},
    {"histogram", case_histogram, 1},
    {"histogram_global", case_histogram_global, 1},
    {"histogram_buffer", case_histogram_buffer, 1},
    {"histogram_rgba8", case_histogram_rgba8, 0},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (int c = 0; c < NCASES; c++)
            for (int v = 0; v < (cases[c].typed ? NVARIANTS : 1); v++)
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
        cases[c].run(ctx, variants[v].t, variants[v].op, sizes[i]);
    clReleaseMemObject(buf_in);
    clReleaseMemObject(buf_out);
    clReleaseMemObject(buf_bins);
    gpgpu_context_destroy(ctx);
    return failures ? 1 : 0;
}
