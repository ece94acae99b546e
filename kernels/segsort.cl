/*
 * segsort.cl - stable sort of each segment on its own, keys of 32 or 64
 * bits, optionally carrying 4- or 8-byte values (kernels/radix.cl,
 * prepended, holds the key transform and the in-tile ranking).
 *
 * Segments: offs[0 .. nseg] are element indices (cl_ulong), clamped to
 * limit; segment s is [offs[s], offs[s + 1]) (empty if decreasing), its
 * element i at keys[koff + offs[s] - base + i] and vals[voff + ...].
 * Group g sorts segment g (the host launches one group per segment, in
 * batches that move offs), so every item of a group sees the same segment
 * and every barrier is reached by all of them. PoCL 3.1 miscompiled a
 * loop over segments (g, g + groups, ...) holding a branch with barriers
 * under it (sort this segment or not, sort by this digit or not): its items
 * disagreed on a segment's length after the barriers and wrote past short
 * segments' ends, now and then. So there is no such loop, and no barrier
 * sits under a branch: a group whose segment is not its kernel's runs
 * through with no keys, and the passes loop over the live digits' bits.
 *
 *   segsort_small  segments of 2 .. SEG_TILE elements, one group each: the
 *                  keys go once into registers, the digits that differ
 *                  between them (from their OR and AND) are sorted LSD in
 *                  __local memory, stably, each pass ranking a warp's keys
 *                  at a time (sort_rank); then written once. Values are
 *                  gathered once at the end through each key's place of
 *                  origin.
 *   segsort_large  segments of more than SEG_TILE and at most big
 *                  elements, one group each: one read counts every digit;
 *                  then per live digit a pass over the segment in tiles,
 *                  each tile ranked as above and scattered to its digit's
 *                  running start, between the caller's buffers and
 *                  scratch (tk, tv: indexed like keys and vals from 0 at
 *                  base); a final copy home when the passes were odd.
 */

#ifndef SEG_ITEMS
#define SEG_ITEMS 16
#endif

#define SEG_TILE (TILE_WG * SEG_ITEMS)

#if TILE_WG % 32 || TILE_WG != RADIX
#error "the segmented sort needs TILE_WG a multiple of 32 and equal to RADIX"
#endif
#if 32 * SEG_ITEMS > 0xffff || SEG_TILE > 0x10000
#error "a key's place among its warp's keys and in its tile must fit 16 bits"
#endif

/* Segment s's end, clamped; its start is min(offs[s], its end). (Values,
   not pointers: PoCL 3.1 lost a length written through a pointer and kept
   across barriers.) */
inline ulong seg_end(__global const ulong *offs, ulong s, ulong limit)
{
    return min(offs[s + 1], limit);
}

/* The bits of the transformed keys that differ between the group's keys
   (OR ^ AND over items' some and every); every item gets the answer. */
