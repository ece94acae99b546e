/*
 * ref_select_k.h - plain-C references for gpgpu_top_k and gpgpu_quantiles,
 * written from their definitions: a stable sort (ref_sort.c) and the
 * linear rule on the sorted elements.
 */
#ifndef GPGPU_TEST_REF_SELECT_K_H
#define GPGPU_TEST_REF_SELECT_K_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu.h"

/* The first k of the stable order of in (flags as gpgpu_sort) and their
   positions. Returns 0, or -1 if out of memory. */
int ref_top_k(gpgpu_type t, const void *in, size_t n, size_t k, unsigned flags, void *values,
              uint64_t *indices);

/* NumPy's linear quantiles of in (n > 0) at q[0 .. nq), each step rounded
   in double; all NaN when in has a NaN. Returns 0, or -1 if out of
   memory. */
int ref_quantiles(gpgpu_type t, const void *in, size_t n, const double *q, size_t nq,
                  double *out);

#endif
