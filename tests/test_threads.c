/* test_threads.c - a context is safe to share between threads, and several
   contexts work at once: threads run a mix of primitives and sizes, each
   result checked against a plain-C reference.

   Jobs are one table: to cover a new primitive, write a job function and
   add a line to `jobs`. Threads never call Check (its assertions are not
   thread safe): they record the first wrong result and the main thread
   asserts. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "util.h"

enum { THREADS = 4, ITERATIONS = 12, WHY = 256 };

/* Sizes that cross the interesting boundaries: empty, one element, one
   work-group's worth, several groups, a ragged last tile. */
static const size_t sizes[] = {0, 1, 37, 1000, 4099, 65537, 300007};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* One job: a call of a primitive on n elements made from seed, checked.
   Returns 0, or 1 with a message in why. */
typedef int (*job_fn)(gpgpu_context *ctx, size_t n, uint64_t seed, char *why);

/* malloc for threads (tu_alloc reports through Check). */
static void *xalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        abort();
    return p;
}

static int wrong(char *why, const char *job, size_t n, gpgpu_context *ctx, gpgpu_status s)
{
    snprintf(why, WHY, "%s, n=%zu: %s (%s)", job, n, gpgpu_status_string(s),
             s == GPGPU_SUCCESS ? "wrong result" : gpgpu_last_error(ctx));
    return 1;
}

static int job_reduce_u32_sum(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    uint32_t *x = xalloc(n * sizeof *x), r = 1, want = 0;
    tu_fill(GPGPU_U32, x, n, seed);
    for (size_t i = 0; i < n; i++)
        want += x[i];
    gpgpu_status s = gpgpu_reduce(ctx, GPGPU_U32, GPGPU_SUM, x, n, &r);
    free(x);
    return s != GPGPU_SUCCESS || r != want ? wrong(why, "reduce u32 sum", n, ctx, s) : 0;
}

static int job_reduce_f32_max(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    float *x = xalloc(n * sizeof *x), r = 0, want = -INFINITY;
    tu_fill(GPGPU_F32, x, n, seed);
    for (size_t i = 0; i < n; i++)
        want = x[i] > want ? x[i] : want;
    gpgpu_status s = gpgpu_reduce(ctx, GPGPU_F32, GPGPU_MAX, x, n, &r);
    free(x);
    return s != GPGPU_SUCCESS || r != want ? wrong(why, "reduce f32 max", n, ctx, s) : 0;
}

static int job_reduce_i64_min(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    int64_t *x = xalloc(n * sizeof *x), r = 0, want = INT64_MAX;
    tu_fill(GPGPU_I64, x, n, seed);
    for (size_t i = 0; i < n; i++)
        want = x[i] < want ? x[i] : want;
    gpgpu_status s = gpgpu_reduce(ctx, GPGPU_I64, GPGPU_MIN, x, n, &r);
    free(x);
    if (s == GPGPU_ERROR_UNSUPPORTED) /* a device without 64-bit integers */
        return 0;
    return s != GPGPU_SUCCESS || r != want ? wrong(why, "reduce i64 min", n, ctx, s) : 0;
}

/* The _buffer path on the context's own queue, waiting for the done event. */
static int job_reduce_buffer(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    cl_command_queue q = gpgpu_queue(ctx);
    if (!q) /* the host fallback has no buffers */
        return 0;
    cl_context cl;
    clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    uint32_t *x = xalloc((n + 1) * sizeof *x), r = 0, want = 0;
    tu_fill(GPGPU_U32, x, n + 1, seed);
    for (size_t i = 1; i <= n; i++)
        want += x[i];
    cl_int err;
    cl_mem in = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (n + 1) * sizeof *x,
                               x, &err);
    cl_mem out = clCreateBuffer(cl, CL_MEM_READ_WRITE, sizeof r, NULL, &err);
    cl_event done = NULL;
    gpgpu_status s = in && out ? gpgpu_reduce_buffer(ctx, GPGPU_U32, GPGPU_SUM, in, 1, n, out, 0,
                                                     0, NULL, &done)
                               : GPGPU_ERROR_OUT_OF_MEMORY;
    if (s == GPGPU_SUCCESS) {
        clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof r, &r, 1, &done, NULL);
        clReleaseEvent(done);
    }
    if (in)
        clReleaseMemObject(in);
    if (out)
        clReleaseMemObject(out);
    free(x);
    return s != GPGPU_SUCCESS || r != want ? wrong(why, "reduce_buffer u32 sum", n, ctx, s) : 0;
}

