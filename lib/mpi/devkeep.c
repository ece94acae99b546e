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
    gpgpu__mpi_pinned h[GPGPU__MPI_PINNED_AREAS];
    int keyval;
} slots = {{NULL}, {{NULL, NULL, NULL, 0}}, MPI_KEYVAL_INVALID};

static void release_all(void)
{
    for (int i = 0; i < GPGPU__MPI_DEV_SLOTS; i++) {
        gpgpu_array_destroy(slots.a[i]);
        slots.a[i] = NULL;
    }
    for (int i = 0; i < GPGPU__MPI_PINNED_AREAS; i++)
        gpgpu__mpi_pinned_free(&slots.h[i]);
}

static int slots_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    release_all();
    MPI_Comm_free_keyval(&slots.keyval);
    slots.keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* 1 if buffer m (an array's, or a pinned area's) is of ctx's OpenCL
   context. */
static int of_context(gpgpu_context *ctx, cl_mem m)
{
    cl_command_queue q = gpgpu_queue(ctx);
    cl_context qc = NULL, ac = NULL;
    return q != NULL && m != NULL &&
           clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL) == CL_SUCCESS &&
           clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof ac, &ac, NULL) == CL_SUCCESS && qc == ac;
}

/* The slots' release at MPI_Finalize, set up once. */
static gpgpu_status slots_hooked(void)
{
    if (slots.keyval == MPI_KEYVAL_INVALID &&
        (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, slots_delete, &slots.keyval, NULL) !=
             MPI_SUCCESS ||
         MPI_Comm_set_attr(MPI_COMM_SELF, slots.keyval, NULL) != MPI_SUCCESS)) {
        slots.keyval = MPI_KEYVAL_INVALID;
        return gpgpu__mpi_fail(GPGPU_ERROR_OPENCL, "%s", "MPI_Comm_set_attr failed");
    }
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__mpi_dev_keep(gpgpu_context *ctx, int slot, size_t esize, size_t n,
                                 gpgpu_array **a)
{
    gpgpu_type t = esize == 8 ? GPGPU_U64 : GPGPU_U32;
    gpgpu_array *have = slots.a[slot];
    if (have != NULL && gpgpu_array_type(have) == t && gpgpu_array_length(have) >= n &&
        of_context(ctx, gpgpu_array_buffer(have))) {
        *a = have;
        return GPGPU_SUCCESS;
    }
    gpgpu_array_destroy(have);
    slots.a[slot] = NULL;
    if (slots_hooked() != GPGPU_SUCCESS)
        return GPGPU_ERROR_OPENCL;
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

gpgpu_status gpgpu__mpi_pinned_alloc(gpgpu_context *ctx, size_t bytes, gpgpu__mpi_pinned *p)
{
    *p = (gpgpu__mpi_pinned){NULL, NULL, NULL, 0};
    cl_command_queue q = gpgpu_queue(ctx);
    cl_context cl = NULL;
    cl_int err = q ? clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL)
                   : CL_INVALID_COMMAND_QUEUE;
    if (err != CL_SUCCESS)
        return gpgpu__mpi_cl_fail(err, "clGetCommandQueueInfo");
    cl_mem buf = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        return gpgpu__mpi_cl_fail(err, "pinned host memory: clCreateBuffer");
    void *ptr = clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                   NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(buf);
        return gpgpu__mpi_cl_fail(err, "pinned host memory: clEnqueueMapBuffer");
    }
    clRetainCommandQueue(q);
    *p = (gpgpu__mpi_pinned){buf, q, ptr, bytes};
    return GPGPU_SUCCESS;
}

void gpgpu__mpi_pinned_free(gpgpu__mpi_pinned *p)
{
    if (p->buf == NULL)
        return;
    if (clEnqueueUnmapMemObject(p->q, p->buf, p->ptr, 0, NULL, NULL) == CL_SUCCESS)
        clFinish(p->q);
    clReleaseMemObject(p->buf);
    clReleaseCommandQueue(p->q);
    *p = (gpgpu__mpi_pinned){NULL, NULL, NULL, 0};
}

gpgpu_status gpgpu__mpi_pinned_keep(gpgpu_context *ctx, int area, size_t bytes, void **ptr)
{
    gpgpu__mpi_pinned *h = &slots.h[area];
    if (h->buf != NULL && h->bytes >= bytes && of_context(ctx, h->buf)) {
        *ptr = h->ptr;
        return GPGPU_SUCCESS;
    }
    gpgpu__mpi_pinned_free(h);
    *ptr = NULL;
    if (slots_hooked() != GPGPU_SUCCESS)
        return GPGPU_ERROR_OPENCL;
    size_t want = bytes + bytes / 8, huge = (size_t)1 << 21;
    want = want < bytes ? bytes : (want + huge - 1) / huge * huge;
    gpgpu_status st = gpgpu__mpi_pinned_alloc(ctx, want, h);
    if (st == GPGPU_SUCCESS)
        *ptr = h->ptr;
    return st;
}
