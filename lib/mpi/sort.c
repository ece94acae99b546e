/*
 * sort.c - gpgpu_mpi_sort and gpgpu_mpi_sort_pairs: a sample sort with one
 * local sort and one full exchange.
 *
 *  1. Each rank takes SAMPLES samples of its unsorted part, one at a
 *     pseudo-random place in each of SAMPLES equal spans; one MPI_Allgather
 *     gives every rank all samples and counts, and every rank picks the same
 *     size - 1 splitters, weighting each sample by its span, so that uneven
 *     parts still give even buckets.
 *  2. Each rank partitions its part by the splitters in one host pass
 *     (count, then a stable scatter into the send buffer), and
 *     MPI_Alltoallv sends bucket d to rank d.
 *  3. Rank d sorts what arrived once, with gpgpu_sort (stable: the runs
 *     arrive in rank order, each in its rank's original order).
 *  4. A second MPI_Alltoallv gives each rank as many elements as it passed
 *     in. Buckets are within a few percent of even, so this moves little
 *     over the network: most of it is each rank's copy to itself.
 *
 * Per rank that is one pass over the bus each way and about (size-1)/size
 * of the part over the network, against two of each for the earlier
 * version, which sorted locally first, exchanged, and sorted again.
 *
 * Stability across ranks: an element is ordered by (sort key, rank, index in
 * the rank's part), a strict order that is the stable global order. The
 * splitters are such triples, so runs of equal keys may be split between
 * buckets without losing their order.
 *
 * Nothing the caller owns changes until the last step, which starts only
 * after every rank has agreed that everything before it succeeded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpgpu_cl.h"
#include "mpi_internal.h"

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as MPI_UINT64_T");

/* Samples per rank: enough that buckets come within a few percent of even
   (so the rebalance moves little), still tiny to move. */
enum { SAMPLES = 256 };

typedef struct {
    uint64_t key;       /* gpgpu__mpi_ordered() */
    uint64_t pos;       /* index in the rank's part */
    uint64_t weight;    /* elements of the span it was drawn from */
} sample;

/* What each rank tells every other before the exchange. */
typedef struct {
    uint64_t n, nsamples;
    sample s[SAMPLES];
} rank_info;

typedef struct {
    uint64_t key, pos, weight;
    int rank, inf;      /* inf: beyond every element (an unused splitter) */
} splitter;

/* A splitter as this rank sees it: its element (k, i) lies before the
   splitter iff k < key, or k == key and i < idx. */
typedef struct {
    uint64_t key, idx;
} bound;

typedef struct {
    gpgpu__mpi_call c;
    gpgpu_context *ctx;
    gpgpu_type t;
    unsigned flags;
    int pairs;
    size_t esize, vsize, n, m;  /* m: elements in this rank's bucket */
    void *keys, *values;        /* the caller's */
    void *k1, *v1;              /* the part, partitioned into buckets */
    void *k2, *v2;              /* the rank's bucket */
    rank_info *info;            /* every rank's, then this rank's at [size] */
    splitter *cand;             /* size * SAMPLES samples, sorted */
    splitter *split;            /* size - 1 splitters */
    bound *bounds;              /* size - 1 */
    size_t *arrays;             /* the layouts below, 6 * size */
    gpgpu__mpi_layout send, recv;
    uint64_t *counts, *bucket;  /* every rank's n and m */
    gpgpu__mpi_scratch scratch;
    size_t nchunks;             /* of the partition, one thread each */
    struct part_chunk *chunk;
    size_t *chunk_at;           /* nchunks * at_stride(size) */
    pthread_t *threads;
    int *started;
    int kept;                   /* k1, k2 (and v1, v2 in them) are kept memory */
    gpgpu__mpi_pinned pin[2];   /* k1, k2 on the device path when not kept */
    /* The device path (dev set): the part and the bucket on the device. */
    int dev;
    cl_command_queue q;
    gpgpu_array *ka, *va;       /* the caller's arrays (the _array forms), else NULL */
    gpgpu_array *dk, *dv;       /* the part, sorted there */
    gpgpu_array *rk, *rv;       /* the bucket (room for the part too: the backup) */
    size_t nfine;               /* fine samples of the sorted part: */
    uint64_t *fpos, *fkey;      /* positions (nfine + 1, the last n), ordered keys */
    void *span;                 /* room for the elements between two fine samples */
    /* The device path's exchange: each piece that arrives goes up at once
       (landed: the exchange's announcements; up: where to). */
    struct upload {
        cl_command_queue q;
        cl_mem buf;
        char *base;
        int failed;             /* an enqueue's cl_int, or 0 (atomic) */
    } up[2];
    gpgpu__mpi_landed landed[2];
    gpgpu__mpi_landed *land[2]; /* &landed[i] during that exchange, else NULL */
    double t0, phase[6];        /* MPI_Wtime at each step */
    double bytes[6][2];         /* each step's bytes: to other ranks, within the rank */
} sorter;

enum { PH_PREPARE, PH_SAMPLES, PH_PARTITION, PH_EXCHANGE, PH_LOCAL_SORT, PH_REBALANCE };

/* Marks the end of step ph (GPGPU_MPI_PROFILE=1 prints the steps' times). */
static void mark(sorter *s, int ph)
{
    s->phase[ph] = MPI_Wtime();
}

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && !strcmp(v, "1");
}

static _Thread_local char trace_line[1024];

const char *gpgpu_mpi_last_trace(void)
{
    return trace_line;
}