/* Samples k + 0.5 over [0, nbins) with unit bins: bin k, exactly. */
static int job_histogram_f32(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    enum { NB = 300 };
    float *x = xalloc(n * sizeof *x);
    uint64_t bins[NB], want[NB] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((seed >> 7) + i * 2654435761u) % (NB + 20);
        x[i] = (float)k + 0.5f; /* k >= NB: outside, not counted */
        if (k < NB)
            want[k]++;
    }
    gpgpu_status s = gpgpu_histogram(ctx, GPGPU_F32, x, n, NB, 0, NB, bins);
    free(x);
    return s != GPGPU_SUCCESS || memcmp(bins, want, sizeof want)
               ? wrong(why, "histogram f32", n, ctx, s) : 0;
}

/* Gray pixels (all channels g): every channel and the luminance in bin
   min(15, g * 16 / 255). */
static int job_histogram_rgba8(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    uint8_t *px = xalloc(4 * n);
    uint64_t bins[64], want[64] = {0};
    for (size_t i = 0; i < n; i++) {
        uint8_t g = (uint8_t)((seed >> 3) + i * 40503u);
        memset(px + 4 * i, g, 4);
        size_t b = g * 16u / 255u < 15 ? g * 16u / 255u : 15;
        for (int c = 0; c < 4; c++)
            want[16 * c + b]++;
    }
    gpgpu_status s = gpgpu_histogram_rgba8(ctx, px, n, 1, 4 * n, 16, bins);
    free(px);
    return s != GPGPU_SUCCESS || memcmp(bins, want, sizeof want)
               ? wrong(why, "histogram rgba8", n, ctx, s) : 0;
}

static int job_scan_i32_exclusive(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    int32_t *x = xalloc(n * sizeof *x), *out = xalloc(n * sizeof *x);
    uint32_t acc = 0;
    int bad = 0;
    tu_fill(GPGPU_I32, x, n, seed);
    gpgpu_status s = gpgpu_scan(ctx, GPGPU_I32, GPGPU_SUM, GPGPU_EXCLUSIVE, x, out, n);
    for (size_t i = 0; s == GPGPU_SUCCESS && i < n && !bad; i++) {
        bad = out[i] != (int32_t)acc;
        acc += (uint32_t)x[i];
    }
    free(x);
    free(out);
    return s != GPGPU_SUCCESS || bad ? wrong(why, "scan i32 exclusive", n, ctx, s) : 0;
}

