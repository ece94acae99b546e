/* select_ops.c - unique, run-length encoding and partition: stream
   compaction (gpgpu__select_enqueue, userop.c) with another flag or another
   scatter kernel (kernels/userop.cl).
     unique      flag: the bits differ from the previous element's
     run-length  unique, plus the length of each run: written by the scatter
                 when the run ends in the same part, else fixed up after it
                 from the next part's first head (runs_fixup)
     partition   the caller's predicate; the scatter also writes each other
                 element k to total + k - (flagged before k)
   Host memory goes through the device in chunks (gpgpu__chunk_elems); a run
   that crosses a chunk boundary is counted once per chunk and merged here.
   Unique and run-length encoding have no user expression, so the plain-C
   fallback does them too, on the host's threads (host_runs_par). */
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define RUNS_AVX2 1
#endif

/* ---- the plain-C fallback ------------------------------------------------- */

static uint64_t bits_at(const void *a, size_t i, size_t size)
{
    if (size == 4)
        return ((const uint32_t *)a)[i];
    return ((const uint64_t *)a)[i];
}

static void bits_put(void *a, size_t i, size_t size, uint64_t v)
{
    if (size == 4)
        ((uint32_t *)a)[i] = (uint32_t)v;
    else
        ((uint64_t *)a)[i] = v;
}

/* Whether a host call of unique or run-length encoding over n elements of
   t runs host_runs_par (the plan's host-below), t supported. */
static int host_below_runs(gpgpu_context *ctx, gpgpu_type t, size_t n)
{
    return gpgpu__host_below(ctx, GPGPU__HB_RUNS, n) &&
           gpgpu__type_supported(ctx, t) == GPGPU_SUCCESS;
}

/* host_runs for elements of one width: the loop a C programmer writes,
   one for each output (a test of lengths in the loop made it 1.5x
   slower at 1024 elements). The previous element is kept in a register:
   in place (values == in) its slot may have been overwritten. */
#define HOST_RUNS(U)                                                         \
    {                                                                        \
        const U *x = in;                                                     \
        U *v = values, prev = 0;                                             \
        if (!lengths) {                                                      \
            for (size_t i = 0; i < n; i++) {                                 \
                const U cur = x[i];                                          \
                if (i == 0 || cur != prev)                                   \
                    v[runs++] = cur;                                         \
                prev = cur;                                                  \
            }                                                                \
            return runs;                                                     \
        }                                                                    \
        for (size_t i = 0; i < n; i++) {                                     \
            const U cur = x[i];                                              \
            if (i == 0 || cur != prev) {                                     \
                if (runs)                                                    \
                    lengths[runs - 1] = i - head;                            \
                head = i;                                                    \
                v[runs++] = cur;                                             \
            }                                                                \
            prev = cur;                                                      \
        }                                                                    \
        if (runs)                                                            \
            lengths[runs - 1] = n - head;                                    \
        return runs;                                                         \
    }

/* Run heads of in to values (may equal in: the previous element is kept
   aside before its slot can be overwritten), their lengths to lengths when
   not NULL. Returns the number of runs. */
static size_t host_runs(size_t size, const void *in, size_t n, void *values, uint64_t *lengths)
{
    size_t runs = 0, head = 0;
    if (size == 4)
        HOST_RUNS(uint32_t)
    if (size == 8)
        HOST_RUNS(uint64_t)
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = bits_at(in, i, size);
        if (i > 0 && x == prev)
            continue;
        if (lengths && runs > 0)
            lengths[runs - 1] = i - head;
        bits_put(values, runs++, size, x);
        head = i;
        prev = x;
    }
    if (lengths && runs > 0)
        lengths[runs - 1] = n - head;
    return runs;
}

/* The heads' loop without branches: heads of random data (runs of a few)
   would mispredict a branch every other element, where the loop a C
   programmer writes (host_runs) spends most of its time. Every element up
   to the range's last head is stored at the slot of the next run, its
   position beside it in lengths, and the slot moves on past heads only;
   the positions then become lengths. Nothing is stored past the range's
   last run. x[h] is a head; the run left open at e ends at next. Returns
   the index past the last run. Also in place (values == in): a run's slot
   is never past its element. The positions become lengths a block of
   RUNS_BLOCK elements at a time, while still in cache. */
enum { RUNS_BLOCK = 4096 };

