/* host.c - the plain-C fallback of reduce and scan, used when there is no
   OpenCL device ("host"). Sort and histogram have theirs in host_sort.c and
   host_histogram.c. Same semantics as the kernels: integer sums wrap, float
   MIN/MAX follow fmin/fmax.
   Past HOST_PART elements a reduce is cut into parts of HOST_PART that the
   host's threads (pool.c) take in any order; parts are combined in index
   order, so float results depend on n alone, never on the thread count.
   Integer scans chain blocks across the threads (host_scan); float scans
   run in one fixed order on the calling thread. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>

#include "host/host.h"

/* Integer sums wrap: add signed types as unsigned. */
#define ADD_WRAP(T, U, a, b) ((T)((U)(a) + (U)(b)))

#define DEFINE_OPS(name, T, U, LOWEST, HIGHEST, MINF, MAXF, ADD)      \
    static T name##_combine(gpgpu_op op, T a, T b)                     \
    {                                                                  \
        switch (op) {                                                  \
        case GPGPU_MIN:                                                \
            return MINF(a, b);                                         \
        case GPGPU_MAX:                                                \
            return MAXF(a, b);                                         \
        default:                                                       \
            return ADD(T, U, a, b);                                    \
        }                                                              \
    }                                                                  \
    static T name##_identity(gpgpu_op op)                              \
    {                                                                  \
        return op == GPGPU_MIN ? HIGHEST : op == GPGPU_MAX ? LOWEST : (T)0; \
    }

#define IMIN(a, b) ((b) < (a) ? (b) : (a))
#define IMAX(a, b) ((b) > (a) ? (b) : (a))
#define FADD(T, U, a, b) ((a) + (b))

