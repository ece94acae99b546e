/* select_ops.c - unique, run-length encoding and partition: stream
   compaction (gpgpu__select_enqueue, userop.c) with another flag or another
   scatter kernel (kernels/userop.cl).
     unique      flag: the bits differ from the previous element's
     run-length  unique, plus the length of each run: written by the scatter
                 when the run ends in the same part, else fixed up after it
                 from the next part's first head (runs_fixup)
     partition   the caller's predicate; the scatter also writes each other
                 element k to total + k - (flagged before k)
   Host memory goes through the device in chunks (gpgpu__chunk_elems); a run
   that crosses a chunk boundary is counted once per chunk and merged here.
   Unique and run-length encoding have no user expression, so the plain-C
   fallback does them too. */
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

/* ---- the plain-C fallback ------------------------------------------------- */

static uint64_t bits_at(const void *a, size_t i, size_t size)
{
    if (size == 4)
        return ((const uint32_t *)a)[i];
    return ((const uint64_t *)a)[i];
}

static void bits_put(void *a, size_t i, size_t size, uint64_t v)
{
    if (size == 4)
        ((uint32_t *)a)[i] = (uint32_t)v;
    else
        ((uint64_t *)a)[i] = v;
}

/* Whether a host call of unique or run-length encoding over n elements of
   t runs host_runs (the plan's host-below), t supported. */
static int host_below_runs(gpgpu_context *ctx, gpgpu_type t, size_t n)
{
    return gpgpu__host_below(ctx, GPGPU__HB_RUNS, n) &&
           gpgpu__type_supported(ctx, t) == GPGPU_SUCCESS;
}

/* host_runs for elements of one width: the loop a C programmer writes. */
#define HOST_RUNS(U)                                                         \
    {                                                                        \
        const U *x = in;                                                     \
        U *v = values, prev = 0;                                             \
        for (size_t i = 0; i < n; i++) {                                     \
            const U cur = x[i];                                              \
            if (i > 0 && cur == prev)                                        \
                continue;                                                    \
            if (lengths && runs > 0)                                         \
                lengths[runs - 1] = i - head;                                \
            v[runs++] = cur;                                                 \
            head = i;                                                        \
            prev = cur;                                                      \
        }                                                                    \
        if (lengths && runs > 0)                                             \
            lengths[runs - 1] = n - head;                                    \
        return runs;                                                         \
    }

/* Run heads of in to values (may equal in: the previous element is kept
   aside before its slot can be overwritten), their lengths to lengths when
   not NULL. Returns the number of runs. */
static size_t host_runs(size_t size, const void *in, size_t n, void *values, uint64_t *lengths)
{
    size_t runs = 0, head = 0;
    if (size == 4)
        HOST_RUNS(uint32_t)
    if (size == 8)
        HOST_RUNS(uint64_t)
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = bits_at(in, i, size);
        if (i > 0 && x == prev)
            continue;
        if (lengths && runs > 0)
            lengths[runs - 1] = i - head;
        bits_put(values, runs++, size, x);
        head = i;
        prev = x;
    }
    if (lengths && runs > 0)
        lengths[runs - 1] = n - head;
    return runs;
}

/* ---- device enqueues ----------------------------------------------------- */

/* What the three _buffer forms share once their own arguments are checked:
   range checks, lock, the launches and the done event. pred NULL is the
   unique flag; lengths (RUNS only) gets the run lengths. */
typedef struct {
    const char *func;
    gpgpu_type t;
    const char *pred;
    gpgpu__select_kind kind;
    cl_mem in, out, count, lengths;
    size_t in_off, n, out_off, count_off, lengths_off;
} compact_job;