#define RUNS_WRITE(U)                                                        \
    do {                                                                     \
        const U *x = in;                                                     \
        U *v = values, prev = (U)~x[h];                                      \
        size_t r = r0, i = h, last = e - 1;                                  \
        while (last > h && x[last] == x[last - 1])                           \
            last--;                                                          \
        if (lengths) {                                                       \
            size_t open = r0; /* the first run whose length is a position */ \
            while (i <= last) {                                              \
                const size_t stop = last + 1 - i > RUNS_BLOCK ? i + RUNS_BLOCK \
                                                              : last + 1;    \
                for (; i + 4 <= stop; i += 4) {                              \
                    const U a = x[i], b = x[i + 1], c = x[i + 2], d = x[i + 3]; \
                    v[r] = a;                                                \
                    lengths[r] = i;                                          \
                    r += a != prev;                                          \
                    v[r] = b;                                                \
                    lengths[r] = i + 1;                                      \
                    r += b != a;                                             \
                    v[r] = c;                                                \
                    lengths[r] = i + 2;                                      \
                    r += c != b;                                             \
                    v[r] = d;                                                \
                    lengths[r] = i + 3;                                      \
                    r += d != c;                                             \
                    prev = d;                                                \
                }                                                            \
                for (; i < stop; i++) {                                      \
                    const U a = x[i];                                        \
                    v[r] = a;                                                \
                    lengths[r] = i;                                          \
                    r += a != prev;                                          \
                    prev = a;                                                \
                }                                                            \
                /* the block's positions to lengths while in cache, but     \
                   the last run's, which may go on */                       \
                for (; open + 1 < r; open++)                                 \
                    lengths[open] = lengths[open + 1] - lengths[open];       \
            }                                                                \
            lengths[r - 1] = next - lengths[r - 1];                          \
        } else {                                                             \
            for (; i <= last; i++) {                                         \
                const U a = x[i];                                            \
                v[r] = a;                                                    \
                r += a != prev;                                              \
                prev = a;                                                    \
            }                                                                \
        }                                                                    \
        return r;                                                            \
    } while (0)

static size_t runs_write(size_t size, const void *in, size_t h, size_t e, size_t next,
                         void *values, uint64_t *lengths, size_t r0)
{
    if (size == 4)
        RUNS_WRITE(uint32_t);
    RUNS_WRITE(uint64_t);
}

/* The same with a branch per element, for long runs (where it predicts
   well and stores only the heads). */
#define RUNS_WRITE_BRANCHY(U)                                                \
    do {                                                                     \
        const U *x = in;                                                     \
        U *v = values, prev = x[h];                                          \
        size_t r = r0, head = h;                                             \
        v[r] = prev;                                                         \
        for (size_t i = h + 1; i < e; i++) {                                 \
            const U cur = x[i];                                              \
            if (cur == prev)                                                 \
                continue;                                                    \
            if (lengths)                                                     \
                lengths[r] = i - head;                                       \
            v[++r] = cur;                                                    \
            head = i;                                                        \
            prev = cur;                                                      \
        }                                                                    \
        if (lengths)                                                         \
            lengths[r] = next - head;                                        \
        return r + 1;                                                        \
    } while (0)

static size_t runs_write_branchy(size_t size, const void *in, size_t h, size_t e, size_t next,
                                 void *values, uint64_t *lengths, size_t r0)
{
    if (size == 4)
        RUNS_WRITE_BRANCHY(uint32_t);
    RUNS_WRITE_BRANCHY(uint64_t);
}

#ifdef RUNS_AVX2
/* runs_write for 32-bit elements on CPUs with AVX2, eight elements at a
   time: the mask of their heads picks a permutation that packs the heads
   to the front (gpgpu__pack_lanes), one store writes them at the next run's slot
   and one more their positions (from the block's start) to a private
   array, whose differences become the lengths after each block of
   RUNS_BLOCK elements, in streaming stores: written once, in order, they
   need no read of their cache lines. runs_write stores every element and
   its 8-byte position, and reads the positions back; with the values
   that made run-length encoding of runs of two 0.6-0.7x select on the
   same elements, this 0.7-0.9x (docs/performance.md). The heads among
   x[h, e) are at most nr, x[h] one of them, and nothing is stored past
   run r0 + nr - 1: eight values are stored at once only while eight slots
   remain. Returns the index past the last run. Not in place. stream: the
   lengths in streaming stores (a part of a large call), else in plain
   ones four at a time, which a small call's caller then reads from
   cache. */
