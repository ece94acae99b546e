/* ref_sort.c - see ref_sort.h. */
#include "ref_sort.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* totalOrder of two doubles (a float widens exactly, NaN payload aside):
   -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; NaNs of one sign by
   payload, larger payloads further from zero. */
static int total_order(double a, double b, uint64_t pa, uint64_t pb)
{
    int na = isnan(a), nb = isnan(b);
    int sa = signbit(a) != 0, sb = signbit(b) != 0;
    if (na || nb) {
        int ra = na ? (sa ? -1 : 1) : 0, rb = nb ? (sb ? -1 : 1) : 0;
        if (ra != rb)
            return CMP(ra, rb);
        int c = CMP(pa, pb); /* same-sign NaNs: by payload */
        return sa ? -c : c;
    }
    if (a != b)
        return a < b ? -1 : 1;
    return CMP(sb, sa); /* -0 before +0 */
}

int ref_sort_compare(gpgpu_type t, const void *a, const void *b)
{
    switch (t) {
    case GPGPU_I32: return CMP(*(const int32_t *)a, *(const int32_t *)b);
    case GPGPU_U32: return CMP(*(const uint32_t *)a, *(const uint32_t *)b);
    case GPGPU_I64: return CMP(*(const int64_t *)a, *(const int64_t *)b);
    case GPGPU_U64: return CMP(*(const uint64_t *)a, *(const uint64_t *)b);
    case GPGPU_F32: {
        float x, y;
        uint32_t px, py;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        memcpy(&px, a, 4);
        memcpy(&py, b, 4);
        return total_order(x, y, px & 0x7fffffffu, py & 0x7fffffffu);
    }
    case GPGPU_F64: {
        double x, y;
        uint64_t px, py;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&px, a, 8);
        memcpy(&py, b, 8);
        return total_order(x, y, px & ~(1ull << 63), py & ~(1ull << 63));
    }
    }
    return 0;
}

typedef struct {
    gpgpu_type t;
    const unsigned char *keys;
    size_t ks;
    int sign; /* 1 ascending, -1 descending */
} order;

static int before(const order *o, size_t a, size_t b) /* strictly before */
{
    return o->sign * ref_sort_compare(o->t, o->keys + a * o->ks, o->keys + b * o->ks) < 0;
}

/* Stable merge sort of the index array idx[0..n) using tmp. */
static void merge_sort(const order *o, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2, i = 0, j = h, k = 0;
    merge_sort(o, idx, tmp, h);
    merge_sort(o, idx + h, tmp, n - h);
    while (i < h && j < n)
        tmp[k++] = before(o, idx[j], idx[i]) ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static void permute(void *data, size_t size, const size_t *idx, size_t n, unsigned char *copy)
{
    memcpy(copy, data, n * size);
    for (size_t i = 0; i < n; i++)
        memcpy((unsigned char *)data + i * size, copy + idx[i] * size, size);
}

int ref_sort(gpgpu_type t, void *keys, void *values, size_t value_size, size_t n,
             unsigned flags)
{
    size_t ks = gpgpu_type_size(t);
    size_t *idx = malloc((2 * n + 1) * sizeof *idx);
    unsigned char *copy = malloc(n * 8 + 1);
    if (!idx || !copy) {
        free(idx);
        free(copy);
        return -1;
    }
    order o = { t, keys, ks, (flags & GPGPU_DESCENDING) ? -1 : 1 };
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    merge_sort(&o, idx, idx + n, n);
    permute(keys, ks, idx, n, copy);
    if (values)
        permute(values, value_size, idx, n, copy);
    free(idx);
    free(copy);
    return 0;
}