DEFINE_OPS(i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(u32, uint32_t, uint32_t, 0, UINT32_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(i64, int64_t, uint64_t, INT64_MIN, INT64_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(u64, uint64_t, uint64_t, 0, UINT64_MAX, IMIN, IMAX, ADD_WRAP)
DEFINE_OPS(f32, float, float, -INFINITY, INFINITY, fminf, fmaxf, FADD)
DEFINE_OPS(f64, double, double, -INFINITY, INFINITY, fmin, fmax, FADD)

/* M(name, C type) for an integer t, F(name, C type) for a float one. */
#define BY_TYPE(t, M, F)                                  \
    switch (t) {                                          \
    case GPGPU_I32: M(i32, int32_t) break;                \
    case GPGPU_U32: M(u32, uint32_t) break;               \
    case GPGPU_F32: F(f32, float) break;                  \
    case GPGPU_I64: M(i64, int64_t) break;                \
    case GPGPU_U64: M(u64, uint64_t) break;               \
    case GPGPU_F64: F(f64, double) break;                 \
    }

/* LOOP(name, T, operator, inclusive) with the operator and the kind as
   constants: a scan loop for op and kind. */
#define BY_OP_KIND(LOOP, name, T)                                  \
    switch (op) {                                                  \
    case GPGPU_MIN: BY_KIND(LOOP, name, T, GPGPU_MIN) break;       \
    case GPGPU_MAX: BY_KIND(LOOP, name, T, GPGPU_MAX) break;       \
    default: BY_KIND(LOOP, name, T, GPGPU_SUM) break;              \
    }
#define BY_KIND(LOOP, name, T, OPC)                                \
    if (kind == GPGPU_INCLUSIVE)                                   \
        LOOP(name, T, OPC, 1)                                      \
    else                                                           \
        LOOP(name, T, OPC, 0)

/* The loops take op as a constant (one loop per operator), so that the
   combine folds and the compiler can vectorise the integer ones: a switch
   per element ran at a third of a plain C loop's speed. */
#define REDUCE_LOOP(name, T, OPC)                         \
    {                                                     \
        const T *x = in;                                  \
        T acc = name##_identity(OPC);                     \
        for (size_t i = 0; i < n; i++)                    \
            acc = name##_combine(OPC, acc, x[i]);         \
        memcpy(result, &acc, sizeof acc);                 \
    }

#define REDUCE(name, T)                                   \
    switch (op) {                                         \
    case GPGPU_MIN: REDUCE_LOOP(name, T, GPGPU_MIN) break; \
    case GPGPU_MAX: REDUCE_LOOP(name, T, GPGPU_MAX) break; \
    default: REDUCE_LOOP(name, T, GPGPU_SUM) break;       \
    }

/* Sums in double of four lanes, each element i to lane i % 4, the lanes
   then added as (l0 + l1) + (l2 + l3): four independent chains of adds
   keep the adder busy where one chain waits out its latency on every
   element. A fixed order: the bits depend on n alone. */
#define SUM_LANES(T)                                                       \
    static double sum4_##T(const T *x, size_t n)                           \
    {                                                                      \
        double l0 = 0, l1 = 0, l2 = 0, l3 = 0;                             \
        size_t i = 0;                                                      \
        for (; i + 4 <= n; i += 4) {                                       \
            l0 += x[i];                                                    \
            l1 += x[i + 1];                                                \
            l2 += x[i + 2];                                                \
            l3 += x[i + 3];                                                \
        }                                                                  \
        for (; i < n; i++)                                                 \
            l0 += x[i];                                                    \
        return (l0 + l1) + (l2 + l3);                                      \
    }
SUM_LANES(float)
SUM_LANES(double)

/* Pairwise sum: error grows with log n instead of n, in a fixed order. */
static double sum_f64(const double *x, size_t n)
{
    if (n <= 256)
        return sum4_double(x, n);
    return sum_f64(x, n / 2) + sum_f64(x + n / 2, n - n / 2);
}

enum { HOST_PART = 1 << 18 };

/* Integer sums in vectors of four accumulators: gcc -O2 (12) leaves a loop
   of unknown length scalar, an add an element, where the vectors add 16
   (SSE2) or 32 (AVX2) a step; the wrapping sums are the same bits in any
   order. (2026-11-27, 2-core EPYC: the u32 reduce took as long as the
   serial loop from 2^10 to 2^16, scalar both.) */
typedef uint32_t vsum_u32x4 __attribute__((vector_size(16)));
typedef uint64_t vsum_u64x2 __attribute__((vector_size(16)));
#define VSUM(name, U, V, ATTR)                                              \
    ATTR static U name(const void *in, size_t n)                            \
    {                                                                       \
        enum { L = sizeof(V) / sizeof(U) };                                 \
        const unsigned char *x = in;                                        \
        V a0 = {0}, a1 = a0, a2 = a0, a3 = a0, v0, v1, v2, v3;              \
        size_t i = 0;                                                       \
        for (; i + 4 * L <= n; i += 4 * L) {                                \
            memcpy(&v0, x + i * sizeof(U), sizeof v0);                      \
            memcpy(&v1, x + (i + L) * sizeof(U), sizeof v1);                \
            memcpy(&v2, x + (i + 2 * L) * sizeof(U), sizeof v2);            \
            memcpy(&v3, x + (i + 3 * L) * sizeof(U), sizeof v3);            \
            a0 += v0;                                                       \
            a1 += v1;                                                       \
            a2 += v2;                                                       \
            a3 += v3;                                                       \
        }                                                                   \
        a0 += a1 + a2 + a3;                                                 \
        U s = 0, e;                                                         \
        for (int k = 0; k < L; k++)                                         \
            s += a0[k];                                                     \
        for (; i < n; i++) {                                                \
            memcpy(&e, x + i * sizeof(U), sizeof e);                        \
            s += e;                                                         \
        }                                                                   \
        return s;                                                           \
    }
VSUM(vsum_u32, uint32_t, vsum_u32x4, )
VSUM(vsum_u64, uint64_t, vsum_u64x2, )
#ifdef GPGPU__AVX2_TARGET
#define VSUM_AVX2 1
typedef uint32_t vsum_u32x8 __attribute__((vector_size(32)));
typedef uint64_t vsum_u64x4 __attribute__((vector_size(32)));
VSUM(vsum_u32_avx2, uint32_t, vsum_u32x8, __attribute__((target("avx2"))))
VSUM(vsum_u64_avx2, uint64_t, vsum_u64x4, __attribute__((target("avx2"))))
#endif

/* The integer sum of in[0 .. n) into result: 1, or 0 for other types and
   operators. */
static int reduce_int_sum(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    if (op != GPGPU_SUM || t == GPGPU_F32 || t == GPGPU_F64)
        return 0;
    const int is64 = gpgpu__type(t)->is_64;
#ifdef VSUM_AVX2
    if (gpgpu__host_avx2()) {
        if (is64) {
            uint64_t s = vsum_u64_avx2(in, n);
            memcpy(result, &s, sizeof s);
        } else {
            uint32_t s = vsum_u32_avx2(in, n);
            memcpy(result, &s, sizeof s);
        }
        return 1;
    }
#endif
    if (is64) {
        uint64_t s = vsum_u64(in, n);
        memcpy(result, &s, sizeof s);
    } else {
        uint32_t s = vsum_u32(in, n);
        memcpy(result, &s, sizeof s);
    }
    return 1;
}

static void reduce_serial(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    if (reduce_int_sum(t, op, in, n, result))
        return;
    if (t == GPGPU_F32 && op == GPGPU_SUM) { /* in double: float sums stay accurate */
        float f = (float)sum4_float(in, n);
        memcpy(result, &f, sizeof f);
        return;
    }
    if (t == GPGPU_F64 && op == GPGPU_SUM) {
        double s = sum_f64(in, n);
        memcpy(result, &s, sizeof s);
        return;
    }
    BY_TYPE(t, REDUCE, REDUCE)
}

typedef struct {
    gpgpu_type t;
    gpgpu_op op;
    const char *in;
    size_t n, size;
    char *part;      /* one element of t per part, or a double (float sums) */
} reduce_job;

/* Float sums keep each part's total in double, as the serial f32 sum does. */
static int double_parts(gpgpu_type t, gpgpu_op op)
{
    return op == GPGPU_SUM && (t == GPGPU_F32 || t == GPGPU_F64);
}

static void reduce_part(void *arg, size_t i)
{
    const reduce_job *j = arg;
    size_t first = i * (size_t)HOST_PART, len = j->n - first < HOST_PART ? j->n - first : HOST_PART;
    const char *x = j->in + first * j->size;
    if (j->t == GPGPU_F32 && j->op == GPGPU_SUM) {
        double s = sum4_float((const float *)x, len);
        memcpy(j->part + i * sizeof s, &s, sizeof s);
    } else if (j->t == GPGPU_F64 && j->op == GPGPU_SUM) {
        double s = sum_f64((const double *)x, len);
        memcpy(j->part + i * sizeof s, &s, sizeof s);
    } else {
        reduce_serial(j->t, j->op, x, len, j->part + i * j->size);
    }
}

/* Runs fn over nparts parts on the host's threads, or in order on the
   calling thread (seq: already inside a gpgpu__parallel part). */
static void run_parts(int seq, size_t nparts, void (*fn)(void *, size_t), void *arg)
{
    if (seq)
        for (size_t i = 0; i < nparts; i++)
            fn(arg, i);
    else
        gpgpu__parallel(nparts, fn, arg);
}

/* ---- float sums in the kernels' combining tree ----------------------------

   kernels/reduce.cl with CHUNKED=1 (the CPU plan), operation for operation:
   work item `gid` of `items` sums its chunk of `per` elements (a multiple of
   4) as four lanes, in blocks of REDUCE_BLOCK whose lane sums are added to
   the running lanes, then the leftover quads and the last few elements; the
   lanes fold as (l0 + l1) + (l2 + l3), plus the leftovers; each group of wg
   items adds its items' values as a tree (tree[l] += tree[l + s] for s =
   wg/2 .. 1). More than one group: the partials are reduced again by one
   group. Every operation is an IEEE add in the same order, so the bits are
   the kernels' (GNU vector types give the lane-wise adds of float4). */
enum { REDUCE_BLOCK = 1024 }; /* reduce.cl's BLOCK */

#define SUM_TREE(T, V)                                                           \
    static T T##_item(const T *x, size_t n, size_t items, size_t gid)            \
    {                                                                            \
        const size_t per = ((n + items - 1) / items + 3) & ~(size_t)3;           \
        const size_t begin = gid * per < n ? gid * per : n;                      \
        const size_t end = n - begin < per ? n : begin + per;                    \
        V acc4 = {0, 0, 0, 0}, v;                                                \
        T acc = 0;                                                               \
        size_t i = begin;                                                        \
        for (; i + REDUCE_BLOCK <= end; i += REDUCE_BLOCK) {                     \
            V block = {0, 0, 0, 0};                                              \
            for (size_t j = 0; j < REDUCE_BLOCK; j += 4) {                       \
                memcpy(&v, x + i + j, sizeof v);                                 \
                block += v;                                                      \
            }                                                                    \
            acc4 += block;                                                       \
        }                                                                        \
        for (; i + 4 <= end; i += 4) {                                           \
            memcpy(&v, x + i, sizeof v);                                         \
            acc4 += v;                                                           \
        }                                                                        \
        for (; i < end; i++)                                                     \
            acc += x[i];                                                         \
        return ((acc4[0] + acc4[1]) + (acc4[2] + acc4[3])) + acc;                \
    }                                                                            \
    /* Group g of a pass of j->groups groups over j->x[0 .. j->n). */            \
    static void T##_group(void *arg, size_t g)                                   \
    {                                                                            \
        const sum_tree_job *j = arg;                                             \
        T tree[GPGPU__SUM_TREE_WG_MAX];                                          \
        for (size_t l = 0; l < j->wg; l++)                                       \
            tree[l] = T##_item(j->x, j->n, j->groups * j->wg, g * j->wg + l);    \
        for (size_t s = j->wg / 2; s > 0; s >>= 1)                               \
            for (size_t l = 0; l < s; l++)                                       \
                tree[l] = tree[l] + tree[l + s];                                 \
        ((T *)j->out)[g] = tree[0];                                              \
    }                                                                            \
    static void T##_sum_tree(const T *x, size_t n, size_t wg, size_t groups,     \
                             T *result)                                          \
    {                                                                            \
        T part[GPGPU__SUM_TREE_GROUPS_MAX];                                      \
        sum_tree_job j = {x, n, groups, wg, groups == 1 ? result : part};        \
        run_parts(n < SUM_TREE_THREADS_FROM, groups, T##_group, &j);             \
        if (groups > 1) {                                                        \
            sum_tree_job last = {part, groups, 1, wg, result};                   \
            T##_group(&last, 0);                                                 \
        }                                                                        \
    }

/* One pass: groups groups of wg items over x[0 .. n), a value each to out. */
typedef struct {
    const void *x;
    size_t n, groups, wg;
    void *out;
} sum_tree_job;

/* From here the groups of the first pass go to the host's threads: 2^18
   floats take about 50 us on one thread, ten times a thread's wake-up. */
enum { SUM_TREE_THREADS_FROM = 1 << 18 };

typedef float gpgpu__v4f __attribute__((vector_size(16)));
typedef double gpgpu__v4d __attribute__((vector_size(32)));
SUM_TREE(float, gpgpu__v4f)
SUM_TREE(double, gpgpu__v4d)

int gpgpu__host_sum_tree(gpgpu_type t, const void *in, size_t n, size_t wg, size_t groups,
                         void *result)
{
    if (wg > GPGPU__SUM_TREE_WG_MAX || groups > GPGPU__SUM_TREE_GROUPS_MAX || (wg & (wg - 1)))
        return 0;
    if (t == GPGPU_F32)
        float_sum_tree(in, n, wg, groups, result);
    else if (t == GPGPU_F64)
        double_sum_tree(in, n, wg, groups, result);
    else
        return 0;
    return 1;
}

static void host_reduce(int seq, gpgpu_type t, gpgpu_op op, const void *in, size_t n,
                        void *result)
{
    size_t size = gpgpu__type(t)->size, nparts = (n + HOST_PART - 1) / HOST_PART;
    /* The parts' results on the stack up to 64 parts: no allocation (and
       no allocator lock) in a call of fewer than 64 * HOST_PART elements. */
    uint64_t on_stack[64];
    char *part = nparts <= 1 ? NULL
                 : nparts <= 64 ? (char *)on_stack : malloc(nparts * 8);
    if (!part) { /* small, or no memory for the parts: one thread */
        reduce_serial(t, op, in, n, result);
        return;
    }
    reduce_job j = {t, op, in, n, size, part};
    run_parts(seq, nparts, reduce_part, &j);
    if (t == GPGPU_F32 && op == GPGPU_SUM) {
        double s = sum_f64((const double *)part, nparts);
        float f = (float)s;
        memcpy(result, &f, sizeof f);
    } else if (double_parts(t, op)) {
        double s = sum_f64((const double *)part, nparts);
        memcpy(result, &s, sizeof s);
    } else {
        reduce_serial(t, op, part, nparts, result);
    }
    if (part != (char *)on_stack)
        free(part);
}

void gpgpu__host_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    host_reduce(0, t, op, in, n, result);
}

void gpgpu__host_reduce_seq(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result)
{
    host_reduce(1, t, op, in, n, result);
}

/* Integer segments in one loop each per type and operator: a call per
   segment cost as much as the work of a short one. */
#define SEG_REDUCE_LOOP(name, T, OPC)                                 \
    {                                                                 \
        const T *x = in;                                              \
        T *o = out;                                                   \
        for (size_t s = s0; s < s1; s++) {                            \
            T acc = name##_identity(OPC);                             \
            for (size_t i = offsets[s]; i < offsets[s + 1]; i++)      \
                acc = name##_combine(OPC, acc, x[i]);                 \
            o[s] = acc;                                               \
        }                                                             \
    }

#define SEG_REDUCE(name, T)                                           \
    switch (op) {                                                     \
    case GPGPU_MIN: SEG_REDUCE_LOOP(name, T, GPGPU_MIN) break;        \
    case GPGPU_MAX: SEG_REDUCE_LOOP(name, T, GPGPU_MAX) break;        \
    default: SEG_REDUCE_LOOP(name, T, GPGPU_SUM) break;               \
    }

/* Segment by segment, each from the identity (in place is fine). */
#define SEG_SCAN_LOOP(name, T, OPC, INCL)                             \
    {                                                                 \
        const T *x = in;                                              \
        T *y = out;                                                   \
        for (size_t s = s0; s < s1; s++) {                            \
            T acc = name##_identity(OPC);                             \
            for (size_t i = offsets[s]; i < offsets[s + 1]; i++) {    \
                T next = name##_combine(OPC, acc, x[i]);              \
                y[i] = INCL ? next : acc;                             \
                acc = next;                                           \
            }                                                         \
        }                                                             \
    }

#define SEG_SCAN(name, T) BY_OP_KIND(SEG_SCAN_LOOP, name, T)

/* M for the integer types (the segment loops); 0 for floats. */
#define BY_INT_TYPE(t, M)                                             \
    switch (t) {                                                      \
    case GPGPU_I32: M(i32, int32_t) return 1;                         \
    case GPGPU_U32: M(u32, uint32_t) return 1;                        \
    case GPGPU_I64: M(i64, int64_t) return 1;                         \
    case GPGPU_U64: M(u64, uint64_t) return 1;                        \
    default: return 0;                                                \
    }

static void scan_serial(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                        void *out, size_t n, const void *init, void *last);

int gpgpu__host_scan_segments(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                              void *out, const size_t *offsets, size_t s0, size_t s1)
{
    /* integer sums: each segment through scan_serial's blocks of
       SCAN_LANES, whose prefixes overlap (a loop an element took as long
       as the serial loop, segments of 1024) */
    if (op == GPGPU_SUM && !gpgpu__type(t)->is_float) {
        const size_t size = gpgpu__type(t)->size;
        for (size_t seg = s0; seg < s1; seg++)
            scan_serial(t, op, kind, (const char *)in + offsets[seg] * size,
                        (char *)out + offsets[seg] * size, offsets[seg + 1] - offsets[seg], NULL,
                        NULL);
        return 1;
    }
    BY_INT_TYPE(t, SEG_SCAN)
}

int gpgpu__host_reduce_segments(gpgpu_type t, gpgpu_op op, const void *in,
                                const size_t *offsets, size_t s0, size_t s1, void *out)
{
    /* integer sums: each segment through the vector sum (reduce_int_sum) */
    if ((op == GPGPU_SUM || op == GPGPU_SUM_EXACT) && !gpgpu__type(t)->is_float) {
        const size_t size = gpgpu__type(t)->size;
        for (size_t seg = s0; seg < s1; seg++)
            reduce_int_sum(t, GPGPU_SUM, (const char *)in + offsets[seg] * size,
                           offsets[seg + 1] - offsets[seg], (char *)out + seg * size);
        return 1;
    }
    BY_INT_TYPE(t, SEG_REDUCE)
}

void gpgpu__identity(gpgpu_type t, gpgpu_op op, void *out)
{
    reduce_serial(t, op, NULL, 0, out);
}

/* In place is fine: each input is read before its output is written.
   Operator and kind are constants in each loop (as REDUCE_LOOP); the
   running value after the last element goes to last (NULL: nowhere). */
#define SCAN_LOOP(name, T, OPC, INCL)                              \
    {                                                              \
        const T *x = in;                                           \
        T *y = out;                                                \
        T acc = name##_identity(OPC);                              \
        if (init)                                                  \
            memcpy(&acc, init, sizeof acc);                        \
        for (size_t i = 0; i < n; i++) {                           \
            T v = x[i];                                            \
            T next = name##_combine(OPC, acc, v);                  \
            y[i] = INCL ? next : acc;                              \
            acc = next;                                            \
        }                                                          \
        if (last)                                                  \
            memcpy(last, &acc, sizeof acc);                        \
    }

/* Float sums in blocks of SCAN_LANES: each block's own prefix sums do not
   wait for the running total, which takes one add per block instead of
   one per element (a plain loop waits out the adder's latency on every
   element). out[i] = total before the block + the block's prefix to i: a
   fixed order that depends on n alone. */
enum { SCAN_LANES = 8 };
#define SCAN_FSUM(T, INCL)                                         \
    {                                                              \
        const T *x = in;                                           \
        T *y = out;                                                \
        T acc = 0;                                                 \
        if (init)                                                  \
            memcpy(&acc, init, sizeof acc);                        \
        size_t i = 0;                                              \
        for (; i + SCAN_LANES <= n; i += SCAN_LANES) {             \
            const T p0 = x[i], p1 = p0 + x[i + 1];                 \
            const T p2 = p1 + x[i + 2], p3 = p2 + x[i + 3];        \
            const T p4 = p3 + x[i + 4], p5 = p4 + x[i + 5];        \
            const T p6 = p5 + x[i + 6], p7 = p6 + x[i + 7];        \
            y[i] = INCL ? acc + p0 : acc;                          \
            y[i + 1] = acc + (INCL ? p1 : p0);                     \
            y[i + 2] = acc + (INCL ? p2 : p1);                     \
            y[i + 3] = acc + (INCL ? p3 : p2);                     \
            y[i + 4] = acc + (INCL ? p4 : p3);                     \
            y[i + 5] = acc + (INCL ? p5 : p4);                     \
            y[i + 6] = acc + (INCL ? p6 : p5);                     \
            y[i + 7] = acc + (INCL ? p7 : p6);                     \
            acc = acc + p7;                                        \
        }                                                          \
        for (; i < n; i++) {                                       \
            T next = acc + x[i];                                   \
            y[i] = INCL ? next : acc;                              \
            acc = next;                                            \
        }                                                          \
        if (last)                                                  \
            memcpy(last, &acc, sizeof acc);                        \
    }

#define SCAN(name, T) BY_OP_KIND(SCAN_LOOP, name, T)

#define SCAN_F(name, T)                                            \
    if (op != GPGPU_SUM)                                           \
        SCAN(name, T)                                              \
    else if (kind == GPGPU_INCLUSIVE)                              \
        SCAN_FSUM(T, 1)                                            \
    else                                                           \
        SCAN_FSUM(T, 0)

/* Integer sums the same way, in the unsigned type of their width (the
   same bits: two's complement sums wrap): the block prefixes overlap
   where a plain loop adds one element after the other. */
#define SCAN_I(name, T)                                            \
    if (op != GPGPU_SUM)                                           \
        SCAN(name, T)                                              \
    else if (sizeof(T) == 4 && kind == GPGPU_INCLUSIVE)            \
        SCAN_FSUM(uint32_t, 1)                                     \
    else if (sizeof(T) == 4)                                       \
        SCAN_FSUM(uint32_t, 0)                                     \
    else if (kind == GPGPU_INCLUSIVE)                              \
        SCAN_FSUM(uint64_t, 1)                                     \
    else                                                           \
        SCAN_FSUM(uint64_t, 0)

#ifdef GPGPU__AVX2_TARGET
#include <immintrin.h>
#define SCAN_AVX2 1
/* 32-bit integer sums with AVX2, eight elements a step: their inclusive
   prefixes in the register (two shifted adds within each 128-bit half,
   then the low half's total added to the high half), the running total
   added to them and then the step's total, broadcast, added to it: the
   step's only chain is that one add, where SCAN_FSUM's eight scalar
   prefixes cost about four instructions an element. (2-core EPYC, host
   fallback: SCAN_FSUM's scan of u32 ran at 1.08-1.33x the serial loop
   from 2^10 to 2^18.) Exclusive: the inclusive prefix less the element
   (the same bits in wrapping arithmetic). In place is fine. Returns the
   running total past x[n - 1]. */
__attribute__((target("avx2"), always_inline)) static inline uint32_t
scan_sum32_avx2(const uint32_t *x, uint32_t *y, size_t n, uint32_t acc, const int incl)
{
    const __m256i seven = _mm256_set1_epi32(7);
    __m256i run = _mm256_set1_epi32((int)acc);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i p = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
        p = _mm256_add_epi32(p, _mm256_slli_si256(p, 8));
        const __m256i t = _mm256_shuffle_epi32(p, 0xff); /* each half's total */
        p = _mm256_add_epi32(p, _mm256_permute2x128_si256(t, t, 0x08));
        const __m256i o = _mm256_add_epi32(run, incl ? p : _mm256_sub_epi32(p, v));
        _mm256_storeu_si256((__m256i *)(y + i), o);
        run = _mm256_add_epi32(run, _mm256_permutevar8x32_epi32(p, seven));
    }
    acc = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(run));
    for (; i < n; i++) {
        const uint32_t next = acc + x[i];
        y[i] = incl ? next : acc;
        acc = next;
    }
    return acc;
}

