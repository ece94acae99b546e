/*
 * primitives.h - what the primitives (lib/primitives) share: their
 * programs' options and user operators, the enqueues one primitive reuses
 * from another (sort and select take scan's, the _array forms take each
 * module's own), stream compaction and the exact sums. Above the core
 * (core.h) and the plain-C fallback (host.h), which never call back up.
 */
#ifndef GPGPU_PRIMITIVES_H
#define GPGPU_PRIMITIVES_H

#include "core/core.h"
#include "host/host.h"

/* ---- primitives' options ------------------------------------------------ */

/* "-D TYPE_ID=n -D OP_ID=m" plus, for a user op, its #defines in *extra
   (static storage owned by the context). INVALID_ARGUMENT for an unknown op;
   UNSUPPORTED for a type the device lacks. */
gpgpu_status gpgpu__type_op_options(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                    char *buf, size_t size, const char **extra);

/* User-defined operators (userop.c): the #defines (USER_COMBINE, USER_IDENTITY) of user op op on type t, or
   NULL if op is not one of ctx's operators for t. */
const char *gpgpu__user_op_source(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op);

/* Whether a host call with a user expression tries the host's
   evaluation: the fallback, or a weight below the plan's expr threshold.
   The weight is the call's n scaled by what the host's route costs
   against the kernels' (gpgpu__expr_weight). */
int gpgpu__host_expr_route(const gpgpu_context *ctx, size_t weight);
typedef enum { GPGPU__EXPR_MAP, GPGPU__EXPR_MAP_F, GPGPU__EXPR_SELECT,
               GPGPU__EXPR_PARTITION } gpgpu__expr_use;
size_t gpgpu__expr_weight(gpgpu__expr_use use, size_t n);
/* Room for why the host does not evaluate an expression, in words. */
enum { GPGPU__EXPR_WHY = 96 };
/* The host fallback's UNSUPPORTED for a map (predicate 0) or predicate
   (1) it does not evaluate, naming func and why (what the expression has
   that the host does not take). */
gpgpu_status gpgpu__expr_refused(gpgpu_context *ctx, const char *func, int predicate,
                                 const char *why);
/* gpgpu_transform_reduce of host arrays with the map evaluated on the host
   into a copy, then reduced as gpgpu_reduce reduces it (the bits of the
   kernels' map and reduce on a CPU device); op built in. ctx unlocked;
   GPGPU_ERROR_UNSUPPORTED, having done nothing, where the host does not
   evaluate map (*why says why). */
gpgpu_status gpgpu__transform_reduce_host(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                          gpgpu_op op, const void *in, size_t n,
                                          void *result, char why[GPGPU__EXPR_WHY]);
/* gpgpu_select (partition 0) or gpgpu_partition (1) of host arrays on the
   host with the host's form of pred (checked arguments, ctx unlocked);
   GPGPU_ERROR_UNSUPPORTED, having done nothing, where the host does not
   evaluate pred (*why says why). */
gpgpu_status gpgpu__compact_host_expr(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                      const void *in, size_t n, void *out, size_t *count,
                                      int partition, char why[GPGPU__EXPR_WHY]);

/* ---- between primitives -------------------------------------------------- */

/* Scan of device data without locking or begin/end: for sort and select.
   init_buf NULL means the identity; else the seed is init_buf[init_off]. */
gpgpu_status gpgpu__scan_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                 gpgpu_scan_kind kind, cl_mem in, size_t in_off, cl_mem out,
                                 size_t out_off, size_t n, cl_mem init_buf, size_t init_off);

/* The host-memory reduce (locks, copies in, reduces, reads back): what
   gpgpu_reduce and gpgpu_transform_reduce share once their arguments are
   checked. map NULL for none. */
gpgpu_status gpgpu__reduce_host_call(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                     const char *map, const void *in, size_t n, void *result);
/* The sort's key masks (gpgpu__sort_masks) as kernel arguments of the key
   width: GPGPU__MASK_ARGS(k) expands to the two (size, pointer) pairs
   gpgpu__run takes. */