__attribute__((target("avx2,popcnt")))
static size_t runs_write_avx2(const uint32_t *x, size_t h, size_t e, size_t next, uint32_t *v,
                              uint64_t *lengths, size_t r0, size_t nr, int stream)
{
    uint32_t pos[RUNS_BLOCK + 8];
    const uint64_t *pack = gpgpu__pack_lanes();
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const size_t rend = r0 + nr;
    size_t r = r0, i = h + 1;
    uint64_t open = h; /* the head of run r - 1, whose length waits */
    v[r++] = x[h];
    while (i < e && r < rend) {
        const size_t bs = i, stop = e - i > RUNS_BLOCK ? i + RUNS_BLOCK : e;
        size_t q = 0;
        for (; i + 8 <= stop && r + 8 <= rend; i += 8) {
            const __m256i a = _mm256_loadu_si256((const __m256i *)(x + i));
            const __m256i p = _mm256_loadu_si256((const __m256i *)(x + i - 1));
            const unsigned m = ~(unsigned)_mm256_movemask_ps(
                                   _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, p))) & 0xffu;
            const __m256i perm =
                _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)&pack[m]));
            _mm256_storeu_si256((__m256i *)(v + r), _mm256_permutevar8x32_epi32(a, perm));
            if (lengths) {
                const __m256i at = _mm256_add_epi32(_mm256_set1_epi32((int)(i - bs)), iota);
                _mm256_storeu_si256((__m256i *)(pos + q),
                                    _mm256_permutevar8x32_epi32(at, perm));
            }
            const unsigned c = (unsigned)__builtin_popcount(m);
            r += c;
            q += c;
        }
        for (; i < stop && r < rend; i++) { /* the block's last elements */
            if (x[i] != x[i - 1]) {
                v[r++] = x[i];
                pos[q++] = (uint32_t)(i - bs);
            }
        }
        if (lengths) {
            uint64_t *len = lengths + (r - q - 1);
            if (stream)
                for (size_t j = 0; j < q; j++) {
                    const uint64_t at = bs + pos[j];
                    _mm_stream_si64((long long *)&len[j], (long long)(at - open));
                    open = at;
                }
            else if (q > 0) {
                size_t j = 1;
                len[0] = bs + pos[0] - open;
                for (; j + 4 <= q; j += 4) { /* pos[j] - pos[j - 1], four at once */
                    const __m256i a = _mm256_cvtepu32_epi64(
                                      _mm_loadu_si128((const __m128i *)(pos + j))),
                                  b = _mm256_cvtepu32_epi64(
                                      _mm_loadu_si128((const __m128i *)(pos + j - 1)));
                    _mm256_storeu_si256((__m256i *)(len + j), _mm256_sub_epi64(a, b));
                }
                for (; j < q; j++)
                    len[j] = pos[j] - pos[j - 1];
                open = bs + pos[q - 1];
            }
        }
    }
    if (lengths)
        lengths[r - 1] = next - open;
    if (stream)
        _mm_sfence(); /* the streaming stores, before the part is done */
    return r;
}

/* 1 where runs_write_avx2 can take the runs. */
static int runs_avx2(size_t size, const void *in, const void *values)
{
    return size == 4 && in != values && gpgpu__host_avx2();
}
#endif

/* The heads among x[b, e) (x[0] is one), and the first of them (SIZE_MAX:
   none): a count without branches, four 32-bit elements at a time where
   host.h has vector types. */
static size_t runs_count(size_t size, const void *in, size_t b, size_t e, size_t *first)
{
    size_t c = 0, i = b;
    *first = SIZE_MAX;
    if (b == 0 && e > 0) {
        *first = 0;
        c = 1;
        i = 1;
    }
    if (size == 4) {
        const uint32_t *x = in;
        for (size_t j = i; j < e && *first == SIZE_MAX; j++)
            if (x[j] != x[j - 1])
                *first = j;
#ifdef GPGPU__V4
        gpgpu__v4i acc = {0, 0, 0, 0};
        for (size_t blk = 0; i + 4 <= e; i += 4) {
            gpgpu__v4i a, p;
            memcpy(&a, x + i, sizeof a);
            memcpy(&p, x + i - 1, sizeof p);
            acc -= a != p;
            if (++blk == 1u << 28) { /* lanes hold at most 2^30 */
                c += (uint32_t)acc[0] + (uint32_t)acc[1] + (uint32_t)acc[2] + (uint32_t)acc[3];
                acc = (gpgpu__v4i){0, 0, 0, 0};
                blk = 0;
            }
        }
        c += (size_t)(uint32_t)acc[0] + (uint32_t)acc[1] + (uint32_t)acc[2] + (uint32_t)acc[3];
#endif
        for (; i < e; i++)
            c += x[i] != x[i - 1];
        return c;
    }
    const uint64_t *x = in;
    for (size_t j = i; j < e && *first == SIZE_MAX; j++)
        if (x[j] != x[j - 1])
            *first = j;
    for (; i < e; i++)
        c += x[i] != x[i - 1];
    return c;
}

/* Runs on the host's threads, in parts of RUNS_PART_BYTES: each part
   counts its heads (reading its elements from memory) and makes the count
   known, then finds the runs before it by looking back over the parts
   before it, and writes its runs (reading its elements again, now from
   cache). The look-back adds up the counts of earlier parts until one
   that knows the runs up to its end; a part whose count is not known yet
   (its thread was preempted: the cores are shared) is counted again by
   the part that looks back, so no part ever waits for another. Each
   length is written by one part: a part writes those of its runs but the
   last, which the next part with a head writes (from the last head before
   it, which the look-back also finds), or the caller. A part with few
   heads takes the branchy loop. (Two passes, all the parts' counts then
   all their writes, read every element from memory twice: run-length
   encoding ran at 0.5-0.6x the speed of select "x > 0" on the same
   elements; a look-back that waited for the earlier parts' counts,
   0.4-0.6x under load; PoCL's kernels 0.6-0.7x.) */
enum { RUNS_PART_BYTES = 1 << 19, RUNS_SMALL = 2048 };

/* What a part makes known: its heads and last head (status 1), then the
   runs up to its end and the last head up to its end (status 2). */
typedef struct {
    size_t heads, last, upto_runs, upto_last;
    int status;
} runs_state;

