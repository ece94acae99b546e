/*
 * sort.c - gpgpu_mpi_sort and gpgpu_mpi_sort_pairs: a sample sort.
 *
 *  1. Each rank sorts a copy of its part with gpgpu_sort (stable).
 *  2. Each rank takes regular samples of its sorted part; one MPI_Allgather
 *     gives every rank all samples and all counts, and every rank picks the
 *     same size - 1 splitters, weighting each sample by the span it stands
 *     for, so that uneven parts still give even buckets.
 *  3. MPI_Alltoallv sends bucket d to rank d; rank d sorts what arrived
 *     (the runs arrive in rank order, and gpgpu_sort is stable).
 *  4. A second MPI_Alltoallv moves the sorted buckets back to the caller's
 *     buffers, each rank getting as many elements as it passed in.
 *
 * Stability across ranks: an element is ordered by (sort key, rank, position
 * in the rank's sorted part), a strict order that is the stable global order
 * (equal keys keep their ranks' order, and within a rank the stable local
 * sort kept theirs). Splitters are such triples, so runs of equal keys may be
 * split between buckets without losing their order.
 *
 * Nothing the caller owns changes until the last step, which starts only
 * after every rank has agreed that everything before it succeeded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as MPI_UINT64_T");

enum { SAMPLES = 64 };  /* samples per rank: plenty for balance, tiny to move */

typedef struct {
    uint64_t key;       /* gpgpu__mpi_sort_key */
    uint64_t pos;       /* in the rank's sorted part */
} sample;

/* What each rank tells every other after its local sort. */
typedef struct {
    uint64_t n, nsamples;
    sample s[SAMPLES];
} rank_info;

typedef struct {
    uint64_t key, pos, weight;
    int rank, inf;      /* inf: beyond every element (an unused splitter) */
} splitter;

typedef struct {
    gpgpu__mpi_call c;
    gpgpu_context *ctx;
    gpgpu_type t;
    unsigned flags;
    int pairs;
    size_t esize, vsize, n, m;  /* m: elements in this rank's bucket */
    void *keys, *values;        /* the caller's */
    void *k1, *v1;              /* the sorted copy of the rank's part */
    void *k2, *v2;              /* the rank's bucket */
    rank_info *info;            /* every rank's, then this rank's at [size] */
    splitter *cand;             /* size * SAMPLES samples, sorted */
    splitter *split;            /* size - 1 splitters */
    size_t *arrays;             /* the layouts below, 6 * size */
    gpgpu__mpi_layout send, recv;
    uint64_t *counts, *bucket;  /* every rank's n and m */
    gpgpu__mpi_scratch scratch;
} sorter;

static gpgpu_status local_sort(sorter *s, void *k, void *v, size_t n)
{
    if (s->pairs)
        return gpgpu__mpi_local(gpgpu_sort_pairs(s->ctx, s->t, k, v, s->vsize, n, s->flags),
                                s->ctx, "gpgpu_sort_pairs");
    return gpgpu__mpi_local(gpgpu_sort(s->ctx, s->t, k, n, s->flags), s->ctx, "gpgpu_sort");
}

static void *alloc(gpgpu_status *st, size_t count, size_t size)
{
    void *p = NULL;
    if (*st == GPGPU_SUCCESS && count > 0 && (p = calloc(count, size)) == NULL)
        *st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu x %zu bytes",
                              count, size);
    return p;
}

static void release(sorter *s)
{
    free(s->k1);
    free(s->v1);
    free(s->k2);
    free(s->v2);
    free(s->info);
    free(s->cand);
    free(s->split);
    free(s->arrays);
    gpgpu__mpi_scratch_free(&s->scratch);
}