typedef struct {
    int is64;
    cl_uint m0_32, m1_32;
    cl_ulong m0_64, m1_64;
} gpgpu__key_masks;
void gpgpu__key_masks_for(gpgpu_type t, unsigned flags, gpgpu__key_masks *k);
#define GPGPU__MASK_ARGS(k)                                                            \
    (k).is64 ? sizeof(cl_ulong) : sizeof(cl_uint),                                     \
        (k).is64 ? (const void *)&(k).m0_64 : (const void *)&(k).m0_32,                \
        (k).is64 ? sizeof(cl_ulong) : sizeof(cl_uint),                                 \
        (k).is64 ? (const void *)&(k).m1_64 : (const void *)&(k).m1_32

/* ctx, t and op as every reduce checks them. */
gpgpu_status gpgpu__check_reduce(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                 gpgpu_op op);
/* The device-buffer reduce (buffer, wait-list and range checks, lock,
   enqueue, event): what gpgpu_reduce_buffer and
   gpgpu_transform_reduce_buffer share once ctx, t and op are checked; func
   names the caller in messages. */
gpgpu_status gpgpu__reduce_buffer_call(gpgpu_context *ctx, const char *func, gpgpu_type t,
                                       gpgpu_op op, const char *map, cl_mem in,
                                       size_t in_offset, size_t n, cl_mem result,
                                       size_t result_offset, cl_uint num_wait,
                                       const cl_event *wait, cl_event *done);

/* ---- device arrays (array.c) ---------------------------------------------- */

/* What the gpgpu_*_array functions reuse from each primitive's file: its
   enqueues on device data, without locking or begin/end (the caller holds
   the lock and brackets the call), arguments already checked. */
gpgpu_status gpgpu__reduce_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                   const char *map, cl_mem in, size_t in_off, size_t n,
                                   cl_mem result, size_t result_off);
/* Sorts keys[0 .. n) (with values[0 .. n) of value_size bytes, or
   value_size 0 for none) in place. */
gpgpu_status gpgpu__sort_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, cl_mem values,
                                 size_t value_size, size_t n, unsigned flags);
/* UNSUPPORTED (func in the message) when 64-bit keys or 8-byte values meet
   a device without 64-bit integers: the sorts move them as such. */
gpgpu_status gpgpu__sort_words_ok(gpgpu_context *ctx, const char *func, gpgpu_type kt,
                                  size_t vs);
/* The same on keys[key_offset .. + n) and values[value_offset ..] (elements). */
gpgpu_status gpgpu__sort_range_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                       size_t key_offset, cl_mem values, size_t value_offset,
                                       size_t value_size, size_t n, unsigned flags);
/* gpgpu__sort_enqueue where values[i] == i for every i (argsort): the
   pass that would read them computes them instead. */
gpgpu_status gpgpu__sort_iota_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                      cl_mem values, size_t value_size, size_t n, unsigned flags);
/* Whether this device's sort can write the 64-bit indices of keys itself
   (gpgpu__sort_index_enqueue), at any n: the tiled layout (4-byte indices
   in the passes up to 2^32 keys, 8-byte ones past it, dst serving as
   their second copy). */
int gpgpu__sort_index_direct(const gpgpu_context *ctx);
/* Sorts keys[key_off .. + n) in place and writes the
   stable order as cl_ulongs to dst[dst_off ..] (which may be the keys'
   buffer, apart from them), with no buffer of indices between: the first
   pass computes them, the last writes them home. */
gpgpu_status gpgpu__sort_index_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                       size_t key_off, size_t n, unsigned flags, cl_mem dst,
                                       size_t dst_off);
/* The same order, the keys only read (left as they are): no copy of them
   first, and no pass writes them home. */
gpgpu_status gpgpu__sort_order_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys,
                                       size_t key_off, size_t n, unsigned flags, cl_mem dst,
                                       size_t dst_off);
/* Sorts each segment of keys[0 .. n) (with values, value_size 0 for none)
   in place, offsets a buffer of nseg + 1 cl_ulong clamped to n
   (segsort.c). */
gpgpu_status gpgpu__segsort_enqueue(gpgpu_context *ctx, gpgpu_type t, cl_mem keys, cl_mem values,
                                    size_t value_size, cl_mem offsets, size_t nseg, size_t n,
                                    unsigned flags);
/* Select of in[in_off .. + n) into out[out_off ..], the kept count to
   count[count_off] as one cl_ulong; pred is clean (gpgpu__expr_clean). */
gpgpu_status gpgpu__select_pred_enqueue(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                       cl_mem in, size_t in_off, size_t n, cl_mem out,
                                       size_t out_off, cl_mem count, size_t count_off);

