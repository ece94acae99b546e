/*
 * ref_sort.h - the plain-C reference for sort tests: a stable merge sort with
 * an IEEE 754 totalOrder comparator, written independently of the library.
 */
#ifndef GPGPU_TEST_REF_SORT_H
#define GPGPU_TEST_REF_SORT_H

#include <stddef.h>

#include "gpgpu.h"

/* <0, 0 or >0 as key a orders before, with, or after key b (both of type
   t) under totalOrder for floats, numeric order for integers. */
int ref_sort_compare(gpgpu_type t, const void *a, const void *b);

/* Sorts n keys of type t stably, ascending or (flags GPGPU_DESCENDING)
   exactly reversed, carrying values (value_size 4 or 8; values NULL for
   keys only). Returns 0, or -1 if out of memory. */
int ref_sort(gpgpu_type t, void *keys, void *values, size_t value_size, size_t n,
             unsigned flags);

#endif
