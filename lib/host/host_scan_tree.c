/*
 * host_scan_tree.c - float SUM scans on the host in the combining order of
 * kernels/scan.cl's single pass in the chunked layout (CPU devices), so
 * that a call the plan keeps on the host (scan-f) gives the kernels' bits
 * without their launches.
 *
 * That order, for tiles of wg * items elements:
 *   - work item i of a tile owns elements [i * items, +items) of it (fewer,
 *     or none, in a last partial tile); its total is 8 lanes, each a left
 *     fold of one eighth of its whole blocks of 8 (lane l takes elements
 *     l * len .. l * len + len - 1, len = count / 8), folded in lane order
 *     from 0, then the rest one by one;
 *   - the items' totals are scanned across the tile by the log2(wg)-step
 *     Hillis-Steele tree (kernels/scan.cl's group_scan); the last is the
 *     tile's total;
 *   - tile t's prefix is the strict chain: the seed (or 0) for tile 0, then
 *     prefix(t) = prefix(t-1) + total(t-1), tile 0's taking the seed (or 0)
 *     on the left;
 *   - item i scans its elements from prefix(t) + (the items' scan before it,
 *     0 for item 0), in blocks of 8 whose own running sums do not wait for
 *     the running total, then the rest one by one.
 * Every + above is one IEEE add of T in that order, 0 being +0.0 (so that
 * 0 + -0.0 is +0.0 here as in the kernels). Tile by tile on the calling
 * thread, or from THREADS_FROM the tiles' totals and then their scans on
 * the library's threads (only the chain serial). Within an item, blocks
 * of 8 run side by side (their sums are independent), which hides the
 * adds' latency that bounds a serial loop: f32 with AVX2 eight at a time,
 * a block a vector lane, else four in scalars.
 */
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

enum { LANES = 8, WG_MAX = 1024 };

/* From this many elements the tiles go to the library's threads, in two
   passes over memory; below, tile by tile on the calling thread, each
   tile read twice while in cache: on 2 cores (PoCL's plan, 2026-11-27)
   the threads' two passes were 0.5-1.2x the serial loop at 2^16 and
   0.97-1.02x at 2^18, the calling thread 1.2x. */
enum { THREADS_FROM = 1 << 20 };

/* f32 with AVX2: eight blocks of 8 at once, a block a lane. The 8 x 8
   elements are transposed so that vector j holds element j of every block;
   then the blocks' running sums are 7 vector adds, their starts the scalar
   chain, their outputs 8 more, and a second transpose puts them back in
   order. The same adds in the same order as the scalar code (each lane
   one block's), so the same bits; the scalar code wrote every output twice
   (the running sums, then the outputs), which bounded it by its stores.
   (2-core EPYC under load, 2026-11-27, f32 inclusive, best of 3000 calls
   on PoCL's plan: 2^10 0.82 -> 0.50 us, 2^16 48.8 -> 27.9 us, against
   0.96 and 60.7 us for the serial loop.) */
#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define TREE_AVX2 1
/* small loops over vectors unrolled, so that the vectors stay in registers */
#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 8")
#endif

/* r[i] lane j <- r[j] lane i */
__attribute__((target("avx2"))) static inline void transpose8(__m256 r[8])
{
    __m256 lo[4], hi[4], q[8];
    UNROLL
    for (int i = 0; i < 4; i++) {
        lo[i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]); /* 0 8 1 9 | 4 12 5 13 */
        hi[i] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]); /* 2 10 3 11 | 6 14 7 15 */
    }
    UNROLL
    for (int i = 0; i < 2; i++) {
        q[4 * i] = _mm256_shuffle_ps(lo[2 * i], lo[2 * i + 1], 0x44);
        q[4 * i + 1] = _mm256_shuffle_ps(lo[2 * i], lo[2 * i + 1], 0xee);
        q[4 * i + 2] = _mm256_shuffle_ps(hi[2 * i], hi[2 * i + 1], 0x44);
        q[4 * i + 3] = _mm256_shuffle_ps(hi[2 * i], hi[2 * i + 1], 0xee);
    }
    UNROLL
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(q[i], q[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(q[i], q[i + 4], 0x31);
    }
}

/* groups * 64 elements of x into y (y may be x) from acc: returns the
   running total after them. */
