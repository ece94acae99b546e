/*
 * histogram.c - gpgpu_mpi_histogram and its weighted and 2-D forms: a local
 * histogram on each rank into bins of our own, then MPI_Allreduce(SUM) into
 * the caller's bins once every rank has succeeded. gpgpu_mpi_histogram_array
 * bins each rank's gpgpu_array on its device the same way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* What the signature's first word carries above the type: which form of
   histogram (0: gpgpu_mpi_histogram). */
enum { KIND_WEIGHTED = 1, KIND_2D, KIND_2D_WEIGHTED, KIND_ARRAY };

static int64_t bits(double x)
{
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* Both forms: the samples are in[0..n) in host memory, or (array_form)
   the array arr, NULL only when the caller passed NULL. The array form's
   mark in the signature sits above the type (as the kinds below). */
static gpgpu_status histogram_any(gpgpu_context *ctx, MPI_Comm comm, const char *f,
                                  gpgpu_type t, const void *in, const gpgpu_array *arr,
                                  int array_form, size_t n, size_t nbins, double lo, double hi,
                                  uint64_t *bins)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, f, GPGPU__MPI_HISTOGRAM,
                                       (int64_t)t + 16 * (array_form ? KIND_ARRAY : 0),
                                       (int64_t)nbins, bits(lo), bits(hi));
    if (c.comm == MPI_COMM_NULL)
        return st;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, !array_form || arr != NULL, f, "%s", "in is NULL; pass an array");
    GPGPU__MPI_REQUIRE(st, bins != NULL, f, "%s", "bins is NULL; need an array of nbins counts");
    GPGPU__MPI_REQUIRE(st, nbins > 0, f, "%s", "nbins is 0; at least 1");
    GPGPU__MPI_REQUIRE(st, nbins <= SIZE_MAX / sizeof *bins, f, "nbins is %zu; at most %zu",
                       nbins, SIZE_MAX / sizeof *bins);
    const char *local_name = array_form ? "gpgpu_histogram_array" : "gpgpu_histogram";
    const int direct = st == GPGPU_SUCCESS && c.size == 1;  /* one rank: its bins are the answer */
    uint64_t *local = direct ? bins : NULL;
    if (st == GPGPU_SUCCESS && !direct && (local = malloc(nbins * sizeof *local)) == NULL)
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu bins", nbins);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(arr ? gpgpu_histogram_array(ctx, arr, nbins, lo, hi, local)
                                  : gpgpu_histogram(ctx, t, in, n, nbins, lo, hi, local),
                              ctx, local_name);
    if (direct)
        return st;
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_error(gpgpu__mpi_allreduce_u64(&c, local, bins, nbins), "MPI_Allreduce");
    free(local);
    return st;
}

gpgpu_status gpgpu_mpi_histogram(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                 const void *in, size_t n, size_t nbins, double lo, double hi,
                                 uint64_t *bins)
{
    return histogram_any(ctx, comm, __func__, t, in, NULL, 0, n, nbins, lo, hi, bins);
}

gpgpu_status gpgpu_mpi_histogram_array(gpgpu_context *ctx, MPI_Comm comm, const gpgpu_array *in,
                                       size_t nbins, double lo, double hi, uint64_t *bins)
{
    return histogram_any(ctx, comm, __func__, gpgpu_array_type(in), NULL, in, 1,
                         gpgpu_array_length(in), nbins, lo, hi, bins);
}

/* ---- weighted and 2-D --------------------------------------------------------- */

typedef struct {
    int kind;
    gpgpu_type t, wt;
    const void *x, *y, *w;
    size_t n, nx, ny;   /* ny 1 for KIND_WEIGHTED */
    double xlo, xhi, ylo, yhi;
} cells_args;

static const char *local_name(int kind)
{
    return kind == KIND_WEIGHTED ? "gpgpu_histogram_weighted"
           : kind == KIND_2D     ? "gpgpu_histogram2d"
                                 : "gpgpu_histogram2d_weighted";
}

static gpgpu_status local_cells(gpgpu_context *ctx, const cells_args *a, void *bins)
{
    switch (a->kind) {
    case KIND_WEIGHTED:
        return gpgpu_histogram_weighted(ctx, a->t, a->x, a->wt, a->w, a->n, a->nx, a->xlo,
                                        a->xhi, bins);
    case KIND_2D:
        return gpgpu_histogram2d(ctx, a->t, a->x, a->y, a->n, a->nx, a->xlo, a->xhi, a->ny,
                                 a->ylo, a->yhi, bins);
    default:
        return gpgpu_histogram2d_weighted(ctx, a->t, a->x, a->y, a->wt, a->w, a->n, a->nx,
                                          a->xlo, a->xhi, a->ny, a->ylo, a->yhi, bins);
    }
}

