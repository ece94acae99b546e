/*
 * host_select_k.c - the plain-C fallback of gpgpu_top_k and
 * gpgpu_quantiles, and what the device forms share with it: keys made
 * unsigned by the sort's masks (gpgpu__sort_masks), so that every type and
 * both orders compare as integers; top_k keeps the k best (key, index)
 * pairs in a heap; quantiles selects each rank on a copy of the keys.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

typedef struct {
    uint64_t u, i;
} pair;

static uint64_t raw(const void *a, size_t i, int is64)
{
    return is64 ? ((const uint64_t *)a)[i] : ((const uint32_t *)a)[i];
}

static uint64_t xf(uint64_t x, int is64, uint64_t m0, uint64_t m1)
{
    return x ^ ((x >> (is64 ? 63 : 31)) ? m1 : m0);
}

uint64_t gpgpu__select_unmap(gpgpu_type t, uint64_t u, uint64_t m0, uint64_t m1)
{
    int top = gpgpu__type(t)->is_64 ? 63 : 31;
    uint64_t x = u ^ m0;
    return (x >> top) & 1 ? u ^ m1 : x;
}

double gpgpu__select_double(gpgpu_type t, uint64_t x)
{
    switch (t) {
    case GPGPU_I32: return (double)(int32_t)(uint32_t)x;
    case GPGPU_U32: return (double)(uint32_t)x;
    case GPGPU_F32: {
        uint32_t w = (uint32_t)x;
        float f;
        memcpy(&f, &w, 4);
        return (double)f;
    }
    case GPGPU_I64: return (double)(int64_t)x;
    case GPGPU_U64: return (double)x;
    case GPGPU_F64: {
        double d;
        memcpy(&d, &x, 8);
        return d;
    }
    }
    return 0;
}

void gpgpu__quantile_rule(double q, size_t n, size_t *i, double *g)
{
    double h = (double)(n - 1) * q, f = (double)(size_t)h;
    *i = (size_t)f;
    *g = h - f;
}

double gpgpu__quantile_mix(double a, double b, double g)
{
    /* Each step rounded on its own, as the kernel's FP_CONTRACT OFF: no
       fused multiply-add may change the last bit. */
    volatile double d = b - a;
    volatile double e = g * d;
    return g == 0 ? a : a + e;
}

/* (u, i) after (v, j) in the max-heap's order. */
static int after(const pair *a, const pair *b)
{
    return a->u > b->u || (a->u == b->u && a->i > b->i);
}

static void sift_down(pair *h, size_t n, size_t at)
{
    for (;;) {
        size_t c = 2 * at + 1;
        if (c >= n)
            return;
        if (c + 1 < n && after(&h[c + 1], &h[c]))
            c++;
        if (!after(&h[c], &h[at]))
            return;
        pair x = h[at];
        h[at] = h[c];
        h[c] = x;
        at = c;
    }
}

gpgpu_status gpgpu__host_top_k(gpgpu_type t, const void *in, size_t n, size_t k,
                               unsigned flags, void *values, uint64_t *indices)
{
    const int is64 = gpgpu__type(t)->is_64;
    uint64_t m0, m1;
    if (k == 0)
        return GPGPU_SUCCESS;
    pair *h = malloc(k * sizeof *h);
    if (!h)
        return GPGPU_ERROR_OUT_OF_MEMORY;
    gpgpu__sort_masks(t, flags, &m0, &m1);
    /* a max-heap of the k first (key, index) pairs seen so far */
    for (size_t i = 0; i < k; i++) {
        h[i].u = xf(raw(in, i, is64), is64, m0, m1);
        h[i].i = i;
    }
    for (size_t i = k / 2; i-- > 0;)
        sift_down(h, k, i);
    for (size_t i = k; i < n; i++) {
        uint64_t u = xf(raw(in, i, is64), is64, m0, m1);
        if (u < h[0].u) { /* a later index never beats an equal key */
            h[0].u = u;
            h[0].i = i;
            sift_down(h, k, 0);
        }
    }
    for (size_t m = k; m > 1; m--) { /* heap sort: ascending in place */
        pair x = h[0];
        h[0] = h[m - 1];
        h[m - 1] = x;
        sift_down(h, m - 1, 0);
    }
    for (size_t i = 0; i < k; i++) {
        if (values && is64)
            ((uint64_t *)values)[i] = raw(in, h[i].i, 1);
        else if (values)
            ((uint32_t *)values)[i] = (uint32_t)raw(in, h[i].i, 0);
        if (indices)
            indices[i] = h[i].i;
    }
    free(h);
    return GPGPU_SUCCESS;
}

/* Moves the r-th smallest of a[lo .. hi) to a[r], smaller ones before it
   and larger ones after: three-way partitions around the median of three,
   so that runs of equal keys end the search at once. */
static void quickselect(uint64_t *a, size_t lo, size_t hi, size_t r)
{
    while (hi - lo > 1) {
        uint64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
        uint64_t p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */
        while (i < gt) {
            uint64_t v = a[i];
            if (v < p) {
                a[i++] = a[lt];
                a[lt++] = v;
            } else if (v > p) {
                a[i] = a[--gt];
                a[gt] = v;
            } else {
                i++;
            }
        }
        if (r < lt)
            hi = lt;
        else if (r >= gt)
            lo = gt;
        else
            return;
    }
}

int gpgpu__host_select(gpgpu_type t, const void *in, size_t n, const size_t *ranks, size_t nr,
                       uint64_t *keys)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    uint64_t m0, m1, nan_lo = 0, nan_hi = UINT64_MAX;
    gpgpu__sort_masks(t, 0, &m0, &m1);
    if (ti->is_float) {
        nan_lo = xf(ti->is_64 ? 0xfff0000000000000ull : 0xff800000ull, ti->is_64, m0, m1);
        nan_hi = xf(ti->is_64 ? 0x7ff0000000000000ull : 0x7f800000ull, ti->is_64, m0, m1);
    }
    uint64_t *a = malloc(n * sizeof *a);
    if (!a)
        return -1;
    int nan = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = xf(raw(in, i, ti->is_64), ti->is_64, m0, m1);
        nan |= a[i] < nan_lo || a[i] > nan_hi;
    }
    /* ranks ascending: each selection narrows the range of the next */
    size_t lo = 0;
    for (size_t j = 0; j < nr && !nan; j++) {
        quickselect(a, lo, n, ranks[j]);
        keys[j] = a[ranks[j]];
        lo = ranks[j];
    }
    free(a);
    return nan;
}
