/* ref_select_k.c - see ref_select_k.h. */
#include "ref_select_k.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_sort.h"

int ref_top_k(gpgpu_type t, const void *in, size_t n, size_t k, unsigned flags, void *values,
              uint64_t *indices)
{
    size_t ks = gpgpu_type_size(t);
    char *keys = malloc(n * ks + 1);
    uint64_t *idx = malloc(n * sizeof *idx + 1);
    int r = -1;
    if (keys && idx) {
        memcpy(keys, in, n * ks);
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        r = ref_sort(t, keys, idx, 8, n, flags);
    }
    if (r == 0) {
        if (values)
            memcpy(values, keys, k * ks);
        if (indices)
            memcpy(indices, idx, k * sizeof *idx);
    }
    free(keys);
    free(idx);
    return r;
}

static double as_double(gpgpu_type t, const void *p)
{
    switch (t) {
    case GPGPU_I32: return (double)*(const int32_t *)p;
    case GPGPU_U32: return (double)*(const uint32_t *)p;
    case GPGPU_F32: return (double)*(const float *)p;
    case GPGPU_I64: return (double)*(const int64_t *)p;
    case GPGPU_U64: return (double)*(const uint64_t *)p;
    case GPGPU_F64: return *(const double *)p;
    }
    return 0;
}

int ref_quantiles(gpgpu_type t, const void *in, size_t n, const double *q, size_t nq,
                  double *out)
{
    size_t ks = gpgpu_type_size(t);
    char *x = malloc(n * ks + 1);
    if (!x || ref_sort(t, memcpy(x, in, n * ks), NULL, 0, n, 0) != 0) {
        free(x);
        return -1;
    }
    int nan = 0;
    for (size_t i = 0; i < n; i++)
        nan |= isnan(as_double(t, x + i * ks));
    for (size_t j = 0; j < nq; j++) {
        double h = (double)(n - 1) * q[j], fl = floor(h), g = h - fl;
        size_t i = (size_t)fl;
        double a = as_double(t, x + i * ks);
        if (nan) {
            out[j] = NAN;
        } else if (g == 0) {
            out[j] = a;
        } else {
            volatile double d = as_double(t, x + (i + 1) * ks) - a; /* no fused multiply-add */
            volatile double e = g * d;
            out[j] = a + e;
        }
    }
    free(x);
    return 0;
}
