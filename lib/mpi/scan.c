/*
 * scan.c - gpgpu_mpi_scan: each rank reduces its part, the partials are
 * folded in rank order into each rank's offset, and each rank scans its
 * part from that offset. Nothing the caller owns changes before every rank
 * has agreed that its scan succeeded.
 *
 * On an OpenCL device the part crosses the bus once each way, as in
 * gpgpu_scan: it goes into one device buffer of ours, [seed, x0 .. xn-1],
 * is reduced there (gpgpu_reduce_buffer), then scanned there with the
 * offset in the seed slot (gpgpu_scan_buffer), and read into out after the
 * last agreement. The host fallback, or a part too large for one device
 * allocation, goes through gpgpu_reduce and gpgpu_scan_init into a host
 * buffer of ours, copied to out at the end.
 *
 * gpgpu_mpi_scan_array does the same on each rank's gpgpu_array, without
 * the bus: the part is copied on the device into slots 1 .. n of that
 * buffer, and the result copied on the device into out once every rank
 * has agreed, then agreed on once more (out is written only there). On
 * the host fallback the array is host memory: it is read into the host
 * buffer, and the result written to out. The device buffer stays
 * allocated from call to call (devkeep.c): allocating 2^26 elements
 * afresh cost more than the scan.
 *
 * (An earlier version took that host path on every device: one more pass
 * over the bus for the reduce, and a fresh n-element malloc per call, which
 * glibc serves with mmap beyond 32 MiB: every page of it faulted in and
 * zeroed by the scan's read-back, then copied again and unmapped. At 2^26
 * u32 per rank on an H200 that host work made 2 ranks 6.6x slower than
 * 1.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"
#include "mpi_internal.h"

/* out equal to in is an in-place scan; any other overlap is an error, as
   in gpgpu_scan (the scan goes through a buffer of ours, which would hide it). */
static int apart_or_same(const void *in, const void *out, size_t bytes)
{
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
    return a == b || a + bytes <= b || b + bytes <= a;
}

typedef struct {
    gpgpu_context *ctx;
    gpgpu_type t;
    gpgpu_op op;
    gpgpu_scan_kind kind;
    size_t n, size;
    const void *in;
    const gpgpu_array *in_arr;  /* the _array form: the part, and where the */
    gpgpu_array *out_arr;       /* result goes (in and out unused) */
    cl_command_queue q; /* the device path: q, arr and buf set */
    gpgpu_array *arr;   /* [seed, x0 .. xn-1]: its writes and reads take the
                           library's fast routes (pinned staging) */
    cl_mem buf;         /* arr's buffer */
    size_t first;       /* where the device path's scan starts in buf */
    int kept;           /* arr (or tmp) is kept memory (devkeep.c, exchange.c), not ours */
    void *tmp;          /* the host path: n elements */
    int direct;         /* the host fallback on host memory: no tmp; the scan
                           from in to out runs once every rank has agreed */
    int folded;         /* direct: seed holds the fold of the ranks below */
    uint64_t seed;      /* (a word: gpgpu_scan_init wants init aligned) */
} scan_job;

/* The device path's buffer, when this rank has a device and the part fits
   in one allocation; otherwise the host path's memory. */