static int cmp_f32(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int job_sort_f32(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    float *x = xalloc(n * sizeof *x), *want = xalloc(n * sizeof *x);
    tu_fill(GPGPU_F32, x, n, seed);
    memcpy(want, x, n * sizeof *x);
    qsort(want, n, sizeof *want, cmp_f32);
    gpgpu_status s = gpgpu_sort(ctx, GPGPU_F32, x, n, GPGPU_ASCENDING);
    int bad = s == GPGPU_SUCCESS && memcmp(x, want, n * sizeof *x);
    free(x);
    free(want);
    return s != GPGPU_SUCCESS || bad ? wrong(why, "sort f32", n, ctx, s) : 0;
}

static int job_select_u32(gpgpu_context *ctx, size_t n, uint64_t seed, char *why)
{
    uint32_t *x = xalloc(n * sizeof *x), *out = xalloc(n * sizeof *x);
    size_t count = 0, m = 0;
    int bad = 0;
    tu_fill(GPGPU_U32, x, n, seed);
    gpgpu_status s = gpgpu_select(ctx, GPGPU_U32, "(x & 1) == 0", x, n, out, &count);
    if (s == GPGPU_ERROR_UNSUPPORTED && !gpgpu_queue(ctx)) { /* host fallback */
        free(x);
        free(out);
        return 0;
    }
    for (size_t i = 0; s == GPGPU_SUCCESS && i < n && !bad; i++)
        if ((x[i] & 1) == 0)
            bad = m >= count || out[m++] != x[i];
    free(x);
    free(out);
    return s != GPGPU_SUCCESS || bad || m != count ? wrong(why, "select u32", n, ctx, s) : 0;
}

static const struct {
    const char *name;
    job_fn fn;
} jobs[] = {
    {"reduce u32 sum", job_reduce_u32_sum},
    {"reduce f32 max", job_reduce_f32_max},
    {"reduce i64 min", job_reduce_i64_min},
    {"reduce_buffer", job_reduce_buffer},
    {"histogram f32", job_histogram_f32},
    {"histogram rgba8", job_histogram_rgba8},
    {"scan i32 exclusive", job_scan_i32_exclusive},
    {"sort f32", job_sort_f32},
    {"select u32", job_select_u32},
};
enum { NJOBS = sizeof jobs / sizeof jobs[0] };

typedef struct {
    pthread_t thread;
    int index;
    gpgpu_context *ctx;   /* NULL: the thread opens its own on tu_device */
    int failed;
    char why[WHY];
} worker;

/* Each thread walks the job and size tables from its own starting point, so
   that at any moment the threads run different primitives and sizes. */
static void *work(void *arg)
{
    worker *w = arg;
    gpgpu_context *ctx = w->ctx;
    if (!ctx && gpgpu_context_create(&ctx, strcmp(tu_device, "default") ? tu_device : NULL)) {
        snprintf(w->why, WHY, "thread %d: gpgpu_context_create: %s", w->index,
                 gpgpu_last_error(NULL));
        w->failed = 1;
        return NULL;
    }
    for (int i = 0; i < ITERATIONS && !w->failed; i++) {
        size_t job = (size_t)(w->index + i) % NJOBS;
        size_t n = sizes[(size_t)(3 * w->index + i) % NSIZES];
        w->failed = jobs[job].fn(ctx, n, tu_seed_for((uint64_t)w->index, (uint64_t)i), w->why);
    }
    if (ctx != w->ctx)
        gpgpu_context_destroy(ctx);
    return NULL;
}

/* Runs THREADS workers, the first `shared` of them on tu_ctx, the others on
   contexts of their own, and asserts that every result was right. */
static void run_workers(int shared)
{
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.index = i, .ctx = i < shared ? tu_ctx : NULL};
        ck_assert_int_eq(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(w[i].thread, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(!w[i].failed, "thread %d: %s [device %s, seed %llu]", i, w[i].why,
                      tu_device, (unsigned long long)tu_seed());
}

TU_TEST(threads_share_one_context)
{
    run_workers(THREADS);
}
END_TEST

TU_TEST(threads_each_with_their_own_context)
{
    run_workers(0);
}
END_TEST

TU_TEST(shared_and_private_contexts_at_once)
{
    run_workers(THREADS / 2);
}
END_TEST

/* Profiling switched on and off while other threads run calls. (Records
   are read only by count: a pointer from gpgpu_profile is valid until the
   next call on the context, which another thread may make at any time.) */
static void *toggle_profiling(void *arg)
{
    int *failed = arg;
    for (int i = 0; i < 50; i++) {
        if (gpgpu_set_profiling(tu_ctx, i & 1) != GPGPU_SUCCESS)
            *failed = 1;
        gpgpu_profile(tu_ctx, NULL);
    }
    return NULL;
}

TU_TEST(profiling_toggled_while_calls_run)
{
    pthread_t t;
    int failed = 0;
    ck_assert_int_eq(pthread_create(&t, NULL, toggle_profiling, &failed), 0);
    run_workers(THREADS);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_msg(!failed, "gpgpu_set_profiling failed: %s", gpgpu_last_error(tu_ctx));
    gpgpu_set_profiling(tu_ctx, 0);
}
END_TEST

int main(void)
{
    return tu_run("threads", 300, NULL);
}
