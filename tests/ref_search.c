/*
 * ref_search.c - plain-C references for search, argsort and gather: a
 * lower/upper bound by ref_sort_compare, the merge sort of ref_sort.c
 * carrying each key's index, and a loop of copies.
 */
#include <stdlib.h>
#include <string.h>

#include "ref_search.h"
#include "ref_sort.h"

void ref_search_sorted(gpgpu_type t, const void *sorted, size_t n, const void *needles,
                       size_t m, unsigned side, uint64_t *pos)
{
    const size_t size = gpgpu_type_size(t);
    const char *s = sorted, *x = needles;
    for (size_t j = 0; j < m; j++) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = ref_sort_compare(t, s + mid * size, x + j * size);
            if (c < 0 || (side == GPGPU_SEARCH_RIGHT && c == 0))
                lo = mid + 1;
            else
                hi = mid;
        }
        pos[j] = lo;
    }
}

int ref_argsort(gpgpu_type t, const void *keys, size_t n, unsigned flags, uint64_t *indices)
{
    const size_t size = gpgpu_type_size(t);
    void *copy = malloc(n * size + 1);
    if (!copy)
        return -1;
    memcpy(copy, keys, n * size);
    for (size_t i = 0; i < n; i++)
        indices[i] = i;
    int r = ref_sort(t, copy, indices, sizeof *indices, n, flags);
    free(copy);
    return r;
}

void ref_gather(size_t value_size, const void *in, const uint64_t *indices, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++)
        memcpy((char *)out + i * value_size, (const char *)in + indices[i] * value_size,
               value_size);
}
