/* ref_userop.h - plain-C references for user operators, maps and select,
   written apart from the library. Elements are read into a ref_val: integers
   as they are, floats widened to long double so that the reference of a
   float expression is more exact than the device's. */
#ifndef GPGPU_TEST_REF_USEROP_H
#define GPGPU_TEST_REF_USEROP_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu.h"

typedef union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    long double f;   /* F32 and F64 */
} ref_val;

typedef ref_val (*ref_combine)(ref_val a, ref_val b);
typedef ref_val (*ref_map)(ref_val x);
typedef int (*ref_pred)(ref_val x, uint64_t i);

ref_val ref_get(gpgpu_type t, const void *a, size_t i);
void ref_put(gpgpu_type t, void *a, size_t i, ref_val v);

/* identity f map(in[0]) f ... f map(in[n-1]), left to right; map NULL for
   none. *abs_sum (may be NULL) gets the sum of |map(x)| for float types. */
ref_val ref_map_reduce(gpgpu_type t, ref_combine f, ref_val identity, ref_map map,
                       const void *in, size_t n, long double *abs_sum);

/* Scan with f into out (ref_vals), EXCLUSIVE or INCLUSIVE. */
void ref_user_scan(gpgpu_type t, ref_combine f, ref_val identity, gpgpu_scan_kind kind,
                   const void *in, ref_val *out, size_t n);

/* Copies the kept in[i] to out in order; returns how many. */
size_t ref_select(gpgpu_type t, ref_pred keep, const void *in, size_t n, void *out);

#endif
