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

#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define SEARCH_AVX2 1

/* With AVX2 (gpgpu__host_avx2) and fewer than 2^31 keys (a gather's
   indices are signed 32-bit words), the same steps a vector of lanes at a
   time, each step one gather a vector: 32 searches a round in four
   vectors of 32-bit keys, 16 in four of 64-bit keys, against about 20
   instructions a step and lane in SEARCH_PART. AVX2 compares signed
   lanes only, so each key's top bit is flipped along with the masks.
   They return the first needle left to SEARCH_PART. */
__attribute__((target("avx2"))) static inline __m256i search_key32(__m256i e, __m256i m0,
                                                                    __m256i dm)
{
    return _mm256_xor_si256(e, _mm256_xor_si256(m0, _mm256_and_si256(_mm256_srai_epi32(e, 31), dm)));
}

__attribute__((target("avx2"), always_inline)) static inline size_t
search32_avx2(const search_job *j, size_t first, size_t end, const int right)
{
    const int *s = j->sorted;
    const uint32_t *x = j->needles;
    const __m256i m0 = _mm256_set1_epi32((int)((uint32_t)j->m0 ^ 0x80000000u)),
                  dm = _mm256_set1_epi32((int)(uint32_t)(j->m0 ^ j->m1)),
                  ones = _mm256_set1_epi32(-1);
    size_t k = first;
    for (; k + 32 <= end; k += 32) {
        __m256i v[4], base[4], c[4];
        for (int q = 0; q < 4; q++) {
            v[q] = search_key32(_mm256_loadu_si256((const __m256i *)(x + k + 8 * q)), m0, dm);
            base[q] = _mm256_setzero_si256();
        }
        for (size_t len = j->n; len > 1;) {
            const size_t step = len >> 1;
            const __m256i st = _mm256_set1_epi32((int)step);
            for (int q = 0; q < 4; q++) {
                __m256i e = _mm256_i32gather_epi32(s, _mm256_add_epi32(base[q], st), 4);
                e = search_key32(e, m0, dm);
                /* left: e < v; right: e <= v, that is not e > v */
                c[q] = right ? _mm256_andnot_si256(_mm256_cmpgt_epi32(e, v[q]), ones)
                             : _mm256_cmpgt_epi32(v[q], e);
                base[q] = _mm256_add_epi32(base[q], _mm256_and_si256(c[q], st));
            }
            len -= step;
        }
        for (int q = 0; q < 4; q++) {
            __m256i e = search_key32(_mm256_i32gather_epi32(s, base[q], 4), m0, dm);
            c[q] = right ? _mm256_andnot_si256(_mm256_cmpgt_epi32(e, v[q]), ones)
                         : _mm256_cmpgt_epi32(v[q], e);
            const __m256i p = _mm256_sub_epi32(base[q], c[q]); /* a true compare is -1 */
            _mm256_storeu_si256((__m256i *)(j->pos + k + 8 * q),
                                _mm256_cvtepu32_epi64(_mm256_castsi256_si128(p)));
            _mm256_storeu_si256((__m256i *)(j->pos + k + 8 * q + 4),
                                _mm256_cvtepu32_epi64(_mm256_extracti128_si256(p, 1)));
        }
    }
    return k;
}

__attribute__((target("avx2"))) static inline __m256i search_key64(__m256i e, __m256i m0,
                                                                    __m256i dm)
{
    const __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), e);
    return _mm256_xor_si256(e, _mm256_xor_si256(m0, _mm256_and_si256(neg, dm)));
}

