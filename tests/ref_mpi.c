/* ref_mpi.c - see ref_mpi.h. Deliberately naive: loops and comparisons by
   value class, no bit tricks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ref_mpi.h"

static long double get(gpgpu_type t, const void *p, size_t i)
{
    switch (t) {
    case GPGPU_I32: return ((const int32_t *)p)[i];
    case GPGPU_U32: return ((const uint32_t *)p)[i];
    case GPGPU_F32: return ((const float *)p)[i];
    case GPGPU_I64: return ((const int64_t *)p)[i];
    case GPGPU_U64: return ((const uint64_t *)p)[i];
    case GPGPU_F64: return ((const double *)p)[i];
    }
    return 0;
}

static int is_float(gpgpu_type t)
{
    return t == GPGPU_F32 || t == GPGPU_F64;
}

/* a = a op b on element slots, integer sums wrapping. */
static void op_into(gpgpu_type t, gpgpu_op op, void *a, size_t i, const void *b, size_t j)
{
#define OPS(T, U)                                                                     \
    {                                                                                 \
        T *x = (T *)a + i, y = ((const T *)b)[j];                                     \
        if (op == GPGPU_SUM)                                                          \
            *x = (T)((U)*x + (U)y);                                                   \
        else if (op == GPGPU_MIN)                                                     \
            *x = y < *x ? y : *x;                                                     \
        else                                                                          \
            *x = y > *x ? y : *x;                                                     \
        break;                                                                        \
    }
#define FOPS(T)                                                                       \
    {                                                                                 \
        T *x = (T *)a + i, y = ((const T *)b)[j];                                     \
        if (op == GPGPU_SUM)                                                          \
            *x = *x + y;                                                              \
        else if (isnan(*x) || (!isnan(y) && (op == GPGPU_MIN ? y < *x : y > *x)))     \
            *x = y;                                                                   \
        break;                                                                        \
    }
    switch (t) {
    case GPGPU_I32: OPS(int32_t, uint32_t)
    case GPGPU_U32: OPS(uint32_t, uint32_t)
    case GPGPU_I64: OPS(int64_t, uint64_t)
    case GPGPU_U64: OPS(uint64_t, uint64_t)
    case GPGPU_F32: FOPS(float)
    case GPGPU_F64: FOPS(double)
    }
}

static void identity(gpgpu_type t, gpgpu_op op, void *out)
{
    union { int32_t i32; uint32_t u32; float f32; int64_t i64; uint64_t u64; double f64; } v;
    switch (t) {
    case GPGPU_I32: v.i32 = op == GPGPU_SUM ? 0 : op == GPGPU_MIN ? INT32_MAX : INT32_MIN; break;
    case GPGPU_U32: v.u32 = op == GPGPU_MIN ? UINT32_MAX : 0; break;
    case GPGPU_I64: v.i64 = op == GPGPU_SUM ? 0 : op == GPGPU_MIN ? INT64_MAX : INT64_MIN; break;
    case GPGPU_U64: v.u64 = op == GPGPU_MIN ? UINT64_MAX : 0; break;
    case GPGPU_F32: v.f32 = op == GPGPU_SUM ? 0.0f : op == GPGPU_MIN ? INFINITY : -INFINITY; break;
    case GPGPU_F64: v.f64 = op == GPGPU_SUM ? 0.0 : op == GPGPU_MIN ? INFINITY : -INFINITY; break;
    }
    memcpy(out, &v, gpgpu_type_size(t));
}

void ref_mpi_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *out)
{
    identity(t, op, out);
    for (size_t i = 0; i < n; i++)
        op_into(t, op, out, 0, in, i);
}

void ref_mpi_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in, void *out,
                  size_t n)
{
    size_t s = gpgpu_type_size(t);
    unsigned char acc[8];
    identity(t, op, acc);
    for (size_t i = 0; i < n; i++) {
        if (kind == GPGPU_EXCLUSIVE)
            memcpy((unsigned char *)out + i * s, acc, s);
        op_into(t, op, acc, 0, in, i);
        if (kind == GPGPU_INCLUSIVE)
            memcpy((unsigned char *)out + i * s, acc, s);
    }
}

