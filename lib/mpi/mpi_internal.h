/*
 * mpi_internal.h - what libgpgpu-mpi's files share. libgpgpu-mpi sees only
 * libgpgpu's public API; its own internal names start with gpgpu__mpi_.
 */
#ifndef GPGPU_MPI_INTERNAL_H
#define GPGPU_MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu_cl.h"
#include "gpgpu_mpi.h"

/* ---- errors (call.c) ---------------------------------------------------- */

/* Records this thread's failure detail and returns s. */
gpgpu_status gpgpu__mpi_fail(gpgpu_status s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records a failure of a libgpgpu call on this rank: its name and
   gpgpu_last_error(ctx). Returns s (SUCCESS passes through untouched). */
gpgpu_status gpgpu__mpi_local(gpgpu_status s, gpgpu_context *ctx, const char *what);

/* One argument check per line, as libgpgpu's GPGPU__REQUIRE: when cond is
   false, "func: <message>" becomes the detail (func: the public function;
   the message names the parameter, its value and the rule). Unlike
   libgpgpu's it does not return: the caller must still take part in the
   agreement, so it only records the first failure in st. */
#define GPGPU__MPI_REQUIRE(st, cond, func, fmt, ...)                                    \
    do {                                                                                \
        if ((st) == GPGPU_SUCCESS && !(cond))                                           \
            (st) = gpgpu__mpi_fail(GPGPU_ERROR_INVALID_ARGUMENT, "%s: " fmt, (func),    \
                                   __VA_ARGS__);                                        \
    } while (0)

/* An MPI call that returned an error (comm's handler is not the default,
   which aborts): its error string becomes the detail. gpgpu.h has no MPI
   status, so this is GPGPU_ERROR_OPENCL's "device or transport failed". */
gpgpu_status gpgpu__mpi_error(int err, const char *what);

/* A failed OpenCL call (err its error code): "<what> failed (OpenCL error
   <err>)" becomes the detail of GPGPU_ERROR_OPENCL, which it returns. */
gpgpu_status gpgpu__mpi_cl_fail(cl_int err, const char *what);

/* ---- the collective call (call.c) ---------------------------------------- */

/* Arguments that must be equal on every rank, compared in the agreement:
   which primitive, then up to four of its arguments. */
enum { GPGPU__MPI_NSIG = 5 };
enum { GPGPU__MPI_CONTEXT = 1, GPGPU__MPI_REDUCE, GPGPU__MPI_SCAN, GPGPU__MPI_HISTOGRAM,
       GPGPU__MPI_SORT, GPGPU__MPI_TOP_K, GPGPU__MPI_QUANTILES };

typedef struct {
    MPI_Comm comm;      /* the caller's, or MPI_COMM_WORLD standing in for NULL */
    int rank, size;
    int64_t sig[GPGPU__MPI_NSIG]; /* primitive, then its agreed arguments */
} gpgpu__mpi_call;

/* Starts a call: resolves comm and sets the signature (prim, then s0..s3;
   unused ones 0).
   Returns INVALID_ARGUMENT for MPI_COMM_NULL (c->comm is then
   MPI_COMM_WORLD, and the caller goes on to the agreement); a status with
   c->comm == MPI_COMM_NULL when no communication is possible at all (MPI not
   initialised, an inter-communicator): the caller returns at once. */
gpgpu_status gpgpu__mpi_begin(gpgpu__mpi_call *c, MPI_Comm comm, const char *func, int prim,
                              int64_t s0, int64_t s1, int64_t s2, int64_t s3);

/* The collective agreement: every rank gives its status so far; every rank
   gets the lowest failing rank's status, or INVALID_ARGUMENT when the
   signatures differ, or SUCCESS. */
gpgpu_status gpgpu__mpi_agree(const gpgpu__mpi_call *c, gpgpu_status mine);

/* ---- moving data (exchange.c) ------------------------------------------- */

/* The most elements one MPI count may carry: INT_MAX, or less from
   GPGPU_MPI_MAX_COUNT (a testing knob that forces the derived-datatype paths;
   it must then be set alike on every rank). */
size_t gpgpu__mpi_max_count(void);

/* MPI type of one element of esize bytes (1, 4 or 8). */
MPI_Datatype gpgpu__mpi_elem_type(size_t esize);

/* Per-peer counts and displacements of an all-to-all, in elements. */
typedef struct {
    size_t *count, *displ;  /* size entries each */
} gpgpu__mpi_layout;

/* What a rank tells each peer about the span it sends it, for the reads
   of gpgpu__mpi_alltoallv_local (exchange.c). */
typedef struct gpgpu__mpi_peer gpgpu__mpi_peer;

/* Scratch for gpgpu__mpi_alltoallv for a communicator of size ranks: 0 or
   OUT_OF_MEMORY. Allocated before an agreement so that nothing can fail
   between the agreement and the exchange. */
typedef struct {
    int *ints;              /* 4 * size */
    MPI_Datatype *types;    /* 2 * size */
    gpgpu__mpi_peer *peers; /* 2 * size: what this rank offers each, and each offers it */
} gpgpu__mpi_scratch;
gpgpu_status gpgpu__mpi_scratch_alloc(gpgpu__mpi_scratch *s, int size);
void gpgpu__mpi_scratch_free(gpgpu__mpi_scratch *s);

/* All-to-all of esize-byte elements. big must be the same on every rank
   (e.g. the global count exceeds gpgpu__mpi_max_count()): then derived
   datatypes carry any count, else plain MPI_Alltoallv. */
int gpgpu__mpi_alltoallv(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, int big,
                         size_t esize, const void *send, const gpgpu__mpi_layout *sl,
                         void *recv, const gpgpu__mpi_layout *rl);

/* gpgpu__mpi_alltoallv, but this rank's own span (sl->count[rank] elements,
   which must equal rl->count[rank]) is copied by up to nthreads threads
   while MPI moves the others' (the layouts are restored on return). When
   every rank of c->comm is on one node and the ranks may read each other's
   memory, each rank instead reads what it receives straight from its peers'
   send buffers on up to nthreads threads (GPGPU_MPI_CMA, exchange.c); any
   count, big or not. Collective, as MPI_Alltoallv: every rank returns only
   when no peer reads its send buffer any more.
   landed (may be NULL): those reads call landed->fn(landed->arg, at,
   bytes) for each piece as it arrives, bytes at byte offset at of recv,
   on the reading threads (so that the caller can start moving it on);
   on return landed->all is 1 when every piece went that way, else 0 (the
   exchange took MPI, wholly or after a failed read: recv is right, but
   not every piece was announced). */
typedef struct {
    void (*fn)(void *arg, size_t at, size_t bytes);
    void *arg;
    int all;
} gpgpu__mpi_landed;
int gpgpu__mpi_alltoallv_local(const gpgpu__mpi_call *c, gpgpu__mpi_scratch *s, int big,
                               size_t esize, const void *send, gpgpu__mpi_layout *sl,
                               void *recv, gpgpu__mpi_layout *rl, size_t nthreads,
                               gpgpu__mpi_landed *landed);

/* Host memory kept from call to call (GPGPU_MPI_KEEP=0: freed after each
   call), so that a large call does not fault in every page afresh. A call
   takes the areas with gpgpu__mpi_keep_take (0: another thread has them, or
   keeping is off: allocate your own; a call inside one that holds them
   takes them again), gets area i (0 .. KEEP_AREAS-1) of at least bytes with
   gpgpu__mpi_keep (NULL: out of memory; earlier contents are lost when it
   grows), and gives them back with gpgpu__mpi_keep_give, once per take.
   MPI_Finalize releases them. Areas: 0 and 1 the sort's part and bucket
   (0 also the scan's result on the host path), 2 the _array forms' host
   copy. */
enum { GPGPU__MPI_KEEP_AREAS = 3 };
int gpgpu__mpi_keep_take(void);
void *gpgpu__mpi_keep(int area, size_t bytes);
void gpgpu__mpi_keep_give(void);

/* Device arrays kept from call to call (devkeep.c), for a call that holds
   the host areas: *a receives slot's array, of ctx and at least n
   elements of esize (4 or 8) bytes (typed GPGPU_U32 or GPGPU_U64), made
   anew when the slot's is not that. The caller must not destroy it.
   Slots: 0 .. 3 the device sort's part and bucket (keys, values), 4 the
   scan's buffer. MPI_Finalize releases them. */
enum { GPGPU__MPI_DEV_SLOTS = 5 };
gpgpu_status gpgpu__mpi_dev_keep(gpgpu_context *ctx, int slot, size_t esize, size_t n,
                                 gpgpu_array **a);

/* Pinned host memory of a context: a CL_MEM_ALLOC_HOST_PTR buffer mapped
   for as long as it lives, so that a read or write of a device buffer to
   or from it is one DMA (pageable memory goes through the library's
   staging ring: a CPU copy more each way, and the host's memory is what
   several ranks on one machine share). gpgpu__mpi_pinned_alloc makes one
   of at least bytes on ctx's queue; gpgpu__mpi_pinned_free releases it
   (a zeroed one is a no-op). gpgpu__mpi_pinned_keep gives, to a call that
   holds the host areas, area i (0 or 1) of ctx's context, kept from call
   to call like the device slots and grown by an eighth more than asked so
   that buckets a little larger than last time reuse it; MPI_Finalize
   releases them. */
typedef struct {
    cl_mem buf;
    cl_command_queue q;     /* retained: the unmap's queue */
    void *ptr;
    size_t bytes;
} gpgpu__mpi_pinned;
enum { GPGPU__MPI_PINNED_AREAS = 2 };
gpgpu_status gpgpu__mpi_pinned_alloc(gpgpu_context *ctx, size_t bytes, gpgpu__mpi_pinned *p);
void gpgpu__mpi_pinned_free(gpgpu__mpi_pinned *p);
gpgpu_status gpgpu__mpi_pinned_keep(gpgpu_context *ctx, int area, size_t bytes, void **ptr);

/* Elements [from_at, from_at + n) of buffer from to buffer to at to_at,
   elements of esize bytes, copied on the device: enqueued on q with no
   wait list and flushed (nothing for n = 0). OPENCL when either fails. */
gpgpu_status gpgpu__mpi_dev_copy(cl_command_queue q, cl_mem from, size_t from_at, cl_mem to,
                                 size_t to_at, size_t n, size_t esize);

/* MPI_Allreduce(SUM) of n uint64 in chunks of at most gpgpu__mpi_max_count(). */
int gpgpu__mpi_allreduce_u64(const gpgpu__mpi_call *c, const uint64_t *send, uint64_t *recv,
                             size_t n);
/* The same for n 8-byte elements of type (MPI_UINT64_T or MPI_DOUBLE). */
int gpgpu__mpi_allreduce_sum(const gpgpu__mpi_call *c, const void *send, void *recv,
                             size_t n, MPI_Datatype type);

/* ---- partials of reduce and scan (partials.c) ---------------------------- */

typedef struct {
    uint64_t n;                 /* the rank's count */
    unsigned char value[8];     /* the reduce of its part */
} gpgpu__mpi_part;

typedef struct {
    gpgpu__mpi_part *all;       /* every rank's, in rank order */
    unsigned char *packed;      /* room for size values */
} gpgpu__mpi_parts;

gpgpu_status gpgpu__mpi_parts_alloc(gpgpu__mpi_parts *p, int size);
void gpgpu__mpi_parts_free(gpgpu__mpi_parts *p);
int gpgpu__mpi_parts_gather(const gpgpu__mpi_call *c, gpgpu__mpi_parts *p,
                            const gpgpu__mpi_part *mine);

/* out = the partials of the non-empty ranks below upto combined in rank
   order: on the host for built-in ops, else with gpgpu_reduce on ctx.
   *folded is 0 when there was none (out untouched). */
gpgpu_status gpgpu__mpi_parts_fold(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                   gpgpu__mpi_parts *p, int upto, void *out, int *folded);

/* ---- host arithmetic (ops.c) --------------------------------------------- */

/* 1 for GPGPU_SUM, MIN and MAX: those combine on the host. */
int gpgpu__mpi_builtin_op(gpgpu_op op);

/* acc = acc op x for a built-in op, as libgpgpu combines them (integer sums
   wrap; float MIN/MAX ignore NaN like fmin/fmax). */
void gpgpu__mpi_combine(gpgpu_type t, gpgpu_op op, void *acc, const void *x);

/* ---- the sort order of keys (sort.c, select.c) ---------------------------- */

/* A key's place in the sort order as an unsigned integer, from its bits w:
   w ^ flip ^ (top bit of w ? neg : 0), with no branch on the type. Signed
   integers get their sign bit flipped; floats (totalOrder) all bits when
   negative, else the sign bit; descending, all bits more. */
typedef struct {
    uint64_t flip, neg;
    unsigned shift;         /* bits - 1 */
} gpgpu__mpi_key_order;

static inline gpgpu__mpi_key_order gpgpu__mpi_key_order_of(gpgpu_type t, unsigned descending)
{
    unsigned bits = gpgpu_type_size(t) * 8;
    uint64_t sign = UINT64_C(1) << (bits - 1), all = sign | (sign - 1);
    gpgpu__mpi_key_order o = {t == GPGPU_U32 || t == GPGPU_U64 ? 0 : sign,
                              t == GPGPU_F32 || t == GPGPU_F64 ? sign - 1 : 0, bits - 1};
    if (descending)
        o.flip ^= all;  /* the exact reverse order */
    return o;
}

static inline uint64_t gpgpu__mpi_ordered(const gpgpu__mpi_key_order *o, uint64_t w)
{
    return w ^ o->flip ^ ((w >> o->shift) ? o->neg : 0);
}

#endif /* GPGPU_MPI_INTERNAL_H */