/* The same for 64-bit integer sums, four elements a step. */
__attribute__((target("avx2"), always_inline)) static inline uint64_t
scan_sum64_avx2(const uint64_t *x, uint64_t *y, size_t n, uint64_t acc, const int incl)
{
    __m256i run = _mm256_set1_epi64x((long long)acc);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i p = _mm256_add_epi64(v, _mm256_slli_si256(v, 8));
        p = _mm256_add_epi64(p, _mm256_blend_epi32(_mm256_setzero_si256(),
                                                   _mm256_permute4x64_epi64(p, 0x55), 0xf0));
        const __m256i o = _mm256_add_epi64(run, incl ? p : _mm256_sub_epi64(p, v));
        _mm256_storeu_si256((__m256i *)(y + i), o);
        run = _mm256_add_epi64(run, _mm256_permute4x64_epi64(p, 0xff));
    }
    acc = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(run));
    for (; i < n; i++) {
        const uint64_t next = acc + x[i];
        y[i] = incl ? next : acc;
        acc = next;
    }
    return acc;
}

/* Integer sums' scan with AVX2, t's width and kind constants in each
   loop: the running total before in[0] is *init (or 0), after in[n - 1]
   goes to *last (when not NULL). */
__attribute__((target("avx2"))) static void scan_sum_avx2(gpgpu_type t, int incl,
                                                         const void *in, void *out, size_t n,
                                                         const void *init, void *last)
{
    if (gpgpu__type(t)->is_64) {
        uint64_t acc = 0;
        if (init)
            memcpy(&acc, init, sizeof acc);
        acc = incl ? scan_sum64_avx2(in, out, n, acc, 1) : scan_sum64_avx2(in, out, n, acc, 0);
        if (last)
            memcpy(last, &acc, sizeof acc);
    } else {
        uint32_t acc = 0;
        if (init)
            memcpy(&acc, init, sizeof acc);
        acc = incl ? scan_sum32_avx2(in, out, n, acc, 1) : scan_sum32_avx2(in, out, n, acc, 0);
        if (last)
            memcpy(last, &acc, sizeof acc);
    }
}
#endif

