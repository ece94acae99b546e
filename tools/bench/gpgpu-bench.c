/* gpgpu-bench - throughput of each primitive on one device, against the
   device's own buffer-copy bandwidth measured in the same run.

   gpgpu-bench                      the standard suite, as a table
   gpgpu-bench --op OP --type T --n N [--bins B] [--input P] [--device D]
               [--repeat R] [--json]
   Times come from OpenCL event timestamps (first command's start to last
   command's end of a call, kernels, copies and fills alike, median of R
   calls after a warm-up); on the host fallback from the wall clock.
   Wall-clock samples of host calls and of the serial loops below 0.2 ms
   are each the mean of a batch of runs (batch_of). GPGPU_BENCH_TRACE=1
   prints each step (buffers, copies, calls, reads) with the time since the
   start on stderr, to find where a run that does not finish is.

   Every row also gives "loop": the serial C loop the call replaces (plain
   C on one thread, tools/bench/bench_<op>.c, same data, median of the same
   run) over the library's time. --sizes 10,12,16 runs the suite at those
   powers of two, of --op and --api alone when they are named. */
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static const bench_op *const ops[] = {&bench_op_reduce, &bench_op_scan, &bench_op_sort,
                                      &bench_op_sort_pairs, &bench_op_histogram,
                                      &bench_op_transform_reduce, &bench_op_select,
                                      &bench_op_unique, &bench_op_run_length_encode,
                                      &bench_op_partition, &bench_op_histogram_edges,
                                      &bench_op_sum_exact,
                                      &bench_op_segmented_reduce, &bench_op_segmented_scan,
                                      &bench_op_reduce_by_key, &bench_op_scan_by_key,
                                      &bench_op_argmin, &bench_op_segmented_sort,
                                      &bench_op_search_sorted, &bench_op_argsort,
                                      &bench_op_gather, &bench_op_histogram2d,
                                      &bench_op_histogram_weighted,
                                      &bench_op_top_k, &bench_op_quantiles};
enum { NOPS = sizeof ops / sizeof ops[0] };

static const char *type_names[] = {"i32", "u32", "f32", "i64", "u64", "f64"};

/* ---- helpers for the bench_<op>.c files ---------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static double trace_t0 = -1;

void bench_trace(const char *fmt, ...)
{
    if (trace_t0 < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[trace %10.1f ms] ", now_ms() - trace_t0);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    va_end(ap);
}

/* qsort's comparison of two T by <, for times and for sorted inputs (no
   NaNs there, so < is the sort's order) */
#define DEFINE_CMP(name, T)                                                \
    static int name(const void *a, const void *b)                          \
    {                                                                      \
        T x = *(const T *)a, y = *(const T *)b;                            \
        return x < y ? -1 : x > y;                                         \
    }
DEFINE_CMP(cmp_double, double)
DEFINE_CMP(cmp_f32, float)
DEFINE_CMP(cmp_i32, int32_t)
DEFINE_CMP(cmp_i64, int64_t)
DEFINE_CMP(cmp_u64, uint64_t)

/* Runs of a wall-clock sample for a call or loop that took ms once: so
   many that the sample takes at least SAMPLE_MS (the clock's own cost and
   its jitter, a good part of a microsecond call, then count for little),
   at most 1000; one for a call of SAMPLE_MS or more. */
static int batch_of(double ms)
{
    enum { MAX_BATCH = 1000 };
    const double SAMPLE_MS = 0.2;
    const double k = ms > 0 ? SAMPLE_MS / ms + 1 : MAX_BATCH; /* 0: below the clock */
    return k < MAX_BATCH ? (int)k : MAX_BATCH;
}

