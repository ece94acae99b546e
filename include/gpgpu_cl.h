/*
 * gpgpu_cl.h - the primitives on the caller's OpenCL buffers, asynchronous.
 *
 * Offsets and n count elements. Each function waits for the caller's events
 * (num_wait, wait), enqueues its passes on the context's queue and, when done
 * is not NULL, hands back one event (the caller releases it) that completes
 * when the result is in place; on any failure *done is NULL (nothing to
 * release), and a range outside its buffer (offset + n past the buffer's
 * size) is INVALID_ARGUMENT. Nothing blocks. Scratch memory is the
 * library's and is reused between calls; a call on the same context must not
 * start before the previous one's done event has completed if it is made
 * on another queue. On the host fallback these functions are UNSUPPORTED.
 */
#ifndef GPGPU_CL_H
#define GPGPU_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#  define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "gpgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A context on the caller's queue (its device and cl_context are used; the
 * queue is retained, and released by gpgpu_context_destroy). Profiling works
 * only if the queue has CL_QUEUE_PROFILING_ENABLE. Errors: INVALID_ARGUMENT
 * (ctx or queue NULL), UNSUPPORTED (an out-of-order queue), OUT_OF_MEMORY,
 * OPENCL, NO_DEVICE (in the child of a fork whose parent had opened OpenCL
 * through the library: see gpgpu_context_create on fork); on failure *ctx
 * is NULL and gpgpu_last_error(NULL) gives the detail.
 */
GPGPU_API gpgpu_status gpgpu_context_from_queue(gpgpu_context **ctx, cl_command_queue queue);

/** The context's queue (not retained for the caller); NULL on the host fallback. */
GPGPU_API cl_command_queue gpgpu_queue(const gpgpu_context *ctx);

/** Reduces in[in_offset .. +n) into one element at result[result_offset]. */
GPGPU_API gpgpu_status gpgpu_reduce_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                           cl_mem in, size_t in_offset, size_t n,
                                           cl_mem result, size_t result_offset,
                                           cl_uint num_wait, const cl_event *wait,
                                           cl_event *done);

/** Scans in[in_offset .. +n) into out[out_offset ..]; the same buffer and
    offset for both is an in-place scan. */
GPGPU_API gpgpu_status gpgpu_scan_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                         gpgpu_scan_kind kind, cl_mem in, size_t in_offset,
                                         cl_mem out, size_t out_offset, size_t n,
                                         cl_uint num_wait, const cl_event *wait,
                                         cl_event *done);

/** Sorts keys[offset .. +n) in place. */
GPGPU_API gpgpu_status gpgpu_sort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                         size_t offset, size_t n, unsigned flags,
                                         cl_uint num_wait, const cl_event *wait,
                                         cl_event *done);

/** Sorts keys[key_offset .. +n) in place, carrying values[value_offset ..]
    (value_size 4 or 8 bytes; offsets in elements of each). */
GPGPU_API gpgpu_status gpgpu_sort_pairs_buffer(gpgpu_context *ctx, gpgpu_type key_type,
                                               cl_mem keys, size_t key_offset, cl_mem values,
                                               size_t value_offset, size_t value_size,
                                               size_t n, unsigned flags, cl_uint num_wait,
                                               const cl_event *wait, cl_event *done);

/** Histogram of in[in_offset .. +n) into nbins cl_ulong counters at
    bins[bins_offset ..] (overwritten). */
GPGPU_API gpgpu_status gpgpu_histogram_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                              size_t in_offset, size_t n, size_t nbins,
                                              double lo, double hi, cl_mem bins,
                                              size_t bins_offset, cl_uint num_wait,
                                              const cl_event *wait, cl_event *done);

/** gpgpu_transform_reduce on buffers: reduces map(x) over
    in[in_offset .. +n) into one element at result[result_offset]. */
GPGPU_API gpgpu_status gpgpu_transform_reduce_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                     const char *map, gpgpu_op op, cl_mem in,
                                                     size_t in_offset, size_t n, cl_mem result,
                                                     size_t result_offset, cl_uint num_wait,
                                                     const cl_event *wait, cl_event *done);

/** gpgpu_select on buffers: the number kept is written as one cl_ulong to
    count[count_offset]; the predicate's i counts from in[in_offset]. The
    same buffer for in and out is allowed only when the two ranges do not
    overlap. */
GPGPU_API gpgpu_status gpgpu_select_buffer(gpgpu_context *ctx, gpgpu_type t,
                                           const char *predicate, cl_mem in,
                                           size_t in_offset, size_t n, cl_mem out,
                                           size_t out_offset, cl_mem count,
                                           size_t count_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done);

