/* userop.cl - stream compaction and what is built on it: select (kept
   elements in order), partition (kept, then the others, both in order) and
   runs (the first element of each run of equal bit patterns, and for
   run-length encoding the length of each run).

   The flag of an element is the caller's predicate PRED, an expression in x
   (the element) and i (its index in the input), or with -D UNIQUE=1 "the
   bits of x differ from those of the element before it" (the first element
   of the range always counts).

   Work is in tiles of WG * SELECT_ITEMS elements, one work-group each, cut
   into parts (PARTS per tile) whose flagged elements are counted first:
     select_count      the number flagged in each part -> counts[part]
     (the host scans counts inclusively: counts[part] becomes the number
      flagged up to the end of that part)
     select_scatter    evaluates the flag again and writes each part's
                       flagged elements, in order, from counts[part - 1];
                       the last part writes the total.
     partition_scatter the same, and each other element k to
                       total + k - (flagged before k).
     runs_scatter      select_scatter that also writes the run lengths
                       whose next head is in the same part; the part's last
                       run gets its head's position instead, and firsts[part]
                       the part's first head (RUN_NONE if it has none)
                       (GPUs: positions only, then runs_lengths turns
                       them into lengths within each tile)
     runs_fixup        the length of each part's last run: the first head
                       of the next part that has one, or n, less the
                       position stored there.
   Evaluating the flag twice costs less than storing flags: it is cheap and
   the input is read, not written.

   The element-to-item mapping is the plan's (CHUNKED):
   - CPUs: a part is one work item's contiguous run of SELECT_ITEMS
     elements: each item counts its run, then writes it from its offset,
     with no __local memory at all.
   - GPUs: a part is a tile; in round j item l takes element j * WG + l
     (coalesced) and each round scans its WG flags through __local memory.
   Full tiles run unchecked loops; only the last one tests bounds. */

#ifndef PRED
#define PRED (x != 0)
#endif
#ifndef SELECT_ITEMS
#define SELECT_ITEMS 16
#endif

#define TILE ((ulong)WG * SELECT_ITEMS)

#if CHUNKED
#define PARTS WG
#define ELEM(l, j) ((ulong)(l) * SELECT_ITEMS + (j))
#else
#define PARTS 1
#define ELEM(l, j) ((ulong)(j) * WG + (l))
#endif

#ifndef UNIQUE
#define UNIQUE 0
#endif

/* What the three scatter kernels write besides the flagged elements. */
#define KIND_SELECT 0
#define KIND_PARTITION 1
#define KIND_RUNS 2

/* No run head (yet) in a part. */
#define RUN_NONE ULONG_MAX

/* Equal bit patterns: -0.0 and +0.0 differ, a NaN equals its own bits.
   FLIP(x) differs from x in every bit: the element "before" in[0], so that
   the first element needs no test of its own. */
#if TYPE_ID == 2
#define BITS(x) as_uint(x)
#define FLIP(x) as_float(~as_uint(x))
#elif TYPE_ID == 5
#define BITS(x) as_ulong(x)
#define FLIP(x) as_double(~as_ulong(x))
#else
#define BITS(x) (x)
#define FLIP(x) (~(x))
#endif

/* The flag of element k of the range (x = in[k], prev = in[k - 1], or
   FLIP(in[0]) when k = 0); first is the index the predicate sees for
   in[0]. */
static inline uint keep(T prev, T x, ulong k, ulong first)
{
#if UNIQUE
    return (uint)(BITS(x) != BITS(prev)); /* no branch */
#else
    const ulong i = first + k;
    return (PRED) ? 1u : 0u;
#endif
}

/* The element before in[k] for keep: on CPUs the one the loop read last
   (a work item's elements are consecutive; loading it again after a store
   to out would be a reload the compiler cannot drop, since out may alias
   in), on GPUs a load (the neighbour's, from cache). Only UNIQUE uses it:
   otherwise the compiler drops the load. */
#if CHUNKED
#define PREV(in, k, last, x) (last)
#else
#define PREV(in, k, last, x) ((k) ? (in)[(k) - 1] : FLIP(x))
#endif

/* The element before in[k], k <= n, for PREV on CPUs (an item whose share
   starts past the end reads nothing). */
static inline T first_prev(__global const T *in, ulong k, ulong n)
{
    if (!UNIQUE || k > n || (k == 0 && n == 0))
        return (T)0;
    return k ? in[k - 1] : FLIP(in[0]);
}

