/* test_faults.c - every allocation, enqueue and build of every public
   function fails in turn, and each failure is clean.

   lib/fault.c makes the k-th injection point of a process fail when
   GPGPU_FAULT_AT=k is set, and GPGPU_FAULT_COUNT=1 prints how many points a
   run passed. The counter is per process, so each run is a process of its
   own ("child" mode, forked from a fresh process that has only loaded the
   OpenCL driver: see the zygote below): once to count a scenario's
   points, then once per point with that point failing. A child checks
   that:
     - a call that fails returns a status other than SUCCESS and leaves a
       message in gpgpu_last_error, and the caller's input is untouched;
     - a call that succeeds (the fault hit elsewhere) gives the right result;
     - the same call right after a failure succeeds: the context still works;
     - after gpgpu_context_destroy, the reference counts of the caller's
       cl_context and cl_command_queue are back where they were: no buffer,
       program, kernel or event of the library was left behind;
     - nothing leaks on the host (LeakSanitizer, in sanitizer builds: it
       runs when the child exits).
   The parent asserts that every point made a call fail (a fault nobody
   notices would be a point whose error is dropped).

   Scenarios are one table: to cover a new public function, write a call
   function and add a line to `scenarios`. */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpgpu_cl.h"
#include "util.h"

extern char **environ;

/* A child's verdicts (anything else is a failure it printed). */
enum { CHILD_FAILED_CLEANLY = 0, CHILD_NO_FAILURE = 10 };

/* ---- the child: one scenario, run with whatever point GPGPU_FAULT_AT fails */

static const char *child_scenario = "?";

/* Check's assertions only work inside a test: the child has its own. */
static void die(const char *fmt, const char *detail)
{
    const char *at = getenv("GPGPU_FAULT_AT");
    fprintf(stderr, "test_faults: %s with GPGPU_FAULT_AT=%s: ", child_scenario, at ? at : "(none)");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    exit(1);
}
#define CHILD_ASSERT(cond)                        \
    do {                                          \
        if (!(cond))                              \
            die("test setup failed: %s", #cond);  \
    } while (0)

static void *child_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    CHILD_ASSERT(p != NULL);
    return p;
}

/* Where the child runs: the device the parent tests, as the caller's own
   cl_context and queue (so that reference counts can be checked), or the
   host fallback. */
typedef struct {
    gpgpu_context *ctx;
    cl_context cl;
    cl_command_queue queue;
    const char *spec; /* "P:D" or "host" */
} child_env;

/* One call of a scenario, round r (0, 1, 2: sizes and paths differ between
   rounds). Returns the call's status; sets *why when a success gave a
   wrong result or a failure changed the input. */
typedef gpgpu_status (*scenario_call)(child_env *env, int round, const char **why);

typedef struct {
    const char *name;
    scenario_call call;
    int needs_device;  /* not run on the host fallback (the _buffer API) */
    int own_context;   /* the call makes its own context: its message is in
                          gpgpu_last_error(NULL), checked by the call */
    int rounds;        /* how many of the rounds below it runs */
    const char *env;   /* NAME=VALUE words set before the context opens, or
                          NULL: the plan's overrides that pick a route */
} scenario;

/* Rounds: a cold call (programs are built), then a larger one with
   profiling on (several groups, scratch buffers grow, launches recorded). */
enum { ROUNDS = 2 };
static const size_t round_n[ROUNDS] = {1000, 300007};

static uint32_t *input_u32(size_t n, int round)
{
    uint32_t *x = child_alloc(n * sizeof *x);
    tu_fill(GPGPU_U32, x, n, tu_seed_for(0xfa17, (uint64_t)round));
    return x;
}

static uint32_t sum_u32(const uint32_t *x, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

static gpgpu_status call_context_create(child_env *env, int round, const char **why)
{
    gpgpu_context *c = NULL;
    gpgpu_status s = gpgpu_context_create(&c, env->spec);
    if (s != GPGPU_SUCCESS) {
        if (c)
            *why = "a failed gpgpu_context_create left *ctx set";
        else if (!*gpgpu_last_error(NULL))
            *why = "a failed gpgpu_context_create left no message";
        return s;
    }
    uint32_t x[3] = {1, 2, 3}, r = 0;
    s = gpgpu_reduce(c, GPGPU_U32, GPGPU_SUM, x, 3, &r);
    if (s == GPGPU_SUCCESS && r != 6)
        *why = "reduce on a new context gave a wrong sum";
    gpgpu_context_destroy(c);
    return s;
}

static gpgpu_status call_reduce(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    memcpy(copy, x, n * sizeof *x);
    uint32_t r = 0xdeadbeef;
    gpgpu_set_profiling(env->ctx, round == 1);
    gpgpu_status s = gpgpu_reduce(env->ctx, GPGPU_U32, GPGPU_SUM, x, n, &r);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_reduce changed its input";
    else if (s == GPGPU_SUCCESS && r != sum_u32(x, n))
        *why = "gpgpu_reduce gave a wrong sum";
    gpgpu_profile(env->ctx, NULL);
    free(x);
    free(copy);
    return s;
}

/* The caller's buffers on the caller's queue, with a wait list and a done
   event: on failure done must stay NULL (nothing for the caller to release). */
static gpgpu_status call_reduce_buffer(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *back = child_alloc(n * sizeof *x), r = 0;
    cl_int err;
    cl_mem in = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               n * sizeof *x, x, &err);
    cl_mem out = clCreateBuffer(env->cl, CL_MEM_READ_WRITE, 4 * sizeof r, NULL, &err);
    CHILD_ASSERT(in && out);
    cl_event ready, done = (cl_event)&done; /* must become NULL if the call fails */
    CHILD_ASSERT(clEnqueueMarkerWithWaitList(env->queue, 0, NULL, &ready) == CL_SUCCESS);
    gpgpu_status s = gpgpu_reduce_buffer(env->ctx, GPGPU_U32, GPGPU_SUM, in, 0, n, out, 2, 1,
                                         &ready, &done);
    clFinish(env->queue);
    clEnqueueReadBuffer(env->queue, in, CL_TRUE, 0, n * sizeof *x, back, 0, NULL, NULL);
    clEnqueueReadBuffer(env->queue, out, CL_TRUE, 2 * sizeof r, sizeof r, &r, 0, NULL, NULL);
    if (memcmp(x, back, n * sizeof *x))
        *why = "gpgpu_reduce_buffer changed its input";
    else if (s != GPGPU_SUCCESS && done != NULL)
        *why = "a failed gpgpu_reduce_buffer handed out an event";
    else if (s == GPGPU_SUCCESS && r != sum_u32(x, n))
        *why = "gpgpu_reduce_buffer gave a wrong sum";
    if (s == GPGPU_SUCCESS && done)
        clReleaseEvent(done);
    clReleaseEvent(ready);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
    free(back);
    return s;
}

/* u32 samples in [0, 1000) into 10 bins over [0, 1000): bin x / 100. */
static void histogram_want(const uint32_t *x, size_t n, uint64_t want[10])
{
    memset(want, 0, 10 * sizeof *want);
    for (size_t i = 0; i < n; i++)
        want[x[i] / 100]++;
}

static gpgpu_status call_histogram(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] %= 1000;
    memcpy(copy, x, n * sizeof *x);
    uint64_t bins[10], want[10];
    histogram_want(x, n, want);
    gpgpu_status s = gpgpu_histogram(env->ctx, GPGPU_U32, x, n, 10, 0, 1000, bins);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_histogram changed its input";
    else if (s == GPGPU_SUCCESS && memcmp(bins, want, sizeof want))
        *why = "gpgpu_histogram gave wrong bins";
    free(x);
    free(copy);
    return s;
}

