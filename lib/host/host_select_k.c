/*
 * host_select_k.c - the plain-C fallback of gpgpu_top_k and
 * gpgpu_quantiles, and what the device forms share with it: keys made
 * unsigned by the sort's masks (gpgpu__sort_masks), so that every type and
 * both orders compare as integers; top_k keeps the k best (key, index)
 * pairs in a heap per part of the data, on the host's threads (CPU
 * devices' host calls come here too: plan.c); quantiles selects each rank
 * on a copy of the keys, or for 32-bit keys from 1024 on a copy of the keys
 * of the ranks' top digits alone (select_radix32).
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

/* Moves the r-th least of a[lo .. hi) to a[r], lesser ones (LT) before it
   and greater ones after: Hoare partitions around the middle element's
   value (keys equal to it stop both scans, so equal keys still split the
   range in halves), then insertion below 16 keys. One function per key
   width: 32-bit keys move half the bytes. (A three-way partition, which
   ends at once on runs of equal keys, took twice the serial loop's time
   on random keys: 0.042 ms against 0.020 for a median of 4096 u32.) */
/* a[lo .. hi) in LT order by insertion: the selections' last few keys. */
#define INSERTION_SORT(T, LT, a, lo, hi)                                               \
    for (size_t i_ = (lo) + 1; i_ < (hi); i_++) {                                      \
        T v_ = (a)[i_];                                                                \
        size_t k_ = i_;                                                                \
        for (; k_ > (lo) && LT(v_, (a)[k_ - 1]); k_--)                                 \
            (a)[k_] = (a)[k_ - 1];                                                     \
        (a)[k_] = v_;                                                                  \
    }
