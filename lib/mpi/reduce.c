/*
 * reduce.c - gpgpu_mpi_reduce: a local gpgpu_reduce on each rank, one
 * MPI_Allgather of the partials, and the same fold in rank order on every
 * rank (so every rank holds the same bits, whatever order MPI would pick).
 */
#include <string.h>

#include "mpi_internal.h"

/* A user-defined operator folds on a device, and devices may differ between
   ranks: rank 0's answer, with its status, is everyone's. */
static gpgpu_status broadcast_result(const gpgpu__mpi_call *c, gpgpu_status st, void *value)
{
    struct { int64_t status; unsigned char value[8]; } msg;
    msg.status = st;
    memcpy(msg.value, value, 8);
    gpgpu_status err = gpgpu__mpi_error(MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, c->comm),
                                        "MPI_Bcast");
    if (err != GPGPU_SUCCESS)
        return err;
    memcpy(value, msg.value, 8);
    if (msg.status != GPGPU_SUCCESS && c->rank != 0)
        return gpgpu__mpi_fail((gpgpu_status)msg.status, "failed on rank 0: %s",
                               gpgpu_status_string((gpgpu_status)msg.status));
    return (gpgpu_status)msg.status;
}

static gpgpu_status combine(gpgpu_context *ctx, const gpgpu__mpi_call *c, gpgpu_type t,
                            gpgpu_op op, gpgpu__mpi_parts *parts, const gpgpu__mpi_part *mine,
                            void *result)
{
    gpgpu_status st = gpgpu__mpi_error(gpgpu__mpi_parts_gather(c, parts, mine),
                                       "MPI_Allgather");
    if (st != GPGPU_SUCCESS)
        return st;
    unsigned char value[8];
    int folded = 0;
    if (gpgpu__mpi_builtin_op(op) || c->rank == 0)
        st = gpgpu__mpi_parts_fold(ctx, t, op, parts, c->size, value, &folded);
    if (!folded)  /* every rank empty: each partial is the identity */
        memcpy(value, parts->all[0].value, 8);
    if (!gpgpu__mpi_builtin_op(op))
        st = broadcast_result(c, st, value);
    if (st == GPGPU_SUCCESS)
        memcpy(result, value, gpgpu_type_size(t));
    return st;
}

gpgpu_status gpgpu_mpi_reduce(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, gpgpu_op op,
                              const void *in, size_t n, void *result)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, __func__, GPGPU__MPI_REDUCE, t, op, 0, 0);
    if (c.comm == MPI_COMM_NULL)
        return st;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, __func__, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, result != NULL, __func__, "%s",
                       "result is NULL; need room for one element");
    /* rounded per-rank partials would make the bits depend on the split */
    if (st == GPGPU_SUCCESS && op == GPGPU_SUM_EXACT && (t == GPGPU_F32 || t == GPGPU_F64))
        st = gpgpu__mpi_fail(GPGPU_ERROR_UNSUPPORTED,
                             "%s: GPGPU_SUM_EXACT on floats is not available over MPI yet",
                             __func__);
    gpgpu__mpi_parts parts = {NULL, NULL};
    gpgpu__mpi_part mine = {n, {0}};
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_parts_alloc(&parts, c.size);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_reduce(ctx, t, op, in, n, mine.value), ctx, "gpgpu_reduce");
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = combine(ctx, &c, t, op, &parts, &mine, result);
    gpgpu__mpi_parts_free(&parts);
    return st;
}
