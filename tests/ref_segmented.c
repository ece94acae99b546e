/* ref_segmented.c - see ref_segmented.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ref.h"
#include "ref_scan.h"
#include "ref_segmented.h"

void ref_segmented_reduce(gpgpu_type t, gpgpu_op op, const void *in, const size_t *offsets,
                          size_t nseg, void *out)
{
    size_t size = gpgpu_type_size(t);
    for (size_t s = 0; s < nseg; s++) {
        long double exact, abs_sum;
        ref_reduce(t, op, (const char *)in + offsets[s] * size, offsets[s + 1] - offsets[s],
                   (char *)out + s * size, &exact, &abs_sum);
    }
}

void ref_segmented_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                        void *out, const size_t *offsets, size_t nseg)
{
    size_t size = gpgpu_type_size(t);
    for (size_t s = 0; s < nseg; s++)
        ref_scan(t, op, kind, (const char *)in + offsets[s] * size,
                 (char *)out + offsets[s] * size, offsets[s + 1] - offsets[s], NULL);
}

/* -1, 0 or 1 as a compares with b, for a non-NaN pair. */
static int compare(gpgpu_type t, const void *in, size_t a, size_t b)
{
#define CMP(T) { const T *x = in; return x[a] < x[b] ? -1 : x[a] > x[b]; }
    switch (t) {
    case GPGPU_I32: CMP(int32_t)
    case GPGPU_U32: CMP(uint32_t)
    case GPGPU_F32: CMP(float)
    case GPGPU_I64: CMP(int64_t)
    case GPGPU_U64: CMP(uint64_t)
    case GPGPU_F64: CMP(double)
    }
#undef CMP
    return 0;
}

static int is_nan(gpgpu_type t, const void *in, size_t i)
{
    if (t == GPGPU_F32)
        return isnan(((const float *)in)[i]);
    if (t == GPGPU_F64)
        return isnan(((const double *)in)[i]);
    return 0;
}

size_t ref_reduce_index(gpgpu_type t, gpgpu_op op, const void *in, size_t n)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (is_nan(t, in, i))
            continue;
        int c = best == SIZE_MAX ? 0 : compare(t, in, i, best);
        if (best == SIZE_MAX || (op == GPGPU_MIN ? c < 0 : c > 0))
            best = i;
    }
    return best;
}

size_t ref_runs(gpgpu_type key_type, const void *keys, size_t n, size_t *starts)
{
    size_t size = gpgpu_type_size(key_type), r = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || memcmp((const char *)keys + i * size, (const char *)keys + (i - 1) * size,
                             size))
            starts[r++] = i;
    starts[r] = n;
    return r;
}
