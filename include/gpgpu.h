/*
 * gpgpu.h - data-parallel primitives (reduce, scan, radix sort, histogram)
 * on any OpenCL device, with a plain-C fallback when no OpenCL platform exists.
 *
 * This header is the manual. It uses no OpenCL types: programs that hand the
 * library their own queues and buffers include gpgpu_cl.h as well.
 *
 * Conventions for every function below:
 *  - It returns GPGPU_SUCCESS or a status; on failure gpgpu_last_error(ctx)
 *    says which condition failed (the OpenCL error name, the build log ...).
 *  - A call that fails leaks nothing and leaves the caller's data as it was
 *    (an in-place scan or sort that fails leaves the input untouched).
 *  - n counts elements. n == 0 is valid everywhere; pointers may then be NULL.
 *    An n whose byte size exceeds PTRDIFF_MAX is INVALID_ARGUMENT.
 *  - Host arrays of a typed element must be aligned to that type (4 or 8
 *    bytes; sort values to value_size): a misaligned host array is
 *    INVALID_ARGUMENT.
 *  - One context may be shared by several threads: calls on it are serialised.
 *  - Results are deterministic: the same input, device and n give the same
 *    bits on every run, floating-point sums included.
 */
#ifndef GPGPU_H
#define GPGPU_H

#include <stddef.h>
#include <stdint.h>

#include "gpgpu_version.h"

#if defined(_WIN32)
#  define GPGPU_API
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define GPGPU_API __attribute__((visibility("default")))
#else
#  define GPGPU_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** An OpenCL device (or the host fallback) with its queue and compiled kernels. */
typedef struct gpgpu_context gpgpu_context;

/* Status values are pinned: they never change meaning between versions. */
#define GPGPU_STATUS_LIST(X)                                                   \
    X(GPGPU_SUCCESS, 0, "success")                                             \
    X(GPGPU_ERROR_INVALID_ARGUMENT, 1, "invalid argument")                     \
    X(GPGPU_ERROR_UNSUPPORTED, 2, "not supported by this device")              \
    X(GPGPU_ERROR_OUT_OF_MEMORY, 3, "out of memory")                           \
    X(GPGPU_ERROR_NO_DEVICE, 4, "no such device")                              \
    X(GPGPU_ERROR_BUILD, 5, "kernel build failed")                             \
    X(GPGPU_ERROR_OPENCL, 6, "OpenCL error")

typedef enum {
#define GPGPU_STATUS_ENUM_(name, value, text) name = value,
    GPGPU_STATUS_LIST(GPGPU_STATUS_ENUM_)
#undef GPGPU_STATUS_ENUM_
} gpgpu_status;

/** Element types. I64/U64/F64 need device support (F64: cl_khr_fp64). */
typedef enum { GPGPU_I32, GPGPU_U32, GPGPU_F32, GPGPU_I64, GPGPU_U64, GPGPU_F64 } gpgpu_type;

/** Combining operators. Values >= GPGPU_OP_USER come from gpgpu_op_define. */
typedef int gpgpu_op;
enum { GPGPU_SUM = 0, GPGPU_MIN = 1, GPGPU_MAX = 2, GPGPU_OP_USER = 16 };

/* ------------------------------------------------------------------------ */
/* Exact sums                                                                 */

/**
 * The exact sum (gpgpu_reduce, gpgpu_transform_reduce, gpgpu_segmented_reduce,
 * gpgpu_reduce_by_key, their _buffer and _array forms, gpgpu_mpi_reduce):
 * on F32 and F64 the exact sum of the elements,
 * rounded once to nearest even; the same bits on every device, plan,
 * GPGPU_* override and the host fallback. Any NaN gives NaN (the positive
 * quiet NaN), +inf with -inf gives NaN, otherwise an inf gives that inf; a
 * finite sum that rounds past the largest finite value gives the inf of its
 * sign. An exact zero is +0.0, unless n > 0 and every element is -0.0.
 * On integer types it is GPGPU_SUM. Needs 64-bit integers on the device.
 * Scan does not take it (INVALID_ARGUMENT). gpgpu_mpi_reduce takes it: there
 * the bits do not depend on how the array is split over the ranks (the
 * ranks add the partial sums below, then round once).
 */
enum { GPGPU_SUM_EXACT = 3 };

/**
 * A partial exact sum: the exact, unrounded sum of some F32 or F64
 * elements, for adding sums of pieces of an array (on several devices,
 * threads or processes) and rounding once at the end. Partials add exactly
 * (associative and commutative: any grouping and order of the pieces gives
 * the same partial), and the rounded total has the bits that gpgpu_reduce
 * with GPGPU_SUM_EXACT gives for the whole array, for any cut into pieces,
 * empty ones included, and any device or the host fallback per piece.
 * Plain data of fixed size (552 bytes): copy it with memcpy, or send it as
 * bytes to a process of the same byte order and library version. Its
 * fields are the library's (the sum as an integer in 32-bit limbs, the
 * special values seen, the type): fill them only through the functions
 * below, which refuse a partial they did not write (INVALID_ARGUMENT).
 * These functions take no context; on failure gpgpu_last_error(NULL) (in
 * this thread) gives the detail, except for gpgpu_exact_partial_sum, whose
 * detail is gpgpu_last_error(ctx) once ctx is not NULL. Since 0.2.
 */
typedef struct {
    int64_t limb[68];   /* the sum as an integer times 2^-149 (F32) or 2^-1074 (F64) */
    uint32_t flags;     /* NaN, +inf, -inf, an element other than -0.0, any element */
    uint32_t type;      /* GPGPU_F32 or GPGPU_F64 */
} gpgpu_exact_partial;

/**
 * *p = the empty sum of type t (F32 or F64), a start for
 * gpgpu_exact_partial_add; it rounds to +0.0. Errors: INVALID_ARGUMENT (p
 * NULL, t not GPGPU_F32 or GPGPU_F64). Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_exact_partial_init(gpgpu_exact_partial *p, gpgpu_type t);

/**
 * *p = the exact, unrounded sum of in[0 .. n) (host memory, n == 0 allowed:
 * the empty sum), computed on ctx's device by the passes of gpgpu_reduce's
 * GPGPU_SUM_EXACT (the host adds their rows instead of the final rounding),
 * or in plain C on the host fallback. t is GPGPU_F32 or GPGPU_F64.
 * Errors: INVALID_ARGUMENT (NULL ctx or p, NULL in with n > 0, misaligned
 * in, t not GPGPU_F32 or GPGPU_F64), UNSUPPORTED (F64 or 64-bit integers
 * missing on the device), OUT_OF_MEMORY, OPENCL, BUILD; *p is unchanged on
 * failure. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_exact_partial_sum(gpgpu_context *ctx, gpgpu_type t,
                                               const void *in, size_t n,
                                               gpgpu_exact_partial *p);

/**
 * *acc += *p, exactly (the special values seen are merged too); p may be
 * acc. Both must be partials of the same type. Errors: INVALID_ARGUMENT
 * (NULL acc or p, a partial of another type, one these functions did not
 * write); *acc is unchanged on failure. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_exact_partial_add(gpgpu_exact_partial *acc,
                                               const gpgpu_exact_partial *p);

/**
 * *result (one element of p's type) = the sum that p holds, rounded once
 * to nearest even with GPGPU_SUM_EXACT's rules for NaN, infinities,
 * overflow and zeros: bit for bit what gpgpu_reduce with GPGPU_SUM_EXACT
 * gives for the concatenation of the pieces whose partials were added.
 * p is not changed. Errors: INVALID_ARGUMENT (NULL p or result, a partial
 * these functions did not write). Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_exact_partial_round(const gpgpu_exact_partial *p, void *result);

typedef enum { GPGPU_EXCLUSIVE, GPGPU_INCLUSIVE } gpgpu_scan_kind;

/** Sort flags. */
enum { GPGPU_ASCENDING = 0, GPGPU_DESCENDING = 1 };

/* ------------------------------------------------------------------------ */
/* Library and context                                                        */

/** The library's version, "MAJOR.MINOR.PATCH". Since 0.1. */
GPGPU_API const char *gpgpu_version(void);

/** A constant English phrase for s ("invalid argument"); never NULL. */
GPGPU_API const char *gpgpu_status_string(gpgpu_status s);