static int put_bytes(char *at, size_t room, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    for (; b >= 1024 && u < 4; u++)
        b /= 1024;
    return snprintf(at, room, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

/* GPGPU_MPI_TRACE=1 (alike on every rank: it adds two collectives): rank 0
   gets, in gpgpu_mpi_last_trace() and on stderr, each step's time (the
   slowest rank's), the bytes all ranks moved in it over MPI ("net") and
   within themselves ("local": host copies, and a sort's part to the device
   and back), and the rate of the two together. */
static void trace(sorter *s)
{
    trace_line[0] = '\0';
    if (!env_on("GPGPU_MPI_TRACE"))
        return;
    static const char *const names[] = {"prepare", "samples", "partition", "exchange",
                                        "local sort", "rebalance"};
    double mine[6 + 12], all[6 + 12], prev = s->t0;
    for (int i = 0; i < 6; i++) {
        double t = s->phase[i] > 0 ? s->phase[i] : prev;
        mine[i] = (t - prev) * 1e3;
        mine[6 + 2 * i] = s->bytes[i][0];
        mine[7 + 2 * i] = s->bytes[i][1];
        prev = t;
    }
    double total = (prev - s->t0) * 1e3, worst_total = 0;
    if (MPI_Reduce(mine, all, 6, MPI_DOUBLE, MPI_MAX, 0, s->c.comm) != MPI_SUCCESS ||
        MPI_Reduce(mine + 6, all + 6, 12, MPI_DOUBLE, MPI_SUM, 0, s->c.comm) != MPI_SUCCESS ||
        MPI_Reduce(&total, &worst_total, 1, MPI_DOUBLE, MPI_MAX, 0, s->c.comm) != MPI_SUCCESS ||
        s->c.rank != 0)
        return;
    char *line = trace_line;
    size_t room = sizeof trace_line;
    int at = snprintf(line, room, "%s of %zu x %d ranks, %.1f ms:", s->pairs ? "sort_pairs" : "sort",
                      s->n, s->c.size, worst_total);
    for (int i = 0; i < 6 && at < (int)room; i++) {
        double net = all[6 + 2 * i], local = all[7 + 2 * i], ms = all[i];
        at += snprintf(line + at, room - (size_t)at, "%s %s %.1f ms", i ? ";" : "", names[i], ms);
        if (net > 0 && at < (int)room) {
            at += snprintf(line + at, room - (size_t)at, ", ");
            at += at < (int)room ? put_bytes(line + at, room - (size_t)at, net) : 0;
            at += at < (int)room ? snprintf(line + at, room - (size_t)at, " net") : 0;
        }
        if (local > 0 && at < (int)room) {
            at += snprintf(line + at, room - (size_t)at, ", ");
            at += at < (int)room ? put_bytes(line + at, room - (size_t)at, local) : 0;
            at += at < (int)room ? snprintf(line + at, room - (size_t)at, " local") : 0;
        }
        if (net + local > 0 && ms > 0 && at < (int)room)
            at += snprintf(line + at, room - (size_t)at, ", %.2f GB/s",
                           (net + local) / (ms * 1e-3) * 1e-9);
    }
    fprintf(stderr, "gpgpu-mpi trace: %s\n", line);
}

static void print_phases(const sorter *s)
{
    if (!env_on("GPGPU_MPI_PROFILE"))
        return;
    static const char *const names[] = {"prepare", "samples", "partition", "exchange",
                                        "local sort", "rebalance"};
    char line[512];
    int at = snprintf(line, sizeof line, "gpgpu-mpi: sort of %zu on rank %d of %d:", s->n,
                      s->c.rank, s->c.size);
    double prev = s->t0;
    for (int i = 0; i < 6 && at < (int)sizeof line; i++) {
        double t = s->phase[i] > 0 ? s->phase[i] : prev;
        at += snprintf(line + at, sizeof line - (size_t)at, " %s %.1f ms%s", names[i],
                       (t - prev) * 1e3, i < 5 ? "," : "");
        prev = t;
    }
    fprintf(stderr, "%s\n", line);
}

static gpgpu_status local_sort(sorter *s, void *k, void *v, size_t n)
{
    if (s->pairs)
        return gpgpu__mpi_local(gpgpu_sort_pairs(s->ctx, s->t, k, v, s->vsize, n, s->flags),
                                s->ctx, "gpgpu_sort_pairs");
    return gpgpu__mpi_local(gpgpu_sort(s->ctx, s->t, k, n, s->flags), s->ctx, "gpgpu_sort");
}

/* Memory the rank writes all of before reading it: malloc, not calloc. */
static void *alloc(gpgpu_status *st, size_t count, size_t size)
{
    void *p = NULL;
    if (*st == GPGPU_SUCCESS && count > 0 && (p = malloc(count * size)) == NULL)
        *st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu x %zu bytes",
                              count, size);
    return p;
}

/* Room for count keys and values (when the sort has values) in kept area
   `area`, or in memory of the call's own; *k and *v point into it. On the
   device path it is pinned memory (what crosses the bus then moves by one
   DMA, not through the staging ring). */
static void alloc_kv(gpgpu_status *st, sorter *s, int area, size_t count, void **k, void **v)
{
    size_t kbytes = (count * s->esize + 63) & ~(size_t)63;
    size_t bytes = kbytes + (s->pairs ? count * s->vsize : 0);
    if (*st != GPGPU_SUCCESS || count == 0)
        return;
    if (s->dev) {
        *st = s->kept ? gpgpu__mpi_pinned_keep(s->ctx, area, bytes, k)
                      : gpgpu__mpi_pinned_alloc(s->ctx, bytes, &s->pin[area]);
        if (*st != GPGPU_SUCCESS)
            return;
        if (!s->kept)
            *k = s->pin[area].ptr;
    } else {
        *k = s->kept ? gpgpu__mpi_keep(area, bytes) : malloc(bytes);
        if (*k == NULL) {
            *st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu bytes",
                                  bytes);
            return;
        }
    }
    if (s->pairs)
        *v = (char *)*k + kbytes;
}

static void release(sorter *s)
{
    if (s->kept)
        gpgpu__mpi_keep_give();
    else if (s->dev) {
        gpgpu__mpi_pinned_free(&s->pin[0]);
        gpgpu__mpi_pinned_free(&s->pin[1]);
    } else {
        free(s->k1);
        free(s->k2);
    }
    free(s->info);
    free(s->cand);
    free(s->split);
    free(s->bounds);
    free(s->arrays);
    free(s->chunk);
    free(s->chunk_at);
    free(s->threads);
    free(s->started);
    free(s->fpos);
    free(s->fkey);
    free(s->span);
    if (!s->kept) {  /* (kept ones stay for the next call) */
        gpgpu_array_destroy(s->dk);
        gpgpu_array_destroy(s->dv);
        gpgpu_array_destroy(s->rk);
        gpgpu_array_destroy(s->rv);
    }
    gpgpu__mpi_scratch_free(&s->scratch);
}

/* Key i of the part, as ordered. */
static uint64_t key_at(const sorter *s, const gpgpu__mpi_key_order *o, size_t i)
{
    return gpgpu__mpi_ordered(o, s->esize == 4 ? ((const uint32_t *)s->keys)[i]
                                               : ((const uint64_t *)s->keys)[i]);
}

/* A fixed pseudo-random number from j (the same every call: the split, and
   so the work, is reproducible). */