static void scan_serial(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                        void *out, size_t n, const void *init, void *last)
{
#ifdef SCAN_AVX2
    if (op == GPGPU_SUM && !gpgpu__type(t)->is_float && gpgpu__host_avx2()) {
        scan_sum_avx2(t, kind == GPGPU_INCLUSIVE, in, out, n, init, last);
        return;
    }
#endif
    BY_TYPE(t, SCAN_I, SCAN_F)
}

/* Integer scans on the host's threads: one pass over blocks taken in
   order, chained as in a single-pass GPU scan with a decoupled look-back.
   A thread that takes a block whose predecessor's inclusive total is
   already known scans it straight away (one read and one write, as a
   serial loop; a thread on its own does only this). Otherwise it sums the
   block (which leaves it in the cache), publishes that aggregate, walks
   back over earlier aggregates to the nearest inclusive total, publishes
   its own, and scans the block from the cache. Memory traffic stays that
   of the serial loop; a thread that is not scheduled delays the others
   only by the block it holds. Integer results are the same bits in any
   order; float scans keep their fixed order (scan_serial). */
enum { SCAN_BLOCK = 1 << 14, SCAN_THREADS_FROM = 1 << 17 };
enum { BLOCK_NONE, BLOCK_AGGREGATE, BLOCK_INCLUSIVE };