/** The size in bytes of one element of t, or 0 for a value that is not a type. */
GPGPU_API size_t gpgpu_type_size(gpgpu_type t);

/**
 * Opens a device. device selects it (NULL: $GPGPU_DEVICE, else the best one):
 *   "gpu", "accelerator", "cpu"  the first device of that kind
 *   "host"                       the plain-C fallback (no OpenCL at all)
 *   "P:D"                        platform P, device D (as gpgpu-info lists them)
 *   anything else                a case-insensitive substring of the device
 *                                or platform name
 * The best device is a GPU over an accelerator over a CPU; with no OpenCL
 * platform installed it is the host fallback (that is not an error).
 * Errors: NO_DEVICE (a spec that matches nothing: never a silent
 * fallback; an OpenCL device in the child of a fork, see below),
 * INVALID_ARGUMENT (ctx NULL), OUT_OF_MEMORY, OPENCL. On failure *ctx is
 * NULL and gpgpu_last_error(NULL) gives the detail.
 *
 * fork: a context belongs to the process that created it. In the child of
 * a fork every call that works on a context made before the fork (the
 * primitives, their _array and _buffer forms, gpgpu_array_create, _read
 * and _write, gpgpu_host_alloc, gpgpu_op_define, gpgpu_set_profiling)
 * returns GPGPU_ERROR_UNSUPPORTED at once (gpgpu_host_alloc: NULL), with a
 * gpgpu_last_error that names the fork and says to create a new context;
 * queries such as gpgpu_device_name still answer. gpgpu_context_destroy
 * and gpgpu_array_destroy of what the parent made free only host memory
 * and call no OpenCL (gpgpu_host_free leaves its block to
 * gpgpu_context_destroy). The child may create contexts of its own: the
 * host fallback ("host") always works there. An OpenCL device works in the child only if
 * no OpenCL platform had been opened by the library in the parent before
 * the fork (any gpgpu_context_create other than "host" opens one, even if
 * its contexts are destroyed since): an OpenCL platform does not survive
 * fork (PoCL's threads stay in the parent, and the child's first command
 * would wait for ever; NVIDIA's driver lists no device). After such a
 * parent, gpgpu_context_create for any device other than "host" returns
 * GPGPU_ERROR_NO_DEVICE at once, with a gpgpu_last_error(NULL) that says
 * so: use the host fallback in the child, exec a new program, or fork
 * before the parent's first context. An OpenCL platform that the program
 * itself opened before the fork is not seen by the library and has the
 * same limits.
 *
 * Threads: the host fallback and the staging of host arrays use one
 * process-wide set of worker threads, started by the first call that needs
 * them and ended when the last context of the process is destroyed, when
 * the library is unloaded and when the process exits (unless a call is
 * still running then). A process may exit with contexts alive.
 */
GPGPU_API gpgpu_status gpgpu_context_create(gpgpu_context **ctx, const char *device);

/** Releases everything the context owns; the library's worker threads end
    with the process's last context. NULL is a no-op. In the child of a
    fork, a context made before the fork is released without OpenCL: only
    its host memory is freed (see gpgpu_context_create). */
GPGPU_API void gpgpu_context_destroy(gpgpu_context *ctx);

/** The device's name ("host" for the fallback); never NULL. */
GPGPU_API const char *gpgpu_device_name(const gpgpu_context *ctx);

/**
 * The tuning the library chose for this device, as "key=value" words
 * (work-group size, element layout, scan path, radix bits, histogram
 * strategy, the host sort's digits as measured so far ...), for
 * gpgpu-info and benchmark reports (docs/tuning.md). Never NULL.
 */
GPGPU_API const char *gpgpu_plan_description(const gpgpu_context *ctx);

/**
 * The detail of the last failure on ctx (the failed condition, the OpenCL
 * error's name, a build log), "" if none. With ctx NULL: the last failure
 * of gpgpu_context_create in this thread. The text stays valid until the
 * next call on ctx.
 */
GPGPU_API const char *gpgpu_last_error(const gpgpu_context *ctx);

/* ------------------------------------------------------------------------ */
/* Host memory the device reaches at full speed                               */

/**
 * Allocates bytes of host memory for arrays that the host-memory calls
 * will use: page-locked (pinned) memory on a discrete GPU, which the bus moves
 * at its full rate with no staging copy; on devices that share host memory
 * (CPUs through PoCL, integrated GPUs) memory the kernels read in place; on
 * the host fallback plain memory. Any pointer inside the allocation, with
 * any length that stays inside it, takes the fast path. Aligned to 4096
 * bytes. Pinned memory is a scarce system resource: allocate what the
 * program reuses, not per call. Returns the memory, or NULL (detail in
 * gpgpu_last_error) for ctx NULL, bytes 0 or out of memory. Since 0.2.
 */
GPGPU_API void *gpgpu_host_alloc(gpgpu_context *ctx, size_t bytes);

/** Frees memory from gpgpu_host_alloc on the same ctx; NULL is a no-op. A
    pointer that is not such an allocation is ignored (and reported in
    gpgpu_last_error). gpgpu_context_destroy frees what is left. */
GPGPU_API void gpgpu_host_free(gpgpu_context *ctx, void *p);

/* ------------------------------------------------------------------------ */
/* Primitives on host memory. Each returns when its result is in place.      */
/*
 * How the caller's arrays reach the device (GPGPU_PROFILE=1 says which, per
 * call; gpgpu-info prints the rule):
 *  - devices that share host memory (PoCL, integrated GPUs): the kernels
 *    read and write the caller's array where it is; nothing is copied.
 *  - discrete GPUs, memory from gpgpu_host_alloc: one DMA each way at the
 *    bus's full rate.
 *  - discrete GPUs, other memory: the array moves in chunks through pinned
 *    staging buffers that several host threads fill and drain while the bus
 *    moves the previous chunk.
 * An in-place call (scan with out == in, sort) writes the caller's array
 * only after every step that can fail has succeeded.
 */

/**
 * result = in[0] op in[1] op ... op in[n-1]; n == 0 gives the identity
 * (0 for SUM; the type's maximum, or +inf, for MIN; its minimum, or -inf,
 * for MAX). Integer sums wrap. Float MIN/MAX ignore NaN (like fmin/fmax):
 * when every element is NaN the result is the identity.
 * Float sums combine in a fixed tree whose shape depends only on n and the
 * device: the bits are reproducible, though they may differ from a serial
 * left-to-right sum by rounding.
 * Errors: INVALID_ARGUMENT (NULL ctx/result, NULL in with n > 0, bad type or
 * op), UNSUPPORTED (64-bit type on a device without it), OUT_OF_MEMORY,
 * OPENCL, BUILD.
 */
GPGPU_API gpgpu_status gpgpu_reduce(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                    const void *in, size_t n, void *result);

/**
 * Prefix scan: out[i] = in[0] op ... op in[i-1] (EXCLUSIVE, out[0] = identity)
 * or in[0] op ... op in[i] (INCLUSIVE). out may equal in (in place); other
 * overlap is INVALID_ARGUMENT. Operands are combined in index order (op need
 * be associative, not commutative). Integer sums wrap.
 * Float sums combine in an order fixed by n and the device's plan, never by
 * timing, so the bits are reproducible: the input is cut into tiles (the
 * plan's scan tile, e.g. 32768 elements on a CPU, 4096 on a GPU), each tile
 * into runs of consecutive elements summed left to right, the runs' totals
 * combined in a log2 tree, and the tiles' totals chained left to right (the
 * single-pass plan) or scanned by the same scheme (multi-pass). Results may
 * differ from a serial loop by rounding (by a few units of eps * sum |x|).
 * Errors as gpgpu_reduce.
 */
GPGPU_API gpgpu_status gpgpu_scan(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                  gpgpu_scan_kind kind, const void *in, void *out, size_t n);

/**
 * gpgpu_scan seeded with *init: every output is combined with init on its
 * left (EXCLUSIVE: out[0] = init). What a distributed scan needs for its
 * per-rank offset. init NULL means the identity.
 */
GPGPU_API gpgpu_status gpgpu_scan_init(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                       gpgpu_scan_kind kind, const void *in, void *out,
                                       size_t n, const void *init);