static uint64_t mix(uint64_t j)
{
    uint64_t z = j * UINT64_C(0x9e3779b97f4a7c15) + UINT64_C(0x632be59bd9b4e019);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* One sample from each of SAMPLES equal spans of the unsorted part, at a
   pseudo-random place in it (regular places could fall in step with a
   periodic input). */
static void take_samples(sorter *s, rank_info *mine)
{
    size_t c = s->n < SAMPLES ? s->n : SAMPLES;
    gpgpu__mpi_key_order o = gpgpu__mpi_key_order_of(s->t, s->flags & GPGPU_DESCENDING);
    mine->n = s->n;
    mine->nsamples = c;
    for (size_t j = 0; j < c; j++) {
        size_t start = j * (s->n / c) + j * (s->n % c) / c;
        size_t end = (j + 1) * (s->n / c) + (j + 1) * (s->n % c) / c;
        size_t pos = start + mix(j) % (end - start);
        mine->s[j] = (sample){key_at(s, &o, pos), pos, end - start};
    }
}

static int cmp_splitter(const void *pa, const void *pb)
{
    const splitter *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Every rank's samples, sorted. */
static size_t gather_candidates(sorter *s)
{
    size_t k = 0;
    for (int r = 0; r < s->c.size; r++) {
        const rank_info *ri = &s->info[r];
        for (size_t j = 0; j < ri->nsamples; j++)
            s->cand[k++] = (splitter){ri->s[j].key, ri->s[j].pos, ri->s[j].weight, r, 0};
    }
    qsort(s->cand, k, sizeof *s->cand, cmp_splitter);
    return k;
}

/* Splitter i (1 <= i < size) is the first sample with about i/size of all
   elements before it; then each as this rank's bound. */
static void choose_splitters(sorter *s, uint64_t total)
{
    size_t ncand = gather_candidates(s), p = (size_t)s->c.size, next = 1;
    uint64_t before = 0;
    for (size_t j = 0; j < ncand && next < p; j++) {
        while (next < p && before >= total / p * next + total % p * next / p)
            s->split[next++ - 1] = s->cand[j];
        before += s->cand[j].weight;
    }
    for (; next < p; next++)
        s->split[next - 1] = (splitter){0, 0, 0, 0, 1};
    for (size_t d = 0; d + 1 < p; d++) {
        const splitter *sp = &s->split[d];
        s->bounds[d].key = sp->inf ? UINT64_MAX : sp->key;
        s->bounds[d].idx = sp->inf || sp->rank > s->c.rank ? UINT64_MAX
                           : sp->rank < s->c.rank        ? 0
                                                         : sp->pos;
    }
}

/* The bucket of key k at index i: how many splitters are not after it. A
   few ranks count them; many search. */
static inline size_t bucket_of(const bound *b, size_t nb, uint64_t k, uint64_t i)
{
    size_t lo = 0, hi = nb;
    if (nb <= 8) {  /* no branch on the data: random keys would mispredict */
        for (size_t d = 0; d < nb; d++)
            lo += (size_t)(k > b[d].key) | ((size_t)(k == b[d].key) & (size_t)(i >= b[d].idx));
        return lo;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k < b[mid].key || (k == b[mid].key && i < b[mid].idx))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Each chunk's counters are a whole number of cache lines and one line
   more apart from the next chunk's, so no two chunks share a line:
   chunks whose counters shared lines ran the partition at 1.3 GB/s on 8
   threads (2 ranks on a 16-core H100 machine, 2^26 keys a rank: 413 ms),
   every increment fighting the other threads for the line. */
static size_t at_stride(size_t p)
{
    return ((p + 7) & ~(size_t)7) + 8;
}

/* The partition runs in chunks of the part, each on a thread of its own:
   every chunk counts its buckets, then scatters into them from its offset
   within each bucket, so the order within a bucket is the part's. */
typedef struct part_chunk part_chunk;
struct part_chunk {
    const sorter *s;
    gpgpu__mpi_key_order o;
    size_t first, end;              /* elements [first, end) */
    size_t *at;                     /* size entries: counts, then cursors */
    int scatter;                    /* 0: count; 1: scatter */
    void (*run)(part_chunk *);
};

/* Few splitters (FEW_SPLITTERS at most, as with few ranks): the chunk goes
   in blocks of PBLOCK keys. In a block that no splitter's idx falls
   inside, a key is after splitter d iff it is >= a threshold (key_d for
   a block at or past idx_d, key_d + 1 before it), so its bucket is the
   number of thresholds it reaches: loops over the block that the compiler
   turns into vector compares. The count pass then adds up, per splitter,
   the keys that reach it (bucket r holds those after r splitters and not
   r + 1), with no per-key increment; the scatter computes the block's
   buckets first and then moves its keys. Per key, the search and its
   increments took 11 ns (4 host ranks of 2^24 keys on 16 cores: the
   partition 90 ms, 2.7 GB/s). A block that a splitter's idx falls inside,
   or whose threshold would pass the largest key, takes the search. */
enum { FEW_SPLITTERS = 8, PBLOCK = 1024 };

/* The thresholds of block [a, a + len) (nb <= FEW_SPLITTERS): 0 if the
   block needs the search. */
static int block_thresholds(const bound *b, size_t nb, uint64_t top, size_t a, size_t len,
                            uint64_t *th)
{
    for (size_t d = 0; d < nb; d++) {
        if (a >= b[d].idx)
            th[d] = b[d].key;
        else if (a + len <= b[d].idx && b[d].key < top)
            th[d] = b[d].key + 1;
        else
            return 0;
    }
    return 1;
}

/* The chunk's pass over keys of type W and values of type V (none when the
   sort carries none). */
#define PARTITION_CHUNK(NAME, W, V)                                                 \
    static void NAME(part_chunk *c)                                                 \
    {                                                                               \
        const sorter *s = c->s;                                                     \
        const W *key = s->keys;                                                     \
        const V *val = s->values;                                                   \
        W *kout = s->k1;                                                            \
        V *vout = s->v1;                                                            \
        const bound *b = s->bounds;                                                 \
        const gpgpu__mpi_key_order o = c->o;                                        \
        size_t nb = (size_t)s->c.size - 1, *restrict at = c->at;                    \
        const W flip = (W)o.flip, neg = (W)o.neg;                                   \
        const unsigned shift = o.shift;                                             \
        uint64_t th64[FEW_SPLITTERS];                                               \
        for (size_t a = c->first; a < c->end; a += PBLOCK) {                        \
            const size_t len = c->end - a < PBLOCK ? c->end - a : PBLOCK;           \
            if (len < PBLOCK || nb > FEW_SPLITTERS ||                               \
                !block_thresholds(b, nb, (W)~(W)0, a, len, th64)) {                 \
                for (size_t i = a; i < a + len; i++) { /* the search */            \
                    size_t r = bucket_of(b, nb, gpgpu__mpi_ordered(&o, key[i]), i);  \
                    if (!c->scatter) {                                              \
                        at[r]++;                                                    \
                        continue;                                                   \
                    }                                                               \
                    size_t j = at[r]++;                                             \
                    kout[j] = key[i];                                               \
                    if (val != NULL)                                                \
                        vout[j] = val[i];                                           \
                }                                                                   \
                continue;                                                           \
            }                                                                       \
            const W *kb = key + a;                                                  \
            W ok[PBLOCK];                                                           \
            for (size_t i = 0; i < PBLOCK; i++)                                     \
                ok[i] = kb[i] ^ flip ^ ((kb[i] >> shift) ? neg : 0);                 \
            if (!c->scatter) {                                                      \
                size_t prev = PBLOCK;                                               \
                for (size_t d = 0; d < nb; d++) {                                   \
                    const W t = (W)th64[d];                                         \
                    unsigned reach = 0;                                             \
                    for (size_t i = 0; i < PBLOCK; i++)                             \
                        reach += ok[i] >= t;                                        \
                    at[d] += prev - reach;                                          \
                    prev = reach;                                                   \
                }                                                                   \
                at[nb] += prev;                                                     \
                continue;                                                           \
            }                                                                       \
            unsigned char bk[PBLOCK];                                               \
            memset(bk, 0, sizeof bk);                                               \
            for (size_t d = 0; d < nb; d++) {                                       \
                const W t = (W)th64[d];                                             \
                for (size_t i = 0; i < PBLOCK; i++)                                 \
                    bk[i] += ok[i] >= t;                                            \
            }                                                                       \
            if (val == NULL) {                                                      \
                for (size_t i = 0; i < PBLOCK; i++)                                 \
                    kout[at[bk[i]]++] = kb[i];                                      \
                continue;                                                           \
            }                                                                       \
            const V *vb = val + a;                                                  \
            for (size_t i = 0; i < PBLOCK; i++) {                                   \
                size_t j = at[bk[i]]++;                                             \
                kout[j] = kb[i];                                                    \
                vout[j] = vb[i];                                                    \
            }                                                                       \
        }                                                                           \
    }
PARTITION_CHUNK(part_k4_v4, uint32_t, uint32_t)
PARTITION_CHUNK(part_k4_v8, uint32_t, uint64_t)
PARTITION_CHUNK(part_k8_v4, uint64_t, uint32_t)
PARTITION_CHUNK(part_k8_v8, uint64_t, uint64_t)

static void *run_chunk(void *arg)
{
    part_chunk *c = arg;
    c->run(c);
    return NULL;
}

/* Runs every chunk's pass, chunk 0 on this thread; a thread that cannot
   start runs its chunk here instead. */
static void run_chunks(sorter *s, int scatter)
{
    pthread_t *tid = s->threads;
    int *started = s->started;
    for (size_t c = 0; c < s->nchunks; c++) {
        s->chunk[c].scatter = scatter;
        started[c] = c > 0 && pthread_create(&tid[c], NULL, run_chunk, &s->chunk[c]) == 0;
    }
    for (size_t c = 0; c < s->nchunks; c++)
        if (!started[c])
            s->chunk[c].run(&s->chunk[c]);
    for (size_t c = 1; c < s->nchunks; c++)
        if (started[c])
            pthread_join(tid[c], NULL);
}

/* Step 2 on this rank: the buckets' sizes, then a stable scatter of the
   part into them, and the size of the bucket that will arrive. */
static gpgpu_status partition(sorter *s)
{
    const size_t p = (size_t)s->c.size, n = s->n, nc = s->nchunks, stride = at_stride(p);
    const gpgpu__mpi_key_order o = gpgpu__mpi_key_order_of(s->t, s->flags & GPGPU_DESCENDING);
    size_t vsize = s->pairs ? s->vsize : 4;
    void (*run)(part_chunk *) = s->esize == 4 ? (vsize == 4 ? part_k4_v4 : part_k4_v8)
                                              : (vsize == 4 ? part_k8_v4 : part_k8_v8);
    for (size_t c = 0; c < nc; c++) {
        s->chunk[c] = (part_chunk){s, o, n / nc * c + n % nc * c / nc,
                                   n / nc * (c + 1) + n % nc * (c + 1) / nc,
                                   s->chunk_at + c * stride, 0, run};
        for (size_t d = 0; d < p; d++)
            s->chunk[c].at[d] = 0;
    }
    run_chunks(s, 0);
    for (size_t d = 0, start = 0; d < p; d++) {  /* counts -> cursors */
        s->send.displ[d] = start;
        for (size_t c = 0; c < nc; c++) {
            size_t k = s->chunk[c].at[d];
            s->chunk[c].at[d] = start;
            start += k;
        }
        s->send.count[d] = start - s->send.displ[d];
    }
    run_chunks(s, 1);
    gpgpu_status st = gpgpu__mpi_error(MPI_Alltoall(s->send.count, 1, MPI_UINT64_T,
                                                    s->recv.count, 1, MPI_UINT64_T, s->c.comm),
                                       "MPI_Alltoall");
    s->m = 0;
    for (size_t r = 0; r < p; r++) {
        s->recv.displ[r] = s->m;
        s->m += s->recv.count[r];
    }
    alloc_kv(&st, s, 1, s->m, &s->k2, &s->v2);
    return st;
}

/* Chunks of the partition: one per thread, each of at least MIN_CHUNK
   elements. Threads: GPGPU_MPI_THREADS, else the node's processors shared
   among the ranks (assumed all on one node), at most MAX_THREADS. */
enum { MAX_THREADS = 16, MIN_CHUNK = 1 << 16 };

static size_t partition_chunks(const sorter *s)
{
    const char *env = getenv("GPGPU_MPI_THREADS");
    char *end;
    unsigned long forced = env ? strtoul(env, &end, 10) : 0;
    size_t c;
    if (env && *end == '\0' && forced > 0 && forced <= MAX_THREADS) {
        c = forced;
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        c = cpus > s->c.size ? (size_t)(cpus / s->c.size) : 1;
        c = c < MAX_THREADS ? c : MAX_THREADS;
        c = c < s->n / MIN_CHUNK ? c : s->n / MIN_CHUNK;
    }
    c = c < s->n ? c : s->n;
    return c > 0 ? c : 1;
}

/* All the memory whose size this rank alone knows. */
static gpgpu_status prepare(sorter *s)
{
    gpgpu_status st = GPGPU_SUCCESS;
    size_t p = (size_t)s->c.size;
    s->kept = gpgpu__mpi_keep_take();
    alloc_kv(&st, s, 0, s->n, &s->k1, &s->v1);
    s->info = alloc(&st, p + 1, sizeof *s->info);
    s->cand = alloc(&st, p * SAMPLES, sizeof *s->cand);
    s->split = alloc(&st, p, sizeof *s->split);
    s->bounds = alloc(&st, p, sizeof *s->bounds);
    s->arrays = alloc(&st, 6 * p, sizeof *s->arrays);
    s->nchunks = partition_chunks(s);
    s->chunk = alloc(&st, s->nchunks, sizeof *s->chunk);
    s->chunk_at = alloc(&st, s->nchunks * at_stride(p), sizeof *s->chunk_at);
    s->threads = alloc(&st, s->nchunks, sizeof *s->threads);
    s->started = alloc(&st, s->nchunks, sizeof *s->started);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_scratch_alloc(&s->scratch, s->c.size);
    if (st != GPGPU_SUCCESS)
        return st;
    s->send = (gpgpu__mpi_layout){s->arrays, s->arrays + p};
    s->recv = (gpgpu__mpi_layout){s->arrays + 2 * p, s->arrays + 3 * p};
    s->counts = s->arrays + 4 * p;
    s->bucket = s->arrays + 5 * p;
    return GPGPU_SUCCESS;
}

/* One all-to-all of the keys, one of the values: the rank's own span is
   copied on threads meanwhile. ph: the step, for the trace's bytes. */
static gpgpu_status exchange(sorter *s, int ph, int big, const void *k, const void *v,
                             void *kout, void *vout)
{
    size_t width = s->esize + (s->pairs ? s->vsize : 0), sent = 0;
    for (int r = 0; r < s->c.size; r++)
        sent += r == s->c.rank ? 0 : s->send.count[r];
    s->bytes[ph][0] = (double)(sent * width);
    s->bytes[ph][1] = (double)(s->send.count[s->c.rank] * width);
    gpgpu_status st = gpgpu__mpi_error(
        gpgpu__mpi_alltoallv_local(&s->c, &s->scratch, big, s->esize, k, &s->send, kout,
                                   &s->recv, s->nchunks, s->land[0]),
        "MPI_Alltoallv");
    if (st == GPGPU_SUCCESS && s->pairs)
        st = gpgpu__mpi_error(gpgpu__mpi_alltoallv_local(&s->c, &s->scratch, big, s->vsize, v,
                                                         &s->send, vout, &s->recv, s->nchunks,
                                                         s->land[1]),
                              "MPI_Alltoallv");
    return st;
}

/* [a0, a1) and [b0, b1) overlap in count elements starting at *first. */
static size_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, uint64_t *first)
{
    *first = a0 > b0 ? a0 : b0;
    uint64_t end = a1 < b1 ? a1 : b1;
    return end > *first ? end - *first : 0;
}

/* Step 4's layout: the bucket of rank r holds global positions starting at
   the sum of the buckets below r; rank r's own part, at the sum of the
   counts below r. */
static void plan_rebalance(sorter *s)
{
    uint64_t my_bucket = 0, my_part = 0, bucket_at = 0, part_at = 0, first;
    for (int r = 0; r < s->c.rank; r++) {
        my_bucket += s->bucket[r];
        my_part += s->counts[r];
    }
    for (int r = 0; r < s->c.size; r++) {
        s->send.count[r] = overlap(my_bucket, my_bucket + s->m, part_at,
                                   part_at + s->counts[r], &first);
        s->send.displ[r] = first - my_bucket;
        s->recv.count[r] = overlap(bucket_at, bucket_at + s->bucket[r], my_part,
                                   my_part + s->n, &first);
        s->recv.displ[r] = first - my_part;
        part_at += s->counts[r];
        bucket_at += s->bucket[r];
    }
}

/* Step 1's exchange, on both paths: every rank's samples (this rank's at
   info[size]) and counts, then the splitters; *total: all ranks' elements
   (0: nothing to sort, and no splitters chosen). */
static gpgpu_status share_samples(sorter *s, uint64_t *total)
{
    rank_info *mine = &s->info[s->c.size];
    gpgpu_status st = gpgpu__mpi_error(
        MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, s->info, (int)sizeof *mine, MPI_BYTE,
                      s->c.comm),
        "MPI_Allgather");
    mark(s, PH_SAMPLES);
    s->bytes[PH_SAMPLES][0] = (double)(sizeof *mine * (size_t)(s->c.size - 1));
    if (st != GPGPU_SUCCESS)
        return st;
    *total = 0;
    for (int r = 0; r < s->c.size; r++)
        *total += s->counts[r] = s->info[r].n;
    if (*total > 0)
        choose_splitters(s, *total);
    return GPGPU_SUCCESS;
}

/* Step 4's layout, on both paths: every rank's bucket size, then the
   pieces each rank sends and receives. */
static gpgpu_status share_buckets(sorter *s)
{
    gpgpu_status st = gpgpu__mpi_error(
        MPI_Allgather(&s->m, 1, MPI_UINT64_T, s->bucket, 1, MPI_UINT64_T, s->c.comm),
        "MPI_Allgather");
    if (st == GPGPU_SUCCESS)
        plan_rebalance(s);
    return st;
}

static gpgpu_status distribute(sorter *s)
{
    take_samples(s, &s->info[s->c.size]);
    uint64_t total = 0;
    gpgpu_status st = share_samples(s, &total);
    if (st != GPGPU_SUCCESS || total == 0)
        return st;
    int big = total > gpgpu__mpi_max_count();
    st = gpgpu__mpi_agree(&s->c, partition(s));
    mark(s, PH_PARTITION);
    s->bytes[PH_PARTITION][1] = (double)(s->n * (s->esize + (s->pairs ? s->vsize : 0)));
    if (st == GPGPU_SUCCESS)
        st = exchange(s, PH_EXCHANGE, big, s->k1, s->v1, s->k2, s->v2);
    mark(s, PH_EXCHANGE);
    if (st == GPGPU_SUCCESS && s->m > 0)
        st = local_sort(s, s->k2, s->v2, s->m);
    st = gpgpu__mpi_agree(&s->c, st);
    mark(s, PH_LOCAL_SORT);
    s->bytes[PH_LOCAL_SORT][1] = (double)(s->m * (s->esize + (s->pairs ? s->vsize : 0)));
    if (st == GPGPU_SUCCESS)
        st = share_buckets(s);
    if (st != GPGPU_SUCCESS)
        return st;
    st = exchange(s, PH_REBALANCE, big, s->k2, s->v2, s->keys, s->values);
    mark(s, PH_REBALANCE);
    return st;
}

/* ---- the device path ------------------------------------------------------

   Where the part can live on a GPU (the _array forms, or host arrays on a
   GPU device), the host steps above become reads of the part sorted on
   the device. Order among equal keys is then the sorted position, which
   for a stable sort is the same order as the index in the part, so the
   (key, rank, index) order, the splitters and the rebalance are the same:

   1. The part is sorted where it is (a copy of the caller's array, or the
      host part uploaded), and FINE evenly spaced elements of it are
      gathered; SAMPLES of them go to every rank as above.
   2. A splitter cuts the sorted part at one place: its key's first or
      last position, found among the fine samples and then in the one
      span between two of them (one small read), or, for this rank's own
      sample, that sample's position. Each bucket is a contiguous run.
   3. The runs for other ranks cross the bus and MPI; this rank's own run
      is copied on the device. The runs that arrive go up, and the bucket
      is sorted on the device (stable: runs arrive in rank order).
   4. The rebalance's pieces for other ranks come down; this rank's own
      piece goes straight to the caller's memory, or, for an array, is
      copied on the device.

   Per rank: the part and the bucket each cross the bus once each way,
   less the own run, where the host path crosses once each way and runs
   its partition and its rebalance's own copy in host memory, which on a
   4-GPU machine was the slower: 115 ms for 2^26 keys. */
enum { FINE = 4096 };

/* A device array of n elements, kept from call to call (devkeep.c, slot)
   when the call holds the kept memory. */
static void dev_array(gpgpu_status *st, sorter *s, int slot, gpgpu_type t, size_t n,
                      gpgpu_array **a)
{
    if (*st != GPGPU_SUCCESS || n == 0)
        return;
    *st = s->kept ? gpgpu__mpi_dev_keep(s->ctx, slot, gpgpu_type_size(t), n, a)
                  : gpgpu__mpi_local(gpgpu_array_create(s->ctx, t, n, a), s->ctx,
                                     "gpgpu_array_create");
}

/* Elements [from_at, +count) of keys fk and (when the sort has them)
   values fv to tk and tv at to_at, copied on the device. */
static gpgpu_status dev_copy_kv(sorter *s, gpgpu_array *fk, gpgpu_array *fv, size_t from_at,
                                gpgpu_array *tk, gpgpu_array *tv, size_t to_at, size_t count)
{
    gpgpu_status st = gpgpu__mpi_dev_copy(s->q, gpgpu_array_buffer(fk), from_at,
                                          gpgpu_array_buffer(tk), to_at, count, s->esize);
    if (st == GPGPU_SUCCESS && s->pairs)
        st = gpgpu__mpi_dev_copy(s->q, gpgpu_array_buffer(fv), from_at,
                                 gpgpu_array_buffer(tv), to_at, count, s->vsize);
    return st;
}

/* Elements [at, at + count) of the caller's host keys hk and values hv
   (indexed from the same at) to the device pair. */
static gpgpu_status dev_write(sorter *s, gpgpu_array *k, gpgpu_array *v, size_t at,
                              const void *hk, const void *hv, size_t count)
{
    if (count == 0)
        return GPGPU_SUCCESS;
    gpgpu_status st = gpgpu__mpi_local(
        gpgpu_array_write(s->ctx, k, at, (const char *)hk + at * s->esize, count), s->ctx,
        "gpgpu_array_write");
    if (st == GPGPU_SUCCESS && s->pairs)
        st = gpgpu__mpi_local(
            gpgpu_array_write(s->ctx, v, at, (const char *)hv + at * s->vsize, count), s->ctx,
            "gpgpu_array_write");
    return st;
}

/* The same between the device pair and the pinned k1 or k2 (hk, hv):
   one DMA each, enqueued; the caller waits (clFinish) before the host
   reads what came down or overwrites what goes up. */
static gpgpu_status pin_move(sorter *s, int up, gpgpu_array *k, gpgpu_array *v, size_t at,
                             void *hk, void *hv, size_t count)
{
    if (count == 0)
        return GPGPU_SUCCESS;
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 1 + s->pairs && err == CL_SUCCESS; i++) {
        size_t w = i ? s->vsize : s->esize;
        cl_mem b = gpgpu_array_buffer(i ? v : k);
        char *h = (char *)(i ? hv : hk) + at * w;
        err = up ? clEnqueueWriteBuffer(s->q, b, CL_FALSE, at * w, count * w, h, 0, NULL, NULL)
                 : clEnqueueReadBuffer(s->q, b, CL_FALSE, at * w, count * w, h, 0, NULL, NULL);
    }
    if (err == CL_SUCCESS)
        err = clFlush(s->q);
    return err == CL_SUCCESS ? GPGPU_SUCCESS
                             : gpgpu__mpi_cl_fail(err, up ? "clEnqueueWriteBuffer"
                                                          : "clEnqueueReadBuffer");
}

