/*
 * host_sort.c - the plain-C fallback of gpgpu_sort and gpgpu_sort_pairs: a
 * stable LSD radix sort of transformed keys (the same bit transform as
 * kernels/sort.cl), 8-bit digits, all digit histograms counted in one read,
 * passes whose digit is the same for every key skipped, nothing done for
 * keys already in order. The first pass transforms the keys as it reads
 * them and the last one restores them as it writes them into the caller's
 * array; values move with their keys in every pass; the scratch for keys
 * and values is one block that the pool keeps between calls
 * (gpgpu__host_scratch). From BUCKETS_MIN keys a top digit (256 slices of
 * the range of a sample of the keys) goes first, and each of its 256
 * buckets is then sorted by the bytes that vary in it on its own, in
 * cache (bucket_*, below).
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
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
enum { BUCKETS_MIN = 1 << 17 }; /* keys from which the top digit goes first (below) */
enum { TOP_SAMPLE = 4096 };     /* keys, one per equal span, that set the top digit */
/* Bytes of keys and values past which a bucket of the top digit is split
   by its highest digit left before its other digits are sorted: keys
   whose top digit varies little (floats of a few binades) leave buckets
   of many MiB, which LSD passes would each read and write from memory. */
enum { SPLIT_BYTES = 1 << 20 };
enum { PREP_BLOCK = 1024 };
/* A piece of at least WIDE_MIN keys without values may sort by digits of
   up to WIDE_BITS bits that start at its lowest bit that varies (wide_*,
   below): the 24 bits under a top digit of random u32 keys in two passes,
   not three. Whether that pays depends on the CPU, so it is measured once
   per process (wide_pays): 65536 keys of 24 bits in cache took 4.4-5.2 ns
   a key in two passes of 12 bits against 7.5-8.3 in three of 8 on an AMD
   EPYC (2 cores of a VM), but 10.4-11.7 against 8.5-9.9 on an Intel Xeon
   (an H200 machine's host), whose stores to 4096 places miss its L1.
   With values, whose stores go to as many more places, it did not pay on
   the EPYC either (u32 pairs of 2^24 as fast, u64 pairs of 2^22 1.3x
   slower). */
enum { WIDE_MIN = 8192, WIDE_BITS = 12, WIDE_MAX_PASSES = 6 };
enum { WIDE_WORDS = (WIDE_MAX_PASSES + 1) << WIDE_BITS }; /* the counts and the places */

typedef struct {
    int digits;                 /* sizeof the key words */
    size_t n, nparts;
    uint64_t m0, m1, top;       /* the transform (gpgpu__sort_masks) */
    uint64_t if_set, if_clear;  /* its inverse */
    void *keys, *scratch;       /* the caller's keys; n words of scratch */
    const void *src;            /* this pass: keys from ... */
    void *dst;                  /* ... to */
    int first, last;            /* this pass reads untransformed keys (the
                                   caller's order) / writes them untransformed */
    size_t (*count)[MAX_DIGITS][RADIX];  /* nparts: every digit, of the input */
    size_t (*pos)[RADIX];       /* nparts: the part's counts, then its places */
    int *in_order;              /* nparts */
    int top_only;               /* the first read counts the top digit alone,
                                   into count[part][0] (and writes and_or) */
    uint64_t top_lo;            /* the top digit of key x (transformed): */
    int top_shift;              /* (x - top_lo) >> top_shift within 0..255 */
    uint64_t *and_or;           /* nparts: the AND and the OR of the keys */
    int shift;                  /* the pass's digit: the 8 bits from this one */
    /* values, moved with their keys in every pass */
    unsigned char *values, *vscratch;
    const unsigned char *vsrc;
    unsigned char *vdst;
    size_t vsize;
    /* the buckets of the top pass (bucket_*): bucket v is [bstart[v],
       bstart[v + 1]) of the scratch after that pass; the bytes that vary
       among all keys (each bucket's passes take those that vary in it) */
    size_t bstart[RADIX + 1];
    int rest[MAX_DIGITS], nrest;
    int wide;                   /* buckets of keys alone may take wide_ */
    int trial;                  /* buckets try both ways, timed (gpgpu__host_sort_digits) */
    float trial_rate[RADIX];    /* bucket v's ns a key in the trial, 0 untimed */
} sort_job;

/* This thread's CPU time in ns: a bucket's own work, whatever else the
   CPU runs meanwhile. */
static uint64_t thread_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The highest bit set in x (0 for 0). */
static int high_bit(uint64_t x)
{
    return x ? 63 - __builtin_clzll(x) : 0;
}

/* The top digit of transformed key x: which of 256 equal slices
   [lo, lo + 256 << s), that hold the sample's range, it falls in, keys
   outside in the first or last. Monotone in x, so its buckets are in the
   keys' order. */
#define TOP_DIGIT(W, x, lo, s)                                                          \
    ((x) < (lo) ? (size_t)0                                                             \
     : (W)((x) - (lo)) >> (s) >= RADIX ? (size_t)(RADIX - 1) : (size_t)((W)((x) - (lo)) >> (s)))

static size_t part_first(const sort_job *j, size_t i)
{
    return j->n / j->nparts * i + j->n % j->nparts * i / j->nparts;
}

/* The scatters read four keys before they write any: in a loop of one
   key, the next key's read waits behind the last store, which might
   alias it (the compiler cannot move it), and a 12-bit pass over 2^16
   keys in cache took 8.1 ns a key on the 2-core EPYC against 4.7 with
   the reads ahead. FOUR_KEYS(W, I0, END, ONE, ...) runs ONE(Y, J, ...)
   for the keys Y = k[I0 + J], I0 stepping from its value to END. */