/**
 * Stable radix sort of n keys in place, ascending unless flags has
 * GPGPU_DESCENDING (the exact reverse order, still stable). Floats follow IEEE
 * 754 totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
 * n may be as large as the device holds: on a GPU the keys and two scratch
 * copies of them (each one buffer, within the device's largest
 * allocation); a CPU device's layout takes at most 2^32 - 1 keys.
 * Errors: INVALID_ARGUMENT (unknown flags, bad type, NULL keys with
 * n > 0, misaligned keys), UNSUPPORTED (a 64-bit type the device lacks;
 * more than 2^32 - 1 keys on a CPU device, naming that limit),
 * OUT_OF_MEMORY, OPENCL, BUILD; keys are unchanged on failure.
 */
GPGPU_API gpgpu_status gpgpu_sort(gpgpu_context *ctx, gpgpu_type t, void *keys, size_t n,
                                  unsigned flags);

/**
 * gpgpu_sort carrying values (value_size 4 or 8 bytes each) along with the
 * keys. Errors as gpgpu_sort, plus INVALID_ARGUMENT for value_size other
 * than 4 or 8, NULL values with n > 0; keys and values are unchanged on
 * failure.
 */
GPGPU_API gpgpu_status gpgpu_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                                        void *values, size_t value_size, size_t n,
                                        unsigned flags);

/**
 * Histogram of n samples into nbins even bins over [lo, hi): bin i counts x
 * with lo + i*w <= x < lo + (i+1)*w, w = (hi - lo) / nbins. Values outside
 * and NaN are not counted; bins[0..nbins-1] are overwritten (all zero for
 * n == 0). nbins may be 1 .. 2^31.
 * Integer samples are binned exactly: with L = ceil(lo) and H = ceil(hi),
 * x is counted iff L <= x < H (exactly the integers in [lo, hi)) and goes to
 * bin (x - L) * nbins / (H - L) in exact integer arithmetic (rounded down).
 * For integer lo and hi that is the definition above, edges included: a
 * value on an edge lo + i*w goes to bin i. Non-integer bounds select the
 * same samples as [lo, hi) and bin them over [ceil(lo), ceil(hi)). Any
 * range up to H - L = 2^64 works (the whole range of every integer type:
 * [0, 2^32) for u32, [-2^63, 2^63) for i64 ...); a wider one where a sample
 * of the type could be counted is UNSUPPORTED.
 * Float samples: x is counted iff lo <= x < hi, compared exactly; then, in
 * the sample's precision, t = (x - lo') * s where lo' is lo rounded up to
 * the sample type and s = nbins / (hi - lo) computed in double, rounded to
 * the sample type (at most its largest finite value); bin = min(floor(t),
 * nbins - 1) (a NaN t, possible only when x - lo' overflows, is nbins - 1).
 * A value on an edge therefore lands where that rounding puts it: usually
 * bin i, possibly i - 1 when w is not a power of two.
 * Errors: INVALID_ARGUMENT (nbins 0 or over 2^31, lo >= hi, lo or hi not
 * finite, NULL in with n > 0, NULL bins, bad type), UNSUPPORTED (integer
 * range wider than 2^64, 64-bit type the device lacks), OUT_OF_MEMORY,
 * OPENCL, BUILD.
 */
GPGPU_API gpgpu_status gpgpu_histogram(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                       size_t n, size_t nbins, double lo, double hi,
                                       uint64_t *bins);

/**
 * Four histograms of nbins each from width x height 8-bit RGBA pixels whose
 * rows start row_stride bytes apart (>= 4 * width): bins[0..nbins) red,
 * then green, blue and the sRGB luminance v = 0.2126 R + 0.7152 G + 0.0722 B
 * (v in 0..1, channels divided by 255); each channel value c in 0..1 goes to
 * bin min(nbins - 1, floor(c * nbins)), computed exactly in integers
 * (c = C / 255, v = (2126 R + 7152 G + 722 B) / 2550000). Alpha is ignored.
 * One read of the image; the last row needs only 4 * width bytes.
 * Errors: INVALID_ARGUMENT (nbins 0 or over 2^29, row_stride < 4 * width,
 * an image of more than PTRDIFF_MAX bytes, NULL pixels with pixels to read,
 * NULL bins), OUT_OF_MEMORY, OPENCL, BUILD.
 */
GPGPU_API gpgpu_status gpgpu_histogram_rgba8(gpgpu_context *ctx, const uint8_t *pixels,
                                             size_t width, size_t height, size_t row_stride,
                                             size_t nbins, uint64_t *bins);

/* ------------------------------------------------------------------------ */
/* Unique, run-length encoding, partition                                     */

/**
 * The first element of each run of consecutive elements with equal bit
 * patterns, in order, to out (room for n elements; out may equal in, other
 * overlap is INVALID_ARGUMENT); *count receives how many. Elements compare
 * by their bits: -0.0 and +0.0 are different values, and NaNs with the same
 * bits are one run. out past *count is unspecified. Works on the host
 * fallback. Needs 64-bit integers on the device (the counts are ulong).
 * Errors: INVALID_ARGUMENT (NULL in or out with n > 0, NULL count, bad type,
 * overlap), UNSUPPORTED, BUILD, OUT_OF_MEMORY, OPENCL. On failure out may
 * have been written (in too, when out == in).
 */
GPGPU_API gpgpu_status gpgpu_unique(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                    size_t n, void *out, size_t *count);

/**
 * Runs of equal bit patterns (as gpgpu_unique): values[r] receives the
 * element of run r and lengths[r] its length, in order; *nruns how many runs
 * (0 for n == 0). values and lengths need room for n entries; values may
 * equal in, other overlap between in, values and lengths is
 * INVALID_ARGUMENT. Works on the host fallback. Errors as gpgpu_unique (NULL
 * values, lengths or nruns: INVALID_ARGUMENT); on failure values and lengths
 * may have been written.
 */
GPGPU_API gpgpu_status gpgpu_run_length_encode(gpgpu_context *ctx, gpgpu_type t,
                                               const void *in, size_t n, void *values,
                                               uint64_t *lengths, size_t *nruns);

/**
 * Stable partition: the elements for which predicate (an expression in x
 * and i, as gpgpu_select) is non-zero, in order, then the others, in order,
 * to out (room for n; out may equal in, other overlap is INVALID_ARGUMENT);
 * *count receives how many were selected. On the host fallback, the
 * predicates the host evaluates (below). Errors as gpgpu_select; on
 * failure out may have been written (in too, when out == in).
 */
GPGPU_API gpgpu_status gpgpu_partition(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                                       const void *in, size_t n, void *out, size_t *count);

/**
 * Histogram over nbins + 1 strictly increasing finite edges: bin i counts x
 * with edges[i] <= x < edges[i+1]; the last bin also counts x ==
 * edges[nbins] (NumPy's rule for histogram(x, bins=edges)). Comparisons are
 * exact on the real numbers: a 64-bit integer sample is not rounded to
 * double first, and a float sample compares with the edge itself, not with
 * the edge rounded to float. NaN and samples outside [edges[0],
 * edges[nbins]] are not counted; bins[0..nbins-1] are overwritten. Edges
 * need not be integers or in the type's range. nbins may be 1 .. 2^31; the
 * device does a binary search over the edges per sample. Works on the host
 * fallback.
 * Errors: INVALID_ARGUMENT (nbins 0 or over 2^31, an edge not finite or not
 * above the one before (the message names it), NULL edges or bins, NULL in
 * with n > 0, bad type), UNSUPPORTED (a 64-bit type the device lacks),
 * OUT_OF_MEMORY, OPENCL, BUILD.
 */
GPGPU_API gpgpu_status gpgpu_histogram_edges(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                             size_t n, const double *edges, size_t nbins,
                                             uint64_t *bins);

