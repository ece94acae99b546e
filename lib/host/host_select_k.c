/*
 * host_select_k.c - the plain-C fallback of gpgpu_top_k and
 * gpgpu_quantiles, and what the device forms share with it: keys made
 * unsigned by the sort's masks (gpgpu__sort_masks), so that every type and
 * both orders compare as integers; top_k keeps the k best (key, index)
 * pairs in a heap per part of the data, on the host's threads (CPU
 * devices' host calls come here too: plan.c); quantiles selects each rank
 * on a copy of the keys.
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

/* Moves the r-th smallest of a[lo .. hi) to a[r], smaller ones before it
   and larger ones after: Hoare partitions around the middle element's
   value (keys equal to it stop both scans, so equal keys still split the
   range in halves), then insertion below 16 keys. One function per key
   width: 32-bit keys move half the bytes. (A three-way partition, which
   ends at once on runs of equal keys, took twice the serial loop's time
   on random keys: 0.042 ms against 0.020 for a median of 4096 u32.) */
#define QUICKSELECT(name, T)                                                           \
    static void name(T *a, size_t lo, size_t hi, size_t r)                             \
    {                                                                                  \
        while (hi - lo > 16) {                                                         \
            T p = a[lo + (hi - lo - 1) / 2];                                           \
            size_t i = lo, j = hi - 1;                                                 \
            for (;;) {                                                                 \
                while (a[i] < p)                                                       \
                    i++;                                                               \
                while (a[j] > p)                                                       \
                    j--;                                                               \
                if (i >= j)                                                            \
                    break;                                                             \
                T v = a[i];                                                            \
                a[i++] = a[j];                                                         \
                a[j--] = v;                                                            \
            }                                                                          \
            /* [lo, j] at most p, (j, hi) at least p, lo <= j < hi - 1 */              \
            if (r <= j)                                                                \
                hi = j + 1;                                                            \
            else                                                                       \
                lo = j + 1;                                                            \
        }                                                                              \
        for (size_t i = lo + 1; i < hi; i++) {                                         \
            T v = a[i];                                                                \
            size_t k = i;                                                              \
            for (; k > lo && a[k - 1] > v; k--)                                        \
                a[k] = a[k - 1];                                                       \
            a[k] = v;                                                                  \
        }                                                                              \
    }
/* The rank after one just selected (a quantile between two keys): the
   least of a[lo .. hi) to a[lo], one scan instead of a selection. */
#define MIN_TO_FRONT(name, T)                                                          \
    static void name(T *a, size_t lo, size_t hi)                                       \
    {                                                                                  \
        size_t at = lo;                                                                \
        for (size_t i = lo + 1; i < hi; i++)                                           \
            at = a[i] < a[at] ? i : at;                                                \
        T v = a[lo];                                                                   \
        a[lo] = a[at];                                                                 \
        a[at] = v;                                                                     \
    }
/* The keys of ranks[0 .. nr) (ascending) among x[0 .. n) transformed by
   the masks into keys[]: each selection narrows the range of the next,
   and a rank right after the one before is the least key beyond it.
   Returns 1 if a key lies outside [nan_lo, nan_hi] (a NaN: nothing is
   selected), -1 without memory. */
#define SELECT_RANKS(name, T, qs, mtf)                                                 \
    static int name(const T *x, size_t n, T m0, T m1, T nan_lo, T nan_hi,              \
                    const size_t *ranks, size_t nr, uint64_t *keys)                    \
    {                                                                                  \
        const int top = (int)sizeof(T) * 8 - 1;                                        \
        T *a = malloc(n * sizeof *a), dm = m0 ^ m1;                                    \
        int nan = 0;                                                                   \
        size_t lo = 0;                                                                 \
        if (!a)                                                                        \
            return -1;                                                                 \
        for (size_t i = 0; i < n; i++) {                                               \
            a[i] = x[i] ^ (m0 ^ ((0 - (x[i] >> top)) & dm));                           \
            nan |= a[i] < nan_lo || a[i] > nan_hi;                                     \
        }                                                                              \
        for (size_t j = 0; j < nr && !nan; j++) {                                      \
            if (j && ranks[j] == lo + 1)                                               \
                mtf(a, ranks[j], n);                                                   \
            else                                                                       \
                qs(a, lo, n, ranks[j]);                                                \
            keys[j] = a[ranks[j]];                                                     \
            lo = ranks[j];                                                             \
        }                                                                              \
        free(a);                                                                       \
        return nan;                                                                    \
    }