static gpgpu_status dev_finish(sorter *s)
{
    cl_int err = clFinish(s->q);
    return err == CL_SUCCESS ? GPGPU_SUCCESS : gpgpu__mpi_cl_fail(err, "clFinish");
}

/* Sorts elements [0, count) of the device pair, stably (enqueued). */
static gpgpu_status dev_sort(sorter *s, gpgpu_array *k, gpgpu_array *v, size_t count)
{
    if (count == 0)
        return GPGPU_SUCCESS;
    if (s->pairs)
        return gpgpu__mpi_local(gpgpu_sort_pairs_buffer(s->ctx, s->t, gpgpu_array_buffer(k), 0,
                                                        gpgpu_array_buffer(v), 0, s->vsize,
                                                        count, s->flags, 0, NULL, NULL),
                                s->ctx, "gpgpu_sort_pairs_buffer");
    return gpgpu__mpi_local(gpgpu_sort_buffer(s->ctx, s->t, gpgpu_array_buffer(k), 0, count,
                                              s->flags, 0, NULL, NULL),
                            s->ctx, "gpgpu_sort_buffer");
}

static uint64_t host_key(const sorter *s, const gpgpu__mpi_key_order *o, const void *k, size_t i)
{
    return gpgpu__mpi_ordered(o, s->esize == 4 ? ((const uint32_t *)k)[i]
                                               : ((const uint64_t *)k)[i]);
}

