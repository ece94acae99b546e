/*
 * ops.c - the little host arithmetic the MPI layer needs on single values:
 * combining the ranks' partials for the built-in operators. libgpgpu's own
 * host code is hidden, so this is the MPI layer's; it follows the semantics gpgpu.h documents.
 */
#include <math.h>
#include <string.h>

#include "mpi_internal.h"

int gpgpu__mpi_builtin_op(gpgpu_op op)
{
    return op == GPGPU_SUM || op == GPGPU_MIN || op == GPGPU_MAX;
}

/* Integer ops: sums wrap, so they run on the unsigned type. */
#define COMBINE_INT(T, U)                                                    \
    do {                                                                     \
        T a, b;                                                              \
        memcpy(&a, acc, sizeof a);                                           \
        memcpy(&b, x, sizeof b);                                             \
        if (op == GPGPU_SUM)                                                 \
            a = (T)((U)a + (U)b);                                            \
        else if (op == GPGPU_MIN)                                            \
            a = b < a ? b : a;                                               \
        else                                                                 \
            a = b > a ? b : a;                                               \
        memcpy(acc, &a, sizeof a);                                           \
    } while (0)

/* Float ops: MIN/MAX ignore NaN, as fmin/fmax do. */
#define COMBINE_FLOAT(T, FMIN, FMAX)                                         \
    do {                                                                     \
        T a, b;                                                              \
        memcpy(&a, acc, sizeof a);                                           \
        memcpy(&b, x, sizeof b);                                             \
        a = op == GPGPU_SUM ? a + b : op == GPGPU_MIN ? FMIN(a, b) : FMAX(a, b); \
        memcpy(acc, &a, sizeof a);                                           \
    } while (0)

void gpgpu__mpi_combine(gpgpu_type t, gpgpu_op op, void *acc, const void *x)
{
    switch (t) {
    case GPGPU_I32: COMBINE_INT(int32_t, uint32_t); break;
    case GPGPU_U32: COMBINE_INT(uint32_t, uint32_t); break;
    case GPGPU_I64: COMBINE_INT(int64_t, uint64_t); break;
    case GPGPU_U64: COMBINE_INT(uint64_t, uint64_t); break;
    case GPGPU_F32: COMBINE_FLOAT(float, fminf, fmaxf); break;
    case GPGPU_F64: COMBINE_FLOAT(double, fmin, fmax); break;
    }
}
