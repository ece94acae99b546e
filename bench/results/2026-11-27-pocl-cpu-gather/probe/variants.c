#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <immintrin.h>

enum { GATHER_BLOCK = 1024 };
typedef uint64_t gather_v4 __attribute__((vector_size(32)));

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
/* max of x: compare against n_in exactly, one pass */
__attribute__((target("avx2"))) static int all_below_avx2(const uint64_t *x, size_t n, uint64_t n_in)
{
    /* unsigned compare via xor of sign bit: x ^ 2^63 > (n_in-1) ^ 2^63 signed */
    const __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    const __m256i lim = _mm256_xor_si256(_mm256_set1_epi64x((long long)(n_in - 1)), sign);
    __m256i bad0 = _mm256_setzero_si256(), bad1 = bad0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(x + i + 4));
        bad0 = _mm256_or_si256(bad0, _mm256_cmpgt_epi64(_mm256_xor_si256(a, sign), lim));
        bad1 = _mm256_or_si256(bad1, _mm256_cmpgt_epi64(_mm256_xor_si256(b, sign), lim));
    }
    int bad = !_mm256_testz_si256(bad0 | bad1, bad0 | bad1);
    for (; i < n; i++)
        bad |= x[i] >= n_in;
    return !bad;
}

int check_or(const uint64_t *indices, size_t n, size_t n_in)
{
    for (size_t at = 0; at < n; at += GATHER_BLOCK) {
        const size_t len = n - at < GATHER_BLOCK ? n - at : GATHER_BLOCK;
        const uint64_t *x = indices + at;
        const uint64_t o = or_of_avx2(x, len);
        if (o < n_in)
            continue;
        uint64_t bad = 0;
        for (size_t i = 0; i < len; i++)
            bad |= x[i] >= n_in;
        if (bad)
            return 0;
    }
    return 1;
}
/* one OR over everything (no blocks) */
int check_or1(const uint64_t *indices, size_t n, size_t n_in)
{
    const uint64_t o = or_of_avx2(indices, n);
    if (o < n_in)
        return 1;
    return all_below_avx2(indices, n, n_in);
}
int check_cmp(const uint64_t *indices, size_t n, size_t n_in)
{
    return all_below_avx2(indices, n, n_in);
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

void g_unroll(size_t vs, const void *in, const uint64_t *indices, size_t n, void *out)
{
    if (vs == 8) GATHER_LOOP(uint64_t); else GATHER_LOOP(uint32_t);
}

void g_plain(size_t vs, const void *in, const uint64_t *indices, size_t n, void *out)
{
    if (vs == 8) { for (size_t i = 0; i < n; i++) ((uint64_t *)out)[i] = ((const uint64_t *)in)[indices[i]]; }
    else for (size_t i = 0; i < n; i++) ((uint32_t *)out)[i] = ((const uint32_t *)in)[indices[i]];
}

__attribute__((target("avx2"))) void g_hw(size_t vs, const void *in, const uint64_t *idx, size_t n, void *out)
{
    size_t i = 0;
    if (vs == 4) {
        const int *src = in;
        uint32_t *dst = out;
        for (; i + 8 <= n; i += 8) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(idx + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(idx + i + 4));
            __m128i ga = _mm256_i64gather_epi32(src, a, 4);
            __m128i gb = _mm256_i64gather_epi32(src, b, 4);
            _mm256_storeu_si256((__m256i *)(dst + i), _mm256_set_m128i(gb, ga));
        }
        for (; i < n; i++) dst[i] = (uint32_t)src[idx[i]];
    } else {
        const long long *src = in;
        uint64_t *dst = out;
        for (; i + 8 <= n; i += 8) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(idx + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(idx + i + 4));
            _mm256_storeu_si256((__m256i *)(dst + i), _mm256_i64gather_epi64(src, a, 8));
            _mm256_storeu_si256((__m256i *)(dst + i + 4), _mm256_i64gather_epi64(src, b, 8));
        }
        for (; i < n; i++) dst[i] = (uint64_t)src[idx[i]];
    }
}

/* u32: two elements a 64-bit store */
void g_pair(size_t vs, const void *in, const uint64_t *idx, size_t n, void *out)
{
    if (vs == 8) { g_unroll(vs, in, idx, n, out); return; }
    const uint32_t *src = in;
    uint32_t *dst = out;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a = src[idx[i]] | (uint64_t)src[idx[i + 1]] << 32;
        uint64_t b = src[idx[i + 2]] | (uint64_t)src[idx[i + 3]] << 32;
        uint64_t c = src[idx[i + 4]] | (uint64_t)src[idx[i + 5]] << 32;
        uint64_t d = src[idx[i + 6]] | (uint64_t)src[idx[i + 7]] << 32;
        memcpy(dst + i, &a, 8);
        memcpy(dst + i + 2, &b, 8);
        memcpy(dst + i + 4, &c, 8);
        memcpy(dst + i + 6, &d, 8);
    }
    for (; i < n; i++) dst[i] = src[idx[i]];
}

/* prefetch in[] ahead */
void g_pf(size_t vs, const void *in, const uint64_t *idx, size_t n, void *out)
{
    enum { D = 32 };
    if (vs == 8) { g_unroll(vs, in, idx, n, out); return; }
    const uint32_t *src = in;
    uint32_t *dst = out;
    size_t i = 0;
    for (; i + 8 + D <= n; i += 8) {
        for (int q = 0; q < 8; q++) __builtin_prefetch(src + idx[i + D + q]);
        for (int q = 0; q < 8; q++) dst[i + q] = src[idx[i + q]];
    }
    for (; i < n; i++) dst[i] = src[idx[i]];
}

/* blocks from the last to the first: the gather then finds the first
   indices in cache */
int check_or_rev(const uint64_t *indices, size_t n, size_t n_in)
{
    size_t end = n;
    while (end > 0) {
        const size_t len = end < GATHER_BLOCK ? end : GATHER_BLOCK;
        const uint64_t *x = indices + end - len;
        const uint64_t o = or_of_avx2(x, len);
        end -= len;
        if (o < n_in)
            continue;
        uint64_t bad = 0;
        for (size_t i = 0; i < len; i++)
            bad |= x[i] >= n_in;
        if (bad)
            return 0;
    }
    return 1;
}