typedef struct {
    size_t size, n, part, nparts;
    const void *in;
    void *values;
    uint64_t *lengths;
    runs_state *st;
} runs_job;

/* The last head among x[b, e) (x[0] is one), or SIZE_MAX. */
static size_t runs_last_head(size_t size, const void *in, size_t b, size_t e)
{
    for (size_t i = e; i-- > b;) {
        if (i == 0 || bits_at(in, i, size) != bits_at(in, i - 1, size))
            return i;
    }
    return SIZE_MAX;
}

static void runs_range(const runs_job *j, size_t i, size_t *b, size_t *e)
{
    *b = j->part * i;
    *e = i + 1 == j->nparts ? j->n : *b + j->part;
}

static void runs_part(void *arg, size_t i)
{
    runs_job *j = arg;
    size_t b, e, first;
    runs_range(j, i, &b, &e);
    const size_t c = runs_count(j->size, j->in, b, e, &first);
    const size_t last = c ? runs_last_head(j->size, j->in, b, e) : SIZE_MAX;
    runs_state *me = &j->st[i];
    me->heads = c;
    me->last = last;
    __atomic_store_n(&me->status, 1, __ATOMIC_RELEASE);
    /* look back: the runs before this part, and the last head before it */
    size_t off = 0, before = SIZE_MAX;
    int have_before = 0;
    for (size_t k = i; k-- > 0;) {
        const runs_state *p = &j->st[k];
        const int status = __atomic_load_n(&p->status, __ATOMIC_ACQUIRE);
        if (status == 2) {
            off += p->upto_runs;
            if (!have_before)
                before = p->upto_last;
            have_before = 1;
            break;
        }
        size_t heads, lh;
        if (status == 1) {
            heads = p->heads;
            lh = p->last;
        } else { /* not counted yet: count it here */
            size_t pb, pe, pf;
            runs_range(j, k, &pb, &pe);
            heads = runs_count(j->size, j->in, pb, pe, &pf);
            lh = heads ? runs_last_head(j->size, j->in, pb, pe) : SIZE_MAX;
        }
        off += heads;
        if (!have_before && heads) {
            before = lh;
            have_before = 1;
        }
    }
    me->upto_runs = off + c;
    me->upto_last = c ? last : before;
    __atomic_store_n(&me->status, 2, __ATOMIC_RELEASE);
    if (!c)
        return;
    if (j->lengths && off > 0)
        j->lengths[off - 1] = first - before;
    if (last > first) { /* the runs whose heads lie in [first, last) */
#ifdef RUNS_AVX2
        if (16 * c > last - first && runs_avx2(j->size, j->in, j->values))
            runs_write_avx2(j->in, first, last, last, j->values, j->lengths, off, c - 1, 1);
        else
#endif
        if (16 * c > last - first)
            runs_write(j->size, j->in, first, last, last, j->values, j->lengths, off);
        else
            runs_write_branchy(j->size, j->in, first, last, last, j->values, j->lengths, off);
    }
    bits_put(j->values, off + c - 1, j->size, bits_at(j->in, last, j->size));
}

/* host_runs on the host's threads (the plain-C fallback's unique and
   run-length encoding, and the plan's host calls): in parts, or on the
   calling thread, branch-free when the first elements show many heads.
   In place (values == in) on one thread: a part's runs may land where an
   earlier part has yet to read. */
static size_t host_runs_par(size_t size, const void *in, size_t n, void *values,
                            uint64_t *lengths)
{
    const size_t part = RUNS_PART_BYTES / size, nparts = (n + part - 1) / part;
    runs_state *st = nparts > 2 && values != in && (size == 4 || size == 8) &&
                             gpgpu__host_threads() > 1
                         ? calloc(nparts, sizeof *st) : NULL;
    if (!st) {
        if (n == 0)
            return 0;
        /* few elements: the loop a C programmer writes, whose branches
           a CPU learns when the same few come again (as in a benchmark;
           fresh data would favour the branch-free loop) */
        size_t first, probe = n < 1024 ? n : 1024;
#ifdef RUNS_AVX2
        /* eight elements a step beat even a loop whose branches the CPU
           has learned (values has room for n: the count need not be known
           first); from memory, the parts' single read is better */
        if (n * size <= 2 * RUNS_PART_BYTES && runs_avx2(size, in, values))
            return runs_write_avx2(in, 0, n, n, values, lengths, 0, n, 0);
#endif
        if ((size != 4 && size != 8) || n <= RUNS_SMALL)
            return host_runs(size, in, n, values, lengths);
        size_t c = runs_count(size, in, 0, probe, &first);
        if (16 * c > probe)
            return runs_write(size, in, 0, n, n, values, lengths, 0);
        return runs_write_branchy(size, in, 0, n, n, values, lengths, 0);
    }
    runs_job j = {size, n, part, nparts, in, values, lengths, st};
    gpgpu__parallel(nparts, runs_part, &j);
    const size_t total = st[nparts - 1].upto_runs;
    if (lengths && total > 0)
        lengths[total - 1] = n - st[nparts - 1].upto_last;
    free(st);
    return total;
}

