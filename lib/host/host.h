/*
 * host.h - the plain-C fallback (lib/host): every primitive on the host's
 * own threads, with no OpenCL at all. The primitives call it when the
 * context has no device (GPGPU_DEVICE=host), for calls the plan keeps on
 * the host, and for the parts of a call the host does better; it calls
 * only the core. The binning rule of the histograms lives here too, so
 * that the kernels (which take it as arguments) and the fallback agree bit
 * for bit: one derivation.
 */
#ifndef GPGPU_HOST_H
#define GPGPU_HOST_H

#include "core/core.h"

/* ---- reduce, scan, sort (host.c, host_sort.c) ----------------------------- */

/* The identity of op for t, written to out (gpgpu__type(t)->size bytes).
   Built-in ops only. */
void gpgpu__identity(gpgpu_type t, gpgpu_op op, void *out);

void gpgpu__host_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result);
void gpgpu__host_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                      void *out, size_t n, const void *init);
/* The same results on the calling thread alone: for code that already runs
   in a part of gpgpu__parallel (which does not nest). */
void gpgpu__host_reduce_seq(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *result);
void gpgpu__host_scan_seq(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                          void *out, size_t n, const void *init);
/* The SUM of F32 or F64 in[0 .. n) that kernels/reduce.cl computes with
   CHUNKED=1 in `groups` work-groups of wg items (then one group over the
   partials): the kernels' bits, on the calling thread. Returns 0 (nothing
   written) for another type, or a wg or groups beyond the limits below. */
enum { GPGPU__SUM_TREE_WG_MAX = 256, GPGPU__SUM_TREE_GROUPS_MAX = 1024 };
int gpgpu__host_sum_tree(gpgpu_type t, const void *in, size_t n, size_t wg, size_t groups,
                         void *result);
/* The SUM scan (kind) of F32 or F64 in[0 .. n) into out (which may be
   in), seeded with *init unless NULL, that kernels/scan.cl's scan_single
   computes with CHUNKED=1 in tiles of wg items of `items` elements each:
   the kernels' bits, on the library's threads (host_scan_tree.c). Returns
   0 (nothing written) for another type, a wg that is not a power of two
   up to 1024, or no memory for the tiles' totals. */
int gpgpu__host_scan_tree(gpgpu_type t, gpgpu_scan_kind kind, const void *in, void *out,
                          size_t n, const void *init, size_t wg, size_t items);
/* out[s] = the op-reduce of in[offsets[s] .. offsets[s + 1]) for s in
   [s0, s1), on the calling thread, for integer t and a built-in op
   (GPGPU_SUM_EXACT is GPGPU_SUM on integers); returns 0, writing nothing,
   for floats. */
int gpgpu__host_reduce_segments(gpgpu_type t, gpgpu_op op, const void *in,
                                const size_t *offsets, size_t s0, size_t s1, void *out);
/* The scans of the same segments of in into out (in place allowed). */
int gpgpu__host_scan_segments(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                              void *out, const size_t *offsets, size_t s0, size_t s1);
/* XOR masks mapping key bits to unsigned bits in the wanted order (m1 when
   the key's top bit is set, m0 otherwise): totalOrder floats, descending. */
void gpgpu__sort_masks(gpgpu_type t, unsigned flags, uint64_t *m0, uint64_t *m1);
gpgpu_status gpgpu__host_sort(gpgpu_type t, void *keys, void *values, size_t value_size,
                              size_t n, unsigned flags);
/* Four lanes of float or int32 in GCC's (and clang's) vector types, for
   the loops of the histograms that compute a block of bins before counting
   them (SSE2 on x86-64; elsewhere what the target has, or scalar code).
   Each lane rounds as scalar code does. */
#if defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 9)
#define GPGPU__V4 1
typedef float gpgpu__v4f __attribute__((vector_size(16)));
typedef int32_t gpgpu__v4i __attribute__((vector_size(16)));
#endif

void gpgpu__host_histogram_rgba8(const uint8_t *pixels, size_t width, size_t height,
                                 size_t row_stride, size_t nbins, uint64_t *bins);
/* The host's threads sort each segment of host arrays, offsets clamped to
   limit (overlapping clamped segments are sorted one after the other);
   OUT_OF_MEMORY is the only failure. */
gpgpu_status gpgpu__host_segsort(gpgpu_type t, void *keys, void *values, size_t value_size,
                                 const size_t *offsets, size_t nseg, size_t limit,
                                 unsigned flags);

/* ---- user expressions (host_expr.c) ---------------------------------------- */

/* A map or predicate compiled for the host: the part of OpenCL C whose
   results are exact (host_expr.c says which), so that the host and a CPU
   device's kernel give the same bits. */
typedef struct gpgpu__hexpr gpgpu__hexpr;
/* expr (as gpgpu__expr_clean leaves it) over x of type t and, with with_i,
   i (a ulong index); NULL when it leaves that part of the language (the
   reason, in words, into why) or memory runs out. loose: no kernel must
   agree (the fallback), so the C library's functions (sqrt, exp, sin,
   pow, ...) and unfused products are taken too. */
