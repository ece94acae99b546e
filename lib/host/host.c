/* host.c - the plain-C fallback of reduce and scan, used when there is no
   OpenCL device ("host"). Sort and histogram have theirs in host_sort.c and
   host_histogram.c. Same semantics as the kernels: integer sums wrap, float
   MIN/MAX follow fmin/fmax.
   Past HOST_PART elements the work is cut into parts of HOST_PART that the
   host's threads (pool.c) take in any order; parts are combined in index
   order, so float results depend on n alone, never on the thread count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

/* Integer sums wrap: add signed types as unsigned. */
#define ADD_WRAP(T, U, a, b) ((T)((U)(a) + (U)(b)))

#define DEFINE_OPS(name, T, U, LOWEST, HIGHEST, MINF, MAXF, ADD)      \
    static T name##_combine(gpgpu_op op, T a, T b)                     \
    {                                                                  \
        switch (op) {                                                  \
        case GPGPU_MIN:                                                \
            return MINF(a, b);                                         \
        case GPGPU_MAX:                                                \
            return MAXF(a, b);                                         \
        default:                                                       \
            return ADD(T, U, a, b);                                    \
        }                                                              \
    }                                                                  \
    static T name##_identity(gpgpu_op op)                              \
    {                                                                  \
        return op == GPGPU_MIN ? HIGHEST : op == GPGPU_MAX ? LOWEST : (T)0; \
    }

#define IMIN(a, b) ((b) < (a) ? (b) : (a))
#define IMAX(a, b) ((b) > (a) ? (b) : (a))
#define FADD(T, U, a, b) ((a) + (b))