inline KT seg_differ(KT some, KT every, __local KT *lor, __local KT *land)
{
    uint lid = get_local_id(0);
    lor[lid] = some;
    land[lid] = every;
    for (uint width = TILE_WG / 2; width > 0; width /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < width) {
            lor[lid] |= lor[lid + width];
            land[lid] &= land[lid + width];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    KT r = lor[0] ^ land[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* Bit d set: digit d differs between the n keys (differ from seg_differ);
   none when there are fewer than two. The passes loop over these bits
   rather than test each digit: PoCL 3.1 wants no barrier under a branch
   inside a loop (see the kernels below). */
inline uint seg_live(KT differ, ulong n)
{
    uint live = 0;
    for (uint d = 0; d < DIGITS; d++)
        live |= (sort_digit(differ, d) != 0) << d;
    return n < 2 ? 0 : live;
}

/* Ranks the tile's n keys (k, in the order (warp, i, lane)) by digit d and
   leaves in lc[w * RADIX + v] the tile place where warp w's keys of digit
   v start; rank[i] = place among them | digit << 16. Item v gets the
   tile's count of digit v (*count) and where that digit starts (return). */
inline uint seg_rank_tile(const KT *k, uint n, uint d, KT m0, KT m1, uint *rank, uint *count,
                          __local uint *lc, __local uint *lx)
{
    uint lid = get_local_id(0), lane = lid % 32, w = lid / 32, total;
    uint first = w * 32 * SEG_ITEMS + lane;
    for (uint j = lid; j < SORT_WARPS * RADIX; j += TILE_WG)
        lc[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint i = 0; i < SEG_ITEMS; i++) {
        uint p = first + i * 32;
        uint v = p < n ? sort_digit(sort_xf(k[i], m0, m1), d) : RADIX;
        rank[i] = sort_rank(v, lane, w, lc, lx) | v << 16;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint sum = 0;
    for (uint u = 0; u < SORT_WARPS; u++) {
        uint c = lc[u * RADIX + lid];
        lc[u * RADIX + lid] = sum;
        sum += c;
    }
    uint start = sort_wg_scan(sum, lx, &total);
    for (uint u = 0; u < SORT_WARPS; u++)
        lc[u * RADIX + lid] += start;
    barrier(CLK_LOCAL_MEM_FENCE);
    *count = sum;
    return start;
}

/* One segment of n keys (0 .. SEG_TILE; fewer than two: nothing to do)
   at sk (values at sv) by the whole group. No early exits and no barrier
   under a branch: PoCL's compiler wants the control flow around barriers
   plain. */
inline void seg_sort_tile(__global KT *sk, __global VT *sv, uint n, KT m0, KT m1,
                          __local KT *lk, __local ushort *li, __local uint *lc,
                          __local uint *lx, __local KT *lor, __local KT *land)
{
    uint lid = get_local_id(0), lane = lid % 32, w = lid / 32;
    uint first = w * 32 * SEG_ITEMS + lane;
    KT k[SEG_ITEMS], some = 0, every = ~(KT)0;
    uint rank[SEG_ITEMS];
#if VAL_BYTES
    ushort ix[SEG_ITEMS]; /* where each key came from */
#endif
#pragma unroll
    for (uint i = 0; i < SEG_ITEMS; i++) {
        uint p = first + i * 32;
        k[i] = p < n ? sk[p] : 0;
        KT x = sort_xf(k[i], m0, m1);
        some |= p < n ? x : 0;
        every &= p < n ? x : ~(KT)0;
#if VAL_BYTES
        ix[i] = (ushort)p;
#endif
    }
    KT differ = seg_differ(some, every, lor, land);
    for (uint rest = seg_live(differ, n); rest != 0; rest &= rest - 1) {
        uint d = 31 - clz(rest & -rest); /* the lowest live digit */
        uint count;
        seg_rank_tile(k, n, d, m0, m1, rank, &count, lc, lx);
#pragma unroll
        for (uint i = 0; i < SEG_ITEMS; i++) {
            uint p = first + i * 32;
            if (p < n) {
                uint q = lc[w * RADIX + (rank[i] >> 16)] + (rank[i] & 0xffff);
                lk[q] = k[i];
#if VAL_BYTES
                li[q] = ix[i];
#endif
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint i = 0; i < SEG_ITEMS; i++) {
            uint p = first + i * 32;
            if (p < n) {
                k[i] = lk[p];
#if VAL_BYTES
                ix[i] = li[p];
#endif
            }
        }
    }
    /* Out through __local memory, in order. Other items read these keys at
       the start: only a barrier with a global fence orders that (PoCL moved
       the stores before those loads under local-only barriers). */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#pragma unroll
    for (uint i = 0; i < SEG_ITEMS; i++) {
        uint p = first + i * 32;
        if (p < n)
            lk[p] = k[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint p = lid; p < n; p += TILE_WG)
        sk[p] = lk[p];
#if VAL_BYTES
    /* Every value read (through its key's place of origin) before any is
       written: the segment is the group's alone. */
#pragma unroll
    for (uint i = 0; i < SEG_ITEMS; i++) {
        uint p = first + i * 32;
        if (p < n)
            li[p] = ix[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    VT v[SEG_ITEMS];
#pragma unroll
    for (uint r = 0; r < SEG_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        v[r] = p < n ? sv[li[p]] : 0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint r = 0; r < SEG_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        if (p < n)
            sv[p] = v[r];
    }
#endif
}

__kernel void segsort_small(__global KT *keys, ulong koff, __global VT *vals, ulong voff,
                            __global const ulong *offs, ulong ooff, ulong base, ulong limit,
                            ulong mask0, ulong mask1)
{
    __local KT lk[SEG_TILE];
#if VAL_BYTES
    __local ushort li[SEG_TILE];
#else
    __local ushort li[1];
#endif
    __local uint lc[SORT_WARPS * RADIX];
    __local uint lx[SORT_LX];
    __local KT lor[TILE_WG], land[TILE_WG];

    ulong s = get_group_id(0);
    offs += ooff;
    ulong e = seg_end(offs, s, limit), b = min(offs[s], e), at = b - base, len = e - b;
    /* every group runs through (no barrier under a branch): one of a
       segment that is not its to sort does so with no keys */
    seg_sort_tile(keys + koff + at, vals + voff + at, len <= SEG_TILE ? (uint)len : 0,
                  (KT)mask0, (KT)mask1, lk, li, lc, lx, lor, land);
}

/* One segment of len keys (more than SEG_TILE, or 0: nothing to do) at hk
   (values at hv) by the whole group, through scratch at dk (dv). */
inline void seg_sort_long(__global KT *hk, __global VT *hv, __global KT *dk, __global VT *dv,
                          ulong len, KT m0, KT m1, __local uint *lh, __local uint *lc,
                          __local uint *lx, __local KT *lor, __local KT *land,
                          __local ulong *lb)
{
    uint lid = get_local_id(0), lane = lid % 32, w = lid / 32;
    uint first = w * 32 * SEG_ITEMS + lane;
    KT some = 0, every = ~(KT)0;
    for (uint j = lid; j < DIGITS * RADIX; j += TILE_WG)
        lh[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong p = lid; p < len; p += TILE_WG) {
        KT x = sort_xf(hk[p], m0, m1);
        some |= x;
        every &= x;
        for (uint d = 0; d < DIGITS; d++)
            atomic_inc(&lh[d * RADIX + sort_digit(x, d)]);
    }
    KT differ = seg_differ(some, every, lor, land);
    uint passes = 0;
    for (uint rest = seg_live(differ, len); rest != 0; rest &= rest - 1) {
        uint d = 31 - clz(rest & -rest); /* the lowest live digit */
        /* even passes read the caller's buffers, odd ones scratch */
        __global KT *sk = passes % 2 ? dk : hk, *wk = passes % 2 ? hk : dk;
        __global VT *sv = passes % 2 ? dv : hv, *wv = passes % 2 ? hv : dv;
        uint total;
        ulong run = sort_wg_scan(lh[d * RADIX + lid], lx, &total); /* digit lid's next place */
        for (ulong t0 = 0; t0 < len; t0 += SEG_TILE) {
            uint n = (uint)min((ulong)SEG_TILE, len - t0), rank[SEG_ITEMS], count;
            KT k[SEG_ITEMS];
#if VAL_BYTES
            VT v[SEG_ITEMS];
#endif
#pragma unroll
            for (uint i = 0; i < SEG_ITEMS; i++) {
                uint p = first + i * 32;
                k[i] = p < n ? sk[t0 + p] : 0;
#if VAL_BYTES
                v[i] = p < n ? sv[t0 + p] : 0;
#endif
            }
            uint start = seg_rank_tile(k, n, d, m0, m1, rank, &count, lc, lx);
            lb[lid] = run - start; /* tile place q of digit lid goes to q + lb[lid] */
            run += count;
            barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
            for (uint i = 0; i < SEG_ITEMS; i++) {
                uint v8 = rank[i] >> 16; /* RADIX: no key */
                ulong to = v8 < RADIX ? lb[v8] + lc[w * RADIX + v8] + (rank[i] & 0xffff)
                                      : len;
                /* to < len unless another group changed these keys
                   after they were counted (overlapping segments of
                   the _buffer forms): garbage then, but inside them */
                if (to < len) {
                    wk[to] = k[i];
#if VAL_BYTES
                    wv[to] = v[i];
#endif
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* the next pass reads what every item wrote */
        barrier(CLK_GLOBAL_MEM_FENCE);
        passes++;
    }
    if (passes % 2) {
        for (ulong p = lid; p < len; p += TILE_WG) {
            hk[p] = dk[p];
#if VAL_BYTES
            hv[p] = dv[p];
#endif
        }
    }
}

__kernel void segsort_large(__global KT *keys, ulong koff, __global VT *vals, ulong voff,
                            __global const ulong *offs, ulong ooff, ulong base, ulong limit,
                            ulong big, ulong mask0, ulong mask1,
                            __global KT *tk, __global VT *tv)
{
    __local uint lh[DIGITS * RADIX];
    __local uint lc[SORT_WARPS * RADIX];
    __local uint lx[SORT_LX];
    __local KT lor[TILE_WG], land[TILE_WG];
    __local ulong lb[RADIX];

    ulong s = get_group_id(0);
    offs += ooff;
    ulong e = seg_end(offs, s, limit), b = min(offs[s], e), at = b - base, len = e - b;
    seg_sort_long(keys + koff + at, vals + voff + at, tk + at, tv + at,
                  len > SEG_TILE && len <= big ? len : 0, (KT)mask0, (KT)mask1, lh, lc, lx, lor,
                  land, lb);
}