/** The buffer behind a gpgpu_array (not retained for the caller), for
    programs that also run their own kernels on it: its size is the array's
    length times its element size (16 bytes for an empty array). Work on it
    must be ordered with the library's, e.g. on gpgpu_queue(ctx). NULL for
    a NULL array and on the host fallback. Since 0.2. */
GPGPU_API cl_mem gpgpu_array_buffer(const gpgpu_array *a);

/** gpgpu_unique on buffers: the run heads of in[in_offset .. +n) to
    out[out_offset ..], their number as one cl_ulong at count[count_offset].
    The same buffer for in and out is allowed only when the two ranges do
    not overlap. */
GPGPU_API gpgpu_status gpgpu_unique_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                           size_t in_offset, size_t n, cl_mem out,
                                           size_t out_offset, cl_mem count,
                                           size_t count_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done);

/** gpgpu_run_length_encode on buffers: values to values[values_offset ..],
    lengths as cl_ulongs to lengths[lengths_offset ..] (room for n each), the
    number of runs as one cl_ulong at nruns[nruns_offset]. in and values may
    be the same buffer only with ranges that do not overlap; lengths is
    another buffer than both. Scratch: 8 bytes an element. */
GPGPU_API gpgpu_status gpgpu_run_length_encode_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                      cl_mem in, size_t in_offset, size_t n,
                                                      cl_mem values, size_t values_offset,
                                                      cl_mem lengths, size_t lengths_offset,
                                                      cl_mem nruns, size_t nruns_offset,
                                                      cl_uint num_wait, const cl_event *wait,
                                                      cl_event *done);

/** gpgpu_partition on buffers: the selected count as one cl_ulong at
    count[count_offset]; the predicate's i counts from in[in_offset]. The
    same buffer for in and out is allowed only when the ranges do not
    overlap. */
GPGPU_API gpgpu_status gpgpu_partition_buffer(gpgpu_context *ctx, gpgpu_type t,
                                              const char *predicate, cl_mem in,
                                              size_t in_offset, size_t n, cl_mem out,
                                              size_t out_offset, cl_mem count,
                                              size_t count_offset, cl_uint num_wait,
                                              const cl_event *wait, cl_event *done);

/** gpgpu_histogram_edges of in[in_offset .. +n) into nbins cl_ulong
    counters at bins[bins_offset ..] (overwritten). edges is host memory,
    read before the call returns. */
GPGPU_API gpgpu_status gpgpu_histogram_edges_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                    cl_mem in, size_t in_offset, size_t n,
                                                    const double *edges, size_t nbins,
                                                    cl_mem bins, size_t bins_offset,
                                                    cl_uint num_wait, const cl_event *wait,
                                                    cl_event *done);

/** gpgpu_histogram_weighted of in[in_offset .. +n) with weights of type wt
    from weights[weights_offset ..] into nbins cl_double sums at
    bins[bins_offset ..] (overwritten). UNSUPPORTED on a device without
    fp64. */
GPGPU_API gpgpu_status gpgpu_histogram_weighted_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                       cl_mem in, size_t in_offset,
                                                       gpgpu_type wt, cl_mem weights,
                                                       size_t weights_offset, size_t n,
                                                       size_t nbins, double lo, double hi,
                                                       cl_mem bins, size_t bins_offset,
                                                       cl_uint num_wait, const cl_event *wait,
                                                       cl_event *done);

/** gpgpu_histogram2d of x[x_offset .. +n) and y[y_offset .. +n) into
    nx * ny cl_ulong counts at bins[bins_offset ..] (overwritten). */
GPGPU_API gpgpu_status gpgpu_histogram2d_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem x,
                                                size_t x_offset, cl_mem y, size_t y_offset,
                                                size_t n, size_t nx, double xlo, double xhi,
                                                size_t ny, double ylo, double yhi, cl_mem bins,
                                                size_t bins_offset, cl_uint num_wait,
                                                const cl_event *wait, cl_event *done);

/** gpgpu_histogram2d_weighted on buffers: the cells' cl_double sums at
    bins[bins_offset ..] (overwritten). UNSUPPORTED on a device without
    fp64. */
GPGPU_API gpgpu_status gpgpu_histogram2d_weighted_buffer(
    gpgpu_context *ctx, gpgpu_type t, cl_mem x, size_t x_offset, cl_mem y, size_t y_offset,
    gpgpu_type wt, cl_mem weights, size_t weights_offset, size_t n, size_t nx, double xlo,
    double xhi, size_t ny, double ylo, double yhi, cl_mem bins, size_t bins_offset,
    cl_uint num_wait, const cl_event *wait, cl_event *done);