static gpgpu_status compact_buffer_enqueue(gpgpu_context *ctx, const compact_job *j)
{
    gpgpu__select_plan p;
    cl_mem counts;
    gpgpu__runs_out runs = {j->lengths, NULL, j->lengths_off};
    GPGPU__TRY(gpgpu__select_plan_get(ctx, j->t, j->pred, &p));
    const size_t parts = gpgpu__select_parts(&p, j->n);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, parts * sizeof(cl_ulong), &counts));
    if (j->kind == GPGPU__RUNS)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, parts * sizeof(cl_ulong),
                                  &runs.firsts));
    return gpgpu__select_enqueue(ctx, &p, j->kind, j->in, j->in_off, j->n, 0, j->out,
                                 j->out_off, j->count, j->count_off, counts,
                                 j->kind == GPGPU__RUNS ? &runs : NULL);
}

static gpgpu_status compact_buffer_call(gpgpu_context *ctx, const compact_job *j,
                                        cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    const size_t size = gpgpu__type(j->t)->size;
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", j->func);
    if (j->n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, j->func, "in", j->in, j->in_off, j->n, size));
        GPGPU__TRY(gpgpu__check_range(ctx, j->func, j->kind == GPGPU__RUNS ? "values" : "out",
                                      j->out, j->out_off, j->n, size));
        if (j->kind == GPGPU__RUNS)
            GPGPU__TRY(gpgpu__check_range(ctx, j->func, "lengths", j->lengths, j->lengths_off,
                                          j->n, sizeof(cl_ulong)));
    }
    GPGPU__TRY(gpgpu__check_range(ctx, j->func, j->kind == GPGPU__RUNS ? "nruns" : "count",
                                  j->count, j->count_off, 1, sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = compact_buffer_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

/* ---- host memory through the device --------------------------------------- */

/* Unique (lengths NULL) or run-length encoding of host memory. Each chunk
   starts a run of its own: when it continues the previous chunk's last run,
   the two are merged (the chunk's first head dropped, its length added). */
static gpgpu_status runs_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                  void *values, uint64_t *lengths, size_t *nruns)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t chunk = gpgpu__chunk_elems(ctx, size), len0 = n < chunk ? n : chunk;
    const gpgpu__select_kind kind = lengths ? GPGPU__RUNS : GPGPU__SELECT;
    gpgpu__select_plan p;
    cl_mem src, dst, aux;
    gpgpu__runs_out runs = {NULL, NULL, 0};
    GPGPU__TRY(gpgpu__select_plan_get(ctx, t, NULL, &p));
    if (gpgpu__in_place(ctx, n * size) && (!lengths || gpgpu__in_place(ctx, n * 8)))
        return gpgpu__compact_in_place(ctx, &p, kind, size, in, n, values, lengths, nruns);
    /* aux: the parts' counts, then the number of runs after them */
    const size_t parts = gpgpu__select_parts(&p, len0);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, len0 * size, &src));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, len0 * size, &dst));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, (parts + 1) * sizeof(cl_ulong), &aux));
    if (lengths) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, parts * sizeof(cl_ulong),
                                  &runs.firsts));
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, len0 * sizeof(cl_ulong),
                                  &runs.lengths));
    }
    size_t total = 0, first = 0;
    char *v = values;
    do {
        size_t len = n - first < chunk ? n - first : chunk;
        cl_ulong got;
        GPGPU__TRY(gpgpu__upload(ctx, src, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__select_enqueue(ctx, &p, kind, src, 0, len, 0, dst, 0, aux, parts, aux,
                                         lengths ? &runs : NULL));
        GPGPU__TRY(gpgpu__read(ctx, aux, parts * sizeof got, sizeof got, &got));
        GPGPU__TRY(gpgpu__download(ctx, dst, 0, (size_t)got * size, v + total * size, 0));
        if (lengths)
            GPGPU__TRY(gpgpu__download(ctx, runs.lengths, 0, (size_t)got * sizeof *lengths,
                                       lengths + total, 0));
        if (total > 0 && bits_at(v, total - 1, size) == bits_at(v, total, size)) {
            got--;
            memmove(v + total * size, v + (total + 1) * size, (size_t)got * size);
            if (lengths) {
                lengths[total - 1] += lengths[total];
                memmove(lengths + total, lengths + total + 1, (size_t)got * sizeof *lengths);
            }
        }
        total += (size_t)got;
        first += len;
    } while (first < n);
    *nruns = total;
    return GPGPU_SUCCESS;
}