__attribute__((target("avx2"), always_inline)) static inline size_t
search64_avx2(const search_job *j, size_t first, size_t end, const int right)
{
    const long long *s = j->sorted;
    const uint64_t *x = j->needles;
    const __m256i m0 = _mm256_set1_epi64x((long long)(j->m0 ^ 0x8000000000000000u)),
                  dm = _mm256_set1_epi64x((long long)(j->m0 ^ j->m1)),
                  ones = _mm256_set1_epi32(-1);
    size_t k = first;
    for (; k + 16 <= end; k += 16) {
        __m256i v[4], c[4];
        __m128i base[4];
        for (int q = 0; q < 4; q++) {
            v[q] = search_key64(_mm256_loadu_si256((const __m256i *)(x + k + 4 * q)), m0, dm);
            base[q] = _mm_setzero_si128();
        }
        for (size_t len = j->n; len > 1;) {
            const size_t step = len >> 1;
            const __m128i st = _mm_set1_epi32((int)step);
            for (int q = 0; q < 4; q++) {
                __m256i e = _mm256_i32gather_epi64(s, _mm_add_epi32(base[q], st), 8);
                e = search_key64(e, m0, dm);
                c[q] = right ? _mm256_andnot_si256(_mm256_cmpgt_epi64(e, v[q]), ones)
                             : _mm256_cmpgt_epi64(v[q], e);
                /* the 64-bit compares' low words, packed to four 32-bit lanes */
                const __m128i c32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(
                    c[q], _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
                base[q] = _mm_add_epi32(base[q], _mm_and_si128(c32, st));
            }
            len -= step;
        }
        for (int q = 0; q < 4; q++) {
            __m256i e = search_key64(_mm256_i32gather_epi64(s, base[q], 8), m0, dm);
            c[q] = right ? _mm256_andnot_si256(_mm256_cmpgt_epi64(e, v[q]), ones)
                         : _mm256_cmpgt_epi64(v[q], e);
            _mm256_storeu_si256((__m256i *)(j->pos + k + 4 * q),
                                _mm256_sub_epi64(_mm256_cvtepu32_epi64(base[q]), c[q]));
        }
    }
    return k;
}

__attribute__((target("avx2"))) static size_t search_avx2(const search_job *j, size_t first,
                                                         size_t end)
{
    if (j->top >> 32)
        return j->right ? search64_avx2(j, first, end, 1) : search64_avx2(j, first, end, 0);
    return j->right ? search32_avx2(j, first, end, 1) : search32_avx2(j, first, end, 0);
}
#endif

static void search_part(void *arg, size_t part)
{
    const search_job *j = arg;
    size_t first = part * PART, end = first + PART < j->m ? first + PART : j->m;
#ifdef SEARCH_AVX2
    if (j->n <= INT32_MAX && gpgpu__host_avx2())
        first = search_avx2(j, first, end);
#endif
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

/* Every index below n_in is checked before out is written (a bad one
   leaves out as it was), yet the check reads the indices once more than
   the loop a C programmer writes, which reads each index and its element
   and stores it (1 ns or less an element while in cache): 12-26% of that
   loop's time even with vector loads (2^10 .. 2^20 u32 by 64-bit indices,
   2-core EPYC, 2026-11-26). So the check is the cheapest that is exact:
   the OR of a block's indices below n_in proves them all (n_in a power of
   two and random indices: the usual case), else a compare of each; the
   gather loads eight elements before it stores them; and from
   GATHER_THREADS_MIN indices the host's threads split both in parts of
   GATHER_PART_MIN, in one round trip of the pool (gather_part). Where
   they start: 2026-11-26, 2-core EPYC, 39b0764 with this code, load
   0.1-0.5, three rounds of GPGPU_DEVICE=host GPGPU_THREADS=1 | 2
   gpgpu-bench --api host --op gather --sizes 18,19,20,21 --repeat 7,
   ratio to the serial loop, one thread / two: 0.78-0.89 / 0.71-0.85 at
   2^18, 0.84-0.91 / 0.88-0.96 at 2^19, 0.88-0.91 / 0.96-1.14 at 2^20,
   0.87-0.91 / 1.71-1.82 at 2^21 (and 0.73-0.82 / 0.70-0.79 at 2^16:
   waking the other thread costs more than half the work there, though a
   loop of calls back to back, which keeps it awake, ran 1.1-1.3x on
   two). Measured again with a loop that alternates calls and the serial
   loop into the same output (a bench case's separate outputs made the
   loop's own time differ by up to 1.7x from process to process): threads
   from 2^18 in parts of 2^14 against from 2^19 in parts of 2^15, three
   runs each, ratio to the loop: 1.12-1.43 / 0.87-1.06 at 2^18, the same
   elsewhere (0.80-0.91 from 2^14 to 2^16 on one thread, the check's
   cost; 1.28-1.71 from 2^19). 2026-12-07, 2-core EPYC, GPGPU_DEVICE=host,
   201 rounds a size, medians, by the method of bench/gather-loop.sh (run
   it against a build of each). AVX2's gather instructions (vpgatherqd)
   were slower than scalar loads there: 0.60-0.73 of the loop. */
enum { GATHER_BLOCK = 1024, GATHER_PART_MIN = 1 << 14, GATHER_THREADS_MIN = 1 << 18 };

typedef uint64_t gather_v2 __attribute__((vector_size(16)));

/* The OR of x[0 .. n), two indices a load. */
static uint64_t or_of(const uint64_t *x, size_t n)
{
    gather_v2 o0 = {0, 0}, o1 = o0, o2 = o0, o3 = o0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        gather_v2 a, b, c, d;
        memcpy(&a, x + i, sizeof a);
        memcpy(&b, x + i + 2, sizeof b);
        memcpy(&c, x + i + 4, sizeof c);
        memcpy(&d, x + i + 6, sizeof d);
        o0 |= a;
        o1 |= b;
        o2 |= c;
        o3 |= d;
    }
    o0 |= o1 | o2 | o3;
    uint64_t o = o0[0] | o0[1];
    for (; i < n; i++)
        o |= x[i];
    return o;
}

#ifdef GPGPU__AVX2_TARGET
#define GATHER_AVX2 1
typedef uint64_t gather_v4 __attribute__((vector_size(32)));

/* or_of, four indices a load (half the loads: the check is a tenth of a
   small gather's time). */
__attribute__((target("avx2"))) static uint64_t or_of_avx2(const uint64_t *x, size_t n)
{
    gather_v4 o0 = {0, 0, 0, 0}, o1 = o0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        gather_v4 a, b;
        memcpy(&a, x + i, sizeof a);
        memcpy(&b, x + i + 4, sizeof b);
        o0 |= a;
        o1 |= b;
    }
    o0 |= o1;
    uint64_t o = o0[0] | o0[1] | o0[2] | o0[3];
    for (; i < n; i++)
        o |= x[i];
    return o;
}
#endif