__attribute__((target("avx2"))) static float f32_groups_avx2(const float *x, float *y,
                                                             size_t groups, float acc,
                                                             int inclusive)
{
    for (size_t g = 0; g < groups; ++g, x += 8 * LANES, y += 8 * LANES) {
        __m256 r[8];
        float tot[8], start[8];
        UNROLL
        for (int b = 0; b < 8; ++b)
            r[b] = _mm256_loadu_ps(x + LANES * b);
        transpose8(r);
        UNROLL
        for (int j = 1; j < LANES; ++j)
            r[j] = _mm256_add_ps(r[j - 1], r[j]);
        _mm256_storeu_ps(tot, r[LANES - 1]);
        UNROLL
        for (int b = 0; b < 8; ++b) {
            start[b] = acc;
            acc = acc + tot[b];
        }
        __m256 a = _mm256_loadu_ps(start);
        if (inclusive) {
            UNROLL
            for (int j = 0; j < LANES; ++j)
                r[j] = _mm256_add_ps(a, r[j]);
        } else {
            UNROLL
            for (int j = LANES; --j > 0;)
                r[j] = _mm256_add_ps(a, r[j - 1]);
            r[0] = a;
        }
        transpose8(r);
        UNROLL
        for (int b = 0; b < 8; ++b)
            _mm256_storeu_ps(y + LANES * b, r[b]);
    }
    return acc;
}
#endif

/* Whole groups of eight blocks at the head of an item's scan, where the
   type has a vector form: how many elements it took (acc advanced). */
static size_t f32_item_head(const float *x, float *y, size_t count, float *acc, int inclusive)
{
#ifdef TREE_AVX2
    if (count >= 8 * LANES && gpgpu__host_avx2()) {
        size_t groups = count / (8 * LANES);
        *acc = f32_groups_avx2(x, y, groups, *acc, inclusive);
        return groups * 8 * LANES;
    }
#endif
    (void)x, (void)y, (void)count, (void)acc, (void)inclusive;
    return 0;
}

static size_t f64_item_head(const double *x, double *y, size_t count, double *acc,
                            int inclusive)
{
    (void)x, (void)y, (void)count, (void)acc, (void)inclusive;
    return 0;
}

