/* ref_scan.c - see ref_scan.h. */
#include "ref_scan.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* Integer SUM goes through the unsigned type so that it wraps as C does. */
#define REF_INT(T, U, MINV, MAXV)                                                    \
    static T combine_##T(gpgpu_op op, T a, T b)                                      \
    {                                                                                \
        return op == GPGPU_SUM ? (T)((U)a + (U)b) : op == GPGPU_MIN ? (a < b ? a : b) \
                                                                    : (a > b ? a : b); \
    }                                                                                \
    static T identity_##T(gpgpu_op op)                                               \
    {                                                                                \
        return op == GPGPU_SUM ? 0 : op == GPGPU_MIN ? MAXV : MINV;                  \
    }
#define REF_FLOAT(T, FMIN, FMAX)                                                     \
    static T combine_##T(gpgpu_op op, T a, T b)                                      \
    {                                                                                \
        return op == GPGPU_SUM ? a + b : op == GPGPU_MIN ? FMIN(a, b) : FMAX(a, b);  \
    }                                                                                \
    static T identity_##T(gpgpu_op op)                                               \
    {                                                                                \
        return op == GPGPU_SUM ? 0 : op == GPGPU_MIN ? (T)INFINITY : (T)-INFINITY;   \
    }

REF_INT(int32_t, uint32_t, INT32_MIN, INT32_MAX)
REF_INT(uint32_t, uint32_t, 0, UINT32_MAX)
REF_INT(int64_t, uint64_t, INT64_MIN, INT64_MAX)
REF_INT(uint64_t, uint64_t, 0, UINT64_MAX)
REF_FLOAT(float, fminf, fmaxf)
REF_FLOAT(double, fmin, fmax)

#define REF_SCAN(T)                                                                  \
    do {                                                                             \
        const T *x = in;                                                             \
        T *y = out;                                                                  \
        T acc = init ? *(const T *)init : identity_##T(op);                         \
        for (size_t i = 0; i < n; ++i) {                                             \
            T v = x[i];                                                              \
            if (kind == GPGPU_EXCLUSIVE)                                             \
                y[i] = acc;                                                          \
            acc = combine_##T(op, acc, v);                                           \
            if (kind == GPGPU_INCLUSIVE)                                             \
                y[i] = acc;                                                          \
        }                                                                            \
    } while (0)

void ref_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in, void *out,
              size_t n, const void *init)
{
    switch (t) {
    case GPGPU_I32: REF_SCAN(int32_t); break;
    case GPGPU_U32: REF_SCAN(uint32_t); break;
    case GPGPU_F32: REF_SCAN(float); break;
    case GPGPU_I64: REF_SCAN(int64_t); break;
    case GPGPU_U64: REF_SCAN(uint64_t); break;
    case GPGPU_F64: REF_SCAN(double); break;
    }
}

void ref_identity(gpgpu_type t, gpgpu_op op, void *out)
{
    switch (t) {
    case GPGPU_I32: *(int32_t *)out = identity_int32_t(op); break;
    case GPGPU_U32: *(uint32_t *)out = identity_uint32_t(op); break;
    case GPGPU_F32: *(float *)out = identity_float(op); break;
    case GPGPU_I64: *(int64_t *)out = identity_int64_t(op); break;
    case GPGPU_U64: *(uint64_t *)out = identity_uint64_t(op); break;
    case GPGPU_F64: *(double *)out = identity_double(op); break;
    }
}
