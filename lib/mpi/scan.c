/*
 * scan.c - gpgpu_mpi_scan: each rank reduces its part, the partials are
 * folded in rank order into each rank's offset, and each rank scans its
 * part with gpgpu_scan_init seeded with that offset. The scan goes to a
 * buffer of our own, copied out only once every rank has succeeded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* out equal to in is an in-place scan; any other overlap is an error, as
   in gpgpu_scan (the scan goes through a buffer of ours, which would hide it). */
static int apart_or_same(const void *in, const void *out, size_t bytes)
{
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
    return a == b || a + bytes <= b || b + bytes <= a;
}

/* Seeds the local scan with the fold of the ranks below this one. */
static gpgpu_status scan_part(gpgpu_context *ctx, const gpgpu__mpi_call *c, gpgpu_type t,
                              gpgpu_op op, gpgpu_scan_kind kind, gpgpu__mpi_parts *parts,
                              const gpgpu__mpi_part *mine, const void *in, void *tmp)
{
    gpgpu_status st = gpgpu__mpi_error(gpgpu__mpi_parts_gather(c, parts, mine),
                                       "MPI_Allgather");
    if (st != GPGPU_SUCCESS)
        return st;
    unsigned char offset[8];
    int folded;
    st = gpgpu__mpi_parts_fold(ctx, t, op, parts, c->rank, offset, &folded);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_scan_init(ctx, t, op, kind, in, tmp, mine->n,
                                              folded ? offset : NULL),
                              ctx, "gpgpu_scan_init");
    return st;
}

gpgpu_status gpgpu_mpi_scan(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, gpgpu_op op,
                            gpgpu_scan_kind kind, const void *in, void *out, size_t n)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, __func__, GPGPU__MPI_SCAN, t, op, kind, 0);
    if (c.comm == MPI_COMM_NULL)
        return st;
    size_t size = gpgpu_type_size(t);
    const char *f = __func__;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, size != 0, f, "t is %d; not a gpgpu_type", (int)t);
    GPGPU__MPI_REQUIRE(st, (in != NULL && out != NULL) || n == 0, f,
                       "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, n <= SIZE_MAX / 8, f, "n is %zu; at most %zu", n, SIZE_MAX / 8);
    GPGPU__MPI_REQUIRE(st, apart_or_same(in, out, n * size), f,
                       "in (%p) and out (%p) overlap for n = %zu; they must be the same array "
                       "or apart", in, out, n);
    if (st == GPGPU_SUCCESS && c.size == 1)  /* nothing to seed: scan in place */
        return gpgpu__mpi_local(gpgpu_scan(ctx, t, op, kind, in, out, n), ctx, "gpgpu_scan");
    gpgpu__mpi_parts parts = {NULL, NULL};
    gpgpu__mpi_part mine = {n, {0}};
    void *tmp = NULL;
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_parts_alloc(&parts, c.size);
    if (st == GPGPU_SUCCESS && n > 0 && (tmp = malloc(n * size)) == NULL)
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu elements", n);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_reduce(ctx, t, op, in, n, mine.value), ctx, "gpgpu_reduce");
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_agree(&c, scan_part(ctx, &c, t, op, kind, &parts, &mine, in, tmp));
    if (st == GPGPU_SUCCESS && n > 0)
        memcpy(out, tmp, n * size);
    free(tmp);
    gpgpu__mpi_parts_free(&parts);
    return st;
}
