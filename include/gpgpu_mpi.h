/*
 * gpgpu_mpi.h - libgpgpu's primitives on an array distributed over the ranks
 * of an MPI communicator, each rank on its own device (libgpgpu-mpi).
 *
 * Build with: mpicc prog.c $(pkg-config --cflags --libs gpgpu-mpi)
 *
 * Conventions for every gpgpu_mpi_* primitive below:
 *  - Every rank of comm calls it collectively, with the same type, operator,
 *    kind, flags, value_size, nbins, lo and hi. n is this rank's count: it may
 *    differ between ranks or be 0. The global array is the concatenation of
 *    the ranks' arrays in rank order, and the answer is the one a single
 *    device would give for that global array.
 *  - ctx is this rank's own context (see gpgpu_mpi_context_create); ranks may
 *    use different kinds of device, the host fallback included.
 *  - Failure is collective: when any rank finds a bad argument (a NULL
 *    pointer, bad flags, nbins 0, arguments that differ between ranks ...) or
 *    its device fails, every rank returns the same non-success status, the
 *    status of the lowest failing rank, and no caller data changes on any
 *    rank. Nobody is left waiting, and comm and the contexts stay usable.
 *    gpgpu_mpi_last_error() says which rank failed and why.
 *  - comm must be the same communicator on every rank. A rank that passes
 *    MPI_COMM_NULL fails with INVALID_ARGUMENT and agrees on that failure over
 *    MPI_COMM_WORLD, so that MPI_COMM_NULL on some ranks and MPI_COMM_WORLD
 *    on the others (or MPI_COMM_NULL on all) fails everywhere without a hang.
 *    An inter-communicator, or MPI not initialised, is INVALID_ARGUMENT on the
 *    ranks that see it (no communication happens).
 *  - Counts beyond INT_MAX elements are handled (MPI derived datatypes).
 *  - MPI errors follow comm's error handler: by default they abort the job;
 *    under MPI_ERRORS_RETURN the call returns GPGPU_ERROR_OPENCL with MPI's
 *    error string in gpgpu_mpi_last_error() (the ranks may then disagree).
 *  - GPGPU_MPI_MAX_COUNT (environment, the same on every rank) lowers the
 *    largest count one MPI call carries from INT_MAX: for testing the paths
 *    that counts beyond INT_MAX take.
 *  - GPGPU_MPI_THREADS (environment, 1 to 16) sets how many threads a sort
 *    partitions a rank's part with; by default the node's processors shared
 *    among the ranks of comm, at most 16, each with 2^16 elements or more.
 *  - When every rank of comm is on one node, a sort's exchanges read what
 *    each rank receives straight from its peers' memory (Linux's
 *    process_vm_readv, on the threads above) instead of passing it through
 *    MPI; where that fails (a container that forbids ptrace, say), every
 *    rank redoes the exchange over MPI and keeps to MPI on that comm.
 *    GPGPU_MPI_CMA=0 (environment, the same on every rank) keeps to MPI.
 *  - A sort keeps its host memory (about the rank's part and its bucket,
 *    keys and values) mapped from one call to the next, so that a call does
 *    not fault in every page afresh; MPI_Finalize releases it.
 *    GPGPU_MPI_KEEP=0 (environment) frees it after every call instead.
 *  - Where every rank's device is a GPU, gpgpu_mpi_sort and _sort_pairs
 *    sort host arrays the same way (the part goes to the device, is sorted
 *    there, and only the runs for other ranks come back before MPI), and
 *    on CPU devices and the host fallback with a partition in host memory.
 *    GPGPU_MPI_SORT=device or =host (environment, the same on every rank)
 *    forces one or the other where possible.
 *  - GPGPU_MPI_TRACE=1 (environment, the same on every rank) makes each
 *    sort report its steps on rank 0: see gpgpu_mpi_last_trace.
 */
#ifndef GPGPU_MPI_H
#define GPGPU_MPI_H