#define QUICKSELECT(name, T, LT)                                                       \
    static void name(T *a, size_t lo, size_t hi, size_t r)                             \
    {                                                                                  \
        while (hi - lo > 16) {                                                         \
            T p = a[lo + (hi - lo - 1) / 2];                                           \
            size_t i = lo, j = hi - 1;                                                 \
            for (;;) {                                                                 \
                while (LT(a[i], p))                                                    \
                    i++;                                                               \
                while (LT(p, a[j]))                                                    \
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
        INSERTION_SORT(T, LT, a, lo, hi);                                              \
    }
#define WORD_LT(a, b) ((a) < (b))
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
QUICKSELECT(quickselect64, uint64_t, WORD_LT)
QUICKSELECT(quickselect32, uint32_t, WORD_LT)
SELECT_RANKS(select_ranks64, uint64_t, quickselect64, min_to_front64)
SELECT_RANKS(select_ranks32, uint32_t, quickselect32, min_to_front32)

/* 32-bit keys of RS_MIN or more (and fewer than 2^32): a radix select.
   One pass counts the keys by their top RS_BITS bits (in two sets of
   counters, even and odd elements, so that runs of one digit do not
   chain every count on the one before); the counts tell each rank's
   digit, and a second pass copies the keys of those digits alone (about
   n / 2^RS_BITS a digit on spread data), among which each rank is
   selected as above. The quickselect over a copy of every key took about
   1.5x the serial loop's time (a selection on a copy the caller made
   beforehand, untimed): random u32 medians, 2^10 .. 2^24. A digit that
   holds most keys (data of few values) costs one counting pass more than
   the quickselect alone. NaN keys lie in the outermost digits of floats
   (no finite key shares them): the keys are tested only when those
   counts are not zero. */
enum { RS_BITS = 11, RS_BITS_SMALL = 8, RS_SMALL = 1 << 14, RS_MIN = 1024 };

static int select_radix32(const uint32_t *x, size_t n, uint32_t m0, uint32_t m1, uint32_t nan_lo,
                          uint32_t nan_hi, const size_t *ranks, size_t nr, uint64_t *keys)
{
    enum { NONE = UINT32_MAX };
    /* fewer digits for fewer keys: zeroing and reading 2^RS_BITS counts
       costs more than n = 2^10 keys' selection */
    const unsigned bits = n < RS_SMALL ? RS_BITS_SMALL : RS_BITS, SHIFT = 32 - bits;
    const uint32_t D = (uint32_t)1 << bits;
    uint32_t cnt[2][1 << RS_BITS], slot[1 << RS_BITS];
    const uint32_t dm = m0 ^ m1;
#define RS_KEY(v) ((v) ^ (m0 ^ ((0 - ((v) >> 31)) & dm)))
    memset(cnt[0], 0, D * sizeof cnt[0][0]);
    memset(cnt[1], 0, D * sizeof cnt[1][0]);
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        cnt[0][RS_KEY(x[i]) >> SHIFT]++;
        cnt[1][RS_KEY(x[i + 1]) >> SHIFT]++;
    }
    if (i < n)
        cnt[0][RS_KEY(x[i]) >> SHIFT]++;
    for (uint32_t d = 0; d < D; d++)
        cnt[0][d] += cnt[1][d];
    /* NaNs: keys below nan_lo or above nan_hi, all in the digits of those */
    int outer = 0;
    for (uint32_t d = 0; d <= (nan_lo >> SHIFT); d++)
        outer |= cnt[0][d] != 0;
    for (uint32_t d = nan_hi >> SHIFT; d < D; d++)
        outer |= cnt[0][d] != 0;
    if (outer && (nan_lo != 0 || nan_hi != UINT32_MAX))
        for (size_t k = 0; k < n; k++) {
            const uint32_t v = RS_KEY(x[k]);
            if (v < nan_lo || v > nan_hi)
                return 1;
        }
    /* each rank's digit: wd[w] the w-th wanted digit, rd[w] where its keys
       start in a, base_rank[w] the rank of its least key; slot[d] the w of
       digit d (NONE: not wanted) */
    size_t want = 0, rd[2 * 64], base_rank[2 * 64];
    uint32_t wd[2 * 64];
    size_t nw = 0, cum = 0, j = 0;
    for (uint32_t d = 0; d < D; d++) {
        slot[d] = NONE;
        if (j < nr && ranks[j] < cum + cnt[0][d]) {
            if (nw == sizeof wd / sizeof *wd)
                return -2; /* too many digits: the caller selects on a copy */
            slot[d] = (uint32_t)nw;
            wd[nw] = d;
            base_rank[nw] = cum;
            rd[nw] = want;
            nw++;
            want += cnt[0][d];
            while (j < nr && ranks[j] < cum + cnt[0][d])
                j++;
        }
        cum += cnt[0][d];
    }
    uint32_t *a = malloc(want * sizeof *a);
    if (!a)
        return -1;
    size_t fill[2 * 64];
    memcpy(fill, rd, nw * sizeof *fill);
    if (nw == 1) {
        const uint32_t d0 = wd[0];
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            const uint32_t v = RS_KEY(x[k]);
            if ((v >> SHIFT) == d0)
                a[m++] = v;
        }
    } else {
        for (size_t k = 0; k < n; k++) {
            const uint32_t v = RS_KEY(x[k]), sl = slot[v >> SHIFT];
            if (sl != NONE)
                a[fill[sl]++] = v;
        }
    }
#undef RS_KEY
    /* each rank within its digit's keys a[rd[w] .. + cnt), shifted by the
       digit's first rank */
    size_t w = 0, prev = SIZE_MAX;
    for (j = 0; j < nr; j++) {
        while (ranks[j] >= base_rank[w] + cnt[0][wd[w]]) {
            w++;
            prev = SIZE_MAX;
        }
        const size_t off = rd[w], len = cnt[0][wd[w]], r = ranks[j] - base_rank[w];
        if (prev != SIZE_MAX && r == prev + 1)
            min_to_front32(a + off, r, len);
        else
            quickselect32(a + off, prev == SIZE_MAX ? 0 : prev, len, r);
        keys[j] = a[off + r];
        prev = r;
    }
    free(a);
    return 0;
}

/* ---- top_k ------------------------------------------------------------------ */

/* top_k's candidates: (key, index), the lesser key first and of equal keys
   the lesser index (the masks made the best keys the least). 32-bit keys
   of arrays of at most 2^32 elements pack into one word, the key above
   the index, so that one compare orders them; other keys go in pairs. */
static int pair_lt(pair a, pair b)
{
#ifdef __SIZEOF_INT128__
    /* one 128-bit compare: two instructions and no branch */
    unsigned __int128 x = (unsigned __int128)a.u << 64 | a.i,
                      y = (unsigned __int128)b.u << 64 | b.i;
    return x < y;
#else
    return (a.u < b.u) | ((a.u == b.u) & (a.i < b.i));
#endif
}
#define PAIR_LT(a, b) pair_lt(a, b)
static pair pair_make(uint64_t u, size_t i)
{
    pair c = {u, i};
    return c;
}
static uint64_t pair_key(pair c)
{
    return c.u;
}
static uint64_t pair_index(pair c)
{
    return c.i;
}
static uint64_t word_make(uint64_t u, size_t i)
{
    return u << 32 | i;
}
static uint64_t word_key(uint64_t c)
{
    return c >> 32;
}
static uint64_t word_index(uint64_t c)
{
    return c & 0xffffffffu;
}