double bench_time_prepared(bench *b, void (*prepare)(void *arg),
                           gpgpu_status (*call)(void *arg), void *arg)
{
    double *t = malloc(sizeof *t * (size_t)b->repeat);
    int batch = 1;
    if (!t)
        return -1;
    for (int r = -1; r < b->repeat; r++) {
        if (prepare)
            prepare(arg);
        bench_trace("call %d of %d", r + 2, b->repeat + 1);
        double start = now_ms();
        gpgpu_status s = call(arg);
        /* host calls without a prepare step: a sample is the mean of a
           batch of calls (batch_of) */
        for (int i = 1; i < batch && s == GPGPU_SUCCESS; i++)
            s = call(arg);
        bench_trace("call %d enqueued: %s", r + 2, gpgpu_status_string(s));
        if (s == GPGPU_SUCCESS && b->queue)
            s = clFinish(b->queue) == CL_SUCCESS ? GPGPU_SUCCESS : GPGPU_ERROR_OPENCL;
        double wall = now_ms() - start;
        bench_trace("call %d done: %.3f ms", r + 2, wall);
        if (s != GPGPU_SUCCESS) {
            fprintf(stderr, "gpgpu-bench: %s: %s\n", gpgpu_status_string(s),
                    gpgpu_last_error(b->ctx));
            free(t);
            return -1;
        }
        const gpgpu_kernel_time *k;
        size_t nk = b->api == BENCH_API_HOST ? 0 : gpgpu_profile(b->ctx, &k);
        if (r >= 0)
            t[r] = nk ? (double)(k[nk - 1].end_ns - k[0].start_ns) * 1e-6 : wall / batch;
        else if (b->api == BENCH_API_HOST && !prepare)
            batch = batch_of(wall);
        for (size_t i = 0; trace_t0 >= 0 && r == b->repeat - 1 && i < nk; i++)
            bench_trace("  kernel %-24s global %9zu local %4zu  start %8.3f ms  run %8.3f ms",
                        k[i].kernel, k[i].global_size, k[i].local_size,
                        (double)(k[i].start_ns - k[0].start_ns) * 1e-6,
                        (double)(k[i].end_ns - k[i].start_ns) * 1e-6);
    }
    qsort(t, (size_t)b->repeat, sizeof *t, cmp_double);
    double m = t[b->repeat / 2];
    free(t);
    return m;
}

double bench_time(bench *b, gpgpu_status (*call)(void *arg), void *arg)
{
    return bench_time_prepared(b, NULL, call, arg);
}

double bench_wall_ms(void (*fn)(void *arg), void *arg, int repeat)
{
    double t[64], spent;
    int runs = repeat < 1 ? 1 : repeat > 64 ? 64 : repeat, r, batch;
    double start = now_ms();
    fn(arg); /* warm-up: first touches of the loop's memory */
    spent = now_ms() - start;
    if (spent > BASELINE_MS)
        return spent; /* first touches are noise next to a run this long */
    batch = batch_of(spent); /* as the library's host calls are timed */
    for (r = 0; r < runs && (r == 0 || spent < BASELINE_MS); r++) {
        start = now_ms();
        for (int i = 0; i < batch; i++)
            fn(arg);
        t[r] = (now_ms() - start) / batch;
        spent += t[r] * batch;
    }
    qsort(t, (size_t)r, sizeof t[0], cmp_double);
    return t[r / 2];
}

void *bench_host_alloc(bench *b, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    void *p = b->pinned ? gpgpu_host_alloc(b->ctx, bytes) : malloc(bytes);
    if (!p)
        fprintf(stderr, "gpgpu-bench: no host memory for %zu bytes%s%s\n", bytes,
                b->pinned ? ": " : "", b->pinned ? gpgpu_last_error(b->ctx) : "");
    return p;
}

void bench_host_free(bench *b, void *p)
{
    if (!p)
        return;
    if (b->pinned)
        gpgpu_host_free(b->ctx, p);
    else
        free(p);
}

void bench_release_all(const cl_mem *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (m[i])
            clReleaseMemObject(m[i]);
}

void bench_destroy_all(gpgpu_array *const *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gpgpu_array_destroy(a[i]);
}

void bench_host_free_all(bench *b, void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bench_host_free(b, p[i]);
}

uint64_t bench_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int bench_check_sum(gpgpu_type t, const void *in, size_t n, int square, double rel,
                    const void *got)
{
    uint64_t isum = 0;
    double fsum = 0, fmag = 0;
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case GPGPU_I32: case GPGPU_U32: {
            uint32_t x = ((const uint32_t *)in)[i];
            isum += square ? (uint32_t)(x * x) : x;
            break;
        }
        case GPGPU_I64: case GPGPU_U64: {
            uint64_t x = ((const uint64_t *)in)[i];
            isum += square ? x * x : x;
            break;
        }
        case GPGPU_F32: case GPGPU_F64: {
            double x = t == GPGPU_F32 ? ((const float *)in)[i] : ((const double *)in)[i];
            fsum += square ? x * x : x;
            fmag += square ? x * x : fabs(x);
            break;
        }
        }
    }
    switch (t) {
    case GPGPU_I32: case GPGPU_U32: return *(const uint32_t *)got == (uint32_t)isum;
    case GPGPU_I64: case GPGPU_U64: return *(const uint64_t *)got == isum;
    case GPGPU_F32: return fabs(*(const float *)got - fsum) <= rel * fmag + 1e-30;
    case GPGPU_F64: return fabs(*(const double *)got - fsum) <= rel * fmag + 1e-300;
    }
    return 0;
}

