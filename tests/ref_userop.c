/* ref_userop.c - plain-C references for user operators, maps and select. */
#include <string.h>

#include "ref_userop.h"

ref_val ref_get(gpgpu_type t, const void *a, size_t i)
{
    ref_val v;
    memset(&v, 0, sizeof v);
    switch (t) {
    case GPGPU_I32: v.i32 = ((const int32_t *)a)[i]; break;
    case GPGPU_U32: v.u32 = ((const uint32_t *)a)[i]; break;
    case GPGPU_F32: v.f = ((const float *)a)[i]; break;
    case GPGPU_I64: v.i64 = ((const int64_t *)a)[i]; break;
    case GPGPU_U64: v.u64 = ((const uint64_t *)a)[i]; break;
    case GPGPU_F64: v.f = ((const double *)a)[i]; break;
    }
    return v;
}

void ref_put(gpgpu_type t, void *a, size_t i, ref_val v)
{
    switch (t) {
    case GPGPU_I32: ((int32_t *)a)[i] = v.i32; break;
    case GPGPU_U32: ((uint32_t *)a)[i] = v.u32; break;
    case GPGPU_F32: ((float *)a)[i] = (float)v.f; break;
    case GPGPU_I64: ((int64_t *)a)[i] = v.i64; break;
    case GPGPU_U64: ((uint64_t *)a)[i] = v.u64; break;
    case GPGPU_F64: ((double *)a)[i] = (double)v.f; break;
    }
}

ref_val ref_map_reduce(gpgpu_type t, ref_combine f, ref_val identity, ref_map map,
                       const void *in, size_t n, long double *abs_sum)
{
    ref_val acc = identity;
    long double abs = 0;
    for (size_t i = 0; i < n; i++) {
        ref_val x = ref_get(t, in, i);
        if (map)
            x = map(x);
        if (t == GPGPU_F32 || t == GPGPU_F64)
            abs += x.f < 0 ? -x.f : x.f;
        acc = f(acc, x);
    }
    if (abs_sum)
        *abs_sum = abs;
    return acc;
}

void ref_user_scan(gpgpu_type t, ref_combine f, ref_val identity, gpgpu_scan_kind kind,
                   const void *in, ref_val *out, size_t n)
{
    ref_val acc = identity;
    for (size_t i = 0; i < n; i++) {
        ref_val x = ref_get(t, in, i);
        if (kind == GPGPU_EXCLUSIVE)
            out[i] = acc;
        acc = f(acc, x);
        if (kind == GPGPU_INCLUSIVE)
            out[i] = acc;
    }
}

size_t ref_select(gpgpu_type t, ref_pred keep, const void *in, size_t n, void *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        ref_val x = ref_get(t, in, i);
        if (keep(x, i))
            ref_put(t, out, k++, x);
    }
    return k;
}