#include <mpi.h>

#include "gpgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Opens this rank's device, collectively over comm. device is a libgpgpu
 * spec (see gpgpu_context_create; NULL: $GPGPU_DEVICE, else the best one),
 * or one that gives each rank of a node its own device:
 *   "gpu:local", "accelerator:local", "cpu:local"
 *       device number L mod D among the D OpenCL devices of that kind (in
 *       platform order, as gpgpu-info lists them), where L is the rank's
 *       index among the ranks of comm on its node
 *       (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED); under Open MPI with comm
 *       MPI_COMM_WORLD that is OMPI_COMM_WORLD_LOCAL_RANK).
 *   "local"  the same as "gpu:local".
 * So `GPGPU_DEVICE=gpu:local mpirun -np 8 ./prog` on two nodes of four GPUs
 * gives each rank a GPU of its own.
 * If any rank fails, every rank returns that status and *ctx is NULL on every
 * rank. Errors: INVALID_ARGUMENT (ctx NULL, comm unusable), NO_DEVICE (no
 * device of that kind on a node, an unknown spec), and those of
 * gpgpu_context_create.
 */
GPGPU_API gpgpu_status gpgpu_mpi_context_create(gpgpu_context **ctx, MPI_Comm comm,
                                                const char *device);

/**
 * The detail of this thread's last failed gpgpu_mpi_* call: the rank that
 * failed first and its reason (that rank's gpgpu_last_error); "" if none.
 */
GPGPU_API const char *gpgpu_mpi_last_error(void);