void bench_fill(gpgpu_type t, void *buf, size_t n, uint64_t seed, const char *pattern)
{
    int narrow = pattern && !strcmp(pattern, "narrow16");
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix(&seed);
        if (narrow)
            r &= 0xffff;
        double u = (double)(r >> 11) * 0x1.0p-53;
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = narrow ? (int32_t)r : (int32_t)(uint32_t)r; break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = (uint32_t)r; break;
        case GPGPU_F32: ((float *)buf)[i] = narrow ? (float)r : (float)u; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)r; break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = r; break;
        case GPGPU_F64: ((double *)buf)[i] = narrow ? (double)r : u; break;
        }
    }
    if (pattern && !strcmp(pattern, "sorted")) {
        if (t == GPGPU_F32)
            qsort(buf, n, 4, cmp_f32);
        else if (t == GPGPU_U32) /* evenly spaced over the whole range */
            for (size_t i = 0; i < n; i++)
                ((uint32_t *)buf)[i] = (uint32_t)((uint64_t)i * 0xffffffffu / (n ? n : 1));
        else if (t == GPGPU_U64)
            qsort(buf, n, 8, cmp_u64);
        else if (t == GPGPU_F64)
            qsort(buf, n, 8, cmp_double);
        else if (t == GPGPU_I32)
            qsort(buf, n, 4, cmp_i32);
        else if (t == GPGPU_I64)
            qsort(buf, n, 8, cmp_i64);
    }
}

cl_mem bench_buffer(bench *b, size_t bytes, const void *host)
{
    cl_int err;
    bench_trace("buffer of %zu bytes%s", bytes, host ? ", copied from the host" : "");
    cl_mem m = clCreateBuffer(b->cl, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 16, (void *)host, &err);
    bench_trace("buffer: %s", m ? "made" : "failed");
    if (!m)
        fprintf(stderr, "gpgpu-bench: clCreateBuffer(%zu bytes): error %d\n", bytes, (int)err);
    return m;
}

int bench_read(bench *b, cl_mem buf, size_t bytes, void *host)
{
    bench_trace("read of %zu bytes", bytes);
    int rc = clEnqueueReadBuffer(b->queue, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL) ==
                     CL_SUCCESS ? 0 : -1;
    bench_trace("read: %s", rc ? "failed" : "done");
    return rc;
}

gpgpu_array *bench_array(bench *b, gpgpu_type t, size_t n, const void *host)
{
    gpgpu_array *a = NULL;
    gpgpu_status s = gpgpu_array_create(b->ctx, t, n, &a);
    if (s == GPGPU_SUCCESS && host)
        s = gpgpu_array_write(b->ctx, a, 0, host, n);
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu-bench: array of %zu elements: %s\n", n, gpgpu_last_error(b->ctx));
        gpgpu_array_destroy(a);
        return NULL;
    }
    return a;
}

/* ---- the reference bandwidths -------------------------------------------- */

/* clEnqueueCopyBuffer of bytes, read + write counted, median of repeats. */
static double copy_gbps(bench *b, size_t bytes)
{
    if (!b->queue)
        return 0;
    cl_mem src = bench_buffer(b, bytes, NULL), dst = bench_buffer(b, bytes, NULL);
    double best = 0;
    if (src && dst) {
        cl_uchar zero = 1;
        bench_trace("copy bandwidth: fill");
        /* in pieces below 2^31 bytes: larger fills hang NVIDIA's driver */
        for (size_t off = 0; off < bytes; off += (size_t)1 << 30)
            clEnqueueFillBuffer(b->queue, src, &zero, 1, off,
                                bytes - off < ((size_t)1 << 30) ? bytes - off : (size_t)1 << 30,
                                0, NULL, NULL);
        bench_trace("copy bandwidth: copies");
        double t[9];
        int r;
        for (r = 0; r < 9; r++) {
            cl_event ev;
            cl_ulong s = 0, e = 0;
            if (clEnqueueCopyBuffer(b->queue, src, dst, 0, 0, bytes, 0, NULL, &ev) != CL_SUCCESS)
                break;
            clWaitForEvents(1, &ev);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
            clReleaseEvent(ev);
            t[r] = (double)(e - s) * 1e-6;
        }
        if (r == 9) {
            qsort(t, 9, sizeof t[0], cmp_double);
            best = 2.0 * (double)bytes / (t[4] * 1e6);
        }
        bench_trace("copy bandwidth: %.1f GB/s", best);
    }
    BENCH_RELEASE(src, dst);
    return best;
}