/* QUICKSELECT for distinct keys in random order, such as top_k's
   candidates: Lomuto partitions around a median of three in which every
   key is swapped whatever its compare says, so that no branch depends on
   the keys (Hoare's scans mispredict about once a key there, which took
   40% of top_k's time on 4096 u32). */
#define SELECT_DISTINCT(name, T, LT)                                                   \
    static void name(T *a, size_t lo, size_t hi, size_t r)                             \
    {                                                                                  \
        while (hi - lo > 16) {                                                         \
            size_t mid = lo + (hi - lo) / 2, e = hi - 1, at;                           \
            if (LT(a[lo], a[mid]))                                                     \
                at = LT(a[mid], a[e]) ? mid : LT(a[lo], a[e]) ? e : lo;                \
            else                                                                       \
                at = LT(a[lo], a[e]) ? lo : LT(a[mid], a[e]) ? e : mid;                \
            T p = a[at], v;                                                            \
            a[at] = a[e];                                                              \
            a[e] = p;                                                                  \
            size_t w = lo;                                                             \
            for (size_t i = lo; i < e; i++) {                                          \
                v = a[i];                                                              \
                a[i] = a[w];                                                           \
                a[w] = v;                                                              \
                w += LT(v, p);                                                         \
            }                                                                          \
            a[e] = a[w];                                                               \
            a[w] = p;                                                                  \
            if (r == w)                                                                \
                return;                                                                \
            if (r < w)                                                                 \
                hi = w;                                                                \
            else                                                                       \
                lo = w + 1;                                                            \
        }                                                                              \
        INSERTION_SORT(T, LT, a, lo, hi);                                              \
    }
SELECT_DISTINCT(select_words, uint64_t, WORD_LT)
SELECT_DISTINCT(select_pairs, pair, PAIR_LT)

/* Sorts a[0 .. n) by LT (distinct keys) through tmp[0 .. n): merges of
   runs doubling from one, each step's choice a compare's result and no
   branch, against a heap's two unpredictable branches a level (the heap
   took a third of a top 100 of 1024's instructions and more of its
   time). */
#define MERGESORT(name, T, LT)                                                         \
    static void name(T *a, T *tmp, size_t n)                                           \
    {                                                                                  \
        T *src = a, *dst = tmp;                                                        \
        for (size_t w = 1; w < n; w *= 2) {                                            \
            for (size_t lo = 0; lo < n; lo += 2 * w) {                                 \
                const size_t mid = n - lo < w ? n : lo + w;                            \
                const size_t hi = n - mid < w ? n : mid + w;                           \
                size_t i = lo, r = mid, o = lo;                                        \
                while (i < mid && r < hi) {                                            \
                    const T x = src[i], y = src[r];                                    \
                    const int t = LT(y, x);                                            \
                    dst[o++] = t ? y : x;                                              \
                    i += !t;                                                           \
                    r += t;                                                            \
                }                                                                      \
                while (i < mid)                                                        \
                    dst[o++] = src[i++];                                               \
                while (r < hi)                                                         \
                    dst[o++] = src[r++];                                               \
            }                                                                          \
            T *swap = src;                                                             \
            src = dst;                                                                 \
            dst = swap;                                                                \
        }                                                                              \
        if (src != a)                                                                  \
            memcpy(a, src, n * sizeof *a);                                             \
    }
MERGESORT(mergesort_words, uint64_t, WORD_LT)
MERGESORT(mergesort_pairs, pair, PAIR_LT)

/* top_k on the host's threads: each part of the data gathers the
   candidates among its keys at most lim in a buffer of cap, and when the
   buffer fills keeps its best k (a selection), lim becoming the k-th
   best's key less one (a later index never beats an equal key). The keys
   are tested TK_BLOCK at a time by a loop of compares the compiler
   vectorises, then a hit block TK_GROUP at a time; a group that holds a
   key at most lim is appended whole, each key's slot kept only when it is
   at most lim (no branch). After the first blocks hits are rare, so the
   parts read at the memory's pace. (64-bit keys take a branch a key
   instead: below.)
   A candidate costs a store and its share of a selection, against a heap
   insertion's log2(k) unpredictable steps. With several parts, lim comes
   from a sample, so that an adversarial order (keys improving as the
   index grows) still enters few. */