#define FOUR_KEYS(W, I0, END, ONE, ...)                                                 \
    {                                                                                   \
        for (; I0 + 4 <= (END); I0 += 4) {                                              \
            const W y0 = k[I0], y1 = k[I0 + 1], y2 = k[I0 + 2], y3 = k[I0 + 3];         \
            ONE(y0, 0, __VA_ARGS__);                                                    \
            ONE(y1, 1, __VA_ARGS__);                                                    \
            ONE(y2, 2, __VA_ARGS__);                                                    \
            ONE(y3, 3, __VA_ARGS__);                                                    \
        }                                                                               \
        for (; I0 < (END); I0++)                                                        \
            ONE(k[I0], 0, __VA_ARGS__);                                                 \
    }
/* One key x = Y to k2[at[DIGIT]++] (IN, OUT as SCATTER_KEYS) and, with
   values, MOVE of value i = i0 + J to place p. */
#define KEY_ONE(Y, J, W, IN, OUT, DIGIT)                                                \
    do {                                                                                \
        W x = (Y);                                                                      \
        IN;                                                                             \
        k2[at[DIGIT]++] = (OUT);                                                        \
    } while (0)
#define PAIR_ONE(Y, J, W, IN, OUT, MOVE, DIGIT)                                         \
    do {                                                                                \
        const size_t i = i0 + (J);                                                      \
        W x = (Y);                                                                      \
        IN;                                                                             \
        const size_t p = at[DIGIT]++;                                                   \
        k2[p] = (OUT);                                                                  \
        MOVE;                                                                           \
    } while (0)

/* One pass over keys k[a .. b) alone: IN transforms x as it is read, OUT
   is what is written (constants in each loop: no per-key test of which
   applies). */
#define SCATTER_KEYS(W, IN, OUT, DIGIT)                                                 \
    {                                                                                   \
        size_t i0 = a;                                                                  \
        FOUR_KEYS(W, i0, b, KEY_ONE, W, IN, OUT, DIGIT)                                 \
    }
/* Keys with their values: MOVE moves value i to place p. */
#define SCATTER_PAIRS(W, IN, OUT, MOVE, DIGIT)                                          \
    {                                                                                   \
        size_t i0 = a;                                                                  \
        FOUR_KEYS(W, i0, b, PAIR_ONE, W, IN, OUT, MOVE, DIGIT)                          \
    }
/* SCATTER_PAIRS with the transforms that apply as constants of the loop,
   as SCATTER_KEYS: a test of in_t and out_t for every pair took a third of
   a sort of pairs' time (u32 keys and values, 2^10 .. 2^20). */
#define SCATTER_PAIRS_T(W, MOVE, DIGIT)                                                 \
    do {                                                                                \
        if (in_t && out_t)                                                              \
            SCATTER_PAIRS(W, x ^= (x >> top) ? m1 : m0,                                 \
                          x ^ ((x >> top) ? if_set : if_clear), MOVE, DIGIT)            \
        else if (in_t)                                                                  \
            SCATTER_PAIRS(W, x ^= (x >> top) ? m1 : m0, x, MOVE, DIGIT)                 \
        else if (out_t)                                                                 \
            SCATTER_PAIRS(W, (void)0, x ^ ((x >> top) ? if_set : if_clear), MOVE, DIGIT) \
        else                                                                            \
            SCATTER_PAIRS(W, (void)0, x, MOVE, DIGIT)                                   \
    } while (0)
/* A pass over keys k[a .. b) (values vs, z bytes) to k2 (vd) at at[DIGIT]++,
   one loop for each case: keys alone or with values of 4, 8 or z bytes,
   transformed as they are read (in_t) and untransformed as they are
   written (out_t) or not. The top digit's pass and the LSD passes over
   the whole array differ only in DIGIT. */
#define SCATTER_PART(W, DIGIT)                                                          \
    do {                                                                                \
        if (vs) { /* values through typed pointers where they are words */             \
            const uint32_t *v4 = (const uint32_t *)(const void *)vs;                    \
            uint32_t *d4 = (uint32_t *)(void *)vd;                                      \
            const uint64_t *v8 = (const uint64_t *)(const void *)vs;                    \
            uint64_t *d8 = (uint64_t *)(void *)vd;                                      \
            if (z == 4)                                                                 \
                SCATTER_PAIRS_T(W, d4[p] = v4[i], DIGIT);                               \
            else if (z == 8)                                                            \
                SCATTER_PAIRS_T(W, d8[p] = v8[i], DIGIT);                               \
            else                                                                        \
                SCATTER_PAIRS_T(W, memcpy(vd + p * z, vs + i * z, z), DIGIT);           \
        } else if (in_t && out_t) { /* one pass: both transforms */                     \
            SCATTER_KEYS(W, x ^= (x >> top) ? m1 : m0, x ^ ((x >> top) ? if_set : if_clear), \
                         DIGIT);                                                        \
        } else if (in_t) {                                                              \
            SCATTER_KEYS(W, x ^= (x >> top) ? m1 : m0, x, DIGIT);                       \
        } else if (out_t) {                                                             \
            SCATTER_KEYS(W, (void)0, x ^ ((x >> top) ? if_set : if_clear), DIGIT);      \
        } else { /* keys as they are: middle passes, unsigned ascending keys */         \
            SCATTER_KEYS(W, (void)0, x, DIGIT);                                         \
        }                                                                               \
    } while (0)
/* Keys are read as they are and transformed on the fly (prep, the first
   pass), and untransformed as the last pass writes them: no pass of its
   own for either. */
/* A pass over a piece (piece_, wide_): keys k[0 .. len) to k2 at
   at[DIGIT]++, OUT written; MOVE moves value i to place p. */
