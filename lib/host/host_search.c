/*
 * host_search.c - the plain-C fallback of gpgpu_search_sorted, gpgpu_gather
 * and gpgpu_argsort. Keys are compared as unsigned integers after the radix
 * sort's XOR masks (gpgpu__sort_masks), the order of gpgpu_sort and of
 * kernels/search.cl; argsort is the fallback's stable sort carrying each
 * key's index. Past PART needles or elements the host's threads take parts
 * of PART in any order: each part's outputs are its own.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

enum { PART = 1 << 16 };

static size_t parts_of(size_t n)
{
    return n / PART + (n % PART != 0);
}

/* ---- search_sorted -------------------------------------------------------- */

typedef struct {
    const void *sorted, *needles;
    size_t n, m;
    int right;
    uint64_t m0, m1, top;
    uint64_t *pos;
} search_job;

/* LANES searches side by side, each step a select: their cache misses
   overlap, where one search is a chain of dependent loads. The halving is
   kernels/search.cl's, the same steps for every needle. */
enum { LANES = 16 };

#define SEARCH_PART(W)                                                            \
    do {                                                                          \
        const uint##W##_t *s = j->sorted, *x = j->needles;                        \
        const uint##W##_t m0 = (uint##W##_t)j->m0, m1 = (uint##W##_t)j->m1;       \
        const uint##W##_t top = (uint##W##_t)j->top;                              \
        for (size_t k = first; k < end; k += LANES) {                             \
            uint##W##_t v[LANES];                                                 \
            size_t base[LANES];                                                   \
            for (int q = 0; q < LANES; q++) {                                     \
                uint##W##_t e = x[k + q < end ? k + q : end - 1];                 \
                v[q] = e ^ (e & top ? m1 : m0);                                   \
                base[q] = 0;                                                      \
            }                                                                     \
            for (size_t len = j->n; len > 1;) {                                   \
                const size_t step = len >> 1;                                     \
                for (int q = 0; q < LANES; q++) {                                 \
                    uint##W##_t e = s[base[q] + step];                            \
                    e ^= e & top ? m1 : m0;                                       \
                    base[q] = (j->right ? e <= v[q] : e < v[q]) ? base[q] + step  \
                                                                : base[q];        \
                }                                                                 \
                len -= step;                                                      \
            }                                                                     \
            for (int q = 0; q < LANES && k + q < end; q++) {                      \
                uint##W##_t e = s[base[q]];                                       \
                e ^= e & top ? m1 : m0;                                           \
                j->pos[k + q] = base[q] + (j->right ? e <= v[q] : e < v[q]);      \
            }                                                                     \
        }                                                                         \
    } while (0)

static void search_part(void *arg, size_t part)
{
    const search_job *j = arg;
    size_t first = part * PART, end = first + PART < j->m ? first + PART : j->m;
    if (j->top >> 32)
        SEARCH_PART(64);
    else
        SEARCH_PART(32);
}

void gpgpu__host_search_sorted(gpgpu_type t, const void *sorted, size_t n, const void *needles,
                               size_t m, unsigned side, uint64_t *pos)
{
    search_job j = {sorted, needles, n, m, side == GPGPU_SEARCH_RIGHT, 0, 0, 0, pos};
    gpgpu__sort_masks(t, GPGPU_ASCENDING, &j.m0, &j.m1);
    j.top = gpgpu__type(t)->is_64 ? 1ull << 63 : 1ull << 31;
    if (n == 0) {
        memset(pos, 0, m * sizeof *pos);
        return;
    }
    gpgpu__parallel(parts_of(m), search_part, &j);
}

/* ---- gather ----------------------------------------------------------------- */

/* The first i in [first, end) with indices[i] >= n_in, or SIZE_MAX. */
static size_t first_bad(const uint64_t *indices, size_t first, size_t end, size_t n_in)
{
    for (size_t i = first; i < end; i++)
        if (indices[i] >= n_in)
            return i;
    return SIZE_MAX;
}

typedef struct {
    const uint64_t *indices;
    size_t n, n_in;
    size_t *bad; /* per part: its first bad position, or SIZE_MAX */
} check_job;

static void check_part(void *arg, size_t part)
{
    const check_job *j = arg;
    size_t first = part * PART, end = first + PART < j->n ? first + PART : j->n;
    j->bad[part] = first_bad(j->indices, first, end, j->n_in);
}

size_t gpgpu__host_gather_check(const uint64_t *indices, size_t n, size_t n_in)
{
    size_t parts = parts_of(n), *bad = parts > 1 ? malloc(parts * sizeof *bad) : NULL;
    if (!bad) /* one part, or no memory: this thread */
        return first_bad(indices, 0, n, n_in);
    check_job j = {indices, n, n_in, bad};
    gpgpu__parallel(parts, check_part, &j);
    size_t first = SIZE_MAX;
    for (size_t p = 0; p < parts && first == SIZE_MAX; p++)
        first = bad[p];
    free(bad);
    return first;
}

typedef struct {
    size_t value_size, n;
    const void *in;
    const uint64_t *indices;
    void *out;
} gather_job;

static void gather_part(void *arg, size_t part)
{
    const gather_job *j = arg;
    size_t first = part * PART, end = first + PART < j->n ? first + PART : j->n;
    if (j->value_size == 8) {
        const uint64_t *in = j->in;
        uint64_t *out = j->out;
        for (size_t i = first; i < end; i++)
            out[i] = in[j->indices[i]];
    } else {
        const uint32_t *in = j->in;
        uint32_t *out = j->out;
        for (size_t i = first; i < end; i++)
            out[i] = in[j->indices[i]];
    }
}

void gpgpu__host_gather(size_t value_size, const void *in, const uint64_t *indices, size_t n,
                        void *out)
{
    gather_job j = {value_size, n, in, indices, out};
    gpgpu__parallel(parts_of(n), gather_part, &j);
}

/* ---- argsort ----------------------------------------------------------------- */

gpgpu_status gpgpu__host_argsort(gpgpu_type t, const void *keys, size_t n, unsigned flags,
                                 uint64_t *indices)
{
    const size_t size = gpgpu__type(t)->size;
    void *copy = gpgpu__malloc(n * size + 1);
    if (!copy)
        return GPGPU_ERROR_OUT_OF_MEMORY;
    memcpy(copy, keys, n * size);
    for (size_t i = 0; i < n; i++)
        indices[i] = i;
    gpgpu_status s = gpgpu__host_sort(t, copy, indices, sizeof *indices, n, flags);
    free(copy);
    return s;
}