gpgpu__hexpr *gpgpu__hexpr_compile(const char *expr, gpgpu_type t, int with_i, int loose,
                                   char *why, size_t why_size);
void gpgpu__hexpr_free(gpgpu__hexpr *e);
/* out[k] = (t)(expr) with x = in[k], k < n; 0 when out of memory. */
int gpgpu__hexpr_map(const gpgpu__hexpr *e, gpgpu_type t, const void *in, size_t n, void *out);
/* flags[k] = (expr) != 0 with x = in[k] and i = i0 + k; 0 when out of memory. */
int gpgpu__hexpr_test(const gpgpu__hexpr *e, const void *in, uint64_t i0, size_t n,
                      unsigned char *flags);

/* ---- GPGPU_SUM_EXACT (host_sum_exact.c) ------------------------------------ */

/* The exactly rounded sum of in[0 .. n) of F32 or F64. */
void gpgpu__host_sum_exact(gpgpu_type t, const void *in, size_t n, void *result);
/* Limbs of an exact sum of t: what kernels/sum_exact.cl's SX_LIMBS says
   (a device row holds one more, for the flags). */
size_t gpgpu__exact_limbs(gpgpu_type t);
/* The flags an exact sum records (NaN, +inf, -inf, not -0, seen). */
#define GPGPU__EXACT_FLAGS 31u
/* a[0 .. limbs) made canonical: every limb but the top one in [0, 2^32). */
void gpgpu__exact_carry(int64_t *a, size_t limbs);
/* acc (canonical, zero for a new sum) += in[0 .. n), flags |= what the
   elements set; acc is canonical again on return. */
void gpgpu__exact_accumulate(gpgpu_type t, const void *in, size_t n, int64_t *acc,
                             unsigned *flags);

/* ---- segmented and by-key (host_segmented.c) ------------------------------- */

/* The plain-C fallback (host_segmented.c). */
void gpgpu__host_segmented_reduce(gpgpu_type t, gpgpu_op op, const void *in,
                                  const size_t *offsets, size_t nseg, void *out);
void gpgpu__host_segmented_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                                const void *in, void *out, const size_t *offsets, size_t nseg);
void gpgpu__host_reduce_index(gpgpu_type t, gpgpu_op op, const void *in, size_t n,
                              void *value, size_t *index);
/* Returns the number of runs. */
size_t gpgpu__host_reduce_by_key(gpgpu_type key_type, const void *keys, gpgpu_type value_type,
                                 gpgpu_op op, const void *values, size_t n, void *keys_out,
                                 void *values_out);
void gpgpu__host_scan_by_key(gpgpu_type key_type, const void *keys, gpgpu_type value_type,
                             gpgpu_op op, gpgpu_scan_kind kind, const void *values, void *out,
                             size_t n);

/* ---- search_sorted, gather, argsort (host_search.c) ------------------------ */

/* pos[j] = the number of sorted[0 .. n) before needles[j] in gpgpu_sort's
   order (side GPGPU_SEARCH_LEFT: those below it; RIGHT: not above it). */
void gpgpu__host_search_sorted(gpgpu_type t, const void *sorted, size_t n, const void *needles,
                               size_t m, unsigned side, uint64_t *pos);
/* out[i] = in[indices[i]] for i < n, value_size 4 or 8, when every index
   is below n_in: then SIZE_MAX; else the first i with indices[i] >= n_in,
   out unchanged. */
size_t gpgpu__host_gather_checked(size_t value_size, const void *in, size_t n_in,
                                  const uint64_t *indices, size_t n, void *out);
/* indices = the stable order of keys (unchanged) under flags; OUT_OF_MEMORY
   is the only failure. */
gpgpu_status gpgpu__host_argsort(gpgpu_type t, const void *keys, size_t n, unsigned flags,
                                 uint64_t *indices);

/* ---- the histograms' binning rule (host_histogram.c) ----------------------- */

/* nbins above this are INVALID_ARGUMENT: bin indices stay 32-bit in kernels. */
#define GPGPU__HIST_MAX_BINS ((size_t)1 << 31)

/* A value of the sample type (the member named by the type is the one set). */
typedef union {
    int32_t i32;
    uint32_t u32;
    float f32;
    int64_t i64;
    uint64_t u64;
    double f64;
} gpgpu__hist_value;

/*
 * Floats: x is counted iff lo <= x < hi (thresholds in the sample type:
 *   the caller's bounds rounded up to it, which selects exactly the samples
 *   of the caller's [lo, hi)); bin = min(sat((x - lo) * scale), nbins - 1).
 * Integers: x is counted iff lo <= x <= top (the counted integers that the
 *   type can hold); with d = x - lo (exact, unsigned 64-bit) and
 *   D = dm1 + 1 = ceil(hi) - ceil(lo):
 *   bin = q0 + (d * nbins + s0) / D, exact, where q0 and s0 carry the part
 *   of ceil(lo) that lies outside the type. m is the kernels' reciprocal
 *   of D: floor((2^64 - 1) / D) when !wide, else the bits of (double)(1/D).
 */
