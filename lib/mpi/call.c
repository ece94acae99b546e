/*
 * call.c - what every collective call does first: resolve the communicator,
 * and agree on one status over all ranks, so that a failure anywhere is a
 * failure everywhere and no rank is left waiting in a later collective.
 */
#include <stdarg.h>
#include <stdio.h>

#include "mpi_internal.h"

static _Thread_local char mpi_error[1024];

const char *gpgpu_mpi_last_error(void)
{
    return mpi_error;
}

gpgpu_status gpgpu__mpi_fail(gpgpu_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mpi_error, sizeof mpi_error, fmt, ap);
    va_end(ap);
    return s;
}

gpgpu_status gpgpu__mpi_local(gpgpu_status s, gpgpu_context *ctx, const char *what)
{
    if (s == GPGPU_SUCCESS)
        return s;
    return gpgpu__mpi_fail(s, "%s: %s (%s)", what, gpgpu_status_string(s),
                           gpgpu_last_error(ctx));
}

gpgpu_status gpgpu__mpi_error(int err, const char *what)
{
    if (err == MPI_SUCCESS)
        return GPGPU_SUCCESS;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, text, &len);
    return gpgpu__mpi_fail(GPGPU_ERROR_OPENCL, "%s: %.*s", what, len, text);
}

gpgpu_status gpgpu__mpi_cl_fail(cl_int err, const char *what)
{
    return gpgpu__mpi_fail(GPGPU_ERROR_OPENCL, "%s failed (OpenCL error %d)", what, (int)err);
}

gpgpu_status gpgpu__mpi_begin(gpgpu__mpi_call *c, MPI_Comm comm, const char *func, int prim,
                              int64_t s0, int64_t s1, int64_t s2, int64_t s3)
{
    int initialized = 0, finalized = 0, inter = 0;
    c->comm = MPI_COMM_NULL;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT, "%s: MPI is not initialised",
                               func);
    gpgpu_status st = GPGPU_SUCCESS;
    if (comm == MPI_COMM_NULL) {
        /* The other ranks still wait for our word: give it where they most
           likely listen. */
        comm = MPI_COMM_WORLD;
        st = gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT, "%s: comm is MPI_COMM_NULL; need a communicator",
                             func);
    }
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                               "%s: comm is an inter-communicator; need an intra-communicator", func);
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    int64_t sig[GPGPU__MPI_NSIG] = {prim, s0, s1, s2, s3};
    for (int i = 0; i < GPGPU__MPI_NSIG; i++)
        c->sig[i] = sig[i];
    return st;
}

gpgpu_status gpgpu__mpi_agree(const gpgpu__mpi_call *c, gpgpu_status mine)
{
    /* One MPI_MAX allreduce answers everything: the first slot encodes the
       lowest failing rank with its status; each signature value travels as
       x and ~x, whose maxima are max(x) and ~min(x). */
    enum { N = 1 + 2 * GPGPU__MPI_NSIG };
    int64_t v[N];
    v[0] = mine == GPGPU_SUCCESS ? 0 : ((int64_t)(c->size - c->rank) << 16) | (int64_t)mine;
    for (int i = 0; i < GPGPU__MPI_NSIG; i++) {
        v[1 + 2 * i] = c->sig[i];
        v[2 + 2 * i] = ~c->sig[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, v, N, MPI_INT64_T, MPI_MAX, c->comm);
    if (v[0] != 0) {
        int who = c->size - (int)(v[0] >> 16);
        gpgpu_status s = (gpgpu_status)(v[0] & 0xffff);
        if (who == c->rank) {
            char mine_text[sizeof mpi_error];
            snprintf(mine_text, sizeof mine_text, "%s", mpi_error);
            return gpgpu__mpi_fail(s, "rank %d: %s", who, mine_text);
        }
        return gpgpu__mpi_fail(s, "failed on rank %d: %s", who, gpgpu_status_string(s));
    }
    for (int i = 0; i < GPGPU__MPI_NSIG; i++)
        if (v[1 + 2 * i] != ~v[2 + 2 * i])
            return gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT,
                                   i == 0 ? "ranks called different gpgpu_mpi functions"
                                          : "arguments that must agree differ between ranks "
                                            "(type, operator, kind, flags, value size, "
                                            "nbins, lo or hi)");
    return GPGPU_SUCCESS;
}