/* 1 if indices[0 .. n) are all below n_in. */
static int indices_ok(const uint64_t *indices, size_t n, size_t n_in)
{
#ifdef GATHER_AVX2
    const int avx2 = gpgpu__host_avx2();
#endif
    for (size_t at = 0; at < n; at += GATHER_BLOCK) {
        const size_t len = n - at < GATHER_BLOCK ? n - at : GATHER_BLOCK;
        const uint64_t *x = indices + at;
#ifdef GATHER_AVX2
        const uint64_t o = avx2 ? or_of_avx2(x, len) : or_of(x, len);
#else
        const uint64_t o = or_of(x, len);
#endif
        if (o < n_in)
            continue;
        /* some index has a bit at or above n_in's top: each one */
        uint64_t bad = 0;
        for (size_t i = 0; i < len; i++)
            bad |= x[i] >= n_in;
        if (bad)
            return 0;
    }
    return 1;
}

/* The first i in [first, end) with indices[i] >= n_in, or SIZE_MAX. */
static size_t first_bad(const uint64_t *indices, size_t first, size_t end, size_t n_in)
{
    for (size_t i = first; i < end; i++)
        if (indices[i] >= n_in)
            return i;
    return SIZE_MAX;
}

#define GATHER_LOOP(U)                                                     \
    do {                                                                   \
        const U *src = in;                                                 \
        U *dst = out;                                                      \
        size_t i = 0;                                                      \
        for (; i + 8 <= n; i += 8) {                                       \
            const U a = src[indices[i]], b = src[indices[i + 1]];          \
            const U c = src[indices[i + 2]], d = src[indices[i + 3]];      \
            const U e = src[indices[i + 4]], f = src[indices[i + 5]];      \
            const U g = src[indices[i + 6]], h = src[indices[i + 7]];      \
            dst[i] = a;                                                    \
            dst[i + 1] = b;                                                \
            dst[i + 2] = c;                                                \
            dst[i + 3] = d;                                                \
            dst[i + 4] = e;                                                \
            dst[i + 5] = f;                                                \
            dst[i + 6] = g;                                                \
            dst[i + 7] = h;                                                \
        }                                                                  \
        for (; i < n; i++)                                                 \
            dst[i] = src[indices[i]];                                      \
    } while (0)