/**
 * Weighted histogram: the bins and the bin rule of gpgpu_histogram for
 * samples of type t (the same ranges, the same exact integer rule; NaN and
 * out-of-range samples are not counted), but bins[i] (overwritten, all 0.0
 * for n == 0) is the sum of the weights of the samples in bin i, in double.
 * weights[0..n) are of type wt, GPGPU_F32 or GPGPU_F64; F32 weights are
 * exact in double. Each bin is within (m + 2) * 2^-52 * (the sum of |w|
 * over its m samples) of the exact sum of its weights. A NaN weight makes
 * its own bin NaN and no other; infinities add as in IEEE arithmetic.
 * Groups of one work item (CPU devices, the host fallback) add each part of
 * the samples in order and the parts in order: the same bins on every run.
 * On a GPU the order of the additions within a work-group varies, and the
 * last bits with it. F32 weights on a device without fp64 are summed by the
 * host's threads. Works on the host fallback.
 * Errors: INVALID_ARGUMENT (wt not F32 or F64, NULL weights or in with
 * n > 0, NULL bins, and those of gpgpu_histogram: nbins 0 or over 2^31,
 * lo >= hi, lo or hi not finite, bad type), UNSUPPORTED (F64 weights or a
 * 64-bit sample type the device lacks, an integer range wider than 2^64,
 * a device without 64-bit atomics where work-groups share their sums (GPUs)
 * or the bins do not fit __local memory), OUT_OF_MEMORY, OPENCL, BUILD.
 * A call that fails leaves bins unchanged. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_histogram_weighted(gpgpu_context *ctx, gpgpu_type t,
                                                const void *in, gpgpu_type wt,
                                                const void *weights, size_t n, size_t nbins,
                                                double lo, double hi, double *bins);

/**
 * 2-D histogram (NumPy's histogram2d): bins[ix * ny + iy] (row-major, H[ix,
 * iy]; overwritten, all 0 for n == 0) counts the samples i whose x[i] falls
 * in x-bin ix of nx even bins over [xlo, xhi) and y[i] in y-bin iy of ny
 * over [ylo, yhi), each axis by gpgpu_histogram's rule for type t (both
 * arrays are of type t). A sample counts only if both coordinates do: NaN
 * or out of range in either is not counted. nx * ny may be 1 .. 2^31.
 * Works on the host fallback.
 * Errors: INVALID_ARGUMENT (nx or ny 0, nx * ny over 2^31, a range as
 * gpgpu_histogram checks it, NULL x or y with n > 0, NULL bins, bad type),
 * UNSUPPORTED (an integer range wider than 2^64, a 64-bit type the device
 * lacks, cells beyond __local memory with no 64-bit atomics on the device),
 * OUT_OF_MEMORY, OPENCL, BUILD. A call that fails leaves bins unchanged.
 * Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_histogram2d(gpgpu_context *ctx, gpgpu_type t, const void *x,
                                         const void *y, size_t n, size_t nx, double xlo,
                                         double xhi, size_t ny, double ylo, double yhi,
                                         uint64_t *bins);

/**
 * Weighted 2-D histogram: the cells of gpgpu_histogram2d, each the sum of
 * its samples' weights (type wt, F32 or F64) in double, with the bound, the
 * NaN rule and the run-to-run behaviour of gpgpu_histogram_weighted.
 * Errors: those of gpgpu_histogram2d and of gpgpu_histogram_weighted's
 * weights. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_histogram2d_weighted(gpgpu_context *ctx, gpgpu_type t,
                                                  const void *x, const void *y, gpgpu_type wt,
                                                  const void *weights, size_t n, size_t nx,
                                                  double xlo, double xhi, size_t ny,
                                                  double ylo, double yhi, double *bins);

/* ------------------------------------------------------------------------ */
/* User-defined operators, compiled at run time                               */

/*
 * Expressions (combine, identity, map, predicate) are OpenCL C, pasted into
 * a kernel and compiled the first time they are used with a type. Each is at
 * most 1024 bytes of printable ASCII; line breaks and tabs count as blanks,
 * and runs of blanks are one space. Text that could escape its place in the
 * kernel is INVALID_ARGUMENT before anything is compiled: ';', '{', '}',
 * '#', comment openers, quotes, backslash, trigraphs ("??"), digraphs
 * ("<%", "%>", "<:", ":>", "%:"), unbalanced parentheses or brackets, and
 * empty expressions. So are the marks of pointer use: the address-space
 * keywords (__global, global, __local, local, __private, private,
 * __constant, constant, __generic, generic), a cast that ends in "*)" (also
 * with const, volatile or restrict before the ")") and unary '&'. An
 * expression that passes but does not compile is BUILD, with the compiler's
 * log in gpgpu_last_error. Compiled variants are cached like the built-in
 * ones (in memory and on disk).
 *
 * Maps and predicates that stay within the part of OpenCL C whose results
 * are exact run on the host with no kernel: on the host fallback always,
 * and on CPU devices for calls below the plan's "expr" threshold
 * (gpgpu-info, GPGPU_HOST_BELOW), where a launch costs more than the work.
 * That part: integer and floating literals (1 is int, 1.0 double, 1.0f
 * float, suffixes u and l), x and i, the constants INFINITY, NAN, FLT_MAX,
 * FLT_MIN, FLT_EPSILON, DBL_MAX, DBL_MIN, DBL_EPSILON, INT_MAX, INT_MIN,
 * UINT_MAX, LONG_MAX, LONG_MIN, ULONG_MAX, true and false, casts to int,
 * uint, long, ulong, float and double, the operators - + ! ~ * / % << >>
 * < <= > >= == != & ^ | && || ?: and parentheses, and the functions fabs,
 * floor, ceil, trunc, fma, isnan, isinf, isfinite and signbit (floating
 * arguments), abs, min and max (integer arguments of one type). Types,
 * conversions and shifts follow OpenCL C, so the host's result is the
 * kernel's bit for bit; a floating product added or subtracted (which the
 * kernel compiler may fuse into one multiply-add), other functions and
 * anything else run in the kernel. The fallback, having no kernel to
 * agree with, also takes the C library's sqrt, cbrt, exp, exp2, log, log2,
 * log10, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, round, pow,
 * atan2, hypot, fmin, fmax, fmod and copysign (arguments of one floating
 * type) and unfused products; what it does not take is UNSUPPORTED, the
 * message naming it. User operators (gpgpu_op_define) need an OpenCL
 * device: UNSUPPORTED on the host fallback.
 *
 * SECURITY: an expression is code. It runs with the rights of the program
 * that calls these functions, and on a CPU device (PoCL) inside its very
 * process. The checks above stop text from escaping its place in the
 * kernel and refuse the cheap marks of pointer use; they do not limit what
 * a valid expression can do (read out of bounds through an index, loop
 * without end, crash the process). Never pass text from an untrusted source
 * (a network request, a file or a user of a service) as an expression.
 */

/**
 * Defines an operator on type t: combine is an expression in a and b (both
 * of type t; e.g. "a * b", "a > b ? a : b", "hypot(a, b)"), identity an
 * expression of type t such that combining it with any a gives a ("1", "0",
 * "-INFINITY", "LONG_MAX"). *op receives an id >= GPGPU_OP_USER that works with
 * gpgpu_reduce, gpgpu_scan, gpgpu_transform_reduce and their _buffer forms
 * for type t (INVALID_ARGUMENT with any other type), for the context's life;
 * defining the same text again gives the same id. The operator must be
 * associative; results of a non-associative one are unspecified (the
 * combining order depends on n and the device). The reduce kernel is compiled
 * here, so that a bad expression fails now. Errors: INVALID_ARGUMENT (NULLs,
 * bad type, the expression rules above), UNSUPPORTED (host fallback, a
 * 64-bit type the device lacks), BUILD, OUT_OF_MEMORY, OPENCL; *op is left
 * unchanged on failure.
 */
GPGPU_API gpgpu_status gpgpu_op_define(gpgpu_context *ctx, gpgpu_type t, const char *combine,
                                       const char *identity, gpgpu_op *op);

/**
 * result = in[0]' op in[1]' op ... op in[n-1]', where x' is map, an
 * expression in x of type t whose value is converted to t (e.g. "x * x" for a
 * squared norm, "fabs(x)", "x > 0 ? 1 : 0" to count). The map is applied as
 * each element is loaded: no extra pass or buffer, the speed of gpgpu_reduce.
 * op is a built-in operator or one defined for t; n == 0 gives op's identity.
 * Errors as gpgpu_reduce, plus the expression rules above (UNSUPPORTED on
 * the host fallback for a map the host does not evaluate).
 */