/* Cuts a part's candidates c[0 .. m) back to its best k (m becomes k):
   0 when the k-th best key is 0, so that no later key can enter, else 1
   with lim that key less 1 (a later index never beats an equal key). */
#define TK_CUT(select, key, c, m, k, lim)                                              \
    (select((c), 0, (m), (k) - 1), (m) = (k),                                          \
     key((c)[(k) - 1]) == 0 ? 0 : ((lim) = key((c)[(k) - 1]) - 1, 1))

enum { TK_BLOCK = 64, TK_GROUP = 16, TK_SAMPLE = 2048, TK_PART_MIN = 1 << 15, TK_THREADS_MIN = 1 << 20 };

typedef struct {
    const void *in;
    size_t n, k, nparts, cap;
    int is64;
    uint64_t m0, m1, lim;
    void *cands; /* cap per part */
    size_t *fill;
} topk_job;

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

/* One part of at most TK_SMALL_MAX keys, k at most an eighth of them: a
   limit from TK_SMALL_SAMPLE keys taken at even steps (the order of the
   keys does not mislead it), the key of rank k * 1.25 + 8 in proportion
   among them, each made distinct by its place in the sample so that the
   branch-free selection applies. The scan then takes a few hundred
   candidates and cuts them once or twice, where the cuts of a buffer of
   2k + a block as the limit tightened from none took half the time of a
   top 100 of 1024 (callgrind, 2026-12-07: 21,800 instructions of 46,600
   a call). A count of the keys' top bytes costs fewer instructions, but
   keys of a few top bytes (floats of one binade, small integers) chain
   every count on the one before and leave the limit loose: it made the
   top 100 of 2^12..2^16 f32 in [0, 1) twice as slow on a Xeon. Fewer
   than k keys at most the limit (a sample that misled) cost a second
   scan without one. */
enum { TK_SMALL_MAX = 1 << 16, TK_SMALL_SAMPLE = 256 };

static uint64_t topk_small_limit(const topk_job *j)
{
    const double want = (double)j->k * TK_SMALL_SAMPLE / (double)j->n;
    const size_t c = (size_t)(want + want / 4 + 8), step = j->n / TK_SMALL_SAMPLE;
    if (c >= TK_SMALL_SAMPLE || step == 0)
        return UINT64_MAX;
    if (j->is64) {
        pair s[TK_SMALL_SAMPLE];
        for (size_t i = 0; i < TK_SMALL_SAMPLE; i++)
            s[i] = pair_make(xf(raw(j->in, i * step, 1), 1, j->m0, j->m1), i);
        select_pairs(s, 0, TK_SMALL_SAMPLE, c);
        return pair_key(s[c]);
    }
    uint64_t s[TK_SMALL_SAMPLE];
    for (size_t i = 0; i < TK_SMALL_SAMPLE; i++)
        s[i] = word_make(xf(raw(j->in, i * step, 0), 0, j->m0, j->m1), i);
    select_words(s, 0, TK_SMALL_SAMPLE, c);
    return word_key(s[c]);
}

/* With AVX2 (gpgpu__host_avx2), 32-bit keys packed in words and 64-bit
   keys have scans of their own (topk32_words_avx2, topk64_avx2): the
   blocks' tests compare eight 32-bit or four 64-bit keys at a time (64-bit
   keys of large arrays thus take blocks too, instead of a branch a key),
   and a block that
   holds a candidate is appended a vector at a time, the hits moved to the
   front of each vector by a permutation: a fraction of the groups'
   key-by-key appends where most blocks hold a candidate (the first tens of
   thousands of keys, while the limit is loose). 32-bit keys of more than
   2^32 elements keep TOPK's scan. */
#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define TK_AVX2_PICK(j, T, part, avx2fn)                                              \
    ((sizeof(T) == 4 ||                                                                 \
      (j)->n >= ((j)->m0 != (j)->m1 ? TK_AVX2_FLOAT64 : TK_AVX2_INT64)) &&              \
             gpgpu__host_avx2()                                                         \
         ? avx2fn                                                                       \
         : part)

/* Eight keys from x: transformed by the masks (m0, and dm where the sign
   bit is set), and the mask of those at most lim. */
__attribute__((target("avx2"))) static inline __m256i tk_keys8(const uint32_t *x, __m256i m0,
                                                                __m256i dm, __m256i lim,
                                                                __m256i *hit)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)x);
    __m256i s = _mm256_and_si256(_mm256_srai_epi32(v, 31), dm);
    __m256i u = _mm256_xor_si256(v, _mm256_xor_si256(m0, s));
    *hit = _mm256_cmpeq_epi32(_mm256_min_epu32(u, lim), u);
    return u;
}

