/*
 * exchange.c - the MPI collectives that move arrays, for any count. MPI
 * counts and displacements are ints; beyond INT_MAX elements each peer's
 * span becomes one derived datatype (chunks of the largest count, then the
 * rest, placed by 64-bit byte displacements) sent with MPI_Alltoallw.
 *
 * Also the host memory a sort keeps between calls, and the all-to-all that
 * copies a rank's part to itself on threads while MPI moves the rest.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

/* ---- memory kept between calls ------------------------------------------- */

/* Fresh memory costs a page fault per page on first touch: for a sort of
   2^26 pairs, 1 GiB of faults per call, slower than the data's trip over
   the network. So the areas stay mapped from call to call (huge pages where
   the kernel gives them), one caller at a time, and go at MPI_Finalize
   (an attribute of MPI_COMM_SELF, whose deletion MPI_Finalize runs first). */
static struct {
    pthread_mutex_t lock;
    void *ptr[GPGPU__MPI_KEEP_AREAS];
    size_t bytes[GPGPU__MPI_KEEP_AREAS];
    int keyval;         /* MPI_KEYVAL_INVALID until the first area */
} kept = {PTHREAD_MUTEX_INITIALIZER, {NULL}, {0}, MPI_KEYVAL_INVALID};

static void kept_release(void)
{
    for (int i = 0; i < GPGPU__MPI_KEEP_AREAS; i++) {
        if (kept.ptr[i])
            munmap(kept.ptr[i], kept.bytes[i]);
        kept.ptr[i] = NULL;
        kept.bytes[i] = 0;
    }
}

static int kept_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    pthread_mutex_lock(&kept.lock);
    kept_release();
    MPI_Comm_free_keyval(&kept.keyval);  /* (MPI_Finalize runs this once) */
    kept.keyval = MPI_KEYVAL_INVALID;
    pthread_mutex_unlock(&kept.lock);
    return MPI_SUCCESS;
}

/* How many takes this thread holds (a call inside another takes again). */
static _Thread_local int held;

int gpgpu__mpi_keep_take(void)
{
    const char *v = getenv("GPGPU_MPI_KEEP");
    if (v && !strcmp(v, "0"))
        return 0;
    if (held > 0) {
        held++;
        return 1;
    }
    if (pthread_mutex_trylock(&kept.lock) != 0)
        return 0;   /* another thread's call has them: this one allocates its own */
    if (kept.keyval == MPI_KEYVAL_INVALID &&
        (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, kept_delete, &kept.keyval, NULL) !=
             MPI_SUCCESS ||
         MPI_Comm_set_attr(MPI_COMM_SELF, kept.keyval, NULL) != MPI_SUCCESS)) {
        kept.keyval = MPI_KEYVAL_INVALID;
        pthread_mutex_unlock(&kept.lock);
        return 0;
    }
    held = 1;
    return 1;
}

void *gpgpu__mpi_keep(int area, size_t bytes)
{
    if (bytes == 0)
        return NULL;
    if (kept.bytes[area] >= bytes)
        return kept.ptr[area];
    if (kept.ptr[area])
        munmap(kept.ptr[area], kept.bytes[area]);
    size_t huge = (size_t)1 << 21;
    bytes = (bytes + huge - 1) / huge * huge;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        kept.ptr[area] = NULL;
        kept.bytes[area] = 0;
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);   /* a hint: 512 times fewer faults */
#endif
    kept.ptr[area] = p;
    kept.bytes[area] = bytes;
    return p;
}

void gpgpu__mpi_keep_give(void)
{
    if (--held > 0)
        return;
    const char *v = getenv("GPGPU_MPI_KEEP");
    if (v && !strcmp(v, "0"))
        kept_release();
    pthread_mutex_unlock(&kept.lock);
}

/* ---- the all-to-all with the rank's own span copied on threads ------------ */

typedef struct {
    char *dst;
    const char *src;
    size_t bytes;
} copy_piece;

static void *copy_run(void *arg)
{
    copy_piece *c = arg;
    if (c->bytes > 0)  /* an empty part may have no memory at all (NULL) */
        memcpy(c->dst, c->src, c->bytes);
    return NULL;
}

int gpgpu__mpi_alltoallv_local(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, int big,
                               size_t esize, const void *send, gpgpu__mpi_layout *sl,
                               void *recv, gpgpu__mpi_layout *rl, size_t nthreads)
{
    int me = c->rank;
    size_t count = sl->count[me], bytes = count * esize;
    enum { MAX = 16 };
    copy_piece piece[MAX];
    pthread_t tid[MAX];
    int started[MAX] = {0};
    size_t np = nthreads < 1 ? 1 : nthreads > MAX ? MAX : nthreads;
    if (bytes < ((size_t)np << 20))     /* 1 MiB a thread at least */
        np = bytes >> 20 ? bytes >> 20 : 1;
    const char *from = (const char *)send + sl->displ[me] * esize;
    char *to = (char *)recv + rl->displ[me] * esize;
    for (size_t i = 0; i < np; i++) {
        size_t a = bytes / np * i, b = i + 1 == np ? bytes : bytes / np * (i + 1);
        piece[i] = (copy_piece){to + a, from + a, b - a};
        started[i] = i > 0 && pthread_create(&tid[i], NULL, copy_run, &piece[i]) == 0;
    }
    /* MPI moves the rest meanwhile; this rank's own span is not its business. */
    sl->count[me] = 0;
    rl->count[me] = 0;
    int err = gpgpu__mpi_alltoallv(c, s, big, esize, send, sl, recv, rl);
    sl->count[me] = count;
    rl->count[me] = count;
    for (size_t i = 0; i < np; i++)
        if (!started[i])
            copy_run(&piece[i]);
    for (size_t i = 1; i < np; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
    return err;
}