typedef struct {
    int empty;                   /* no sample of this type can be counted */
    int is_float;
    gpgpu__hist_value lo, top, scale;
    uint64_t q0, s0, dm1, m;
    int wide;                    /* d * nbins + s0 may exceed 64 bits */
    uint64_t nbins;
    /* gpgpu_histogram_edges (histogram_edges.c): x is counted iff
       cuts[0] <= x <= top, in bin (the number of cuts <= x) - 1, at most
       nbins - 1. cuts are the ncut reachable edges rounded up to the type
       (host memory); cuts_mem their device copy, made per call. */
    int edges;
    const void *cuts;
    uint64_t ncut;
    cl_mem cuts_mem;
} gpgpu__hist_params;

/* Counts of n samples into nbins bins on the host's threads: count(arg,
   first, len, part) adds the counts of samples [first, first + len) to
   part, which starts zeroed. Parts of at least part_min samples, one a
   thread, each into bins of its own, added up into bins at the end (counts
   are exact in any order), while the parts' bins together stay small;
   otherwise one call of count, on the calling thread, into bins (zeroed
   first). bins[0 .. nbins) are overwritten. */
typedef void gpgpu__count_fn(void *arg, size_t first, size_t len, uint64_t *part);
void gpgpu__host_count_parts(size_t n, size_t part_min, size_t nbins, gpgpu__count_fn *count,
                             void *arg, uint64_t *bins);

/* in[0 .. n) into p->nbins bins by the rule p (gpgpu__hist_params_make's),
   on the host's threads. */
void gpgpu__host_histogram(gpgpu_type t, const void *in, size_t n, const gpgpu__hist_params *p,
                           uint64_t *bins);

/* Weighted and 2-D histograms: a sample's cell is its bin by px, or
   bx * py->nbins + by when py is not NULL (counted only when both rules
   count it). wt < 0: counts into uint64_t bins; else the weights w of type
   wt (F32 or F64), summed in double into double bins. bins[0 .. ncells)
   are overwritten. */
void gpgpu__host_histogram_cells(gpgpu_type t, const void *x, const void *y, int wt,
                                 const void *w, size_t n, const gpgpu__hist_params *px,
                                 const gpgpu__hist_params *py, void *bins);

/* Derives the rule for type t (lo < hi finite, 0 < nbins <= MAX_BINS,
   checked by the caller). UNSUPPORTED for integer samples when
   ceil(hi) - ceil(lo) exceeds 2^64 and some sample could be counted. */
gpgpu_status gpgpu__hist_params_make(const gpgpu_context *ctx, gpgpu_type t, size_t nbins,
                                     double lo, double hi, gpgpu__hist_params *p);

/* Switches an integer rule to the kernels' wide form (the same bins): two
   rules in one kernel (gpgpu_histogram2d) take one form. */
void gpgpu__hist_params_widen(gpgpu__hist_params *p);

/* The smallest float >= v, and the largest float <= v (v finite):
   x >= v <=> x >= ceil, x <= v <=> x <= floor for every float x. */
float gpgpu__hist_ceil_float(double v);
float gpgpu__hist_floor_float(double v);

/* ---- top_k and quantiles (host_select_k.c) -------------------------------- */

/* The plain-C gpgpu_top_k (k <= n; values or indices may be NULL):
   OUT_OF_MEMORY is the only failure. */
gpgpu_status gpgpu__host_top_k(gpgpu_type t, const void *in, size_t n, size_t k,
                               unsigned flags, void *values, uint64_t *indices);
/* keys[j] = the ascending key (the bits through gpgpu__sort_masks) of rank
   ranks[j] of in, for nr ranks in ascending order. Returns 1 when in holds
   a NaN (keys then unset), -1 when out of memory, else 0. */
int gpgpu__host_select(gpgpu_type t, const void *in, size_t n, const size_t *ranks, size_t nr,
                       uint64_t *keys);
/* The raw bits of the key u made by masks m0, m1 (the inverse of the
   sort's transform), and those bits of type t as a double (rounded to
   nearest). */
uint64_t gpgpu__select_unmap(gpgpu_type t, uint64_t u, uint64_t m0, uint64_t m1);
double gpgpu__select_double(gpgpu_type t, uint64_t x);
/* NumPy's linear rule for quantile q of n > 0 elements: x[i] and, when
   g != 0, x[i + 1] are needed; the result is gpgpu__quantile_mix(x[i],
   x[i + 1], g), each step rounded in double. */
void gpgpu__quantile_rule(double q, size_t n, size_t *i, double *g);
double gpgpu__quantile_mix(double a, double b, double g);

#endif /* GPGPU_HOST_H */
