/* ref_segmented.c - see ref_segmented.h. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

/* The key of element i as an unsigned number in the wanted order: sign bit
   flipped for signed integers; for floats all bits flipped when negative,
   else the sign bit set (IEEE 754 totalOrder). */
static uint64_t order_key(gpgpu_type t, const void *keys, size_t i)
{
    switch (t) {
    case GPGPU_I32: return (uint32_t)((const int32_t *)keys)[i] ^ 0x80000000u;
    case GPGPU_U32: return ((const uint32_t *)keys)[i];
    case GPGPU_I64: return (uint64_t)((const int64_t *)keys)[i] ^ 0x8000000000000000ull;
    case GPGPU_U64: return ((const uint64_t *)keys)[i];
    case GPGPU_F32: {
        uint32_t b;
        memcpy(&b, (const float *)keys + i, 4);
        return b >> 31 ? ~b : b | 0x80000000u;
    }
    default: {
        uint64_t b;
        memcpy(&b, (const double *)keys + i, 8);
        return b >> 63 ? ~b : b | 0x8000000000000000ull;
    }
    }
}

typedef struct {
    uint64_t key;
    size_t at;
} ref_item;

static int descending;

static int item_cmp(const void *a, const void *b)
{
    const ref_item *x = a, *y = b;
    if (x->key != y->key)
        return (x->key < y->key) != descending ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

void ref_segmented_sort(gpgpu_type t, void *keys, void *values, size_t value_size,
                        const size_t *offsets, size_t nseg, unsigned flags)
{
    size_t ks = gpgpu_type_size(t);
    descending = (flags & GPGPU_DESCENDING) != 0;
    for (size_t s = 0; s < nseg; s++) {
        size_t lo = offsets[s], len = offsets[s + 1] - lo;
        ref_item *it = malloc((len ? len : 1) * sizeof *it);
        unsigned char *kc = malloc(len * ks + 1), *vc = malloc(len * value_size + 1);
        for (size_t i = 0; i < len; i++)
            it[i] = (ref_item){ order_key(t, keys, lo + i), lo + i };
        qsort(it, len, sizeof *it, item_cmp);
        for (size_t i = 0; i < len; i++) {
            memcpy(kc + i * ks, (char *)keys + it[i].at * ks, ks);
            if (values)
                memcpy(vc + i * value_size, (char *)values + it[i].at * value_size, value_size);
        }
        memcpy((char *)keys + lo * ks, kc, len * ks);
        if (values)
            memcpy((char *)values + lo * value_size, vc, len * value_size);
        free(it);
        free(kc);
        free(vc);
    }
}