static gpgpu_status call_histogram_buffer(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *back = child_alloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] %= 1000;
    uint64_t bins[10], want[10];
    histogram_want(x, n, want);
    cl_int err;
    cl_mem in = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               n * sizeof *x, x, &err);
    cl_mem out = clCreateBuffer(env->cl, CL_MEM_READ_WRITE, sizeof bins, NULL, &err);
    CHILD_ASSERT(in && out);
    cl_event done = (cl_event)&done; /* must become NULL if the call fails */
    gpgpu_status s = gpgpu_histogram_buffer(env->ctx, GPGPU_U32, in, 0, n, 10, 0, 1000, out, 0,
                                            0, NULL, &done);
    clFinish(env->queue);
    clEnqueueReadBuffer(env->queue, in, CL_TRUE, 0, n * sizeof *x, back, 0, NULL, NULL);
    clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof bins, bins, 0, NULL, NULL);
    if (memcmp(x, back, n * sizeof *x))
        *why = "gpgpu_histogram_buffer changed its input";
    else if (s != GPGPU_SUCCESS && done != NULL)
        *why = "a failed gpgpu_histogram_buffer handed out an event";
    else if (s == GPGPU_SUCCESS && memcmp(bins, want, sizeof want))
        *why = "gpgpu_histogram_buffer gave wrong bins";
    if (s == GPGPU_SUCCESS && done)
        clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
    free(back);
    return s;
}

/* Pixels whose channels are all the same gray level g: every channel and
   the luminance land in bin g * 16 / 255 (16 bins). */
static gpgpu_status call_histogram_rgba8(child_env *env, int round, const char **why)
{
    const size_t w = round == 1 ? 301 : 37, h = round == 1 ? 211 : 5, stride = 4 * w + 12;
    uint8_t *px = child_alloc(h * stride), *copy = child_alloc(h * stride);
    uint64_t bins[64], want[64] = {0};
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < stride; i++)
            px[y * stride + i] = (uint8_t)(i < 4 * w ? (y * 7 + i / 4) % 256 : 0xee);
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < w; i++)
            for (int c = 0; c < 4; c++)
                want[16 * c + px[y * stride + 4 * i] * 16 / 255 - (px[y * stride + 4 * i] == 255)]++;
    memcpy(copy, px, h * stride);
    gpgpu_status s = gpgpu_histogram_rgba8(env->ctx, px, w, h, stride, 16, bins);
    if (memcmp(px, copy, h * stride))
        *why = "gpgpu_histogram_rgba8 changed its input";
    else if (s == GPGPU_SUCCESS && memcmp(bins, want, sizeof want))
        *why = "gpgpu_histogram_rgba8 gave wrong bins";
    free(px);
    free(copy);
    return s;
}

/* Scans, in place or not: an in-place scan that fails leaves its array as
   it was. */
static gpgpu_status scan_common(child_env *env, int round, int in_place, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint32_t *out = in_place ? x : child_alloc(n * sizeof *x), acc = 0;
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_scan(env->ctx, GPGPU_U32, GPGPU_SUM,
                                in_place ? GPGPU_EXCLUSIVE : GPGPU_INCLUSIVE, x, out, n);
    if (s != GPGPU_SUCCESS && memcmp(x, copy, n * sizeof *x))
        *why = "a failed gpgpu_scan changed its input";
    else if (s == GPGPU_SUCCESS && !in_place && memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_scan changed its input";
    for (size_t i = 0; s == GPGPU_SUCCESS && !*why && i < n; i++) {
        uint32_t next = acc + copy[i];
        if (out[i] != (in_place ? acc : next))
            *why = "gpgpu_scan gave a wrong prefix";
        acc = next;
    }
    if (!in_place)
        free(out);
    free(x);
    free(copy);
    return s;
}

static gpgpu_status call_scan(child_env *env, int round, const char **why)
{
    return scan_common(env, round, 0, why);
}

static gpgpu_status call_scan_in_place(child_env *env, int round, const char **why)
{
    return scan_common(env, round, 1, why);
}

static gpgpu_status call_scan_buffer(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *back = child_alloc(n * sizeof *x);
    cl_int err;
    cl_mem in = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               n * sizeof *x, x, &err);
    cl_mem out = clCreateBuffer(env->cl, CL_MEM_READ_WRITE, n * sizeof *x, NULL, &err);
    CHILD_ASSERT(in && out);
    cl_event done = (cl_event)&done; /* must become NULL if the call fails */
    gpgpu_status s = gpgpu_scan_buffer(env->ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in, 0,
                                       out, 0, n, 0, NULL, &done);
    clFinish(env->queue);
    clEnqueueReadBuffer(env->queue, in, CL_TRUE, 0, n * sizeof *x, back, 0, NULL, NULL);
    if (memcmp(x, back, n * sizeof *x))
        *why = "gpgpu_scan_buffer changed its input";
    else if (s != GPGPU_SUCCESS && done != NULL)
        *why = "a failed gpgpu_scan_buffer handed out an event";
    if (s == GPGPU_SUCCESS && !*why) {
        clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, n * sizeof *x, back, 0, NULL, NULL);
        uint32_t acc = 0;
        for (size_t i = 0; i < n && !*why; i++)
            if (back[i] != (acc += x[i]))
                *why = "gpgpu_scan_buffer gave a wrong prefix";
    }
    if (s == GPGPU_SUCCESS && done)
        clReleaseEvent(done);
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(x);
    free(back);
    return s;
}

/* x[0 .. n) in ascending order, for the expected results: an LSD radix
   sort, 8 bits a pass. Every child of a sorting scenario sorts its 300007
   keys once or twice; qsort took a third of such a child's time. */
static void sort_u32(uint32_t *x, size_t n)
{
    uint32_t *tmp = child_alloc(n * sizeof *tmp), *from = x, *to = tmp;
    for (unsigned shift = 0; shift < 32; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++)
            to[count[from[i] >> shift & 0xff]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    free(tmp); /* four passes: the result is back in x */
}

/* Keys with many repeats (stability shows), values their first index. On
   failure keys and values are untouched; on success the keys are sorted,
   and each value names the original position of its key, in order among
   equal keys. */
static gpgpu_status sort_common_in(child_env *env, int round, int pairs, int pinned,
                                   const char **why)
{
    const size_t n = round_n[round];
    uint32_t *k = input_u32(n, round), *v = child_alloc(n * sizeof *v);
    if (pinned) { /* the same arrays, moved into gpgpu_host_alloc memory */
        uint32_t *pk = gpgpu_host_alloc(env->ctx, n * sizeof *k);
        uint32_t *pv = pk ? gpgpu_host_alloc(env->ctx, n * sizeof *v) : NULL;
        if (!pv) {
            gpgpu_host_free(env->ctx, pk);
            free(k);
            free(v);
            if (!*gpgpu_last_error(env->ctx))
                *why = "a failed gpgpu_host_alloc left no message";
            return GPGPU_ERROR_OUT_OF_MEMORY;
        }
        memcpy(pk, k, n * sizeof *k);
        free(k);
        free(v);
        k = pk;
        v = pv;
    }
    uint32_t *k0 = child_alloc(n * sizeof *k), *want = child_alloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        k[i] %= 5000;
        v[i] = (uint32_t)i;
    }
    memcpy(k0, k, n * sizeof *k);
    memcpy(want, k, n * sizeof *k);
    sort_u32(want, n);
    gpgpu_status s = pairs ? gpgpu_sort_pairs(env->ctx, GPGPU_U32, k, v, 4, n, GPGPU_ASCENDING)
                           : gpgpu_sort(env->ctx, GPGPU_U32, k, n, GPGPU_ASCENDING);
    int untouched = !memcmp(k, k0, n * sizeof *k);
    for (size_t i = 0; i < n && untouched; i++)
        untouched = v[i] == i;
    if (s != GPGPU_SUCCESS && !untouched)
        *why = "a failed sort changed the keys or values";
    else if (s == GPGPU_SUCCESS && memcmp(k, want, n * sizeof *k))
        *why = "the keys are not sorted";
    for (size_t i = 0; s == GPGPU_SUCCESS && pairs && !*why && i < n; i++)
        if (v[i] >= n || k0[v[i]] != k[i] || (i > 0 && k[i] == k[i - 1] && v[i] <= v[i - 1]))
            *why = "the values do not follow their keys stably";
    if (pinned) {
        gpgpu_host_free(env->ctx, k);
        gpgpu_host_free(env->ctx, v);
    } else {
        free(k);
        free(v);
    }
    free(k0);
    free(want);
    return s;
}

