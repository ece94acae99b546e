/*
 * core.h - what the core (lib/core) offers the layers above it: types,
 * errors, the plan, the context and its queue, programs and the cache,
 * the routes host memory takes, host threads, profiling, fault injection
 * and device arrays. Nothing here is exported: internal names start with
 * gpgpu__ and are hidden by -fvisibility=hidden.
 *
 * The layers, each calling only the ones below it:
 *   lib/core        this header
 *   lib/host        host.h: the plain-C fallback
 *   lib/primitives  primitives.h: what the primitives share
 * tests/layers.sh checks the rule on the built objects.
 */
#ifndef GPGPU_CORE_H
#define GPGPU_CORE_H

#include <pthread.h>
#include <sys/types.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "gpgpu_cl.h"

/* ---- types (types.c) ---------------------------------------------------- */

typedef struct {
    size_t size;        /* bytes per element */
    const char *cl;     /* OpenCL C name: "uint", "float" ... */
    const char *name;   /* "u32", "f32" ... */
    int is_float, is_signed, is_64;
} gpgpu__type_info;

/* NULL for a value that is not a gpgpu_type. */
const gpgpu__type_info *gpgpu__type(gpgpu_type t);
int gpgpu__type_parse(const char *name, gpgpu_type *t); /* "u32" -> GPGPU_U32; 0 if unknown */
/* UNSUPPORTED unless the device handles t (fp64 for F64, 64-bit integers). */
gpgpu_status gpgpu__type_supported(gpgpu_context *ctx, gpgpu_type t);

/* ---- errors (status.c) -------------------------------------------------- */

#define GPGPU__ERROR_MAX 16384

/* Records the detail of a failure on ctx (NULL: this thread's context-less
   slot) and returns s, so that callers write `return gpgpu__fail(...)`. */