GPGPU_API gpgpu_status gpgpu_transform_reduce(gpgpu_context *ctx, gpgpu_type t,
                                              const char *map, gpgpu_op op, const void *in,
                                              size_t n, void *result);

/**
 * Stream compaction: copies to out, in order, each in[i] for which predicate,
 * an expression in x (the element, of type t) and i (its index, a ulong
 * counted from in[0]), is non-zero; *count receives how many (e.g. "x > 0",
 * "fabs(x) < 1e-3f", "i % 2 == 0 && x != 0"). out must have room for n
 * elements; its elements past *count are unspecified. out may equal in (in
 * place); other overlap is INVALID_ARGUMENT. Needs 64-bit integers on the
 * device (the counts are ulong). Errors: INVALID_ARGUMENT (NULLs with n > 0,
 * count NULL, bad type, overlap, the expression rules above), UNSUPPORTED
 * (also on the host fallback for a predicate the host does not evaluate),
 * BUILD, OUT_OF_MEMORY, OPENCL. On failure out may have been written (in
 * too, when out == in).
 */
GPGPU_API gpgpu_status gpgpu_select(gpgpu_context *ctx, gpgpu_type t, const char *predicate,
                                    const void *in, size_t n, void *out, size_t *count);

/* ------------------------------------------------------------------------ */
/* Segmented and by-key primitives, and the extreme value's index            */

/**
 * The extreme value and the lowest index where it occurs: op is GPGPU_MIN or
 * GPGPU_MAX. Float NaN are skipped (as MIN/MAX skip them); *value is
 * in[*index] itself, so -0.0 and +0.0 keep their sign, and between equal
 * values (-0.0 == +0.0 among them) the lowest index wins. n == 0, or every
 * element NaN: *index = SIZE_MAX and *value = op's identity (as gpgpu_reduce
 * gives). The result does not depend on the device or the plan.
 * Errors: INVALID_ARGUMENT (NULL ctx, value or index, NULL in with n > 0,
 * bad type, op other than MIN/MAX), UNSUPPORTED (64-bit type on a device
 * without it), OUT_OF_MEMORY, OPENCL, BUILD.
 */
GPGPU_API gpgpu_status gpgpu_reduce_index(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                          const void *in, size_t n, void *value,
                                          size_t *index);

/*
 * Segments: offsets holds nseg + 1 non-decreasing element indices; segment
 * s is in[offsets[s] .. offsets[s+1]). Empty segments are allowed (also
 * several at one place, and at either end). Elements outside
 * [offsets[0], offsets[nseg]) are neither read nor written, and only they
 * go to the device. nseg == 0 does nothing (offsets, in and out may then be
 * NULL); in and out may be NULL when every segment is empty. A decreasing
 * offset is INVALID_ARGUMENT naming the pair; offsets is checked on the host
 * before anything runs (O(nseg)). The elements the segments span and the
 * offsets must fit in one device allocation (else OUT_OF_MEMORY).
 * op is built in or one of gpgpu_op_define's for t (user operators need an
 * OpenCL device: UNSUPPORTED on the host fallback). Float results are
 * reproducible: the combining order depends only on the offsets and the
 * device's plan (CPUs: each work item sums a contiguous chunk of elements;
 * GPUs: short segments (average under 32 elements) one work item each,
 * longer ones a work-group per chunk).
 */

/**
 * out[s] = the reduce (as gpgpu_reduce) of segment s, for s < nseg; an empty
 * segment gives op's identity. GPGPU_SUM_EXACT works here too (the bits of
 * gpgpu_reduce's exact sum over each segment; one work item per segment,
 * so a few very long segments are better summed one gpgpu_reduce each;
 * scans refuse it). Errors: INVALID_ARGUMENT (NULL offsets with nseg > 0,
 * NULL in or out with a segment that is not empty, bad type or op,
 * decreasing offsets, an offset whose byte position exceeds
 * PTRDIFF_MAX, misaligned arrays), UNSUPPORTED, OUT_OF_MEMORY, OPENCL, BUILD.
 */
GPGPU_API gpgpu_status gpgpu_segmented_reduce(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                              const void *in, const size_t *offsets,
                                              size_t nseg, void *out);

/**
 * gpgpu_scan restarted at each segment: out[i] for i in segment s combines
 * in[offsets[s] .. i) (EXCLUSIVE; the first element of a segment gets the
 * identity) or in[offsets[s] .. i] (INCLUSIVE). Operands are combined in
 * index order (op need not be commutative). out may equal in (in place);
 * other overlap of the spanned elements is INVALID_ARGUMENT. Errors as
 * gpgpu_segmented_reduce, plus a bad kind.
 */
GPGPU_API gpgpu_status gpgpu_segmented_scan(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                            gpgpu_scan_kind kind, const void *in, void *out,
                                            const size_t *offsets, size_t nseg);

/**
 * gpgpu_sort of each segment on its own, in place: stable, ascending unless
 * flags has GPGPU_DESCENDING, floats in totalOrder; elements outside the
 * segments are untouched. On a GPU each segment of up to a tile (4096
 * 32-bit keys) is one work-group's, sorted in __local memory with its keys
 * read and written once; longer ones are one group's each, by passes
 * through scratch, or the device-wide radix sort's when one alone can fill
 * the device; the spanned elements go through device scratch. On a CPU
 * device (and the fallback) the host's threads sort the segments, each
 * serially. Errors: INVALID_ARGUMENT (as gpgpu_segmented_reduce, unknown
 * flags), UNSUPPORTED (64-bit keys without device support), OUT_OF_MEMORY,
 * OPENCL, BUILD; a segment of 2^32 elements or more goes to the device-wide
 * sort (on a CPU device in the kernels' layout that one takes fewer:
 * UNSUPPORTED);
 * keys are unchanged on failure, except when the host's threads run out of
 * memory half way.
 */
GPGPU_API gpgpu_status gpgpu_segmented_sort(gpgpu_context *ctx, gpgpu_type t, void *keys,
                                            const size_t *offsets, size_t nseg,
                                            unsigned flags);

/**
 * gpgpu_segmented_sort carrying values (value_size 4 or 8 bytes each, the
 * same offsets). Keys and values are unchanged on failure.
 */
GPGPU_API gpgpu_status gpgpu_segmented_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type,
                                                  void *keys, void *values, size_t value_size,
                                                  const size_t *offsets, size_t nseg,
                                                  unsigned flags);

/*
 * Runs: the maximal runs of consecutive keys with equal bit patterns act as
 * segments. keys are I32, U32, I64 or U64 (a float key type is
 * INVALID_ARGUMENT: compare its bits as U32/U64 keys, so that -0.0 and +0.0
 * differ and a NaN equals only the same NaN bits); values are of any type,
 * op built in or defined for value_type (user operators need an OpenCL
 * device). On an OpenCL device keys and values must fit in device memory
 * together, and from 2^32 elements the runs are counted in 64 bits (ranks
 * of 8 bytes per element in device scratch; UNSUPPORTED on a device without
 * 64-bit integers). Float results are reproducible as for
 * gpgpu_segmented_reduce.
 */

/**
 * Reduce by key: for each run r (in order), keys_out[r] = its key,
 * values_out[r] = the reduce of its values (GPGPU_SUM_EXACT too: the
 * exact sum of each run); *nruns = the number of runs (0 for n == 0). The
 * outputs need room for n elements (the worst case: every run of length
 * one); past *nruns they are left unspecified. The outputs may not overlap
 * each other or the inputs.
 * Errors: INVALID_ARGUMENT (NULL nruns, NULLs with n > 0, bad key type,
 * value type or op, misaligned arrays, overlap), UNSUPPORTED,
 * OUT_OF_MEMORY, OPENCL, BUILD; on failure *nruns is unchanged.
 */
GPGPU_API gpgpu_status gpgpu_reduce_by_key(gpgpu_context *ctx, gpgpu_type key_type,
                                           const void *keys, gpgpu_type value_type,
                                           gpgpu_op op, const void *values, size_t n,
                                           void *keys_out, void *values_out, size_t *nruns);

/**
 * gpgpu_segmented_scan of values with the runs of keys as segments: the
 * scan restarts at every change of key. out may equal values (in place);
 * other overlap (with values or keys) is INVALID_ARGUMENT. Errors as
 * gpgpu_reduce_by_key, plus a bad kind.
 */
