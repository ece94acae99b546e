/*
 * segmented.h - what segmented.c, bykey.c and the plain-C fallback
 * (host_segmented.c) share.
 */
#ifndef GPGPU_SEGMENTED_H
#define GPGPU_SEGMENTED_H

#include "primitives/primitives.h"

/* Segments on the device: offs[offs_off .. + nseg] are cl_ulong offsets;
   offset v names in[in_off + v - base] and out[out_off + v - base] (scan),
   or segment s's result is out[out_off + s] (reduce). Offsets are clamped
   to limit in the kernels. avg_len is the average segment length the
   strategy is chosen by (an estimate where the offsets are on the device).
   pad_end: the segments that start at the end of the data are padding
   (empty, their results unspecified), which the chunked path skips. */
typedef struct {
    cl_mem in;
    cl_ulong in_off;
    cl_mem offs;
    cl_ulong offs_off, nseg, base, limit;
    cl_mem out;
    cl_ulong out_off;
    size_t avg_len;
    int pad_end;
    cl_mem count;       /* GPGPU_SUM_EXACT: NULL, or the number of segments */
    cl_ulong count_off; /* as one ulong at count[count_off], at most nseg */
} gpgpu__segments;

/* The program of kernels/segmented.cl for t and op. */
gpgpu_status gpgpu__segmented_program(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                      gpgpu__program **prog);

/* Enqueues the segmented reduce (scan 0) or scan (scan 1, kind) of sg,
   without locking or begin/end. */
gpgpu_status gpgpu__segmented_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                      int scan, gpgpu_scan_kind kind,
                                      const gpgpu__segments *sg);

/* INVALID_ARGUMENT or UNSUPPORTED for an operator or type the device cannot
   use, found without building (ctx locked: user ops live there).
   GPGPU_SUM_EXACT is GPGPU_SUM's (on floats: 64-bit integers needed). */
gpgpu_status gpgpu__check_type_op(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op);

/* gpgpu__check_op, with GPGPU_SUM_EXACT too: the reduces per segment and
   per run take it (the scans do not). */
gpgpu_status gpgpu__check_reduce_op(gpgpu_context *ctx, const char *func, gpgpu_op op);


/* INVALID_ARGUMENT (naming func and the pair) unless offsets[0 .. nseg]
   do not decrease and offsets[nseg] elements of t fit in PTRDIFF_MAX bytes;
   *total receives the elements the segments span. */
gpgpu_status gpgpu__offsets_check(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                  const size_t *offsets, size_t nseg, size_t *total);

#endif
