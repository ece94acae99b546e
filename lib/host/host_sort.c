/*
 * host_sort.c - the plain-C fallback of gpgpu_sort and gpgpu_sort_pairs: a
 * stable LSD radix sort of transformed keys (the same bit transform as
 * kernels/sort.cl), 8-bit digits, all digit histograms counted in one read,
 * passes whose digit is the same for every key skipped, nothing done for
 * keys already in order.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

enum { RADIX_BITS = 8, RADIX = 1 << RADIX_BITS, MAX_DIGITS = 8 };

/* The XOR masks that turn a key's bits into an unsigned integer ordered as
   wanted: m1 applies when the top bit is set, m0 otherwise. Floats follow
   totalOrder (negative: flip all, positive: flip the sign), signed integers
   flip the sign, descending flips everything on top. */
void gpgpu__sort_masks(gpgpu_type t, unsigned flags, uint64_t *m0, uint64_t *m1)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    uint64_t all = ti->is_64 ? ~0ull : 0xffffffffull;
    uint64_t sign = ti->is_64 ? 1ull << 63 : 1ull << 31;

    *m0 = *m1 = 0;
    if (ti->is_float) {
        *m0 = sign;
        *m1 = all;
    } else if (ti->is_signed) {
        *m0 = *m1 = sign;
    }
    if (flags & GPGPU_DESCENDING) {
        *m0 ^= all;
        *m1 ^= all;
    }
}

static uint64_t load(const void *keys, size_t i, int is64)
{
    if (is64)
        return ((const uint64_t *)keys)[i];
    return ((const uint32_t *)keys)[i];
}

static void store(void *keys, size_t i, int is64, uint64_t x)
{
    if (is64)
        ((uint64_t *)keys)[i] = x;
    else
        ((uint32_t *)keys)[i] = (uint32_t)x;
}

/* One stable counting-sort pass of (k, idx) by digit d into (k2, idx2). */
static void pass(const uint64_t *k, const size_t *idx, uint64_t *k2, size_t *idx2, size_t n,
                 int d, const size_t *count)
{
    size_t pos[RADIX], sum = 0;
    int shift = d * RADIX_BITS;

    for (int v = 0; v < RADIX; v++) {
        pos[v] = sum;
        sum += count[v];
    }
    for (size_t i = 0; i < n; i++) {
        size_t p = pos[(k[i] >> shift) & (RADIX - 1)]++;
        k2[p] = k[i];
        if (idx)
            idx2[p] = idx[i];
    }
}

gpgpu_status gpgpu__host_sort(gpgpu_type t, void *keys, void *values, size_t value_size,
                              size_t n, unsigned flags)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    int is64 = ti->is_64, digits = is64 ? 8 : 4;
    uint64_t m0, m1, top = is64 ? 63 : 31;
    uint64_t *k;
    size_t *idx = NULL;
    size_t(*count)[RADIX];

    if (n < 2)
        return GPGPU_SUCCESS;
    k = malloc(2 * n * sizeof *k);
    count = calloc(MAX_DIGITS, sizeof *count);
    if (values)
        idx = malloc(2 * n * sizeof *idx + n * value_size);
    if (!k || !count || (values && !idx)) {
        free(k);
        free(count);
        free(idx);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }

    int in_order = 1;
    gpgpu__sort_masks(t, flags, &m0, &m1);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = load(keys, i, is64);
        x ^= (x >> top) ? m1 : m0;
        in_order &= i == 0 || x >= k[i - 1];
        k[i] = x;
        for (int d = 0; d < digits; d++)
            count[d][(x >> (d * RADIX_BITS)) & (RADIX - 1)]++;
        if (idx)
            idx[i] = i;
    }

    if (in_order) {
        free(k);
        free(count);
        free(idx);
        return GPGPU_SUCCESS;
    }
    uint64_t *src = k, *dst = k + n;
    size_t *isrc = idx, *idst = idx ? idx + n : NULL;
    for (int d = 0; d < digits; d++) {
        if (count[d][(src[0] >> (d * RADIX_BITS)) & (RADIX - 1)] == n)
            continue; /* every key has this digit: the pass would not move anything */
        pass(src, isrc, dst, idst, n, d, count[d]);
        uint64_t *kt = src;
        src = dst;
        dst = kt;
        size_t *it = isrc;
        isrc = idst;
        idst = it;
    }

    /* Undo the transform: the top bit after it tells which mask applied. */
    uint64_t if_set = (m0 >> top) & 1 ? m0 : m1, if_clear = (m0 >> top) & 1 ? m1 : m0;
    for (size_t i = 0; i < n; i++)
        store(keys, i, is64, src[i] ^ ((src[i] >> top) ? if_set : if_clear));
    if (values) {
        unsigned char *copy = (unsigned char *)(idx + 2 * n);
        memcpy(copy, values, n * value_size);
        for (size_t i = 0; i < n; i++)
            memcpy((unsigned char *)values + i * value_size, copy + isrc[i] * value_size,
                   value_size);
    }
    free(k);
    free(count);
    free(idx);
    return GPGPU_SUCCESS;
}