static gpgpu_status job_memory(scan_job *j)
{
    cl_command_queue q = gpgpu_queue(j->ctx);
    cl_context cl = NULL;
    cl_device_id dev = NULL;
    cl_ulong max_alloc = 0;
    if (q != NULL && j->n > 0 &&
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL) == CL_SUCCESS &&
        clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) == CL_SUCCESS &&
        clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc,
                        NULL) == CL_SUCCESS &&
        j->n < max_alloc / j->size) {
        j->kept = gpgpu__mpi_keep_take();
        gpgpu_status made =
            j->kept ? gpgpu__mpi_dev_keep(j->ctx, 4, j->size, j->n + 1, &j->arr)
                    : gpgpu_array_create(j->ctx, j->t, j->n + 1, &j->arr);
        if (made == GPGPU_SUCCESS) {
            j->buf = gpgpu_array_buffer(j->arr);
            j->q = q;
            return GPGPU_SUCCESS;
        }
    }
    /* The host fallback's scan of host memory cannot fail once the reduce
       has taken the same arguments, so it may wait for the agreement and
       write out directly: no copy, and no fresh memory whose every page
       faults in (2 ranks of 2^26 u32 on 64 cores: 84 ms against 14 for
       one rank, the difference the faults). */
    if (q == NULL && j->in_arr == NULL && j->op < GPGPU_OP_USER) {
        j->direct = 1;
        return GPGPU_SUCCESS;
    }
    if (j->n == 0)
        return GPGPU_SUCCESS;
    if (!j->kept)   /* (a device path that could not allocate has taken them) */
        j->kept = gpgpu__mpi_keep_take();
    j->tmp = j->kept ? gpgpu__mpi_keep(0, j->n * j->size) : malloc(j->n * j->size);
    if (j->tmp == NULL)
        return gpgpu__mpi_fail(GPGPU_ERROR_OUT_OF_MEMORY, "out of memory for %zu elements",
                               j->n);
    return GPGPU_SUCCESS;
}

/* Waits for done (released), then reads elements [first, first + n) of
   arr into host. */
static gpgpu_status read_after(scan_job *j, cl_event done, size_t first, size_t n, void *host)
{
    cl_int err = done ? clWaitForEvents(1, &done) : CL_SUCCESS;
    if (done)
        clReleaseEvent(done);
    if (err != CL_SUCCESS)
        return gpgpu__mpi_cl_fail(err, "clWaitForEvents");
    return gpgpu__mpi_local(gpgpu_array_read(j->ctx, j->arr, first, host, n), j->ctx,
                            "gpgpu_array_read");
}

/* The reduce of this rank's part into *value. */
static gpgpu_status reduce_part(scan_job *j, void *value)
{
    gpgpu_status st = GPGPU_SUCCESS;
    if (j->q == NULL) {
        if (j->in_arr != NULL && j->n > 0) {  /* the host path scans a copy of the array */
            st = gpgpu__mpi_local(gpgpu_array_read(j->ctx, j->in_arr, 0, j->tmp, j->n), j->ctx,
                                  "gpgpu_array_read");
            j->in = j->tmp;
        }
        return st == GPGPU_SUCCESS
                   ? gpgpu__mpi_local(gpgpu_reduce(j->ctx, j->t, j->op, j->in, j->n, value),
                                      j->ctx, "gpgpu_reduce")
                   : st;
    }
    st = j->in_arr != NULL
             ? gpgpu__mpi_dev_copy(j->q, gpgpu_array_buffer(j->in_arr), 0, j->buf, 1, j->n,
                                   j->size)
             : gpgpu__mpi_local(gpgpu_array_write(j->ctx, j->arr, 1, j->in, j->n), j->ctx,
                                "gpgpu_array_write");
    if (st != GPGPU_SUCCESS)
        return st;
    cl_event done = NULL;
    st = gpgpu__mpi_local(gpgpu_reduce_buffer(j->ctx, j->t, j->op, j->buf, 1, j->n, j->buf, 0, 0,
                                              NULL, &done),
                          j->ctx, "gpgpu_reduce_buffer");
    return st == GPGPU_SUCCESS ? read_after(j, done, 0, 1, value) : st;
}

/* The device path's scan, seeded with *seed unless it is NULL: an
   inclusive scan of [seed, x0 ..] leaves seed combined on the left of every
   element, the inclusive scan at slots 1 .. n and the exclusive one at
   slots 0 .. n-1. */
static gpgpu_status scan_on_device(scan_job *j, const void *seed)
{
    size_t count = j->n;
    gpgpu_scan_kind kind = j->kind;
    j->first = 1;
    if (seed != NULL) {
        gpgpu_status st = gpgpu__mpi_local(gpgpu_array_write(j->ctx, j->arr, 0, seed, 1), j->ctx,
                                           "gpgpu_array_write");
        if (st != GPGPU_SUCCESS)
            return st;
        j->first = 0;
        count += kind == GPGPU_INCLUSIVE;
        kind = GPGPU_INCLUSIVE;
    }
    cl_event done = NULL;
    gpgpu_status st = gpgpu__mpi_local(gpgpu_scan_buffer(j->ctx, j->t, j->op, kind, j->buf,
                                                         j->first, j->buf, j->first, count, 0,
                                                         NULL,
                                                         &done),
                                       j->ctx, "gpgpu_scan_buffer");
    cl_int err = st == GPGPU_SUCCESS ? clWaitForEvents(1, &done) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        st = gpgpu__mpi_cl_fail(err, "clWaitForEvents");
    if (done)
        clReleaseEvent(done);
    return st;
}

