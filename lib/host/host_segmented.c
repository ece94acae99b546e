/* host_segmented.c - the plain-C fallback of the segmented and by-key
   primitives and of reduce_index: per segment (or run) the fallback's own
   reduce and scan, so the semantics are theirs.
   Past two parts of PART elements the host's threads take the parts:
   part g takes, whole, the segments (runs) that begin in its PART
   elements, each reduced or scanned on that thread (the _seq forms: the
   same results as the one-thread loop). A few long segments keep the
   per-segment threads of reduce and scan instead. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

/* The fallback's reduce of one segment or run, GPGPU_SUM_EXACT included
   (the exact sum on floats, the plain sum on integers). */
enum { PART = 1 << 16 };

/* seq: on this thread alone (inside a part). */
static void reduce_one(int seq, gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *out)
{
    if (op == GPGPU_SUM_EXACT && gpgpu__type(t)->is_float)
        gpgpu__host_sum_exact(t, in, n, out); /* one thread in any case */
    else if (seq)
        gpgpu__host_reduce_seq(t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in, n, out);
    else
        gpgpu__host_reduce(t, op == GPGPU_SUM_EXACT ? GPGPU_SUM : op, in, n, out);
}

static void scan_one(int seq, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                     void *out, size_t n)
{
    if (seq)
        gpgpu__host_scan_seq(t, op, kind, in, out, n, NULL);
    else
        gpgpu__host_scan(t, op, kind, in, out, n, NULL);
}

/* Whether n elements in nseg segments (runs; 0: not known) go to the
   threads by parts. The thread count only past the size test: it reads
   the system's. */
static int by_parts(size_t n, size_t nseg)
{
    return n >= 2 * (size_t)PART && (nseg == 0 || nseg >= 4 * gpgpu__host_threads());
}

typedef struct {
    gpgpu_type t, key_type;
    gpgpu_op op;
    gpgpu_scan_kind kind;
    int scan;
    const char *in, *keys;
    char *out, *keys_out;
    const size_t *offsets;
    size_t nseg, n;
    size_t *first_run;    /* reduce_by_key: per part, its number of runs */
} seg_job;

/* The first segment s in [0, nseg) with offsets[s] >= at (nseg if none). */
static size_t first_at(const size_t *offsets, size_t nseg, size_t at)
{
    size_t lo = 0, hi = nseg;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void seg_part(void *arg, size_t g)
{
    const seg_job *j = arg;
    const size_t size = gpgpu__type(j->t)->size, base = j->offsets[0];
    const size_t s0 = first_at(j->offsets, j->nseg, base + g * PART);
    const size_t s1 = first_at(j->offsets, j->nseg, base + (g + 1) * PART);
    if (j->scan ? gpgpu__host_scan_segments(j->t, j->op, j->kind, j->in, j->out, j->offsets,
                                            s0, s1)
                : gpgpu__host_reduce_segments(j->t, j->op, j->in, j->offsets, s0, s1, j->out))
        return;
    for (size_t s = s0; s < s1; s++) {
        const size_t at = j->offsets[s], len = j->offsets[s + 1] - at;
        if (j->scan)
            scan_one(1, j->t, j->op, j->kind, j->in + at * size, j->out + at * size, len);
        else
            reduce_one(1, j->t, j->op, j->in + at * size, len, j->out + s * size);
    }
}

void gpgpu__host_segmented_reduce(gpgpu_type t, gpgpu_op op, const void *in,
                                  const size_t *offsets, size_t nseg, void *out)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t span = nseg ? offsets[nseg] - offsets[0] : 0;
    if (by_parts(span, nseg)) {
        seg_job j = {t, t, op, GPGPU_INCLUSIVE, 0, in, NULL, out, NULL, offsets, nseg, span,
                     NULL};
        gpgpu__parallel((span + PART - 1) / PART, seg_part, &j);
        return;
    }
    /* short segments (or little in all): one loop on this thread; long
       ones keep the threads of reduce */
    if ((span < 2 * (size_t)PART || span / nseg <= 4096) &&
        gpgpu__host_reduce_segments(t, op, in, offsets, 0, nseg, out))
        return;
    for (size_t s = 0; s < nseg; s++)
        reduce_one(0, t, op, (const char *)in + offsets[s] * size, offsets[s + 1] - offsets[s],
                   (char *)out + s * size);
}