static gpgpu_status call_sort(child_env *env, int round, const char **why)
{
    return sort_common_in(env, round, 0, 0, why);
}

static gpgpu_status call_sort_pairs(child_env *env, int round, const char **why)
{
    return sort_common_in(env, round, 1, 0, why);
}

static gpgpu_status call_sort_pairs_pinned(child_env *env, int round, const char **why)
{
    return sort_common_in(env, round, 1, 1, why);
}

static gpgpu_status call_sort_buffer(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *k = input_u32(n, round), *back = child_alloc(n * sizeof *k);
    cl_int err;
    cl_mem keys = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 n * sizeof *k, k, &err);
    CHILD_ASSERT(keys);
    cl_event done = (cl_event)&done; /* must become NULL if the call fails */
    gpgpu_status s = gpgpu_sort_buffer(env->ctx, GPGPU_U32, keys, 0, n, GPGPU_DESCENDING, 0, NULL,
                                       &done);
    clFinish(env->queue);
    clEnqueueReadBuffer(env->queue, keys, CL_TRUE, 0, n * sizeof *k, back, 0, NULL, NULL);
    if (s != GPGPU_SUCCESS && memcmp(k, back, n * sizeof *k))
        *why = "a failed gpgpu_sort_buffer changed the keys";
    else if (s != GPGPU_SUCCESS && done != NULL)
        *why = "a failed gpgpu_sort_buffer handed out an event";
    if (s == GPGPU_SUCCESS && !*why) {
        sort_u32(k, n);
        for (size_t i = 0; i < n && !*why; i++)
            if (back[i] != k[n - 1 - i])
                *why = "gpgpu_sort_buffer did not sort descending";
    }
    if (s == GPGPU_SUCCESS && done)
        clReleaseEvent(done);
    clReleaseMemObject(keys);
    free(k);
    free(back);
    return s;
}

/* A user operator defined (again each round: the same id) and used. */
static gpgpu_status call_op_define(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), r = 0, want = 0;
    gpgpu_op op = -7;
    gpgpu_status s = gpgpu_op_define(env->ctx, GPGPU_U32, "a ^ b", "0", &op);
    if (s != GPGPU_SUCCESS) {
        if (op != -7)
            *why = "a failed gpgpu_op_define changed *op";
        free(x);
        return s;
    }
    for (size_t i = 0; i < n; i++)
        want ^= x[i];
    s = gpgpu_reduce(env->ctx, GPGPU_U32, op, x, n, &r);
    if (s == GPGPU_SUCCESS && r != want)
        *why = "a reduce with a user operator gave a wrong result";
    free(x);
    return s;
}

static gpgpu_status call_transform_reduce(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x), r = 0, want = 0;
    memcpy(copy, x, n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        want += x[i] & 0xff;
    gpgpu_status s = gpgpu_transform_reduce(env->ctx, GPGPU_U32, "x & 0xff", GPGPU_SUM, x, n, &r);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_transform_reduce changed its input";
    else if (s == GPGPU_SUCCESS && r != want)
        *why = "gpgpu_transform_reduce gave a wrong sum";
    free(x);
    free(copy);
    return s;
}

static gpgpu_status call_select(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint32_t *out = child_alloc(n * sizeof *x);
    size_t count = 0, m = 0;
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_select(env->ctx, GPGPU_U32, "x % 3 == 0", x, n, out, &count);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_select changed its input";
    for (size_t i = 0; s == GPGPU_SUCCESS && !*why && i < n; i++)
        if (x[i] % 3 == 0 && (m >= count || out[m++] != x[i]))
            *why = "gpgpu_select kept the wrong elements";
    if (s == GPGPU_SUCCESS && !*why && m != count)
        *why = "gpgpu_select gave a wrong count";
    free(x);
    free(copy);
    free(out);
    return s;
}

/* Whether array a (n u32) still holds want; reads it back. */
static int array_holds(child_env *env, const gpgpu_array *a, const uint32_t *want, size_t n)
{
    uint32_t *back = child_alloc(n * sizeof *back);
    int same = gpgpu_array_read(env->ctx, a, 0, back, n) == GPGPU_SUCCESS &&
               !memcmp(back, want, n * sizeof *back);
    free(back);
    return same;
}

/* Device arrays: a chain of calls, each of which may be the one that
   fails; the failing call leaves its input arrays as they were. Values
   are a copy of the keys, so sorted pairs are two sorted copies. */
static gpgpu_status call_array_chain(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *k = input_u32(n, round), *pre = child_alloc(n * sizeof *k), sum = 0, got = 0;
    uint64_t bins[10], want[10] = {0};
    gpgpu_array *ka = NULL, *va = NULL;
    gpgpu_set_profiling(env->ctx, round == 1);
    gpgpu_status s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &ka);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &va);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(env->ctx, ka, 0, k, n);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(env->ctx, va, 0, k, n);
    if (s == GPGPU_SUCCESS) {
        s = gpgpu_sort_pairs_array(env->ctx, ka, va, 0);
        if (s != GPGPU_SUCCESS && !(array_holds(env, ka, k, n) && array_holds(env, va, k, n)))
            *why = "a failed gpgpu_sort_pairs_array changed its arrays";
    }
    sort_u32(k, n);
    for (size_t i = 0; i < n; i++) {
        pre[i] = sum += k[i];
        want[(uint64_t)k[i] * 10 >> 32]++;
    }
    if (s == GPGPU_SUCCESS) {
        s = gpgpu_scan_array(env->ctx, GPGPU_SUM, GPGPU_INCLUSIVE, va, va);
        if (s != GPGPU_SUCCESS && !array_holds(env, va, k, n))
            *why = "a failed in-place gpgpu_scan_array changed its array";
    }
    if (s == GPGPU_SUCCESS && (s = gpgpu_reduce_array(env->ctx, GPGPU_SUM, ka, &got)) ==
                                  GPGPU_SUCCESS && got != sum)
        *why = "gpgpu_reduce_array gave a wrong sum";
    if (s == GPGPU_SUCCESS &&
        (s = gpgpu_histogram_array(env->ctx, ka, 10, 0, 4294967296.0, bins)) == GPGPU_SUCCESS &&
        memcmp(bins, want, sizeof want))
        *why = "gpgpu_histogram_array gave wrong bins";
    if (s == GPGPU_SUCCESS && !*why) {
        uint32_t *back = child_alloc(n * sizeof *back);
        s = gpgpu_array_read(env->ctx, va, 0, back, n);
        if (s == GPGPU_SUCCESS && memcmp(back, pre, n * sizeof *back))
            *why = "the chain of array calls gave a wrong result";
        free(back);
    }
    gpgpu_profile(env->ctx, NULL);
    gpgpu_array_destroy(ka);
    gpgpu_array_destroy(va);
    free(k);
    free(pre);
    return s;
}

/* Select and transform_reduce on arrays (one round: their device paths
   are the select and transform_reduce scenarios'); select never writes
   its input. */