#define SCATTER_PIECE(W, DIGIT, OUT, MOVE)                                              \
    {                                                                                   \
        size_t i0 = 0;                                                                  \
        FOUR_KEYS(W, i0, len, PAIR_ONE, W, (void)0, OUT, MOVE, DIGIT)                   \
    }
/* SCATTER_PIECE of keys alone. */
#define SCATTER_PIECE_KEYS(W, DIGIT, OUT)                                               \
    do {                                                                                \
        size_t i0 = 0;                                                                  \
        FOUR_KEYS(W, i0, len, KEY_ONE, W, (void)0, OUT, DIGIT)                          \
    } while (0)
/* The key untransformed (the last pass). */
#define UNDO(x) ((x) ^ (((x) >> top) ? if_set : if_clear))
/* A piece's pass from s0 to s1 (values w0 to w1, z bytes), one loop for
   each case: keys alone or with values of 4, 8 or z bytes, untransformed
   as they are written (LAST) or not. */
#define PIECE_PASS(W, DIGIT, LAST)                                                      \
    do {                                                                                \
        const W *k = s0;                                                                \
        W *k2 = s1;                                                                     \
        const uint32_t *v4 = (const uint32_t *)(const void *)w0;                        \
        uint32_t *d4 = (uint32_t *)(void *)w1;                                          \
        const uint64_t *v8 = (const uint64_t *)(const void *)w0;                        \
        uint64_t *d8 = (uint64_t *)(void *)w1;                                          \
        if (!w0 && (LAST))                                                              \
            SCATTER_PIECE_KEYS(W, DIGIT, UNDO(x));                                      \
        else if (!w0)                                                                   \
            SCATTER_PIECE_KEYS(W, DIGIT, x);                                            \
        else if (z == 4 && (LAST))                                                      \
            SCATTER_PIECE(W, DIGIT, UNDO(x), d4[p] = v4[i])                             \
        else if (z == 4)                                                                \
            SCATTER_PIECE(W, DIGIT, x, d4[p] = v4[i])                                   \
        else if (z == 8 && (LAST))                                                      \
            SCATTER_PIECE(W, DIGIT, UNDO(x), d8[p] = v8[i])                             \
        else if (z == 8)                                                                \
            SCATTER_PIECE(W, DIGIT, x, d8[p] = v8[i])                                   \
        else                                                                            \
            SCATTER_PIECE(W, DIGIT, (LAST) ? UNDO(x) : x,                               \
                          memcpy(w1 + p * z, w0 + i * z, z))                            \
    } while (0)
/* After a pass: its output (s1, w1) becomes the next one's input. */
#define SWAP_PASS(W)                                                                    \
    do {                                                                                \
        W *t_ = s0;                                                                     \
        s0 = s1;                                                                        \
        s1 = t_;                                                                        \
        unsigned char *u_ = w0;                                                         \
        w0 = w1;                                                                        \
        w1 = u_;                                                                        \
    } while (0)

/* The top digit of block x0[0 .. LEN): the keys transformed into tb,
   their digits into db and, for prep_, their AND and OR and (up) whether
   they ascend (top_scatter_ leaves those unused, which the compiler
   drops). */
#define TOP_PREP(W, LEN)                                                                \
    do {                                                                                \
        for (size_t q = 0; q < (LEN); q++) {                                            \
            W x = x0[q];                                                                \
            x ^= (x >> top) ? m1 : m0;                                                  \
            tb[q] = x;                                                                  \
            and_ &= x;                                                                  \
            or_ |= x;                                                                   \
            db[q] = (unsigned char)TOP_DIGIT(W, x, lo, s);                              \
        }                                                                               \
        for (size_t q = 1; q < (LEN); q++)                                              \
            up &= tb[q] >= tb[q - 1];                                                   \
    } while (0)

/* The top digit's scatter writes whole cache lines of keys, gathered in
   a line a bucket, with stores that bypass the cache: the lines are not
   read first (a store that misses reads its line in), and the 256
   buckets' lines stay out of the caches that the next read streams
   through. */
enum { LINE_BYTES = 64 };
#define LINE_KEYS(W) (LINE_BYTES / sizeof(W))
static inline void stream_line(void *dst, const void *src)
{
#ifdef __SSE2__
    __m128i *o = dst;
    const __m128i *i = src;
    _mm_stream_si128(o, i[0]);
    _mm_stream_si128(o + 1, i[1]);
    _mm_stream_si128(o + 2, i[2]);
    _mm_stream_si128(o + 3, i[3]);
#else
    memcpy(dst, src, LINE_BYTES);
#endif
}
/* Bucket d's keys u in [from, to) from its gathered line to the scratch,
   one at a time: a line that is not whole (a part's first or last). */
#define LINE_PART(W, d, from, to)                                                      \
    for (size_t u = (from), u_end = (to); u < u_end; u++)                             \
    k2[u] = line[d][(u + off) & (LINE_KEYS(W) - 1)]
/* Orders the streamed stores before what follows (another thread's reads). */
static inline void stream_done(void)
{
#ifdef __SSE2__
    _mm_sfence();
#endif
}