/* *out = a op b, one element of t each (any of them may be the same). */
#define COMBINE_ONE(name, T)                                       \
    {                                                              \
        T x, y;                                                    \
        memcpy(&x, a, sizeof x);                                   \
        memcpy(&y, b, sizeof y);                                   \
        x = name##_combine(op, x, y);                              \
        memcpy(out, &x, sizeof x);                                 \
    }

static void combine_one(gpgpu_type t, gpgpu_op op, const void *a, const void *b, void *out)
{
    BY_TYPE(t, COMBINE_ONE, COMBINE_ONE)
}

typedef struct {
    gpgpu_type t;
    gpgpu_op op;
    gpgpu_scan_kind kind;
    const char *in;
    char *out;
    size_t n, size, nblocks;
    const void *init;
    size_t next;                /* the next block to take (atomic) */
    int *state;                 /* per block: BLOCK_* (atomic) */
    uint64_t *aggregate, *inclusive; /* per block, one element of t each */
} chain_job;

static void chain_part(void *arg, size_t part)
{
    chain_job *j = arg;
    (void)part;
    for (;;) {
        size_t b = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (b >= j->nblocks)
            return;
        size_t first = b * (size_t)SCAN_BLOCK;
        size_t len = j->n - first < SCAN_BLOCK ? j->n - first : SCAN_BLOCK;
        const char *x = j->in + first * j->size;
        char *y = j->out + first * j->size;
        uint64_t seed = 0;
        const void *from = j->init;
        if (b > 0 && __atomic_load_n(&j->state[b - 1], __ATOMIC_ACQUIRE) == BLOCK_INCLUSIVE) {
            from = &j->inclusive[b - 1];
        } else if (b > 0) {
            reduce_serial(j->t, j->op, x, len, &j->aggregate[b]);
            __atomic_store_n(&j->state[b], BLOCK_AGGREGATE, __ATOMIC_RELEASE);
            /* look back: the aggregates of b-1, b-2, ... down to an
               inclusive total (or the start), combined in index order */
            uint64_t sum;
            size_t k = b - 1;
            int st, have = 0, spins = 0;
            for (;;) {
                while ((st = __atomic_load_n(&j->state[k], __ATOMIC_ACQUIRE)) == BLOCK_NONE)
                    if (++spins % 64 == 0)
                        sched_yield();
                const void *v = st == BLOCK_INCLUSIVE ? (const void *)&j->inclusive[k]
                                                      : (const void *)&j->aggregate[k];
                if (have) {
                    combine_one(j->t, j->op, v, &sum, &sum);
                } else {
                    memcpy(&sum, v, j->size);
                    have = 1;
                }
                if (st == BLOCK_INCLUSIVE || k == 0)
                    break;
                k--;
            }
            if (st != BLOCK_INCLUSIVE && j->init) /* reached the start: init first */
                combine_one(j->t, j->op, j->init, &sum, &sum);
            memcpy(&seed, &sum, j->size);
            from = &seed;
            /* this block's inclusive total, before its scan: others wait on it */
            combine_one(j->t, j->op, from, &j->aggregate[b], &j->inclusive[b]);
            __atomic_store_n(&j->state[b], BLOCK_INCLUSIVE, __ATOMIC_RELEASE);
            scan_serial(j->t, j->op, j->kind, x, y, len, from, NULL);
            continue;
        }
        scan_serial(j->t, j->op, j->kind, x, y, len, from, &j->inclusive[b]);
        __atomic_store_n(&j->state[b], BLOCK_INCLUSIVE, __ATOMIC_RELEASE);
    }
}