GPGPU_API gpgpu_status gpgpu_scan_by_key(gpgpu_context *ctx, gpgpu_type key_type,
                                         const void *keys, gpgpu_type value_type, gpgpu_op op,
                                         gpgpu_scan_kind kind, const void *values, void *out,
                                         size_t n);

/* ------------------------------------------------------------------------ */
/* Searching, ordering and gathering (since 0.2)                              */

/** gpgpu_search_sorted sides. */
enum { GPGPU_SEARCH_LEFT = 0, GPGPU_SEARCH_RIGHT = 1 };

/**
 * NumPy's searchsorted: pos[j] (j < m) = how many elements of sorted[0 .. n)
 * come before needles[j] in gpgpu_sort's ascending order (floats by
 * totalOrder, so -0.0 is before +0.0 and each NaN has its place): with side
 * GPGPU_SEARCH_LEFT those below needles[j], with GPGPU_SEARCH_RIGHT those
 * not above it. sorted must be ascending in that order; that is not
 * checked, but on unsorted input every pos[j] is still in [0, n] and
 * nothing outside sorted is read. n == 0 gives zeros; m == 0 does nothing
 * (needles and pos may then be NULL). Each needle is a binary search of
 * log2(n) + 1 reads; sorted and needles are never written.
 * Errors: INVALID_ARGUMENT (NULL ctx, side other than GPGPU_SEARCH_LEFT or
 * GPGPU_SEARCH_RIGHT, bad type, NULL sorted with n > 0, NULL needles or pos
 * with m > 0, misaligned arrays, pos overlapping sorted or needles),
 * UNSUPPORTED (64-bit type on a device without it), OUT_OF_MEMORY, OPENCL,
 * BUILD. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_search_sorted(gpgpu_context *ctx, gpgpu_type t, const void *sorted,
                                           size_t n, const void *needles, size_t m,
                                           unsigned side, uint64_t *pos);

/**
 * indices[i] (i < n) = the position in keys of the i-th element of
 * gpgpu_sort's stable order with flags (GPGPU_ASCENDING or
 * GPGPU_DESCENDING): keys[indices[0]], keys[indices[1]] ... is keys sorted,
 * and equal keys keep their index order in both directions, as gpgpu_sort
 * does. keys is not changed. Costs one gpgpu_sort_pairs of the keys with
 * 32-bit indices (64-bit from n = 2^32) in library scratch, or less: on
 * GPUs the sort reads the keys where they are and writes only the indices;
 * past 2^32 keys it carries 64-bit indices and uses the result as one of
 * its two copies of them, so that device memory holds the keys, two
 * copies of them and two arrays of 64-bit indices (the result one of
 * them): 112 GiB for 2^32 + 5 u32 keys.
 * Errors: INVALID_ARGUMENT (NULL ctx, unknown flags, bad type, NULL keys or
 * indices with n > 0, misaligned arrays, indices overlapping keys),
 * UNSUPPORTED, OUT_OF_MEMORY, OPENCL, BUILD. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_argsort(gpgpu_context *ctx, gpgpu_type t, const void *keys,
                                     size_t n, unsigned flags, uint64_t *indices);

/**
 * out[i] = in[indices[i]] for i < n (NumPy's take, Thrust's gather), with
 * elements of value_size 4 or 8 bytes (any type; the bits are copied).
 * Every index is checked before anything is written: an index >= n_in is
 * INVALID_ARGUMENT, gpgpu_last_error names the first such position and its
 * value, and out is unchanged. out must not overlap in or indices
 * (INVALID_ARGUMENT). n == 0 does nothing (in, indices and out may then be
 * NULL).
 * Errors: INVALID_ARGUMENT (NULL ctx, value_size other than 4 or 8, NULL in
 * with n_in > 0, NULL indices or out with n > 0, misaligned arrays,
 * overlap, an index out of range), UNSUPPORTED (8-byte values on a device
 * without 64-bit integers), OUT_OF_MEMORY, OPENCL, BUILD. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_gather(gpgpu_context *ctx, size_t value_size, const void *in,
                                    size_t n_in, const uint64_t *indices, size_t n, void *out);

/* ------------------------------------------------------------------------ */
/* Profiling                                                                   */

/**
 * Turns timing of each command a call enqueues (kernels, and copies and
 * fills of device memory) on or off (off by default; GPGPU_PROFILE=1 in the
 * environment turns it on and prints a table per call to stderr); the
 * records are read with gpgpu_profile. Errors: INVALID_ARGUMENT (ctx NULL),
 * UNSUPPORTED (turning it on for a context made from a queue without
 * CL_QUEUE_PROFILING_ENABLE).
 */
GPGPU_API gpgpu_status gpgpu_set_profiling(gpgpu_context *ctx, int enabled);

/**
 * One command of the last call on the device, with its OpenCL event
 * timestamps (ns): a kernel launch, or a copy, fill or write of device
 * memory that the call enqueued (kernel "(copy)", "(fill)" or "(write)",
 * global_size its bytes, local_size 0). Transfers through the host-memory
 * routes of host calls are not recorded.
 */
typedef struct {
    const char *kernel;       /* kernel function name, or "(copy)" ... */
    unsigned pass;            /* 0, 1, ... in enqueue order within the call */
    size_t global_size, local_size;
    uint64_t queued_ns, submit_ns, start_ns, end_ns;
} gpgpu_kernel_time;

/**
 * Records of the last primitive call on ctx (waiting for it to finish), valid
 * until the next call, in enqueue order on the context's in-order queue: the
 * first record's start_ns to the last one's end_ns is the call's device
 * time. Returns the number of records; 0 when profiling is off or on the
 * host fallback.
 */
GPGPU_API size_t gpgpu_profile(const gpgpu_context *ctx, const gpgpu_kernel_time **records);

/* ------------------------------------------------------------------------ */
/* Device arrays: chains of calls that keep their data on the device          */
/*
 * A gpgpu_array is n elements of one type in the context's device memory
 * (on the host fallback, in host memory). The primitives below work on
 * arrays the way their _buffer forms of gpgpu_cl.h work on buffers, at the
 * same cost (the same kernels, no extra copy or pass), with no OpenCL type
 * in sight. Data moves between host and device only through
 * gpgpu_array_write and gpgpu_array_read.
 *  - Calls on arrays enqueue their work and return without waiting.
 *    gpgpu_array_read and the calls that return a value in host memory
 *    (reduce, transform_reduce, histogram, select's count) wait for what
 *    they need. Calls on one context run in call order, so a program can
 *    sort, scan, select and reduce, then read once.
 *  - An array belongs to the context that made it: passing it to another
 *    context is INVALID_ARGUMENT, and so is a NULL array, a range
 *    [offset, offset + n) past its length, or an operation's arrays that
 *    differ in length or type where the function says they must agree.
 *  - A failed call returns its status as the host calls do: its input
 *    arrays are unchanged (an in-place sort or scan leaves them as they
 *    were), nothing leaks and the context stays usable. An error that the
 *    device reports only while it runs enqueued work surfaces in the next
 *    call that waits.
 *  - n == 0 arrays are valid everywhere. 64-bit types need device support,
 *    as elsewhere; on the host fallback every function works, user
 *    expressions as far as the host evaluates them and user operators not
 *    at all (UNSUPPORTED, as for the host calls).
 * Since 0.2.
 */

/** n elements of one type on a context's device (opaque). */
typedef struct gpgpu_array gpgpu_array;

/**
 * *a receives a new array of n elements of type t on ctx's device (host
 * memory on the fallback); its contents are unspecified until written.
 * Errors: INVALID_ARGUMENT (ctx or a NULL, bad type, n * size over
 * PTRDIFF_MAX), OUT_OF_MEMORY (more than the device's largest allocation,
 * or the device or host is out of memory), OPENCL. On failure *a is NULL.
 */
GPGPU_API gpgpu_status gpgpu_array_create(gpgpu_context *ctx, gpgpu_type t, size_t n,
                                          gpgpu_array **a);

/** Releases the array without waiting: its memory goes once the work
    already enqueued on it has finished. NULL is a no-op. It may come after
    gpgpu_context_destroy of its context; the array must not be used after
    it. */