/* The arguments every rank must agree on, folded into four words (the kind
   and the types in the first, so that gpgpu_mpi_histogram's stay as they
   were). */
static void signature(const cells_args *a, int64_t s[4])
{
    s[0] = (int64_t)a->t + 16 * a->kind + 256 * (int64_t)(a->kind == KIND_2D ? 0 : a->wt);
    s[1] = (int64_t)a->nx;
    s[2] = a->kind == KIND_WEIGHTED ? bits(a->xlo) : (int64_t)a->ny;
    /* the four bounds mixed in unsigned arithmetic, where products wrap */
    uint64_t mixed = (uint64_t)bits(a->xlo) ^ ((uint64_t)bits(a->xhi) * 3) ^
                     ((uint64_t)bits(a->ylo) * 5) ^ ((uint64_t)bits(a->yhi) * 7);
    s[3] = a->kind == KIND_WEIGHTED ? bits(a->xhi) : (int64_t)mixed;
}

static gpgpu_status mpi_cells(gpgpu_context *ctx, MPI_Comm comm, const char *f,
                              const cells_args *a, void *bins)
{
    gpgpu__mpi_call c;
    int64_t s[4];
    signature(a, s);
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, f, GPGPU__MPI_HISTOGRAM, s[0], s[1], s[2], s[3]);
    if (c.comm == MPI_COMM_NULL)
        return st;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, bins != NULL, f, "%s", "bins is NULL; need an array of the cells");
    GPGPU__MPI_REQUIRE(st, a->nx > 0 && a->ny > 0, f, "nx is %zu and ny %zu; both at least 1",
                       a->nx, a->ny);
    GPGPU__MPI_REQUIRE(st, a->ny == 0 || a->nx <= ((size_t)1 << 31) / a->ny, f,
                       "%zu x %zu cells; at most 2^31", a->nx, a->ny);
    if (st == GPGPU_SUCCESS && c.size == 1)
        return gpgpu__mpi_local(local_cells(ctx, a, bins), ctx, local_name(a->kind));
    size_t ncells = st == GPGPU_SUCCESS ? a->nx * a->ny : 0;
    void *local = NULL;
    if (st == GPGPU_SUCCESS && (local = malloc(ncells * sizeof(uint64_t))) == NULL)
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu bins", ncells);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(local_cells(ctx, a, local), ctx, local_name(a->kind));
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_error(gpgpu__mpi_allreduce_sum(&c, local, bins, ncells,
                                                       a->kind == KIND_2D ? MPI_UINT64_T
                                                                          : MPI_DOUBLE),
                              "MPI_Allreduce");
    free(local);
    return st;
}

gpgpu_status gpgpu_mpi_histogram_weighted(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                          const void *in, gpgpu_type wt, const void *weights,
                                          size_t n, size_t nbins, double lo, double hi,
                                          double *bins)
{
    cells_args a = {KIND_WEIGHTED, t, wt, in, NULL, weights, n, nbins, 1, lo, hi, 0, 0};
    return mpi_cells(ctx, comm, __func__, &a, bins);
}

gpgpu_status gpgpu_mpi_histogram2d(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                   const void *x, const void *y, size_t n, size_t nx,
                                   double xlo, double xhi, size_t ny, double ylo, double yhi,
                                   uint64_t *bins)
{
    cells_args a = {KIND_2D, t, GPGPU_F64, x, y, NULL, n, nx, ny, xlo, xhi, ylo, yhi};
    return mpi_cells(ctx, comm, __func__, &a, bins);
}

gpgpu_status gpgpu_mpi_histogram2d_weighted(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                            const void *x, const void *y, gpgpu_type wt,
                                            const void *weights, size_t n, size_t nx,
                                            double xlo, double xhi, size_t ny, double ylo,
                                            double yhi, double *bins)
{
    cells_args a = {KIND_2D_WEIGHTED, t, wt, x, y, weights, n, nx, ny, xlo, xhi, ylo, yhi};
    return mpi_cells(ctx, comm, __func__, &a, bins);
}