gpgpu_status gpgpu__fail(const gpgpu_context *ctx, gpgpu_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An OpenCL error: OUT_OF_MEMORY for the allocation failures, else OPENCL.
   what names the call that failed. */
gpgpu_status gpgpu__cl_fail(const gpgpu_context *ctx, cl_int err, const char *what);
const char *gpgpu__cl_error_name(cl_int err);

/* Argument checks, one per line, in the caller's words. When cond is false,
   GPGPU__REQUIRE records "func: <message>" as the error detail and returns
   INVALID_ARGUMENT from the enclosing function. func is the PUBLIC function's
   name (__func__ inside it; helpers take it as a parameter). The message
   names the public parameter, the value given and the rule, e.g.
       GPGPU__REQUIRE(ctx, nbins <= MAX, func, "nbins is %zu; at most %zu",
                      nbins, (size_t)MAX);
   gives "gpgpu_histogram: nbins is 3000000000; at most 2147483648". No
   internal name (gpgpu__..., GPGPU__..., a struct field) in the message. */
#define GPGPU__REQUIRE(ctx, cond, func, ...)                         \
    do {                                                             \
        if (!(cond))                                                 \
            return gpgpu__arg_fail((ctx), (func), __VA_ARGS__);      \
    } while (0)
/* Records "func: <message>" and returns INVALID_ARGUMENT. */
gpgpu_status gpgpu__arg_fail(const gpgpu_context *ctx, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The checks most public functions share, each a status for GPGPU__TRY
   (func as above):
     check_ctx   ctx is not NULL (records the detail without a context)
     check_type  t is a gpgpu_type
     check_op    op is built-in or in the user range (whether it is defined
                 for the type is checked when its program is made)
     check_wait  wait is NULL exactly when num_wait is 0
     check_array the host array name of n elements of elem bytes: not NULL
                 unless n is 0, at most copies * n * elem <= PTRDIFF_MAX
                 bytes (copies: how many the library keeps at once), and
                 aligned to align bytes (1: any) */
gpgpu_status gpgpu__check_ctx(const gpgpu_context *ctx, const char *func);
gpgpu_status gpgpu__check_type(const gpgpu_context *ctx, const char *func, const char *name,
                               gpgpu_type t);
gpgpu_status gpgpu__check_op(const gpgpu_context *ctx, const char *func, gpgpu_op op);
gpgpu_status gpgpu__check_wait(const gpgpu_context *ctx, const char *func, cl_uint num_wait,
                               const cl_event *wait);
gpgpu_status gpgpu__check_array(const gpgpu_context *ctx, const char *func, const char *name,
                                const void *p, size_t n, size_t elem, size_t copies,
                                size_t align);

/* The older form, kept for code not yet written with GPGPU__REQUIRE: on
   failure the detail is "<function>: invalid argument: need <cond>", where
   the function's name appears only when it is a public one and the
   condition only when it names no internal identifier. Prefer
   GPGPU__REQUIRE in new code. */
#define GPGPU__CHECK_ARG(ctx, cond)                                     \
    do {                                                                \
        if (!(cond))                                                    \
            return gpgpu__check_failed((ctx), __func__, #cond);         \
    } while (0)
gpgpu_status gpgpu__check_failed(const gpgpu_context *ctx, const char *func, const char *cond);

/* A built-in operator or one in the user range (whether it is defined for
   the type is checked when its program is made). */
#define GPGPU__VALID_OP(op) \
    ((op) == GPGPU_SUM || (op) == GPGPU_MIN || (op) == GPGPU_MAX || (op) >= GPGPU_OP_USER)

/* Host arrays must be aligned to their element type (the host fallback
   reads them as typed arrays); checked after the type itself. */
#define GPGPU__ALIGNED(p, t) ((uintptr_t)(const void *)(p) % gpgpu__type(t)->size == 0)

/* Propagates a failed status. */
#define GPGPU__TRY(expr)                        \
    do {                                        \
        gpgpu_status gpgpu__s_ = (expr);        \
        if (gpgpu__s_ != GPGPU_SUCCESS)         \
            return gpgpu__s_;                   \
    } while (0)

/* ---- tuning (plan.c) ---------------------------------------------------- */

/* The primitives the plan's host-below rule names, one threshold each
   (tune.host_below; plan.c's host_prim_names spell them). */
typedef enum {
    GPGPU__HB_REDUCE,     /* reduce of integers (floats: GPGPU__HB_REDUCE_F) */
    GPGPU__HB_REDUCE_F,   /* reduce, scan of floats (their bits follow the route's order) */
    GPGPU__HB_SCAN,       /* scan of integers */
    GPGPU__HB_SORT,       /* sort, sort_pairs */
    GPGPU__HB_HISTOGRAM,  /* histogram, histogram_rgba8, histogram2d, _weighted */
    GPGPU__HB_EDGES,      /* histogram_edges */
    GPGPU__HB_SUM_EXACT,  /* GPGPU_SUM_EXACT */
    GPGPU__HB_SEGMENTED,  /* segmented reduce */
    GPGPU__HB_SEG_SCAN,   /* segmented scan */
    GPGPU__HB_INDEX,      /* reduce_index (argmin, argmax) */
    GPGPU__HB_BY_KEY,     /* reduce_by_key */
    GPGPU__HB_SCAN_BY_KEY, /* scan_by_key */
    GPGPU__HB_RUNS,       /* unique, run_length_encode */
    GPGPU__HB_SEGSORT,    /* segmented_sort */
    GPGPU__HB_TOP_K,      /* top_k */
    GPGPU__HB_QUANTILES,  /* quantiles */
    GPGPU__HB_SUM_F,      /* float SUM reduces computed in the kernels' own
                             combining tree (chunked layout): the same bits */
    GPGPU__HB_GATHER,     /* gather */
    GPGPU__HB_SEARCH,     /* search_sorted (weighs its needles) */
    GPGPU__HB_SCAN_F,     /* float SUM scans computed in the kernels' own
                             order (chunked single pass) on the host */
    GPGPU__HB_EXPR,       /* maps and predicates the host evaluates exactly
                             (transform_reduce, select, partition) */
    GPGPU__HB_SORT_F,     /* sort, sort_pairs of float keys */
    GPGPU__HB_COUNT
} gpgpu__host_prim;

typedef struct {
    int chunked;        /* 1: each work item owns one contiguous chunk (CPUs);
                           0: adjacent work items read adjacent words (GPUs) */
    size_t wg;          /* work-group size of the bandwidth kernels */
    size_t groups;      /* work-groups of a full-device pass */
    size_t scan_tile;   /* elements per scan tile */
    size_t lookback_wg, lookback_tile; /* GPUs: the single-pass scan's group
                                          and tile (scan_lookback) */
    int scan_single;    /* 1: single-pass scan (decoupled look-back) */
    int scan_lb;        /* GPUs: windows of 32 tiles a look-back round reads */
    int tiles_by_group; /* GPUs: the single-pass scan's and the sort pass's tiles by
                           group id (where groups start in id order), else in
                           the order groups take a ticket (GPGPU_TICKET=0|1) */
    size_t scan_single_max; /* GPUs: single pass up to this many elements (0: any) */
    size_t scan_single_max_64; /* the same for 64-bit integers */
    int sort_bits;      /* radix digit width */
    size_t sort_tile;   /* keys per sort tile */
    int sort_match;     /* NVIDIA: rank keys through __local masks, not ballots */
    int sort_split;     /* tiled layout: 64-bit keys through __local memory in
                           32-bit halves, for bigger tiles: 0 never, 1 always,
                           2 only with values of 4 bytes */
    int sort_count_parts; /* tiled layout: copies of the sort count's __local
                           bins (1, 2 or 4), so that lanes meeting on one
                           bin add to as many addresses */
    int select_warps;   /* NVIDIA: compaction with a contiguous stretch per warp */
    size_t select_sample; /* tiled layout: top_k and quantiles of this many keys
                           or more read them twice after a sample (0: never) */
    int search_tree;    /* coalesced layout: levels of search_sorted's tree in
                           __local memory (0: none) */
    int segsort_host;   /* host-memory segmented sorts on the host's threads */
    int hist_local;     /* 1: privatised __local bins with local atomics */
    size_t hist_banded; /* local-atomics plans: counts over more cells than
                           __local memory holds go by bands of 16-bit
                           counters from this many samples per cell
                           (histogram2d.c; 0: never, atomics per sample) */
    size_t hist_split;  /* banded counts of this many bands or more read the
                           samples once into entries by band (0: never) */
    int fill_kernel;    /* fills of device memory by a kernel (fill.cl) */
    size_t hist_wt_global; /* weighted sums in __local cells (NV_PTX): this
                           many warps of a group add by the L2's atomics */
    int edges_check;    /* histogram_edges on CPUs: 1 the kernels check the
                           host's lookup table against the cuts, 0 they
                           trust it, -1 check where the device may flush
                           subnormals (histogram.c) */
    int nv_ptx;         /* NVIDIA inline PTX allowed */
    int zero_copy;      /* host calls' kernels use the caller's arrays in place
                           (devices that share host memory) */
    size_t stage_bytes; /* bytes per slot of the pinned staging ring */
    size_t stage_min;   /* host arrays below this many bytes skip the ring */
    int host_reads;     /* integer reductions of pageable memory run on the
                           host's threads (faster than the bus) */
    size_t small_host;  /* host calls of at most this many elements run on
                           the host: a launch costs more than their work */
    size_t host_below[GPGPU__HB_COUNT]; /* per primitive: host calls of fewer
                           elements run the host's own code (lib/host);
                           0: none, SIZE_MAX: all (plan.c, measured per
                           device) */
    uint64_t scratch_keep; /* scratch earlier calls left cached is released
                           once it and a new buffer would exceed this many
                           bytes (queue.c) */
    int disk_cache;     /* cache compiled programs on disk (cache.c): GPUs;
                           not CPU devices, whose PoCL keeps its own kernel
                           cache and, asked for a program's binary, compiles
                           every kernel of the program for it */
    uint64_t wide_from; /* counts of this many elements or more take the
                           64-bit forms of kernels that count in 32 bits
                           (2^32; lower only to test those forms) */
} gpgpu__tuning;

/* Fills ctx->tune from the device's properties and GPGPU_* overrides. */
void gpgpu__plan_init(gpgpu_context *ctx);
/* The host sort's digits for buckets of keys alone, one choice for the
   process (the CPU's): GPGPU_SORT_WIDE=0 or 1 if set, else what a trial
   in the first such sort decided (lib/host/host_sort.c). */
typedef enum {
    GPGPU__DIGITS_TRIAL, /* not decided yet: the next sort tries both */
    GPGPU__DIGITS_BYTES,
    GPGPU__DIGITS_WIDE
} gpgpu__host_digits;
gpgpu__host_digits gpgpu__host_sort_digits(void);
void gpgpu__host_sort_digits_decided(gpgpu__host_digits d);

/* "-D WG=256 -D CHUNKED=1 ..." for the kernels' common tunables. */
void gpgpu__plan_options(const gpgpu_context *ctx, char *buf, size_t size);

/* ---- the context (context.c) -------------------------------------------- */

typedef struct gpgpu__program gpgpu__program;

typedef struct {
    cl_event event;
    const char *kernel;  /* static string */
    size_t global_size, local_size;
} gpgpu__launch;

enum { GPGPU__SCRATCH_SLOTS = 13, GPGPU__STAGE_SLOTS = 3, GPGPU__ON_DESTROY_MAX = 4 };

struct gpgpu_context {
    pthread_mutex_t lock;        /* held by every public call */
    pthread_mutex_t error_lock;  /* guards error[] */
    int host;                    /* the plain-C fallback: no OpenCL below */
    pid_t pid;                   /* the process that created it */

    cl_platform_id platform;
    cl_device_id device;
    cl_context cl;
    cl_command_queue queue;
    int can_profile;             /* the queue has CL_QUEUE_PROFILING_ENABLE */
    int profiling;               /* gpgpu_set_profiling */
    int profile_print;           /* GPGPU_PROFILE=1 */
    int prints_own;              /* this call prints its own profile table */

    char name[256];              /* device name */
    char platform_name[256];
    char driver[128];
    cl_device_type type;
    size_t compute_units, max_wg, local_mem;
    uint64_t max_alloc, global_mem;
    int fp64, int64, int64_atomics;
    int fp32_denorm, fp64_denorm;   /* CL_FP_DENORM in the fp configs */
    int vendor_nvidia;
    gpgpu__tuning tune;
    char plan_text[1024];        /* gpgpu_plan_description */

    gpgpu__program *programs;    /* compiled programs, newest first */

    /* The call in progress: events it must wait for (consumed by its first
       enqueue) and, when profiling, its launches. */
    cl_uint wait_n;
    const cl_event *wait;
    int track;                   /* the call hands out a done event */
    cl_event last;               /* then: its latest command's event */
    gpgpu__launch *launches;
    size_t nlaunches, launches_cap;
    gpgpu_kernel_time *records;  /* resolved by gpgpu_profile */
    size_t nrecords;

    cl_mem scratch[GPGPU__SCRATCH_SLOTS]; /* library-managed, reused */
    size_t scratch_size[GPGPU__SCRATCH_SLOTS];
    unsigned scratch_epoch[GPGPU__SCRATCH_SLOTS]; /* the call that last took it */
    size_t scratch_zeroed[GPGPU__SCRATCH_SLOTS]; /* leading bytes known zero
                                    (gpgpu__scratch_zeroed) */
    unsigned epoch;              /* counts gpgpu__lock: one a public call */

    struct gpgpu__user_op *user_ops; /* gpgpu_op_define (userop.c) */
    size_t nuser_ops;
    struct gpgpu__expr_memo *expr_memo; /* maps and predicates compiled for
                                    the host (userop.c) */
    /* What the layers above keep on the context (user operators) and how
       to free it: registered by the primitive that stores it, called by
       gpgpu_context_destroy, so that the core names no primitive. */
    void (*on_destroy[GPGPU__ON_DESTROY_MAX])(gpgpu_context *ctx);

    /* Host memory (hostmem.c). */
    int unified;                 /* CL_DEVICE_HOST_UNIFIED_MEMORY */
    size_t base_align;           /* CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes */
    struct gpgpu__host_block *host_blocks; /* gpgpu_host_alloc */
    cl_mem stage_buf[GPGPU__STAGE_SLOTS];  /* the pinned staging ring */
    void *stage_ptr[GPGPU__STAGE_SLOTS];
    cl_event stage_ev[GPGPU__STAGE_SLOTS]; /* the transfer using each slot */
    cl_mem whole_buf;            /* pinned, for all-or-nothing downloads */
    void *whole_ptr;
    size_t whole_bytes;
    const char *route;           /* how the call's arrays moved, for the profile */

    char error[GPGPU__ERROR_MAX];
};

void gpgpu__lock(gpgpu_context *ctx);
void gpgpu__unlock(gpgpu_context *ctx);

/* Has gpgpu_context_destroy call fn(ctx) before it frees the context's
   own resources (once however often it is registered). */
void gpgpu__context_on_destroy(gpgpu_context *ctx, void (*fn)(gpgpu_context *ctx));

/* Scratch slots: each user picks its own so that one call's buffers never
   alias. A slot grows as needed and keeps its memory for later calls. */
enum {
    GPGPU__SLOT_IN, GPGPU__SLOT_OUT, GPGPU__SLOT_PARTIALS, GPGPU__SLOT_PARTIALS2,
    GPGPU__SLOT_SORT_KEYS, GPGPU__SLOT_SORT_VALUES, GPGPU__SLOT_SORT_COUNTS,
    GPGPU__SLOT_AUX, GPGPU__SLOT_HOST_ORIG,
    GPGPU__SLOT_SORT_KEYS_B, GPGPU__SLOT_SORT_VALUES_B,
    GPGPU__SLOT_SCAN_STATE, /* scan_lookback's alone: left zero (scan.c) */
    GPGPU__SLOT_SORT_HIST   /* the GPU sort's counts alone: left zero (sort.c) */
};
gpgpu_status gpgpu__scratch(gpgpu_context *ctx, int slot, size_t bytes, cl_mem *out);

/* Scratch that a kernel leaves zero for the next call, which then enqueues
   no fill first. gpgpu__scratch_zeroed gives the slot's buffer with its
   first bytes (a multiple of 4) zero, filling them unless the slot is known
   zero that far; the slot then counts as not known zero until its caller,
   once it has enqueued the kernel that leaves bytes of it zero, calls
   gpgpu__scratch_mark_zeroed. gpgpu__scratch (whose caller may write the
   buffer), a new buffer for the slot and a failed clFinish forget it too. */
gpgpu_status gpgpu__scratch_zeroed(gpgpu_context *ctx, int slot, size_t bytes, cl_mem *out);
void gpgpu__scratch_mark_zeroed(gpgpu_context *ctx, int slot, size_t bytes);

/* A new buffer (released by the caller). host may be NULL; with it the
   buffer is initialised from host (CL_MEM_COPY_HOST_PTR). */
gpgpu_status gpgpu__buffer(gpgpu_context *ctx, cl_mem_flags flags, size_t bytes,
                           const void *host, cl_mem *out);

/* INVALID_ARGUMENT unless elements [offset, offset + n) of elem bytes each
   lie inside buf, without overflow; what names the argument ("in") and
   func the public function in the message. For the _buffer functions. */
gpgpu_status gpgpu__check_range(gpgpu_context *ctx, const char *func, const char *what,
                                cl_mem buf, size_t offset, size_t n, size_t elem);

/* Elements of size bytes that one host-API pass moves through a device
   buffer: what the device's largest allocation holds, and at most a quarter
   of its memory (at least 1). */
size_t gpgpu__chunk_elems(const gpgpu_context *ctx, size_t size);

/* Blocking read of bytes at offset of buf into host. */
gpgpu_status gpgpu__read(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                         void *host);
/* Non-blocking write of host into buf (host must stay valid until the queue
   reaches it: the host API calls finish before returning). */
gpgpu_status gpgpu__write(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                          const void *host);
/* Fills bytes of buf at offset with a pattern of pattern_size bytes. */
gpgpu_status gpgpu__fill(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                         const void *pattern, size_t pattern_size);
/* Device-side copy. */
gpgpu_status gpgpu__copy(gpgpu_context *ctx, cl_mem src, size_t src_offset, cl_mem dst,
                         size_t dst_offset, size_t bytes);

/* The caller's wait list, which the call's first command takes (and which
   is then cleared); returns its length, *wait NULL for none. */
cl_uint gpgpu__take_wait(gpgpu_context *ctx, const cl_event **wait);

/* Brackets the enqueues of a call: begin records the caller's wait list
   and drops the previous call's profile; end hands out the done event when
   done is not NULL (the same done for both). That event is the call's last
   command's own, so that no step can fail after an in-place call (a sort)
   has changed its buffers; a marker only when the call enqueued nothing. */
void gpgpu__begin(gpgpu_context *ctx, cl_uint num_wait, const cl_event *wait,
                  const cl_event *done);
gpgpu_status gpgpu__end(gpgpu_context *ctx, cl_event *done);

/* Host API helpers: wait for the queue, then print the profile if asked. */
gpgpu_status gpgpu__finish(gpgpu_context *ctx);

/* Waits for the queue after a call's last command has been enqueued: a
   zero-copy call's last kernel writes the caller's array, so nothing may
   be reported as failed past that point unless the device itself failed
   (no fault-injection point here, unlike gpgpu__finish). */
gpgpu_status gpgpu__wait_done(gpgpu_context *ctx);

/* Ends a host-API call begun under the lock with status s: prints the
   profile under the call's name if asked; after a failure waits for the
   queue, so that nothing may still read the caller's memory. Unlocks and
   returns s. */
gpgpu_status gpgpu__host_call_end(gpgpu_context *ctx, const char *name, gpgpu_status s);

/* ---- host memory (hostmem.c) and host threads (pool.c) ------------------- */

/* Frees what gpgpu_host_alloc and the staging left (context destruction). */
void gpgpu__host_memory_release(gpgpu_context *ctx);
/* Whether [p, p + bytes) lies inside one of ctx's gpgpu_host_alloc blocks. */
int gpgpu__pinned(const gpgpu_context *ctx, const void *p, size_t bytes);
/* Whether a reduction of host memory at p (bytes) runs on the host's
   threads instead (tune.host_reads: pageable memory on a discrete GPU,
   where the host's cores read faster than the bus delivers). Takes the
   context's lock briefly. */
int gpgpu__host_reads(gpgpu_context *ctx, const void *p, size_t bytes);
/* Whether a host call of n elements runs on the host (tune.small_host). */
int gpgpu__small_on_host(const gpgpu_context *ctx, size_t n);
/* Whether a host call of primitive p over n elements runs the host's own
   code instead of the device's (tune.host_below[p]: n below it). */
int gpgpu__host_below(const gpgpu_context *ctx, gpgpu__host_prim p, size_t n);
/* Whether host arrays of bytes are used in place (zero copy): the device
   shares host memory and one buffer can span them. */
int gpgpu__in_place(const gpgpu_context *ctx, size_t bytes);
/* Zero copy: a new buffer (released by the caller) over the caller's bytes
   at p, which start *offset bytes into it. write: kernels may write it. */
gpgpu_status gpgpu__host_view(gpgpu_context *ctx, const void *p, size_t bytes, int write,
                              cl_mem *buf, size_t *offset);
/* Host bytes into buf at offset (bytes), through the staging ring unless
   they are small or pinned. Non-blocking: host must stay valid until the
   call finishes (host calls finish before they return). */
gpgpu_status gpgpu__upload(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                           const void *host);
/* Blocking: bytes of buf at offset into host, through the staging ring
   unless small or pinned. all_or_nothing: host is written only once the
   whole read has succeeded (an in-place call's result). */
gpgpu_status gpgpu__download(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                             void *host, int all_or_nothing);
/* All-or-nothing downloads of count whole buffers (from offset 0) into
   hosts[i]: no host array is written unless every read succeeded. With
   more than one array, all go through one pinned buffer first (callers
   whose arrays are all pinned can do better: see sort.c). */
gpgpu_status gpgpu__download_all(gpgpu_context *ctx, size_t count, const cl_mem *bufs,
                                 const size_t *bytes, void *const *hosts);
/* Names the route of the call in progress ("zero-copy", "pinned",
   "staged", "copy", "host threads") for GPGPU_PROFILE's table. */
void gpgpu__note_route(gpgpu_context *ctx, const char *route);

/* Threads the host may use: GPGPU_THREADS, else the online cores (at most
   16). */
size_t gpgpu__host_threads(void);
/* 1 where the host code may take AVX2 paths: the CPU has AVX2 and
   GPGPU_NO_AVX2 is not set to a value other than 0. */
int gpgpu__host_avx2(void);
/* Defined where the compiler builds functions for AVX2 beside the
   baseline (target("avx2") on x86-64): the host code's AVX2 paths, taken
   at run time only where gpgpu__host_avx2() says so. */
#if defined(__x86_64__) && defined(__GNUC__) && (defined(__clang__) || __GNUC__ >= 9)
#define GPGPU__AVX2_TARGET 1
#endif
/* The permutations that pack a vector's chosen lanes to its front, for
   the AVX2 compactions (select, partition, unique, run-length encoding,
   top_k's candidates): entry m < 256, byte j, is the lane of the j-th set
   bit of the 8-lane mask m (0 past them); entry 256 + m, m < 16, the same
   for four 64-bit lanes as pairs of 32-bit lanes. A byte per lane, for
   _mm256_cvtepu8_epi32 and then _mm256_permutevar8x32_epi32. Built on
   the first call. */
const uint64_t *gpgpu__pack_lanes(void);
/* Runs fn(arg, part) for part = 0 .. nparts - 1 on the process's worker
   threads and the caller's, returning when all are done. */
void gpgpu__parallel(size_t nparts, void (*fn)(void *arg, size_t part), void *arg);
/* memcpy by several threads (one for small sizes). */
void gpgpu__parallel_copy(void *dst, const void *src, size_t bytes);
/* Host scratch of at least bytes (NULL without memory), perhaps the block
   an earlier call gave back, its pages already mapped; give it back with
   gpgpu__host_scratch_done (which keeps one block of up to 32 MiB for the
   next call, freed with the last context). */
void *gpgpu__host_scratch(size_t bytes);
void gpgpu__host_scratch_done(void *p);
/* Every context holds the pool while it lives (retain at creation, release
   at destruction): the workers end with the last context. */
void gpgpu__pool_retain(void);
void gpgpu__pool_release(void);

/* ---- fork (context.c) --------------------------------------------------- */

/* Whether ctx was created by another process: this one is a fork of the
   creator. Such a context is refused by every call (gpgpu__check_ctx) and
   destroyed without OpenCL. */
int gpgpu__foreign(const gpgpu_context *ctx);
/* Whether this process is a fork of one that opened an OpenCL platform:
   OpenCL must not be called here (PoCL's worker threads stayed in the
   parent: commands would wait for ever). */
int gpgpu__opencl_inherited(void);

/* Test-only fault injection (fault.c): with GPGPU_FAULT_AT=k in the
   environment, the k-th call of gpgpu__fault in the process (counting from 1)
   returns 1 and the caller fails as if the allocation, enqueue or build named
   by what had failed. GPGPU_FAULT_COUNT=1 prints how many points a run
   passed, to let a test loop over all of them. Always 0 otherwise. */
int gpgpu__fault(const char *what);

/* malloc that honours fault injection. */
void *gpgpu__malloc(size_t bytes);

/* Profiling (profile.c): remembers a launch's event when profiling (takes
   ownership of ev), drops the previous call's records. */
void gpgpu__profile_launch(gpgpu_context *ctx, cl_event ev, const char *kernel,
                           size_t global, size_t local);
/* The last launch recorded stands for `what` (a fill done by a kernel). */
void gpgpu__profile_relabel(gpgpu_context *ctx, const char *what, size_t global, size_t local);
void gpgpu__profile_clear(gpgpu_context *ctx);
void gpgpu__profile_print(gpgpu_context *ctx, const char *call);

/* ---- programs (program.c, cache.c) -------------------------------------- */

/* The program built from extra (may be NULL: text such as user #defines,
   placed first so that common.cl sees them) + common.cl + kernels/<file>.cl
   with options (plus the plan's tunables),
   compiled once per context. Errors: BUILD with the log, OPENCL. */
gpgpu_status gpgpu__program_get(gpgpu_context *ctx, const char *file, const char *extra,
                                const char *options, gpgpu__program **out);

/* The kernel called name in prog, created once and kept with the program. */
gpgpu_status gpgpu__kernel_get(gpgpu_context *ctx, gpgpu__program *prog, const char *name,
                               cl_kernel *out);

void gpgpu__programs_release(gpgpu_context *ctx);

/* Kernel arguments for gpgpu__run, as (size, pointer) pairs:
     GPGPU__ARG(x)       a value or cl_mem held in the variable x
     GPGPU__LOCAL(bytes) __local memory
     GPGPU__END          ends the list */
#define GPGPU__ARG(x) sizeof(x), (const void *)&(x)
#define GPGPU__LOCAL(bytes) (size_t)(bytes), (const void *)NULL
#define GPGPU__END (size_t)0, (const void *)NULL

/* Sets the arguments and enqueues prog's kernel name over global work items
   in groups of local (global is rounded up to a multiple of local by the
   caller). Records the launch when profiling. */
gpgpu_status gpgpu__run(gpgpu_context *ctx, gpgpu__program *prog, const char *name,
                        size_t global, size_t local, ...);

/* Disk cache of program binaries (cache.c). key is a hex digest. load
   returns 0 and a malloc'd binary, or -1 for a miss (a bad entry is removed).
   enabled: whether a context uses it, GPGPU_CACHE ("0" off, "1" on) over
   the plan's default for the device (tune.disk_cache). */
int gpgpu__cache_load(const char *key, unsigned char **bin, size_t *size);
void gpgpu__cache_store(const char *key, const unsigned char *bin, size_t size);
int gpgpu__cache_enabled(int device_default);

/* 64-bit FNV-1a, used for cache keys. */
uint64_t gpgpu__hash(uint64_t h, const void *data, size_t size);
#define GPGPU__HASH_INIT 0xcbf29ce484222325ull

/* Embedded kernel sources (kernels.c, generated from the kernels directory). */
const char *gpgpu__kernel_source(const char *file); /* NULL if none */

/* ---- device arrays (array.c) --------------------------------------------- */

/* The handle behind gpgpu_array: the modules' own _array forms (segmented.c,
   bykey.c, select_ops.c, histogram_edges.c) reach in like array.c does. */
struct gpgpu_array {
    gpgpu_context *ctx;  /* the owner: calls on other contexts are refused */
    gpgpu_type t;
    size_t n;
    cl_mem buf;          /* OpenCL devices */
    void *host;          /* the host fallback */
};

/* a is not NULL and belongs to ctx; what names the parameter. */
gpgpu_status gpgpu__array_check(gpgpu_context *ctx, const char *func, const char *what,
                                const gpgpu_array *a);
/* b (parameter what) has a's type (when same_type) and at least a's length
   (exactly, when same_length). */
gpgpu_status gpgpu__array_match(gpgpu_context *ctx, const char *func, const char *what,
                                const gpgpu_array *a, const gpgpu_array *b, int same_type,
                                int same_length);
/* The bracket around an array call's enqueues: begin locks and starts the
   call; end finishes it with status s (printing the profile if asked),
   unlocks and returns s. */
void gpgpu__array_begin(gpgpu_context *ctx);
gpgpu_status gpgpu__array_end(gpgpu_context *ctx, const char *func, gpgpu_status s);
/* UNSUPPORTED: user-defined operators and expressions on the fallback. */
gpgpu_status gpgpu__array_needs_device(gpgpu_context *ctx, const char *func);
/* What a call reads back to host (a count, a value, bins), in the scratch
   slot that no enqueue uses (ctx locked). */
gpgpu_status gpgpu__array_result(gpgpu_context *ctx, size_t bytes, cl_mem *slot);

/* Rounds a / b up. */
static inline size_t gpgpu__div_up(size_t a, size_t b)
{
    return a / b + (a % b != 0);
}

/* A fixed pseudo-random number from j (splitmix64's finalizer): places
   that do not fall in step with a periodic input, the same every call. */
static inline uint64_t gpgpu__mix64(uint64_t j)
{
    uint64_t z = j * UINT64_C(0x9e3779b97f4a7c15) + UINT64_C(0x632be59bd9b4e019);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

#endif /* GPGPU_CORE_H */