GPGPU_API void gpgpu_array_destroy(gpgpu_array *a);

/** The array's number of elements (0 for NULL). */
GPGPU_API size_t gpgpu_array_length(const gpgpu_array *a);

/** The array's element type (GPGPU_I32 for NULL). */
GPGPU_API gpgpu_type gpgpu_array_type(const gpgpu_array *a);

/**
 * Copies n elements from host into a[offset .. offset + n). Returns once
 * host may be reused (the copy has reached the device). Large copies take
 * the fastest route the device has: one DMA from gpgpu_host_alloc memory,
 * else the pinned staging ring of the host calls. Errors: INVALID_ARGUMENT
 * (NULLs with n > 0, another context's array, the range past the array's
 * length, host misaligned for the type), OUT_OF_MEMORY, OPENCL.
 */
GPGPU_API gpgpu_status gpgpu_array_write(gpgpu_context *ctx, gpgpu_array *a, size_t offset,
                                         const void *host, size_t n);

/**
 * Copies a[offset .. offset + n) into host, after every call enqueued
 * before it on ctx has finished (it waits). Errors as gpgpu_array_write;
 * on failure host may have been partly written.
 */
GPGPU_API gpgpu_status gpgpu_array_read(gpgpu_context *ctx, const gpgpu_array *a,
                                        size_t offset, void *host, size_t n);

/**
 * gpgpu_reduce of the whole array: *result (one element of in's type, in
 * host memory) receives in[0] op ... op in[n-1], identity for n == 0.
 * Waits for the result. Errors as gpgpu_reduce, plus the array rules above.
 */
GPGPU_API gpgpu_status gpgpu_reduce_array(gpgpu_context *ctx, gpgpu_op op,
                                          const gpgpu_array *in, void *result);

/**
 * gpgpu_scan of the whole array into out, which has in's type and length;
 * out == in scans in place. Does not wait. Errors as gpgpu_scan, plus
 * INVALID_ARGUMENT for out of another type or length.
 */
GPGPU_API gpgpu_status gpgpu_scan_array(gpgpu_context *ctx, gpgpu_op op,
                                        gpgpu_scan_kind kind, const gpgpu_array *in,
                                        gpgpu_array *out);

/** gpgpu_sort of the whole array, in place. Does not wait. Errors as
    gpgpu_sort; the keys are unchanged on failure. */
GPGPU_API gpgpu_status gpgpu_sort_array(gpgpu_context *ctx, gpgpu_array *keys, unsigned flags);

/**
 * gpgpu_sort_pairs of the whole arrays: values, of any type (4- or 8-byte
 * elements) and of keys' length, travel with their keys. keys and values
 * must be different arrays. Does not wait. Errors as gpgpu_sort_pairs,
 * plus INVALID_ARGUMENT for lengths that differ or values == keys; both
 * arrays are unchanged on failure.
 */
GPGPU_API gpgpu_status gpgpu_sort_pairs_array(gpgpu_context *ctx, gpgpu_array *keys,
                                              gpgpu_array *values, unsigned flags);

/**
 * gpgpu_segmented_sort of an array, in place: offsets is a GPGPU_U64 array
 * of nseg + 1 element indices (nseg = its length - 1; none when it has
 * fewer than 2 elements), read on the device, unchecked, and clamped as in
 * gpgpu_segmented_sort_buffer. Does not wait. Errors as
 * gpgpu_segmented_sort, plus INVALID_ARGUMENT for offsets of another type.
 * Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_segmented_sort_array(gpgpu_context *ctx, gpgpu_array *keys,
                                                  const gpgpu_array *offsets, unsigned flags);

/**
 * gpgpu_segmented_sort_pairs of arrays: values (4- or 8-byte elements, keys'
 * length, another array than keys) travel with their keys. Otherwise as
 * gpgpu_segmented_sort_array. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_segmented_sort_pairs_array(gpgpu_context *ctx, gpgpu_array *keys,
                                                        gpgpu_array *values,
                                                        const gpgpu_array *offsets,
                                                        unsigned flags);

/**
 * gpgpu_histogram of the whole array into nbins counters in host memory
 * (overwritten), by the rule of gpgpu_histogram. Waits for the bins.
 * Errors as gpgpu_histogram, plus the array rules.
 */
GPGPU_API gpgpu_status gpgpu_histogram_array(gpgpu_context *ctx, const gpgpu_array *in,
                                             size_t nbins, double lo, double hi,
                                             uint64_t *bins);

/**
 * gpgpu_histogram_weighted of the whole array in (the samples' type is
 * in's) with weights (an F32 or F64 array of in's length) into nbins sums
 * in host memory (overwritten). Waits for the bins. Errors as
 * gpgpu_histogram_weighted, plus the array rules; F32 weights on a device
 * without fp64 are UNSUPPORTED. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_histogram_weighted_array(gpgpu_context *ctx,
                                                      const gpgpu_array *in,
                                                      const gpgpu_array *weights, size_t nbins,
                                                      double lo, double hi, double *bins);

/**
 * gpgpu_histogram2d of arrays x and y (one type, one length) into nx * ny
 * counts in host memory (overwritten). Waits for the bins. Errors as
 * gpgpu_histogram2d, plus the array rules. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_histogram2d_array(gpgpu_context *ctx, const gpgpu_array *x,
                                               const gpgpu_array *y, size_t nx, double xlo,
                                               double xhi, size_t ny, double ylo, double yhi,
                                               uint64_t *bins);

/**
 * gpgpu_histogram2d_weighted of arrays x, y (one type, one length) and
 * weights (F32 or F64, the same length) into nx * ny sums in host memory
 * (overwritten). Waits for the bins. Errors as gpgpu_histogram2d_weighted,
 * plus the array rules. Since 0.2.
 */
GPGPU_API gpgpu_status gpgpu_histogram2d_weighted_array(gpgpu_context *ctx,
                                                        const gpgpu_array *x,
                                                        const gpgpu_array *y,
                                                        const gpgpu_array *weights, size_t nx,
                                                        double xlo, double xhi, size_t ny,
                                                        double ylo, double yhi, double *bins);

/**
 * gpgpu_transform_reduce of the whole array: *result (one element of in's
 * type) receives map(in[0]) op ... op map(in[n-1]). Waits for the result.
 * Errors as gpgpu_transform_reduce (on the host fallback, the maps the
 * host evaluates).
 */
GPGPU_API gpgpu_status gpgpu_transform_reduce_array(gpgpu_context *ctx, const char *map,
                                                    gpgpu_op op, const gpgpu_array *in,
                                                    void *result);

/**
 * gpgpu_select of the whole array: the elements of in for which predicate
 * holds go, in order, to out[0 .. *count); out has in's type, is at least
 * as long and is another array (out == in is INVALID_ARGUMENT); out's
 * elements past *count are unspecified. Waits for *count. Errors as
 * gpgpu_select (on the host fallback, the predicates the host evaluates);
 * on failure out may have
 * been written, in never is.
 */
GPGPU_API gpgpu_status gpgpu_select_array(gpgpu_context *ctx, const char *predicate,
                                          const gpgpu_array *in, gpgpu_array *out,
                                          size_t *count);

/*
 * The segmented, by-key and compaction primitives on arrays (since 0.2).
 * Offsets are a GPGPU_U64 array of nseg + 1 element indices (nseg = its
 * length - 1; no segment when it has fewer than 2 elements), read where
 * the array lives: on a device unchecked and clamped as in the _buffer
 * forms (an offset past in's length is that length; a decreasing one gives
 * unspecified results but touches nothing outside the arrays); on the host
 * fallback clamped the same way and checked (a decreasing offset is
 * INVALID_ARGUMENT). The calls that hand a count or value back wait for
 * it; the others return with their work enqueued. Outputs are other arrays
 * than the inputs unless a function says otherwise (INVALID_ARGUMENT).
 * Errors as the host-memory functions, plus the array rules above.
 */

/** gpgpu_reduce_index of the whole array: *value (one element of in's
    type) and *index (SIZE_MAX for none). Waits for both. */
GPGPU_API gpgpu_status gpgpu_reduce_index_array(gpgpu_context *ctx, gpgpu_op op,
                                                const gpgpu_array *in, void *value,
                                                size_t *index);

