/* ref_mpi.h - plain-C references for the MPI suite, over the whole global
   array, written apart from both libraries. */
#ifndef GPGPU_TEST_REF_MPI_H
#define GPGPU_TEST_REF_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu.h"

/* Serial left-to-right reduce and scan (built-in ops; float MIN/MAX skip NaN). */
void ref_mpi_reduce(gpgpu_type t, gpgpu_op op, const void *in, size_t n, void *out);
void ref_mpi_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in, void *out,
                  size_t n);

/* Histogram by gpgpu.h's rule (integers: exact; floats: in the sample's
   precision, clamped to the last bin). */
void ref_mpi_histogram(gpgpu_type t, const void *in, size_t n, size_t nbins, double lo,
                       double hi, uint64_t *bins);

/* perm = the stable sorted order of keys (ascending, or the exact reverse),
   floats in IEEE 754 totalOrder. */
void ref_mpi_sort_order(gpgpu_type t, const void *keys, size_t n, int descending,
                        size_t *perm);

/* NumPy's linear quantiles of the whole array (n > 0), each step rounded
   in double; all NaN when it holds a NaN. */
void ref_mpi_quantiles(gpgpu_type t, const void *in, size_t n, const double *q, size_t nq,
                       double *out);

#endif
