/*
 * host_sort.c - the plain-C fallback of gpgpu_sort and gpgpu_sort_pairs: a
 * stable LSD radix sort of transformed keys (the same bit transform as
 * kernels/sort.cl), 8-bit digits, all digit histograms counted in one read,
 * passes whose digit is the same for every key skipped, nothing done for
 * keys already in order.
 *
 * On the library's host threads (lib/core/pool.c): the array is cut into
 * one contiguous part per thread; each part counts its digits, the counts
 * are scanned into each part's first place for each digit (all parts'
 * smaller digits, then the earlier parts' same digit), and every part
 * scatters its elements from there, so each pass stays stable. 32-bit keys
 * travel as 32-bit words.
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

enum { MIN_PART = 1 << 16 };    /* elements a thread at least */

typedef struct {
    int is64, digits;
    size_t n, nparts;
    const void *in;             /* the caller's keys */
    void *keys;                 /* the caller's keys, written at the end */
    uint64_t m0, m1, top;       /* the transform (gpgpu__sort_masks) */
    uint64_t if_set, if_clear;  /* its inverse */
    void *src, *dst;            /* transformed keys: n words each */
    size_t *isrc, *idst;        /* each key's index in the input, or NULL */
    size_t (*count)[MAX_DIGITS][RADIX];  /* nparts: every digit, of the input */
    size_t (*pos)[RADIX];       /* nparts: the part's counts, then its places */
    int *in_order;              /* nparts */
    int d;                      /* the pass */
    /* values */
    unsigned char *values, *copy;
    size_t vsize;
} sort_job;

static size_t part_first(const sort_job *j, size_t i)
{
    return j->n / j->nparts * i + j->n % j->nparts * i / j->nparts;
}

#define SORT_FUNCS(W, SUF)                                                              \
    static void prep_##SUF(void *arg, size_t part)                                      \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *in = j->in;                                                            \
        W *k = j->src, prev = 0;                                                        \
        size_t(*count)[RADIX] = j->count[part];                                         \
        int in_order = 1;                                                               \
        const W m0 = (W)j->m0, m1 = (W)j->m1;                                           \
        const unsigned top = (unsigned)j->top;                                          \
        for (size_t i = a; i < b; i++) {                                                \
            W x = in[i];                                                                \
            x ^= (x >> top) ? m1 : m0;                                                  \
            in_order &= i == a || x >= prev;                                            \
            prev = x;                                                                   \
            k[i] = x;                                                                   \
            for (int d = 0; d < j->digits; d++)                                         \
                count[d][(x >> (d * RADIX_BITS)) & (RADIX - 1)]++;                      \
        }                                                                               \
        if (j->isrc)                                                                    \
            for (size_t i = a; i < b; i++)                                              \
                j->isrc[i] = i;                                                         \
        j->in_order[part] = in_order;                                                   \
    }                                                                                   \
    static void count_##SUF(void *arg, size_t part)                                     \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *k = j->src;                                                            \
        size_t *c = j->pos[part];                                                       \
        const int shift = j->d * RADIX_BITS;                                            \
        memset(c, 0, RADIX * sizeof *c);                                                \
        for (size_t i = a; i < b; i++)                                                  \
            c[(k[i] >> shift) & (RADIX - 1)]++;                                         \
    }                                                                                   \
    static void scatter_##SUF(void *arg, size_t part)                                   \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *k = j->src;                                                            \
        W *k2 = j->dst;                                                                 \
        const size_t *idx = j->isrc;                                                    \
        size_t *idx2 = j->idst, *pos = j->pos[part];                                    \
        const int shift = j->d * RADIX_BITS;                                            \
        if (idx) {                                                                      \
            for (size_t i = a; i < b; i++) {                                            \
                size_t p = pos[(k[i] >> shift) & (RADIX - 1)]++;                        \
                k2[p] = k[i];                                                           \
                idx2[p] = idx[i];                                                       \
            }                                                                           \
            return;                                                                     \
        }                                                                               \
        for (size_t i = a; i < b; i++)                                                  \
            k2[pos[(k[i] >> shift) & (RADIX - 1)]++] = k[i];                            \
    }                                                                                   \
    static void finish_##SUF(void *arg, size_t part)                                    \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *k = j->src;                                                            \
        W *out = j->keys;                                                               \
        const W if_set = (W)j->if_set, if_clear = (W)j->if_clear;                       \
        const unsigned top = (unsigned)j->top;                                          \
        for (size_t i = a; i < b; i++)                                                  \
            out[i] = k[i] ^ ((k[i] >> top) ? if_set : if_clear);                        \
    }
SORT_FUNCS(uint32_t, 32)
SORT_FUNCS(uint64_t, 64)

/* Values into their places: a copy of them first, then each part gathers. */
static void copy_values(void *arg, size_t part)
{
    sort_job *j = arg;
    size_t a = part_first(j, part), b = part_first(j, part + 1);
    memcpy(j->copy + a * j->vsize, j->values + a * j->vsize, (b - a) * j->vsize);
}

