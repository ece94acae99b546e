/*
 * histogram.h - the binning rule of gpgpu_histogram, computed once on the host
 * and shared by the kernels (lib/histogram.c passes it as arguments) and the
 * plain-C fallback (lib/host_histogram.c). Keeping one derivation is what
 * makes the device and the fallback agree bit for bit.
 */
#ifndef GPGPU_HISTOGRAM_H
#define GPGPU_HISTOGRAM_H

#include "internal.h"

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

/* Derives the rule for type t (lo < hi finite, 0 < nbins <= MAX_BINS,
   checked by the caller). UNSUPPORTED for integer samples when
   ceil(hi) - ceil(lo) exceeds 2^64 and some sample could be counted. */
gpgpu_status gpgpu__hist_params_make(const gpgpu_context *ctx, gpgpu_type t, size_t nbins,
                                     double lo, double hi, gpgpu__hist_params *p);

/* The checks every typed entry point shares (nbins, lo, hi, the type),
   then the rule; INVALID_ARGUMENT or UNSUPPORTED with the condition. */
gpgpu_status gpgpu__histogram_rule(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                   size_t nbins, double lo, double hi, gpgpu__hist_params *p);

/* The smallest float >= v, and the largest float <= v (v finite):
   x >= v <=> x >= ceil, x <= v <=> x <= floor for every float x. */
float gpgpu__hist_ceil_float(double v);
float gpgpu__hist_floor_float(double v);

/* The enqueues of one histogram on device data (arguments checked, ctx
   locked, no begin/end): bins[bins_off .. + nbins) (cl_ulong) are
   overwritten, or added to when accumulate. */
gpgpu_status gpgpu__histogram_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                      size_t in_off, size_t n, const gpgpu__hist_params *p,
                                      cl_mem bins, size_t bins_off, int accumulate);

/* Host memory in, bins out, through the device in chunks. */
gpgpu_status gpgpu__histogram_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                       size_t n, const gpgpu__hist_params *p, uint64_t *bins);

#endif /* GPGPU_HISTOGRAM_H */
