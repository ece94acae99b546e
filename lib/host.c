/* host.c - the plain-C fallback of reduce and scan, used when there is no
   OpenCL device ("host"). Sort and histogram have theirs in host_sort.c and
   host_histogram.c. Same semantics as the kernels: integer sums wrap, float
   MIN/MAX follow fmin/fmax. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

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

#define REDUCE(name, T)                                   \
    {                                                     \
        const T *x = in;                                  \
        T acc = name##_identity(op);                      \
        for (size_t i = 0; i < n; i++)                    \
            acc = name##_combine(op, acc, x[i]);          \
        memcpy(result, &acc, sizeof acc);                 \
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

void gpgpu__host_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
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

void gpgpu__identity(gpgpu_type t, gpgpu_op op, void *out)
{
    gpgpu__host_reduce(t, op, NULL, 0, out);
}

/* In place is fine: each input is read before its output is written. */
#define SCAN(name, T)                                              \
    {                                                              \
        const T *x = in;                                           \
        T *y = out;                                                \
        T acc = name##_identity(op);                               \
        if (init)                                                  \
            memcpy(&acc, init, sizeof acc);                        \
        for (size_t i = 0; i < n; i++) {                           \
            T v = x[i];                                            \
            T next = name##_combine(op, acc, v);                   \
            y[i] = kind == GPGPU_INCLUSIVE ? next : acc;           \
            acc = next;                                            \
        }                                                          \
    }

void gpgpu__host_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
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