void ref_mpi_histogram(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                       double hi, uint64_t *bins)
{
    memset(bins, 0, nbins * sizeof *bins);
    for (size_t i = 0; i < n; i++) {
        long double x = get(t, in, i);
        if (!(x >= lo && x < hi))
            continue;
        size_t b;
        if (t == GPGPU_F32)
            b = (size_t)(((float)x - (float)lo) * ((float)nbins / ((float)hi - (float)lo)));
        else if (t == GPGPU_F64)
            b = (size_t)(((double)x - lo) * ((double)nbins / (hi - lo)));
        else
            b = (size_t)((x - ceill(lo)) * nbins / (ceill(hi) - ceill(lo)));
        bins[b < nbins ? b : nbins - 1]++;
    }
}

/* totalOrder by value class: -NaN, negatives, -0, +0, positives, +NaN;
   NaNs of one sign by payload. */
static int total_cmp(gpgpu_type t, const void *keys, size_t i, size_t j)
{
    long double a = get(t, keys, i), b = get(t, keys, j);
    if (!is_float(t))
        return a < b ? -1 : a > b;
    int sa = signbit(a) != 0, sb = signbit(b) != 0;
    if (sa != sb)
        return sa ? -1 : 1;
    if (isnan(a) || isnan(b)) {
        if (!isnan(a) || !isnan(b))  /* a NaN is beyond every number of its sign */
            return (isnan(a) ? 1 : -1) * (sa ? -1 : 1);
        uint64_t pa = 0, pb = 0;
        size_t s = gpgpu_type_size(t);
        memcpy(&pa, (const unsigned char *)keys + i * s, s);
        memcpy(&pb, (const unsigned char *)keys + j * s, s);
        return (pa < pb ? -1 : pa > pb) * (sa ? -1 : 1);
    }
    return a < b ? -1 : a > b;
}

static const void *sort_keys;
static gpgpu_type sort_type;
static int sort_desc;

static int cmp_perm(const void *pa, const void *pb)
{
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    int c = total_cmp(sort_type, sort_keys, i, j);
    if (sort_desc)
        c = -c;
    return c != 0 ? c : (i < j ? -1 : i > j);  /* ties: original order */
}

void ref_mpi_sort_order(gpgpu_type t, const void *keys, size_t n, int descending,
                        size_t *perm)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    sort_keys = keys;
    sort_type = t;
    sort_desc = descending;
    qsort(perm, n, sizeof *perm, cmp_perm);
}

static double elem(gpgpu_type t, const void *a, size_t i)
{
    switch (t) {
    case GPGPU_I32: return (double)((const int32_t *)a)[i];
    case GPGPU_U32: return (double)((const uint32_t *)a)[i];
    case GPGPU_F32: return (double)((const float *)a)[i];
    case GPGPU_I64: return (double)((const int64_t *)a)[i];
    case GPGPU_U64: return (double)((const uint64_t *)a)[i];
    case GPGPU_F64: return ((const double *)a)[i];
    }
    return 0;
}

void ref_mpi_quantiles(gpgpu_type t, const void *in, size_t n, const double *q, size_t nq,
                       double *out)
{
    size_t *perm = malloc(n * sizeof *perm);
    int nan = 0;
    ref_mpi_sort_order(t, in, n, 0, perm);
    for (size_t i = 0; i < n; i++)
        nan |= isnan(elem(t, in, i));
    for (size_t j = 0; j < nq; j++) {
        double h = (double)(n - 1) * q[j], fl = floor(h), g = h - fl;
        size_t i = (size_t)fl;
        double a = elem(t, in, perm[i]);
        if (nan || g == 0) {
            out[j] = nan ? NAN : a;
            continue;
        }
        volatile double d = elem(t, in, perm[i + 1]) - a; /* no fused multiply-add */
        volatile double e = g * d;
        out[j] = a + e;
    }
    free(perm);
}