/* Step 1, and all the memory whose size this rank alone knows. */
static gpgpu_status sort_part(sorter *s)
{
    gpgpu_status st = GPGPU_SUCCESS;
    size_t p = (size_t)s->c.size;
    s->k1 = alloc(&st, s->n, s->esize);
    if (s->pairs)
        s->v1 = alloc(&st, s->n, s->vsize);
    s->info = alloc(&st, p + 1, sizeof *s->info);
    s->cand = alloc(&st, p * SAMPLES, sizeof *s->cand);
    s->split = alloc(&st, p, sizeof *s->split);
    s->arrays = alloc(&st, 6 * p, sizeof *s->arrays);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_scratch_alloc(&s->scratch, s->c.size);
    if (st != GPGPU_SUCCESS)
        return st;
    s->send = (gpgpu__mpi_layout){s->arrays, s->arrays + p};
    s->recv = (gpgpu__mpi_layout){s->arrays + 2 * p, s->arrays + 3 * p};
    s->counts = s->arrays + 4 * p;
    s->bucket = s->arrays + 5 * p;
    if (s->n == 0)
        return GPGPU_SUCCESS;
    memcpy(s->k1, s->keys, s->n * s->esize);
    if (s->pairs)
        memcpy(s->v1, s->values, s->n * s->vsize);
    return local_sort(s, s->k1, s->v1, s->n);
}

