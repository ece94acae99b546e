/*
 * devkeep.c - device memory kept from one call to the next.
 *
 * A distributed sort of device arrays needs four device buffers of about
 * the rank's part, and a distributed scan one; allocating them afresh
 * costs each call the driver's allocation and release (and, on NVIDIA, a
 * first touch of every page). So, like the host areas (exchange.c), they
 * stay allocated from call to call, one caller at a time: a call that
 * holds the host areas (gpgpu__mpi_keep_take returned 1) may take device
 * slots too. A slot holds one array of one context; a call with another
 * context, a wider element or more elements replaces it. MPI_Finalize
 * releases them (an attribute of MPI_COMM_SELF, as for the host areas);
 * with GPGPU_MPI_KEEP=0 no call holds the host areas, so none keeps
 * device memory either.
 *
 * Whose context: an array keeps its OpenCL context alive, so comparing the
 * cl_context of the slot's buffer with that of the caller's queue tells a
 * slot of a destroyed gpgpu_context from one of the caller's, even where
 * a new gpgpu_context reuses the old one's address.
 *
 * The copies between device buffers that the scan and the sort make on a
 * rank's own device (gpgpu__mpi_dev_copy) live here too.
 */
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "mpi_internal.h"

static struct {
    gpgpu_array *a[GPGPU__MPI_DEV_SLOTS];
    int keyval;
} slots = {{NULL}, MPI_KEYVAL_INVALID};

static void release_all(void)
{
    for (int i = 0; i < GPGPU__MPI_DEV_SLOTS; i++) {
        gpgpu_array_destroy(slots.a[i]);
        slots.a[i] = NULL;
    }
}

static int slots_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    release_all();
    MPI_Comm_free_keyval(&slots.keyval);
    slots.keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* 1 if a is an array of ctx's OpenCL context. */
static int of_context(gpgpu_context *ctx, const gpgpu_array *a)
{
    cl_command_queue q = gpgpu_queue(ctx);
    cl_context qc = NULL, ac = NULL;
    cl_mem m = gpgpu_array_buffer(a);
    return q != NULL && m != NULL &&
           clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL) == CL_SUCCESS &&
           clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof ac, &ac, NULL) == CL_SUCCESS && qc == ac;
}

gpgpu_status gpgpu__mpi_dev_keep(gpgpu_context *ctx, int slot, size_t esize, size_t n,
                                 gpgpu_array **a)
{
    gpgpu_type t = esize == 8 ? GPGPU_U64 : GPGPU_U32;
    gpgpu_array *have = slots.a[slot];
    if (have != NULL && gpgpu_array_type(have) == t && gpgpu_array_length(have) >= n &&
        of_context(ctx, have)) {
        *a = have;
        return GPGPU_SUCCESS;
    }
    gpgpu_array_destroy(have);
    slots.a[slot] = NULL;
    if (slots.keyval == MPI_KEYVAL_INVALID &&
        (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, slots_delete, &slots.keyval, NULL) !=
             MPI_SUCCESS ||
         MPI_Comm_set_attr(MPI_COMM_SELF, slots.keyval, NULL) != MPI_SUCCESS)) {
        slots.keyval = MPI_KEYVAL_INVALID;
        return gpgpu__mpi_fail(GPGPU_ERROR_OPENCL, "%s", "MPI_Comm_set_attr failed");
    }
    gpgpu_status st = gpgpu__mpi_local(gpgpu_array_create(ctx, t, n, &slots.a[slot]), ctx,
                                       "gpgpu_array_create");
    *a = slots.a[slot];
    return st;
}

gpgpu_status gpgpu__mpi_dev_copy(cl_command_queue q, cl_mem from, size_t from_at, cl_mem to,
                                 size_t to_at, size_t n, size_t esize)
{
    if (n == 0)
        return GPGPU_SUCCESS;
    cl_int err = clEnqueueCopyBuffer(q, from, to, from_at * esize, to_at * esize, n * esize, 0,
                                     NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFlush(q);
    return err == CL_SUCCESS ? GPGPU_SUCCESS : gpgpu__mpi_cl_fail(err, "clEnqueueCopyBuffer");
}