void gpgpu__host_segmented_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                                const void *in, void *out, const size_t *offsets, size_t nseg)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t span = nseg ? offsets[nseg] - offsets[0] : 0;
    if (by_parts(span, nseg)) {
        seg_job j = {t, t, op, kind, 1, in, NULL, out, NULL, offsets, nseg, span, NULL};
        gpgpu__parallel((span + PART - 1) / PART, seg_part, &j);
        return;
    }
    if ((span < 2 * (size_t)PART || span / nseg <= 4096) &&
        gpgpu__host_scan_segments(t, op, kind, in, out, offsets, 0, nseg))
        return;
    for (size_t s = 0; s < nseg; s++)
        scan_one(0, t, op, kind, (const char *)in + offsets[s] * size,
                 (char *)out + offsets[s] * size, offsets[s + 1] - offsets[s]);
}

/* First wins between equal values; a NaN never wins (x == x fails): the
   first element that is not NaN starts, the best value stays in a
   register, and each operator has its own loop. */
#define INDEX_OF(T)                                                         \
    {                                                                       \
        const T *x = in;                                                    \
        size_t i = 0;                                                       \
        while (i < n && x[i] != x[i])                                       \
            i++;                                                            \
        if (i < n) {                                                        \
            T bv = x[i];                                                    \
            best = i;                                                       \
            if (op == GPGPU_MIN) {                                          \
                for (i++; i < n; i++)                                       \
                    if (x[i] < bv) {                                        \
                        bv = x[i];                                          \
                        best = i;                                           \
                    }                                                       \
            } else {                                                        \
                for (i++; i < n; i++)                                       \
                    if (x[i] > bv) {                                        \
                        bv = x[i];                                          \
                        best = i;                                           \
                    }                                                       \
            }                                                               \
        }                                                                   \
    }

void gpgpu__host_reduce_index(gpgpu_type t, gpgpu_op op, const void *in, size_t n,
                              void *value, size_t *index)
{
    const size_t size = gpgpu__type(t)->size;
    size_t best = SIZE_MAX;
    switch (t) {
    case GPGPU_I32: INDEX_OF(int32_t) break;
    case GPGPU_U32: INDEX_OF(uint32_t) break;
    case GPGPU_F32: INDEX_OF(float) break;
    case GPGPU_I64: INDEX_OF(int64_t) break;
    case GPGPU_U64: INDEX_OF(uint64_t) break;
    case GPGPU_F64: INDEX_OF(double) break;
    }
    *index = best;
    if (best == SIZE_MAX)
        gpgpu__identity(t, op, value);
    else
        memcpy(value, (const char *)in + best * size, size);
}

/* The end of the run of keys starting at i: keys compare as bit patterns. */
static size_t run_end(const unsigned char *keys, size_t ksize, size_t i, size_t n)
{
    size_t j = i + 1;
    if (ksize == 4) { /* the key types' widths, compared as words */
        const uint32_t *k = (const uint32_t *)(const void *)keys, head = k[i];
        while (j < n && k[j] == head)
            j++;
    } else if (ksize == 8) {
        const uint64_t *k = (const uint64_t *)(const void *)keys, head = k[i];
        while (j < n && k[j] == head)
            j++;
    } else {
        while (j < n && !memcmp(keys + j * ksize, keys + i * ksize, ksize))
            j++;
    }
    return j;
}

/* Whether element i begins a run (keys compare as bit patterns). */
static int run_head(const unsigned char *keys, size_t ksize, size_t i)
{
    if (i == 0)
        return 1;
    if (ksize == 4)
        return ((const uint32_t *)(const void *)keys)[i] !=
               ((const uint32_t *)(const void *)keys)[i - 1];
    if (ksize == 8)
        return ((const uint64_t *)(const void *)keys)[i] !=
               ((const uint64_t *)(const void *)keys)[i - 1];
    return memcmp(keys + i * ksize, keys + (i - 1) * ksize, ksize) != 0;
}

/* Integer sums by key in one pass, the loop a C programmer writes (the
   same bits as the per-run reduce: integer sums wrap in any order). */