static gpgpu_status call_array_select(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), sq = 0, got = 0;
    size_t kept = 0, count = 0;
    gpgpu_array *in = NULL, *out = NULL;
    for (size_t i = 0; i < n; i++) {
        sq += x[i] * x[i];
        kept += x[i] % 2 == 0;
    }
    gpgpu_status s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &in);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &out);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(env->ctx, in, 0, x, n);
    if (s == GPGPU_SUCCESS) {
        s = gpgpu_select_array(env->ctx, "x % 2 == 0", in, out, &count);
        if (s != GPGPU_SUCCESS && !array_holds(env, in, x, n))
            *why = "a failed gpgpu_select_array changed its input";
        else if (s == GPGPU_SUCCESS && count != kept)
            *why = "gpgpu_select_array kept a wrong count";
    }
    if (s == GPGPU_SUCCESS &&
        (s = gpgpu_transform_reduce_array(env->ctx, "x * x", GPGPU_SUM, in, &got)) ==
            GPGPU_SUCCESS && got != sq)
        *why = "gpgpu_transform_reduce_array gave a wrong sum";
    gpgpu_array_destroy(in);
    gpgpu_array_destroy(out);
    free(x);
    return s;
}

/* The segmented, by-key and compaction calls on arrays, and exact partial
   sums: each may be the one that fails, and leaves its inputs as they were;
   a success must be right (runs of keys i / 37, segments of 37). */
static gpgpu_status call_array_ops(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round], runs = (n + 36) / 37;
    uint32_t *x = input_u32(n, round), *k = child_alloc(n * sizeof *k), got[2] = {0, 0};
    uint64_t *off = child_alloc((runs + 1) * sizeof *off);
    double *d = child_alloc(n * sizeof *d), want = 0, r = -1;
    size_t count = 0;
    gpgpu_array *kin = NULL, *vin = NULL, *offs = NULL, *kout = NULL, *vout = NULL;
    gpgpu_array *lens = NULL;
    for (size_t i = 0; i < n; i++) {
        k[i] = (uint32_t)(i / 37);
        want += d[i] = (double)(x[i] >> 8);
    }
    for (size_t g = 0; g <= runs; g++)
        off[g] = g * 37 < n ? g * 37 : n;
    gpgpu_status s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &kin);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &vin);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U64, runs + 1, &offs);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &kout);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U32, n, &vout);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(env->ctx, GPGPU_U64, n, &lens);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(env->ctx, kin, 0, k, n);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(env->ctx, vin, 0, x, n);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(env->ctx, offs, 0, off, runs + 1);
    const int written = s == GPGPU_SUCCESS; /* kin holds k from here on */
    if (s == GPGPU_SUCCESS &&
        (s = gpgpu_segmented_reduce_array(env->ctx, GPGPU_SUM, vin, offs, vout)) ==
            GPGPU_SUCCESS &&
        (s = gpgpu_array_read(env->ctx, vout, 0, got, 1)) == GPGPU_SUCCESS &&
        got[0] != sum_u32(x, n < 37 ? n : 37))
        *why = "gpgpu_segmented_reduce_array gave a wrong sum";
    if (s == GPGPU_SUCCESS && !*why &&
        (s = gpgpu_reduce_by_key_array(env->ctx, GPGPU_SUM, kin, vin, kout, vout, &count)) ==
            GPGPU_SUCCESS && count != runs)
        *why = "gpgpu_reduce_by_key_array gave a wrong count";
    if (s == GPGPU_SUCCESS && !*why &&
        (s = gpgpu_run_length_encode_array(env->ctx, kin, kout, lens, &count)) ==
            GPGPU_SUCCESS && count != runs)
        *why = "gpgpu_run_length_encode_array gave a wrong count";
    if (s == GPGPU_SUCCESS && !*why &&
        (s = gpgpu_scan_by_key_array(env->ctx, GPGPU_SUM, GPGPU_INCLUSIVE, kin, vin, vin)) ==
            GPGPU_SUCCESS && (s = gpgpu_array_read(env->ctx, vin, 0, got, 2)) == GPGPU_SUCCESS &&
        n > 1 && got[1] != x[0] + x[1])
        *why = "gpgpu_scan_by_key_array in place gave a wrong prefix";
    if (s != GPGPU_SUCCESS && !*why && written && !array_holds(env, kin, k, n))
        *why = "a failed array call changed its keys";
    if (s == GPGPU_SUCCESS && !*why) {
        gpgpu_exact_partial p;
        s = gpgpu_exact_partial_sum(env->ctx, GPGPU_F64, d, n, &p);
        if (s == GPGPU_SUCCESS)
            s = gpgpu_exact_partial_round(&p, &r);
        if (s == GPGPU_SUCCESS && r != want)
            *why = "gpgpu_exact_partial_sum gave a wrong sum";
    }
    gpgpu_array_destroy(kin);
    gpgpu_array_destroy(vin);
    gpgpu_array_destroy(offs);
    gpgpu_array_destroy(kout);
    gpgpu_array_destroy(vout);
    gpgpu_array_destroy(lens);
    free(x);
    free(k);
    free(off);
    free(d);
    return s;
}

/* Segments of 0 .. 199 elements over the input (some empty); runs of keys
   i / 37 for the by-key calls. In-place scans must leave the input as it
   was on failure. */
static size_t segments_of(size_t n, size_t *off)
{
    size_t k = 0;
    off[0] = 0;
    while (off[k] < n) {
        size_t len = (k * 7919) % 200;
        off[k + 1] = off[k] + (len < n - off[k] ? len : n - off[k]);
        k++;
    }
    return k;
}

static gpgpu_status call_segmented(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint32_t *out = child_alloc(n * sizeof *x);
    size_t *off = child_alloc((n + 2) * sizeof *off), nseg = segments_of(n, off);
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_segmented_reduce(env->ctx, GPGPU_U32, GPGPU_SUM, x, off, nseg, out);
    for (size_t g = 0; s == GPGPU_SUCCESS && !*why && g < nseg; g++)
        if (out[g] != sum_u32(x + off[g], off[g + 1] - off[g]))
            *why = "gpgpu_segmented_reduce gave a wrong sum";
    if (s == GPGPU_SUCCESS && !*why)
        s = gpgpu_segmented_scan(env->ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, x, off,
                                 nseg);
    if (s != GPGPU_SUCCESS && memcmp(x, copy, n * sizeof *x))
        *why = "a failed segmented call changed its input";
    for (size_t g = 0; s == GPGPU_SUCCESS && !*why && g < nseg; g++)
        for (size_t i = off[g], acc = 0; i < off[g + 1]; i++)
            if (x[i] != (uint32_t)(acc += copy[i]))
                *why = "gpgpu_segmented_scan in place gave a wrong prefix";
    free(x);
    free(copy);
    free(out);
    free(off);
    return s;
}

static gpgpu_status call_reduce_index(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), v = 0;
    size_t idx = 7, best = 0;
    gpgpu_status s = gpgpu_reduce_index(env->ctx, GPGPU_U32, GPGPU_MAX, x, n, &v, &idx);
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[best])
            best = i;
    if (s == GPGPU_SUCCESS && (idx != best || v != x[best]))
        *why = "gpgpu_reduce_index gave a wrong index";
    free(x);
    return s;
}

static gpgpu_status call_by_key(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *keys = child_alloc(n * sizeof *x);
    uint32_t *kout = child_alloc(n * sizeof *x), *vout = child_alloc(n * sizeof *x);
    size_t runs = 12345, want = (n + 36) / 37;
    for (size_t i = 0; i < n; i++)
        keys[i] = (uint32_t)(i / 37);
    gpgpu_status s = gpgpu_reduce_by_key(env->ctx, GPGPU_U32, keys, GPGPU_U32, GPGPU_SUM, x, n,
                                         kout, vout, &runs);
    if (s != GPGPU_SUCCESS && runs != 12345)
        *why = "a failed gpgpu_reduce_by_key changed *nruns";
    else if (s == GPGPU_SUCCESS && (runs != want || kout[want - 1] != want - 1 ||
                                    vout[0] != sum_u32(x, 37)))
        *why = "gpgpu_reduce_by_key gave wrong runs";
    if (s == GPGPU_SUCCESS && !*why)
        s = gpgpu_scan_by_key(env->ctx, GPGPU_U32, keys, GPGPU_U32, GPGPU_SUM, GPGPU_EXCLUSIVE,
                              x, vout, n);
    if (s == GPGPU_SUCCESS && !*why && (vout[0] != 0 || vout[37] != 0 || vout[1] != x[0]))
        *why = "gpgpu_scan_by_key gave a wrong prefix";
    free(x);
    free(keys);
    free(kout);
    free(vout);
    return s;
}

