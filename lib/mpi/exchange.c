/*
 * exchange.c - the MPI collectives that move arrays, for any count. MPI
 * counts and displacements are ints; beyond INT_MAX elements each peer's
 * span becomes one derived datatype (chunks of the largest count, then the
 * rest, placed by 64-bit byte displacements) sent with MPI_Alltoallw.
 */
#include <limits.h>
#include <stdlib.h>

#include "mpi_internal.h"

size_t gpgpu__mpi_max_count(void)
{
    const char *env = getenv("GPGPU_MPI_MAX_COUNT");
    if (env != NULL) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0' && v > 0 && v < INT_MAX)
            return (size_t)v;
    }
    return INT_MAX;
}

MPI_Datatype gpgpu__mpi_elem_type(size_t esize)
{
    return esize == 8 ? MPI_UINT64_T : esize == 4 ? MPI_UINT32_T : MPI_BYTE;
}

gpgpu_status gpgpu__mpi_scratch_alloc(gpgpu__mpi_scratch *s, int size)
{
    s->ints = malloc(4 * (size_t)size * sizeof *s->ints);
    s->types = malloc(2 * (size_t)size * sizeof *s->types);
    if (s->ints == NULL || s->types == NULL) {
        gpgpu__mpi_scratch_free(s);
        return gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %d ranks", size);
    }
    return GPGPU_SUCCESS;
}

void gpgpu__mpi_scratch_free(gpgpu__mpi_scratch *s)
{
    free(s->ints);
    free(s->types);
    s->ints = NULL;
    s->types = NULL;
}

/* The elements [first, first + count) of a buffer as one datatype. */
static MPI_Datatype span_type(size_t esize, size_t first, size_t count)
{
    size_t chunk = gpgpu__mpi_max_count();
    MPI_Datatype elem = gpgpu__mpi_elem_type(esize), chunk_type, span;
    MPI_Type_contiguous((int)chunk, elem, &chunk_type);
    int lens[2] = {(int)(count / chunk), (int)(count % chunk)};
    MPI_Aint displ[2] = {(MPI_Aint)(first * esize),
                         (MPI_Aint)((first + count / chunk * chunk) * esize)};
    MPI_Datatype types[2] = {chunk_type, elem};
    MPI_Type_create_struct(2, lens, displ, types, &span);
    MPI_Type_commit(&span);
    MPI_Type_free(&chunk_type);
    return span;
}

static int alltoallw(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, size_t esize,
                     const void *send, const gpgpu__mpi_layout *sl, void *recv,
                     const gpgpu__mpi_layout *rl)
{
    int p = c->size, *scount = s->ints, *rcount = s->ints + p, *zero = s->ints + 2 * p;
    MPI_Datatype *stype = s->types, *rtype = s->types + p;
    for (int i = 0; i < p; i++) {
        zero[i] = 0;
        scount[i] = sl->count[i] > 0;
        rcount[i] = rl->count[i] > 0;
        stype[i] = scount[i] ? span_type(esize, sl->displ[i], sl->count[i]) : MPI_BYTE;
        rtype[i] = rcount[i] ? span_type(esize, rl->displ[i], rl->count[i]) : MPI_BYTE;
    }
    int err = MPI_Alltoallw(send, scount, zero, stype, recv, rcount, zero, rtype, c->comm);
    for (int i = 0; i < p; i++) {
        if (scount[i])
            MPI_Type_free(&stype[i]);
        if (rcount[i])
            MPI_Type_free(&rtype[i]);
    }
    return err;
}

int gpgpu__mpi_alltoallv(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, int big,
                         size_t esize, const void *send, const gpgpu__mpi_layout *sl,
                         void *recv, const gpgpu__mpi_layout *rl)
{
    if (big)
        return alltoallw(c, s, esize, send, sl, recv, rl);
    int p = c->size, *v = s->ints;
    for (int i = 0; i < p; i++) {
        v[i] = (int)sl->count[i];
        v[p + i] = (int)sl->displ[i];
        v[2 * p + i] = (int)rl->count[i];
        v[3 * p + i] = (int)rl->displ[i];
    }
    MPI_Datatype elem = gpgpu__mpi_elem_type(esize);
    return MPI_Alltoallv(send, v, v + p, elem, recv, v + 2 * p, v + 3 * p, elem, c->comm);
}

int gpgpu__mpi_allreduce_sum(const gpgpu__mpi_call *c, const void *send, void *recv,
                             size_t n, MPI_Datatype type)
{
    size_t chunk = gpgpu__mpi_max_count();
    for (size_t i = 0; i < n; i += chunk) {
        int len = (int)(n - i < chunk ? n - i : chunk);
        /* uint64_t and double are both 8 bytes */
        int err = MPI_Allreduce((const char *)send + 8 * i, (char *)recv + 8 * i, len, type,
                                MPI_SUM, c->comm);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int gpgpu__mpi_allreduce_u64(const gpgpu__mpi_call *c, const uint64_t *send, uint64_t *recv,
                             size_t n)
{
    return gpgpu__mpi_allreduce_sum(c, send, recv, n, MPI_UINT64_T);
}
