/*
 * ref_search.h - plain-C references for gpgpu_search_sorted, gpgpu_argsort
 * and gpgpu_gather, built on ref_sort's totalOrder comparator and stable
 * merge sort, written independently of the library.
 */
#ifndef GPGPU_TEST_REF_SEARCH_H
#define GPGPU_TEST_REF_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu.h"

/* pos[j] = the number of sorted[0 .. n) (ascending) before needles[j]:
   those comparing below it (side GPGPU_SEARCH_LEFT) or not above it
   (GPGPU_SEARCH_RIGHT). */
void ref_search_sorted(gpgpu_type t, const void *sorted, size_t n, const void *needles,
                       size_t m, unsigned side, uint64_t *pos);

/* indices = the stable order of keys under flags. Returns 0, or -1 if out
   of memory. */
int ref_argsort(gpgpu_type t, const void *keys, size_t n, unsigned flags, uint64_t *indices);

/* out[i] = in[indices[i]], elements of value_size bytes. */
void ref_gather(size_t value_size, const void *in, const uint64_t *indices, size_t n, void *out);

#endif