#define SCAN_TREE(NAME, T)                                                                  \
    /* (the eight lanes as scalars: an array kept them in memory, each add then \
       waiting on a store) */                                                   \
    static T NAME##_item_total(const T *x, size_t count)                                    \
    {                                                                                       \
        size_t len = count / LANES, k = LANES * len;                                        \
        const T *x0 = x, *x1 = x0 + len, *x2 = x1 + len, *x3 = x2 + len, *x4 = x3 + len;    \
        const T *x5 = x4 + len, *x6 = x5 + len, *x7 = x6 + len;                             \
        T l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0, l6 = 0, l7 = 0;                   \
        for (size_t i = 0; i < len; ++i) {                                                  \
            l0 = l0 + x0[i], l1 = l1 + x1[i], l2 = l2 + x2[i], l3 = l3 + x3[i];             \
            l4 = l4 + x4[i], l5 = l5 + x5[i], l6 = l6 + x6[i], l7 = l7 + x7[i];             \
        }                                                                                   \
        T acc = 0;                                                                          \
        acc = acc + l0, acc = acc + l1, acc = acc + l2, acc = acc + l3;                     \
        acc = acc + l4, acc = acc + l5, acc = acc + l6, acc = acc + l7;                     \
        for (; k < count; ++k)                                                              \
            acc = acc + x[k];                                                               \
        return acc;                                                                         \
    }                                                                                       \
                                                                                            \
    /* One item's scan of x[0 .. count) into y from acc (y may be x). Each    \
       block of 8 has its own running sum p from its first element; an output  \
       is acc + p (inclusive) or acc + the p before it (exclusive, acc first), \
       acc the block's start. Blocks' sums do not depend on each other, so     \
       four are run side by side (into y), their starts chained after, then    \
       the outputs made in place: the adds of the kernels, four chains at a    \
       time where a serial loop has one. */                                    \
    static void NAME##_item_scan(const T *x, T *y, size_t count, T acc, int inclusive)      \
    {                                                                                       \
        size_t k = NAME##_item_head(x, y, count, &acc, inclusive);                          \
        for (; k + 4 * LANES <= count; k += 4 * LANES) {                                    \
            T *y0 = y + k, *y1 = y0 + LANES, *y2 = y1 + LANES, *y3 = y2 + LANES;            \
            const T *x0 = x + k, *x1 = x0 + LANES, *x2 = x1 + LANES, *x3 = x2 + LANES;      \
            T p0 = x0[0], p1 = x1[0], p2 = x2[0], p3 = x3[0];                               \
            y0[0] = p0, y1[0] = p1, y2[0] = p2, y3[0] = p3;                                 \
            for (size_t j = 1; j < LANES; ++j) {                                            \
                p0 = p0 + x0[j], p1 = p1 + x1[j], p2 = p2 + x2[j], p3 = p3 + x3[j];         \
                y0[j] = p0, y1[j] = p1, y2[j] = p2, y3[j] = p3;                             \
            }                                                                               \
            T a0 = acc, a1 = a0 + p0, a2 = a1 + p1, a3 = a2 + p2;                           \
            acc = a3 + p3;                                                                  \
            if (inclusive) {                                                                \
                for (size_t j = 0; j < LANES; ++j) {                                        \
                    y0[j] = a0 + y0[j], y1[j] = a1 + y1[j];                                 \
                    y2[j] = a2 + y2[j], y3[j] = a3 + y3[j];                                 \
                }                                                                           \
            } else {                                                                        \
                for (size_t j = LANES; --j > 0;) {                                          \
                    y0[j] = a0 + y0[j - 1], y1[j] = a1 + y1[j - 1];                         \
                    y2[j] = a2 + y2[j - 1], y3[j] = a3 + y3[j - 1];                         \
                }                                                                           \
                y0[0] = a0, y1[0] = a1, y2[0] = a2, y3[0] = a3;                             \
            }                                                                               \
        }                                                                                   \
        for (; k + LANES <= count; k += LANES) {                                            \
            T p = x[k];                                                                     \
            y[k] = inclusive ? acc + p : acc;                                               \
            for (size_t j = 1; j < LANES; ++j) {                                            \
                T prev = p;                                                                 \
                p = prev + x[k + j];                                                        \
                y[k + j] = acc + (inclusive ? p : prev);                                    \
            }                                                                               \
            acc = acc + p;                                                                  \
        }                                                                                   \
        for (; k < count; ++k) {                                                            \
            T v = x[k];                                                                     \
            if (inclusive) {                                                                \
                acc = acc + v;                                                              \
                y[k] = acc;                                                                 \
            } else {                                                                        \
                y[k] = acc;                                                                 \
                acc = acc + v;                                                              \
            }                                                                               \
        }                                                                                   \
    }                                                                                       \
                                                                                            \
    /* Tile of len elements at x: its items' inclusive tree into sums[0 .. wg). */          \
    static void NAME##_tile_sums(const T *x, size_t len, size_t wg, size_t items, T *sums)  \
    {                                                                                       \
        for (size_t i = 0; i < wg; ++i) {                                                   \
            size_t first = i * items;                                                       \
            size_t count = first >= len ? 0 : len - first < items ? len - first : items;    \
            sums[i] = NAME##_item_total(x + first, count);                                  \
        }                                                                                   \
        for (size_t d = 1; d < wg; d <<= 1)                                                 \
            for (size_t i = wg; i-- > d;) /* down: sums[i - d] is still the old one */      \
                sums[i] = sums[i - d] + sums[i];                                            \
    }                                                                                       \
                                                                                            \
    /* The tile's scan from prefix, its items' tree in sums. */                             \
    static void NAME##_tile_scan(const T *x, T *y, size_t len, size_t wg, size_t items,     \
                                 const T *sums, T prefix, int inclusive)                    \
    {                                                                                       \
        for (size_t i = 0; i < wg; ++i) {                                                   \
            size_t first = i * items;                                                       \
            size_t count = first >= len ? 0 : len - first < items ? len - first : items;    \
            NAME##_item_scan(x + first, y + first, count, prefix + (i ? sums[i - 1] : (T)0), \
                             inclusive);                                                    \
        }                                                                                   \
    }                                                                                       \
                                                                                            \
    /* The whole scan tile by tile on the calling thread, each tile read twice              \
       while it is in cache; s: room for one tile's tree. */                                \
    static void NAME##_serial(const T *x, T *y, size_t n, const T *init, size_t wg,         \
                              size_t items, int inclusive, T *s)                            \
    {                                                                                       \
        T p = init ? *init : (T)0;                                                          \
        for (size_t at = 0, tile = wg * items; at < n; at += tile) {                        \
            size_t len = n - at < tile ? n - at : tile;                                     \
            NAME##_tile_sums(x + at, len, wg, items, s);                                    \
            NAME##_tile_scan(x + at, y + at, len, wg, items, s, p, inclusive);              \
            p = p + s[wg - 1];                                                              \
        }                                                                                   \
    }                                                                                       \
                                                                                            \
    /* Each tile's prefix from the tiles' trees (sums, wg a tile): the chain. */            \
    static void NAME##_chain(const T *sums, T *pre, size_t tiles, size_t wg, const T *init) \
    {                                                                                       \
        T p = init ? *init : (T)0;                                                          \
        for (size_t k = 0; k < tiles; ++k) {                                                \
            pre[k] = p;                                                                     \
            p = p + sums[k * wg + wg - 1];                                                  \
        }                                                                                   \
    }
