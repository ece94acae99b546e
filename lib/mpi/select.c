/*
 * select.c - gpgpu_mpi_top_k and gpgpu_mpi_quantiles, without gathering
 * the array.
 *
 * top_k: each rank takes its own top min(k, n) with gpgpu_top_k; one
 * MPI_Allgather of the counts and one of the candidates (at most k per
 * rank) give every rank the same list, which it orders by (key, global
 * index) and cuts at k. The global k-th element is among them: each of the
 * global top k is in its own rank's top k.
 *
 * quantiles: each rank sorts a copy of its part (gpgpu_sort); the key of
 * each rank wanted is then found bit by bit from the top, a distributed
 * radix select with one-bit digits: for a candidate prefix every rank
 * counts its keys below it by a binary search, and one MPI_Allreduce per
 * bit (for all ranks wanted at once) adds the counts up. 32 or 64 small
 * allreduces; only counts travel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static uint64_t word(const void *a, size_t i, size_t es)
{
    return es == 4 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}

/* ---- top_k ------------------------------------------------------------------- */

typedef struct {
    uint64_t key, index, bits;
} cand;

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Every rank's count and first global index from the allgathered n's. */
static void offsets(const uint64_t *ns, int size, uint64_t k, int *cnt, uint64_t *first,
                    uint64_t *total)
{
    uint64_t sum = 0;
    for (int r = 0; r < size; r++) {
        first[r] = sum;
        sum += ns[r];
        cnt[r] = (int)(ns[r] < k ? ns[r] : k);
    }
    *total = sum;
}

/* The merge once every rank's candidates are in vals / idx (cnt[r] from
   rank r, in rank order): the first k by (key, global index). */
static void merge(gpgpu_type t, unsigned flags, const void *vals, const uint64_t *idx,
                  const int *cnt, const uint64_t *first, int size, size_t k, cand *all,
                  void *values, uint64_t *indices)
{
    const size_t es = gpgpu_type_size(t);
    gpgpu__mpi_key_order o = gpgpu__mpi_key_order_of(t, flags & GPGPU_DESCENDING);
    size_t m = 0;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < cnt[r]; i++, m++) {
            all[m].bits = word(vals, m, es);
            all[m].key = gpgpu__mpi_ordered(&o, all[m].bits);
            all[m].index = first[r] + idx[m];
        }
    qsort(all, m, sizeof *all, cand_cmp);
    for (size_t i = 0; i < k; i++) {
        if (values && es == 4)
            ((uint32_t *)values)[i] = (uint32_t)all[i].bits;
        else if (values)
            ((uint64_t *)values)[i] = all[i].bits;
        if (indices)
            indices[i] = all[i].index;
    }
}