/* Partition of host memory. One chunk is read back whole; with several,
   the selected elements go straight to out and the others wait in rest
   (room for n) until every chunk's selected ones are in place. */
static gpgpu_status partition_chunks(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                     const void *in, size_t n, void *out, char *rest,
                                     size_t *count)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t chunk = gpgpu__chunk_elems(ctx, size), len0 = n < chunk ? n : chunk;
    gpgpu__select_plan p;
    cl_mem src, dst, aux;
    GPGPU__TRY(gpgpu__select_plan_get(ctx, t, pred, &p));
    if (gpgpu__in_place(ctx, n * size))
        return gpgpu__compact_in_place(ctx, &p, GPGPU__PARTITION, size, in, n, out, NULL,
                                       count);
    const size_t parts = gpgpu__select_parts(&p, len0);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, len0 * size, &src));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, len0 * size, &dst));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, (parts + 1) * sizeof(cl_ulong), &aux));
    size_t kept = 0, others = 0, first = 0;
    char *o = out;
    do {
        size_t len = n - first < chunk ? n - first : chunk;
        cl_ulong got;
        GPGPU__TRY(gpgpu__upload(ctx, src, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__select_enqueue(ctx, &p, GPGPU__PARTITION, src, 0, len, first, dst, 0,
                                         aux, parts, aux, NULL));
        GPGPU__TRY(gpgpu__read(ctx, aux, parts * sizeof got, sizeof got, &got));
        if (!rest) {
            GPGPU__TRY(gpgpu__download(ctx, dst, 0, len * size, o, 0));
        } else {
            GPGPU__TRY(gpgpu__download(ctx, dst, 0, (size_t)got * size, o + kept * size, 0));
            GPGPU__TRY(gpgpu__download(ctx, dst, (size_t)got * size,
                                       (len - (size_t)got) * size, rest + others * size, 0));
        }
        kept += (size_t)got;
        others += len - (size_t)got;
        first += len;
    } while (first < n);
    if (rest)
        memcpy(o + kept * size, rest, others * size);
    *count = kept;
    return GPGPU_SUCCESS;
}

static gpgpu_status partition_host_api(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                       const void *in, size_t n, void *out, size_t *count)
{
    const size_t size = gpgpu__type(t)->size;
    char *rest = NULL;
    if (n > gpgpu__chunk_elems(ctx, size) && !(rest = gpgpu__malloc(n * size)))
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    gpgpu_status s = partition_chunks(ctx, t, pred, in, n, out, rest, count);
    free(rest);
    return s;
}

/* ---- public functions ----------------------------------------------------- */

gpgpu_status gpgpu_unique(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                          void *out, size_t *count)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(out, t), __func__,
                   "in is %p and out is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)out);
    GPGPU__REQUIRE(ctx, in == out || !gpgpu__overlap((size_t)in, n * gpgpu__type(t)->size,
                                                    (size_t)out, n * gpgpu__type(t)->size),
                   __func__, "in and out partly overlap (n = %zu); they must be the same array or not overlap", n);
    if (ctx->host || host_below_runs(ctx, t, n)) {
        *count = host_runs(gpgpu__type(t)->size, in, n, out, NULL);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_unique",
                                runs_host_api(ctx, t, in, n, out, NULL, count));
}

