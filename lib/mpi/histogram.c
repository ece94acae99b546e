/*
 * histogram.c - gpgpu_mpi_histogram: a local gpgpu_histogram on each rank
 * into bins of our own, then MPI_Allreduce(SUM) into the caller's bins once
 * every rank has succeeded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

static int64_t bits(double x)
{
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

gpgpu_status gpgpu_mpi_histogram(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                 const void *in, size_t n, size_t nbins, double lo, double hi,
                                 uint64_t *bins)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, __func__, GPGPU__MPI_HISTOGRAM, t,
                                       (int64_t)nbins, bits(lo), bits(hi));
    if (c.comm == MPI_COMM_NULL)
        return st;
    const char *f = __func__;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, bins != NULL, f, "%s", "bins is NULL; need an array of nbins counts");
    GPGPU__MPI_REQUIRE(st, nbins > 0, f, "%s", "nbins is 0; at least 1");
    GPGPU__MPI_REQUIRE(st, nbins <= SIZE_MAX / sizeof *bins, f, "nbins is %zu; at most %zu",
                       nbins, SIZE_MAX / sizeof *bins);
    if (st == GPGPU_SUCCESS && c.size == 1)
        return gpgpu__mpi_local(gpgpu_histogram(ctx, t, in, n, nbins, lo, hi, bins), ctx,
                                "gpgpu_histogram");
    uint64_t *local = NULL;
    if (st == GPGPU_SUCCESS && (local = malloc(nbins * sizeof *local)) == NULL)
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu bins", nbins);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_histogram(ctx, t, in, n, nbins, lo, hi, local), ctx,
                              "gpgpu_histogram");
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_error(gpgpu__mpi_allreduce_u64(&c, local, bins, nbins), "MPI_Allreduce");
    free(local);
    return st;
}