/* Scans the part from the fold of the ranks below this one. */
static gpgpu_status scan_part(scan_job *j, const gpgpu__mpi_call *c, gpgpu__mpi_parts *parts,
                              const gpgpu__mpi_part *mine)
{
    gpgpu_status st = gpgpu__mpi_error(gpgpu__mpi_parts_gather(c, parts, mine),
                                       "MPI_Allgather");
    if (st != GPGPU_SUCCESS)
        return st;
    uint64_t offset[1];     /* (a word: an init must be aligned) */
    int folded;
    st = gpgpu__mpi_parts_fold(j->ctx, j->t, j->op, parts, c->rank, offset, &folded);
    if (st != GPGPU_SUCCESS || j->n == 0)
        return st;
    if (j->q != NULL)
        return scan_on_device(j, folded ? offset : NULL);
    if (j->direct) {
        j->folded = folded;
        j->seed = offset[0];
        return GPGPU_SUCCESS;
    }
    return gpgpu__mpi_local(gpgpu_scan_init(j->ctx, j->t, j->op, j->kind, j->in, j->tmp, j->n,
                                            folded ? offset : NULL),
                            j->ctx, "gpgpu_scan_init");
}

/* Every rank succeeded: the scan goes to out, or to out_arr. */
static gpgpu_status deliver(scan_job *j, void *out)
{
    if (j->n == 0)
        return GPGPU_SUCCESS;
    if (j->direct)
        return gpgpu__mpi_local(gpgpu_scan_init(j->ctx, j->t, j->op, j->kind, j->in, out, j->n,
                                                j->folded ? &j->seed : NULL),
                                j->ctx, "gpgpu_scan_init");
    if (j->q == NULL) {
        if (j->out_arr != NULL)
            return gpgpu__mpi_local(gpgpu_array_write(j->ctx, j->out_arr, 0, j->tmp, j->n),
                                    j->ctx, "gpgpu_array_write");
        memcpy(out, j->tmp, j->n * j->size);
        return GPGPU_SUCCESS;
    }
    size_t first = j->first == 0 && j->kind == GPGPU_INCLUSIVE ? 1 : j->first;
    if (j->out_arr != NULL)
        return gpgpu__mpi_dev_copy(j->q, j->buf, first, gpgpu_array_buffer(j->out_arr), 0,
                                   j->n, j->size);
    return read_after(j, NULL, first, j->n, out);
}

/* The _array form's arrays: both of ctx (a read of no element checks that,
   and waits for nothing), of one type and length. */
static gpgpu_status check_arrays(gpgpu_context *ctx, const gpgpu_array *in,
                                 const gpgpu_array *out, const char *f)
{
    gpgpu_status st = GPGPU_SUCCESS;
    GPGPU__MPI_REQUIRE(st, in != NULL && out != NULL, f, "%s",
                       "in or out is NULL; pass two arrays, or one twice to scan in place");
    GPGPU__MPI_REQUIRE(st, gpgpu_array_type(out) == gpgpu_array_type(in), f,
                       "out holds elements of type %d, in of type %d; need the same",
                       (int)gpgpu_array_type(out), (int)gpgpu_array_type(in));
    GPGPU__MPI_REQUIRE(st, gpgpu_array_length(out) == gpgpu_array_length(in), f,
                       "out has %zu elements, in %zu; need the same length",
                       gpgpu_array_length(out), gpgpu_array_length(in));
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_array_read(ctx, in, 0, NULL, 0), ctx, "in");
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_local(gpgpu_array_read(ctx, out, 0, NULL, 0), ctx, "out");
    return st;
}

/* Both forms: host memory in and out (n elements), or (array_form) the
   arrays in_arr and out_arr, NULL only when the caller passed NULL. */