#define SORT_FUNCS(W, SUF)                                                              \
    static void prep_##SUF(void *arg, size_t part)                                      \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *in = j->keys;                                                          \
        W prev = 0;                                                                     \
        size_t(*count)[RADIX] = j->count[part];                                         \
        int in_order = 1;                                                               \
        const W m0 = (W)j->m0, m1 = (W)j->m1;                                           \
        const unsigned top = (unsigned)j->top;                                          \
        if (j->top_only) { /* the AND and OR of the keys, one digit's counts */        \
            W and_ = (W)~(W)0, or_ = 0;                                                 \
            size_t *c = count[0];                                                       \
            const W lo = (W)j->top_lo;                                                  \
            const int s = j->top_shift;                                                 \
            W tb[PREP_BLOCK];                                                           \
            unsigned char db[PREP_BLOCK];                                               \
            prev = a < b ? (W)(in[a] ^ ((in[a] >> top) ? m1 : m0)) : 0;                 \
            for (size_t i0 = a; i0 < b; i0 += PREP_BLOCK) {                             \
                const size_t len = b - i0 < PREP_BLOCK ? b - i0 : PREP_BLOCK;           \
                const W *x0 = in + i0;                                                  \
                int up = 1;                                                             \
                if (len == PREP_BLOCK) /* a constant count: the loops vectorize */     \
                    TOP_PREP(W, PREP_BLOCK);                                            \
                else                                                                    \
                    TOP_PREP(W, len);                                                   \
                in_order &= up && tb[0] >= prev;                                        \
                prev = tb[len - 1];                                                     \
                for (size_t k = 0; k < len; k++)                                        \
                    c[db[k]]++;                                                         \
            }                                                                           \
            j->and_or[2 * part] = and_;                                                 \
            j->and_or[2 * part + 1] = or_;                                              \
            j->in_order[part] = in_order;                                               \
            return;                                                                     \
        }                                                                               \
        for (size_t i = a; i < b; i++) {                                                \
            W x = in[i];                                                                \
            x ^= (x >> top) ? m1 : m0;                                                  \
            in_order &= i == a || x >= prev;                                            \
            prev = x;                                                                   \
            /* unrolled, or gcc -O2 keeps a loop with a variable shift: the  */     \
            /* counting took as long as all the scatters (u32, 2^12 keys) */           \
            _Pragma("GCC unroll 8")                                                     \
            for (int d = 0; d < (int)sizeof(W); d++)                                    \
                count[d][(x >> (d * RADIX_BITS)) & (RADIX - 1)]++;                      \
        }                                                                               \
        j->in_order[part] = in_order;                                                   \
    }                                                                                   \
    /* The top digit's pass (TOP_DIGIT) of the part into the scratch, the */       \
    /* keys transformed as they are read. */                                            \
    static void top_scatter_##SUF(void *arg, size_t part)                               \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *k = j->keys;                                                           \
        W *k2 = j->scratch;                                                             \
        const W lo = (W)j->top_lo, m0 = (W)j->m0, m1 = (W)j->m1;                        \
        const W if_set = 0, if_clear = 0;                                               \
        const int s = j->top_shift, in_t = 1, out_t = 0;                                \
        const unsigned top = (unsigned)j->top;                                          \
        const unsigned char *vs = j->values;                                            \
        unsigned char *vd = j->vscratch;                                                \
        const size_t z = j->vsize;                                                      \
        size_t at[RADIX];                                                               \
        memcpy(at, j->pos[part], sizeof at);                                            \
        if (!vs) { /* keys alone: digits a block at a time, then the stores, */       \
                   /* gathered a cache line a bucket and written whole */               \
            W tb[PREP_BLOCK];                                                           \
            unsigned char db[PREP_BLOCK];                                               \
            _Alignas(64) W line[RADIX][LINE_KEYS(W)];                                   \
            size_t start[RADIX];                                                        \
            memcpy(start, at, sizeof start);                                            \
            const size_t off = ((uintptr_t)k2 / sizeof(W)) & (LINE_KEYS(W) - 1);        \
            W and_ = 0, or_ = 0;                                                        \
            int up = 1;                                                                 \
            for (size_t i0 = a; i0 < b; i0 += PREP_BLOCK) {                             \
                const size_t len = b - i0 < PREP_BLOCK ? b - i0 : PREP_BLOCK;           \
                const W *x0 = k + i0;                                                   \
                if (len == PREP_BLOCK)                                                  \
                    TOP_PREP(W, PREP_BLOCK);                                            \
                else                                                                    \
                    TOP_PREP(W, len);                                                   \
                for (size_t q = 0; q < len; q++) {                                      \
                    const unsigned d = db[q];                                           \
                    const size_t p = at[d]++;                                           \
                    const size_t sl = (p + off) & (LINE_KEYS(W) - 1);                   \
                    line[d][sl] = tb[q];                                                \
                    if (sl == LINE_KEYS(W) - 1) {                                       \
                        if (p + 1 - start[d] >= LINE_KEYS(W))                           \
                            stream_line(k2 + p + 1 - LINE_KEYS(W), line[d]);            \
                        else                                                            \
                            LINE_PART(W, d, start[d], p + 1);                           \
                    }                                                                   \
                }                                                                       \
            }                                                                           \
            for (int d = 0; d < RADIX; d++) { /* the line begun, from start[d] */      \
                const size_t back = (at[d] + off) & (LINE_KEYS(W) - 1);                 \
                LINE_PART(W, d, at[d] - start[d] > back ? at[d] - back : start[d], at[d]); \
            }                                                                           \
            stream_done();                                                              \
            (void)and_, (void)or_, (void)up;                                            \
            return;                                                                     \
        }                                                                               \
        SCATTER_PART(W, TOP_DIGIT(W, x, lo, s));                                        \
    }                                                                                   \
    static void count_##SUF(void *arg, size_t part)                                     \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        size_t a = part_first(j, part), b = part_first(j, part + 1);                    \
        const W *k = j->src;                                                            \
        size_t *c = j->pos[part];                                                       \
        const int shift = j->shift;                                                     \
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
        const int shift = j->shift;                                                     \
        const unsigned top = (unsigned)j->top;                                          \
        const W m0 = (W)j->m0, m1 = (W)j->m1;                                           \
        const W if_set = (W)j->if_set, if_clear = (W)j->if_clear;                       \
        const int in_t = j->first && (m0 || m1), out_t = j->last && (if_set || if_clear); \
        const unsigned char *vs = j->vsrc;                                              \
        unsigned char *vd = j->vdst;                                                    \
        const size_t z = j->vsize;                                                      \
        size_t at[RADIX];                                                               \
        memcpy(at, j->pos[part], sizeof at);                                            \
        SCATTER_PART(W, (x >> shift) & (RADIX - 1));                                    \
    }                                                                                   \
    /* piece_ (below) by digits of up to WIDE_BITS from the lowest bit that */   \
    /* varies, counted into ws (WIDE_WORDS): 0 if it leaves the piece to */        \
    /* piece_'s bytes (no bit varies, a piece too big for the cache that */        \
    /* takes more than one pass, or more passes than WIDE_MAX_PASSES). */         \
    /* known: the bits that vary (vary), or 0: read the piece for them. */            \
    static int wide_##SUF(const sort_job *j, W *s0, W *s1, unsigned char *w0,         \
                          unsigned char *w1, size_t len, int fin_s0, uint32_t *ws,     \
                          int known, W vary)                                            \
    {                                                                                   \
        const size_t z = j->vsize;                                                      \
        const unsigned top = (unsigned)j->top;                                          \
        const W if_set = (W)j->if_set, if_clear = (W)j->if_clear;                       \
        const int out_t = (if_set || if_clear);                                         \
        if (!known) {                                                                   \
            W and_ = (W)~(W)0, or_ = 0;                                                 \
            for (size_t i = 0; i < len; i++) {                                          \
                and_ &= s0[i];                                                          \
                or_ |= s0[i];                                                           \
            }                                                                           \
            vary = and_ ^ or_;                                                          \
        }                                                                               \
        if (!vary)                                                                      \
            return 0;                                                                   \
        const int low = __builtin_ctzll((unsigned long long)vary);                      \
        const int span = high_bit((uint64_t)vary) - low + 1;                            \
        const int passes = (span + WIDE_BITS - 1) / WIDE_BITS;                          \
        if (passes > WIDE_MAX_PASSES ||                                                 \
            (passes > 1 && len * (sizeof(W) + z) > SPLIT_BYTES))                        \
            return 0;                                                                   \
        const int width = (span + passes - 1) / passes;                                 \
        const W mask = (W)(((W)1 << width) - 1);                                        \
        uint32_t(*cnt)[1 << WIDE_BITS] = (uint32_t(*)[1 << WIDE_BITS])ws;              \
        uint32_t *at = ws + ((size_t)WIDE_MAX_PASSES << WIDE_BITS);                     \
        for (int q = 0; q < passes; q++)                                                \
            memset(cnt[q], 0, ((size_t)1 << width) * sizeof cnt[q][0]);                 \
        for (size_t i = 0; i < len; i++) {                                              \
            const W x = s0[i] >> low;                                                   \
            for (int q = 0; q < passes; q++)                                            \
                cnt[q][(x >> (q * width)) & mask]++;                                    \
        }                                                                               \
        /* the last pass writes the keys' place (as in piece_) */                     \
        if ((passes % 2 == 1) == fin_s0) {                                              \
            memcpy(s1, s0, len * sizeof *s1);                                           \
            if (w0)                                                                     \
                memcpy(w1, w0, len * z);                                                \
            SWAP_PASS(W);                                                               \
        }                                                                               \
        for (int q = 0; q < passes; q++) {                                              \
            const int shift = low + q * width;                                          \
            uint32_t sum = 0;                                                           \
            for (size_t u = 0; u < ((size_t)1 << width); u++) {                         \
                at[u] = sum;                                                            \
                sum += cnt[q][u];                                                       \
            }                                                                           \
            PIECE_PASS(W, (x >> shift) & mask, q == passes - 1 && out_t);               \
            SWAP_PASS(W);                                                               \
        }                                                                               \
        return 1;                                                                       \
    }                                                                                   \
    /* Keys s0[0 .. len) (transformed; values w0) sorted by the digits of */     \
    /* rest that vary among them into s0 itself (fin_s0) or into s1, the */        \
    /* other buffer of the same place (values w1), their last write */            \
    /* untransforming them. A piece too big for the cache (SPLIT_BYTES) */         \
    /* whose digits take two passes or more is split by the highest first */      \
    /* (a stable scatter into s1) and each part is sorted on its own. */           \
    /* ws: room for wide_ (NULL: bytes only). 1 if wide_ took the piece. */          \
    static int piece_##SUF(const sort_job *j, W *s0, W *s1, unsigned char *w0,        \
                           unsigned char *w1, size_t len, const int *rest, int nrest,   \
                           int fin_s0, uint32_t *ws)                                    \
    {                                                                                   \
        const size_t z = j->vsize;                                                      \
        /* a piece in cache is read for its varying bits first; one too big */        \
        /* for it (which wide_ takes only in one pass) gets them from the */          \
        /* count below, so that declining it costs no read of its own */              \
        const int wide_ok = ws && !w0 && len >= WIDE_MIN && len <= UINT32_MAX;          \
        const int big = len * (sizeof(W) + z) > SPLIT_BYTES;                            \
        if (wide_ok && !big && wide_##SUF(j, s0, s1, w0, w1, len, fin_s0, ws, 0, 0))    \
            return 1;                                                                   \
        const unsigned top = (unsigned)j->top;                                          \
        const W if_set = (W)j->if_set, if_clear = (W)j->if_clear;                       \
        const int out_t = (if_set || if_clear);                                         \
        size_t cnt[MAX_DIGITS][RADIX];                                                  \
        int need[MAX_DIGITS], nneed = 0;                                                \
        /* every digit counted (unrolled), those left used */                         \
        memset(cnt, 0, sizeof(W) * sizeof cnt[0]);                                      \
        if (wide_ok && big) {                                                           \
            W and_ = (W)~(W)0, or_ = 0;                                                 \
            for (size_t i = 0; i < len; i++) {                                          \
                const W x = s0[i];                                                      \
                and_ &= x;                                                              \
                or_ |= x;                                                               \
                _Pragma("GCC unroll 8")                                                 \
                for (int d = 0; d < (int)sizeof(W); d++)                                \
                    cnt[d][(x >> (d * RADIX_BITS)) & (RADIX - 1)]++;                    \
            }                                                                           \
            if (wide_##SUF(j, s0, s1, w0, w1, len, fin_s0, ws, 1, and_ ^ or_))          \
                return 1;                                                               \
        } else {                                                                        \
            for (size_t i = 0; i < len; i++) {                                          \
                const W x = s0[i];                                                      \
                _Pragma("GCC unroll 8")                                                 \
                for (int d = 0; d < (int)sizeof(W); d++)                                \
                    cnt[d][(x >> (d * RADIX_BITS)) & (RADIX - 1)]++;                    \
            }                                                                           \
        }                                                                               \
        for (int r = 0; r < nrest; r++) {                                               \
            const int d = rest[r];                                                      \
            if (cnt[d][(s0[0] >> (d * RADIX_BITS)) & (RADIX - 1)] != len)               \
                need[nneed++] = d;                                                      \
        }                                                                               \
        if (nneed >= 2 && len * (sizeof(W) + z) > SPLIT_BYTES) {                        \
            const int shift = need[nneed - 1] * RADIX_BITS;                             \
            size_t at[RADIX], start[RADIX + 1], sum = 0;                                \
            for (int u = 0; u < RADIX; u++) {                                           \
                at[u] = start[u] = sum;                                                 \
                sum += cnt[need[nneed - 1]][u];                                         \
            }                                                                           \
            start[RADIX] = len;                                                         \
            PIECE_PASS(W, (x >> shift) & (RADIX - 1), 0);                               \
            for (int u = 0; u < RADIX; u++)                                             \
                if (start[u + 1] > start[u])                                            \
                    piece_##SUF(j, s1 + start[u], s0 + start[u],                        \
                                w1 ? w1 + start[u] * z : NULL,                          \
                                w0 ? w0 + start[u] * z : NULL, start[u + 1] - start[u], \
                                need, nneed - 1, !fin_s0, ws);                          \
            return 0;                                                                   \
        }                                                                               \
        /* the last pass must write the keys' place: a pass count that */             \
        /* would end in the other buffer starts from a copy there, the */              \
        /* copy untransforming them when no pass is left */                             \
        if ((nneed % 2 == 1) == fin_s0) {                                               \
            if (nneed == 0 && out_t)                                                    \
                for (size_t i = 0; i < len; i++)                                        \
                    s1[i] = s0[i] ^ ((s0[i] >> top) ? if_set : if_clear);               \
            else                                                                        \
                memcpy(s1, s0, len * sizeof *s1);                                       \
            if (w0)                                                                     \
                memcpy(w1, w0, len * z);                                                \
            SWAP_PASS(W);                                                               \
        } else if (nneed == 0 && out_t) { /* in place, no pass */                     \
            for (size_t i = 0; i < len; i++)                                            \
                s0[i] ^= (s0[i] >> top) ? if_set : if_clear;                            \
        }                                                                               \
        for (int q = 0; q < nneed; q++) {                                               \
            const int shift = need[q] * RADIX_BITS;                                     \
            size_t at[RADIX], sum = 0;                                                  \
            for (int u = 0; u < RADIX; u++) {                                           \
                at[u] = sum;                                                            \
                sum += cnt[need[q]][u];                                                 \
            }                                                                           \
            PIECE_PASS(W, (x >> shift) & (RADIX - 1), q == nneed - 1 && out_t);         \
            SWAP_PASS(W);                                                               \
        }                                                                               \
        return 0;                                                                       \
    }                                                                                   \
    /* Bucket v of the top pass, in the scratch (keys transformed), sorted */          \
    /* by the bytes that vary in it into the caller's arrays at the same */         \
    /* place. In a trial (gpgpu__host_sort_digits), buckets in cache of odd v take */             \
    /* wide digits and those of even v bytes, each timed. */                          \
    static void bucket_##SUF(void *arg, size_t v)                                       \
    {                                                                                   \
        sort_job *j = arg;                                                              \
        const size_t first = j->bstart[v], len = j->bstart[v + 1] - first;              \
        if (len == 0)                                                                   \
            return;                                                                     \
        const size_t z = j->vsize;                                                      \
        const int timed = j->trial && len >= WIDE_MIN && len * sizeof(W) <= SPLIT_BYTES; \
        const int wide = timed ? (int)(v & 1) : j->wide;                                \
        uint32_t *ws = len >= WIDE_MIN && wide ? malloc(WIDE_WORDS * sizeof *ws) : NULL; \
        const uint64_t t0 = timed ? thread_ns() : 0;                                    \
        const int took = piece_##SUF(j, (W *)j->scratch + first, (W *)j->keys + first,  \
                                     j->vscratch ? j->vscratch + first * z : NULL,      \
                                     j->values ? j->values + first * z : NULL, len,     \
                                     j->rest, j->nrest, 0, ws);                         \
        if (timed && took == wide) /* (one wide_ declined ran bytes: not counted) */   \
            j->trial_rate[v] = (float)(thread_ns() - t0) / (float)len;                  \
        free(ws);                                                                       \
    }