/** gpgpu_reduce_index on buffers: the value goes to value[value_offset] and
    the index, counted from in[in_offset], as one cl_ulong to
    index[index_offset] (CL_ULONG_MAX for none). */
GPGPU_API gpgpu_status gpgpu_reduce_index_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                                 cl_mem in, size_t in_offset, size_t n,
                                                 cl_mem value, size_t value_offset,
                                                 cl_mem index, size_t index_offset,
                                                 cl_uint num_wait, const cl_event *wait,
                                                 cl_event *done);

/** gpgpu_segmented_reduce on buffers: offsets is a buffer of nseg + 1
    cl_ulong from offsets[offsets_offset], counting elements from
    in[in_offset]; segment s's result goes to out[out_offset + s]. The
    offsets stay on the device, unchecked: an offset past the end of in's
    buffer is taken as that end and a decreasing one gives an empty segment
    (results then unspecified, but nothing outside the buffers is touched).
    The strategy is chosen from in's size over nseg. */
GPGPU_API gpgpu_status gpgpu_segmented_reduce_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                     gpgpu_op op, cl_mem in, size_t in_offset,
                                                     cl_mem offsets, size_t offsets_offset,
                                                     size_t nseg, cl_mem out,
                                                     size_t out_offset, cl_uint num_wait,
                                                     const cl_event *wait, cl_event *done);

/** gpgpu_segmented_scan on buffers: offsets as gpgpu_segmented_reduce_buffer,
    counting elements from in[in_offset] and from out[out_offset] alike (an
    offset is clamped to the shorter of the two buffers). The same buffer for
    in and out needs the same offset (in place). */
GPGPU_API gpgpu_status gpgpu_segmented_scan_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                   gpgpu_op op, gpgpu_scan_kind kind,
                                                   cl_mem in, size_t in_offset, cl_mem out,
                                                   size_t out_offset, cl_mem offsets,
                                                   size_t offsets_offset, size_t nseg,
                                                   cl_uint num_wait, const cl_event *wait,
                                                   cl_event *done);

/** gpgpu_segmented_sort on a buffer, in place: offsets is a buffer of
    nseg + 1 cl_ulong from offsets[offsets_offset], counting elements from
    keys[offset]. The offsets stay on the device, unchecked, as in
    gpgpu_segmented_reduce_buffer: an offset past the end of keys' buffer is
    taken as that end and a decreasing one gives an empty segment (results
    then unspecified where segments overlap, but nothing outside the buffers
    is touched). Where keys' buffer holds 2^32 elements or more past
    offset, the call reads the offsets back (it blocks) and sorts each
    segment of 2^32 elements or more with the device-wide sort.
    A segment of up to 4096 keys (32-bit; fewer for 64-bit keys with
    values) is one work-group's, sorted in __local memory; a longer one is
    also one group's, by passes through scratch as large as keys' buffer
    past offset: for a few very long segments gpgpu_sort_buffer on each is
    faster. Since 0.2. */
GPGPU_API gpgpu_status gpgpu_segmented_sort_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                   cl_mem keys, size_t offset, cl_mem offsets,
                                                   size_t offsets_offset, size_t nseg,
                                                   unsigned flags, cl_uint num_wait,
                                                   const cl_event *wait, cl_event *done);

/** gpgpu_segmented_sort_pairs on buffers: the offsets count elements from
    keys[key_offset] and values[value_offset] alike (clamped to the shorter
    of the two buffers); values (value_size 4 or 8 bytes) is another buffer
    than keys. Otherwise as gpgpu_segmented_sort_buffer. Since 0.2. */
GPGPU_API gpgpu_status gpgpu_segmented_sort_pairs_buffer(gpgpu_context *ctx,
                                                         gpgpu_type key_type, cl_mem keys,
                                                         size_t key_offset, cl_mem values,
                                                         size_t value_offset,
                                                         size_t value_size, cl_mem offsets,
                                                         size_t offsets_offset, size_t nseg,
                                                         unsigned flags, cl_uint num_wait,
                                                         const cl_event *wait,
                                                         cl_event *done);

/** gpgpu_reduce_by_key on buffers: keys[keys_offset .. +n) and values[..],
    the runs' keys and values to keys_out[keys_out_offset ..] and
    values_out[values_out_offset ..] (room for n each; past the runs
    unspecified), their number as one cl_ulong to nruns[nruns_offset]. The
    outputs may not overlap the inputs. Never blocks: the reduce runs over n
    segments, those past the last run empty (scratch of about 12 bytes per
    element). */