/* topk32's scan with AVX2 (words: the key above the index). Each 8-key
   step stores 8 words at m, of which those of the hits count, so the
   buffer is cut back before a step without room for 8 (the vector stores
   stay inside the part's buffer), and before the part's last keys without
   room for them. */
__attribute__((target("avx2,popcnt"))) static void topk32_words_avx2(void *arg, size_t p)
{
    const topk_job *j = arg;
    const uint64_t *pack = gpgpu__pack_lanes(); /* four 64-bit lanes: 256 + mask */
    const uint32_t *x = j->in;
    uint32_t lim = (uint32_t)j->lim;
    uint64_t *c = (uint64_t *)j->cands + p * j->cap;
    size_t lo, hi, m = 0, k = j->k, i;
    const __m256i m0 = _mm256_set1_epi32((int)(uint32_t)j->m0),
                  dm = _mm256_set1_epi32((int)(uint32_t)(j->m0 ^ j->m1)),
                  iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i limv = _mm256_set1_epi32((int)lim), hit;
    part_range(j->n, j->nparts, p, &lo, &hi);
    for (i = lo; i < hi; i += TK_BLOCK) {
        size_t e = hi - i < TK_BLOCK ? hi - i : TK_BLOCK;
        if (e == TK_BLOCK) {
            __m256i any = _mm256_setzero_si256();
            for (int b = 0; b < TK_BLOCK; b += 8) {
                tk_keys8(x + i + b, m0, dm, limv, &hit);
                any = _mm256_or_si256(any, hit);
            }
            if (_mm256_testz_si256(any, any))
                continue;
        }
        size_t b = 0;
        for (; b + 8 <= e; b += 8) {
            if (m + 8 > j->cap && m > k) {
                if (!TK_CUT(select_words, word_key, c, m, k, lim))
                    goto done;
                limv = _mm256_set1_epi32((int)lim);
            }
            __m256i u = tk_keys8(x + i + b, m0, dm, limv, &hit);
            unsigned h = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(hit));
            __m256i at = _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)(i + b)), iota);
            __m256i w0 = _mm256_unpacklo_epi32(at, u), w1 = _mm256_unpackhi_epi32(at, u);
            unsigned h0 = (h & 3) | (h >> 2 & 12), h1 = (h >> 2 & 3) | (h >> 4 & 12);
            __m256i q0 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&pack[256 + h0])),
                    q1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&pack[256 + h1]));
            w0 = _mm256_permutevar8x32_epi32(w0, q0);
            w1 = _mm256_permutevar8x32_epi32(w1, q1);
            _mm256_storeu_si256((__m256i *)(c + m), w0);
            m += (size_t)__builtin_popcount(h0);
            _mm256_storeu_si256((__m256i *)(c + m), w1);
            m += (size_t)__builtin_popcount(h1);
        }
        if (b < e && m + (e - b) > j->cap && m > k && /* the part's last keys */
            !TK_CUT(select_words, word_key, c, m, k, lim))
            break;
        for (; b < e; b++) {
            uint32_t v = x[i + b], dmv = (uint32_t)(j->m0 ^ j->m1);
            uint32_t u = v ^ ((uint32_t)j->m0 ^ ((0 - (v >> 31)) & dmv));
            c[m] = word_make(u, i + b);
            m += u <= lim;
        }
    }
done:
    ((topk_job *)j)->fill[p] = m;
}

/* For each pair of 128-bit lanes (bit j: lane j), the 32-bit lanes that
   bring those lanes to the front in order. */
static const int32_t tk_pack2[4][8] = {
    {0, 1, 2, 3, 0, 1, 2, 3}, {0, 1, 2, 3, 0, 1, 2, 3}, {4, 5, 6, 7, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 7}};

/* Four keys from x: transformed by the masks and their sign bits flipped
   (m0s: m0 with the sign bit flipped), so that a signed compare orders
   them; gt: those above lim (lims, flipped as well). */
__attribute__((target("avx2"))) static inline __m256i tk_keys4(const uint64_t *x, __m256i m0s,
                                                                __m256i dm, __m256i lims,
                                                                __m256i *gt)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)x);
    __m256i s = _mm256_and_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), v), dm);
    __m256i u = _mm256_xor_si256(v, _mm256_xor_si256(m0s, s));
    *gt = _mm256_cmpgt_epi64(u, lims);
    return u;
}

