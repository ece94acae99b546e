/*
 * histogram.h - what the histogram primitives (histogram.c,
 * histogram_edges.c) share: the checks before the binning rule (the rule
 * itself is lib/host/host.h's) and the enqueues on device data.
 */
#ifndef GPGPU_HISTOGRAM_H
#define GPGPU_HISTOGRAM_H

#include "primitives/primitives.h"

/* The checks every typed entry point shares (nbins, lo, hi, the type),
   then the rule; INVALID_ARGUMENT or UNSUPPORTED with the condition. */
gpgpu_status gpgpu__histogram_rule(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                   size_t nbins, double lo, double hi, gpgpu__hist_params *p);

/* The enqueues of one histogram on device data (arguments checked, ctx
   locked, no begin/end): bins[bins_off .. + nbins) (cl_ulong) are
   overwritten, or added to when accumulate. */
gpgpu_status gpgpu__histogram_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                      size_t in_off, size_t n, const gpgpu__hist_params *p,
                                      cl_mem bins, size_t bins_off, int accumulate);

/* kernels/histogram.cl's hist_merge: out[out_off + i] (+)= the nchunks
   chunks' cell i for i < ncells (part holds them chunk after chunk: 32-bit
   counts, or doubles where prog was built for weights; each item sums
   into a 64-bit word of __local memory either way). */
gpgpu_status gpgpu__histogram_merge(gpgpu_context *ctx, gpgpu__program *prog, cl_mem part,
                                    size_t nchunks, size_t ncells, cl_mem out, size_t out_off,
                                    int accumulate);

/* Host memory in, bins out, through the device in chunks. */
gpgpu_status gpgpu__histogram_host_api(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                       size_t n, const gpgpu__hist_params *p, uint64_t *bins);

#endif /* GPGPU_HISTOGRAM_H */