#define FUSED_RBK(K, V)                                                     \
    {                                                                       \
        const K *k = keys;                                                  \
        const V *v = values;                                                \
        K *ko = keys_out;                                                   \
        V *vo = values_out, acc = 0;                                        \
        size_t r = 0;                                                       \
        for (size_t i = 0; i < n; i++) {                                    \
            if (i > 0 && k[i] != k[i - 1]) {                                \
                ko[r] = k[i - 1];                                           \
                vo[r++] = acc;                                              \
                acc = 0;                                                    \
            }                                                               \
            acc += v[i];                                                    \
        }                                                                   \
        if (n) {                                                            \
            ko[r] = k[n - 1];                                               \
            vo[r++] = acc;                                                  \
        }                                                                   \
        return r;                                                           \
    }

#define FUSED_SBK(K, V)                                                     \
    {                                                                       \
        const K *k = keys;                                                  \
        const V *v = values;                                                \
        V *o = out, acc = 0;                                                \
        K prev = n ? k[0] : 0; /* in a register: o may alias k's type */    \
        if (kind == GPGPU_INCLUSIVE)                                        \
            for (size_t i = 0; i < n; i++) {                                \
                const K ki = k[i];                                          \
                const V x = v[i];                                           \
                acc = ki != prev ? 0 : acc;                                 \
                prev = ki;                                                  \
                o[i] = acc += x;                                            \
            }                                                               \
        else                                                                \
            for (size_t i = 0; i < n; i++) {                                \
                const K ki = k[i];                                          \
                const V x = v[i];                                           \
                acc = ki != prev ? 0 : acc;                                 \
                prev = ki;                                                  \
                o[i] = acc;                                                 \
                acc += x;                                                   \
            }                                                               \
        return 1;                                                           \
    }

/* With AVX2, reduce_by_key run by run: a run's keys are compared a vector
   at a time with its first (32 bytes of keys), and while all match, their
   values go into a vector of sums; the first key that differs ends the
   run. Runs of many elements then cost a compare and an add a vector,
   where the loop above (and a programmer's) tests every key. Integer
   sums wrap, so their order does not matter. */
#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define BYKEY_AVX2 1

/* Bit l set where p[l] == key, for the 8 (32-bit) or 4 (64-bit) keys at p. */
__attribute__((target("avx2"))) static inline unsigned same_u32(const uint32_t *p, uint32_t key)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i e = _mm256_cmpeq_epi32(x, _mm256_set1_epi32((int)key));
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(e));
}

__attribute__((target("avx2"))) static inline unsigned same_u64(const uint64_t *p, uint64_t key)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i e = _mm256_cmpeq_epi64(x, _mm256_set1_epi64x((long long)key));
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(e));
}

#define RBK_AVX2(K, V, W, SAME)                                                        \
    __attribute__((target("avx2"))) static size_t rbk_avx2_##K##_##V(                  \
        const K *k, const V *v, size_t n, K *ko, V *vo)                                \
    {                                                                                  \
        typedef V vsum __attribute__((vector_size(W * sizeof(V))));                    \
        const unsigned all = (1u << W) - 1;                                            \
        size_t r = 0;                                                                  \
        for (size_t i = 0; i < n;) {                                                   \
            const K key = k[i];                                                        \
            const size_t first = i;                                                    \
            V acc = 0;                                                                 \
            vsum va = {0};                                                             \
            for (; i + W <= n && SAME(k + i, key) == all; i += W) {                    \
                vsum x;                                                                \
                memcpy(&x, v + i, sizeof x);                                           \
                va += x;                                                               \
            }                                                                          \
            for (int l = 0; i > first && l < W; l++)                                   \
                acc += va[l];                                                          \
            for (; i < n && k[i] == key; i++) /* the run's last, or its only, keys */  \
                acc += v[i];                                                           \
            ko[r] = key;                                                               \
            vo[r++] = acc;                                                             \
        }                                                                              \
        return r;                                                                      \
    }
RBK_AVX2(uint32_t, uint32_t, 8, same_u32)
RBK_AVX2(uint32_t, uint64_t, 8, same_u32)
RBK_AVX2(uint64_t, uint32_t, 4, same_u64)
RBK_AVX2(uint64_t, uint64_t, 4, same_u64)

/* scan_by_key's integer sums the same way: while a vector of keys all
   match the run's first, their values' running sums are made in the
   vector (shifted adds) from the run's sum so far, kept broadcast in a
   vector; the exclusive sums are the inclusive ones less the values. A
   step takes the W values at v into o and moves acc on by their sum. */
