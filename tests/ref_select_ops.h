/* ref_select_ops.h - plain-C references for unique, run-length encoding and
   partition, written apart from the library: elements compare by their
   bytes (memcmp), one at a time, left to right. */
#ifndef GPGPU_TEST_REF_SELECT_OPS_H
#define GPGPU_TEST_REF_SELECT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "ref_userop.h"

/* The runs of equal bytes in in (n elements of size bytes): the first
   element of each to values, its length to lengths (may be NULL). Returns
   the number of runs. */
size_t ref_runs(size_t size, const void *in, size_t n, void *values, uint64_t *lengths);

/* The kept elements in order, then the others in order, to out; returns
   how many were kept. */
size_t ref_partition(gpgpu_type t, ref_pred keep, const void *in, size_t n, void *out);

#endif