gpgpu_status gpgpu_run_length_encode(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                     size_t n, void *values, uint64_t *lengths, size_t *nruns)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && values != NULL && lengths != NULL) || n == 0, __func__,
                   "in, values, lengths: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / sizeof *lengths, __func__, "n is %zu; at most %zu", n,
                   (size_t)PTRDIFF_MAX / sizeof *lengths);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(values, t), __func__,
                   "in is %p and values is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)values);
    GPGPU__REQUIRE(ctx, (uintptr_t)lengths % sizeof *lengths == 0, __func__,
                   "lengths is %p; it must be aligned to %zu bytes, the size of one element", (const void *)lengths, (size_t)(sizeof *lengths));
    const size_t bytes = n * gpgpu__type(t)->size;
    GPGPU__REQUIRE(ctx, in == values || !gpgpu__overlap((size_t)in, bytes, (size_t)values, bytes),
                   __func__, "in and values partly overlap (n = %zu); they must be the same array or not overlap", n);
    GPGPU__REQUIRE(ctx, !gpgpu__overlap((size_t)lengths, n * sizeof *lengths, (size_t)in, bytes),
                   __func__, "lengths overlaps in (n = %zu); it must not", n);
    GPGPU__REQUIRE(ctx, !gpgpu__overlap((size_t)lengths, n * sizeof *lengths, (size_t)values,
                                        bytes),
                   __func__, "lengths overlaps values (n = %zu); it must not", n);
    if (ctx->host || host_below_runs(ctx, t, n)) {
        *nruns = host_runs(gpgpu__type(t)->size, in, n, values, lengths);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_run_length_encode",
                                runs_host_api(ctx, t, in, n, values, lengths, nruns));
}

gpgpu_status gpgpu_partition(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                             const void *in, size_t n, void *out, size_t *count)
{
    char pred[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__,
                   "predicate is NULL");
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(out, t), __func__,
                   "in is %p and out is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)out);
    GPGPU__REQUIRE(ctx, in == out || !gpgpu__overlap((size_t)in, n * gpgpu__type(t)->size,
                                                    (size_t)out, n * gpgpu__type(t)->size),
                   __func__, "in and out partly overlap (n = %zu); they must be the same array or not overlap", n);
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_partition: predicates need an OpenCL device");
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_partition",
                                partition_host_api(ctx, t, pred, in, n, out, count));
}

gpgpu_status gpgpu_unique_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in, size_t in_offset,
                                 size_t n, cl_mem out, size_t out_offset, cl_mem count,
                                 size_t count_offset, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, in != out || !gpgpu__overlap(in_offset, n, out_offset, n), __func__,
                   "in and out are the same buffer and their ranges overlap (in_offset = %zu, out_offset = %zu, n = %zu); they must be the same range or not overlap", in_offset, out_offset, n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    compact_job j = {__func__, t, NULL, GPGPU__SELECT, in, out, count, NULL,
                     in_offset, n, out_offset, count_offset, 0};
    return compact_buffer_call(ctx, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_run_length_encode_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                            size_t in_offset, size_t n, cl_mem values,
                                            size_t values_offset, cl_mem lengths,
                                            size_t lengths_offset, cl_mem nruns,
                                            size_t nruns_offset, cl_uint num_wait,
                                            const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && values != NULL && lengths != NULL) || n == 0, __func__,
                   "in, values, lengths: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__REQUIRE(ctx, in != values || !gpgpu__overlap(in_offset, n, values_offset, n), __func__,
                   "in and values are the same buffer and their ranges overlap (in_offset = %zu, values_offset = %zu, n = %zu); they must be the same range or not overlap", in_offset, values_offset, n);
    GPGPU__REQUIRE(ctx, lengths != in || n == 0, __func__,
                   "lengths and in are the same buffer with n = %zu; they must differ unless n is 0", n);
    GPGPU__REQUIRE(ctx, lengths != values || n == 0, __func__,
                   "lengths and values are the same buffer with n = %zu; they must differ unless n is 0", n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    compact_job j = {__func__, t, NULL, GPGPU__RUNS, in, values, nruns, lengths,
                     in_offset, n, values_offset, nruns_offset, lengths_offset};
    return compact_buffer_call(ctx, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_partition_buffer(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                                    cl_mem in, size_t in_offset, size_t n, cl_mem out,
                                    size_t out_offset, cl_mem count, size_t count_offset,
                                    cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    char pred[GPGPU__EXPR_MAX + 1];
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__,
                   "predicate is NULL");
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, in != out || !gpgpu__overlap(in_offset, n, out_offset, n), __func__,
                   "in and out are the same buffer and their ranges overlap (in_offset = %zu, out_offset = %zu, n = %zu); they must be the same range or not overlap", in_offset, out_offset, n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    compact_job j = {__func__, t, pred, GPGPU__PARTITION, in, out, count, NULL,
                     in_offset, n, out_offset, count_offset, 0};
    return compact_buffer_call(ctx, &j, num_wait, wait, done);
}

/* ---- device arrays ------------------------------------------------------------- */

/* The three array forms once checked: j's buffers are the arrays'; the
   count comes back through the result slot. */
static gpgpu_status compact_array_call(gpgpu_context *ctx, compact_job *j, size_t *count)
{
    cl_ulong got = 0;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, sizeof got, &j->count);
    if (s == GPGPU_SUCCESS)
        s = compact_buffer_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, j->count, 0, sizeof got, &got);
    if (s == GPGPU_SUCCESS)
        *count = (size_t)got;
    return gpgpu__array_end(ctx, j->func, s);
}