/* Step 1's fine samples of the sorted part: positions j * n / FINE. */
static gpgpu_status dev_fine(sorter *s)
{
    size_t n = s->n, f = n < FINE ? n : FINE;
    gpgpu_status st = GPGPU_SUCCESS;
    s->nfine = f;
    s->fpos = alloc(&st, f + 1, sizeof *s->fpos);
    s->fkey = alloc(&st, f, sizeof *s->fkey);
    s->span = alloc(&st, n / f + 2, s->esize);
    if (st != GPGPU_SUCCESS)
        return st;
    for (size_t j = 0; j <= f; j++)
        s->fpos[j] = n / f * j + n % f * j / f;
    gpgpu_array *idx = NULL, *out = NULL;
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_array_create(s->ctx, GPGPU_U64, f, &idx), s->ctx,
                              "gpgpu_array_create");
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_array_create(s->ctx, s->t, f, &out), s->ctx,
                              "gpgpu_array_create");
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_array_write(s->ctx, idx, 0, s->fpos, f), s->ctx,
                              "gpgpu_array_write");
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_gather_buffer(s->ctx, s->esize, gpgpu_array_buffer(s->dk), 0,
                                                  n, gpgpu_array_buffer(idx), 0, f,
                                                  gpgpu_array_buffer(out), 0, 0, NULL, NULL),
                              s->ctx, "gpgpu_gather_buffer");
    if (st == GPGPU_SUCCESS)  /* raw keys first, made ordered in place below */
        st = gpgpu__mpi_local(gpgpu_array_read(s->ctx, out, 0, s->fkey, f), s->ctx,
                              "gpgpu_array_read");
    gpgpu_array_destroy(idx);
    gpgpu_array_destroy(out);
    if (st != GPGPU_SUCCESS)
        return st;
    gpgpu__mpi_key_order o = gpgpu__mpi_key_order_of(s->t, s->flags & GPGPU_DESCENDING);
    for (size_t j = f; j-- > 0;)  /* in place: 8-byte slots from 4- or 8-byte keys */
        s->fkey[j] = host_key(s, &o, s->fkey, j);
    return GPGPU_SUCCESS;
}