/* ---- device enqueues ----------------------------------------------------- */

/* What the three _buffer forms share once their own arguments are checked:
   range checks, lock, the launches and the done event. pred NULL is the
   unique flag; lengths (RUNS only) gets the run lengths. */
typedef struct {
    const char *func;
    gpgpu_type t;
    const char *pred;
    gpgpu__select_kind kind;
    cl_mem in, out, count, lengths;
    size_t in_off, n, out_off, count_off, lengths_off;
} compact_job;

static gpgpu_status compact_buffer_enqueue(gpgpu_context *ctx, const compact_job *j)
{
    gpgpu__select_plan p;
    cl_mem counts;
    gpgpu__runs_out runs = {j->lengths, NULL, j->lengths_off};
    GPGPU__TRY(gpgpu__select_plan_get(ctx, j->t, j->pred, &p));
    const size_t parts = gpgpu__select_parts(&p, j->n);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, parts * sizeof(cl_ulong), &counts));
    if (j->kind == GPGPU__RUNS)
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, parts * sizeof(cl_ulong),
                                  &runs.firsts));
    return gpgpu__select_enqueue(ctx, &p, j->kind, j->in, j->in_off, j->n, 0, j->out,
                                 j->out_off, j->count, j->count_off, counts,
                                 j->kind == GPGPU__RUNS ? &runs : NULL);
}

static gpgpu_status compact_buffer_call(gpgpu_context *ctx, const compact_job *j,
                                        cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    const size_t size = gpgpu__type(j->t)->size;
    if (ctx->host)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s: no OpenCL device", j->func);
    if (j->n > 0) {
        GPGPU__TRY(gpgpu__check_range(ctx, j->func, "in", j->in, j->in_off, j->n, size));
        GPGPU__TRY(gpgpu__check_range(ctx, j->func, j->kind == GPGPU__RUNS ? "values" : "out",
                                      j->out, j->out_off, j->n, size));
        if (j->kind == GPGPU__RUNS)
            GPGPU__TRY(gpgpu__check_range(ctx, j->func, "lengths", j->lengths, j->lengths_off,
                                          j->n, sizeof(cl_ulong)));
    }
    GPGPU__TRY(gpgpu__check_range(ctx, j->func, j->kind == GPGPU__RUNS ? "nruns" : "count",
                                  j->count, j->count_off, 1, sizeof(cl_ulong)));
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, num_wait, wait, done);
    gpgpu_status s = compact_buffer_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__end(ctx, done);
    gpgpu__unlock(ctx);
    return s;
}

/* ---- host memory through the device --------------------------------------- */

/* Unique (lengths NULL) or run-length encoding of host memory. Each chunk
   starts a run of its own: when it continues the previous chunk's last run,
   the two are merged (the chunk's first head dropped, its length added). */
static gpgpu_status runs_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                  void *values, uint64_t *lengths, size_t *nruns)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t chunk = gpgpu__chunk_elems(ctx, size), len0 = n < chunk ? n : chunk;
    const gpgpu__select_kind kind = lengths ? GPGPU__RUNS : GPGPU__SELECT;
    gpgpu__select_plan p;
    cl_mem src, dst, aux;
    gpgpu__runs_out runs = {NULL, NULL, 0};
    GPGPU__TRY(gpgpu__select_plan_get(ctx, t, NULL, &p));
    if (gpgpu__in_place(ctx, n * size) && (!lengths || gpgpu__in_place(ctx, n * 8)))
        return gpgpu__compact_in_place(ctx, &p, kind, size, in, n, values, lengths, nruns);
    /* aux: the parts' counts, then the number of runs after them */
    const size_t parts = gpgpu__select_parts(&p, len0);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, len0 * size, &src));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, len0 * size, &dst));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, (parts + 1) * sizeof(cl_ulong), &aux));
    if (lengths) {
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_KEYS, parts * sizeof(cl_ulong),
                                  &runs.firsts));
        GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_SORT_VALUES, len0 * sizeof(cl_ulong),
                                  &runs.lengths));
    }
    size_t total = 0, first = 0;
    char *v = values;
    do {
        size_t len = n - first < chunk ? n - first : chunk;
        cl_ulong got;
        GPGPU__TRY(gpgpu__upload(ctx, src, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__select_enqueue(ctx, &p, kind, src, 0, len, 0, dst, 0, aux, parts, aux,
                                         lengths ? &runs : NULL));
        GPGPU__TRY(gpgpu__read(ctx, aux, parts * sizeof got, sizeof got, &got));
        GPGPU__TRY(gpgpu__download(ctx, dst, 0, (size_t)got * size, v + total * size, 0));
        if (lengths)
            GPGPU__TRY(gpgpu__download(ctx, runs.lengths, 0, (size_t)got * sizeof *lengths,
                                       lengths + total, 0));
        if (total > 0 && bits_at(v, total - 1, size) == bits_at(v, total, size)) {
            got--;
            memmove(v + total * size, v + (total + 1) * size, (size_t)got * size);
            if (lengths) {
                lengths[total - 1] += lengths[total];
                memmove(lengths + total, lengths + total + 1, (size_t)got * sizeof *lengths);
            }
        }
        total += (size_t)got;
        first += len;
    } while (first < n);
    *nruns = total;
    return GPGPU_SUCCESS;
}