gpgpu_status gpgpu_mpi_top_k(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, const void *in,
                             size_t n, size_t k, unsigned flags, void *values,
                             uint64_t *indices)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, __func__, GPGPU__MPI_TOP_K, t, (int64_t)k,
                                       flags, 0);
    if (c.comm == MPI_COMM_NULL)
        return st;
    const char *f = __func__;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, (unsigned)t <= GPGPU_F64, f, "t is %d; not a gpgpu_type", (int)t);
    GPGPU__MPI_REQUIRE(st, (flags & ~(unsigned)GPGPU_DESCENDING) == 0, f,
                       "flags is 0x%x; only GPGPU_DESCENDING may be set", flags);
    GPGPU__MPI_REQUIRE(st, k == 0 || values || indices, f,
                       "values and indices are both NULL with k = %zu; at least one is needed",
                       k);
    GPGPU__MPI_REQUIRE(st, k <= (size_t)INT32_MAX / 8 / (size_t)c.size, f,
                       "k is %zu; at most %zu with %d ranks", k,
                       (size_t)INT32_MAX / 8 / (size_t)c.size, c.size);
    const size_t es = st == GPGPU_SUCCESS ? gpgpu_type_size(t) : 4, kk = st ? 0 : k;
    uint64_t mine = n, total = 0;
    uint64_t *ns = malloc(c.size * sizeof *ns), *first = malloc(c.size * sizeof *first);
    int *cnt = malloc(2 * c.size * sizeof *cnt), *displ = cnt ? cnt + c.size : NULL;
    void *lv = malloc(kk * es + 1), *allv = malloc((size_t)c.size * kk * es + 1);
    uint64_t *li = malloc(kk * 8 + 1), *alli = malloc((size_t)c.size * kk * 8 + 1);
    cand *all = malloc((size_t)c.size * kk * sizeof *all + 1);
    if (st == GPGPU_SUCCESS && (!ns || !first || !cnt || !lv || !allv || !li || !alli || !all))
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu candidates",
                             f, (size_t)c.size * k);
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_error(MPI_Allgather(&mine, 1, MPI_UINT64_T, ns, 1, MPI_UINT64_T, c.comm),
                              "MPI_Allgather");
    if (st == GPGPU_SUCCESS) {
        offsets(ns, c.size, k, cnt, first, &total);
        if (k > total)
            st = gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                                 "%s: k is %zu; at most the global n = %llu", f, k,
                                 (unsigned long long)total);
    }
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_top_k(ctx, t, in, n, cnt[c.rank], flags, lv, li), ctx,
                              "gpgpu_top_k");
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS && k > 0) {
        int sum = 0;
        for (int r = 0; r < c.size; r++) {
            displ[r] = sum;
            sum += cnt[r];
        }
        int err = MPI_Allgatherv(li, cnt[c.rank], MPI_UINT64_T, alli, cnt, displ, MPI_UINT64_T,
                             c.comm);
        if (err == MPI_SUCCESS)
            err = MPI_Allgatherv(lv, cnt[c.rank], gpgpu__mpi_elem_type(es), allv, cnt, displ,
                                 gpgpu__mpi_elem_type(es), c.comm);
        st = gpgpu__mpi_error(err, "MPI_Allgatherv");
    }
    if (st == GPGPU_SUCCESS && k > 0)
        merge(t, flags, allv, alli, cnt, first, c.size, k, all, values, indices);
    free(ns);
    free(first);
    free(cnt);
    free(lv);
    free(allv);
    free(li);
    free(alli);
    free(all);
    return st;
}

/* ---- quantiles ------------------------------------------------------------------ */

/* Keys of the sorted part below key u: a binary search. */
static uint64_t count_below(const void *sorted, size_t n, size_t es,
                            const gpgpu__mpi_key_order *o, uint64_t u)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gpgpu__mpi_ordered(o, word(sorted, mid, es)) < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The bits of the element whose key is u (the inverse of the order). */
static uint64_t unordered(const gpgpu__mpi_key_order *o, uint64_t u)
{
    uint64_t w = u ^ o->flip;
    return (w >> o->shift) ? w ^ o->neg : w;
}

static double as_double(gpgpu_type t, uint64_t w)
{
    switch (t) {
    case GPGPU_I32: return (double)(int32_t)(uint32_t)w;
    case GPGPU_U32: return (double)(uint32_t)w;
    case GPGPU_F32: {
        uint32_t b = (uint32_t)w;
        float x;
        memcpy(&x, &b, 4);
        return (double)x;
    }
    case GPGPU_I64: return (double)(int64_t)w;
    case GPGPU_U64: return (double)w;
    case GPGPU_F64: {
        double x;
        memcpy(&x, &w, 8);
        return x;
    }
    }
    return 0;
}

/* NumPy's linear rule for q of total elements: x[*i], and x[*i + 1] when
   *g != 0. */
static void rule(double q, uint64_t total, uint64_t *i, double *g)
{
    double h = (double)(total - 1) * q, fl = floor(h);
    *i = (uint64_t)fl;
    *g = h - fl;
}

/* keys[j] = the key of global rank ranks[j], found a bit at a time. */
static int bisect(const gpgpu__mpi_call *c, const void *sorted, size_t n, size_t es,
                  const gpgpu__mpi_key_order *o, const uint64_t *ranks, size_t nr,
                  uint64_t *keys, uint64_t *counts, uint64_t *sums)
{
    for (size_t j = 0; j < nr; j++)
        keys[j] = 0;
    for (int b = (int)es * 8 - 1; b >= 0; b--) {
        for (size_t j = 0; j < nr; j++)
            counts[j] = count_below(sorted, n, es, o, keys[j] | (UINT64_C(1) << b));
        int err = gpgpu__mpi_allreduce_u64(c, counts, sums, nr);
        if (err != MPI_SUCCESS)
            return err;
        /* the key of rank r is the largest u with fewer than r + 1 keys below */
        for (size_t j = 0; j < nr; j++)
            if (sums[j] <= ranks[j])
                keys[j] |= UINT64_C(1) << b;
    }
    return MPI_SUCCESS;
}

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