/**
 * *result = the reduce of the global array, on every rank, bit for bit the
 * same. Each rank reduces its part with gpgpu_reduce; the partials of the
 * non-empty ranks are then combined in rank order (on the host for
 * GPGPU_SUM/MIN/MAX; for a user-defined operator on rank 0's device, then
 * broadcast), so a float reduce is deterministic for a given distribution of
 * the data over the ranks and devices. No non-empty rank: the identity.
 * GPGPU_SUM_EXACT on F32 and F64 does not depend on the distribution at
 * all: each rank takes the exact, unrounded sum of its part
 * (gpgpu_exact_partial_sum), one MPI_Allgather gives every rank all of
 * them, and every rank adds them exactly and rounds once: bit for bit what
 * gpgpu_reduce with GPGPU_SUM_EXACT gives for the global array on one
 * device, whatever the split (empty ranks included; all empty: +0.0) and
 * whichever devices the ranks use.
 * Errors: those of gpgpu_reduce (for GPGPU_SUM_EXACT on floats, of
 * gpgpu_exact_partial_sum), from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_reduce(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                        gpgpu_op op, const void *in, size_t n, void *result);

/**
 * out[0..n) = this rank's slice of the scan of the global array. Each rank
 * reduces its part, the partials are scanned over the ranks in rank order,
 * and each rank scans its part seeded with its offset (every output combined
 * with the offset on its left, as gpgpu_scan_init; on a device the seed is
 * scanned as the element before the part, so float sums may round as a
 * scan one element longer does). out may equal in, and must be aligned to
 * its type. Errors: those of gpgpu_scan, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_scan(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                      gpgpu_op op, gpgpu_scan_kind kind, const void *in,
                                      void *out, size_t n);

/**
 * bins[0..nbins) = the histogram of the global array (as gpgpu_histogram), on
 * every rank: local histograms summed with MPI_Allreduce.
 * Errors: those of gpgpu_histogram, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_histogram(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                           const void *in, size_t n, size_t nbins, double lo,
                                           double hi, uint64_t *bins);

/**
 * bins[0..nbins) = the weighted histogram of the global array (as
 * gpgpu_histogram_weighted), on every rank: local sums added with
 * MPI_Allreduce, so each bin is within the bound of gpgpu_histogram_weighted
 * over all its samples, and NaN where any rank's is. Every rank gets the
 * same bins. Errors: those of gpgpu_histogram_weighted, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_histogram_weighted(gpgpu_context *ctx, MPI_Comm comm,
                                                    gpgpu_type t, const void *in,
                                                    gpgpu_type wt, const void *weights,
                                                    size_t n, size_t nbins, double lo,
                                                    double hi, double *bins);

/**
 * bins[0..nx*ny) = the 2-D histogram of the global samples (as
 * gpgpu_histogram2d), on every rank: local counts summed with
 * MPI_Allreduce. Errors: those of gpgpu_histogram2d, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_histogram2d(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                             const void *x, const void *y, size_t n,
                                             size_t nx, double xlo, double xhi, size_t ny,
                                             double ylo, double yhi, uint64_t *bins);

/**
 * bins[0..nx*ny) = the weighted 2-D histogram of the global samples (as
 * gpgpu_histogram2d_weighted), on every rank, summed as
 * gpgpu_mpi_histogram_weighted. Errors: those of
 * gpgpu_histogram2d_weighted, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_histogram2d_weighted(gpgpu_context *ctx, MPI_Comm comm,
                                                      gpgpu_type t, const void *x,
                                                      const void *y, gpgpu_type wt,
                                                      const void *weights, size_t n, size_t nx,
                                                      double xlo, double xhi, size_t ny,
                                                      double ylo, double yhi, double *bins);

/**
 * Sorts the global array: afterwards the concatenation of keys[0..n) in rank
 * order is the sorted global array, and each rank holds as many keys as it
 * passed in. Stable (equal keys keep their global order), ascending unless
 * GPGPU_DESCENDING; floats in IEEE 754 totalOrder, as gpgpu_sort.
 * Sample sort: splitters from samples of every rank's part, each part cut
 * into buckets by them, an all-to-all of the buckets, one gpgpu_sort of
 * what arrived, then a rebalance to the original counts. Where every
 * rank's device is a GPU the part is sorted on it first and cut where the
 * splitters fall, so only the runs for other ranks leave the device, by
 * way of host buffers of the library's that are pinned; otherwise the
 * part is partitioned on the host (on several threads). Needs host memory
 * for the rank's keys plus its bucket (pinned on the GPU path), kept
 * from call to call until MPI_Finalize (docs/mpi.md). Errors: those of
 * gpgpu_sort, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_sort(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                      void *keys, size_t n, unsigned flags);

/**
 * gpgpu_mpi_sort carrying values (value_size 4 or 8 bytes each) with the keys.
 */
GPGPU_API gpgpu_status gpgpu_mpi_sort_pairs(gpgpu_context *ctx, MPI_Comm comm,
                                            gpgpu_type key_type, void *keys, void *values,
                                            size_t value_size, size_t n, unsigned flags);