/* The segmented calls on the caller's buffers. */
static gpgpu_status call_segmented_buffer(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *back = child_alloc(n * sizeof *x);
    size_t *off = child_alloc((n + 2) * sizeof *off), nseg = segments_of(n, off);
    cl_ulong *o64 = child_alloc((nseg + 1) * sizeof *o64);
    for (size_t g = 0; g <= nseg; g++)
        o64[g] = off[g];
    cl_int err;
    cl_mem in = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               n * sizeof *x, x, &err);
    cl_mem ob = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               (nseg + 1) * sizeof *o64, o64, &err);
    cl_mem out = clCreateBuffer(env->cl, CL_MEM_READ_WRITE, n * sizeof *x, NULL, &err);
    CHILD_ASSERT(in && ob && out);
    cl_event done = (cl_event)&done;
    gpgpu_status s = gpgpu_segmented_reduce_buffer(env->ctx, GPGPU_U32, GPGPU_SUM, in, 0, ob, 0,
                                                   nseg, out, 0, 0, NULL, &done);
    if (s != GPGPU_SUCCESS && done != NULL)
        *why = "a failed gpgpu_segmented_reduce_buffer handed out an event";
    if (s == GPGPU_SUCCESS) {
        clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, nseg * sizeof *x, back, 1, &done,
                            NULL);
        clReleaseEvent(done);
        for (size_t g = 0; !*why && g < nseg; g++)
            if (back[g] != sum_u32(x + off[g], off[g + 1] - off[g]))
                *why = "gpgpu_segmented_reduce_buffer gave a wrong sum";
    }
    if (s == GPGPU_SUCCESS && !*why) {
        cl_ulong idx = 0;
        s = gpgpu_reduce_index_buffer(env->ctx, GPGPU_U32, GPGPU_MIN, in, 0, n, out, 0, ob, 0,
                                      0, NULL, NULL);
        clFinish(env->queue);
        if (s == GPGPU_SUCCESS) {
            clEnqueueReadBuffer(env->queue, ob, CL_TRUE, 0, sizeof idx, &idx, 0, NULL, NULL);
            for (size_t i = 0; i < n; i++)
                if (x[i] < x[idx])
                    *why = "gpgpu_reduce_index_buffer gave a wrong index";
        }
    }
    if (s == GPGPU_SUCCESS && !*why) {
        /* Keys i / 37 in the offsets buffer (as u32), runs of 37. */
        cl_ulong runs = 0;
        for (size_t i = 0; i < n; i++)
            back[i] = (uint32_t)(i / 37);
        cl_mem keys = clCreateBuffer(env->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                     n * sizeof *x, back, &err);
        cl_mem kout = clCreateBuffer(env->cl, CL_MEM_READ_WRITE, n * sizeof *x, NULL, &err);
        CHILD_ASSERT(keys && kout);
        s = gpgpu_reduce_by_key_buffer(env->ctx, GPGPU_U32, keys, 0, GPGPU_U32, GPGPU_SUM, in, 0,
                                       n, kout, 0, out, 0, ob, 0, 0, NULL, NULL);
        clFinish(env->queue);
        if (s == GPGPU_SUCCESS) {
            clEnqueueReadBuffer(env->queue, ob, CL_TRUE, 0, sizeof runs, &runs, 0, NULL, NULL);
            clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof *x, back, 0, NULL, NULL);
            if (runs != (n + 36) / 37 || back[0] != sum_u32(x, 37))
                *why = "gpgpu_reduce_by_key_buffer gave wrong runs";
        }
        clReleaseMemObject(keys);
        clReleaseMemObject(kout);
    }
    clFinish(env->queue);
    clReleaseMemObject(in);
    clReleaseMemObject(ob);
    clReleaseMemObject(out);
    free(x);
    free(back);
    free(off);
    free(o64);
    return s;
}

#define STAGED "GPGPU_ZERO_COPY=0 GPGPU_HOST_READS=0 GPGPU_STAGE_BYTES=65536 GPGPU_STAGE_MIN=4096"

/* Unique plus run lengths: values, lengths and the heads scratch. */
static gpgpu_status call_run_length_encode(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint32_t *v = child_alloc(n * sizeof *x);
    uint64_t *len = child_alloc(n * sizeof *len);
    size_t runs = 0, r = 0;
    for (size_t i = 0; i < n; i++)
        x[i] %= 3; /* runs */
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_run_length_encode(env->ctx, GPGPU_U32, x, n, v, len, &runs);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_run_length_encode changed its input";
    for (size_t i = 0; s == GPGPU_SUCCESS && !*why && i < n; i += len[r++])
        if (r >= runs || v[r] != x[i] || len[r] == 0 || i + len[r] > n)
            *why = "gpgpu_run_length_encode gave wrong runs";
    if (s == GPGPU_SUCCESS && !*why && r != runs)
        *why = "gpgpu_run_length_encode gave a wrong count";
    free(x);
    free(copy);
    free(v);
    free(len);
    return s;
}

static gpgpu_status call_partition(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint32_t *out = child_alloc(n * sizeof *x);
    size_t count = 0, yes = 0, no = 0;
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_partition(env->ctx, GPGPU_U32, "x % 3 == 0", x, n, out, &count);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_partition changed its input";
    for (size_t i = 0; s == GPGPU_SUCCESS && !*why && i < n; i++)
        if (count > n || out[x[i] % 3 == 0 ? yes++ : count + no++] != x[i])
            *why = "gpgpu_partition put an element in the wrong place";
    free(x);
    free(copy);
    free(out);
    return s;
}

static gpgpu_status call_histogram_edges(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    const double edges[] = {0, 1e9, 1.5e9 + 0.5, 4e9};
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint64_t bins[3] = {0, 0, 0}, want[3] = {0, 0, 0};
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_histogram_edges(env->ctx, GPGPU_U32, x, n, edges, 3, bins);
    for (size_t i = 0; i < n; i++)
        if (x[i] <= 4000000000u)
            want[x[i] < 1000000000u ? 0 : x[i] <= 1500000000u ? 1 : 2]++;
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_histogram_edges changed its input";
    else if (s == GPGPU_SUCCESS && memcmp(bins, want, sizeof bins))
        *why = "gpgpu_histogram_edges gave wrong bins";
    free(x);
    free(copy);
    return s;
}

/* u32 samples in [0, 1000) as (x, y) = (x[i], x[n - 1 - i]) over 10 x 4
   cells, weights 1.5 (exact sums): bins stay as they were on failure. */