GPGPU_API gpgpu_status gpgpu_reduce_by_key_buffer(gpgpu_context *ctx, gpgpu_type key_type,
                                                  cl_mem keys, size_t keys_offset,
                                                  gpgpu_type value_type, gpgpu_op op,
                                                  cl_mem values, size_t values_offset, size_t n,
                                                  cl_mem keys_out, size_t keys_out_offset,
                                                  cl_mem values_out, size_t values_out_offset,
                                                  cl_mem nruns, size_t nruns_offset,
                                                  cl_uint num_wait, const cl_event *wait,
                                                  cl_event *done);

/** gpgpu_scan_by_key on buffers; the same buffer for values and out needs
    the same offset (in place). */
GPGPU_API gpgpu_status gpgpu_scan_by_key_buffer(gpgpu_context *ctx, gpgpu_type key_type,
                                                cl_mem keys, size_t keys_offset,
                                                gpgpu_type value_type, gpgpu_op op,
                                                gpgpu_scan_kind kind, cl_mem values,
                                                size_t values_offset, cl_mem out,
                                                size_t out_offset, size_t n, cl_uint num_wait,
                                                const cl_event *wait, cl_event *done);

/** gpgpu_search_sorted on buffers: sorted[sorted_offset .. +n) and
    needles[needles_offset .. +m) of type t, the positions as m cl_ulongs to
    pos[pos_offset ..], which must not overlap either input. Since 0.2. */
GPGPU_API gpgpu_status gpgpu_search_sorted_buffer(gpgpu_context *ctx, gpgpu_type t,
                                                  cl_mem sorted, size_t sorted_offset, size_t n,
                                                  cl_mem needles, size_t needles_offset,
                                                  size_t m, unsigned side, cl_mem pos,
                                                  size_t pos_offset, cl_uint num_wait,
                                                  const cl_event *wait, cl_event *done);

/** gpgpu_argsort on buffers: the stable order of keys[keys_offset .. +n)
    as n cl_ulongs to indices[indices_offset ..], which must not overlap the
    keys; the keys are not changed. Scratch: two copies of the keys and of
    32-bit indices, as gpgpu_sort_pairs_buffer. Since 0.2. */
GPGPU_API gpgpu_status gpgpu_argsort_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                            size_t keys_offset, size_t n, unsigned flags,
                                            cl_mem indices, size_t indices_offset,
                                            cl_uint num_wait, const cl_event *wait,
                                            cl_event *done);

/** gpgpu_gather on buffers: out[out_offset + i] = in[in_offset +
    indices[indices_offset + i]] for i < n, elements of value_size 4 or 8
    bytes, indices cl_ulongs counted from in[in_offset], n_in of them valid.
    The indices stay on the device, unchecked (nothing blocks): for an index
    >= n_in nothing is read and out[out_offset + i] is left as it was. out
    must not overlap in or indices. Since 0.2. */
GPGPU_API gpgpu_status gpgpu_gather_buffer(gpgpu_context *ctx, size_t value_size, cl_mem in,
                                           size_t in_offset, size_t n_in, cl_mem indices,
                                           size_t indices_offset, size_t n, cl_mem out,
                                           size_t out_offset, cl_uint num_wait,
                                           const cl_event *wait, cl_event *done);
/** gpgpu_top_k of in[in_offset .. +n): the elements to values[values_offset
    ..] (the type of in) and their positions (counted from in_offset) as
    cl_ulong to indices[indices_offset ..]; either buffer may be NULL, not
    both (unless k is 0). Errors as gpgpu_top_k, plus INVALID_ARGUMENT for a
    range outside its buffer. */
GPGPU_API gpgpu_status gpgpu_top_k_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                          size_t in_offset, size_t n, size_t k, unsigned flags,
                                          cl_mem values, size_t values_offset, cl_mem indices,
                                          size_t indices_offset, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done);

/** gpgpu_quantiles of in[in_offset .. +n) into nq cl_double at
    out[out_offset ..]. q is host memory, read before the call returns.
    Errors as gpgpu_quantiles, plus UNSUPPORTED on a device without fp64
    (the results are computed there) and INVALID_ARGUMENT for a range
    outside its buffer. */
GPGPU_API gpgpu_status gpgpu_quantiles_buffer(gpgpu_context *ctx, gpgpu_type t, cl_mem in,
                                              size_t in_offset, size_t n, const double *q,
                                              size_t nq, cl_mem out, size_t out_offset,
                                              cl_uint num_wait, const cl_event *wait,
                                              cl_event *done);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_CL_H */