static void host_scan(int seq, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                      const void *in, void *out, size_t n, const void *init)
{
    const size_t size = gpgpu__type(t)->size, nblocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
    /* (getenv, in gpgpu__host_threads, costs a small call's time) */
    const size_t threads = seq || n < SCAN_THREADS_FROM ? 1 : gpgpu__host_threads();
    char *mem = NULL;
    if (!gpgpu__type(t)->is_float && threads > 1)
        mem = malloc(nblocks * (sizeof(int) + 2 * sizeof(uint64_t)));
    if (!mem) { /* floats, small, one thread, or no memory: in order */
        scan_serial(t, op, kind, in, out, n, init, NULL);
        return;
    }
    chain_job j = {t, op, kind, in, out, n, size, nblocks, init, 0,
                   (int *)(mem + 2 * nblocks * sizeof(uint64_t)), (uint64_t *)mem,
                   (uint64_t *)mem + nblocks};
    memset(j.state, 0, nblocks * sizeof(int));
    gpgpu__parallel(threads, chain_part, &j);
    free(mem);
}

void gpgpu__host_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                      void *out, size_t n, const void *init)
{
    host_scan(0, t, op, kind, in, out, n, init);
}

void gpgpu__host_scan_seq(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                          void *out, size_t n, const void *init)
{
    host_scan(1, t, op, kind, in, out, n, init);
}