/* Kept elements among this item's share of the tile starting at base. */
static inline uint count_share(__global const T *in, ulong base, ulong n, ulong first)
{
    const uint lid = get_local_id(0);
    uint c = 0;
    T last = first_prev(in, base + ELEM(lid, 0), n);
    if (base + TILE <= n) {
        for (uint j = 0; j < SELECT_ITEMS; j++) {
            const ulong k = base + ELEM(lid, j);
            const T x = in[k];
            c += keep(PREV(in, k, last, x), x, k, first);
            last = x;
        }
    } else {
        for (uint j = 0; j < SELECT_ITEMS; j++) {
            const ulong k = base + ELEM(lid, j);
            if (k < n) {
                const T x = in[k];
                c += keep(PREV(in, k, last, x), x, k, first);
                last = x;
            }
        }
    }
    return c;
}

#if CHUNKED

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_count(__global const T *in, ulong off, ulong n, ulong first,
                  __global ulong *counts)
{
    in += off;
    counts[get_global_id(0)] = count_share(in, get_group_id(0) * TILE, n, first);
}

#ifndef SELECT_UNROLL
#define SELECT_UNROLL 8
#endif

/* Each item writes its own run [dst, limit) of the output. The loops have
   no data-dependent branch (a random
   predicate would mispredict half the time): every element is stored at
   dst, which advances only past flagged ones. A store while dst < limit is
   in this item's own range and is overwritten by its next flagged element;
   nothing is stored once the run is full, so nothing lands in the next
   item's range. Blocks of SELECT_UNROLL elements run without per-element
   tests while the run has room for all of them. kind is a constant at
   each call, so the compiler specialises the loops. */