static gpgpu_status call_histogram2d(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *y = child_alloc(n * sizeof *y);
    uint32_t *copy = child_alloc(n * sizeof *x);
    float *w = child_alloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++)
        x[i] %= 1000;
    for (size_t i = 0; i < n; i++) {
        y[i] = x[n - 1 - i];
        w[i] = 1.5f;
    }
    memcpy(copy, x, n * sizeof *x);
    uint64_t counts[40], want[40] = { 0 };
    double sums[40];
    memset(counts, 0x5a, sizeof counts);
    memset(sums, 0x5a, sizeof sums);
    for (size_t i = 0; i < n; i++)
        want[x[i] / 100 * 4 + y[i] / 250]++;
    gpgpu_status s = gpgpu_histogram2d(env->ctx, GPGPU_U32, x, y, n, 10, 0, 1000, 4, 0, 1000,
                                       counts);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_histogram2d_weighted(env->ctx, GPGPU_U32, x, y, GPGPU_F32, w, n, 10, 0, 1000,
                                       4, 0, 1000, sums);
    int sums_ok = 1, sums_kept = 1;
    for (int i = 0; i < 40; i++) {
        sums_ok &= sums[i] == 1.5 * (double)want[i];
        sums_kept &= memcmp(&sums[i], "\x5a\x5a\x5a\x5a\x5a\x5a\x5a\x5a", 8) == 0;
    }
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_histogram2d changed its input";
    else if (s == GPGPU_SUCCESS && (memcmp(counts, want, sizeof want) || !sums_ok))
        *why = "gpgpu_histogram2d(_weighted) gave wrong bins";
    else if (s != GPGPU_SUCCESS && !sums_kept)
        *why = "a failed gpgpu_histogram2d_weighted changed its bins";
    free(x);
    free(y);
    free(copy);
    free(w);
    return s;
}

/* The 7 largest (all of them on the host's heap, or the device's heaps or
   radix select) and the median of u32 input with ties. */
static gpgpu_status call_top_k(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *sorted = child_alloc(n * sizeof *x), v[7];
    uint64_t ix[7];
    for (size_t i = 0; i < n; i++)
        x[i] >>= 20; /* ties */
    memcpy(sorted, x, n * sizeof *x);
    sort_u32(sorted, n);
    gpgpu_status s = gpgpu_top_k(env->ctx, GPGPU_U32, x, n, 7, GPGPU_DESCENDING, v, ix);
    for (size_t i = 0; s == GPGPU_SUCCESS && !*why && i < 7; i++)
        if (v[i] != sorted[n - 1 - i] || ix[i] >= n || x[ix[i]] != v[i] ||
            (i > 0 && v[i] == v[i - 1] && ix[i] <= ix[i - 1]))
            *why = "gpgpu_top_k gave a wrong element or index";
    free(x);
    free(sorted);
    return s;
}

static gpgpu_status call_quantiles(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *sorted = child_alloc(n * sizeof *x);
    double q = 0.5, got = -1;
    memcpy(sorted, x, n * sizeof *x);
    sort_u32(sorted, n);
    gpgpu_status s = gpgpu_quantiles(env->ctx, GPGPU_U32, x, n, &q, 1, &got);
    double lo = sorted[(n - 1) / 2], hi = sorted[n / 2];
    volatile double d = hi - lo, e = 0.5 * d;
    if (s == GPGPU_SUCCESS && got != (n % 2 ? lo : lo + e))
        *why = "gpgpu_quantiles gave a wrong median";
    free(x);
    free(sorted);
    return s;
}

/* Integers as doubles: the exact sum is the integer sum. */
static gpgpu_status call_sum_exact(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round);
    double *d = child_alloc(n * sizeof *d), r = -1, want = 0;
    for (size_t i = 0; i < n; i++)
        want += d[i] = (double)(x[i] >> 8);
    gpgpu_status s = gpgpu_reduce(env->ctx, GPGPU_F64, GPGPU_SUM_EXACT, d, n, &r);
    if (s == GPGPU_SUCCESS && r != want)
        *why = "GPGPU_SUM_EXACT gave a wrong sum";
    free(x);
    free(d);
    return s;
}

/* search_sorted of the input in itself sorted (LEFT: each element's
   first place), argsort of the input, gather of it by the argsort's
   indices: the sorted input. Each leaves its inputs as they were. */
static gpgpu_status call_search_sorted(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *sorted = child_alloc(n * sizeof *x);
    uint64_t *pos = child_alloc(n * sizeof *pos);
    for (size_t i = 0; i < n; i++)
        sorted[i] = (uint32_t)(i * 7);
    gpgpu_status s = gpgpu_search_sorted(env->ctx, GPGPU_U32, sorted, n, x, n,
                                         GPGPU_SEARCH_LEFT, pos);
    for (size_t j = 0; s == GPGPU_SUCCESS && !*why && j < n; j++) {
        uint64_t want = x[j] > (n - 1) * 7 ? n : (x[j] + 6) / 7;
        if (pos[j] != want)
            *why = "gpgpu_search_sorted gave a wrong position";
    }
    for (size_t i = 0; i < n && !*why; i++)
        if (sorted[i] != (uint32_t)(i * 7))
            *why = "gpgpu_search_sorted changed its input";
    free(x);
    free(sorted);
    free(pos);
    return s;
}

static gpgpu_status call_argsort(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *copy = child_alloc(n * sizeof *x);
    uint64_t *idx = child_alloc(n * sizeof *idx);
    memcpy(copy, x, n * sizeof *x);
    gpgpu_status s = gpgpu_argsort(env->ctx, GPGPU_U32, x, n, GPGPU_ASCENDING, idx);
    if (memcmp(x, copy, n * sizeof *x))
        *why = "gpgpu_argsort changed its input";
    for (size_t i = 1; s == GPGPU_SUCCESS && !*why && i < n; i++)
        if (idx[i] >= n || x[idx[i - 1]] > x[idx[i]] ||
            (x[idx[i - 1]] == x[idx[i]] && idx[i - 1] >= idx[i]))
            *why = "gpgpu_argsort gave a wrong order";
    free(x);
    free(copy);
    free(idx);
    return s;
}

static gpgpu_status call_gather(child_env *env, int round, const char **why)
{
    const size_t n = round_n[round];
    uint32_t *x = input_u32(n, round), *out = child_alloc(n * sizeof *x);
    uint64_t *idx = child_alloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++) {
        idx[i] = (i * 7919) % n;
        out[i] = 7;
    }
    gpgpu_status s = gpgpu_gather(env->ctx, 4, x, n, idx, n, out);
    for (size_t i = 0; !*why && i < n; i++)
        if (s == GPGPU_SUCCESS ? out[i] != x[idx[i]] : out[i] != 7)
            *why = s == GPGPU_SUCCESS ? "gpgpu_gather gave a wrong element"
                                      : "a failed gpgpu_gather wrote out";
    free(x);
    free(out);
    free(idx);
    return s;
}

