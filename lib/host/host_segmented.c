/* host_segmented.c - the plain-C fallback of the segmented and by-key
   primitives and of reduce_index: per segment (or run) the fallback's own
   reduce and scan, so the semantics are theirs. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "host/host.h"

/* The fallback's reduce of one segment or run, GPGPU_SUM_EXACT included
   (the exact sum on floats, the plain sum on integers). */
static void reduce_one(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *out)
{
    if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float)
        gpgpu__host_sum_exact(t, in, n, out);
    else
        gpgpu__host_reduce(t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in, n, out);
}

void gpgpu__host_segmented_reduce(gpgpu_type t, gpgpu_op op, const void *in,
                                  const size_t *offsets, size_t nseg, void *out)
{
    const size_t size = gpgpu__type(t)->size;
    for (size_t s = 0; s < nseg; s++)
        reduce_one(t, op, (const char *)in + offsets[s] * size, offsets[s + 1] - offsets[s],
                   (char *)out + s * size);
}

void gpgpu__host_segmented_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                                const void *in, void *out, const size_t *offsets, size_t nseg)
{
    const size_t size = gpgpu__type(t)->size;
    for (size_t s = 0; s < nseg; s++)
        gpgpu__host_scan(t, op, kind, (const char *)in + offsets[s] * size,
                         (char *)out + offsets[s] * size, offsets[s + 1] - offsets[s], NULL);
}

/* First wins between equal values; a NaN never wins (x == x fails). */
#define INDEX_OF(T)                                                         \
    {                                                                       \
        const T *x = in;                                                    \
        for (size_t i = 0; i < n; i++) {                                    \
            if (x[i] != x[i])                                               \
                continue;                                                   \
            if (best == SIZE_MAX || (op == GPGPU_MIN ? x[i] < x[best] : x[i] > x[best])) \
                best = i;                                                   \
        }                                                                   \
    }

void gpgpu__host_reduce_index(gpgpu_type t, gpgpu_op op, const void *in, size_t n,
                              void *value, size_t *index)
{
    const size_t size = gpgpu__type(t)->size;
    size_t best = SIZE_MAX;
    switch (t) {
    case GPGPU_I32: INDEX_OF(int32_t) break;
    case GPGPU_U32: INDEX_OF(uint32_t) break;
    case GPGPU_F32: INDEX_OF(float) break;
    case GPGPU_I64: INDEX_OF(int64_t) break;
    case GPGPU_U64: INDEX_OF(uint64_t) break;
    case GPGPU_F64: INDEX_OF(double) break;
    }
    *index = best;
    if (best == SIZE_MAX)
        gpgpu__identity(t, op, value);
    else
        memcpy(value, (const char *)in + best * size, size);
}

/* The end of the run of keys starting at i: keys compare as bit patterns. */
static size_t run_end(const unsigned char *keys, size_t ksize, size_t i, size_t n)
{
    size_t j = i + 1;
    if (ksize == 4) { /* the key types' widths, compared as words */
        const uint32_t *k = (const uint32_t *)(const void *)keys, head = k[i];
        while (j < n && k[j] == head)
            j++;
    } else if (ksize == 8) {
        const uint64_t *k = (const uint64_t *)(const void *)keys, head = k[i];
        while (j < n && k[j] == head)
            j++;
    } else {
        while (j < n && !memcmp(keys + j * ksize, keys + i * ksize, ksize))
            j++;
    }
    return j;
}

size_t gpgpu__host_reduce_by_key(gpgpu_type key_type, const void *keys, gpgpu_type value_type,
                                 gpgpu_op op, const void *values, size_t n, void *keys_out,
                                 void *values_out)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    size_t runs = 0;
    for (size_t i = 0; i < n; runs++) {
        size_t j = run_end(keys, ksize, i, n);
        memcpy((char *)keys_out + runs * ksize, (const char *)keys + i * ksize, ksize);
        reduce_one(value_type, op, (const char *)values + i * vsize, j - i,
                   (char *)values_out + runs * vsize);
        i = j;
    }
    return runs;
}

void gpgpu__host_scan_by_key(gpgpu_type key_type, const void *keys, gpgpu_type value_type,
                             gpgpu_op op, gpgpu_scan_kind kind, const void *values, void *out,
                             size_t n)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    for (size_t i = 0; i < n;) {
        size_t j = run_end(keys, ksize, i, n);
        gpgpu__host_scan(value_type, op, kind, (const char *)values + i * vsize,
                         (char *)out + i * vsize, j - i, NULL);
        i = j;
    }
}