static inline void scatter_part(__global const T *in, ulong n, ulong first,
                                __global const ulong *incl, __global T *out,
                                __global ulong *count)
{
    const ulong part = get_global_id(0);
    const ulong begin = part * SELECT_ITEMS, end = min(begin + SELECT_ITEMS, n);
    ulong dst = part ? incl[part - 1] : 0;
    const ulong limit = incl[part];
    ulong k = begin;
    T last = first_prev(in, begin, n);
    for (; k + SELECT_UNROLL <= end && dst + SELECT_UNROLL <= limit; k += SELECT_UNROLL) {
        for (uint u = 0; u < SELECT_UNROLL; u++) {
            const T x = in[k + u];
            out[dst] = x;
            dst += keep(last, x, k + u, first);
            last = x;
        }
    }
    for (; k < end && dst < limit; k++) {
        const T x = in[k];
        out[dst] = x;
        dst += keep(last, x, k, first);
        last = x;
    }
    if (part == get_global_size(0) - 1)
        *count = limit;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_scatter(__global const T *in, ulong off, ulong n, ulong first,
                    __global const ulong *incl, __global T *out, ulong out_off,
                    __global ulong *count, ulong count_off)
{
    scatter_part(in + off, n, first, incl, out + out_off, count + count_off);
}

/* The heads of the item's part to out from dst, with the lengths of the
   runs that end in the part. As scatter_part, without a data-dependent
   branch: every element is stored at dst, its position beside it in
   lengths, and dst advances past heads only; the positions then become
   lengths within the item's range (the last head's position is left for
   runs_fixup, firsts[part] is the first one's). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_scatter(__global const T *in, ulong off, ulong n, ulong first,
                  __global const ulong *incl, __global T *out, ulong out_off,
                  __global ulong *count, ulong count_off, __global ulong *lengths,
                  ulong lengths_off, __global ulong *firsts)
{
    const ulong part = get_global_id(0);
    const ulong begin = part * SELECT_ITEMS, end = min(begin + SELECT_ITEMS, n);
    const ulong limit = incl[part], start = part ? incl[part - 1] : 0;
    ulong dst = start, k = begin;
    in += off;
    out += out_off;
    lengths += lengths_off;
    T last = first_prev(in, begin, n);
    for (; k + SELECT_UNROLL <= end && dst + SELECT_UNROLL <= limit; k += SELECT_UNROLL) {
        for (uint u = 0; u < SELECT_UNROLL; u++) {
            const T x = in[k + u];
            out[dst] = x;
            lengths[dst] = k + u;
            dst += keep(last, x, k + u, first);
            last = x;
        }
    }
    for (; k < end && dst < limit; k++) {
        const T x = in[k];
        out[dst] = x;
        lengths[dst] = k;
        dst += keep(last, x, k, first);
        last = x;
    }
    if (limit == start) {
        firsts[part] = RUN_NONE;
    } else {
        firsts[part] = lengths[start];
        for (ulong j = start; j + 1 < limit; j++)
            lengths[j] = lengths[j + 1] - lengths[j];
    }
    if (part == get_global_size(0) - 1)
        count[count_off] = limit;
}

/* Every element is written: flagged ones from dst, the others from
   total + k - dst (the elements before k that were not flagged). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void partition_scatter(__global const T *in, ulong off, ulong n, ulong first,
                       __global const ulong *incl, __global T *out, ulong out_off,
                       __global ulong *count, ulong count_off)
{
    const ulong part = get_global_id(0), final_part = get_global_size(0) - 1;
    const ulong begin = part * SELECT_ITEMS, end = min(begin + SELECT_ITEMS, n);
    const ulong total = incl[final_part];
    ulong dst = part ? incl[part - 1] : 0;
    in += off;
    out += out_off;
    T last = first_prev(in, begin, n);
    for (ulong k = begin; k < end; k++) {
        const T x = in[k];
        const uint f = keep(last, x, k, first);
        last = x;
        out[f ? dst : total + k - dst] = x;
        dst += f;
    }
    if (part == final_part)
        count[count_off] = total;
}

#else

/* Exclusive scan of one uint per work item; *total gets the group's sum.
   Every item must call it (it contains barriers). */
static inline uint group_scan_excl(uint v, __local uint *s, uint *total)
{
    const uint lid = get_local_id(0);
    s[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        uint left = lid >= d ? s[lid - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[lid] += left;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint incl = s[lid];
    *total = s[WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE); /* s is reused by the next call */
    return incl - v;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_count(__global const T *in, ulong off, ulong n, ulong first,
                  __global ulong *counts)
{
    __local uint s[WG];
    in += off;
    uint total;
    group_scan_excl(count_share(in, get_group_id(0) * TILE, n, first), s, &total);
    if (get_local_id(0) == 0)
        counts[get_group_id(0)] = total;
}

/* Rounds whose elements an item loads before their scans: all of a GPU
   tile's (16), in batches where the plan makes tiles longer (a CPU forced
   into this layout), so that the unrolled loops stay small. */
#if SELECT_ITEMS % 16 == 0
#define SELECT_BATCH 16
#elif SELECT_ITEMS % 8 == 0
#define SELECT_BATCH 8
#elif SELECT_ITEMS % 4 == 0
#define SELECT_BATCH 4
#elif SELECT_ITEMS % 2 == 0
#define SELECT_BATCH 2
#else
#define SELECT_BATCH 1
#endif

#if NV_PTX && WG % 32 == 0
/* The exclusive scan of one flag (0 or 1) per item over the group, for
   round j; *total gets the group's count. A ballot per warp, the warps'
   counts through s: round j uses half j % 2 of s, so one barrier a round
   suffices (a warp can write a half again only after the next round's
   barrier, which every warp reaches only once done reading it). Every item
   must call it. */
static inline uint group_flag_scan(uint f, __local uint *s, uint j, uint *total)
{
    const uint lid = get_local_id(0), lane = lid % 32, w = lid / 32;
    const uint m = nv_ballot(f);
    __local uint *counts = s + (j % 2) * (WG / 32);
    if (lane == 0)
        counts[w] = popcount(m);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0, all = 0;
    for (uint u = 0; u < WG / 32; u++) {
        const uint c = counts[u];
        before += u < w ? c : 0u;
        all += c;
    }
    *total = all;
    return before + popcount(m & ((1u << lane) - 1));
}
#else
/* The same as a scan of uints (j unused); s is reused at once. */
#define group_flag_scan(f, s, j, total) group_scan_excl((f), (s), (total))
#endif

#ifndef SELECT_WARPS
#define SELECT_WARPS 1
#endif

#if NV_PTX && WG % 32 == 0 && SELECT_BATCH == SELECT_ITEMS && SELECT_WARPS
/* On NVIDIA each warp owns a contiguous 32 * SELECT_ITEMS elements of the
   tile (round j: lane l takes element j * 32 + l of them, 128 coalesced
   bytes per warp), so that its flagged elements land in one contiguous
   stretch of out: one barrier per tile exchanges the warps' counts, and the
   writes need only each round's ballot (the round-major order below takes
   a barrier per round). Same arguments and results as below. */
#define WELEM(lid, j) ((ulong)((lid) / 32) * (32 * SELECT_ITEMS) + (j) * 32 + (lid) % 32)

static inline void scatter_rounds(__global const T *in, ulong base, ulong n, ulong first,
                                  __global T *out, ulong dst, ulong total, __local uint *s,
                                  __global ulong *heads, __global ulong *firsts,
                                  const int checked, const int kind)
{
    const uint lid = get_local_id(0), lane = lid % 32, w = lid / 32;
    const uint below = (1u << lane) - 1u;
    const ulong dst0 = dst;
    T xs[SELECT_ITEMS];
    uint fs[SELECT_ITEMS], ms[SELECT_ITEMS];
#pragma unroll
    for (uint u = 0; u < SELECT_ITEMS; u++) {
        const ulong k = base + WELEM(lid, u);
        const int inside = !checked || k < n;
        xs[u] = inside ? in[k] : (T)0;
        fs[u] = inside ? keep(PREV(in, k, xs[u], xs[u]), xs[u], k, first) : 0u;
    }
    uint mine = 0;
#pragma unroll
    for (uint u = 0; u < SELECT_ITEMS; u++) {
        ms[u] = nv_ballot(fs[u]);
        mine += popcount(ms[u]);
    }
    if (lane == 0)
        s[w] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong at0 = dst;
    for (uint v = 0; v < w; v++)
        at0 += s[v];
#pragma unroll
    for (uint u = 0; u < SELECT_ITEMS; u++) {
        const ulong k = base + WELEM(lid, u);
        const ulong at = at0 + popcount(ms[u] & below);
        if (fs[u])
            out[at] = xs[u];
        if (fs[u] && kind == KIND_RUNS) {
            heads[at] = k;
            if (at == dst0)
                *firsts = k;
        }
        if (!fs[u] && (!checked || k < n) && kind == KIND_PARTITION)
            out[total + k - at] = xs[u];
        at0 += popcount(ms[u]);
    }
}
#else
/* The rounds of one tile from base, whose first flagged element goes to
   out[dst] (total: flagged in the whole range, for KIND_PARTITION);
   checked only for the last tile and kind constant at each call (the
   compiler specialises them). A batch's elements and flags are loaded
   before its rounds: a load per round, between barriers, would leave one
   load in flight per item. */
static inline void scatter_rounds(__global const T *in, ulong base, ulong n, ulong first,
                                  __global T *out, ulong dst, ulong total, __local uint *s,
                                  __global ulong *heads, __global ulong *firsts,
                                  const int checked, const int kind)
{
    const uint lid = get_local_id(0);
    const ulong dst0 = dst;
    for (uint jb = 0; jb < SELECT_ITEMS; jb += SELECT_BATCH) {
        T xs[SELECT_BATCH];
        uint fs[SELECT_BATCH];
#if NV_PTX
#pragma unroll
#endif
        for (uint u = 0; u < SELECT_BATCH; u++) {
            const ulong k = base + ELEM(lid, jb + u);
            const int inside = !checked || k < n;
            xs[u] = inside ? in[k] : (T)0;
            fs[u] = inside ? keep(PREV(in, k, xs[u], xs[u]), xs[u], k, first) : 0u;
        }
#if NV_PTX /* xs and fs stay in registers (PoCL 3.1's LLVM 15 crashes unrolling these) */
#pragma unroll
#endif
        for (uint u = 0; u < SELECT_BATCH; u++) {
            const ulong k = base + ELEM(lid, jb + u);
            const T x = xs[u];
            const uint f = fs[u];
            uint round;
            const ulong at = dst + group_flag_scan(f, s, jb + u, &round);
            if (f)
                out[at] = x;
            if (f && kind == KIND_RUNS) {
                heads[at] = k;
                if (at == dst0)
                    *firsts = k;
            }
            if (!f && (!checked || k < n) && kind == KIND_PARTITION)
                out[total + k - at] = x;
            dst += round;
        }
    }
}
#endif

static inline void scatter_tile(__global const T *in, ulong off, ulong n, ulong first,
                                __global const ulong *incl, __global T *out,
                                __global ulong *count, __local uint *s, const int kind)
{
    const ulong group = get_group_id(0), last = get_num_groups(0) - 1, base = group * TILE;
    const ulong dst = group ? incl[group - 1] : 0, total = incl[last];
    in += off;
    if (base + TILE <= n)
        scatter_rounds(in, base, n, first, out, dst, total, s, NULL, NULL, 0, kind);
    else
        scatter_rounds(in, base, n, first, out, dst, total, s, NULL, NULL, 1, kind);
    if (group == last && get_local_id(0) == 0)
        *count = total;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_scatter(__global const T *in, ulong off, ulong n, ulong first,
                    __global const ulong *incl, __global T *out, ulong out_off,
                    __global ulong *count, ulong count_off)
{
    __local uint s[WG];
    scatter_tile(in, off, n, first, incl, out + out_off, count + count_off, s, KIND_SELECT);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void partition_scatter(__global const T *in, ulong off, ulong n, ulong first,
                       __global const ulong *incl, __global T *out, ulong out_off,
                       __global ulong *count, ulong count_off)
{
    __local uint s[WG];
    scatter_tile(in, off, n, first, incl, out + out_off, count + count_off, s, KIND_PARTITION);
}

/* Run-length encoding on GPUs in two steps, so that the scatter costs what
   select's does (finding, for each head, the head before it across the
   round's warps took four times as long): runs_scatter writes each head's
   value to out and its position to lengths, the tile's first head's
   position to firsts[tile] (RUN_NONE if it has none); runs_lengths then
   turns the positions into lengths within each tile, leaving the tile's
   last head's position for runs_fixup, as the CPUs' runs_scatter does. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_scatter(__global const T *in, ulong off, ulong n, ulong first,
                  __global const ulong *incl, __global T *out, ulong out_off,
                  __global ulong *count, ulong count_off, __global ulong *lengths,
                  ulong lengths_off, __global ulong *firsts)
{
    __local uint s[WG];
    const ulong group = get_group_id(0), last = get_num_groups(0) - 1, base = group * TILE;
    const ulong dst = group ? incl[group - 1] : 0, end = incl[group];
    in += off;
    out += out_off;
    lengths += lengths_off;
    if (get_local_id(0) == 0 && end == dst)
        firsts[group] = RUN_NONE;
    if (base + TILE <= n)
        scatter_rounds(in, base, n, 0, out, dst, 0, s, lengths, firsts + group, 0, KIND_RUNS);
    else
        scatter_rounds(in, base, n, 0, out, dst, 0, s, lengths, firsts + group, 1, KIND_RUNS);
    if (group == last && get_local_id(0) == 0)
        count[count_off] = incl[last];
}

/* Tile g's heads are lengths[incl[g - 1] .. incl[g]), positions: each but
   the last becomes the distance to the next. A tile has at most TILE
   heads, SELECT_ITEMS per item: every item loads all of its pairs (in
   flight together), then after one barrier writes them; groups touch
   disjoint ranges. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_lengths(__global const ulong *incl, __global ulong *lengths, ulong lengths_off)
{
    const ulong group = get_group_id(0);
    const ulong begin = group ? incl[group - 1] : 0, end = incl[group];
    const uint lid = get_local_id(0);
    ulong len[SELECT_ITEMS];
    lengths += lengths_off;
#if NV_PTX
#pragma unroll
#endif
    for (uint j = 0; j < SELECT_ITEMS; j++) {
        const ulong i = begin + (ulong)j * WG + lid;
        len[j] = i + 1 < end ? lengths[i + 1] - lengths[i] : 0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
#if NV_PTX
#pragma unroll
#endif
    for (uint j = 0; j < SELECT_ITEMS; j++) {
        const ulong i = begin + (ulong)j * WG + lid;
        if (i + 1 < end)
            lengths[i] = len[j];
    }
}

#endif

/* The last run of each part that has one: runs_scatter left its head's
   position in its length; the run ends at the first head of the next part
   that has one (each such part q fixes the run before its first head,
   incl[q - 1] - 1) or, for the last run, at n. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void runs_fixup(__global const ulong *incl, __global const ulong *firsts, ulong nparts,
                ulong n, __global const ulong *count, ulong count_off, __global ulong *lengths,
                ulong lengths_off)
{
    const ulong nruns = count[count_off];
    lengths += lengths_off;
    for (ulong q = get_global_id(0); q < nparts; q += get_global_size(0))
        if (q > 0 && firsts[q] != RUN_NONE && incl[q - 1] > 0)
            lengths[incl[q - 1] - 1] = firsts[q] - lengths[incl[q - 1] - 1];
    if (get_global_id(0) == 0 && nruns > 0)
        lengths[nruns - 1] = n - lengths[nruns - 1];
}