__attribute__((target("avx2"))) static inline void step8_u32(const uint32_t *v, uint32_t *o,
                                                             __m256i *acc, int incl)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)v);
    __m256i p = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
    p = _mm256_add_epi32(p, _mm256_slli_si256(p, 8));
    __m256i low = _mm256_shuffle_epi32(p, 0xff); /* each half's sum */
    p = _mm256_add_epi32(p, _mm256_permute2x128_si256(low, low, 0x08));
    p = _mm256_add_epi32(p, *acc);
    _mm256_storeu_si256((__m256i *)(void *)o, incl ? p : _mm256_sub_epi32(p, x));
    *acc = _mm256_permutevar8x32_epi32(p, _mm256_set1_epi32(7));
}

__attribute__((target("avx2"))) static inline void step4_u32(const uint32_t *v, uint32_t *o,
                                                             __m128i *acc, int incl)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)v);
    __m128i p = _mm_add_epi32(x, _mm_slli_si128(x, 4));
    p = _mm_add_epi32(p, _mm_slli_si128(p, 8));
    p = _mm_add_epi32(p, *acc);
    _mm_storeu_si128((__m128i *)(void *)o, incl ? p : _mm_sub_epi32(p, x));
    *acc = _mm_shuffle_epi32(p, 0xff);
}

__attribute__((target("avx2"))) static inline void step4_u64(const uint64_t *v, uint64_t *o,
                                                             __m256i *acc, int incl)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)v);
    __m256i p = _mm256_add_epi64(x, _mm256_slli_si256(x, 8));
    __m256i low = _mm256_permute4x64_epi64(p, 0x55); /* the low half's sum */
    p = _mm256_add_epi64(p, _mm256_blend_epi32(_mm256_setzero_si256(), low, 0xf0));
    p = _mm256_add_epi64(p, *acc);
    _mm256_storeu_si256((__m256i *)(void *)o, incl ? p : _mm256_sub_epi64(p, x));
    *acc = _mm256_permute4x64_epi64(p, 0xff);
}

__attribute__((target("avx2"))) static inline void step8_u64(const uint64_t *v, uint64_t *o,
                                                             __m256i *acc, int incl)
{
    step4_u64(v, o, acc, incl);
    step4_u64(v + 4, o + 4, acc, incl);
}

#define SBK_AVX2(K, V, W, SAME, VEC, ZERO, STEP, LANE0)                                \
    __attribute__((target("avx2"))) static void sbk_avx2_##K##_##V(const K *k, const V *v, \
                                                                 V *o, size_t n, int incl) \
    {                                                                                  \
        const unsigned all = (1u << W) - 1;                                            \
        for (size_t i = 0; i < n;) {                                                   \
            const K key = k[i];                                                        \
            VEC acc = ZERO;                                                            \
            for (; i + W <= n && SAME(k + i, key) == all; i += W)                      \
                STEP(v + i, o + i, &acc, incl);                                        \
            V a = (V)LANE0(acc);                                                       \
            for (; i < n && k[i] == key; i++) { /* the run's last, or its only, keys */ \
                const V x = v[i];                                                      \
                o[i] = incl ? a + x : a;                                               \
                a += x;                                                                \
            }                                                                          \
        }                                                                              \
    }
#define LANE0_32(x) _mm_cvtsi128_si32(_mm256_castsi256_si128(x))
#define LANE0_64(x) _mm_cvtsi128_si64(_mm256_castsi256_si128(x))
SBK_AVX2(uint32_t, uint32_t, 8, same_u32, __m256i, _mm256_setzero_si256(),
         step8_u32, LANE0_32)
SBK_AVX2(uint32_t, uint64_t, 8, same_u32, __m256i, _mm256_setzero_si256(),
         step8_u64, LANE0_64)
SBK_AVX2(uint64_t, uint32_t, 4, same_u64, __m128i, _mm_setzero_si128(),
         step4_u32, _mm_cvtsi128_si32)
SBK_AVX2(uint64_t, uint64_t, 4, same_u64, __m256i, _mm256_setzero_si256(),
         step4_u64, LANE0_64)

