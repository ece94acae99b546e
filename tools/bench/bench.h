/*
 * bench.h - what gpgpu-bench's per-primitive files (tools/bench_<op>.c) share.
 * Each file defines one or more bench_op; gpgpu-bench.c lists them.
 */
#ifndef GPGPU_BENCH_H
#define GPGPU_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu_cl.h"

/* What --api times. */
typedef enum {
    BENCH_API_BUFFER,       /* the _buffer forms on device buffers: kernel time from events */
    BENCH_API_HOST,         /* the host-memory calls: wall time, transfers included */
    BENCH_API_ARRAY         /* the _array forms on gpgpu_array handles */
} bench_api;

typedef struct {
    gpgpu_context *ctx;
    cl_context cl;          /* NULL on the host fallback */
    cl_command_queue queue;
    int repeat;             /* timed runs (the median is reported) */
    uint64_t seed;
    bench_api api;          /* --api */
    int pinned;             /* --pinned: host arrays from gpgpu_host_alloc */
} bench;

/* Whether a case runs on device buffers: --api buffer on an OpenCL device
   (the host fallback has no buffers and always times the host call). */
#define BENCH_ON_BUFFERS(b) ((b)->queue != NULL && (b)->api == BENCH_API_BUFFER)

typedef struct {
    size_t bins;            /* --bins (histogram) */
    const char *pattern;    /* --input: "random" (default), "sorted", "narrow16", "rgba8" ... */
} bench_params;

typedef struct {
    double ms;              /* median time of one call (event timestamps) */
    double bytes;           /* minimum bytes the op must move for this n */
    int verified;           /* 1 only if the result matched the host reference */
    char note[96];          /* what the case was, e.g. "sorted input" */
    double serial_ms;       /* median time of the serial C loop the call
                               replaces (plain -O2 C on one thread, same
                               data, same run); 0: none */
} bench_result;

/* One primitive. run fills r and returns 0, or returns -1 after printing
   why to stderr (unsupported type, out of memory ...). */
typedef struct {
    const char *name;                   /* --op name */
    int (*run)(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r);
    /* The standard suite's cases: types and params run at each n. */
    struct { gpgpu_type type; bench_params params; } suite[4];
    int nsuite;
} bench_op;

/* Calls call(arg) once to warm up, then b->repeat times, each time taking
   the device time of the call from gpgpu_profile (the first command's
   start to the last one's end, its copies and fills counted; host wall
   time on the host fallback). Host calls (--api host) shorter than 0.2 ms
   are timed in batches, a sample the mean of its batch. Returns the
   median in ms, or a negative value if a call failed (reported to stderr). */
double bench_time(bench *b, gpgpu_status (*call)(void *arg), void *arg);

/* bench_time with prepare(arg) run, untimed, before each call (to restore
   an in-place input). Host calls are timed by the wall clock around call
   alone. */
double bench_time_prepared(bench *b, void (*prepare)(void *arg),
                           gpgpu_status (*call)(void *arg), void *arg);

/* Serial baselines stop repeating once their runs have taken this long in
   all (after the first): a loop of seconds says what it has to say in one
   or two runs, and a large case stays within a benchmark script's limit
   and the device machines' time. */
enum { BASELINE_MS = 3000 };

/* Median wall time in ms of repeat runs of fn(arg), after one untimed run
   (page faults of fresh outputs are not the loop's), fewer runs once they
   pass BASELINE_MS (a first run past it is the result), runs under 0.2 ms
   in batches as bench_time's host calls: the serial C loops that each
   case reports as serial_ms. */
double bench_wall_ms(void (*fn)(void *arg), void *arg, int repeat);

/* Host memory of bytes for a case's arrays: malloc, or gpgpu_host_alloc
   with --pinned. NULL on failure. Freed with bench_host_free. */
void *bench_host_alloc(bench *b, size_t bytes);
void bench_host_free(bench *b, void *p);

/* What a case leaves behind, in one line each: buffers (NULL skipped),
   arrays, and blocks from bench_host_alloc (NULL skipped). */
void bench_release_all(const cl_mem *m, size_t n);
void bench_destroy_all(gpgpu_array *const *a, size_t n);
void bench_host_free_all(bench *b, void *const *p, size_t n);
#define BENCH_LIST_(T, ...) (T[]){__VA_ARGS__}, sizeof((T[]){__VA_ARGS__}) / sizeof(T)
#define BENCH_RELEASE(...) bench_release_all(BENCH_LIST_(cl_mem, __VA_ARGS__))
#define BENCH_DESTROY(...) bench_destroy_all(BENCH_LIST_(gpgpu_array *, __VA_ARGS__))
#define BENCH_HOST_FREE(b, ...) bench_host_free_all((b), BENCH_LIST_(void *, __VA_ARGS__))