MIN_TO_FRONT(min_to_front64, uint64_t)
MIN_TO_FRONT(min_to_front32, uint32_t)
QUICKSELECT(quickselect64, uint64_t)
QUICKSELECT(quickselect32, uint32_t)
SELECT_RANKS(select_ranks64, uint64_t, quickselect64, min_to_front64)
SELECT_RANKS(select_ranks32, uint32_t, quickselect32, min_to_front32)

/* Pushes (u, i) into the max-heap h of *m pairs (k at most): appended
   while there is room, else in place of the largest (which it beats). */
static void heap_push(pair *h, size_t *m, size_t k, uint64_t u, uint64_t i)
{
    pair x = {u, i};
    if (*m == k) {
        h[0] = x;
        sift_down(h, k, 0);
        return;
    }
    size_t at = (*m)++;
    while (at > 0 && after(&x, &h[(at - 1) / 2])) {
        h[at] = h[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    h[at] = x;
}

/* top_k on the host's threads: each part of the data keeps the k best
   pairs among its keys at most lim in a heap. The keys are tested
   TK_BLOCK at a time by a loop of compares the compiler vectorises; a
   block is looked at key by key only when one of them may enter, which
   after the first blocks is rare, so the parts read at the memory's pace.
   lim comes from a sample, so that an adversarial order (keys improving
   as the index grows) still enters few. */
enum { TK_BLOCK = 64, TK_SAMPLE = 2048, TK_PART_MIN = 1 << 15, TK_THREADS_MIN = 1 << 20 };

typedef struct {
    const void *in;
    size_t n, k, nparts;
    int is64;
    uint64_t m0, m1, lim;
    pair *heaps; /* k per part */
    size_t *fill;
} topk_job;

/* Whether a key of x[0 .. TK_BLOCK) is at most lim (branch-free). */
static int block_hit(const topk_job *j, size_t at, uint64_t lim)
{
    if (j->is64) {
        const uint64_t *x = (const uint64_t *)j->in + at;
        uint64_t m0 = j->m0, dm = j->m0 ^ j->m1, hit = 0;
        for (int e = 0; e < TK_BLOCK; e++)
            hit |= (x[e] ^ (m0 ^ ((0 - (x[e] >> 63)) & dm))) <= lim;
        return hit != 0;
    }
    const uint32_t *x = (const uint32_t *)j->in + at;
    uint32_t m0 = (uint32_t)j->m0, dm = (uint32_t)(j->m0 ^ j->m1), l = (uint32_t)lim, hit = 0;
    for (int e = 0; e < TK_BLOCK; e++)
        hit |= (x[e] ^ (m0 ^ ((0 - (x[e] >> 31)) & dm))) <= l;
    return hit != 0;
}

/* Part p of n elements cut into nparts: [*lo, *hi). */
static void part_range(size_t n, size_t nparts, size_t p, size_t *lo, size_t *hi)
{
    size_t each = n / nparts, extra = n % nparts;
    *lo = each * p + (p < extra ? p : extra);
    *hi = *lo + each + (p < extra);
}

/* Parts for the host's threads: at least TK_PART_MIN elements each, a
   few per thread to balance them; 1 below TK_THREADS_MIN elements, where
   waking the threads cost more than they saved (2 cores, 2026-11-26,
   GPGPU_DEVICE=host gpgpu-bench --api host --op top_k --sizes 16,18,20,22
   --repeat 9, two rounds each, ms parts / one: u32 0.060 / 0.045-0.049
   at 2^16, 0.18-0.29 / 0.11-0.14 at 2^18; the loop 0.034 and 0.105). */
static size_t parts_for(size_t n)
{
    size_t parts = n < TK_THREADS_MIN ? 1 : n / TK_PART_MIN, most = 4 * gpgpu__host_threads();
    return parts > most ? most : parts < 2 ? 1 : parts;
}

static void topk_part(void *arg, size_t p)
{
    const topk_job *j = arg;
    size_t lo, hi;
    part_range(j->n, j->nparts, p, &lo, &hi);
    pair *h = j->heaps + p * j->k;
    size_t m = 0;
    uint64_t lim = j->lim;
    for (size_t i = lo; i < hi;) {
        size_t end = hi - i < TK_BLOCK ? hi : i + TK_BLOCK;
        if (end - i == TK_BLOCK && !block_hit(j, i, lim)) {
            i = end;
            continue;
        }
        for (; i < end; i++) {
            uint64_t u = xf(raw(j->in, i, j->is64), j->is64, j->m0, j->m1);
            if (u > lim)
                continue;
            heap_push(h, &m, j->k, u, i);
            if (m == j->k) { /* a later index never beats an equal key */
                if (h[0].u == 0)
                    goto done;
                lim = h[0].u - 1;
            }
        }
    }
done:
    j->fill[p] = m;
}

/* A key that at least k keys are likely at most: the key of a sample's
   rank a few deviations past the expected one, or the largest key. */
static uint64_t topk_limit(const topk_job *j)
{
    uint64_t s[TK_SAMPLE];
    double want = (double)j->k * TK_SAMPLE / (double)j->n;
    size_t c = (size_t)(want + want / 4 + 8);
    if (c >= TK_SAMPLE)
        return UINT64_MAX;
    for (size_t i = 0; i < TK_SAMPLE; i++)
        s[i] = xf(raw(j->in, (size_t)((double)i * (double)j->n / TK_SAMPLE), j->is64),
                  j->is64, j->m0, j->m1);
    quickselect64(s, 0, TK_SAMPLE, c);
    return s[c];
}

gpgpu_status gpgpu__host_top_k(gpgpu_type t, const void *in, size_t n, size_t k,
                               unsigned flags, void *values, uint64_t *indices)
{
    topk_job j = {in, n, k, parts_for(n), gpgpu__type(t)->is_64, 0, 0, UINT64_MAX, NULL, NULL};
    if (k == 0)
        return GPGPU_SUCCESS;
    gpgpu__sort_masks(t, flags, &j.m0, &j.m1);
    if (k > TK_PART_MIN / 8) /* parts only where the heaps stay small beside them */
        j.nparts = 1;
    j.heaps = malloc(j.nparts * k * sizeof *j.heaps);
    j.fill = malloc(j.nparts * sizeof *j.fill);
    if (!j.heaps || !j.fill) {
        free(j.heaps);
        free(j.fill);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    if (j.nparts > 1) {
        j.lim = topk_limit(&j);
        gpgpu__parallel(j.nparts, topk_part, &j);
    }
    size_t total = 0;
    for (size_t p = 0; p < j.nparts && j.nparts > 1; p++)
        total += j.fill[p];
    if (total < k) { /* one part, or fewer than k keys at most the sample's limit */
        j.lim = UINT64_MAX;
        if (j.nparts > 1)
            gpgpu__parallel(j.nparts, topk_part, &j);
        else
            topk_part(&j, 0);
        total = 0;
        for (size_t p = 0; p < j.nparts; p++)
            total += j.fill[p];
    }
    /* the other parts' pairs into the first part's heap, then a heap sort
       puts its k (total >= k) in ascending order */
    size_t m = j.fill[0];
    for (size_t p = 1; p < j.nparts; p++)
        for (const pair *x = j.heaps + p * k; x < j.heaps + p * k + j.fill[p]; x++)
            if (m < k || after(&j.heaps[0], x))
                heap_push(j.heaps, &m, k, x->u, x->i);
    for (; m > 1; m--) {
        pair x = j.heaps[0];
        j.heaps[0] = j.heaps[m - 1];
        j.heaps[m - 1] = x;
        sift_down(j.heaps, m - 1, 0);
    }
    for (size_t i = 0; i < k; i++) {
        if (values && j.is64)
            ((uint64_t *)values)[i] = raw(in, j.heaps[i].i, 1);
        else if (values)
            ((uint32_t *)values)[i] = (uint32_t)raw(in, j.heaps[i].i, 0);
        if (indices)
            indices[i] = j.heaps[i].i;
    }
    free(j.heaps);
    free(j.fill);
    return GPGPU_SUCCESS;
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
    if (ti->is_64)
        return select_ranks64(in, n, m0, m1, nan_lo, nan_hi, ranks, nr, keys);
    /* 32-bit keys as 32-bit words: half the bytes */
    return select_ranks32(in, n, (uint32_t)m0, (uint32_t)m1, (uint32_t)nan_lo,
                          (uint32_t)nan_hi, ranks, nr, keys);
}
