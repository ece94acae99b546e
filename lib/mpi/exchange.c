/*
 * exchange.c - the MPI collectives that move arrays, for any count. MPI
 * counts and displacements are ints; beyond INT_MAX elements each peer's
 * span becomes one derived datatype (chunks of the largest count, then the
 * rest, placed by 64-bit byte displacements) sent with MPI_Alltoallw.
 *
 * Also the host memory a sort keeps between calls, and the all-to-all that
 * copies a rank's part to itself on threads while MPI moves the rest.
 *
 * Within one node that all-to-all skips MPI's data path. Open MPI's shared
 * memory moves each message with one process_vm_readv on one thread (its
 * CMA single copy), or through copy-in/copy-out buffers: 15-20 GB/s for
 * four ranks on a 64-core node, while each rank has idle threads. So when
 * every rank of the communicator is on one node (MPI_Comm_split_type,
 * asked once per communicator and kept as its attribute), the ranks tell
 * each other, in one MPI_Alltoall, their pid and where the span for each
 * peer lies in their send buffer; then each rank reads its incoming spans
 * from the peers with process_vm_readv, in pieces of a few MiB on the
 * caller's threads (its own span by memcpy), with no count limit; an
 * MPI_Allreduce of the outcome ends it, so that no rank reuses its send
 * buffer while a peer still reads it. A failed read anywhere (EPERM where
 * ptrace is forbidden: containers, Yama's ptrace_scope; ENOSYS; a pid that
 * names another process, in another pid namespace, caught by a token read
 * first) makes every rank redo the whole exchange with MPI, overwriting
 * whatever the reads wrote, and that communicator keeps to MPI from then
 * on. GPGPU_MPI_CMA=0 (the same on every rank: the ranks still agree)
 * keeps to MPI always.
 */
#define _GNU_SOURCE     /* process_vm_readv */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/uio.h>
#endif

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

/* A rank's offer to one peer: where the span it sends that peer lies in
   its memory, and a token to read first, which proves that the pid names
   this process and not another one with that number. */
struct gpgpu__mpi_peer {
    uint64_t addr, bytes;           /* the span */
    uint64_t token_addr, token;     /* where the token lies, and its value */
    int32_t pid, want;              /* want: CMA_WANT | CMA_REQUIRE */
};

gpgpu_status gpgpu__mpi_scratch_alloc(gpgpu__mpi_scratch *s, int size)
{
    s->ints = malloc(4 * (size_t)size * sizeof *s->ints);
    s->types = malloc(2 * (size_t)size * sizeof *s->types);
    s->peers = malloc(2 * (size_t)size * sizeof *s->peers);
    if (s->ints == NULL || s->types == NULL || s->peers == NULL) {
        gpgpu__mpi_scratch_free(s);
        return gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %d ranks", size);
    }
    return GPGPU_SUCCESS;
}