/* reduce (map NULL) or transform_reduce with map "x*x", SUM: fills r and
   returns 0, or returns -1 after printing why (bench_reduce.c). */
int bench_sum_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r,
                  const char *map);

/* The serial compaction loop a user writes without the library: each
   element of in[0 .. n) (of C type T) for which KEEP(x) holds is copied to
   out[k++], in order (k: a size_t lvalue, counting on from its value).
   select's loop is one of these, partition's two (kept, then the rest). */
#define BENCH_SERIAL_KEEP(T, in, n, out, k, KEEP)                            \
    do {                                                                     \
        const T *x_ = (in);                                                  \
        T *o_ = (out);                                                       \
        for (size_t i_ = 0; i_ < (n); i_++)                                  \
            if (KEEP(x_[i_]))                                                \
                o_[(k)++] = x_[i_];                                          \
    } while (0)
/* The predicate of the suite's compactions ("x > 0") and its negation. */
#define BENCH_POSITIVE(x) ((x) > 0)
#define BENCH_NOT_POSITIVE(x) (!((x) > 0))

/* M(C type, ...) for the C type of t (a switch over the six types). */
#define BENCH_BY_TYPE(t, M, ...)                                             \
    switch (t) {                                                             \
    case GPGPU_I32: M(int32_t, ##__VA_ARGS__); break;                        \
    case GPGPU_U32: M(uint32_t, ##__VA_ARGS__); break;                       \
    case GPGPU_F32: M(float, ##__VA_ARGS__); break;                          \
    case GPGPU_I64: M(int64_t, ##__VA_ARGS__); break;                        \
    case GPGPU_U64: M(uint64_t, ##__VA_ARGS__); break;                       \
    case GPGPU_F64: M(double, ##__VA_ARGS__); break;                         \
    }

/* The next number of a splitmix64 sequence (the fills' generator). */
uint64_t bench_splitmix(uint64_t *state);

/* Whether got (one element of t) is the sum of in[0..n), each element
   squared first if square: exact for integers (wrapping), and for floats
   within rel times the sum of magnitudes (a bound on the rounding of any
   summation order). */
int bench_check_sum(gpgpu_type t, const void *in, size_t n, int square, double rel,
                    const void *got);

/* Deterministic pseudo-random fill of n elements of t: integers over the full
   range (pattern "narrow16": only 16 low bits vary), floats in [0, 1)
   ("sorted" sorts the result ascending). */
void bench_fill(gpgpu_type t, void *buf, size_t n, uint64_t seed, const char *pattern);

/* Device buffer of bytes holding host (NULL: uninitialised); NULL on failure. */
cl_mem bench_buffer(bench *b, size_t bytes, const void *host);
/* A step on stderr with the time since the start (GPGPU_BENCH_TRACE=1). */
void bench_trace(const char *fmt, ...);
/* Blocking read of a whole buffer into host; 0 on success. */
int bench_read(bench *b, cl_mem buf, size_t bytes, void *host);

/* Whether a case runs on gpgpu_array handles: --api array (on the host
   fallback too, where arrays are host memory). The arrays are made and
   filled before the timed calls, like the buffers. */
#define BENCH_ON_ARRAYS(b) ((b)->api == BENCH_API_ARRAY)
/* A new array of n elements of t holding host (NULL: unwritten); NULL
   after printing why. */
gpgpu_array *bench_array(bench *b, gpgpu_type t, size_t n, const void *host);

extern const bench_op bench_op_reduce, bench_op_scan, bench_op_sort, bench_op_sort_pairs,
    bench_op_histogram, bench_op_transform_reduce, bench_op_select;
extern const bench_op bench_op_unique, bench_op_run_length_encode, bench_op_partition,
    bench_op_histogram_edges, bench_op_sum_exact;
extern const bench_op bench_op_segmented_reduce, bench_op_segmented_scan,
    bench_op_reduce_by_key, bench_op_scan_by_key, bench_op_argmin, bench_op_segmented_sort;
extern const bench_op bench_op_search_sorted, bench_op_argsort, bench_op_gather;
extern const bench_op bench_op_histogram2d, bench_op_histogram_weighted;
extern const bench_op bench_op_top_k, bench_op_quantiles;

#endif
