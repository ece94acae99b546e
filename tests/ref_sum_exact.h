/* ref_sum_exact.h - an exact reference for GPGPU_SUM_EXACT, written apart
   from the library: a big integer of base-2^24 digits fed through frexp and
   ldexp (no bit fiddling), rounded by trying the nearest candidates of the
   type and comparing each one's exact error. */
#ifndef GPGPU_TEST_REF_SUM_EXACT_H
#define GPGPU_TEST_REF_SUM_EXACT_H

#include <stddef.h>

/* The correctly rounded sum of in[0 .. n) (floats when is_f32, else
   doubles) with the special-value rules of GPGPU_SUM_EXACT, as a double
   (the float result widened exactly when is_f32). */
double ref_sum_exact(int is_f32, const void *in, size_t n);

#endif
