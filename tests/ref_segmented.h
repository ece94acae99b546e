/*
 * ref_segmented.h - the segmented and by-key tests' references: plain loops
 * over each segment or run, written apart from the library (ref_reduce and
 * ref_scan per segment; the index and run rules spelled out here).
 */
#ifndef GPGPU_TEST_REF_SEGMENTED_H
#define GPGPU_TEST_REF_SEGMENTED_H

#include <stddef.h>

#include "gpgpu.h"

/* out[s] = reduce of in[offsets[s] .. offsets[s+1]) (ref_reduce's value). */
void ref_segmented_reduce(gpgpu_type t, gpgpu_op op, const void *in, const size_t *offsets,
                          size_t nseg, void *out);

/* ref_scan restarted at each segment; elements outside the segments of out
   are left alone. */
void ref_segmented_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                        void *out, const size_t *offsets, size_t nseg);

/* The lowest index of the least (MIN) or greatest (MAX) non-NaN element;
   SIZE_MAX if none. */
size_t ref_reduce_index(gpgpu_type t, gpgpu_op op, const void *in, size_t n);

/* Offsets of the maximal runs of equal key bit patterns: returns the number
   of runs r and fills starts[0 .. r] (starts[r] = n). */
size_t ref_runs(gpgpu_type key_type, const void *keys, size_t n, size_t *starts);

/* Each segment of keys (and values of value_size bytes, when not NULL)
   sorted stably on its own: totalOrder for floats, flags GPGPU_DESCENDING
   for the reverse order (ties still in their original order). */
void ref_segmented_sort(gpgpu_type t, void *keys, void *values, size_t value_size,
                        const size_t *offsets, size_t nseg, unsigned flags);

#endif