/* Samples at the starts of SAMPLES equal spans of the sorted part. */
static void take_samples(sorter *s, rank_info *mine)
{
    size_t c = s->n < SAMPLES ? s->n : SAMPLES;
    mine->n = s->n;
    mine->nsamples = c;
    for (size_t j = 0; j < c; j++) {
        size_t pos = j * (s->n / c) + j * (s->n % c) / c;
        mine->s[j] = (sample){gpgpu__mpi_sort_key(s->t, s->flags & GPGPU_DESCENDING, s->k1, pos),
                              pos};
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

/* Every rank's samples, sorted, each weighted by the span it starts. */
static size_t gather_candidates(sorter *s)
{
    size_t k = 0;
    for (int r = 0; r < s->c.size; r++) {
        const rank_info *ri = &s->info[r];
        for (size_t j = 0; j < ri->nsamples; j++) {
            uint64_t end = j + 1 < ri->nsamples ? ri->s[j + 1].pos : ri->n;
            s->cand[k++] = (splitter){ri->s[j].key, ri->s[j].pos, end - ri->s[j].pos, r, 0};
        }
    }
    qsort(s->cand, k, sizeof *s->cand, cmp_splitter);
    return k;
}

/* Splitter i (1 <= i < size) is the first sample with about i/size of all
   elements before it. */
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
}

/* The first position of the sorted part at or after splitter sp. */
static size_t lower_bound(const sorter *s, const splitter *sp, size_t lo)
{
    if (sp->inf)
        return s->n;
    size_t hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t key = gpgpu__mpi_sort_key(s->t, s->flags & GPGPU_DESCENDING, s->k1, mid);
        int before = key < sp->key ||
                     (key == sp->key && (s->c.rank < sp->rank ||
                                         (s->c.rank == sp->rank && mid < sp->pos)));
        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Step 3's layout: bucket d of the sorted part goes to rank d. */
static gpgpu_status plan_buckets(sorter *s)
{
    size_t p = (size_t)s->c.size, start = 0;
    for (size_t d = 0; d < p; d++) {
        size_t end = d + 1 < p ? lower_bound(s, &s->split[d], start) : s->n;
        s->send.count[d] = end - start;
        s->send.displ[d] = start;
        start = end;
    }
    gpgpu_status st = gpgpu__mpi_error(MPI_Alltoall(s->send.count, 1, MPI_UINT64_T,
                                                    s->recv.count, 1, MPI_UINT64_T, s->c.comm),
                                       "MPI_Alltoall");
    s->m = 0;
    for (size_t r = 0; r < p; r++) {
        s->recv.displ[r] = s->m;
        s->m += s->recv.count[r];
    }
    s->k2 = alloc(&st, s->m, s->esize);
    if (s->pairs)
        s->v2 = alloc(&st, s->m, s->vsize);
    return st;
}

static gpgpu_status exchange(sorter *s, int big, const void *k, const void *v, void *kout,
                             void *vout)
{
    gpgpu_status st = gpgpu__mpi_error(
        gpgpu__mpi_alltoallv(&s->c, &s->scratch, big, s->esize, k, &s->send, kout, &s->recv),
        "MPI_Alltoallv");
    if (st == GPGPU_SUCCESS && s->pairs)
        st = gpgpu__mpi_error(gpgpu__mpi_alltoallv(&s->c, &s->scratch, big, s->vsize, v,
                                                   &s->send, vout, &s->recv),
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

static gpgpu_status distribute(sorter *s)
{
    rank_info *mine = &s->info[s->c.size];
    take_samples(s, mine);
    gpgpu_status st = gpgpu__mpi_error(
        MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, s->info, (int)sizeof *mine, MPI_BYTE,
                      s->c.comm),
        "MPI_Allgather");
    if (st != GPGPU_SUCCESS)
        return st;
    uint64_t total = 0;
    for (int r = 0; r < s->c.size; r++)
        total += s->counts[r] = s->info[r].n;
    if (total == 0)
        return GPGPU_SUCCESS;
    int big = total > gpgpu__mpi_max_count();
    choose_splitters(s, total);
    st = gpgpu__mpi_agree(&s->c, plan_buckets(s));
    if (st == GPGPU_SUCCESS)
        st = exchange(s, big, s->k1, s->v1, s->k2, s->v2);
    if (st == GPGPU_SUCCESS && s->m > 0)
        st = local_sort(s, s->k2, s->v2, s->m);
    st = gpgpu__mpi_agree(&s->c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_error(MPI_Allgather(&s->m, 1, MPI_UINT64_T, s->bucket, 1, MPI_UINT64_T,
                                            s->c.comm),
                              "MPI_Allgather");
    if (st != GPGPU_SUCCESS)
        return st;
    plan_rebalance(s);
    return exchange(s, big, s->k2, s->v2, s->keys, s->values);
}

static gpgpu_status sort_any(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, void *keys,
                             void *values, size_t vsize, size_t n, unsigned flags, int pairs,
                             const char *func)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, func, GPGPU__MPI_SORT, t, flags,
                                       pairs ? (int64_t)vsize : 0, 0);
    if (c.comm == MPI_COMM_NULL)
        return st;
    sorter s = {.c = c, .ctx = ctx, .t = t, .flags = flags, .pairs = pairs,
                 .esize = gpgpu_type_size(t), .vsize = vsize, .n = n, .keys = keys,
                 .values = values};
    GPGPU__MPI_REQUIRE(st, ctx != NULL, func, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, s.esize != 0, func, "%s is %d; not a gpgpu_type",
                       pairs ? "key_type" : "t", (int)t);
    GPGPU__MPI_REQUIRE(st, keys != NULL || n == 0, func,
                       "keys is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, !pairs || values != NULL || n == 0, func,
                       "values is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, !pairs || vsize == 4 || vsize == 8, func,
                       "value_size is %zu; need 4 or 8", vsize);
    GPGPU__MPI_REQUIRE(st, n <= SIZE_MAX / 8, func, "n is %zu; at most %zu", n, SIZE_MAX / 8);
    if (st == GPGPU_SUCCESS && s.c.size == 1)  /* one rank: the local sort is the answer */
        return local_sort(&s, keys, values, n);
    if (st == GPGPU_SUCCESS)
        st = sort_part(&s);
    st = gpgpu__mpi_agree(&s.c, st);
    if (st == GPGPU_SUCCESS)
        st = distribute(&s);
    release(&s);
    return st;
}

gpgpu_status gpgpu_mpi_sort(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, void *keys,
                            size_t n, unsigned flags)
{
    return sort_any(ctx, comm, t, keys, NULL, 0, n, flags, 0, __func__);
}

gpgpu_status gpgpu_mpi_sort_pairs(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type key_type,
                                  void *keys, void *values, size_t value_size, size_t n,
                                  unsigned flags)
{
    return sort_any(ctx, comm, key_type, keys, values, value_size, n, flags, 1, __func__);
}