/* out[i] = in[indices[i]] for checked indices[0 .. n). */
static void gather_run(size_t value_size, const void *in,
                       const uint64_t *indices, size_t n, void *out)
{
    if (value_size == 8)
        GATHER_LOOP(uint64_t);
    else
        GATHER_LOOP(uint32_t);
}

/* Parts of GATHER_PART_MIN indices or more for the host's threads: each
   thread first checks parts from a shared count, making each answer known
   (1 good, 2 bad), then checks itself any part whose answer is not known
   yet (taken by a thread the shared cores have not run since: no thread
   waits for another), and gathers its own part only when every part is
   good: out is written only if every index is. */
typedef struct {
    size_t value_size, n, n_in, nparts;
    const void *in;
    const uint64_t *indices;
    void *out;
    int *state;    /* per part: 0 not known, 1 good, 2 bad */
    size_t next;   /* the next part to check */
    int all_good;  /* every part is known good */
    int bad;       /* some part is known bad */
} gather_job;

static void gather_range(const gather_job *j, size_t part, size_t *first, size_t *len)
{
    const size_t step = j->n / j->nparts;
    *first = part * step;
    *len = part + 1 == j->nparts ? j->n - *first : step;
}

static int part_check(gather_job *j, size_t part)
{
    size_t first, len;
    gather_range(j, part, &first, &len);
    const int s = indices_ok(j->indices + first, len, j->n_in) ? 1 : 2;
    __atomic_store_n(&j->state[part], s, __ATOMIC_RELEASE);
    return s;
}

/* 1 if every part is good. */
static int parts_good(gather_job *j)
{
    if (__atomic_load_n(&j->all_good, __ATOMIC_ACQUIRE))
        return 1;
    for (size_t k; (k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->nparts;)
        if (part_check(j, k) == 2)
            break;
    for (size_t k = 0; k < j->nparts; k++) {
        int s = __atomic_load_n(&j->state[k], __ATOMIC_ACQUIRE);
        if (s == 0)
            s = part_check(j, k);
        if (s == 2) {
            __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
            return 0;
        }
    }
    __atomic_store_n(&j->all_good, 1, __ATOMIC_RELEASE);
    return 1;
}

static void gather_part(void *arg, size_t part)
{
    gather_job *j = arg;
    if (!parts_good(j))
        return;
    size_t first, len;
    gather_range(j, part, &first, &len);
    gather_run(j->value_size, j->in, j->indices + first, len,
               (char *)j->out + first * j->value_size);
}

size_t gpgpu__host_gather_checked(size_t value_size, const void *in, size_t n_in,
                                  const uint64_t *indices, size_t n, void *out)
{
    /* getenv, in gpgpu__host_threads, costs a small call's time */
    const size_t nparts = n / GATHER_PART_MIN;
    int state[64] = {0}, *st = nparts <= 64 ? state : calloc(nparts, sizeof *st);
    if (n < GATHER_THREADS_MIN || gpgpu__host_threads() < 2 || !st) {
        if (st != state)
            free(st);
        if (!indices_ok(indices, n, n_in))
            return first_bad(indices, 0, n, n_in);
        gather_run(value_size, in, indices, n, out);
        return SIZE_MAX;
    }
    gather_job j = {value_size, n, n_in, nparts, in, indices, out, st, 0, 0, 0};
    gpgpu__parallel(nparts, gather_part, &j);
    if (st != state)
        free(st);
    return j.bad ? first_bad(indices, 0, n, n_in) : SIZE_MAX;
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
