/*
 * ref_search.c - plain-C references for search, argsort and gather: a
 * lower/upper bound by ref_sort_compare, qsort of the indices by key
 * then index, and a loop of copies.
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

/* qsort's comparator sees no context: the keys of the one argsort at work. */
static struct {
    gpgpu_type t;
    const char *keys;
    size_t size;
    int descending;
} arg;

/* Keys in gpgpu_sort's order, equal keys by index in either direction. */
static int by_key_then_index(const void *a, const void *b)
{
    uint64_t i = *(const uint64_t *)a, j = *(const uint64_t *)b;
    int c = ref_sort_compare(arg.t, arg.keys + i * arg.size, arg.keys + j * arg.size);
    if (arg.descending)
        c = -c;
    return c ? c : (i > j) - (i < j);
}

int ref_argsort(gpgpu_type t, const void *keys, size_t n, unsigned flags, uint64_t *indices)
{
    arg.t = t;
    arg.keys = keys;
    arg.size = gpgpu_type_size(t);
    arg.descending = (flags & GPGPU_DESCENDING) != 0;
    for (size_t i = 0; i < n; i++)
        indices[i] = i;
    qsort(indices, n, sizeof *indices, by_key_then_index);
    return 0;
}

void ref_gather(size_t value_size, const void *in, const uint64_t *indices, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++)
        memcpy((char *)out + i * value_size, (const char *)in + indices[i] * value_size,
               value_size);
}