SORT_FUNCS(uint32_t, 32)
SORT_FUNCS(uint64_t, 64)

/* Whether wide digits beat bytes on this CPU: one choice for the
   process (gpgpu__host_sort_digits, shown in the plan as host-sort=).
   Until it is made, every sort of keys alone whose buckets fit in cache
   is a trial: buckets of odd v take wide digits, of even v bytes, each
   timed by its thread's CPU time (bucket_*), and once each half has
   TRIAL_BUCKETS timed buckets, wide digits are kept if the median bucket
   took under 0.9 of the bytes' median time a key. So the choice is
   measured on the buckets it is about, in the threads, caches and memory
   traffic of a real sort, and a bucket slowed by another program's load
   moves a median little. GPGPU_SORT_WIDE=0 or 1 decides instead (the
   tests run both). Either way the result is the same: both are stable
   sorts of the same keys. */
enum { TRIAL_BUCKETS = 16 };

/* The median of the timed rates of buckets v = half, half + 2, ...; 0 if
   fewer than TRIAL_BUCKETS were timed. */
static float trial_median(const sort_job *j, int half)
{
    float r[RADIX / 2];
    int m = 0;
    for (int v = half; v < RADIX; v += 2) {
        float x = j->trial_rate[v];
        if (x <= 0)
            continue;
        int i = m++;
        for (; i > 0 && r[i - 1] > x; i--) /* insertion: at most 128 */
            r[i] = r[i - 1];
        r[i] = x;
    }
    return m < TRIAL_BUCKETS ? 0 : r[m / 2];
}