void gpgpu__mpi_scratch_free(gpgpu__mpi_scratch *s)
{
    free(s->ints);
    free(s->types);
    free(s->peers);
    s->ints = NULL;
    s->types = NULL;
    s->peers = NULL;
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

static int alltoallv_mpi(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, int big,
                         size_t esize, const void *send, gpgpu__mpi_layout *sl, void *recv,
                         gpgpu__mpi_layout *rl, size_t nthreads)
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

/* ---- the all-to-all within one node: each rank reads from its peers ------- */

/* GPGPU_MPI_CMA: what this rank wants. Unset or "1": the reads where they
   work; "0": MPI alone. For the tests: "require", the reads or a failed
   call (no fallback, so that a test sees when they stop working); "fail",
   this rank's reads fail midway, after writing garbage (the fallback's
   test). Other values count as unset. */
#ifdef __linux__
enum { CMA_WANT = 1, CMA_REQUIRE = 2 };

static int cma_wanted(int *inject)
{
    const char *v = getenv("GPGPU_MPI_CMA");
    *inject = v != NULL && !strcmp(v, "fail");
    if (v != NULL && !strcmp(v, "0"))
        return 0;
    return v != NULL && !strcmp(v, "require") ? CMA_WANT | CMA_REQUIRE : CMA_WANT;
}

/* What a communicator's ranks found out together, kept as its attribute's
   value itself (no memory behind it: MPI need not delete MPI_COMM_WORLD's
   attributes at MPI_Finalize, and nothing then leaks). No attribute: not
   known yet. The same on every rank, so that the ranks take the same
   collectives without asking each other first. */
enum { CMA_KNOWN = 1, CMA_SHARED = 2, CMA_FAILED = 4 };

static struct {
    pthread_mutex_t lock;
    int keyval;         /* of the state; MPI_KEYVAL_INVALID until the first use */
    int self_keyval;    /* MPI_COMM_SELF's attribute, deleted first by MPI_Finalize */
    uint64_t token;     /* this process's token: see gpgpu__mpi_peer */
} cma = {PTHREAD_MUTEX_INITIALIZER, MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID, 0};

static int cma_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    pthread_mutex_lock(&cma.lock);
    MPI_Comm_free_keyval(&cma.keyval);  /* attributes that use it stay valid */
    MPI_Comm_free_keyval(&cma.self_keyval);
    cma.keyval = cma.self_keyval = MPI_KEYVAL_INVALID;
    pthread_mutex_unlock(&cma.lock);
    return MPI_SUCCESS;
}

/* The state's keyval, made on first use (MPI_KEYVAL_INVALID if MPI could
   not make it). A duplicate of a communicator has the same ranks, so it
   inherits the state. */
static int cma_keyval(void)
{
    pthread_mutex_lock(&cma.lock);
    if (cma.keyval == MPI_KEYVAL_INVALID) {
        int kv = MPI_KEYVAL_INVALID, self = MPI_KEYVAL_INVALID;
        if (MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL) ==
                MPI_SUCCESS &&
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, cma_finalize, &self, NULL) ==
                MPI_SUCCESS &&
            MPI_Comm_set_attr(MPI_COMM_SELF, self, NULL) == MPI_SUCCESS) {
            cma.keyval = kv;
            cma.self_keyval = self;
        } else {
            if (kv != MPI_KEYVAL_INVALID)
                MPI_Comm_free_keyval(&kv);
            if (self != MPI_KEYVAL_INVALID)
                MPI_Comm_free_keyval(&self);
        }
        if (cma.token == 0) {   /* splitmix64 of what tells processes apart */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t z = (uint64_t)getpid() * 0x9e3779b97f4a7c15u ^
                         (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
                         (uint64_t)(uintptr_t)&cma;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
            cma.token = (z ^ (z >> 31)) | 1;
        }
    }
    int kv = cma.keyval;
    pthread_mutex_unlock(&cma.lock);
    return kv;
}

static int cma_state(MPI_Comm comm, int kv)
{
    void *value = NULL;
    int found = 0;
    if (kv == MPI_KEYVAL_INVALID ||
        MPI_Comm_get_attr(comm, kv, &value, &found) != MPI_SUCCESS || !found)
        return 0;
    return (int)(intptr_t)value;
}

/* The first call on comm: are all its ranks on one node? Two collectives,
   once per communicator. Every rank keeps the answer, or none does (a
   rank that could not keep it makes all ask again next time). */
static int cma_learn(MPI_Comm comm, int size, int kv, int *state)
{
    MPI_Comm node;
    int node_size = 0;
    int err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    *state = CMA_KNOWN | (node_size == size ? CMA_SHARED : 0);
    int stored = kv != MPI_KEYVAL_INVALID &&
                 MPI_Comm_set_attr(comm, kv, (void *)(intptr_t)*state) == MPI_SUCCESS;
    int all = 0;
    err = MPI_Allreduce(&stored, &all, 1, MPI_INT, MPI_MIN, comm);
    if (err != MPI_SUCCESS || !all) {
        if (stored)
            MPI_Comm_delete_attr(comm, kv);
        *state = 0;
    }
    return err;
}