static const scenario scenarios[] = {
    {"context_create", call_context_create, 0, 1, 1, NULL},
    {"reduce", call_reduce, 0, 0, ROUNDS, NULL},
    {"reduce_buffer", call_reduce_buffer, 1, 0, ROUNDS, NULL},
    {"histogram", call_histogram, 0, 0, ROUNDS, NULL},
    {"histogram_buffer", call_histogram_buffer, 1, 0, ROUNDS, NULL},
    {"histogram_rgba8", call_histogram_rgba8, 0, 0, ROUNDS, NULL},
    {"scan", call_scan, 0, 0, ROUNDS, NULL},
    {"scan_in_place", call_scan_in_place, 0, 0, ROUNDS, NULL},
    {"scan_buffer", call_scan_buffer, 1, 0, ROUNDS, NULL},
    {"sort", call_sort, 0, 0, ROUNDS, NULL},
    {"sort_pairs", call_sort_pairs, 0, 0, ROUNDS, NULL},
    {"sort_buffer", call_sort_buffer, 1, 0, ROUNDS, NULL},
    {"op_define", call_op_define, 1, 0, ROUNDS, NULL},
    {"transform_reduce", call_transform_reduce, 1, 0, ROUNDS, NULL},
    {"select", call_select, 1, 0, ROUNDS, NULL},
    /* The routes of discrete GPUs (staging ring, pinned memory), forced on
       any device: arrays cross several 64 KiB slots. */
    {"reduce_staged", call_reduce, 1, 0, ROUNDS, STAGED},
    {"scan_in_place_staged", call_scan_in_place, 1, 0, ROUNDS, STAGED},
    {"sort_pairs_staged", call_sort_pairs, 1, 0, ROUNDS, STAGED},
    {"sort_pairs_pinned", call_sort_pairs_pinned, 1, 0, ROUNDS, STAGED},
    {"sort_pairs_host_alloc", call_sort_pairs_pinned, 0, 0, ROUNDS, NULL},
    {"array_chain", call_array_chain, 0, 0, ROUNDS, NULL},
    {"array_select", call_array_select, 1, 0, 1, NULL},
    {"run_length_encode", call_run_length_encode, 0, 0, ROUNDS, NULL},
    {"partition", call_partition, 1, 0, ROUNDS, NULL},
    {"histogram_edges", call_histogram_edges, 0, 0, ROUNDS, NULL},
    {"histogram2d", call_histogram2d, 0, 0, ROUNDS, NULL},
    {"top_k", call_top_k, 0, 0, ROUNDS, NULL},
    {"quantiles", call_quantiles, 0, 0, ROUNDS, NULL},
    {"sum_exact", call_sum_exact, 0, 0, ROUNDS, NULL},
    {"segmented", call_segmented, 0, 0, ROUNDS, NULL},
    {"reduce_index", call_reduce_index, 0, 0, ROUNDS, NULL},
    {"by_key", call_by_key, 0, 0, ROUNDS, NULL},
    {"array_ops", call_array_ops, 0, 0, 1, NULL},
    {"segmented_buffer", call_segmented_buffer, 1, 0, ROUNDS, NULL},
    {"search_sorted", call_search_sorted, 0, 0, ROUNDS, NULL},
    {"argsort", call_argsort, 0, 0, ROUNDS, NULL},
    {"gather", call_gather, 0, 0, ROUNDS, NULL},
    {"search_sorted_staged", call_search_sorted, 1, 0, ROUNDS, STAGED},
    {"argsort_staged", call_argsort, 1, 0, ROUNDS, STAGED},
    {"gather_staged", call_gather, 1, 0, ROUNDS, STAGED},
};
enum { NSCENARIOS = sizeof scenarios / sizeof scenarios[0] };

static cl_uint refcount_context(cl_context c)
{
    cl_uint r = 0;
    clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof r, &r, NULL);
    return r;
}

static cl_uint refcount_queue(cl_command_queue q)
{
    cl_uint r = 0;
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof r, &r, NULL);
    return r;
}

/* The caller's own context and queue on device "P:D" (no injection point
   is passed: these are the test's OpenCL calls). */
static void open_caller_queue(child_env *env)
{
    unsigned p, d;
    cl_platform_id platforms[16];
    cl_device_id devices[64];
    cl_uint np = 0, nd = 0;
    cl_int err;
    CHILD_ASSERT(sscanf(env->spec, "%u:%u", &p, &d) == 2);
    CHILD_ASSERT(clGetPlatformIDs(16, platforms, &np) == CL_SUCCESS && p < np);
    CHILD_ASSERT(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd) ==
                     CL_SUCCESS && d < nd);
    env->cl = clCreateContext(NULL, 1, &devices[d], NULL, NULL, &err);
    CHILD_ASSERT(env->cl);
    env->queue = clCreateCommandQueue(env->cl, devices[d], CL_QUEUE_PROFILING_ENABLE, &err);
    CHILD_ASSERT(env->queue);
}

/* Opens the context under test; 0 if that failed cleanly. */
static int open_context(const scenario *sc, child_env *env)
{
    gpgpu_status s = env->queue ? gpgpu_context_from_queue(&env->ctx, env->queue)
                                : gpgpu_context_create(&env->ctx, env->spec);
    if (s == GPGPU_SUCCESS)
        return 1;
    if (env->ctx)
        die("%s", "a failed context creation left *ctx set");
    if (!*gpgpu_last_error(NULL))
        die("%s", "a failed context creation left no message");
    return 0;
}

/* Runs the rounds; returns whether some call failed (cleanly). */
static int run_rounds(const scenario *sc, child_env *env)
{
    int failed = 0;
    for (int round = 0; round < sc->rounds; round++) {
        const char *why = NULL;
        gpgpu_status s = sc->call(env, round, &why);
        if (why)
            die("%s", why);
        if (s == GPGPU_SUCCESS)
            continue;
        failed = 1;
        if (!sc->own_context && !*gpgpu_last_error(env->ctx))
            die("failed with %s and no message", gpgpu_status_string(s));
        s = sc->call(env, round, &why);
        if (why || s != GPGPU_SUCCESS)
            die("the context does not work after a failure: %s",
                why ? why : gpgpu_last_error(env->ctx));
    }
    return failed;
}

static int child(const char *name, const char *spec)
{
    const scenario *sc = NULL;
    for (int i = 0; i < NSCENARIOS; i++)
        if (!strcmp(scenarios[i].name, name))
            sc = &scenarios[i];
    if (!sc)
        return 2;
    child_scenario = name;
    child_env env = {NULL, NULL, NULL, spec};
    char words[256];
    snprintf(words, sizeof words, "%s", sc->env ? sc->env : "");
    for (char *w = strtok(words, " "); w; w = strtok(NULL, " ")) {
        char *eq = strchr(w, '=');
        CHILD_ASSERT(eq != NULL);
        *eq = '\0';
        setenv(w, eq + 1, 1);
    }
    cl_uint base_c = 0, base_q = 0;
    if (strcmp(spec, "host")) {
        open_caller_queue(&env);
        base_c = refcount_context(env.cl);
        base_q = refcount_queue(env.queue);
    }
    int failed = !open_context(sc, &env);
    if (!failed) {
        failed = run_rounds(sc, &env);
        gpgpu_context_destroy(env.ctx);
    }
    if (env.queue) {
        char counts[128];
        /* PoCL drops its own references to finished commands' events on
           its worker threads, a moment after clFinish: a leak is a count
           that stays up, not one that is up for a millisecond. */
        for (int i = 0; i < 2000 && (refcount_context(env.cl) != base_c ||
                                     refcount_queue(env.queue) != base_q); i++)
            usleep(1000);
        snprintf(counts, sizeof counts, "context %u -> %u, queue %u -> %u", base_c,
                 refcount_context(env.cl), base_q, refcount_queue(env.queue));
        if (refcount_context(env.cl) != base_c || refcount_queue(env.queue) != base_q)
            die("OpenCL objects were left behind (reference counts: %s)", counts);
        clReleaseCommandQueue(env.queue);
        clReleaseContext(env.cl);
    }
    return failed ? CHILD_FAILED_CLEANLY : CHILD_NO_FAILURE;
}

/* ---- the parent ---------------------------------------------------------- */

/* "P:D" of tu_ctx's device, or "host". */
static void device_spec(char *out, size_t size)
{
    cl_command_queue q = gpgpu_queue(tu_ctx);
    cl_device_id dev = NULL;
    cl_platform_id platforms[16];
    cl_uint np = 0;
    snprintf(out, size, "host");
    if (!q)
        return;
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
    clGetPlatformIDs(16, platforms, &np);
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[64];
        cl_uint nd = 0;
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devices, &nd);
        for (cl_uint d = 0; d < nd && d < 64; d++)
            if (devices[d] == dev)
                snprintf(out, size, "%u:%u", p, d);
    }
}

/* ---- the zygote: the process the children are forked from --------------

   Most of a fresh child's fixed cost was loading the OpenCL driver: PoCL's
   dlopen relocates LLVM and clang (about 22 ms of a 65-120 ms child). The
   zygote is one fresh process (posix_spawn, the children's environment
   without GPGPU_FAULT_*) that loads the ICD libraries and nothing else:
   no OpenCL call, no call into the library, no thread. Each child is a
   fork of it, sets its GPGPU_FAULT_* variable and runs child(), so it
   starts as a fresh process would (the library's fault counter, PoCL's
   platform and the gpgpu context all start in the child) with the
   libraries already mapped. The parent sends one request at a time on a
   pipe and reads the child's wait status back. */