/* ---- stream compaction (userop.c), shared by select, partition, unique
   and run-length encoding (select_ops.c) ---------------------------------- */

/* Longest user expression accepted, in bytes. */
enum { GPGPU__EXPR_MAX = 1024 };

/* Checks a user expression (what names it in the error text) and copies it
   to out with each run of blanks made one space: INVALID_ARGUMENT for text
   that could escape its slot in the kernel. */
gpgpu_status gpgpu__expr_clean(gpgpu_context *ctx, const char *what, const char *expr,
                               char out[GPGPU__EXPR_MAX + 1]);

/* Do [a, a + an) and [b, b + bn) overlap? */
int gpgpu__overlap(size_t a, size_t an, size_t b, size_t bn);

/* What the scatter writes: the flagged elements (SELECT), then the others
   after them (PARTITION), or the flagged ones and the runs' lengths (RUNS). */
typedef enum { GPGPU__SELECT, GPGPU__PARTITION, GPGPU__RUNS } gpgpu__select_kind;

typedef struct {
    gpgpu__program *prog;
    size_t wg, tile;
    size_t parts;   /* counted parts per tile: one per work item when chunked */
} gpgpu__select_plan;

/* The program for t flagging with the clean predicate pred, or with NULL
   the first element of each run of equal bit patterns. */
gpgpu_status gpgpu__select_plan_get(gpgpu_context *ctx, gpgpu_type t, const char *pred,
                                    gpgpu__select_plan *p);
size_t gpgpu__select_tiles(const gpgpu__select_plan *p, size_t n);
/* Entries of the counts scratch for n elements. */
size_t gpgpu__select_parts(const gpgpu__select_plan *p, size_t n);

/* Where RUNS writes the run lengths (ulongs, from lengths_off), and its
   scratch: firsts, gpgpu__select_parts(p, n) ulongs. */
typedef struct {
    cl_mem lengths, firsts;
    cl_ulong lengths_off;
} gpgpu__runs_out;

/* Compaction of in[in_off .. +n) into out[out_off ..], the flagged count to
   count[count_off] as a ulong. first is the index the predicate sees for
   in[in_off]. counts holds gpgpu__select_parts(p, n) ulongs (scratch);
   runs (RUNS only, else NULL) gets the length of each run. No locking. */
gpgpu_status gpgpu__select_enqueue(gpgpu_context *ctx, const gpgpu__select_plan *p,
                                   gpgpu__select_kind kind, cl_mem in, cl_ulong in_off,
                                   cl_ulong n, cl_ulong first, cl_mem out, cl_ulong out_off,
                                   cl_mem count, cl_ulong count_off, cl_mem counts,
                                   const gpgpu__runs_out *runs);

/* Host memory on devices that share it (n > 0, in_place for its bytes):
   the compaction reads in where it is and writes out and the run lengths
   (RUNS only, else NULL) where they are; out == in goes through scratch,
   since groups run in any order and one could overwrite input that another
   has yet to read. *count receives the flagged count. Locked by the caller. */
gpgpu_status gpgpu__compact_in_place(gpgpu_context *ctx, const gpgpu__select_plan *p,
                                     gpgpu__select_kind kind, size_t size, const void *in,
                                     size_t n, void *out, uint64_t *lengths, size_t *count);

/* ---- GPGPU_SUM_EXACT on F32 and F64 (sum_exact.c) ------------------------ */

/* The operators gpgpu_reduce and gpgpu_transform_reduce take. */
#define GPGPU__REDUCE_OP(op) (GPGPU__VALID_OP(op) || (op) == GPGPU_SUM_EXACT)

/* The exact sum of map(in[in_off .. +n)) (map NULL for none) into
   result[result_off], without locking. */
gpgpu_status gpgpu__sum_exact_enqueue(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                      cl_mem in, size_t in_off, size_t n, cl_mem result,
                                      size_t result_off);
/* The same from host memory, in chunks whose limbs add up before rounding. */
gpgpu_status gpgpu__sum_exact_host_api(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                       const void *in, size_t n, void *result);
/* kernels/sum_exact.cl for t with no map, the build gpgpu_reduce's exact
   sum uses (segmented.c launches its sum_exact_segments from it). */
gpgpu_status gpgpu__sum_exact_program(gpgpu_context *ctx, gpgpu_type t, gpgpu__program **prog);

#endif /* GPGPU_PRIMITIVES_H */