/* Step 1's samples for the other ranks: SAMPLES of the fine ones, each
   weighing the span of the part it stands for. */
static void dev_samples(sorter *s, rank_info *mine)
{
    size_t f = s->nfine, c = f < SAMPLES ? f : SAMPLES;
    mine->n = s->n;
    mine->nsamples = c;
    for (size_t j = 0; j < c; j++) {
        size_t a = j * f / c, b = (j + 1) * f / c, mid = a + (b - a) / 2;
        mine->s[j] = (sample){s->fkey[mid], s->fpos[mid], s->fpos[b] - s->fpos[a]};
    }
}

/* How many elements of the sorted part are below ordered key `key` (with
   or_equal: not above it): the fine samples narrow it to one span, which
   is read and searched. */
static gpgpu_status dev_count(sorter *s, uint64_t key, int or_equal, size_t *count)
{
    size_t lo = 0, hi = s->nfine;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (or_equal ? s->fkey[mid] <= key : s->fkey[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) {      /* the first element is not before it */
        *count = 0;
        return GPGPU_SUCCESS;
    }
    /* Element fpos[lo - 1] is before it, fpos[lo] (or the end) not. */
    size_t first = s->fpos[lo - 1] + 1, end = s->fpos[lo], len = end - first;
    gpgpu_status st = GPGPU_SUCCESS;
    if (len > 0)
        st = gpgpu__mpi_local(gpgpu_array_read(s->ctx, s->dk, first, s->span, len), s->ctx,
                              "gpgpu_array_read");
    if (st != GPGPU_SUCCESS)
        return st;
    gpgpu__mpi_key_order o = gpgpu__mpi_key_order_of(s->t, s->flags & GPGPU_DESCENDING);
    lo = 0, hi = len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = host_key(s, &o, s->span, mid);
        if (or_equal ? k <= key : k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *count = first + lo;
    return GPGPU_SUCCESS;
}

/* Step 2: the cuts, the runs' sizes, and the runs for other ranks brought
   down into k1 (at their places in the part). The all-to-all of the sizes
   runs whatever happened before it, as on the host path. */
static gpgpu_status dev_partition(sorter *s)
{
    const size_t p = (size_t)s->c.size, me = (size_t)s->c.rank;
    gpgpu_status st = GPGPU_SUCCESS;
    size_t prev = 0;
    for (size_t d = 0; d < p; d++) {
        size_t cut = s->n;
        const bound *b = d + 1 < p ? &s->bounds[d] : NULL;
        if (b != NULL && st == GPGPU_SUCCESS && s->n > 0) {
            if (b->idx == 0)
                st = dev_count(s, b->key, 0, &cut);
            else if (b->idx != UINT64_MAX)
                cut = b->idx;   /* this rank's own sample, at its sorted position */
            else if (!s->split[d].inf)
                st = dev_count(s, b->key, 1, &cut);
        }
        cut = cut < prev ? prev : cut > s->n ? s->n : cut;
        s->send.displ[d] = prev;
        s->send.count[d] = st == GPGPU_SUCCESS ? cut - prev : 0;
        prev = cut;
    }
    gpgpu_status a = gpgpu__mpi_error(MPI_Alltoall(s->send.count, 1, MPI_UINT64_T,
                                                   s->recv.count, 1, MPI_UINT64_T, s->c.comm),
                                      "MPI_Alltoall");
    st = st == GPGPU_SUCCESS ? a : st;
    s->m = 0;
    for (size_t r = 0; r < p; r++) {
        s->recv.displ[r] = s->m;
        s->m += s->recv.count[r];
    }
    alloc_kv(&st, s, 1, s->m, &s->k2, &s->v2);
    size_t cap = s->m > s->n ? s->m : s->n;  /* the bucket, or the backup of an array */
    dev_array(&st, s, 2, s->t, cap, &s->rk);
    if (s->pairs)
        dev_array(&st, s, 3, s->vsize == 8 ? GPGPU_U64 : GPGPU_U32, cap, &s->rv);
    size_t own = s->send.displ[me], own_end = own + s->send.count[me];
    if (st == GPGPU_SUCCESS)
        st = pin_move(s, 0, s->dk, s->dv, 0, s->k1, s->v1, own);
    if (st == GPGPU_SUCCESS)
        st = pin_move(s, 0, s->dk, s->dv, own_end, s->k1, s->v1, s->n - own_end);
    if (st == GPGPU_SUCCESS)
        st = dev_finish(s);
    s->bytes[PH_PARTITION][1] =
        (double)((s->n - s->send.count[me]) * (s->esize + (s->pairs ? s->vsize : 0)));
    return st;
}

/* Step 3 after the exchange: the runs that arrived go up around this
   rank's own run (unless the exchange sent every piece up as it came),
   which is copied on the device, and the bucket is sorted. */
static gpgpu_status dev_bucket(sorter *s)
{
    const size_t me = (size_t)s->c.rank, at = s->recv.displ[me], own = s->recv.count[me];
    gpgpu_status st = GPGPU_SUCCESS;
    for (int i = 0; i < 1 + s->pairs && st == GPGPU_SUCCESS; i++)
        if (s->up[i].failed)
            st = gpgpu__mpi_cl_fail(s->up[i].failed, "clEnqueueWriteBuffer");
    int sent = s->landed[0].all && (!s->pairs || s->landed[1].all);
    if (st == GPGPU_SUCCESS && !sent)
        st = pin_move(s, 1, s->rk, s->rv, 0, s->k2, s->v2, at);
    if (st == GPGPU_SUCCESS && !sent)
        st = pin_move(s, 1, s->rk, s->rv, at + own, s->k2, s->v2, s->m - at - own);
    if (st == GPGPU_SUCCESS)
        st = dev_copy_kv(s, s->dk, s->dv, s->send.displ[me], s->rk, s->rv, at, own);
    if (st == GPGPU_SUCCESS)
        st = dev_sort(s, s->rk, s->rv, s->m);
    if (st == GPGPU_SUCCESS)    /* the step's time is the sort's (the next waits anyway) */
        st = dev_finish(s);
    /* (what went up during the exchange counts there) */
    s->bytes[sent ? PH_EXCHANGE : PH_LOCAL_SORT][1] +=
        (double)((s->m - own) * (s->esize + (s->pairs ? s->vsize : 0)));
    return st;
}

/* The exchange with this rank's own span left out (it stays on the
   device), then the layouts as they were. */
static gpgpu_status exchange_others(sorter *s, int ph, int big, const void *k, const void *v,
                                    void *kout, void *vout)
{
    int me = s->c.rank;
    size_t sc = s->send.count[me], rc = s->recv.count[me];
    s->send.count[me] = 0;
    s->recv.count[me] = 0;
    gpgpu_status st = exchange(s, ph, big, k, v, kout, vout);
    s->send.count[me] = sc;
    s->recv.count[me] = rc;
    return st;
}

/* Step 3's exchange on the device path: each piece of the runs for this
   rank goes up (k2 to rk, v2 to rv, at the same byte offsets) as soon as
   a reading thread has it, so the bus works while the threads read on.
   Called on those threads; an enqueue that fails is kept for dev_bucket. */
static void upload_piece(void *arg, size_t at, size_t bytes)
{
    struct upload *u = arg;
    cl_int err = clEnqueueWriteBuffer(u->q, u->buf, CL_FALSE, at, bytes, u->base + at, 0, NULL,
                                      NULL);
    if (err == CL_SUCCESS)
        err = clFlush(u->q);
    int none = 0;
    if (err != CL_SUCCESS)
        __atomic_compare_exchange_n(&u->failed, &none, (int)err, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
}

static gpgpu_status exchange_up(sorter *s, int big)
{
    for (int i = 0; i < 1 + s->pairs; i++) {
        s->up[i] = (struct upload){s->q, gpgpu_array_buffer(i ? s->rv : s->rk),
                                   i ? s->v2 : s->k2, 0};
        s->landed[i] = (gpgpu__mpi_landed){upload_piece, &s->up[i], 0};
        s->land[i] = &s->landed[i];
    }
    gpgpu_status st = exchange_others(s, PH_EXCHANGE, big, s->k1, s->v1, s->k2, s->v2);
    s->land[0] = s->land[1] = NULL;
    return st;
}

/* Step 4. The pieces of the sorted bucket for other ranks come down into
   k2 (at their places in the bucket) and, once every rank has them, go
   out; this rank's own piece goes from the device to the caller's keys,
   or for an array into dk, which then replaces the caller's array with a
   backup of it kept in rk until every rank has agreed. */
static gpgpu_status dev_rebalance(sorter *s, int big)
{
    const size_t me = (size_t)s->c.rank, count = s->send.count[me];
    /* (an empty piece's displacements may point anywhere) */
    const size_t own = count ? s->send.displ[me] : 0, at = count ? s->recv.displ[me] : 0;
    const size_t width = s->esize + (s->pairs ? s->vsize : 0);
    gpgpu_status st = pin_move(s, 0, s->rk, s->rv, 0, s->k2, s->v2, own);
    if (st == GPGPU_SUCCESS)
        st = pin_move(s, 0, s->rk, s->rv, own + count, s->k2, s->v2, s->m - own - count);
    if (st == GPGPU_SUCCESS)
        st = dev_finish(s);
    st = gpgpu__mpi_agree(&s->c, st);
    if (st != GPGPU_SUCCESS)
        return st;
    if (s->ka == NULL) {    /* host arrays: the last step, as on the host path */
        st = exchange_others(s, PH_REBALANCE, big, s->k2, s->v2, s->keys, s->values);
        if (count > 0) {
            gpgpu_status r = gpgpu__mpi_local(
                gpgpu_array_read(s->ctx, s->rk, own, (char *)s->keys + at * s->esize, count),
                s->ctx, "gpgpu_array_read");
            if (r == GPGPU_SUCCESS && s->pairs)
                r = gpgpu__mpi_local(gpgpu_array_read(s->ctx, s->rv, own,
                                                      (char *)s->values + at * s->vsize, count),
                                     s->ctx, "gpgpu_array_read");
            st = st == GPGPU_SUCCESS ? r : st;
        }
        s->bytes[PH_REBALANCE][1] += (double)(s->m * width);
        return st;
    }
    st = exchange_others(s, PH_REBALANCE, big, s->k2, s->v2, s->k1, s->v1);
    if (st == GPGPU_SUCCESS)
        st = pin_move(s, 1, s->dk, s->dv, 0, s->k1, s->v1, at);
    if (st == GPGPU_SUCCESS)
        st = pin_move(s, 1, s->dk, s->dv, at + count, s->k1, s->v1, s->n - at - count);
    if (st == GPGPU_SUCCESS)
        st = dev_copy_kv(s, s->rk, s->rv, own, s->dk, s->dv, at, count);
    if (st == GPGPU_SUCCESS)    /* the backup, in the bucket's room */
        st = dev_copy_kv(s, s->ka, s->va, 0, s->rk, s->rv, 0, s->n);
    int touched = st == GPGPU_SUCCESS && s->n > 0;
    if (st == GPGPU_SUCCESS)
        st = dev_copy_kv(s, s->dk, s->dv, 0, s->ka, s->va, 0, s->n);
    if (st == GPGPU_SUCCESS)
        st = dev_finish(s);
    s->bytes[PH_REBALANCE][1] += (double)((s->m - count + s->n - count) * width);
    st = gpgpu__mpi_agree(&s->c, st);
    if (st != GPGPU_SUCCESS && touched) {  /* every rank puts its input back */
        dev_copy_kv(s, s->rk, s->rv, 0, s->ka, s->va, 0, s->n);
        clFinish(s->q);
    }
    return st;
}

/* Steps 1 to 4 on the device; the same collectives on every rank (every
   rank takes this path or none does). */
static gpgpu_status dev_distribute(sorter *s)
{
    gpgpu_status st = GPGPU_SUCCESS;
    const size_t width = s->esize + (s->pairs ? s->vsize : 0);
    dev_array(&st, s, 0, s->t, s->n, &s->dk);
    if (s->pairs)
        dev_array(&st, s, 1, s->vsize == 8 ? GPGPU_U64 : GPGPU_U32, s->n, &s->dv);
    if (st == GPGPU_SUCCESS && s->n > 0) {
        if (s->ka != NULL)
            st = dev_copy_kv(s, s->ka, s->va, 0, s->dk, s->dv, 0, s->n);
        else
            st = dev_write(s, s->dk, s->dv, 0, s->keys, s->values, s->n);
        s->bytes[PH_PREPARE][1] = s->ka ? 0 : (double)(s->n * width);
    }
    if (st == GPGPU_SUCCESS)
        st = dev_sort(s, s->dk, s->dv, s->n);
    if (st == GPGPU_SUCCESS && s->n > 0)
        st = dev_fine(s);
    st = gpgpu__mpi_agree(&s->c, st);
    mark(s, PH_PREPARE);
    if (st != GPGPU_SUCCESS)
        return st;
    rank_info *mine = &s->info[s->c.size];
    if (s->n > 0)
        dev_samples(s, mine);
    else
        *mine = (rank_info){0, 0, {{0, 0, 0}}};
    uint64_t total = 0;
    st = share_samples(s, &total);
    if (st != GPGPU_SUCCESS || total == 0)
        return st;
    int big = total > gpgpu__mpi_max_count();
    st = gpgpu__mpi_agree(&s->c, dev_partition(s));
    mark(s, PH_PARTITION);
    if (st == GPGPU_SUCCESS)
        st = exchange_up(s, big);
    mark(s, PH_EXCHANGE);
    if (st == GPGPU_SUCCESS)
        st = dev_bucket(s);
    st = gpgpu__mpi_agree(&s->c, st);
    mark(s, PH_LOCAL_SORT);
    if (st == GPGPU_SUCCESS)
        st = share_buckets(s);
    if (st != GPGPU_SUCCESS)
        return st;
    st = dev_rebalance(s, big);
    mark(s, PH_REBALANCE);
    return st;
}

/* Whether this rank would take the device path: a queue (the host
   fallback has none); for host arrays a GPU as well (on a CPU device the
   host path's partition is the cheaper) with room for the part and its
   bucket in one allocation each. GPGPU_MPI_SORT=host or =device (alike on
   every rank) forces the choice where possible. */
static int dev_wanted(gpgpu_context *ctx, int arrays, size_t n, size_t width)
{
    cl_command_queue q = ctx ? gpgpu_queue(ctx) : NULL;
    const char *env = getenv("GPGPU_MPI_SORT");
    if (q == NULL || (env && !strcmp(env, "host")))
        return 0;
    if (arrays || (env && !strcmp(env, "device")))
        return 1;
    cl_device_id dev = NULL;
    cl_device_type type = 0;
    cl_ulong max_alloc = 0;
    if (clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                        NULL) != CL_SUCCESS)
        return 0;
    return (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) != 0 &&
           n < max_alloc / 2 / (width ? width : 1);
}

/* Every rank's choice, the same on all: the device path only if every
   rank can take it. */
static int dev_agreed(const gpgpu__mpi_call *c, int mine)
{
    int all = mine;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS)
        return 0;
    return all;
}

/* pre: a failure the caller found already (its detail recorded), or SUCCESS. */
static gpgpu_status sort_any(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, void *keys,
                             void *values, size_t vsize, size_t n, unsigned flags, int pairs,
                             const char *func, gpgpu_status pre, gpgpu_array *ka,
                             gpgpu_array *va)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, func, GPGPU__MPI_SORT, t, flags,
                                       pairs ? (int64_t)vsize : 0, 0);
    if (c.comm == MPI_COMM_NULL)
        return st;
    if (st == GPGPU_SUCCESS)
        st = pre;
    sorter s = {.c = c, .ctx = ctx, .t = t, .flags = flags, .pairs = pairs,
                 .esize = gpgpu_type_size(t), .vsize = vsize, .n = n, .keys = keys,
                 .values = values};
    GPGPU__MPI_REQUIRE(st, ctx != NULL, func, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, s.esize != 0, func, "%s is %d; not a gpgpu_type",
                       pairs ? "key_type" : "t", (int)t);
    GPGPU__MPI_REQUIRE(st, keys != NULL || ka != NULL || n == 0, func,
                       "keys is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, !pairs || values != NULL || va != NULL || n == 0, func,
                       "values is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, !pairs || vsize == 4 || vsize == 8, func,
                       "value_size is %zu; need 4 or 8", vsize);
    GPGPU__MPI_REQUIRE(st, n <= SIZE_MAX / 8, func, "n is %zu; at most %zu", n, SIZE_MAX / 8);
    trace_line[0] = '\0';
    if (st == GPGPU_SUCCESS && s.c.size == 1)  /* one rank: the local sort is the answer */
        return local_sort(&s, keys, values, n);
    /* The _array forms come here only for the device path (ka set). */
    s.dev = ka != NULL ||
            dev_agreed(&s.c, st == GPGPU_SUCCESS &&
                                 dev_wanted(ctx, 0, n, s.esize + (pairs ? vsize : 0)));
    s.q = s.dev ? gpgpu_queue(ctx) : NULL;
    s.ka = ka;
    s.va = va;
    s.t0 = MPI_Wtime();
    if (st == GPGPU_SUCCESS)
        st = prepare(&s);
    st = gpgpu__mpi_agree(&s.c, st);
    if (!s.dev)
        mark(&s, PH_PREPARE);
    if (st == GPGPU_SUCCESS)
        st = s.dev ? dev_distribute(&s) : distribute(&s);
    release(&s);
    print_phases(&s);
    trace(&s);
    return st;
}