DEFINE_OPS(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(u32, uint32_t, uint32_t, 0, UINT32_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(u64, uint64_t, uint64_t, 0, UINT64_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(f32, float, float, -INFINITY, INFINITY, fminf, fmaxf, FADD)
DEFINE_OPS(f64, double, double, -INFINITY, INFINITY, fmin, fmax, FADD)

/* The loops take op as a constant (one loop per operator), so that the
   combine folds and the compiler can vectorise the integer ones: a switch
   per element ran at a third of a plain C loop's speed. */
#define REDUCE_LOOP(name, T, OPC)                         \
    {                                                     \
        const T *x = in;                                  \
        T acc = name##_identity(OPC);                     \
        for (size_t i = 0; i < n; i++)                    \
            acc = name##_combine(OPC, acc, x[i]);         \
        memcpy(result, &acc, sizeof acc);                 \
    }

#define REDUCE(name, T)                                   \
    switch (op) {                                         \
    case GPGPU_MIN: REDUCE_LOOP(name, T, GPGPU_MIN) break; \
    case GPGPU_MAX: REDUCE_LOOP(name, T, GPGPU_MAX) break; \
    default: REDUCE_LOOP(name, T, GPGPU_SUM) break;       \
    }

/* Pairwise sum: error grows with log n instead of n, in a fixed order. */
static double sum_f64(const double *x, size_t n)
{
    if (n <= 256) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += x[i];
        return s;
    }
    return sum_f64(x, n / 2) + sum_f64(x + n / 2, n - n / 2);
}

enum { HOST_PART = 1 << 18 };

static void reduce_serial(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    if (t == GPGPU_F32 && op == GPGPU_SUM) { /* a double accumulator: float sums stay accurate */
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += ((const float *)in)[i];
        float f = (float)s;
        memcpy(result, &f, sizeof f);
        return;
    }
    if (t == GPGPU_F64 && op == GPGPU_SUM) {
        double s = sum_f64(in, n);
        memcpy(result, &s, sizeof s);
        return;
    }
    switch (t) {
    case GPGPU_I32: REDUCE(i32, int32_t) break;
    case GPGPU_U32: REDUCE(u32, uint32_t) break;
    case GPGPU_F32: REDUCE(f32, float) break;
    case GPGPU_I64: REDUCE(i64, int64_t) break;
    case GPGPU_U64: REDUCE(u64, uint64_t) break;
    case GPGPU_F64: REDUCE(f64, double) break;
    }
}

typedef struct {
    gpgpu_type t;
    gpgpu_op op;
    const char *in;
    size_t n, size;
    char *part;      /* one element of t per part, or a double (float sums) */
} reduce_job;

/* Float sums keep each part's total in double, as the serial f32 sum does. */
static int double_parts(gpgpu_type t, gpgpu_op op)
{
    return op == GPGPU_SUM && (t == GPGPU_F32 || t == GPGPU_F64);
}

static void reduce_part(void *arg, size_t i)
{
    const reduce_job *j = arg;
    size_t first = i * (size_t)HOST_PART, len = j->n - first < HOST_PART ? j->n - first : HOST_PART;
    const char *x = j->in + first * j->size;
    if (j->t == GPGPU_F32 && j->op == GPGPU_SUM) {
        double s = 0;
        for (size_t k = 0; k < len; k++)
            s += ((const float *)x)[k];
        memcpy(j->part + i * sizeof s, &s, sizeof s);
    } else if (j->t == GPGPU_F64 && j->op == GPGPU_SUM) {
        double s = sum_f64((const double *)x, len);
        memcpy(j->part + i * sizeof s, &s, sizeof s);
    } else {
        reduce_serial(j->t, j->op, x, len, j->part + i * j->size);
    }
}

/* Runs fn over nparts parts on the host's threads, or in order on the
   calling thread (seq: already inside a gpgpu__parallel part). */
static void run_parts(int seq, size_t nparts, void (*fn)(void *, size_t), void *arg)
{
    if (seq)
        for (size_t i = 0; i < nparts; i++)
            fn(arg, i);
    else
        gpgpu__parallel(nparts, fn, arg);
}

static void host_reduce(int seq, gpgpu_type t, gpgpu_op op, const void *in, size_t n,
                        void *result)
{
    size_t size = gpgpu__type(t)->size, nparts = (n + HOST_PART - 1) / HOST_PART;
    char *part = nparts > 1 ? malloc(nparts * 8) : NULL;
    if (!part) { /* small, or no memory for the parts: one thread */
        reduce_serial(t, op, in, n, result);
        return;
    }
    reduce_job j = {t, op, in, n, size, part};
    run_parts(seq, nparts, reduce_part, &j);
    if (t == GPGPU_F32 && op == GPGPU_SUM) {
        double s = sum_f64((const double *)part, nparts);
        float f = (float)s;
        memcpy(result, &f, sizeof f);
    } else if (double_parts(t, op)) {
        double s = sum_f64((const double *)part, nparts);
        memcpy(result, &s, sizeof s);
    } else {
        reduce_serial(t, op, part, nparts, result);
    }
    free(part);
}

void gpgpu__host_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    host_reduce(0, t, op, in, n, result);
}

void gpgpu__host_reduce_seq(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    host_reduce(1, t, op, in, n, result);
}

void gpgpu__identity(gpgpu_type t, gpgpu_op op, void *out)
{
    reduce_serial(t, op, NULL, 0, out);
}

/* In place is fine: each input is read before its output is written.
   Operator and kind are constants in each loop (as REDUCE_LOOP). */
#define SCAN_LOOP(name, T, OPC, INCL)                              \
    {                                                              \
        const T *x = in;                                           \
        T *y = out;                                                \
        T acc = name##_identity(OPC);                              \
        if (init)                                                  \
            memcpy(&acc, init, sizeof acc);                        \
        for (size_t i = 0; i < n; i++) {                           \
            T v = x[i];                                            \
            T next = name##_combine(OPC, acc, v);                  \
            y[i] = INCL ? next : acc;                              \
            acc = next;                                            \
        }                                                          \
    }

#define SCAN_KIND(name, T, OPC)                                    \
    if (kind == GPGPU_INCLUSIVE)                                   \
        SCAN_LOOP(name, T, OPC, 1)                                 \
    else                                                           \
        SCAN_LOOP(name, T, OPC, 0)

#define SCAN(name, T)                                              \
    switch (op) {                                                  \
    case GPGPU_MIN: SCAN_KIND(name, T, GPGPU_MIN) break;           \
    case GPGPU_MAX: SCAN_KIND(name, T, GPGPU_MAX) break;           \
    default: SCAN_KIND(name, T, GPGPU_SUM) break;                  \
    }

static void scan_serial(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                        void *out, size_t n, const void *init)
{
    switch (t) {
    case GPGPU_I32: SCAN(i32, int32_t) break;
    case GPGPU_U32: SCAN(u32, uint32_t) break;
    case GPGPU_F32: SCAN(f32, float) break;
    case GPGPU_I64: SCAN(i64, int64_t) break;
    case GPGPU_U64: SCAN(u64, uint64_t) break;
    case GPGPU_F64: SCAN(f64, double) break;
    }
}

/* Parallel scan: each part's total (pass 1), the totals scanned in order
   from init, then each part scanned from its offset (pass 2). */
typedef struct {
    gpgpu_type t;
    gpgpu_op op;
    gpgpu_scan_kind kind;
    const char *in;
    char *out;
    size_t n, size;
    char *offsets;   /* per part: its total (pass 1), then its seed (pass 2) */
} scan_job;

static void scan_total(void *arg, size_t i)
{
    const scan_job *j = arg;
    size_t first = i * (size_t)HOST_PART, len = j->n - first < HOST_PART ? j->n - first : HOST_PART;
    reduce_serial(j->t, j->op, j->in + first * j->size, len, j->offsets + i * j->size);
}

static void scan_part(void *arg, size_t i)
{
    const scan_job *j = arg;
    size_t first = i * (size_t)HOST_PART, len = j->n - first < HOST_PART ? j->n - first : HOST_PART;
    scan_serial(j->t, j->op, j->kind, j->in + first * j->size, j->out + first * j->size, len,
                j->offsets + i * j->size);
}

static void host_scan(int seq, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                      const void *in, void *out, size_t n, const void *init)
{
    size_t size = gpgpu__type(t)->size, nparts = (n + HOST_PART - 1) / HOST_PART;
    char *offsets = nparts > 1 ? malloc(nparts * size) : NULL;
    if (!offsets) { /* small, or no memory for the offsets: one thread */
        scan_serial(t, op, kind, in, out, n, init);
        return;
    }
    scan_job j = {t, op, kind, in, out, n, size, offsets};
    run_parts(seq, nparts, scan_total, &j);
    /* totals -> seeds: an exclusive scan of the totals, in place, from init */
    scan_serial(t, op, GPGPU_EXCLUSIVE, offsets, offsets, nparts, init);
    run_parts(seq, nparts, scan_part, &j);
    free(offsets);
}

void gpgpu__host_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                      void *out, size_t n, const void *init)
{
    host_scan(0, t, op, kind, in, out, n, init);
}

void gpgpu__host_scan_seq(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                          void *out, size_t n, const void *init)
{
    host_scan(1, t, op, kind, in, out, n, init);
}
