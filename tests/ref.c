/* ref.c - the reduce reference. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ref.h"

static long double value(gpgpu_type t, const void *in, size_t i)
{
    switch (t) {
    case GPGPU_F32: return ((const float *)in)[i];
    case GPGPU_F64: return ((const double *)in)[i];
    default: return 0;
    }
}

void ref_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *out,
                long double *exact, long double *abs_sum)
{
    *exact = 0;
    *abs_sum = 0;
    if (t == GPGPU_F32 || t == GPGPU_F64) {
        long double acc = op == GPGPU_SUM ? 0 : op == GPGPU_MIN ? INFINITY : -INFINITY;
        for (size_t i = 0; i < n; i++) {
            long double v = value(t, in, i);
            if (op == GPGPU_SUM) {
                acc += v;
                *abs_sum += fabsl(v);
            } else if (!isnan(v)) {
                acc = (op == GPGPU_MIN) == (v < acc) ? v : acc;
            }
        }
        *exact = acc;
        if (t == GPGPU_F32) {
            float f = (float)acc;
            memcpy(out, &f, 4);
        } else {
            double d = (double)acc;
            memcpy(out, &d, 8);
        }
        return;
    }
    int is64 = t == GPGPU_I64 || t == GPGPU_U64, sgn = t == GPGPU_I32 || t == GPGPU_I64;
    uint64_t sum = 0;
    int64_t smin = INT64_MAX, smax = INT64_MIN;
    uint64_t umin = UINT64_MAX, umax = 0;
    if (!is64 && sgn) {
        smin = INT32_MAX;
        smax = INT32_MIN;
    }
    if (!is64 && !sgn)
        umin = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = is64 ? ((const uint64_t *)in)[i] : ((const uint32_t *)in)[i];
        int64_t s = is64 ? ((const int64_t *)in)[i] : ((const int32_t *)in)[i];
        sum += u;
        if (s < smin) smin = s;
        if (s > smax) smax = s;
        if (u < umin) umin = u;
        if (u > umax) umax = u;
    }
    uint64_t r = op == GPGPU_SUM ? sum
                 : sgn ? (uint64_t)(op == GPGPU_MIN ? smin : smax)
                       : (op == GPGPU_MIN ? umin : umax);
    if (is64) {
        memcpy(out, &r, 8);
    } else {
        uint32_t r32 = (uint32_t)r;
        memcpy(out, &r32, 4);
    }
}