/* Partition of host memory. One chunk is read back whole; with several,
   the selected elements go straight to out and the others wait in rest
   (room for n) until every chunk's selected ones are in place. */
static gpgpu_status partition_chunks(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                     const void *in, size_t n, void *out, char *rest,
                                     size_t *count)
{
    const size_t size = gpgpu__type(t)->size;
    const size_t chunk = gpgpu__chunk_elems(ctx, size), len0 = n < chunk ? n : chunk;
    gpgpu__select_plan p;
    cl_mem src, dst, aux;
    GPGPU__TRY(gpgpu__select_plan_get(ctx, t, pred, &p));
    if (gpgpu__in_place(ctx, n * size))
        return gpgpu__compact_in_place(ctx, &p, GPGPU__PARTITION, size, in, n, out, NULL,
                                       count);
    const size_t parts = gpgpu__select_parts(&p, len0);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, len0 * size, &src));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, len0 * size, &dst));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_AUX, (parts + 1) * sizeof(cl_ulong), &aux));
    size_t kept = 0, others = 0, first = 0;
    char *o = out;
    do {
        size_t len = n - first < chunk ? n - first : chunk;
        cl_ulong got;
        GPGPU__TRY(gpgpu__upload(ctx, src, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(gpgpu__select_enqueue(ctx, &p, GPGPU__PARTITION, src, 0, len, first, dst, 0,
                                         aux, parts, aux, NULL));
        GPGPU__TRY(gpgpu__read(ctx, aux, parts * sizeof got, sizeof got, &got));
        if (!rest) {
            GPGPU__TRY(gpgpu__download(ctx, dst, 0, len * size, o, 0));
        } else {
            GPGPU__TRY(gpgpu__download(ctx, dst, 0, (size_t)got * size, o + kept * size, 0));
            GPGPU__TRY(gpgpu__download(ctx, dst, (size_t)got * size,
                                       (len - (size_t)got) * size, rest + others * size, 0));
        }
        kept += (size_t)got;
        others += len - (size_t)got;
        first += len;
    } while (first < n);
    if (rest)
        memcpy(o + kept * size, rest, others * size);
    *count = kept;
    return GPGPU_SUCCESS;
}

static gpgpu_status partition_host_api(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                       const void *in, size_t n, void *out, size_t *count)
{
    const size_t size = gpgpu__type(t)->size;
    char *rest = NULL;
    if (n > gpgpu__chunk_elems(ctx, size) && !(rest = gpgpu__malloc(n * size)))
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    gpgpu_status s = partition_chunks(ctx, t, pred, in, n, out, rest, count);
    free(rest);
    return s;
}

/* ---- public functions ----------------------------------------------------- */

gpgpu_status gpgpu_unique(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                          void *out, size_t *count)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(out, t), __func__,
                   "in is %p and out is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)out);
    GPGPU__REQUIRE(ctx, in == out || !gpgpu__overlap((size_t)in, n * gpgpu__type(t)->size,
                                                    (size_t)out, n * gpgpu__type(t)->size),
                   __func__, "in and out partly overlap (n = %zu); they must be the same array or not overlap", n);
    if (ctx->host || host_below_runs(ctx, t, n)) {
        *count = host_runs_par(gpgpu__type(t)->size, in, n, out, NULL);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_unique",
                                runs_host_api(ctx, t, in, n, out, NULL, count));
}

gpgpu_status gpgpu_run_length_encode(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                     size_t n, void *values, uint64_t *lengths, size_t *nruns)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && values != NULL && lengths != NULL) || n == 0, __func__,
                   "in, values, lengths: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / sizeof *lengths, __func__, "n is %zu; at most %zu", n,
                   (size_t)PTRDIFF_MAX / sizeof *lengths);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(values, t), __func__,
                   "in is %p and values is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)values);
    GPGPU__REQUIRE(ctx, (uintptr_t)lengths % sizeof *lengths == 0, __func__,
                   "lengths is %p; it must be aligned to %zu bytes, the size of one element", (const void *)lengths, (size_t)(sizeof *lengths));
    const size_t bytes = n * gpgpu__type(t)->size;
    GPGPU__REQUIRE(ctx, in == values || !gpgpu__overlap((size_t)in, bytes, (size_t)values, bytes),
                   __func__, "in and values partly overlap (n = %zu); they must be the same array or not overlap", n);
    GPGPU__REQUIRE(ctx, !gpgpu__overlap((size_t)lengths, n * sizeof *lengths, (size_t)in, bytes),
                   __func__, "lengths overlaps in (n = %zu); it must not", n);
    GPGPU__REQUIRE(ctx, !gpgpu__overlap((size_t)lengths, n * sizeof *lengths, (size_t)values,
                                        bytes),
                   __func__, "lengths overlaps values (n = %zu); it must not", n);
    if (ctx->host || host_below_runs(ctx, t, n)) {
        *nruns = host_runs_par(gpgpu__type(t)->size, in, n, values, lengths);
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_run_length_encode",
                                runs_host_api(ctx, t, in, n, values, lengths, nruns));
}