/* in and out (what names it) checked, another array than in, in's type and
   at least its length. */
static gpgpu_status compact_arrays_check(gpgpu_context *ctx, const char *func, const char *what,
                                         const gpgpu_array *in, const gpgpu_array *out,
                                         const size_t *count)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__array_check(ctx, func, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, func, what, out));
    GPGPU__REQUIRE(ctx, count != NULL, func, "the count is NULL; need room for it");
    /* Work items would overwrite elements that others have yet to read. */
    GPGPU__REQUIRE(ctx, out != in, func, "%s and in are the same array; they must differ",
                   what);
    return gpgpu__array_match(ctx, func, what, in, out, 1, 0);
}

gpgpu_status gpgpu_unique_array(gpgpu_context *ctx, const gpgpu_array *in, gpgpu_array *out,
                                size_t *count)
{
    GPGPU__TRY(compact_arrays_check(ctx, __func__, "out", in, out, count));
    if (ctx->host) {
        *count = host_runs(gpgpu__type(in->t)->size, in->host, in->n, out->host, NULL);
        return GPGPU_SUCCESS;
    }
    compact_job j = {__func__, in->t, NULL, GPGPU__SELECT, in->buf, out->buf, NULL, NULL,
                     0, in->n, 0, 0, 0};
    return compact_array_call(ctx, &j, count);
}

gpgpu_status gpgpu_run_length_encode_array(gpgpu_context *ctx, const gpgpu_array *in,
                                           gpgpu_array *values, gpgpu_array *lengths,
                                           size_t *nruns)
{
    GPGPU__TRY(compact_arrays_check(ctx, __func__, "values", in, values, nruns));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "lengths", lengths));
    GPGPU__REQUIRE(ctx, lengths->t == GPGPU_U64, __func__,
                   "lengths holds %s elements; it must hold GPGPU_U64",
                   gpgpu__type(lengths->t)->name);
    GPGPU__REQUIRE(ctx, lengths != in && lengths != values, __func__,
                   "lengths is the same array as %s; it must be another",
                   lengths == in ? "in" : "values");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "lengths", in, lengths, 0, 0));
    if (ctx->host) {
        *nruns = host_runs(gpgpu__type(in->t)->size, in->host, in->n, values->host,
                           lengths->host);
        return GPGPU_SUCCESS;
    }
    compact_job j = {__func__, in->t, NULL, GPGPU__RUNS, in->buf, values->buf, NULL,
                     lengths->buf, 0, in->n, 0, 0, 0};
    return compact_array_call(ctx, &j, nruns);
}

gpgpu_status gpgpu_partition_array(gpgpu_context *ctx, const char *predicate,
                                   const gpgpu_array *in, gpgpu_array *out, size_t *count)
{
    char pred[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__, "predicate is NULL");
    GPGPU__TRY(compact_arrays_check(ctx, __func__, "out", in, out, count));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "%s: predicates need an OpenCL device", __func__);
    compact_job j = {__func__, in->t, pred, GPGPU__PARTITION, in->buf, out->buf, NULL, NULL,
                     0, in->n, 0, 0, 0};
    return compact_array_call(ctx, &j, count);
}
