/*
 * context.c - gpgpu_mpi_context_create: each rank opens its device, and
 * "<kind>:local" gives the ranks of a node different devices of that kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "mpi_internal.h"

/* "gpu:local" -> CL_DEVICE_TYPE_GPU ...; 0 for a spec that is not local. */
static cl_device_type local_kind(const char *spec)
{
    static const struct { const char *spec; cl_device_type type; } kinds[] = {
        {"local", CL_DEVICE_TYPE_GPU},
        {"gpu:local", CL_DEVICE_TYPE_GPU},
        {"accelerator:local", CL_DEVICE_TYPE_ACCELERATOR},
        {"cpu:local", CL_DEVICE_TYPE_CPU},
    };
    for (size_t i = 0; spec != NULL && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(spec, kinds[i].spec) == 0)
            return kinds[i].type;
    return 0;
}

/* This rank's index among the ranks of comm on its node. */
static int node_rank(MPI_Comm comm, int rank)
{
    MPI_Comm node;
    int local = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    return local;
}

/* Writes "P:D" (as libgpgpu's specs count: platform P, device D among all
   of its devices) for device number which, modulo their count, of those of
   kind. */
static gpgpu_status pick_local(cl_device_type kind, int which, char *spec, size_t size)
{
    enum { MAXP = 16, MAXD = 64 };
    cl_platform_id platforms[MAXP];
    cl_uint np = 0, total = 0;
    unsigned where[MAXP * MAXD][2];
    if (clGetPlatformIDs(MAXP, platforms, &np) != CL_SUCCESS)
        np = 0;
    for (cl_uint p = 0; p < np && p < MAXP; p++) {
        cl_device_id devs[MAXD];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAXD, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < MAXD; d++) {
            cl_device_type type = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (type & kind) {
                where[total][0] = p;
                where[total++][1] = d;
            }
        }
    }
    if (total == 0)
        return gpgpu__mpi_fail(GPGPU_ERROR_NO_DEVICE, "no OpenCL device of the kind asked "
                                                      "for on this node");
    unsigned k = (unsigned)which % total;
    snprintf(spec, size, "%u:%u", where[k][0], where[k][1]);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_mpi_context_create(gpgpu_context **ctx, MPI_Comm comm, const char *device)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, __func__, GPGPU__MPI_CONTEXT, 0, 0, 0, 0);
    if (ctx != NULL)
        *ctx = NULL;
    if (c.comm == MPI_COMM_NULL)
        return st;
    GPGPU__MPI_REQUIRE(st, ctx != NULL, __func__, "%s",
                       "ctx is NULL; need somewhere to store the context");
    /* Collective on every rank, local spec or not, so that no rank waits. */
    int local = node_rank(c.comm, c.rank);
    const char *spec = device != NULL ? device : getenv("GPGPU_DEVICE");
    cl_device_type kind = local_kind(spec);
    char chosen[32];
    if (st == GPGPU_SUCCESS && kind != 0) {
        st = pick_local(kind, local, chosen, sizeof chosen);
        spec = chosen;
    }
    gpgpu_context *mine = NULL;
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_context_create(&mine, spec), NULL, "gpgpu_context_create");
    st = gpgpu__mpi_agree(&c, st);
    if (st != GPGPU_SUCCESS)
        gpgpu_context_destroy(mine);
    else
        *ctx = mine;
    return st;
}
