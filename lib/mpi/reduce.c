/*
 * reduce.c - gpgpu_mpi_reduce: a local gpgpu_reduce on each rank, one
 * MPI_Allgather of the partials, and the same fold in rank order on every
 * rank (so every rank holds the same bits, whatever order MPI would pick).
 * GPGPU_SUM_EXACT on floats gathers exact, unrounded partial sums instead
 * (gpgpu_exact_partial_sum), which every rank adds and rounds once: the
 * bits of one device's exact sum of the global array, whatever the split.
 * gpgpu_mpi_reduce_array reduces each rank's gpgpu_array on its device
 * the same way; only its exact partial sum reads the part to the host.
 */
#include <stdlib.h>
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

/* GPGPU_SUM_EXACT on F32 and F64: every rank's exact partial sum to every
   rank, added in rank order (exactly: any order gives the same integer) and
   rounded once. Nothing here fails on one rank only: the partials are the
   same bytes everywhere, so add and round fail (they cannot, for partials
   that gpgpu_exact_partial_sum wrote) on every rank alike. */
static gpgpu_status combine_exact(const gpgpu__mpi_call *c, gpgpu_type t,
                                  const gpgpu_exact_partial *mine, gpgpu_exact_partial *all,
                                  void *result)
{
    int err = MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE,
                            c->comm);
    if (err != MPI_SUCCESS)
        return gpgpu__mpi_error(err, "MPI_Allgather");
    gpgpu_status st = GPGPU_SUCCESS;
    for (int r = 1; r < c->size && st == GPGPU_SUCCESS; r++)
        st = gpgpu_exact_partial_add(&all[0], &all[r]);
    unsigned char value[8];
    if (st == GPGPU_SUCCESS)
        st = gpgpu_exact_partial_round(&all[0], value);
    if (st != GPGPU_SUCCESS)
        return gpgpu__mpi_fail(st, "%s", gpgpu_last_error(NULL));
    memcpy(result, value, gpgpu_type_size(t));
    return GPGPU_SUCCESS;
}

/* An array's exact partial sum: libgpgpu sums only host memory exactly,
   so the part comes to the host a piece at a time (exact partials add
   exactly: any cut gives the same partial). */
enum { EXACT_PIECE = 1 << 20 };

static gpgpu_status exact_partial_of_array(gpgpu_context *ctx, gpgpu_type t,
                                           const gpgpu_array *in, size_t n,
                                           gpgpu_exact_partial *p)
{
    size_t size = gpgpu_type_size(t), piece = n < EXACT_PIECE ? n : EXACT_PIECE;
    gpgpu_exact_partial sum, part;
    gpgpu_status st = gpgpu__mpi_local(gpgpu_exact_partial_init(&sum, t), ctx,
                                       "gpgpu_exact_partial_init");
    void *host = NULL;
    if (st == GPGPU_SUCCESS && piece > 0 && (host = malloc(piece * size)) == NULL)
        st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu elements",
                             piece);
    for (size_t at = 0; at < n && st == GPGPU_SUCCESS; at += piece) {
        size_t len = n - at < piece ? n - at : piece;
        st = gpgpu__mpi_local(gpgpu_array_read(ctx, in, at, host, len), ctx, "gpgpu_array_read");
        if (st == GPGPU_SUCCESS)
            st = gpgpu__mpi_local(gpgpu_exact_partial_sum(ctx, t, host, len, &part), ctx,
                                  "gpgpu_exact_partial_sum");
        if (st == GPGPU_SUCCESS)
            st = gpgpu__mpi_local(gpgpu_exact_partial_add(&sum, &part), ctx,
                                  "gpgpu_exact_partial_add");
    }
    free(host);
    if (st == GPGPU_SUCCESS)
        *p = sum;
    return st;
}

/* Both forms: the part is in[0..n) in host memory, or (array_form) the
   array arr, NULL only when the caller passed NULL. */
static gpgpu_status reduce_any(gpgpu_context *ctx, MPI_Comm comm, const char *func,
                               gpgpu_type t, gpgpu_op op, const void *in,
                               const gpgpu_array *arr, int array_form, size_t n, void *result)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, func, GPGPU__MPI_REDUCE, t, op, 0, array_form);
    if (c.comm == MPI_COMM_NULL)
        return st;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, func, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, !array_form || arr != NULL, func, "%s", "in is NULL; pass an array");
    GPGPU__MPI_REQUIRE(st, result != NULL, func, "%s",
                       "result is NULL; need room for one element");
    /* rounded per-rank sums would make the bits depend on the split: the
       ranks exchange exact partial sums instead */
    const int exact = op == GPGPU_SUM_EXACT && (t == GPGPU_F32 || t == GPGPU_F64);
    gpgpu__mpi_parts parts = {NULL, NULL};
    gpgpu__mpi_part mine = {n, {0}};
    gpgpu_exact_partial mine_exact, *all_exact = NULL;
    if (st == GPGPU_SUCCESS && exact) {
        all_exact = malloc((size_t)c.size * sizeof *all_exact);
        if (!all_exact)
            st = gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "%s: no memory for %d partial sums",
                                 func, c.size);
        if (st == GPGPU_SUCCESS)
            st = arr ? exact_partial_of_array(ctx, t, arr, n, &mine_exact)
                     : gpgpu__mpi_local(gpgpu_exact_partial_sum(ctx, t, in, n, &mine_exact), ctx,
                                        "gpgpu_exact_partial_sum");
    } else if (st == GPGPU_SUCCESS) {
        st = gpgpu__mpi_parts_alloc(&parts, c.size);
        if (st == GPGPU_SUCCESS)
            st = arr ? gpgpu__mpi_local(gpgpu_reduce_array(ctx, op, arr, mine.value), ctx,
                                        "gpgpu_reduce_array")
                     : gpgpu__mpi_local(gpgpu_reduce(ctx, t, op, in, n, mine.value), ctx,
                                        "gpgpu_reduce");
    }
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = exact ? combine_exact(&c, t, &mine_exact, all_exact, result)
                   : combine(ctx, &c, t, op, &parts, &mine, result);
    free(all_exact);
    gpgpu__mpi_parts_free(&parts);
    return st;
}

gpgpu_status gpgpu_mpi_reduce(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, gpgpu_op op,
                              const void *in, size_t n, void *result)
{
    return reduce_any(ctx, comm, __func__, t, op, in, NULL, 0, n, result);
}

gpgpu_status gpgpu_mpi_reduce_array(gpgpu_context *ctx, MPI_Comm comm, gpgpu_op op,
                                    const gpgpu_array *in, void *result)
{
    return reduce_any(ctx, comm, __func__, gpgpu_array_type(in), op, NULL, in, 1,
                      gpgpu_array_length(in), result);
}