gpgpu_status gpgpu_partition(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                             const void *in, size_t n, void *out, size_t *count)
{
    char pred[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__,
                   "predicate is NULL");
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, n <= PTRDIFF_MAX / gpgpu__type(t)->size, __func__,
                   "n is %zu; at most %zu elements of type t", n, (size_t)PTRDIFF_MAX / gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(in, t) && GPGPU__ALIGNED(out, t), __func__,
                   "in is %p and out is %p; each must be aligned to the size of one element of its type", (const void *)in, (const void *)out);
    GPGPU__REQUIRE(ctx, in == out || !gpgpu__overlap((size_t)in, n * gpgpu__type(t)->size,
                                                    (size_t)out, n * gpgpu__type(t)->size),
                   __func__, "in and out partly overlap (n = %zu); they must be the same array or not overlap", n);
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    char why[GPGPU__EXPR_WHY] = "";
    if (gpgpu__host_expr_route(ctx, gpgpu__expr_weight(GPGPU__EXPR_PARTITION, n))) {
        gpgpu_status s = gpgpu__compact_host_expr(ctx, t, pred, in, n, out, count, 1, why);
        if (s != GPGPU_ERROR_UNSUPPORTED)
            return s;
    }
    if (ctx->host)
        return gpgpu__expr_refused(ctx, __func__, 1, why);
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    return gpgpu__host_call_end(ctx, "gpgpu_partition",
                                partition_host_api(ctx, t, pred, in, n, out, count));
}

gpgpu_status gpgpu_unique_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in, size_t in_offset,
                                 size_t n, cl_mem out, size_t out_offset, cl_mem count,
                                 size_t count_offset, cl_uint num_wait, const cl_event *wait,
                                 cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, in != out || !gpgpu__overlap(in_offset, n, out_offset, n), __func__,
                   "in and out are the same buffer and their ranges overlap (in_offset = %zu, out_offset = %zu, n = %zu); they must be the same range or not overlap", in_offset, out_offset, n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    compact_job j = {__func__, t, NULL, GPGPU__SELECT, in, out, count, NULL,
                     in_offset, n, out_offset, count_offset, 0};
    return compact_buffer_call(ctx, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_run_length_encode_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                            size_t in_offset, size_t n, cl_mem values,
                                            size_t values_offset, cl_mem lengths,
                                            size_t lengths_offset, cl_mem nruns,
                                            size_t nruns_offset, cl_uint num_wait,
                                            const cl_event *wait, cl_event *done)
{
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, (in != NULL && values != NULL && lengths != NULL) || n == 0, __func__,
                   "in, values, lengths: one is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, nruns != NULL, __func__,
                   "nruns is NULL; need room for the number of runs");
    GPGPU__REQUIRE(ctx, in != values || !gpgpu__overlap(in_offset, n, values_offset, n), __func__,
                   "in and values are the same buffer and their ranges overlap (in_offset = %zu, values_offset = %zu, n = %zu); they must be the same range or not overlap", in_offset, values_offset, n);
    GPGPU__REQUIRE(ctx, lengths != in || n == 0, __func__,
                   "lengths and in are the same buffer with n = %zu; they must differ unless n is 0", n);
    GPGPU__REQUIRE(ctx, lengths != values || n == 0, __func__,
                   "lengths and values are the same buffer with n = %zu; they must differ unless n is 0", n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    compact_job j = {__func__, t, NULL, GPGPU__RUNS, in, values, nruns, lengths,
                     in_offset, n, values_offset, nruns_offset, lengths_offset};
    return compact_buffer_call(ctx, &j, num_wait, wait, done);
}

gpgpu_status gpgpu_partition_buffer(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                                    cl_mem in, size_t in_offset, size_t n, cl_mem out,
                                    size_t out_offset, cl_mem count, size_t count_offset,
                                    cl_uint num_wait, const cl_event *wait, cl_event *done)
{
    char pred[GPGPU__EXPR_MAX + 1];
    if (done) /* on any failure the caller has no event to release */
        *done = NULL;
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__TRY(gpgpu__check_type(ctx, __func__, "t", t));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__,
                   "predicate is NULL");
    GPGPU__REQUIRE(ctx, (in != NULL && out != NULL) || n == 0, __func__,
                   "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__REQUIRE(ctx, count != NULL, __func__,
                   "count is NULL; need room for the count");
    GPGPU__REQUIRE(ctx, in != out || !gpgpu__overlap(in_offset, n, out_offset, n), __func__,
                   "in and out are the same buffer and their ranges overlap (in_offset = %zu, out_offset = %zu, n = %zu); they must be the same range or not overlap", in_offset, out_offset, n);
    GPGPU__TRY(gpgpu__check_wait(ctx, __func__, num_wait, wait));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    compact_job j = {__func__, t, pred, GPGPU__PARTITION, in, out, count, NULL,
                     in_offset, n, out_offset, count_offset, 0};
    return compact_buffer_call(ctx, &j, num_wait, wait, done);
}