/* Whether the keys' runs look long enough for the AVX2 loops: a run a
   vector compare and its stores cost more than the fused loops' test a
   key, so runs shorter than 16 on average (as the first 256 keys tell)
   go there instead (2^16 keys, 2026-11-27, loop ratio AVX2 / fused: runs
   of 1 0.45 / 1.23, of 3 0.77 / 1.37, of 9 2.86 / 1.97, of 64 5.25 /
   1.72). */
static int long_runs(const void *keys, size_t ksize, size_t n)
{
    /* 256 keys tell; a loop of its own per width, as the probe of 1024
       through run_head cost 20 times the AVX2 loop's work at n = 1024 */
    const size_t probe = n < 256 ? n : 256;
    size_t heads = 0;
    if (ksize == 4) {
        const uint32_t *k = keys;
        for (size_t i = 1; i < probe; i++)
            heads += k[i] != k[i - 1];
    } else if (ksize == 8) {
        const uint64_t *k = keys;
        for (size_t i = 1; i < probe; i++)
            heads += k[i] != k[i - 1];
    } else {
        for (size_t i = 1; i < probe; i++)
            heads += (size_t)run_head(keys, ksize, i);
    }
    return 16 * heads < probe;
}

/* The AVX2 loops for keys of K and values of V, as FUSED_WIDTHS's M. */
#define RBK_AVX2_CALL(K, V) return rbk_avx2_##K##_##V(keys, values, n, keys_out, values_out);
#define SBK_AVX2_CALL(K, V)                                                            \
    {                                                                                  \
        sbk_avx2_##K##_##V(keys, values, out, n, kind == GPGPU_INCLUSIVE);             \
        return 1;                                                                      \
    }
#endif

/* M(key word, value word) for the key and value widths (4 or 8 bytes). */
#define FUSED_WIDTHS(M)                                                     \
    if (ksize == 4 && vsize == 4)                                           \
        M(uint32_t, uint32_t)                                               \
    if (ksize == 4 && vsize == 8)                                           \
        M(uint32_t, uint64_t)                                               \
    if (ksize == 8 && vsize == 4)                                           \
        M(uint64_t, uint32_t)                                               \
    if (ksize == 8 && vsize == 8)                                           \
        M(uint64_t, uint64_t)

/* Whether the fused loops take (key_type, value_type, op): integer sums. */
static int fused(gpgpu_type key_type, gpgpu_type value_type, gpgpu_op op)
{
    (void)key_type; /* the key types are integers of 4 or 8 bytes */
    return (op == GPGPU_SUM || op == GPGPU_SUM_EXACT) && !gpgpu__type(value_type)->is_float;
}

/* The fused loops over keys[0 .. n): reduce_by_key's number of runs, or
   SIZE_MAX (nothing written) when they do not take the types and op. */
static size_t rbk_fused(gpgpu_type key_type, gpgpu_type value_type, gpgpu_op op,
                        const void *keys, const void *values, size_t n, void *keys_out,
                        void *values_out)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    if (!fused(key_type, value_type, op))
        return SIZE_MAX;
#ifdef BYKEY_AVX2
    if (gpgpu__host_avx2() && long_runs(keys, ksize, n)) {
        FUSED_WIDTHS(RBK_AVX2_CALL)
    }
#endif
    FUSED_WIDTHS(FUSED_RBK)
    return SIZE_MAX;
}

/* scan_by_key's: 1 when done, 0 (nothing written) when they do not take
   the types and op. */
static int sbk_fused(gpgpu_type key_type, gpgpu_type value_type, gpgpu_op op,
                     gpgpu_scan_kind kind, const void *keys, const void *values, void *out,
                     size_t n)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    if (!fused(key_type, value_type, op))
        return 0;
#ifdef BYKEY_AVX2
    if (gpgpu__host_avx2() && long_runs(keys, ksize, n)) {
        FUSED_WIDTHS(SBK_AVX2_CALL)
    }
#endif
    FUSED_WIDTHS(FUSED_SBK)
    return 0;
}

/* Parts of the by-key ops: part g owns the runs that begin in its PART
   elements. reduce_by_key's part g writes its runs from place g * PART of
   the outputs (no earlier part has more runs than elements) and leaves
   their number in first_run[g]; the runs move down into place after. */
