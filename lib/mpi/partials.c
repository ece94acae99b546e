/*
 * partials.c - what reduce and scan share: every rank's partial (the reduce
 * of its part) on every rank, and folding them in rank order.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

gpgpu_status gpgpu__mpi_parts_alloc(gpgpu__mpi_parts *p, int size)
{
    p->all = malloc((size_t)size * sizeof *p->all);
    p->packed = malloc((size_t)size * 8);
    if (p->all == NULL || p->packed == NULL) {
        gpgpu__mpi_parts_free(p);
        return gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %d ranks", size);
    }
    return GPGPU_SUCCESS;
}

void gpgpu__mpi_parts_free(gpgpu__mpi_parts *p)
{
    free(p->all);
    free(p->packed);
    p->all = NULL;
    p->packed = NULL;
}

int gpgpu__mpi_parts_gather(const gpgpu__mpi_call *c, gpgpu__mpi_parts *p,
                            const gpgpu__mpi_part *mine)
{
    return MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, p->all, (int)sizeof *mine,
                         MPI_BYTE, c->comm);
}

gpgpu_status gpgpu__mpi_parts_fold(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                   gpgpu__mpi_parts *p, int upto, void *out, int *folded)
{
    /* Empty ranks hold the identity: leaving them out keeps the answer the
       one a single device gives (a sum of -0.0 stays -0.0). */
    size_t size = gpgpu_type_size(t), k = 0;
    for (int r = 0; r < upto; r++)
        if (p->all[r].n > 0)
            memcpy(p->packed + size * k++, p->all[r].value, size);
    *folded = k > 0;
    if (k == 0)
        return GPGPU_SUCCESS;
    if (!gpgpu__mpi_builtin_op(op) && k > 1)
        return gpgpu__mpi_local(gpgpu_reduce(ctx, t, op, p->packed, k, out), ctx,
                                "gpgpu_reduce of the partials");
    memcpy(out, p->packed, size);
    for (size_t i = 1; i < k; i++)
        gpgpu__mpi_combine(t, op, out, p->packed + size * i);
    return GPGPU_SUCCESS;
}