typedef struct {
    long k;              /* 0: counting run (GPGPU_FAULT_COUNT=1) */
    char name[64];       /* scenario */
    char spec[64];       /* "P:D" or "host" */
    char log[4200];      /* stderr to this file, or "" */
} zygote_request;

static int zygote_to = -1, zygote_from = -1; /* the parent's ends */
static pid_t zygote_pid;

/* Loads each library named by an ICD file in OCL_ICD_VENDORS (a
   directory) or /etc/OpenCL/vendors, as ocl-icd does before it calls
   into them; a library that fails to load is left to the child's loader. */
static void preload_icds(void)
{
    const char *dir = getenv("OCL_ICD_VENDORS");
    if (!dir || !*dir)
        dir = "/etc/OpenCL/vendors";
    DIR *d = opendir(dir);
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
        size_t len = strlen(e->d_name);
        char path[4200], lib[4096];
        if (len < 4 || strcmp(e->d_name + len - 4, ".icd"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(lib, sizeof lib, f)) {
            lib[strcspn(lib, "\r\n")] = '\0';
            if (*lib)
                dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        }
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
}

static int read_all(int fd, void *buf, size_t size)
{
    for (size_t got = 0; got < size;) {
        ssize_t r = read(fd, (char *)buf + got, size - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t size)
{
    for (size_t put = 0; put < size;) {
        ssize_t r = write(fd, (const char *)buf + put, size - put);
        if (r <= 0)
            return -1;
        put += (size_t)r;
    }
    return 0;
}

/* The zygote's loop ("self zygote IN OUT"): a request in, a fork, the
   child's wait status out; ends when the parent closes its end. */
static int zygote(int in, int out)
{
    preload_icds();
    zygote_request rq;
    while (read_all(in, &rq, sizeof rq) == 0) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(in);
            close(out);
            if (*rq.log) {
                int fd = open(rq.log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
                if (fd < 0 || dup2(fd, 2) < 0)
                    _exit(99);
                close(fd);
            }
            char at[64];
            if (rq.k)
                snprintf(at, sizeof at, "%ld", rq.k);
            setenv(rq.k ? "GPGPU_FAULT_AT" : "GPGPU_FAULT_COUNT", rq.k ? at : "1", 1);
            exit(child(rq.name, rq.spec)); /* exit: atexit handlers and leak checks run */
        }
        int status = -1;
        if (pid < 0 || waitpid(pid, &status, 0) != pid)
            status = -1;
        if (write_all(out, &status, sizeof status))
            break;
    }
    return 0;
}

/* Starts the zygote with the children's environment: the parent's, less
   GPGPU_FAULT_*, and GPGPU_CACHE=0 (a disk cache hit skips points that a
   miss passes: without it every child passes the same points as the
   counting run). */
static void zygote_start(void)
{
    char self[4096], fds[2][16];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert(len > 0);
    self[len] = '\0';
    int to[2], from[2];
    ck_assert(pipe(to) == 0 && pipe(from) == 0);
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    char **env = tu_alloc((nenv + 2) * sizeof *env);
    size_t m = 0;
    for (size_t i = 0; i < nenv; i++)
        if (strncmp(environ[i], "GPGPU_FAULT_", 12) && strncmp(environ[i], "GPGPU_CACHE=", 12))
            env[m++] = environ[i];
    env[m++] = "GPGPU_CACHE=0";
    env[m] = NULL;
    snprintf(fds[0], sizeof fds[0], "%d", to[0]);
    snprintf(fds[1], sizeof fds[1], "%d", from[1]);
    char *argv[] = {self, "zygote", fds[0], fds[1], NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, to[1]);
    posix_spawn_file_actions_addclose(&fa, from[0]);
    int rc = posix_spawn(&zygote_pid, self, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(to[0]);
    close(from[1]);
    ck_assert_int_eq(rc, 0);
    fcntl(to[1], F_SETFD, FD_CLOEXEC);
    fcntl(from[0], F_SETFD, FD_CLOEXEC);
    zygote_to = to[1];
    zygote_from = from[0];
}

static void zygote_stop(void)
{
    if (zygote_to < 0)
        return;
    close(zygote_to);
    close(zygote_from);
    waitpid(zygote_pid, NULL, 0);
    zygote_to = zygote_from = -1;
}

/* Runs "child name spec" with GPGPU_FAULT_AT=k (k 0: counting, its stderr
   in log); returns its exit status (-1 if it died of a signal). */
static int run_child(const char *name, const char *spec, long k, const char *log)
{
    zygote_request rq;
    memset(&rq, 0, sizeof rq);
    rq.k = k;
    ck_assert(strlen(name) < sizeof rq.name && strlen(spec) < sizeof rq.spec &&
              (!log || strlen(log) < sizeof rq.log));
    strcpy(rq.name, name);
    strcpy(rq.spec, spec);
    if (log)
        strcpy(rq.log, log);
    if (zygote_to < 0)
        zygote_start();
    int status;
    ck_assert_msg(write_all(zygote_to, &rq, sizeof rq) == 0 &&
                      read_all(zygote_from, &status, sizeof status) == 0,
                  "the zygote process is gone");
    return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The number of injection points a clean run of the scenario passes. */
static long count_points(const char *name, const char *spec)
{
    char log[4200], line[512];
    const char *top = getenv("top_builddir");
    /* one log per scenario and device: the host pass must not overwrite
       the log of a failure on the default device */
    char dev[64];
    snprintf(dev, sizeof dev, "%s", spec);
    for (char *c = dev; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
            *c = '_';
    snprintf(log, sizeof log, "%s/tests/.cache/test_faults-%s-%s.count", top ? top : ".", name,
             dev);
    int rc = run_child(name, spec, 0, log);
    long n = -1;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "gpgpu: %ld fault-injection points passed", &n) == 1)
            break;
    if (f)
        fclose(f);
    ck_assert_msg(rc == CHILD_NO_FAILURE, "%s: the clean run failed (exit %d, see %s)", name, rc,
                  log);
    ck_assert_msg(n >= 0, "%s: no count of injection points in %s", name, log);
    return n;
}

static long points_total;

TU_LOOP_TEST(every_fault_fails_cleanly, NSCENARIOS)
{
    const scenario *sc = &scenarios[_i];
    char spec[64];
    device_spec(spec, sizeof spec);
    if (sc->needs_device && !strcmp(spec, "host"))
        return;
    long n = count_points(sc->name, spec);
    if (strcmp(spec, "host"))
        ck_assert_msg(n > 0, "%s passed no injection point", sc->name);
    for (long k = 1; k <= n; k++) {
        int rc = run_child(sc->name, spec, k, NULL);
        ck_assert_msg(rc != CHILD_NO_FAILURE,
                      "%s: point %ld of %ld failed and no call noticed (run: GPGPU_FAULT_AT=%ld "
                      "GPGPU_CACHE=0 tests/test_faults child %s %s)", sc->name, k, n, k, sc->name, spec);
        ck_assert_msg(rc == CHILD_FAILED_CLEANLY,
                      "%s: point %ld of %ld: exit %d (run: GPGPU_FAULT_AT=%ld GPGPU_CACHE=0 "
                      "tests/test_faults child %s %s)", sc->name, k, n, rc, k, sc->name, spec);
    }
    points_total += n;
    fprintf(stderr, "  %-16s %3ld injection points on %s, each failed cleanly\n", sc->name, n,
            spec);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "child"))
        return child(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "zygote"))
        return zygote(atoi(argv[2]), atoi(argv[3]));
    int rc = tu_run("faults", 600, NULL);
    zygote_stop();
    fprintf(stderr, "test_faults: %ld injection points exercised in all\n", points_total);
    return rc;
}