/* The trial's verdict, once both halves have enough buckets. */
static void wide_verdict(const sort_job *j)
{
    const float bytes = trial_median(j, 0), wide = trial_median(j, 1);
    if (bytes > 0 && wide > 0)
        gpgpu__host_sort_digits_decided(wide < 0.9f * bytes ? GPGPU__DIGITS_WIDE
                                                            : GPGPU__DIGITS_BYTES);
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
    sort_job j = {.digits = is64 ? 8 : 4, .n = n, .nparts = nparts, .keys = keys,
                  .top = is64 ? 63 : 31, .values = values, .vsize = value_size};
    j.count = calloc(nparts, sizeof *j.count);
    j.pos = malloc(nparts * sizeof *j.pos);
    j.in_order = malloc(nparts * sizeof *j.in_order);
    j.and_or = malloc(2 * nparts * sizeof *j.and_or);
    if (!j.count || !j.pos || !j.in_order || !j.and_or) {
        free(j.count);
        free(j.pos);
        free(j.in_order);
        free(j.and_or);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    gpgpu__sort_masks(t, flags, &j.m0, &j.m1);
    j.if_set = (j.m0 >> j.top) & 1 ? j.m0 : j.m1; /* the top bit after the transform */
    j.if_clear = (j.m0 >> j.top) & 1 ? j.m1 : j.m0; /* tells which mask applied */
    /* From BUCKETS_MIN keys (the buckets below), only the top digit is
       counted in the first read, which then also takes the AND and OR of
       the keys: which bits vary. That digit cuts the range of TOP_SAMPLE
       keys (one at a pseudo-random place in each of as many equal spans,
       which a periodic input cannot fall in step with) into 256 slices
       (TOP_DIGIT), not the keys' top byte: floats of a few binades,
       integers of a narrow range and the buckets of a distributed sort
       (a slice of the whole range) then fill 256 buckets, not the few
       that their top byte's values would.
       If the sample misled (a bucket of more than half the keys), or the
       LSD passes go after all, the keys are read again for every count. */
    if (n >= BUCKETS_MIN) {
        uint64_t lo = ~0ull, hi = 0;
        for (size_t i = 0; i < TOP_SAMPLE; i++) {
            size_t at = i * (n / TOP_SAMPLE) + gpgpu__mix64(i) % (n / TOP_SAMPLE);
            uint64_t x = is64 ? ((uint64_t *)keys)[at] : ((uint32_t *)keys)[at];
            x ^= (x >> j.top) ? j.m1 : j.m0;
            x &= is64 ? ~0ull : 0xffffffffull;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        int h = high_bit(hi - lo);
        j.top_only = 1;
        j.top_shift = h >= RADIX_BITS ? h - (RADIX_BITS - 1) : 0;
        /* slices on multiples of their width: the keys of one share every
           bit from top_shift up, and a bucket's passes skip the bytes
           that hold only those (random u32 keys: three passes, not four) */
        j.top_lo = lo & ~((1ull << j.top_shift) - 1);
    }
    gpgpu__parallel(nparts, is64 ? prep_64 : prep_32, &j);

    /* In order: every part, and every part's last key against the next's
       first (transformed). Then the digits that move anything. */
    int in_order = 1;
    for (size_t p = 1; p <= nparts; p++) {
        in_order &= j.in_order[p - 1];
        if (p < nparts) {
            size_t b = part_first(&j, p);
            uint64_t x = is64 ? ((uint64_t *)keys)[b - 1] : ((uint32_t *)keys)[b - 1];
            uint64_t y = is64 ? ((uint64_t *)keys)[b] : ((uint32_t *)keys)[b];
            x ^= (x >> j.top) ? j.m1 : j.m0;
            y ^= (y >> j.top) ? j.m1 : j.m0;
            in_order &= is64 ? x <= y : (uint32_t)x <= (uint32_t)y;
        }
    }
    int pass_digit[MAX_DIGITS], passes = 0;
    if (j.top_only && !in_order) {
        /* buckets if two bytes of the keys or more vary (the bytes left for
           each bucket's own passes, which drop those that do not vary in
           it) and no bucket holds more than half the keys (which would
           leave its work to one thread) */
        uint64_t a = ~0ull, o = 0;
        for (size_t p = 0; p < nparts; p++) {
            a &= j.and_or[2 * p];
            o |= j.and_or[2 * p + 1];
        }
        for (int d = 0; d < j.digits; d++)
            if (((a ^ o) >> (d * RADIX_BITS)) & (RADIX - 1))
                pass_digit[passes++] = d;
        size_t most = 0;
        for (int v = 0; v < RADIX && passes; v++) {
            size_t c = 0;
            for (size_t p = 0; p < nparts; p++)
                c += j.count[p][0][v];
            most = c > most ? c : most;
        }
        if (passes < 2 || most > n / 2) {
            /* no buckets after all: every digit's counts */
            memset(j.count, 0, nparts * sizeof *j.count);
            j.top_only = 0;
            gpgpu__parallel(nparts, is64 ? prep_64 : prep_32, &j);
            passes = 0;
        }
    }
    uint64_t x0 = is64 ? ((uint64_t *)keys)[0] : ((uint32_t *)keys)[0];
    x0 ^= (x0 >> j.top) ? j.m1 : j.m0;
    for (int d = 0; d < j.digits && !in_order && !j.top_only; d++) {
        size_t same = 0;
        for (size_t p = 0; p < nparts; p++)
            same += j.count[p][d][(x0 >> (d * RADIX_BITS)) & (RADIX - 1)];
        if (same != n) /* else every key has this digit: the pass would move nothing */
            pass_digit[passes++] = d;
    }
    /* one block for the keys' and the values' scratch, kept between calls
       (gpgpu__host_scratch): the values start 64-byte aligned */
    const size_t kbytes = (n * w + 63) & ~(size_t)63;
    if (passes) {
        j.scratch = gpgpu__host_scratch(kbytes + (values ? n * value_size : 0));
        j.vscratch = values && j.scratch ? (unsigned char *)j.scratch + kbytes : NULL;
    }
    if (passes && !j.scratch) {
        free(j.count);
        free(j.pos);
        free(j.in_order);
        free(j.and_or);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    /* From BUCKETS_MIN keys with two bytes or more that vary, the pass of
       the top digit goes first, into the scratch, and each of its
       buckets is then sorted by the bytes that vary in it on its own
       (bucket_*): about n / 256 keys, in cache, where every pass over the
       whole array scatters to 256 places spread over it; and the buckets
       are independent, parts for the host's threads with no count pass
       between the passes (the parts of the array change with every pass
       of the whole, so their digits must be counted again). Stable: each
       pass is. */
    if (j.top_only && passes) {
        size_t at = 0;
        for (int v = 0; v < RADIX; v++) {
            j.bstart[v] = at;
            for (size_t p = 0; p < nparts; p++) {
                size_t c = j.count[p][0][v];
                j.pos[p][v] = at;
                at += c;
            }
        }
        j.bstart[RADIX] = at;
        j.nrest = passes;
        memcpy(j.rest, pass_digit, (size_t)j.nrest * sizeof *j.rest);
        const gpgpu__host_digits d = values ? GPGPU__DIGITS_BYTES : gpgpu__host_sort_digits();
        j.wide = d == GPGPU__DIGITS_WIDE;
        j.trial = d == GPGPU__DIGITS_TRIAL;
        gpgpu__parallel(nparts, is64 ? top_scatter_64 : top_scatter_32, &j);
        gpgpu__parallel(RADIX, is64 ? bucket_64 : bucket_32, &j);
        if (j.trial)
            wide_verdict(&j);
        passes = 0;
    }
    /* The last pass writes the caller's arrays: an odd number of passes
       starts from a copy in the scratch. */
    j.src = keys;
    j.dst = j.scratch;
    j.vsrc = values;
    j.vdst = j.vscratch;
    if (passes % 2) { /* (0 after the buckets) */
        memcpy(j.scratch, keys, n * w);
        j.src = j.scratch;
        j.dst = keys;
        if (values) {
            memcpy(j.vscratch, values, n * value_size);
            j.vsrc = j.vscratch;
            j.vdst = values;
        }
    }
    for (int q = 0; q < passes; q++) {
        const int d = pass_digit[q];
        j.shift = d * RADIX_BITS;
        j.first = q == 0;
        j.last = q == passes - 1;
        /* The parts still hold the input's order in the first pass, and one
           part is the whole array in every pass: the input's counts apply. */
        if (j.first || nparts == 1)
            for (size_t p = 0; p < nparts; p++)
                memcpy(j.pos[p], j.count[p][d], sizeof j.pos[p]);
        else
            gpgpu__parallel(nparts, is64 ? count_64 : count_32, &j);
        size_t at = 0;
        for (int v = 0; v < RADIX; v++)
            for (size_t p = 0; p < nparts; p++) {
                size_t c = j.pos[p][v];
                j.pos[p][v] = at;
                at += c;
            }
        gpgpu__parallel(nparts, is64 ? scatter_64 : scatter_32, &j);
        const void *kt = j.src;
        j.src = j.dst;
        j.dst = (void *)kt;
        const unsigned char *vt = j.vsrc;
        j.vsrc = j.vdst;
        j.vdst = (unsigned char *)vt;
    }
    gpgpu__host_scratch_done(j.scratch);
    free(j.count);
    free(j.pos);
    free(j.in_order);
    free(j.and_or);
    return GPGPU_SUCCESS;
}