static void by_key_part(void *arg, size_t g)
{
    const seg_job *j = arg;
    const size_t ksize = gpgpu__type(j->key_type)->size, vsize = gpgpu__type(j->t)->size;
    const unsigned char *keys = (const unsigned char *)j->keys;
    const size_t end = (g + 1) * PART < j->n ? (g + 1) * PART : j->n;
    size_t i = g * PART, r = i;
    while (i < end && !run_head(keys, ksize, i))
        i++;
    if (i < end) { /* the part's runs [i, stop) in the fused loop, if it takes them */
        size_t stop = end;
        while (stop < j->n && !run_head(keys, ksize, stop))
            stop++;
        if (j->scan) {
            if (sbk_fused(j->key_type, j->t, j->op, j->kind, keys + i * ksize,
                          j->in + i * vsize, j->out + i * vsize, stop - i))
                return;
        } else {
            size_t runs = rbk_fused(j->key_type, j->t, j->op, keys + i * ksize,
                                    j->in + i * vsize, stop - i, j->keys_out + r * ksize,
                                    j->out + r * vsize);
            if (runs != SIZE_MAX) {
                j->first_run[g] = runs;
                return;
            }
        }
    }
    while (i < end) {
        size_t e = run_end(keys, ksize, i, j->n);
        if (j->scan) {
            scan_one(1, j->t, j->op, j->kind, j->in + i * vsize, j->out + i * vsize, e - i);
        } else {
            memcpy(j->keys_out + r * ksize, keys + i * ksize, ksize);
            reduce_one(1, j->t, j->op, j->in + i * vsize, e - i, j->out + r * vsize);
            r++;
        }
        i = e;
    }
    if (!j->scan)
        j->first_run[g] = r - g * PART;
}

size_t gpgpu__host_reduce_by_key(gpgpu_type key_type, const void *keys, gpgpu_type value_type,
                                 gpgpu_op op, const void *values, size_t n, void *keys_out,
                                 void *values_out)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    const size_t nparts = (n + PART - 1) / PART;
    size_t *first = by_parts(n, 0) ? malloc(nparts * sizeof *first)
                                                          : NULL;
    if (first) {
        seg_job j = {value_type, key_type, op, GPGPU_INCLUSIVE, 0, values, keys, values_out,
                     keys_out, NULL, 0, n, first};
        gpgpu__parallel(nparts, by_key_part, &j);
        size_t runs = first[0];
        for (size_t g = 1; g < nparts; g++) { /* each part's runs down into place */
            memmove((char *)keys_out + runs * ksize, (char *)keys_out + g * PART * ksize,
                    first[g] * ksize);
            memmove((char *)values_out + runs * vsize, (char *)values_out + g * PART * vsize,
                    first[g] * vsize);
            runs += first[g];
        }
        free(first);
        return runs;
    }
    size_t runs = rbk_fused(key_type, value_type, op, keys, values, n, keys_out, values_out);
    if (runs != SIZE_MAX)
        return runs;
    runs = 0;
    for (size_t i = 0; i < n; runs++) {
        size_t j = run_end(keys, ksize, i, n);
        memcpy((char *)keys_out + runs * ksize, (const char *)keys + i * ksize, ksize);
        reduce_one(0, value_type, op, (const char *)values + i * vsize, j - i,
                   (char *)values_out + runs * vsize);
        i = j;
    }
    return runs;
}

void gpgpu__host_scan_by_key(gpgpu_type key_type, const void *keys, gpgpu_type value_type,
                             gpgpu_op op, gpgpu_scan_kind kind, const void *values, void *out,
                             size_t n)
{
    const size_t ksize = gpgpu__type(key_type)->size, vsize = gpgpu__type(value_type)->size;
    if (by_parts(n, 0)) {
        seg_job j = {value_type, key_type, op, kind, 1, values, keys, out, NULL, NULL, 0, n,
                     NULL};
        gpgpu__parallel((n + PART - 1) / PART, by_key_part, &j);
        return;
    }
    if (sbk_fused(key_type, value_type, op, kind, keys, values, out, n))
        return;
    for (size_t i = 0; i < n;) {
        size_t j = run_end(keys, ksize, i, n);
        scan_one(0, value_type, op, kind, (const char *)values + i * vsize,
                 (char *)out + i * vsize, j - i);
        i = j;
    }
}