gpgpu_status gpgpu_mpi_sort(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, void *keys,
                            size_t n, unsigned flags)
{
    return sort_any(ctx, comm, t, keys, NULL, 0, n, flags, 0, __func__, GPGPU_SUCCESS, NULL,
                    NULL);
}

gpgpu_status gpgpu_mpi_sort_pairs(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type key_type,
                                  void *keys, void *values, size_t value_size, size_t n,
                                  unsigned flags)
{
    return sort_any(ctx, comm, key_type, keys, values, value_size, n, flags, 1, __func__,
                    GPGPU_SUCCESS, NULL, NULL);
}

/* The _array forms. One rank: the device sorts the array where it is.
   Several: the part comes to host memory once (the exchange needs it
   there), is sorted as a host array, and goes back; a copy of the input
   stays on the host until every rank has written its result, so that a
   rank whose result could not be written makes every rank write its
   input back. */
static gpgpu_status sort_arrays(gpgpu_context *ctx, MPI_Comm comm, gpgpu_array *keys,
                                gpgpu_array *values, unsigned flags, int pairs, const char *func)
{
    gpgpu_status pre = GPGPU_SUCCESS;
    GPGPU__MPI_REQUIRE(pre, ctx != NULL, func, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(pre, keys != NULL, func, "%s", "keys is NULL; pass an array");
    GPGPU__MPI_REQUIRE(pre, !pairs || values != NULL, func, "%s",
                       "values is NULL; pass an array");
    GPGPU__MPI_REQUIRE(pre, !pairs || values != keys, func, "%s",
                       "values is keys; pass two arrays");
    gpgpu_type t = keys ? gpgpu_array_type(keys) : GPGPU_U32;
    size_t n = keys ? gpgpu_array_length(keys) : 0;
    size_t vsize = pairs && values ? gpgpu_type_size(gpgpu_array_type(values)) : 0;
    GPGPU__MPI_REQUIRE(pre, !pairs || !values || gpgpu_array_length(values) == n, func,
                       "values has %zu elements, keys %zu; need the same length",
                       values ? gpgpu_array_length(values) : 0, n);
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, func, GPGPU__MPI_SORT, t, flags,
                                       (int64_t)vsize, 1);
    if (c.comm == MPI_COMM_NULL)
        return st;
    if (c.size == 1 && st == GPGPU_SUCCESS && pre == GPGPU_SUCCESS)
        return pairs ? gpgpu__mpi_local(gpgpu_sort_pairs_array(ctx, keys, values, flags), ctx,
                                        "gpgpu_sort_pairs_array")
                     : gpgpu__mpi_local(gpgpu_sort_array(ctx, keys, flags), ctx,
                                        "gpgpu_sort_array");
    /* Every rank on a device: the device path, where the arrays are. */
    if (dev_agreed(&c, st == GPGPU_SUCCESS && pre == GPGPU_SUCCESS &&
                           dev_wanted(ctx, 1, n, gpgpu_type_size(t) + vsize)))
        return sort_any(ctx, comm, t, NULL, NULL, vsize ? vsize : 4, n, flags, pairs, func, pre,
                        keys, pairs ? values : NULL);
    size_t kbytes = (n * gpgpu_type_size(t) + 63) & ~(size_t)63, bytes = kbytes + n * vsize;
    unsigned char *h = NULL;
    int kept = pre == GPGPU_SUCCESS && n > 0 && gpgpu__mpi_keep_take();
    if (pre == GPGPU_SUCCESS && n > 0 &&
        (h = kept ? gpgpu__mpi_keep(2, 2 * bytes) : malloc(2 * bytes)) == NULL)
        pre = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes",
                              func, 2 * bytes);
    unsigned char *hv = h && pairs ? h + kbytes : NULL, *orig = h ? h + bytes : NULL;
    if (pre == GPGPU_SUCCESS && n > 0)
        pre = gpgpu__mpi_local(gpgpu_array_read(ctx, keys, 0, h, n), ctx, "gpgpu_array_read");
    if (pre == GPGPU_SUCCESS && n > 0 && pairs)
        pre = gpgpu__mpi_local(gpgpu_array_read(ctx, values, 0, hv, n), ctx,
                               "gpgpu_array_read");
    if (pre == GPGPU_SUCCESS && n > 0)
        memcpy(orig, h, bytes);
    st = sort_any(ctx, comm, t, h, hv, vsize ? vsize : 4, n, flags, pairs, func, pre, NULL,
                  NULL);
    if (st != GPGPU_SUCCESS) {
        if (kept)
            gpgpu__mpi_keep_give();
        else
            free(h);
        return st;
    }
    gpgpu_status w = GPGPU_SUCCESS;
    if (n > 0)
        w = gpgpu__mpi_local(gpgpu_array_write(ctx, keys, 0, h, n), ctx, "gpgpu_array_write");
    if (w == GPGPU_SUCCESS && n > 0 && pairs)
        w = gpgpu__mpi_local(gpgpu_array_write(ctx, values, 0, hv, n), ctx,
                             "gpgpu_array_write");
    st = gpgpu__mpi_agree(&c, w);
    if (st != GPGPU_SUCCESS && n > 0) {  /* every rank puts its input back */
        gpgpu_array_write(ctx, keys, 0, orig, n);
        if (pairs)
            gpgpu_array_write(ctx, values, 0, orig + kbytes, n);
    }
    if (kept)
        gpgpu__mpi_keep_give();
    else
        free(h);
    return st;
}

gpgpu_status gpgpu_mpi_sort_array(gpgpu_context *ctx, MPI_Comm comm, gpgpu_array *keys,
                                  unsigned flags)
{
    return sort_arrays(ctx, comm, keys, NULL, flags, 0, __func__);
}

gpgpu_status gpgpu_mpi_sort_pairs_array(gpgpu_context *ctx, MPI_Comm comm, gpgpu_array *keys,
                                        gpgpu_array *values, unsigned flags)
{
    return sort_arrays(ctx, comm, keys, values, flags, 1, __func__);
}