/**
 * gpgpu_mpi_reduce on each rank's gpgpu_array: *result (one element of in's
 * type, in host memory) = the reduce of the global array (the ranks'
 * arrays in, concatenated in rank order), on every rank, bit for bit the
 * same. in is this rank's part, an array of ctx; its type and op
 * must agree over the ranks, its length may differ or be 0. Each rank
 * reduces its part on its device with gpgpu_reduce_array (the fixed tree
 * of gpgpu_reduce for its length and device; only the one result comes to
 * the host), one MPI_Allgather gives every rank every partial, and every
 * rank combines those of the non-empty ranks in rank order, left to right
 * ((p0 op p1) op p2 ...): on the host for GPGPU_SUM, MIN and MAX, for a
 * user-defined operator on rank 0's device, then broadcast. So a float sum
 * is the one gpgpu_mpi_reduce gives for the same parts on the same devices,
 * deterministic for a given split. No non-empty rank: the identity.
 * GPGPU_SUM_EXACT on F32 and F64 does not depend on the split: as in
 * gpgpu_mpi_reduce, the ranks add exact partial sums and round once (one
 * device's gpgpu_reduce_array with GPGPU_SUM_EXACT of the global array,
 * bit for bit). libgpgpu takes an exact partial sum of host memory only,
 * so this one case reads the part into host memory, 2^20 elements at a
 * time, and sums each piece on the device.
 * Waits for the result. On failure *result is unchanged on every rank, and
 * in is never written.
 * Errors: INVALID_ARGUMENT (ctx, in or result NULL, in of another
 * context), those of gpgpu_reduce_array (for GPGPU_SUM_EXACT on floats, of
 * gpgpu_array_read and gpgpu_exact_partial_sum), from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_reduce_array(gpgpu_context *ctx, MPI_Comm comm, gpgpu_op op,
                                              const gpgpu_array *in, void *result);

/**
 * gpgpu_mpi_scan on each rank's gpgpu_array: out (an array of ctx with in's
 * type and length; out == in scans in place) = this rank's slice of the
 * scan of the global array (the ranks' arrays in, concatenated in rank
 * order). The part stays on the device: each rank reduces it there
 * (gpgpu_reduce_buffer; only the rank's total comes to the host), one
 * MPI_Allgather of the totals gives each rank its offset (the totals of
 * the non-empty ranks before it, combined in rank order as
 * gpgpu_mpi_reduce combines them), and the rank scans a device copy of its
 * part with the offset as the element before it (gpgpu_scan_buffer over
 * offset, x0, x1 ...: every output combined with the offset on its left;
 * a float sum rounds as a scan one element longer does). That is the
 * computation of gpgpu_mpi_scan on a device, with the same bits; a rank
 * with no non-empty rank before it scans its part alone. On the host
 * fallback, or where the device cannot hold that copy (n + 1 elements in
 * one allocation), the part is read into host memory and scanned there
 * with gpgpu_scan_init instead.
 * On one rank this is gpgpu_scan_array, which does not wait. On several,
 * the scan goes into memory of the call's own (n + 1 elements on the
 * device), and out is written (one device copy, enqueued and not waited
 * for; gpgpu_array_write from host memory) only once every rank has
 * scanned: a failure before that leaves in and out unchanged on every
 * rank. Should that last write itself fail on a rank (the OpenCL runtime
 * refusing to enqueue a copy), every rank still returns that rank's
 * status; out then holds the result on the other ranks, and on that rank
 * is unchanged (a copy) or partly written (gpgpu_array_write).
 * Errors: INVALID_ARGUMENT (ctx, in or out NULL, an array of another
 * context, out of another type or length), those of gpgpu_scan_array and
 * gpgpu_mpi_scan, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_scan_array(gpgpu_context *ctx, MPI_Comm comm, gpgpu_op op,
                                            gpgpu_scan_kind kind, const gpgpu_array *in,
                                            gpgpu_array *out);

/**
 * gpgpu_mpi_histogram on each rank's gpgpu_array: bins[0..nbins) (host
 * memory, overwritten) = the histogram of the global array (the ranks'
 * arrays in, concatenated; by the rule of gpgpu_histogram),
 * on every rank. Each rank bins its part on its device with
 * gpgpu_histogram_array (only its nbins counts come to the host), and
 * MPI_Allreduce sums the counts into bins once every rank has succeeded:
 * on failure bins is unchanged on every rank. in's type, nbins, lo and hi
 * must agree over the ranks. Waits for the bins.
 * Errors: INVALID_ARGUMENT (ctx, in or bins NULL, in of another context,
 * nbins 0), those of gpgpu_histogram_array, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_histogram_array(gpgpu_context *ctx, MPI_Comm comm,
                                                 const gpgpu_array *in, size_t nbins,
                                                 double lo, double hi, uint64_t *bins);

/**
 * gpgpu_mpi_sort on each rank's gpgpu_array: keys (this rank's part, of
 * ctx) is sorted as gpgpu_mpi_sort sorts a host array, and each rank keeps
 * its array's length. On one rank the device sorts the array in place
 * (gpgpu_sort_array, which does not wait). On several, where every rank
 * has an OpenCL device, the part is sorted on the device, only the runs
 * bound for other ranks cross the bus and MPI (host memory), the bucket
 * that arrives is sorted on the device, and the result replaces the
 * array once every rank has it, with a copy of the input kept on the
 * device until every rank has agreed: if any rank cannot write its
 * result, every rank writes its input back. Where a rank has no device
 * (the host fallback), every rank sorts through host memory as
 * gpgpu_mpi_sort does.
 * Errors: INVALID_ARGUMENT (ctx or keys NULL, the array of another
 * context), those of gpgpu_mpi_sort, gpgpu_array_read and
 * gpgpu_array_write, from any rank.
 */