/* topk64's scan with AVX2 (pairs), as topk32_words_avx2: each 4-key
   step stores 4 pairs at m. Taken from TK_AVX2_FLOAT64 elements for
   floating-point keys and TK_AVX2_INT64 for integers: below those TOPK's
   branch a key was as fast or faster, on keys that are one xor (integers)
   or while the limit is loose (2026-11-26, 2 cores, load 0.7-0.9,
   GPGPU_DEVICE=host gpgpu-bench --api host --op top_k --type T --n N, two
   or three rounds alternating, ms these steps / TOPK's branches: f64
   0.0102 / 0.0090 at 2^12, 0.021 / 0.021-0.022 at 2^14, 0.047 / 0.060 at
   2^16, 0.10 / 0.20 at 2^18, 0.43 / 0.80-0.85 at 2^20; u64 0.0102 /
   0.0082 at 2^12, 0.047-0.055 / 0.041-0.047 at 2^16, 0.072-0.075 /
   0.067-0.078 at 2^17, 0.089-0.093 / 0.088-0.099 at 3 * 2^16, 0.10-0.11 /
   0.12-0.13 at 2^18, 0.36-0.48 / 0.47 at 2^20; i64 0.046-0.049 /
   0.043-0.047 at 2^16, 0.067-0.068 / 0.073-0.078 at 2^17, 0.10 / 0.12 at
   2^18, 0.40-0.41 / 0.47-0.54 at 2^20). */
enum { TK_AVX2_FLOAT64 = 1 << 15, TK_AVX2_INT64 = 1 << 17 };
__attribute__((target("avx2,popcnt"))) static void topk64_avx2(void *arg, size_t p)
{
    const topk_job *j = arg;
    const uint64_t *x = j->in, sign = (uint64_t)1 << 63;
    uint64_t lim = j->lim;
    pair *c = (pair *)j->cands + p * j->cap;
    size_t lo, hi, m = 0, k = j->k, i;
    const __m256i sb = _mm256_set1_epi64x((long long)sign),
                  m0s = _mm256_set1_epi64x((long long)(j->m0 ^ sign)),
                  dm = _mm256_set1_epi64x((long long)(j->m0 ^ j->m1)),
                  ones = _mm256_set1_epi64x(-1), iota = _mm256_setr_epi64x(0, 1, 2, 3);
    __m256i lims = _mm256_set1_epi64x((long long)(lim ^ sign)), gt;
    part_range(j->n, j->nparts, p, &lo, &hi);
    for (i = lo; i < hi; i += TK_BLOCK) {
        size_t e = hi - i < TK_BLOCK ? hi - i : TK_BLOCK;
        if (e == TK_BLOCK) {
            __m256i all = ones;
            for (int b = 0; b < TK_BLOCK; b += 4) {
                tk_keys4(x + i + b, m0s, dm, lims, &gt);
                all = _mm256_and_si256(all, gt);
            }
            if (_mm256_testc_si256(all, ones))
                continue;
        }
        size_t b = 0;
        for (; b + 4 <= e; b += 4) {
            if (m + 4 > j->cap && m > k) {
                if (!TK_CUT(select_pairs, pair_key, c, m, k, lim))
                    goto done;
                lims = _mm256_set1_epi64x((long long)(lim ^ sign));
            }
            __m256i u = _mm256_xor_si256(tk_keys4(x + i + b, m0s, dm, lims, &gt), sb);
            unsigned h = ~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(gt)) & 15;
            __m256i at = _mm256_add_epi64(_mm256_set1_epi64x((long long)(i + b)), iota);
            /* pairs (key, index): keys 0 and 2 in p0, 1 and 3 in p1 */
            __m256i p0 = _mm256_unpacklo_epi64(u, at), p1 = _mm256_unpackhi_epi64(u, at);
            unsigned h0 = (h & 1) | (h >> 1 & 2), h1 = (h >> 1 & 1) | (h >> 2 & 2);
            __m256i q0 = _mm256_loadu_si256((const __m256i *)tk_pack2[h0]),
                    q1 = _mm256_loadu_si256((const __m256i *)tk_pack2[h1]);
            _mm256_storeu_si256((__m256i *)(c + m), _mm256_permutevar8x32_epi32(p0, q0));
            m += (size_t)__builtin_popcount(h0);
            _mm256_storeu_si256((__m256i *)(c + m), _mm256_permutevar8x32_epi32(p1, q1));
            m += (size_t)__builtin_popcount(h1);
        }
        if (b < e && m + (e - b) > j->cap && m > k && /* the part's last keys */
            !TK_CUT(select_pairs, pair_key, c, m, k, lim))
            break;
        for (; b < e; b++) {
            uint64_t v = x[i + b];
            uint64_t u = v ^ (j->m0 ^ ((0 - (v >> 63)) & (j->m0 ^ j->m1)));
            c[m] = pair_make(u, i + b);
            m += u <= lim;
        }
    }
