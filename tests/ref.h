/* ref.h - plain-C references for reduce, written apart from the library. */
#ifndef GPGPU_TEST_REF_H
#define GPGPU_TEST_REF_H

#include <stddef.h>

#include "gpgpu.h"

/* Exact result for integers and MIN/MAX; for float sums the value in long
   double, and *abs_sum gets the sum of magnitudes (for an error bound). */
void ref_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *out,
                long double *exact, long double *abs_sum);

#endif