gpgpu_status gpgpu_mpi_quantiles(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                 const void *in, size_t n, const double *q, size_t nq,
                                 double *out)
{
    uint64_t qsig = 0;
    for (size_t j = 0; q && j < nq; j++)
        qsig = qsig * 1000003u ^ bits_of(q[j]);
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, __func__, GPGPU__MPI_QUANTILES, t,
                                       (int64_t)nq, (int64_t)qsig, 0);
    if (c.comm == MPI_COMM_NULL)
        return st;
    const char *f = __func__;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, (unsigned)t <= GPGPU_F64, f, "t is %d; not a gpgpu_type", (int)t);
    GPGPU__MPI_REQUIRE(st, in != NULL || n == 0, f,
                       "in is NULL with n = %zu; it may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, (q && out) || nq == 0, f,
                       "q or out is NULL with nq = %zu; they may be NULL only when nq is 0",
                       nq);
    for (size_t j = 0; st == GPGPU_SUCCESS && q && j < nq; j++)
        GPGPU__MPI_REQUIRE(st, q[j] >= 0 && q[j] <= 1, f, "q[%zu] is %g; need 0 <= q <= 1", j,
                           q[j]);
    const size_t es = st == GPGPU_SUCCESS ? gpgpu_type_size(t) : 4;
    void *sorted = malloc(n * es + 1);
    uint64_t *ranks = malloc((4 * nq + 2) * sizeof *ranks);
    uint64_t *sums = malloc((4 * nq + 2) * sizeof *sums);
    if (st == GPGPU_SUCCESS && (!sorted || !ranks || !sums))
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "%s: out of memory for %zu elements",
                             f, n);
    /* the second halves (no arithmetic on a null pointer) */
    uint64_t *keys = ranks ? ranks + 2 * nq : NULL, *counts = sums ? sums + 2 * nq : NULL;
    if (st == GPGPU_SUCCESS && n > 0) {
        memcpy(sorted, in, n * es);
        st = gpgpu__mpi_local(gpgpu_sort(ctx, t, sorted, n, 0), ctx, "gpgpu_sort");
    }
    st = gpgpu__mpi_agree(&c, st);
    gpgpu__mpi_key_order o = gpgpu__mpi_key_order_of(t, 0);
    /* the global count and NaNs: a sorted part's NaNs lie at its ends */
    uint64_t mine[2] = {n, 0}, all[2];
    if (st == GPGPU_SUCCESS && n > 0 && (t == GPGPU_F32 || t == GPGPU_F64)) {
        uint64_t ninf = es == 4 ? 0xff800000u : UINT64_C(0xfff0000000000000);
        uint64_t pinf = es == 4 ? 0x7f800000u : UINT64_C(0x7ff0000000000000);
        mine[1] = gpgpu__mpi_ordered(&o, word(sorted, 0, es)) < gpgpu__mpi_ordered(&o, ninf) ||
                  gpgpu__mpi_ordered(&o, word(sorted, n - 1, es)) > gpgpu__mpi_ordered(&o, pinf);
    }
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_error(gpgpu__mpi_allreduce_u64(&c, mine, all, 2), "MPI_Allreduce");
    if (st == GPGPU_SUCCESS && all[0] == 0)
        st = gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                             "%s: the global n is 0; quantiles need at least one element", f);
    size_t nr = 0;
    for (size_t j = 0; st == GPGPU_SUCCESS && j < nq; j++) {
        uint64_t i;
        double g;
        rule(q[j], all[0], &i, &g);
        ranks[nr++] = i;
        ranks[nr++] = g != 0 ? i + 1 : i;
    }
    if (st == GPGPU_SUCCESS && !all[1] && nr > 0)
        st = gpgpu__mpi_error(bisect(&c, sorted, n, es, &o, ranks, nr, keys, counts, sums),
                              "MPI_Allreduce");
    for (size_t j = 0; st == GPGPU_SUCCESS && j < nq; j++) {
        uint64_t i;
        double g;
        rule(q[j], all[0], &i, &g);
        if (all[1]) {
            out[j] = NAN;
            continue;
        }
        double a = as_double(t, unordered(&o, keys[2 * j]));
        double b = as_double(t, unordered(&o, keys[2 * j + 1]));
        volatile double d = b - a; /* each step rounded: no fused multiply-add */
        volatile double e = g * d;
        out[j] = g == 0 ? a : a + e;
    }
    free(sorted);
    free(ranks);
    free(sums);
    return st;
}