done:
    ((topk_job *)j)->fill[p] = m;
}
#else
#define TK_AVX2_PICK(j, T, part, avx2fn) part
#endif

/* One top_k per kind of key T and candidate C (make, key and index build
   and read one; select and sort order them): name_part scans part p,
   name_run takes the parts' best k and writes them in order. */
#define TOPK(name, T, C, make, key, index, select, sort, avx2fn)                      \
    static inline __attribute__((always_inline)) void name##_scan(const topk_job *j,    \
                                                                  size_t p, T dm)  \
    {                                                                                  \
        const int top = (int)sizeof(T) * 8 - 1;                                        \
        const T *x = j->in, m0 = (T)j->m0;                                             \
        T lim = (T)j->lim;                                                             \
        C *c = (C *)j->cands + p * j->cap;                                             \
        size_t lo, hi, m = 0, k = j->k;                                                \
        part_range(j->n, j->nparts, p, &lo, &hi);                                      \
        /* 64-bit keys: SSE2 has no compare of 64-bit lanes, and a branch a key  */   \
        /* (rarely taken, as in the serial loop) costs less than a scalar test  */    \
        /* of every key of a block */                                                 \
        for (size_t i = lo; i < hi && sizeof(T) > 4; i++) {                            \
            T u = x[i] ^ (m0 ^ ((0 - (x[i] >> top)) & dm));                            \
            if (u > lim)                                                               \
                continue;                                                              \
            c[m++] = make(u, i);                                                       \
            if (m == j->cap && i + 1 < hi && /* then cap < the part: cap > k */       \
                !TK_CUT(select, key, c, m, k, lim))                                    \
                break;                                                                 \
        }                                                                              \
        for (size_t i = lo; i < hi && sizeof(T) == 4; i += TK_BLOCK) {                 \
            size_t e = hi - i < TK_BLOCK ? hi - i : TK_BLOCK;                          \
            if (e == TK_BLOCK) {                                                       \
                T hit = 0;                                                             \
                for (int b = 0; b < TK_BLOCK; b++)                                     \
                    hit |= (x[i + b] ^ (m0 ^ ((0 - (x[i + b] >> top)) & dm))) <= lim;  \
                if (!hit)                                                              \
                    continue;                                                          \
            }                                                                          \
            /* room for a block: a buffer of cap < the part holds 2k + a block */     \
            if (m + TK_BLOCK > j->cap && m > k && !TK_CUT(select, key, c, m, k, lim))  \
                break;                                                                 \
            for (size_t g = 0; g < e; g += TK_GROUP) {                                 \
                size_t ge = e - g < TK_GROUP ? e : g + TK_GROUP;                       \
                if (ge - g == TK_GROUP) {                                              \
                    T hit = 0;                                                         \
                    for (int b = 0; b < TK_GROUP; b++) {                               \
                        T v = x[i + g + b];                                            \
                        hit |= (v ^ (m0 ^ ((0 - (v >> top)) & dm))) <= lim;            \
                    }                                                                  \
                    if (!hit)                                                          \
                        continue;                                                      \
                }                                                                      \
                for (size_t b = i + g; b < i + ge; b++) {                              \
                    T u = x[b] ^ (m0 ^ ((0 - (x[b] >> top)) & dm));                    \
                    c[m] = make(u, b);                                                 \
                    m += u <= lim;                                                     \
                }                                                                      \
            }                                                                          \
        }                                                                              \
        ((topk_job *)j)->fill[p] = m;                                                  \
    }                                                                                  \
    /* integer keys (one mask for both signs) apart: a key is then one xor */         \
    static void name##_part(void *arg, size_t p)                                       \
    {                                                                                  \
        const topk_job *j = arg;                                                       \
        if (j->m0 == j->m1)                                                            \
            name##_scan(j, p, 0);                                                      \
        else                                                                           \
            name##_scan(j, p, (T)(j->m0 ^ j->m1));                                     \
    }                                                                                  \
    static void name##_run(topk_job *j, void *values, uint64_t *indices)               \
    {                                                                                  \
        C *c = j->cands;                                                               \
        const T *x = j->in;                                                            \
        size_t k = j->k, total = 0;                                                    \
        void (*part)(void *, size_t) = TK_AVX2_PICK(j, T, name##_part, avx2fn);        \
        if (j->nparts > 1)                                                             \
            j->lim = topk_limit(j);                                                    \
        else if (j->n <= TK_SMALL_MAX && j->k <= j->n / 8)                             \
            j->lim = topk_small_limit(j);                                              \
        if (j->lim != UINT64_MAX) {                                                    \
            if (j->nparts > 1)                                                         \
                gpgpu__parallel(j->nparts, part, j);                                   \
            else                                                                       \
                part(j, 0);                                                            \
            for (size_t p = 0; p < j->nparts; p++)                                     \
                total += j->fill[p];                                                   \
        }                                                                              \
        if (total < k) { /* one part, or fewer than k keys at most the limit */        \
            j->lim = UINT64_MAX;                                                       \
            if (j->nparts > 1)                                                         \
                gpgpu__parallel(j->nparts, part, j);                                   \
            else                                                                       \
                part(j, 0);                                                            \
        }                                                                              \
        total = 0; /* each part's best k to the front, one after the other */          \
        for (size_t p = 0; p < j->nparts; p++) {                                       \
            C *q = c + p * j->cap;                                                     \
            size_t m = j->fill[p];                                                     \
            if (m > k) {                                                               \
                select(q, 0, m, k - 1);                                                \
                m = k;                                                                 \
            }                                                                          \
            memmove(c + total, q, m * sizeof *c);                                      \
            total += m;                                                                \
        }                                                                              \
        if (total > k)                                                                 \
            select(c, 0, total, k - 1);                                                \
        sort(c, c + j->nparts * j->cap, k);                                            \
        for (size_t i = 0; i < k; i++) {                                               \
            if (values)                                                                \
                ((T *)values)[i] = x[index(c[i])];                                     \
            if (indices)                                                               \
                indices[i] = index(c[i]);                                              \
        }                                                                              \
    }
TOPK(topk32, uint32_t, uint64_t, word_make, word_key, word_index, select_words,
     mergesort_words, topk32_words_avx2)
TOPK(topk32_pairs, uint32_t, pair, pair_make, pair_key, pair_index, select_pairs,
     mergesort_pairs, topk32_pairs_part)
TOPK(topk64, uint64_t, pair, pair_make, pair_key, pair_index, select_pairs,
     mergesort_pairs, topk64_avx2)

gpgpu_status gpgpu__host_top_k(gpgpu_type t, const void *in, size_t n, size_t k,
                               unsigned flags, void *values, uint64_t *indices)
{
    topk_job j = {in, n, k, parts_for(n), 0, gpgpu__type(t)->is_64, 0, 0, UINT64_MAX, NULL,
                  NULL};
    if (k == 0)
        return GPGPU_SUCCESS;
    gpgpu__sort_masks(t, flags, &j.m0, &j.m1);
    if (k > TK_PART_MIN / 8) /* parts only where the buffers stay small beside them */
        j.nparts = 1;
    int words = !j.is64 && n - 1 <= UINT32_MAX;
    size_t part = n / j.nparts + 1, csize = words ? sizeof(uint64_t) : sizeof(pair);
    j.cap = part < 2 * k + TK_BLOCK ? part : 2 * k + TK_BLOCK;
    if (k > SIZE_MAX / csize || j.cap > (SIZE_MAX / csize - k) / j.nparts)
        return GPGPU_ERROR_OUT_OF_MEMORY;
    j.cands = malloc((j.nparts * j.cap + k) * csize); /* and the sort's k */
    j.fill = malloc(j.nparts * sizeof *j.fill);
    if (!j.cands || !j.fill) {
        free(j.cands);
        free(j.fill);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    if (j.is64)
        topk64_run(&j, values, indices);
    else if (words)
        topk32_run(&j, values, indices);
    else
        topk32_pairs_run(&j, values, indices);
    free(j.cands);
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
    if (n >= RS_MIN && n < ((size_t)1 << 32) - 1) {
        const int r = select_radix32(in, n, (uint32_t)m0, (uint32_t)m1, (uint32_t)nan_lo,
                                     (uint32_t)nan_hi, ranks, nr, keys);
        if (r != -2)
            return r;
    }
    return select_ranks32(in, n, (uint32_t)m0, (uint32_t)m1, (uint32_t)nan_lo,
                          (uint32_t)nan_hi, ranks, nr, keys);
}