/* Pieces of a few MiB, so that every thread has several to take. */
enum { CMA_THREADS = 16, PIECE_MIN = 1 << 20, PIECE_MAX = 4 << 20 };

typedef struct {
    const gpgpu__mpi_peer *from;    /* what each rank offers this one */
    const char *own;                /* this rank's own span in its send buffer */
    char *recv;
    const gpgpu__mpi_layout *rl;
    size_t esize, piece, npieces;
    int size, me, inject;
    size_t next;                    /* the next piece to take (atomic) */
    int err;                        /* the first failure's errno (atomic), or 0 */
    gpgpu__mpi_landed *landed;      /* told of each piece read, or NULL */
} cma_job;

/* Reads len bytes at addr in process pid to dst: 0 or an errno. */
static int read_from(pid_t pid, char *dst, uint64_t addr, size_t len)
{
    while (len > 0) {
        struct iovec local = {dst, len}, remote = {(void *)(uintptr_t)addr, len};
        ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (got <= 0)   /* a short read: the next one tells why */
            return got < 0 ? errno : EIO;
        dst += got;
        addr += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
}

static size_t pieces_of(const cma_job *j, int r)
{
    return (j->from[r].bytes + j->piece - 1) / j->piece;
}

/* Takes pieces until none is left or a read failed: the peers in turn from
   the next rank up, so that the ranks start on different peers, this
   rank's own span last. */
static void *cma_run(void *arg)
{
    cma_job *j = arg;
    for (;;) {
        size_t k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= j->npieces || __atomic_load_n(&j->err, __ATOMIC_RELAXED) != 0)
            return NULL;
        int r = j->me;
        for (int step = 1; step <= j->size; step++) {
            r = (j->me + step) % j->size;
            size_t np = pieces_of(j, r);
            if (k < np)
                break;
            k -= np;
        }
        const gpgpu__mpi_peer *p = &j->from[r];
        size_t at = k * j->piece, left = (size_t)p->bytes - at;
        size_t len = left < j->piece ? left : j->piece;
        char *dst = j->recv + j->rl->displ[r] * j->esize + at;
        int err = 0;
        if (j->inject && k + 1 == pieces_of(j, r)) {
            memset(dst, 0xa5, len);
            err = EIO;
        } else if (r == j->me) {
            memcpy(dst, j->own + at, len);
        } else {
            err = read_from(p->pid, dst, p->addr + at, len);
        }
        if (err != 0) {
            int none = 0;
            __atomic_compare_exchange_n(&j->err, &none, err, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
        } else if (j->landed != NULL) {
            j->landed->fn(j->landed->arg, (size_t)(dst - j->recv), len);
        }
    }
}

/* This rank's reads: 0, or the errno of the first that failed. */
static int cma_read(cma_job *j, size_t nthreads)
{
    size_t total = 0;
    for (int r = 0; r < j->size; r++) {
        const gpgpu__mpi_peer *p = &j->from[r];
        if (p->bytes != j->rl->count[r] * j->esize)
            return EINVAL;  /* the layouts disagree: a bug, not for the reads to hide */
        total += p->bytes;
        uint64_t token = 0;
        int err = r == j->me || p->bytes == 0
                      ? 0 : read_from(p->pid, (char *)&token, p->token_addr, sizeof token);
        if (err != 0)
            return err;
        if (r != j->me && p->bytes > 0 && token != p->token)
            return ESRCH;   /* that pid is another process (another pid namespace?) */
    }
    size_t nt = nthreads < 1 ? 1 : nthreads > CMA_THREADS ? CMA_THREADS : nthreads;
    size_t piece = total / (2 * nt);
    j->piece = piece < PIECE_MIN ? PIECE_MIN : piece > PIECE_MAX ? PIECE_MAX : piece;
    j->npieces = 0;
    for (int r = 0; r < j->size; r++)
        j->npieces += pieces_of(j, r);
    nt = nt < j->npieces ? nt : j->npieces;
    pthread_t tid[CMA_THREADS];
    int started[CMA_THREADS] = {0};
    for (size_t t = 1; t < nt; t++)
        started[t] = pthread_create(&tid[t], NULL, cma_run, j) == 0;
    cma_run(j);     /* (it takes what threads that did not start would have) */
    for (size_t t = 1; t < nt; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
    return j->err;
}

#endif /* __linux__ */

int gpgpu__mpi_alltoallv_local(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, int big,
                               size_t esize, const void *send, gpgpu__mpi_layout *sl,
                               void *recv, gpgpu__mpi_layout *rl, size_t nthreads,
                               gpgpu__mpi_landed *landed)
{
    if (landed != NULL)
        landed->all = 0;
#ifndef __linux__
    return alltoallv_mpi(c, s, big, esize, send, sl, recv, rl, nthreads);
#else
    int p = c->size, me = c->rank, inject = 0, want = cma_wanted(&inject), err;
    if (p < 2)
        return alltoallv_mpi(c, s, big, esize, send, sl, recv, rl, nthreads);
    /* Which collectives follow depends on the state alone, the same on
       every rank: never on this rank's wishes, which may differ. */
    int kv = cma_keyval(), state = cma_state(c->comm, kv);
    if (!(state & CMA_KNOWN) && (err = cma_learn(c->comm, p, kv, &state)) != MPI_SUCCESS)
        return err;
    if (!(state & CMA_SHARED))
        return alltoallv_mpi(c, s, big, esize, send, sl, recv, rl, nthreads);
    if (state & CMA_FAILED) {
        err = alltoallv_mpi(c, s, big, esize, send, sl, recv, rl, nthreads);
        return err == MPI_SUCCESS && (want & CMA_REQUIRE) ? MPI_ERR_OTHER : err;
    }

    /* Every rank offers every rank its span (its own too: each learns what
       all ranks want), then all read, or all take MPI. */
    gpgpu__mpi_peer *to = s->peers, *from = s->peers + p;
    for (int d = 0; d < p; d++)
        to[d] = (gpgpu__mpi_peer){(uint64_t)(uintptr_t)send + sl->displ[d] * esize,
                                  sl->count[d] * esize, (uint64_t)(uintptr_t)&cma.token,
                                  cma.token, (int32_t)getpid(), want};
    err = MPI_Alltoall(to, (int)sizeof *to, MPI_BYTE, from, (int)sizeof *from, MPI_BYTE,
                       c->comm);
    if (err != MPI_SUCCESS)
        return err;
    int all = CMA_WANT, required = 0;
    for (int r = 0; r < p; r++) {
        all &= from[r].want;
        required |= from[r].want & CMA_REQUIRE;
    }
    if (all) {
        cma_job job = {from, (const char *)send + sl->displ[me] * esize, recv, rl, esize,
                       0, 0, p, me, inject, 0, 0, landed};
        int mine = cma_read(&job, nthreads), failed = 0;
        /* Also the barrier: no rank leaves while a peer reads its buffer. */
        err = MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_MAX, c->comm);
        if (err != MPI_SUCCESS || failed == 0) {
            if (landed != NULL)
                landed->all = err == MPI_SUCCESS;
            return err;
        }
        MPI_Comm_set_attr(c->comm, kv, (void *)(intptr_t)(state | CMA_FAILED));
    }
    if (required)   /* every rank knows it: none waits in MPI_Alltoallv */
        return MPI_ERR_OTHER;
    return alltoallv_mpi(c, s, big, esize, send, sl, recv, rl, nthreads);
#endif
}