SCAN_TREE(f32, float)
SCAN_TREE(f64, double)

typedef struct {
    gpgpu_type t;
    const char *x;
    char *y;
    size_t n, wg, items, tiles, size, nparts;
    int inclusive;
    char *sums;     /* tiles * wg values: each tile's items' tree */
    char *prefix;   /* tiles values: each tile's prefix */
} scan_tree_job;

static size_t tile_len(const scan_tree_job *j, size_t t)
{
    size_t tile = j->wg * j->items, rest = j->n - t * tile;
    return rest < tile ? rest : tile;
}

/* Parts of the job: runs of whole tiles. */
static void tiles_of_part(const scan_tree_job *j, size_t part, size_t nparts, size_t *t0,
                          size_t *t1)
{
    *t0 = j->tiles * part / nparts;
    *t1 = j->tiles * (part + 1) / nparts;
}

static void sums_part(void *arg, size_t part)
{
    const scan_tree_job *j = arg;
    size_t t0, t1, tile = j->wg * j->items;
    tiles_of_part(j, part, j->nparts, &t0, &t1);
    for (size_t t = t0; t < t1; ++t) {
        if (j->t == GPGPU_F32)
            f32_tile_sums((const float *)j->x + t * tile, tile_len(j, t), j->wg, j->items,
                          (float *)j->sums + t * j->wg);
        else
            f64_tile_sums((const double *)j->x + t * tile, tile_len(j, t), j->wg, j->items,
                          (double *)j->sums + t * j->wg);
    }
}

static void scan_part(void *arg, size_t part)
{
    const scan_tree_job *j = arg;
    size_t t0, t1, tile = j->wg * j->items;
    tiles_of_part(j, part, j->nparts, &t0, &t1);
    for (size_t t = t0; t < t1; ++t) {
        if (j->t == GPGPU_F32)
            f32_tile_scan((const float *)j->x + t * tile, (float *)j->y + t * tile,
                          tile_len(j, t), j->wg, j->items, (const float *)j->sums + t * j->wg,
                          ((const float *)j->prefix)[t], j->inclusive);
        else
            f64_tile_scan((const double *)j->x + t * tile, (double *)j->y + t * tile,
                          tile_len(j, t), j->wg, j->items, (const double *)j->sums + t * j->wg,
                          ((const double *)j->prefix)[t], j->inclusive);
    }
}

int gpgpu__host_scan_tree(gpgpu_type t, gpgpu_scan_kind kind, const void *in, void *out,
                          size_t n, const void *init, size_t wg, size_t items)
{
    if ((t != GPGPU_F32 && t != GPGPU_F64) || wg == 0 || wg > WG_MAX || (wg & (wg - 1)) ||
        items == 0)
        return 0;
    if (n == 0)
        return 1;
    size_t size = gpgpu__type(t)->size, tile = wg * items;
    scan_tree_job j = {t, in, out, n, wg, items, (n + tile - 1) / tile, size, 1,
                       kind == GPGPU_INCLUSIVE, NULL, NULL};
    /* Parts of whole tiles; the pool's threads from THREADS_FROM on. (A
       part's scan reads only its own tiles of in before writing them, so
       an in-place scan is safe; the totals are all taken first.) */
    size_t nparts = n < THREADS_FROM ? 1 : j.tiles < 64 ? j.tiles : 64;
    j.nparts = nparts;
    if (nparts == 1) {
        union {
            float f[WG_MAX];
            double d[WG_MAX];
        } one; /* one tile's tree (no allocation in a small call) */
        if (t == GPGPU_F32)
            f32_serial(in, out, n, init, wg, items, j.inclusive, one.f);
        else
            f64_serial(in, out, n, init, wg, items, j.inclusive, one.d);
        return 1;
    }
    j.sums = malloc(j.tiles * (wg + 1) * size);
    if (j.sums == NULL)
        return 0;
    j.prefix = j.sums + j.tiles * wg * size;
    gpgpu__parallel(nparts, sums_part, &j);
    if (t == GPGPU_F32)
        f32_chain((const float *)j.sums, (float *)j.prefix, j.tiles, wg, init);
    else
        f64_chain((const double *)j.sums, (double *)j.prefix, j.tiles, wg, init);
    gpgpu__parallel(nparts, scan_part, &j);
    free(j.sums);
    return 1;
}