/** gpgpu_segmented_reduce: out (in's type, at least nseg elements)
    receives each segment's reduce in out[0 .. nseg). Does not wait. */
GPGPU_API gpgpu_status gpgpu_segmented_reduce_array(gpgpu_context *ctx, gpgpu_op op,
                                                    const gpgpu_array *in,
                                                    const gpgpu_array *offsets,
                                                    gpgpu_array *out);

/** gpgpu_segmented_scan: out has in's type and length, and may be in (in
    place); elements outside the segments are left as they are in out. Does
    not wait. */
GPGPU_API gpgpu_status gpgpu_segmented_scan_array(gpgpu_context *ctx, gpgpu_op op,
                                                  gpgpu_scan_kind kind, const gpgpu_array *in,
                                                  gpgpu_array *out,
                                                  const gpgpu_array *offsets);

/** gpgpu_reduce_by_key: keys (I32, U32, I64 or U64) and values of one
    length; keys_out of keys' type and values_out of values' type, each at
    least that long, receive the runs. Waits for *nruns. */
GPGPU_API gpgpu_status gpgpu_reduce_by_key_array(gpgpu_context *ctx, gpgpu_op op,
                                                 const gpgpu_array *keys,
                                                 const gpgpu_array *values,
                                                 gpgpu_array *keys_out,
                                                 gpgpu_array *values_out, size_t *nruns);

/** gpgpu_scan_by_key: out has values' type and length and may be values (in
    place), never keys. Does not wait. */
GPGPU_API gpgpu_status gpgpu_scan_by_key_array(gpgpu_context *ctx, gpgpu_op op,
                                               gpgpu_scan_kind kind, const gpgpu_array *keys,
                                               const gpgpu_array *values, gpgpu_array *out);

/** gpgpu_unique: the run heads of in to out (in's type, at least as long,
    another array), their number to *count. Waits for *count. */
GPGPU_API gpgpu_status gpgpu_unique_array(gpgpu_context *ctx, const gpgpu_array *in,
                                          gpgpu_array *out, size_t *count);

/** gpgpu_run_length_encode: values (in's type) and lengths (GPGPU_U64), each
    at least in's length and another array, receive the runs. Waits for
    *nruns. */
GPGPU_API gpgpu_status gpgpu_run_length_encode_array(gpgpu_context *ctx, const gpgpu_array *in,
                                                     gpgpu_array *values, gpgpu_array *lengths,
                                                     size_t *nruns);

/** gpgpu_partition: out (in's type, at least as long, another array)
    receives the selected elements then the others; *count how many were
    selected. Waits for *count. On the host fallback, the predicates the
    host evaluates (gpgpu_partition). */
GPGPU_API gpgpu_status gpgpu_partition_array(gpgpu_context *ctx, const char *predicate,
                                             const gpgpu_array *in, gpgpu_array *out,
                                             size_t *count);

/** gpgpu_histogram_edges of the whole array into nbins counters in host
    memory (overwritten). Waits for the bins. */
GPGPU_API gpgpu_status gpgpu_histogram_edges_array(gpgpu_context *ctx, const gpgpu_array *in,
                                                   const double *edges, size_t nbins,
                                                   uint64_t *bins);

/** gpgpu_search_sorted of arrays: pos (GPGPU_U64, needles' length, another
    array) receives the positions of needles (sorted's type) in sorted.
    Does not wait. Errors as gpgpu_search_sorted, plus the array rules.
    Since 0.2. */
GPGPU_API gpgpu_status gpgpu_search_sorted_array(gpgpu_context *ctx, const gpgpu_array *sorted,
                                                 const gpgpu_array *needles, unsigned side,
                                                 gpgpu_array *pos);

/** gpgpu_argsort of the whole array: indices (GPGPU_U64, keys' length,
    another array) receives the stable order of keys, which are not
    changed. Does not wait. Errors as gpgpu_argsort, plus the array rules.
    Since 0.2. */
GPGPU_API gpgpu_status gpgpu_argsort_array(gpgpu_context *ctx, const gpgpu_array *keys,
                                           unsigned flags, gpgpu_array *indices);

/** gpgpu_gather of arrays: out (in's type, indices' length, another array
    than in and indices) receives in[indices[i]]; indices is GPGPU_U64.
    Checks the indices on the device and waits for that check: an index
    past in's length is INVALID_ARGUMENT naming its position, and out is
    then unchanged. Errors as gpgpu_gather, plus the array rules. Since 0.2. */
GPGPU_API gpgpu_status gpgpu_gather_array(gpgpu_context *ctx, const gpgpu_array *in,
                                          const gpgpu_array *indices, gpgpu_array *out);
/*
 * ---- Selection: top-k and quantiles ----
 *
 * A radix select: a read of the data per 8-bit digit of the keys (four for
 * 32-bit types, eight for 64-bit) finds the element of a given rank
 * without sorting, in gpgpu_sort's order (floats by totalOrder).
 */

/**
 * The first k elements of gpgpu_sort's stable order of in[0 .. n), in that
 * order: flags 0 gives the k smallest, GPGPU_DESCENDING the k largest.
 * values[i] receives the element (its bits as in the input) and indices[i]
 * its position in in; equal elements come in index order. Either output may
 * be NULL, not both (unless k is 0). in is not changed; k == 0 does nothing.
 * Up to k = 1024 a CPU device reads in once (a heap of the k best per
 * chunk of in), a GPU about five times (ten for 64-bit types: a radix
 * select); a larger k sorts (element, index) pairs instead.
 * Errors: INVALID_ARGUMENT (k > n, unknown flags, NULL in with n > 0, both
 * outputs NULL with k > 0, bad type, arrays not aligned to their element),
 * UNSUPPORTED (a 64-bit type or the indices on a device without 64-bit
 * integers, f64 without fp64), OUT_OF_MEMORY, OPENCL, BUILD. On failure
 * values and indices may have been partly written.
 */
GPGPU_API gpgpu_status gpgpu_top_k(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                   size_t k, unsigned flags, void *values, uint64_t *indices);

/**
 * Quantiles by NumPy's default "linear" method: with x the elements in
 * ascending order (gpgpu_sort's), each converted to double (rounded to
 * nearest) after ordering, and for each q[j] in [0, 1]: h = (n - 1) * q[j],
 * i = floor(h), g = h - i, all in double; out[j] = x[i] when g == 0, else
 * x[i] + g * (x[i+1] - x[i]), each operation rounded in double (no fused
 * multiply-add). If any element is NaN, every out[j] is NaN (as
 * numpy.quantile). The elements needed are found by a radix select, 16
 * ranks per round of reads (a read per 8-bit digit; each q needs one or
 * two ranks); more than 32 distinct ranks sort a copy of in instead. nq == 0 does
 * nothing.
 * Errors: INVALID_ARGUMENT (n == 0, a q[j] outside [0, 1] or NaN, NULL in,
 * q or out, bad type, arrays not aligned), UNSUPPORTED (64-bit types on a
 * device without them), OUT_OF_MEMORY, OPENCL, BUILD. out is unspecified
 * on failure.
 */
GPGPU_API gpgpu_status gpgpu_quantiles(gpgpu_context *ctx, gpgpu_type t, const void *in,
                                       size_t n, const double *q, size_t nq, double *out);

/**
 * gpgpu_top_k of the whole array: values (in's type, at least k long) and
 * indices (GPGPU_U64, at least k long) receive the first k elements and
 * their positions; either may be NULL, not both (unless k is 0), and
 * neither may be in. Does not wait. Errors as gpgpu_top_k, plus
 * INVALID_ARGUMENT for outputs of the wrong type or too short.
 */
GPGPU_API gpgpu_status gpgpu_top_k_array(gpgpu_context *ctx, const gpgpu_array *in, size_t k,
                                         unsigned flags, gpgpu_array *values,
                                         gpgpu_array *indices);

/** gpgpu_quantiles of the whole array into out[0 .. nq) in host memory.
    Waits for the results. Errors as gpgpu_quantiles. */
GPGPU_API gpgpu_status gpgpu_quantiles_array(gpgpu_context *ctx, const gpgpu_array *in,
                                             const double *q, size_t nq, double *out);

#ifdef __cplusplus
}
#endif

#endif /* GPGPU_H */
