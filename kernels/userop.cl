/* userop.cl - select (stream compaction) with the caller's predicate PRED,
   an expression in x (the element) and i (its index in the input).

   Work is in tiles of WG * SELECT_ITEMS elements, one work-group each, cut
   into parts (PARTS per tile) whose kept elements are counted first:
     select_count    the number of kept elements of each part -> counts[part]
     (the host scans counts inclusively: counts[part] becomes the number
      kept up to the end of that part)
     select_scatter  evaluates the predicate again and writes each part's
                     kept elements, in order, from counts[part - 1]; the
                     last part writes the total.
   Evaluating the predicate twice costs less than storing flags: the
   predicate is cheap and the input is read, not written.

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

static inline uint keep(T x, ulong i)
{
    return (PRED) ? 1u : 0u;
}

/* Kept elements among this item's share of the tile starting at base. */
static inline uint count_share(__global const T *in, ulong base, ulong n, ulong first)
{
    const uint lid = get_local_id(0);
    uint c = 0;
    if (base + TILE <= n) {
        for (uint j = 0; j < SELECT_ITEMS; j++) {
            const ulong k = base + ELEM(lid, j);
            c += keep(in[k], first + k);
        }
    } else {
        for (uint j = 0; j < SELECT_ITEMS; j++) {
            const ulong k = base + ELEM(lid, j);
            if (k < n)
                c += keep(in[k], first + k);
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
   no data-dependent branch (a random predicate would mispredict half the
   time): every element is stored at dst, which advances only past kept
   ones. A store while dst < limit is in this item's own range and is
   overwritten by its next kept element; nothing is stored once the run is
   full, so nothing lands in the next item's range. Blocks of SELECT_UNROLL
   elements run without per-element tests while the run has room for all
   of them. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_scatter(__global const T *in, ulong off, ulong n, ulong first,
                    __global const ulong *incl, __global T *out, ulong out_off,
                    __global ulong *count, ulong count_off)
{
    const ulong part = get_global_id(0);
    const ulong begin = part * SELECT_ITEMS, end = min(begin + SELECT_ITEMS, n);
    ulong dst = part ? incl[part - 1] : 0;
    const ulong limit = incl[part];
    in += off;
    out += out_off;
    ulong k = begin;
    for (; k + SELECT_UNROLL <= end && dst + SELECT_UNROLL <= limit; k += SELECT_UNROLL) {
        for (uint u = 0; u < SELECT_UNROLL; u++) {
            const T x = in[k + u];
            out[dst] = x;
            dst += keep(x, first + k + u);
        }
    }
    for (; k < end && dst < limit; k++) {
        const T x = in[k];
        out[dst] = x;
        dst += keep(x, first + k);
    }
    if (part == get_global_size(0) - 1)
        count[count_off] = limit;
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

/* The rounds of one tile; checked only for the last tile (the compiler
   specialises both calls). */
static inline void scatter_rounds(__global const T *in, ulong base, ulong n, ulong first,
                                  __global T *out, __local uint *s, const int checked)
{
    const uint lid = get_local_id(0);
    ulong dst = 0;
    for (uint j = 0; j < SELECT_ITEMS; j++) {
        const ulong k = base + ELEM(lid, j);
        const int inside = !checked || k < n;
        const T x = inside ? in[k] : (T)0;
        const uint f = inside ? keep(x, first + k) : 0u;
        uint total;
        const uint at = group_scan_excl(f, s, &total);
        if (f)
            out[dst + at] = x;
        dst += total;
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_scatter(__global const T *in, ulong off, ulong n, ulong first,
                    __global const ulong *incl, __global T *out, ulong out_off,
                    __global ulong *count, ulong count_off)
{
    __local uint s[WG];
    const ulong group = get_group_id(0), base = group * TILE;
    in += off;
    out += out_off + (group ? incl[group - 1] : 0);
    if (base + TILE <= n)
        scatter_rounds(in, base, n, first, out, s, 0);
    else
        scatter_rounds(in, base, n, first, out, s, 1);
    if (group == get_num_groups(0) - 1 && get_local_id(0) == 0)
        count[count_off] = incl[group];
}

#endif