/* ---- device arrays ------------------------------------------------------------- */

/* The three array forms once checked: j's buffers are the arrays'; the
   count comes back through the result slot. */
static gpgpu_status compact_array_call(gpgpu_context *ctx, compact_job *j, size_t *count)
{
    cl_ulong got = 0;
    gpgpu__array_begin(ctx);
    gpgpu_status s = gpgpu__array_result(ctx, sizeof got, &j->count);
    if (s == GPGPU_SUCCESS)
        s = compact_buffer_enqueue(ctx, j);
    if (s == GPGPU_SUCCESS)
        s = gpgpu__read(ctx, j->count, 0, sizeof got, &got);
    if (s == GPGPU_SUCCESS)
        *count = (size_t)got;
    return gpgpu__array_end(ctx, j->func, s);
}

/* in and out (what names it) checked, another array than in, in's type and
   at least its length. */
static gpgpu_status compact_arrays_check(gpgpu_context *ctx, const char *func, const char *what,
                                         const gpgpu_array *in, const gpgpu_array *out,
                                         const size_t *count)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__array_check(ctx, func, "in", in));
    GPGPU__TRY(gpgpu__array_check(ctx, func, what, out));
    GPGPU__REQUIRE(ctx, count != NULL, func, "the count is NULL; need room for it");
    /* Work items would overwrite elements that others have yet to read. */
    GPGPU__REQUIRE(ctx, out != in, func, "%s and in are the same array; they must differ",
                   what);
    return gpgpu__array_match(ctx, func, what, in, out, 1, 0);
}

gpgpu_status gpgpu_unique_array(gpgpu_context *ctx, const gpgpu_array *in, gpgpu_array *out,
                                size_t *count)
{
    GPGPU__TRY(compact_arrays_check(ctx, __func__, "out", in, out, count));
    if (ctx->host) {
        *count = host_runs_par(gpgpu__type(in->t)->size, in->host, in->n, out->host, NULL);
        return GPGPU_SUCCESS;
    }
    compact_job j = {__func__, in->t, NULL, GPGPU__SELECT, in->buf, out->buf, NULL, NULL,
                     0, in->n, 0, 0, 0};
    return compact_array_call(ctx, &j, count);
}

gpgpu_status gpgpu_run_length_encode_array(gpgpu_context *ctx, const gpgpu_array *in,
                                           gpgpu_array *values, gpgpu_array *lengths,
                                           size_t *nruns)
{
    GPGPU__TRY(compact_arrays_check(ctx, __func__, "values", in, values, nruns));
    GPGPU__TRY(gpgpu__array_check(ctx, __func__, "lengths", lengths));
    GPGPU__REQUIRE(ctx, lengths->t == GPGPU_U64, __func__,
                   "lengths holds %s elements; it must hold GPGPU_U64",
                   gpgpu__type(lengths->t)->name);
    GPGPU__REQUIRE(ctx, lengths != in && lengths != values, __func__,
                   "lengths is the same array as %s; it must be another",
                   lengths == in ? "in" : "values");
    GPGPU__TRY(gpgpu__array_match(ctx, __func__, "lengths", in, lengths, 0, 0));
    if (ctx->host) {
        *nruns = host_runs_par(gpgpu__type(in->t)->size, in->host, in->n, values->host,
                               lengths->host);
        return GPGPU_SUCCESS;
    }
    compact_job j = {__func__, in->t, NULL, GPGPU__RUNS, in->buf, values->buf, NULL,
                     lengths->buf, 0, in->n, 0, 0, 0};
    return compact_array_call(ctx, &j, nruns);
}

gpgpu_status gpgpu_partition_array(gpgpu_context *ctx, const char *predicate,
                                   const gpgpu_array *in, gpgpu_array *out, size_t *count)
{
    char pred[GPGPU__EXPR_MAX + 1];
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, predicate != NULL, __func__, "predicate is NULL");
    GPGPU__TRY(compact_arrays_check(ctx, __func__, "out", in, out, count));
    GPGPU__TRY(gpgpu__expr_clean(ctx, "predicate", predicate, pred));
    if (ctx->host) {
        char why[GPGPU__EXPR_WHY] = "";
        gpgpu_status s = gpgpu__compact_host_expr(ctx, in->t, pred, in->host, in->n, out->host,
                                                  count, 1, why);
        return s != GPGPU_ERROR_UNSUPPORTED ? s : gpgpu__expr_refused(ctx, __func__, 1, why);
    }
    compact_job j = {__func__, in->t, pred, GPGPU__PARTITION, in->buf, out->buf, NULL, NULL,
                     0, in->n, 0, 0, 0};
    return compact_array_call(ctx, &j, count);
}