typedef struct {
    char *src, *dst;
    size_t bytes;
} copy_part;

static void *copy_thread(void *arg)
{
    copy_part *p = arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

/* Host memcpy of bytes split over two threads (the CPU device's peer). */
static double memcpy2_gbps(size_t bytes)
{
    char *src = malloc(bytes), *dst = malloc(bytes);
    double t[5] = {0};
    if (!src || !dst) {
        free(src);
        free(dst);
        return 0;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    for (int r = 0; r < 5; r++) {
        copy_part p[2] = {{src, dst, bytes / 2}, {src + bytes / 2, dst + bytes / 2, bytes - bytes / 2}};
        pthread_t th;
        double s = now_ms();
        pthread_create(&th, NULL, copy_thread, &p[1]);
        copy_thread(&p[0]);
        pthread_join(th, NULL);
        t[r] = now_ms() - s;
    }
    qsort(t, 5, sizeof t[0], cmp_double);
    free(src);
    free(dst);
    return 2.0 * (double)bytes / (t[2] * 1e6);
}

/* Host <-> device transfer bandwidth of bytes (GB/s, median of 5 blocking
   transfers): to the device (write) or back (read), from malloc'd memory or
   from pinned memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer). */
static double xfer_gbps(bench *b, size_t bytes, int pinned, int write)
{
    if (!b->queue || bytes == 0)
        return 0;
    cl_int err;
    cl_mem dev = bench_buffer(b, bytes, NULL), stage = NULL;
    void *host = NULL;
    double t[5], gbps = 0;
    if (!dev)
        return 0;
    if (pinned) {
        stage = clCreateBuffer(b->cl, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (stage)
            host = clEnqueueMapBuffer(b->queue, stage, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                      bytes, 0, NULL, NULL, &err);
    } else {
        host = malloc(bytes);
    }
    if (host) {
        memset(host, 1, bytes);
        int r;
        for (r = 0; r < 5; r++) {
            double s = now_ms();
            err = write ? clEnqueueWriteBuffer(b->queue, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                        : clEnqueueReadBuffer(b->queue, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
            if (err != CL_SUCCESS)
                break;
            t[r] = now_ms() - s;
        }
        if (r == 5) {
            qsort(t, 5, sizeof t[0], cmp_double);
            gbps = (double)bytes / (t[2] * 1e6);
        }
    }
    if (stage) {
        if (host)
            clEnqueueUnmapMemObject(b->queue, stage, host, 0, NULL, NULL);
        clFinish(b->queue);
        clReleaseMemObject(stage);
    } else {
        free(host);
    }
    clReleaseMemObject(dev);
    return gbps;
}

/* The four transfer bandwidths of one run, for host-API cases. */
typedef struct {
    double write_pageable, write_pinned, read_pageable, read_pinned;
} xfer_rates;

static void measure_xfer(bench *b, size_t bytes, xfer_rates *x)
{
    x->write_pageable = xfer_gbps(b, bytes, 0, 1);
    x->write_pinned = xfer_gbps(b, bytes, 1, 1);
    x->read_pageable = xfer_gbps(b, bytes, 0, 0);
    x->read_pinned = xfer_gbps(b, bytes, 1, 0);
}

/* ---- running cases -------------------------------------------------------- */

typedef struct {
    int json;
    const char *device;
    xfer_rates xfer;    /* measured for host-API cases on OpenCL devices */
} output;

static const char *const api_names[] = {"buffer", "host", "array"};

static int run_case(bench *b, const output *o, const bench_op *op, gpgpu_type t, size_t n,
                    const bench_params *p, double cgbps, double m2gbps)
{
    bench_result r;
    memset(&r, 0, sizeof r);
    bench_trace("%s: start", op->name);
    if (op->run(b, t, n, p, &r))
        return -1;
    bench_trace("%s: %.3f ms, %s", op->name, r.ms, r.verified ? "verified" : "NOT verified");
    double gelems = (double)n / (r.ms * 1e6), gbps = r.bytes / (r.ms * 1e6);
    const char *tn = p->pattern && !strcmp(p->pattern, "rgba8") ? "rgba8" : type_names[t];
    if (o->json) {
        printf("{\"op\":\"%s\",\"type\":\"%s\",\"n\":%zu,\"device\":\"%s\",\"ms\":%.4f,"
               "\"gelems\":%.4f,\"gbps\":%.3f,\"copy_gbps\":%.3f,\"of_copy\":%.3f,",
               op->name, tn, n, gpgpu_device_name(b->ctx), r.ms, gelems, gbps, cgbps,
               cgbps > 0 ? gbps / cgbps : 0.0);
        if (m2gbps > 0)
            printf("\"memcpy2_gbps\":%.3f,\"of_memcpy2\":%.3f,", m2gbps, gbps / m2gbps);
        printf("\"api\":\"%s\",\"pinned\":%s,", api_names[b->api], b->pinned ? "true" : "false");
        if (b->api == BENCH_API_HOST && o->xfer.write_pinned > 0)
            printf("\"h2d_pageable_gbps\":%.3f,\"h2d_pinned_gbps\":%.3f,"
                   "\"d2h_pageable_gbps\":%.3f,\"d2h_pinned_gbps\":%.3f,",
                   o->xfer.write_pageable, o->xfer.write_pinned, o->xfer.read_pageable,
                   o->xfer.read_pinned);
        if (r.serial_ms > 0)
            printf("\"serial_ms\":%.4f,\"of_serial\":%.3f,", r.serial_ms, r.serial_ms / r.ms);
        if (p->bins)
            printf("\"bins\":%zu,", p->bins);
        printf("\"input\":\"%s\",\"repeat\":%d,\"verified\":%s,\"note\":\"%s\","
               "\"plan\":\"%s\"}\n",
               p->pattern ? p->pattern : "random", b->repeat, r.verified ? "true" : "false",
               r.note, gpgpu_plan_description(b->ctx));
    } else {
        char what[64];
        snprintf(what, sizeof what, "%s%s%s", op->name, p->pattern && strcmp(p->pattern, "random") ? "/" : "",
                 p->pattern && strcmp(p->pattern, "random") ? p->pattern : "");
        char loop[16] = "     -";
        if (r.serial_ms > 0 && r.ms > 0)
            snprintf(loop, sizeof loop, "%6.2f", r.serial_ms / r.ms);
        printf("%-22s %-6s %-5s %6zu %10zu %9.3f %8.3f %8.2f %6.2f %s %5s  %s\n", what,
               api_names[b->api], tn, p->bins, n, r.ms, gelems, gbps,
               cgbps > 0 ? gbps / cgbps : 0.0, loop, r.verified ? "yes" : "NO", r.note);
    }
    fflush(stdout);
    return r.verified ? 0 : 1;
}

static int is_cpu_device(bench *b)
{
    cl_device_id d;
    cl_device_type type = 0;
    if (!b->queue ||
        clGetCommandQueueInfo(b->queue, CL_QUEUE_DEVICE, sizeof d, &d, NULL) != CL_SUCCESS)
        return 1; /* the host fallback */
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Whether op's case times the host call under --api host and the _array
   form under --api array: every op now. The list stays so that a new op
   which times its _buffer form only is refused --api host and array (and
   left out of the suite's host rows) until its case handles them. */
static int has_host_api(const bench_op *op)
{
    static const char *const with[] = {"reduce", "scan", "sort", "sort_pairs", "histogram",
                                       "transform_reduce", "select", "unique",
                                       "run_length_encode", "partition", "histogram_edges",
                                       "sum_exact", "segmented_reduce", "segmented_scan",
                                       "reduce_by_key", "scan_by_key", "argmin",
                                       "segmented_sort", "search_sorted", "argsort",
                                       "gather", "histogram2d", "histogram_weighted",
                                       "top_k", "quantiles"};
    for (size_t i = 0; i < sizeof with / sizeof *with; i++)
        if (!strcmp(op->name, with[i]))
            return 1;
    return 0;
}

/* The standard suite at n = 2^lg for each lg of sizes (0-terminated);
   only_api >= 0: that form's rows alone; only_op: that op's rows alone. */
static int standard_suite(bench *b, const output *o, const int *sizes, int only_api,
                          const char *only_op)
{
    int bad = 0;
    if (!o->json) {
        printf("gpgpu-bench %s on %s; GB/s counts the minimum bytes moved; 'copy' is the\n"
               "fraction of this device's clEnqueueCopyBuffer bandwidth at the same size.\n"
               "'loop' is the library's speed over the serial C loop the call replaces\n"
               "(plain C, one thread, same data, medians of the same run; above 1: the\n"
               "library wins).\n\n",
               gpgpu_version(), gpgpu_device_name(b->ctx));
        printf("'buffer' times the _buffer form on device data (event times of its kernels, copies\n"
               "and fills); 'host' the\n"
               "host-memory call on malloc'd arrays (wall clock, transfers included; calls and\n"
               "loops under 0.2 ms timed in batches).\n\n");
        printf("%-22s %-6s %-5s %6s %10s %9s %8s %8s %6s %6s %5s\n", "op", "api", "type", "bins",
               "n", "ms", "Gelem/s", "GB/s", "copy", "loop", "ok");
    }
    for (const int *lgp = sizes; *lgp; lgp++) {
        const int lg = *lgp;
        size_t n = (size_t)1 << lg;
        double cg = copy_gbps(b, n * 4);
        if (!o->json)
            printf("-- n = 2^%d: buffer copy %.1f GB/s\n", lg, cg);
        for (int i = 0; i < NOPS; i++) {
            if (!ops[i]->run || (only_op && strcmp(only_op, ops[i]->name)))
                continue;
            for (int c = 0; c < ops[i]->nsuite; c++)
                for (int api = BENCH_API_BUFFER; api <= BENCH_API_HOST; api++) {
                    if (only_api >= 0 && api != only_api)
                        continue;
                    if (api == BENCH_API_BUFFER && !b->queue)
                        continue; /* the host fallback has host calls only */
                    if (api == BENCH_API_HOST && b->queue && !has_host_api(ops[i]))
                        continue;
                    b->api = (bench_api)api;
                    bad |= run_case(b, o, ops[i], ops[i]->suite[c].type, n,
                                    &ops[i]->suite[c].params, cg, 0) != 0;
                }
        }
    }
    return bad;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gpgpu-bench [--op OP --type T --n N] [--bins B] [--input random|sorted|"
            "narrow16|rgba8]\n"
            "                   [--api buffer|host|array] [--pinned] [--device D] [--repeat R]"
            " [--json]\n"
            "       gpgpu-bench [--sizes 10,12,16,20,24] [--op OP] [--api A] ...: the suite's rows\n"
            "                   at n = 2^each (default 16,18,20,22,24), of OP and of API A alone\n"
            "                   when named\n"
            "OP: reduce scan sort sort_pairs histogram transform_reduce select\n"
            "    unique run_length_encode partition histogram_edges sum_exact\n"
            "    segmented_reduce segmented_scan reduce_by_key scan_by_key argmin segmented_sort\n"
            "    search_sorted argsort gather top_k quantiles histogram2d histogram_weighted\n"
            "    (--input segL: segments or runs of L elements; quantiles --bins Q: Q quantiles\n"
            "    at once, 1/(Q+1) .. Q/(Q+1), else the median; top_k --bins K: the K largest,\n"
            "    else 100); "
            "T: i32 u32 f32 i64 u64 f64\n"
            "--api buffer (default): the _buffer form on device buffers, timed by the events of\n"
            "its kernels, copies and fills;\n"
            "--api host: the host-memory call on malloc'd arrays (--pinned: gpgpu_host_alloc),\n"
            "timed by the wall clock (calls and loops under 0.2 ms as the mean of a batch);\n"
            "--api array: the _array form on gpgpu_array handles,\n"
            "timed by events likewise. With no --op: the standard suite (every primitive, u32 and\n"
            "f32, n = 2^16..2^24, both APIs).\n");
}

int main(int argc, char **argv)
{
    output o = {0, NULL, {0, 0, 0, 0}};
    const char *opname = NULL, *tname = "u32";
    int sizes[32] = {16, 18, 20, 22, 24, 0}, sizes_given = 0, api_given = 0;
    size_t n = (size_t)1 << 24;
    bench_params p = {0, NULL};
    bench b = {NULL, NULL, NULL, 10, 12345, BENCH_API_BUFFER, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json"))
            o.json = 1;
        else if (!strcmp(a, "--op") && v)
            opname = argv[++i];
        else if (!strcmp(a, "--type") && v)
            tname = argv[++i];
        else if (!strcmp(a, "--n") && v)
            n = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(a, "--bins") && v)
            p.bins = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--input") && v)
            p.pattern = argv[++i];
        else if (!strcmp(a, "--device") && v)
            o.device = argv[++i];
        else if (!strcmp(a, "--api") && v) {
            const char *name = argv[++i];
            int found = 0;
            for (int k = 0; k < 3; k++)
                if (!strcmp(name, api_names[k])) {
                    b.api = (bench_api)k;
                    found = 1;
                    api_given = 1;
                }
            if (!found) {
                fprintf(stderr, "gpgpu-bench: --api is '%s'; one of buffer, host, array\n", name);
                return 2;
            }
        } else if (!strcmp(a, "--sizes") && v) {
            const char *q = argv[++i];
            int k = 0;
            while (*q && k < 31) {
                char *end;
                long lg = strtol(q, &end, 10);
                if (end == q || lg < 0 || lg > 40) {
                    fprintf(stderr, "gpgpu-bench: --sizes takes powers of two, e.g. 10,12,16\n");
                    return 2;
                }
                sizes[k++] = (int)lg;
                q = *end == ',' ? end + 1 : end;
            }
            sizes[k] = 0;
            sizes_given = 1;
        } else if (!strcmp(a, "--pinned"))
            b.pinned = 1;
        else if (!strcmp(a, "--repeat") && v)
            b.repeat = atoi(argv[++i]);
        else {
            usage();
            return a[2] == 'h' ? 0 : 2;
        }
    }
    if (b.repeat < 1)
        b.repeat = 1;
    if (getenv("GPGPU_BENCH_TRACE") && atoi(getenv("GPGPU_BENCH_TRACE")) > 0)
        trace_t0 = now_ms();
    gpgpu_status s = gpgpu_context_create(&b.ctx, o.device);
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "gpgpu-bench: %s: %s\n", gpgpu_status_string(s), gpgpu_last_error(NULL));
        return 1;
    }
    b.queue = gpgpu_queue(b.ctx);
    if (b.queue)
        clGetCommandQueueInfo(b.queue, CL_QUEUE_CONTEXT, sizeof b.cl, &b.cl, NULL);
    gpgpu_set_profiling(b.ctx, 1);

    int rc;
    if (!opname || sizes_given) {
        rc = standard_suite(&b, &o, sizes, api_given ? (int)b.api : -1, opname);
    } else {
        const bench_op *op = NULL;
        for (int i = 0; i < NOPS; i++)
            if (!strcmp(ops[i]->name, opname))
                op = ops[i];
        int t = -1;
        for (int i = 0; i < 6; i++)
            if (!strcmp(type_names[i], tname))
                t = i;
        if (!strcmp(tname, "rgba8")) {
            t = GPGPU_U32;
            p.pattern = "rgba8";
        }
        if (!op || t < 0) {
            fprintf(stderr, "gpgpu-bench: unknown op or type\n");
            usage();
            gpgpu_context_destroy(b.ctx);
            return 2;
        }
        if (!op->run) {
            fprintf(stderr, "gpgpu-bench: %s is not implemented yet\n", opname);
            gpgpu_context_destroy(b.ctx);
            return 2;
        }
        if (b.api != BENCH_API_BUFFER && !has_host_api(op)) {
            fprintf(stderr, "gpgpu-bench: %s times its _buffer form only (no --api %s)\n",
                    opname, api_names[b.api]);
            gpgpu_context_destroy(b.ctx);
            return 2;
        }
        /* The reference bandwidths at the case's size up to 1 GiB: they
           have reached their plateau there, and at 2^32 elements and more
           their buffers would take the memory the case needs. */
        size_t bytes = n * gpgpu_type_size((gpgpu_type)t);
        if (bytes > (size_t)1 << 30)
            bytes = (size_t)1 << 30;
        double cg = copy_gbps(&b, bytes), m2 = is_cpu_device(&b) ? memcpy2_gbps(bytes) : 0;
        if (b.api == BENCH_API_HOST)
            measure_xfer(&b, bytes, &o.xfer);
        rc = run_case(&b, &o, op, (gpgpu_type)t, n, &p, cg, m2);
    }
    gpgpu_context_destroy(b.ctx);
    return rc ? 1 : 0;
}