static gpgpu_status scan_any(gpgpu_context *ctx, MPI_Comm comm, const char *f, gpgpu_type t,
                             gpgpu_op op, gpgpu_scan_kind kind, const void *in, void *out,
                             const gpgpu_array *in_arr, gpgpu_array *out_arr, int array_form,
                             size_t n)
{
    gpgpu__mpi_call c;
    gpgpu_status st = gpgpu__mpi_begin(&c, comm, f, GPGPU__MPI_SCAN, t, op, kind, array_form);
    if (c.comm == MPI_COMM_NULL)
        return st;
    size_t size = gpgpu_type_size(t);
    GPGPU__MPI_REQUIRE(st, ctx != NULL, f, "%s", "ctx is NULL; pass a context");
    GPGPU__MPI_REQUIRE(st, size != 0, f, "t is %d; not a gpgpu_type", (int)t);
    if (array_form && st == GPGPU_SUCCESS)
        st = check_arrays(ctx, in_arr, out_arr, f);
    GPGPU__MPI_REQUIRE(st, array_form || (in != NULL && out != NULL) || n == 0, f,
                       "in or out is NULL with n = %zu; they may be NULL only when n is 0", n);
    GPGPU__MPI_REQUIRE(st, n <= SIZE_MAX / 8 - 1, f, "n is %zu; at most %zu", n, SIZE_MAX / 8 - 1);
    GPGPU__MPI_REQUIRE(st, apart_or_same(in, out, n * size), f,
                       "in (%p) and out (%p) overlap for n = %zu; they must be the same array "
                       "or apart", in, out, n);
    GPGPU__MPI_REQUIRE(st, size == 0 || (uintptr_t)out % size == 0, f,
                       "out (%p) is not aligned to its %zu-byte elements", out, size);
    if (st == GPGPU_SUCCESS && c.size == 1)  /* nothing to seed: scan in place */
        return array_form ? gpgpu__mpi_local(gpgpu_scan_array(ctx, op, kind, in_arr, out_arr),
                                             ctx, "gpgpu_scan_array")
                          : gpgpu__mpi_local(gpgpu_scan(ctx, t, op, kind, in, out, n), ctx,
                                             "gpgpu_scan");
    gpgpu__mpi_parts parts = {NULL, NULL};
    gpgpu__mpi_part mine = {n, {0}};
    scan_job j = {.ctx = ctx, .t = t, .op = op, .kind = kind, .n = n, .size = size, .in = in,
                  .in_arr = in_arr, .out_arr = out_arr};
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_parts_alloc(&parts, c.size);
    if (st == GPGPU_SUCCESS)
        st = job_memory(&j);
    if (st == GPGPU_SUCCESS)
        st = reduce_part(&j, mine.value);
    st = gpgpu__mpi_agree(&c, st);
    if (st == GPGPU_SUCCESS)
        st = gpgpu__mpi_agree(&c, scan_part(&j, &c, &parts, &mine));
    const int delivering = st == GPGPU_SUCCESS;
    if (delivering)
        st = deliver(&j, out);
    if (delivering && array_form)  /* a write to out that failed fails every rank */
        st = gpgpu__mpi_agree(&c, st);
    if (j.kept)
        gpgpu__mpi_keep_give();
    else {
        gpgpu_array_destroy(j.arr);
        free(j.tmp);
    }
    gpgpu__mpi_parts_free(&parts);
    return st;
}

gpgpu_status gpgpu_mpi_scan(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t, gpgpu_op op,
                            gpgpu_scan_kind kind, const void *in, void *out, size_t n)
{
    return scan_any(ctx, comm, __func__, t, op, kind, in, out, NULL, NULL, 0, n);
}

gpgpu_status gpgpu_mpi_scan_array(gpgpu_context *ctx, MPI_Comm comm, gpgpu_op op,
                                  gpgpu_scan_kind kind, const gpgpu_array *in, gpgpu_array *out)
{
    return scan_any(ctx, comm, __func__, gpgpu_array_type(in), op, kind, NULL, NULL, in, out, 1,
                    gpgpu_array_length(in));
}