GPGPU_API gpgpu_status gpgpu_mpi_sort_array(gpgpu_context *ctx, MPI_Comm comm,
                                            gpgpu_array *keys, unsigned flags);

/**
 * gpgpu_mpi_sort_array carrying values: an array of 4- or 8-byte elements
 * of keys' length, not keys itself. Errors: those of gpgpu_mpi_sort_array,
 * INVALID_ARGUMENT for values NULL, of another length, or keys.
 */
GPGPU_API gpgpu_status gpgpu_mpi_sort_pairs_array(gpgpu_context *ctx, MPI_Comm comm,
                                                  gpgpu_array *keys, gpgpu_array *values,
                                                  unsigned flags);

/**
 * With GPGPU_MPI_TRACE=1 set on every rank: on rank 0, one line on this
 * thread's last gpgpu_mpi_sort or gpgpu_mpi_sort_pairs of 2 ranks or more
 * (also written to stderr): the call's time, then per step (prepare,
 * samples, partition, exchange, local sort, rebalance) the slowest rank's
 * time, the bytes all ranks moved in it to other ranks ("net") and within
 * themselves ("local": host copies, and the bucket's trip to the device and
 * back for the local sort), and the rate of the two together. "" on other
 * ranks, without the variable, and before any such call.
 */
GPGPU_API const char *gpgpu_mpi_last_trace(void);

/**
 * The global top k (as gpgpu_top_k) of the concatenation of every rank's
 * in[0..n) in rank order, on every rank: values[0..k) the elements and
 * indices[0..k) their positions in the concatenated array (rank r's first
 * element is at the sum of the n of the ranks before it). Each rank takes
 * its own top min(k, n) with gpgpu_top_k; every rank gathers those (at
 * most k per rank, never the array) and merges them. k, flags and t must
 * agree. Errors: those of gpgpu_top_k, from any rank; INVALID_ARGUMENT
 * for k above the global n or above 2^28 / the number of ranks.
 */
GPGPU_API gpgpu_status gpgpu_mpi_top_k(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                       const void *in, size_t n, size_t k, unsigned flags,
                                       void *values, uint64_t *indices);

/**
 * The quantiles (as gpgpu_quantiles) of the concatenation of every rank's
 * in[0..n), into out[0..nq) on every rank, without gathering the array:
 * each rank sorts a copy of its part (gpgpu_sort), and the element of each
 * global rank wanted is found one key bit at a time, every rank counting
 * its keys below a candidate by a binary search and one MPI_Allreduce per
 * bit adding them up (32 or 64 small allreduces in all). q must be the
 * same on every rank. Needs memory for a copy of the rank's part. Errors:
 * those of gpgpu_quantiles and gpgpu_sort, from any rank (n == 0 is an
 * error only when the global n is 0).
 */
GPGPU_API gpgpu_status gpgpu_mpi_quantiles(gpgpu_context *ctx, MPI_Comm comm, gpgpu_type t,
                                           const void *in, size_t n, const double *q,
                                           size_t nq, double *out);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_MPI_H */