static void gather_values(void *arg, size_t part)
{
    sort_job *j = arg;
    size_t a = part_first(j, part), b = part_first(j, part + 1), vs = j->vsize;
    const size_t *idx = j->isrc;
    if (vs == 4) {
        uint32_t *out = (uint32_t *)(void *)j->values;
        const uint32_t *from = (const uint32_t *)(void *)j->copy;
        for (size_t i = a; i < b; i++)
            out[i] = from[idx[i]];
    } else if (vs == 8) {
        uint64_t *out = (uint64_t *)(void *)j->values;
        const uint64_t *from = (const uint64_t *)(void *)j->copy;
        for (size_t i = a; i < b; i++)
            out[i] = from[idx[i]];
    } else {
        for (size_t i = a; i < b; i++)
            memcpy(j->values + i * vs, j->copy + idx[i] * vs, vs);
    }
}

gpgpu_status gpgpu__host_sort(gpgpu_type t, void *keys, void *values, size_t value_size,
                              size_t n, unsigned flags)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    int is64 = ti->is_64;
    size_t w = is64 ? 8 : 4;

    if (n < 2)
        return GPGPU_SUCCESS;
    size_t nparts = gpgpu__host_threads();
    if (nparts > n / MIN_PART)
        nparts = n / MIN_PART ? n / MIN_PART : 1;
    sort_job j = {.is64 = is64, .digits = is64 ? 8 : 4, .n = n, .nparts = nparts, .in = keys,
                  .keys = keys, .top = is64 ? 63 : 31, .values = values, .vsize = value_size};
    void *k = malloc(2 * n * w);
    j.count = calloc(nparts, sizeof *j.count);
    j.pos = malloc(nparts * sizeof *j.pos);
    j.in_order = malloc(nparts * sizeof *j.in_order);
    size_t *idx = values ? malloc(2 * n * sizeof *idx) : NULL;
    unsigned char *copy = values ? malloc(n * value_size) : NULL;
    if (!k || !j.count || !j.pos || !j.in_order || (values && (!idx || !copy))) {
        free(k);
        free(j.count);
        free(j.pos);
        free(j.in_order);
        free(idx);
        free(copy);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    gpgpu__sort_masks(t, flags, &j.m0, &j.m1);
    j.src = k;
    j.dst = (char *)k + n * w;
    j.isrc = idx;
    j.idst = idx ? idx + n : NULL;
    j.copy = copy;
    gpgpu__parallel(nparts, is64 ? prep_64 : prep_32, &j);

    /* In order: every part, and every part's last key against the next's first. */
    int in_order = 1;
    for (size_t p = 0; p < nparts; p++) {
        in_order &= j.in_order[p];
        if (p > 0) {
            size_t b = part_first(&j, p);
            in_order &= is64 ? ((uint64_t *)k)[b - 1] <= ((uint64_t *)k)[b]
                             : ((uint32_t *)k)[b - 1] <= ((uint32_t *)k)[b];
        }
    }
    int first_pass = 1;
    for (int d = 0; d < j.digits && !in_order; d++) {
        size_t total[RADIX] = {0};
        for (size_t p = 0; p < nparts; p++)
            for (int v = 0; v < RADIX; v++)
                total[v] += j.count[p][d][v];
        uint64_t x = is64 ? ((uint64_t *)j.src)[0] : ((uint32_t *)j.src)[0];
        if (total[(x >> (d * RADIX_BITS)) & (RADIX - 1)] == n)
            continue; /* every key has this digit: the pass would not move anything */
        j.d = d;
        if (first_pass) /* the parts still hold the input's order: its counts apply */
            for (size_t p = 0; p < nparts; p++)
                memcpy(j.pos[p], j.count[p][d], sizeof j.pos[p]);
        else
            gpgpu__parallel(nparts, is64 ? count_64 : count_32, &j);
        first_pass = 0;
        size_t at = 0;
        for (int v = 0; v < RADIX; v++)
            for (size_t p = 0; p < nparts; p++) {
                size_t c = j.pos[p][v];
                j.pos[p][v] = at;
                at += c;
            }
        gpgpu__parallel(nparts, is64 ? scatter_64 : scatter_32, &j);
        void *kt = j.src;
        j.src = j.dst;
        j.dst = kt;
        size_t *it = j.isrc;
        j.isrc = j.idst;
        j.idst = it;
    }

    if (!in_order) {
        /* Undo the transform: the top bit after it tells which mask applied. */
        j.if_set = (j.m0 >> j.top) & 1 ? j.m0 : j.m1;
        j.if_clear = (j.m0 >> j.top) & 1 ? j.m1 : j.m0;
        gpgpu__parallel(nparts, is64 ? finish_64 : finish_32, &j);
        if (values) {
            gpgpu__parallel(nparts, copy_values, &j);
            gpgpu__parallel(nparts, gather_values, &j);
        }
    }
    free(k);
    free(j.count);
    free(j.pos);
    free(j.in_order);
    free(idx);
    free(copy);
    return GPGPU_SUCCESS;
}
