/* segmented.cl - reduce and scan per segment, and the extreme value's index.

   Segments: offs[0 .. nseg] are non-decreasing element indices; segment s
   is [offs[s], offs[s+1]). An offset v names element in[v - base] (the host
   API copies only [offs[0], offs[nseg]) to the device and passes base =
   offs[0]; the buffer API passes base = 0). Offsets read from the caller's
   buffer are clamped to limit and a decreasing one gives an empty segment,
   so that no offset can make a kernel reach outside its buffers.

   Strategies, chosen by the host from the average segment length:

   - Short segments on a GPU: seg_reduce_items / seg_scan_items, one work
     item per segment (a grid-stride loop over segments).
   - Reduce on a GPU, longer segments: seg_reduce_teams, a team of 32 items
     (a warp) per segment; from about a thousand elements, given enough
     segments to fill the device, seg_reduce_groups, a work-group per
     segment reading aligned vectors.
   - Otherwise the elements [offs[0], offs[nseg]) are cut into `units` equal
     chunks, a unit being a work item (CHUNKED: each owns a contiguous range,
     as PoCL needs) or a work-group (GPUs: the group reads each segment's part
     of its chunk with coalesced loads). Three launches:
       seg_chunks  each unit walks the segments meeting its chunk: a segment
                   inside the chunk is finished (reduce writes it); the part
                   of a segment that began before the chunk (head) and of one
                   that goes on past it (tail) are published, with flags;
       seg_carry   one group scans the units' (reset, value) pairs, so that
                   each unit learns the running value of the segment it
                   continues (carry-in); reduce finishes the segments that
                   end in a later chunk than they began;
       seg_scan_chunks  (scan only) each unit scans its chunk again, its
                   first segment seeded with its carry-in.
   The combining order depends only on the offsets, n and the plan: float
   results are reproducible. Operands stay in index order in the scans. */

#ifndef BLOCK
#define BLOCK 1024
#endif

/* Unit flags in the low bits of meta[k]; the segment id above them. */
#define SEG_CONT 1u   /* the chunk's first segment began before the chunk */
#define SEG_THRU 2u   /* ... and goes on past its end */

#define OFF(s) min(offs[(s)], limit)

/* First j in [0, nseg] with OFF(j) >= x (offsets non-decreasing). */
static inline ulong lower_bound(__global const ulong *offs, ulong limit, ulong nseg, ulong x)
{
    ulong lo = 0, hi = nseg;
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2;
        if (OFF(mid) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first segment a chunk starting at b meets: the one containing b, or
   the first (maybe empty) one starting at b. */
static inline ulong first_segment(__global const ulong *offs, ulong limit, ulong nseg, ulong b)
{
    ulong j = lower_bound(offs, limit, nseg, b);
    return (j > 0 && OFF(j) > b) ? j - 1 : j;
}

/* Serial reduce of x[lo, hi) in blocks (a float sum's rounding grows with
   the block, not the whole range). */
static inline T range_reduce(__global const T *x, ulong lo, ulong hi)
{
    T acc = IDENTITY;
    T4 acc4 = (T4)(IDENTITY);
    ulong i = lo;
    for (; i + BLOCK <= hi; i += BLOCK) {
        T4 block = (T4)(IDENTITY);
        for (uint j = 0; j < BLOCK; j += 4)
            block = COMBINE4(block, vload4(0, x + i + j));
        acc4 = COMBINE4(acc4, block);
    }
    for (; i + 4 <= hi; i += 4)
        acc4 = COMBINE4(acc4, vload4(0, x + i));
    for (; i < hi; i++)
        acc = COMBINE(acc, x[i]);
    return COMBINE(FOLD4(acc4), acc);
}

/* Serial scan of x[lo, hi) into y, seeded with acc. */
static inline void range_scan(__global const T *x, __global T *y, ulong lo, ulong hi, T acc,
                              int inclusive)
{
    for (ulong i = lo; i < hi; i++) {
        T v = x[i];
        T next = COMBINE(acc, v);
        y[i] = inclusive ? next : acc;
        acc = next;
    }
}

/* ---- one work item per segment -------------------------------------------- */

__kernel void seg_reduce_items(__global const T *in, ulong in_off, __global const ulong *offs,
                               ulong offs_off, ulong nseg, ulong base, ulong limit,
                               __global T *out, ulong out_off)
{
    in += in_off;
    offs += offs_off;
    for (ulong s = get_global_id(0); s < nseg; s += get_global_size(0)) {
        ulong lo = OFF(s), hi = max(lo, OFF(s + 1));
        out[out_off + s] = range_reduce(in, lo - base, hi - base);
    }
}

__kernel void seg_scan_items(__global const T *in, ulong in_off, __global const ulong *offs,
                             ulong offs_off, ulong nseg, ulong base, ulong limit,
                             __global T *out, ulong out_off, int inclusive)
{
    in += in_off;
    out += out_off;
    offs += offs_off;
    for (ulong s = get_global_id(0); s < nseg; s += get_global_size(0)) {
        ulong lo = OFF(s), hi = max(lo, OFF(s + 1));
        range_scan(in, out, lo - base, hi - base, IDENTITY, inclusive);
    }
}

#if !CHUNKED
/* ---- GPUs: a team of TEAM items, or a whole group, per segment -------------- */

#define TEAM (WG < 32 ? WG : 32) /* a warp on NVIDIA */
#define TEAMS (WG / TEAM)        /* teams per group */

/* Each team reduces one segment per round with coalesced loads (item l of
   the team takes elements lo + l, lo + l + TEAM, ...), then folds its TEAM
   partials in a tree in __local memory. Rounds go over the group's
   segments with a trip count that is the same for all its items, so that
   every item reaches every barrier. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_reduce_teams(__global const T *in, ulong in_off, __global const ulong *offs,
                      ulong offs_off, ulong nseg, ulong base, ulong limit, __global T *out,
                      ulong out_off)
{
    __local T tree[WG];
    in += in_off;
    offs += offs_off;
    const uint lid = get_local_id(0), lane = lid % TEAM;
    const ulong step = (ulong)get_num_groups(0) * TEAMS;
    for (ulong first = (ulong)get_group_id(0) * TEAMS; first < nseg; first += step) {
        const ulong s = first + lid / TEAM;
        T acc = IDENTITY;
        if (s < nseg) {
            const ulong lo = OFF(s), hi = max(lo, OFF(s + 1));
            for (ulong i = lo + lane; i < hi; i += TEAM)
                acc = COMBINE(acc, in[i - base]);
        }
        tree[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = TEAM / 2; d > 0; d >>= 1) {
            if (lane < d)
                tree[lid] = COMBINE(tree[lid], tree[lid + d]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0 && s < nseg)
            out[out_off + s] = tree[lid];
    }
}

/* One group per segment (rounds over the segments as above): the segment's
   aligned T4 vectors four at a time per item, the unaligned elements at
   either end by the first items, then the group's tree. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_reduce_groups(__global const T *in, ulong in_off, __global const ulong *offs,
                       ulong offs_off, ulong nseg, ulong base, ulong limit, __global T *out,
                       ulong out_off)
{
    __local T tree[WG];
    in += in_off;
    offs += offs_off;
    const uint lid = get_local_id(0);
    for (ulong s = get_group_id(0); s < nseg; s += get_num_groups(0)) {
        const ulong lo = OFF(s) - base, len = max(OFF(s), OFF(s + 1)) - OFF(s);
        __global const T *x = in + lo;
        const ulong head = min((ulong)((4 - ((in_off + lo) & 3)) & 3), len);
        const ulong nvec = (len - head) / 4, tail = head + 4 * nvec;
        __global const T4 *v = (__global const T4 *)(x + head);
        T4 a = (T4)(IDENTITY), b = (T4)(IDENTITY), c = (T4)(IDENTITY), d = (T4)(IDENTITY);
        ulong j = lid;
        for (; j + 3 * WG < nvec; j += 4 * WG) {
            a = COMBINE4(a, v[j]);
            b = COMBINE4(b, v[j + WG]);
            c = COMBINE4(c, v[j + 2 * WG]);
            d = COMBINE4(d, v[j + 3 * WG]);
        }
        for (; j < nvec; j += WG)
            a = COMBINE4(a, v[j]);
        T acc = FOLD4(COMBINE4(COMBINE4(a, b), COMBINE4(c, d)));
        if (lid < head)
            acc = COMBINE(x[lid], acc);
        if (lid < len - tail)
            acc = COMBINE(acc, x[tail + lid]);
        T r = group_reduce(acc, tree);
        if (lid == 0)
            out[out_off + s] = r;
    }
}
#endif

/* ---- chunks: pass 1 -------------------------------------------------------- */

/* The chunk [*b, *e) of unit k of units over [offs[0], offs[nseg]). */
static inline void chunk_of(__global const ulong *offs, ulong limit, ulong nseg, ulong units,
                            ulong k, ulong *b, ulong *e)
{
    ulong o0 = OFF(0), total = max(o0, OFF(nseg)) - o0;
    ulong per = (total + units - 1) / units;
    *b = o0 + min(k * per, total);
    *e = o0 + min(k * per + per, total);
}

#if CHUNKED
#define UNIT get_global_id(0)
#define UNITS get_global_size(0)
#define UNIT_LEAD 1                       /* the item that writes for its unit */
#else
#define UNIT get_group_id(0)
#define UNITS get_num_groups(0)
#define UNIT_LEAD (get_local_id(0) == 0)
#endif

/* The reduce of x[lo, hi) by the whole unit (every item gets it). */
#if CHUNKED
#define UNIT_REDUCE(x, lo, hi, tree) range_reduce((x), (lo), (hi))
#else
static inline T group_range_reduce(__global const T *x, ulong lo, ulong hi, __local T *tree)
{
    T acc = IDENTITY;
    for (ulong i = lo + get_local_id(0); i < hi; i += WG)
        acc = COMBINE(acc, x[i]);
    return group_reduce(acc, tree);
}
#define UNIT_REDUCE(x, lo, hi, tree) group_range_reduce((x), (lo), (hi), (tree))
#endif

/* part[k] is the head value of unit k, part[units + k] its tail value. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_chunks(__global const T *in, ulong in_off, __global const ulong *offs, ulong offs_off,
                ulong nseg, ulong base, ulong limit, __global T *out, ulong out_off,
                int write_out, int end_empties, __global T *part, __global ulong *meta)
{
#if !CHUNKED
    __local T tree[WG];
#endif
    in += in_off;
    offs += offs_off;
    const ulong k = UNIT, units = UNITS;
    const int last = k == units - 1;
    ulong b, e;
    chunk_of(offs, limit, nseg, units, k, &b, &e);
    T head = IDENTITY, tail = IDENTITY;
    ulong m = 0;
    for (ulong s = first_segment(offs, limit, nseg, b); s < nseg; s++) {
        ulong so = OFF(s), se = max(so, OFF(s + 1));
        /* Empty segments at the very end belong to the last unit (reduce;
           end_empties 0: they are padding, see bykey.c). */
        if (so >= e && !(last && write_out && end_empties))
            break;
        ulong lo = max(so, b), hi = max(lo, min(se, e));
        T r = UNIT_REDUCE(in, lo - base, hi - base, tree);
        if (so >= b && se <= e) {
            if (write_out && UNIT_LEAD)
                out[out_off + s] = r;
        } else if (so < b) {
            head = r;
            m = s << 2 | SEG_CONT | (se > e ? SEG_THRU : 0u);
        } else {
            tail = r;
        }
    }
    if (UNIT_LEAD) {
        part[k] = head;
        part[units + k] = tail;
        meta[k] = m;
    }
}

/* ---- pass 2: carries across units, by one group ---------------------------- */

/* Inclusive scan across the group of (reset, v) pairs: a set reset drops
   what came before. Every item must call it. */
static inline T group_seg_scan(uint *reset, T v, __local T *lv, __local uint *lr)
{
    const uint lid = get_local_id(0);
    lv[lid] = v;
    lr[lid] = *reset;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        T pv = v;
        uint pr = 1;
        if (lid >= d) {
            pv = lv[lid - d];
            pr = lr[lid - d];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= d) {
            v = *reset ? v : COMBINE(pv, v);
            *reset |= pr;
        }
        lv[lid] = v;
        lr[lid] = *reset;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return v;
}

/* Launched as one group. A unit's carry-out is the running value of the
   segment that goes on past its chunk: carry-in + head when the chunk lies
   inside one segment (THRU), else its tail. Scan: part[k] becomes unit k's
   carry-in. Reduce: a segment that ends in unit k's chunk after beginning
   in an earlier one is written as carry-in + head. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_carry(__global T *part, __global const ulong *meta, ulong units, __global T *out,
               ulong out_off, int write_out)
{
    __local T lv[WG];
    __local uint lr[WG];
    const uint lid = get_local_id(0);
    T carry = IDENTITY;
    for (ulong first = 0; first < units; first += WG) {
        const ulong k = first + lid;
        const ulong m = k < units ? meta[k] : 0;
        const T head = k < units ? part[k] : IDENTITY;
        uint reset = (m & SEG_THRU) == 0;
        T v = k < units ? ((m & SEG_THRU) ? head : part[units + k]) : IDENTITY;
        T r = group_seg_scan(&reset, v, lv, lr);
        T carry_out = reset ? r : COMBINE(carry, r);
        lv[lid] = carry_out;
        barrier(CLK_LOCAL_MEM_FENCE);
        T carry_in = lid ? lv[lid - 1] : carry;
        T next = lv[WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (m & SEG_CONT) {
            if (!write_out)
                part[k] = carry_in;
            else if (!(m & SEG_THRU))
                out[out_off + (m >> 2)] = COMBINE(carry_in, head);
        }
        carry = next;
    }
}

/* ---- pass 3 (scan): each unit scans its chunk ------------------------------ */

#if !CHUNKED
/* Inclusive scan of one value per item across the group (Hillis-Steele). */
static inline T group_scan_incl(T v, __local T *lv)
{
    const uint lid = get_local_id(0);
    lv[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        T p = lid >= d ? lv[lid - d] : IDENTITY;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= d)
            v = COMBINE(p, v);
        lv[lid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return v;
}

/* The group scans x[lo, hi) into y in tiles of WG, seeded with acc. */
static inline void group_range_scan(__global const T *x, __global T *y, ulong lo, ulong hi,
                                    T acc, int inclusive, __local T *lv)
{
    const uint lid = get_local_id(0);
    for (ulong t = lo; t < hi; t += WG) {
        const ulong i = t + lid;
        T v = i < hi ? x[i] : IDENTITY;
        T incl = group_scan_incl(v, lv);
        T excl = lid ? lv[lid - 1] : IDENTITY;
        T total = lv[WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < hi)
            y[i] = COMBINE(acc, inclusive ? incl : excl);
        acc = COMBINE(acc, total);
    }
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_scan_chunks(__global const T *in, ulong in_off, __global const ulong *offs,
                     ulong offs_off, ulong nseg, ulong base, ulong limit, __global T *out,
                     ulong out_off, int inclusive, __global const T *part)
{
#if !CHUNKED
    __local T lv[WG];
#endif
    in += in_off;
    out += out_off;
    offs += offs_off;
    const ulong k = UNIT, units = UNITS;
    ulong b, e;
    chunk_of(offs, limit, nseg, units, k, &b, &e);
    for (ulong s = first_segment(offs, limit, nseg, b); s < nseg; s++) {
        ulong so = OFF(s), se = max(so, OFF(s + 1));
        if (so >= e)
            break;
        ulong lo = max(so, b), hi = max(lo, min(se, e));
        T acc = so < b ? part[k] : IDENTITY;
#if CHUNKED
        range_scan(in, out, lo - base, hi - base, acc, inclusive);
#else
        group_range_scan(in, out, lo - base, hi - base, acc, inclusive, lv);
#endif
    }
}

/* ---- argmin / argmax -------------------------------------------------------- */

/* OP_ID 1 (MIN) or 2 (MAX). NONE marks "no element yet" (and a NaN). */
#define NONE ULONG_MAX
#if T_IS_FLOAT
#define IS_NUMBER(v) ((v) == (v))
#else
#define IS_NUMBER(v) 1
#endif
#if OP_ID == 2
#define BEATS(a, b) ((a) > (b))
#else
#define BEATS(a, b) ((a) < (b))
#endif

/* Does (v2, i2) replace (v1, i1)? The better value, then the lower index. */
static inline int index_better(T v1, ulong i1, T v2, ulong i2)
{
    return i2 != NONE && (i1 == NONE || BEATS(v2, v1) || (v2 == v1 && i2 < i1));
}

/* Lane state of the GPU pass: (best, at) takes element v of index j when v
   is a number and beats best, or nothing was taken yet. Elements come in
   increasing index order per lane, so the first of equal values stays. */
#define INDEX_TAKE(v, j, best, at)                                          \
    do {                                                                    \
        const T v_ = (v);                                                   \
        if (IS_NUMBER(v_) && ((at) == NONE || BEATS(v_, (best)))) {         \
            (best) = v_;                                                    \
            (at) = (j);                                                     \
        }                                                                   \
    } while (0)

/* Pass 0 (has_idx 0) reduces in[off, off + n) to one (value, index) per
   group; pass 1 (has_idx 1) the partials of pass 0 with their indices
   idx[]. On GPUs pass 0 is one streaming read: aligned T4 vectors in a
   grid-stride loop (adjacent items on adjacent vectors), two in flight per
   item, each lane of the vector with its own (best, at) in registers; the
   few unaligned elements at either end go to the first items. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void index_pass(__global const T *in, ulong off, ulong n, __global const ulong *idx,
                int has_idx, __global T *out, ulong out_off, __global ulong *out_idx,
                ulong idx_off)
{
    __local T tv[WG];
    __local ulong ti[WG];
    in += off;
    const ulong gid = get_global_id(0), items = get_global_size(0);
    const uint lid = get_local_id(0);
    T best = IDENTITY;
    ulong at = NONE;
#if CHUNKED
    const ulong per = (n + items - 1) / items;
    const ulong begin = min(gid * per, n), end = min(begin + per, n);
    if (!has_idx) {
        /* Blocks in vector loads: the block's extreme first (MIN/MAX skip
           NaN), then, only when it beats the best so far, its first
           position, found while the block is still in cache. */
        for (ulong blk = begin; blk < end; blk += BLOCK) {
            const ulong bend = min(blk + BLOCK, end);
            T4 m4 = (T4)(IDENTITY);
            ulong i = blk;
            for (; i + 4 <= bend; i += 4)
                m4 = COMBINE4(m4, vload4(0, in + i));
            T m = FOLD4(m4);
            for (; i < bend; i++)
                m = COMBINE(m, in[i]);
            if (at != NONE && !BEATS(m, best))
                continue;
            for (i = blk; i < bend; i++)
                if (in[i] == m) {
                    best = m;
                    at = i;
                    break;
                }
        }
    }
    for (ulong i = has_idx ? begin : end; i < end; i++) {
        T v = in[i];
        ulong j = idx[i]; /* a partial of pass 0 may be NONE */
        if (index_better(best, at, v, j)) {
            best = v;
            at = j;
        }
    }
#else
    if (!has_idx) {
        const ulong head = min((ulong)((4 - (off & 3)) & 3), n);
        const ulong nvec = (n - head) / 4, tail = head + 4 * nvec;
        __global const T4 *v4 = (__global const T4 *)(in + head);
        T b0 = IDENTITY, b1 = IDENTITY, b2 = IDENTITY, b3 = IDENTITY;
        ulong a0 = NONE, a1 = NONE, a2 = NONE, a3 = NONE;
        ulong j = gid;
        for (; j + items < nvec; j += 2 * items) {
            const T4 x = v4[j], y = v4[j + items];
            INDEX_TAKE(x.s0, j, b0, a0);
            INDEX_TAKE(x.s1, j, b1, a1);
            INDEX_TAKE(x.s2, j, b2, a2);
            INDEX_TAKE(x.s3, j, b3, a3);
            INDEX_TAKE(y.s0, j + items, b0, a0);
            INDEX_TAKE(y.s1, j + items, b1, a1);
            INDEX_TAKE(y.s2, j + items, b2, a2);
            INDEX_TAKE(y.s3, j + items, b3, a3);
        }
        if (j < nvec) {
            const T4 x = v4[j];
            INDEX_TAKE(x.s0, j, b0, a0);
            INDEX_TAKE(x.s1, j, b1, a1);
            INDEX_TAKE(x.s2, j, b2, a2);
            INDEX_TAKE(x.s3, j, b3, a3);
        }
        /* Vector indices to element indices, then the lanes and the ends
           merged by (value, then lowest index). */
        if (gid < head)
            INDEX_TAKE(in[gid], gid, best, at);
        if (index_better(best, at, b0, a0 == NONE ? NONE : head + 4 * a0)) {
            best = b0;
            at = head + 4 * a0;
        }
        if (index_better(best, at, b1, a1 == NONE ? NONE : head + 4 * a1 + 1)) {
            best = b1;
            at = head + 4 * a1 + 1;
        }
        if (index_better(best, at, b2, a2 == NONE ? NONE : head + 4 * a2 + 2)) {
            best = b2;
            at = head + 4 * a2 + 2;
        }
        if (index_better(best, at, b3, a3 == NONE ? NONE : head + 4 * a3 + 3)) {
            best = b3;
            at = head + 4 * a3 + 3;
        }
        if (gid < n - tail) {
            const T v = in[tail + gid];
            const ulong i = IS_NUMBER(v) ? tail + gid : NONE;
            if (index_better(best, at, v, i)) {
                best = v;
                at = i;
            }
        }
    }
#pragma unroll 4
    for (ulong i = has_idx ? gid : n; i < n; i += items) {
        T v = in[i];
        ulong j = idx[i]; /* a partial of pass 0 may be NONE */
        if (index_better(best, at, v, j)) {
            best = v;
            at = j;
        }
    }
#endif
    tv[lid] = best;
    ti[lid] = at;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (lid < s && index_better(tv[lid], ti[lid], tv[lid + s], ti[lid + s])) {
            tv[lid] = tv[lid + s];
            ti[lid] = ti[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[out_off + get_group_id(0)] = tv[0];
        out_idx[idx_off + get_group_id(0)] = ti[0];
    }
}

/* ---- reduce by key: runs of equal keys, one read of the input ---------------

   The n elements are cut into `units` chunks of `per` elements (a work item
   each on CPUs, a work-group each on GPUs). Three launches:
     rbk_chunks  each unit walks its chunk once, finding run heads (a key
                 whose bits differ from the element before), and writes the
                 runs headed in its chunk from the chunk's own start in
                 scratch: tk[b + j] the key of its j-th run, tv[b + j] that
                 run's value when the run also ends in the chunk. It
                 publishes its number of heads (cnt[u]), the reduce of its
                 elements before its first head (part[u], the head part: the
                 end of a run begun earlier; the whole chunk if it has no
                 head) and of those from its last head on (part[units + u],
                 the tail: the start of a run that may go on);
     rbk_carry   one group scans the units' (head count, carry) pairs: unit
                 u's first output position H[u] (cnt[units + u]) and the value
                 of the run open at its start; it writes the value of every
                 run that ends in a later chunk than it began (carry-in op
                 head part) and of the last run, and the number of runs;
     rbk_move    each unit copies its runs to their final place H[u] + j.
   Keys are moved as 32-bit words (wide: two per key; only their bits
   matter). A run's value is IDENTITY op its elements, grouped by the
   layout alone (on CPUs vector lanes take part, as in gpgpu_reduce): float
   results depend on n and the plan only.
   On GPUs a group's chunk goes in sub-tiles of WG * RBK_ITEMS elements:
   round j loads element j * WG + lid of the sub-tile (coalesced), with its
   head flag, into __local memory; each item then owns RBK_ITEMS consecutive
   elements there, and the group scans the items' (heads, tail) pairs. */

/* A sub-tile of 4096 (2048 for 8-byte values: TYPE_ID 3 on) elements, so
   that its __local copy stays within 48 KiB for any WG up to 1024. Sized
   from TYPE_ID rather than sizeof(T), so that #if can use RBK_ITEMS. */
#if TYPE_ID >= 3
#define RBK_SUB_MIN 2048
#else
#define RBK_SUB_MIN 4096
#endif
#define RBK_ITEMS (RBK_SUB_MIN / WG ? RBK_SUB_MIN / WG : 1)
#define RBK_SUB (WG * RBK_ITEMS)
/* NVIDIA: the head flags as one ballot per warp and round, so that an item
   reads its RBK_ITEMS flags in one __local load (a byte each had lanes
   4 words apart, a 4-way bank conflict on every read) */
#if NV_PTX && WG % 32 == 0 && RBK_ITEMS <= 32 && 32 % RBK_ITEMS == 0
#define RBK_BITS 1
#else
#define RBK_BITS 0
#endif
/* NVIDIA: a unit is one warp, not a group (rbk_warp below) */
#if !CHUNKED && NV_PTX && WG % 32 == 0
#define RBK_WARP 1
#define RBK_ROUNDS 8 /* rounds of 32 elements whose loads go out together */
#else
#define RBK_WARP 0
#endif
#define RUN_HEAD 0x8000000000000000ul   /* flag bit of a packed (flag, count) */

static inline ulong key_at(__global const uint *k, ulong i, const int wide)
{
    return wide ? ((ulong)k[2 * i] | (ulong)k[2 * i + 1] << 32) : (ulong)k[i];
}

static inline void key_put(__global uint *k, ulong i, ulong v, const int wide)
{
    if (wide) {
        k[2 * i] = (uint)v;
        k[2 * i + 1] = (uint)(v >> 32);
    } else {
        k[i] = (uint)v;
    }
}

/* Inclusive scan across the group of (c: RUN_HEAD flag | count, v) pairs:
   counts add, flags or, and a flagged right operand drops the value on its
   left. sc[] and sv[] keep every item's inclusive pair for the caller (the
   exclusive pair of item l is item l - 1's). Every item must call it. */
#define RUN_PAIR(pc, pv, c, v)                                                 \
    do {                                                                       \
        (v) = ((c) & RUN_HEAD) ? (v) : COMBINE((pv), (v));                     \
        (c) = (((pc) & ~RUN_HEAD) + ((c) & ~RUN_HEAD)) | (((pc) | (c)) & RUN_HEAD); \
    } while (0)

#if NV_PTX && WG % 32 == 0
/* On NVIDIA: shuffles within each warp, then each warp folds the totals of
   the warps before it (three barriers in place of 2 log2(WG) + 1). */
/* A ulong and a T through a 32-bit shuffle (up by d, or from lane d), a
   word at a time. */
#define RUN_SHUFFLES(ul, t, shfl)                                              \
    static inline ulong ul(ulong x, uint d)                                    \
    {                                                                          \
        return (ulong)shfl((uint)x, d) | (ulong)shfl((uint)(x >> 32), d) << 32; \
    }                                                                          \
    static inline T t(T x, uint d)                                             \
    {                                                                          \
        union { T t; uint w[sizeof(T) / 4]; } a, b;                            \
        a.t = x;                                                               \
        for (uint i = 0; i < sizeof(T) / 4; i++)                               \
            b.w[i] = shfl(a.w[i], d);                                          \
        return b.t;                                                            \
    }
RUN_SHUFFLES(run_shfl_ul, run_shfl_t, nv_shfl_up)

static inline void group_run_scan(ulong *c, T *v, __local ulong *sc, __local T *sv)
{
    const uint lid = get_local_id(0), lane = lid % 32, w = lid / 32;
#pragma unroll
    for (uint d = 1; d < 32; d <<= 1) {
        const ulong pc = run_shfl_ul(*c, d);
        const T pv = run_shfl_t(*v, d);
        if (lane >= d)
            RUN_PAIR(pc, pv, *c, *v);
    }
    if (lane == 31) {
        sc[w] = *c;
        sv[w] = *v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (w) {
        ulong pc = sc[0];
        T pv = sv[0];
        for (uint u = 1; u < w; u++) {
            ulong qc = sc[u];
            T qv = sv[u];
            RUN_PAIR(pc, pv, qc, qv);
            pc = qc;
            pv = qv;
        }
        RUN_PAIR(pc, pv, *c, *v);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    sc[lid] = *c;
    sv[lid] = *v;
    barrier(CLK_LOCAL_MEM_FENCE);
}
#else
static inline void group_run_scan(ulong *c, T *v, __local ulong *sc, __local T *sv)
{
    const uint lid = get_local_id(0);
    sc[lid] = *c;
    sv[lid] = *v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        ulong pc = 0;
        T pv = IDENTITY;
        if (lid >= d) {
            pc = sc[lid - d];
            pv = sv[lid - d];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid >= d) {
            RUN_PAIR(pc, pv, *c, *v);
            sc[lid] = *c;
            sv[lid] = *v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

/* What a (flag, value) prefix makes of the running value carry. */
#define RUN_APPLY(c, v, carry) (((c) & RUN_HEAD) ? (v) : COMBINE((carry), (v)))

#if CHUNKED
#define RBK_BLOCK 8 /* elements: what block_heads compares */

/* The run heads among keys [i, i + RBK_BLOCK), i > 0: byte j of the
   result is nonzero where a run begins at key i + j. *last holds key
   i - 1's words on entry and key i + 7's on return, so that each key is
   loaded once, aligned as the block. (any() was a slow call on PoCL.) */
static inline ulong block_heads(__global const uint *k, ulong i, uint2 *last, const int wide)
{
    uint8 d;
    if (wide) {
        const uint8 x = vload8(0, k + 2 * i), y = vload8(1, k + 2 * i);
        const uint8 dx = x ^ (uint8)(*last, x.s0123, x.s45),
                    dy = y ^ (uint8)(x.s67, y.s0123, y.s45);
        d = (uint8)(dx.even | dx.odd, dy.even | dy.odd);
        *last = y.s67;
    } else {
        const uint8 x = vload8(0, k + i);
        d = x ^ (uint8)((*last).x, x.s0123, x.s456);
        (*last).x = x.s7;
    }
    return as_ulong(convert_char8(d != 0));
}

#if TYPE_ID <= 2
typedef int4 M4;
#else
typedef long4 M4;
#endif

/* The reduce of x[0, RBK_BLOCK) before element h (first 1) or from it on
   (first 0), the other lanes taken as IDENTITY. */
static inline T block_part(__global const T *x, uint h, int first)
{
    const M4 lo = (M4)(0, 1, 2, 3) < (M4)(h), hi = (M4)(4, 5, 6, 7) < (M4)(h);
    const T4 id = (T4)(IDENTITY), a = vload4(0, x), b = vload4(1, x);
    return first ? FOLD4(COMBINE4(select(id, a, lo), select(id, b, hi)))
                 : FOLD4(COMBINE4(select(a, id, lo), select(b, id, hi)));
}

/* A run head at element j (j > 0 or not)? */
static inline int is_head(__global const uint *k, ulong j, const int wide)
{
    return j == 0 || key_at(k, j, wide) != key_at(k, j - 1, wide);
}

/* Writes the run before a head found at element j (the head part when it
   is the chunk's first) and starts the next. */
#define RBK_HEAD(j)                                   \
    do {                                              \
        if (r)                                        \
            tv[b + r - 1] = acc;                      \
        else                                          \
            headpart = acc;                           \
        key_put(tk, b + r, key_at(keys, (j), wide), wide); \
        r++;                                          \
        acc = IDENTITY;                               \
    } while (0)

/* One unit's chunk [b, e), by one work item, in blocks of RBK_BLOCK
   aligned on the index: the vectors of blocks with no run head add up in
   acc4 (folded into acc at the next head), a block with one head is two
   masked vector folds, the others go element by element. */
static inline void rbk_chunk(__global const uint *keys, __global const T *vals, ulong b,
                             ulong e, __global uint *tk, __global T *tv, __global T *part,
                             __global ulong *cnt, ulong u, ulong units, const int wide,
                             __local T *lv, __local uchar *lf, __local ulong *sc,
                             __local T *sv)
{
    T acc = IDENTITY, headpart = IDENTITY;
    ulong r = 0, i = b;
    for (; i < e && (i == b || i % RBK_BLOCK); i++) {
        if (is_head(keys, i, wide))
            RBK_HEAD(i);
        acc = COMBINE(acc, vals[i]);
    }
    if (i + RBK_BLOCK <= e) {
        T4 acc4 = (T4)(IDENTITY);
        uint2 last = wide ? vload2(i - 1, keys) : (uint2)(keys[i - 1], 0);
        for (; i + RBK_BLOCK <= e; i += RBK_BLOCK) {
            const ulong heads = block_heads(keys, i, &last, wide);
            if (!heads) {
                acc4 = COMBINE4(acc4, COMBINE4(vload4(0, vals + i), vload4(1, vals + i)));
                continue;
            }
            acc = COMBINE(acc, FOLD4(acc4));
            acc4 = (T4)(IDENTITY);
            if (popcount(heads) == 8) { /* one head: two masked vector folds */
                const uint h = popcount((heads & (0 - heads)) - 1) / 8;
                acc = COMBINE(acc, block_part(vals + i, h, 1));
                RBK_HEAD(i + h);
                acc = COMBINE(acc, block_part(vals + i, h, 0));
                continue;
            }
            for (uint j = 0; j < RBK_BLOCK; j++) {
                if (heads >> (8 * j) & 1)
                    RBK_HEAD(i + j);
                acc = COMBINE(acc, vals[i + j]);
            }
        }
        acc = COMBINE(acc, FOLD4(acc4));
    }
    for (; i < e; i++) {
        if (is_head(keys, i, wide))
            RBK_HEAD(i);
        acc = COMBINE(acc, vals[i]);
    }
    part[u] = r ? headpart : acc;
    part[units + u] = acc;
    cnt[u] = r;
}
#else
/* One unit's chunk [b, e), by the group, in sub-tiles. */
static inline void rbk_chunk(__global const uint *keys, __global const T *vals, ulong b,
                             ulong e, __global uint *tk, __global T *tv, __global T *part,
                             __global ulong *cnt, ulong u, ulong units, const int wide,
                             __local T *lv, __local uchar *lf, __local ulong *sc,
                             __local T *sv)
{
    const uint lid = get_local_id(0);
#if RBK_BITS
    __local uint *lfw = (__local uint *)lf; /* bit x % 32 of word x / 32: x heads a run */
#endif
    T carry = IDENTITY;     /* the running value at the sub-tile's start */
    ulong runs = 0;         /* runs headed in the chunk before the sub-tile */
    for (ulong s = b; s < e; s += RBK_SUB) {
        const uint len = (uint)min((ulong)RBK_SUB, e - s);
#if NV_PTX /* every round's loads in flight at once (PoCL's LLVM 15 crashes unrolling it) */
#pragma unroll
#endif
        for (uint j = 0; j < RBK_ITEMS; j++) {
            const uint x = j * WG + lid;
            const ulong g = s + x;
            uchar f = 0;
            T v = IDENTITY;
            if (x < len) {
                f = g == 0 || key_at(keys, g, wide) != key_at(keys, g - 1, wide);
                v = vals[g];
            }
#if RBK_BITS
            const uint m = nv_ballot(f);
            if (lid % 32 == 0)
                lfw[x / 32] = m;
#else
            lf[x] = f;
#endif
            lv[x + x / 32] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint first = lid * RBK_ITEMS;
#if RBK_BITS /* the item's RBK_ITEMS flags in one word's bits */
        const uint bits = lfw[first / 32] >> (first % 32);
#define RBK_FLAG(k) ((bits >> (k)) & 1u)
#else
#define RBK_FLAG(k) lf[first + (k)]
#endif
        ulong c = 0;
        T v = IDENTITY;
        for (uint k = 0; k < RBK_ITEMS; k++) {
            const uint x = first + k;
            if (RBK_FLAG(k)) {
                c++;
                v = IDENTITY;
            }
            v = COMBINE(v, lv[x + x / 32]);
        }
        c |= c ? RUN_HEAD : 0;
        group_run_scan(&c, &v, sc, sv);
        const ulong xc = lid ? sc[lid - 1] : 0;
        T acc = lid ? RUN_APPLY(xc, sv[lid - 1], carry) : carry;
        ulong r = runs + (xc & ~RUN_HEAD);
        for (uint k = 0; k < RBK_ITEMS; k++) {
            const uint x = first + k;
            if (x < len && RBK_FLAG(k)) {
                if (r)
                    tv[b + r - 1] = acc;
                else
                    part[u] = acc;
                key_put(tk, b + r, key_at(keys, s + x, wide), wide);
                r++;
                acc = IDENTITY;
            }
            acc = COMBINE(acc, lv[x + x / 32]);
        }
        carry = RUN_APPLY(sc[WG - 1], sv[WG - 1], carry);
        runs += sc[WG - 1] & ~RUN_HEAD;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        if (!runs)
            part[u] = carry;
        part[units + u] = carry;
        cnt[u] = runs;
    }
}
#endif

#if RBK_WARP
RUN_SHUFFLES(run_idx_ul, run_idx_t, nv_shfl_idx)

/* One unit's chunk [b, e) by one warp, with no barrier and no __local
   memory: round by round, 32 consecutive elements (one per lane, loads
   coalesced, RBK_ROUNDS rounds in flight). A lane's head flag compares its
   key with the lane below's (a shuffle; lane 0 takes the previous round's
   last key), the ballot of the flags gives each head its run's ordinal,
   and a segmented scan by shuffles within the round gives each lane the
   value of its run so far. A head writes its key and the value of the run
   before it (that run's end), as the group path does. */
static inline void rbk_warp(__global const uint *keys, __global const T *vals, ulong b,
                            ulong e, __global uint *tk, __global T *tv, __global T *part,
                            __global ulong *cnt, ulong u, ulong units, const int wide)
{
    const uint lane = get_local_id(0) % 32, below = (1u << lane) - 1;
    T carry = IDENTITY;         /* the open run's value before the round */
    ulong runs = 0;             /* heads in the chunk before the round */
    ulong last = b ? key_at(keys, b - 1, wide) : 0; /* the key before the round */
    for (ulong s = b; s < e; s += 32 * RBK_ROUNDS) {
        ulong k[RBK_ROUNDS];
        T v[RBK_ROUNDS];
#pragma unroll
        for (uint j = 0; j < RBK_ROUNDS; j++) {
            const ulong g = s + j * 32 + lane;
            k[j] = g < e ? key_at(keys, g, wide) : 0;
            v[j] = g < e ? vals[g] : IDENTITY;
        }
#pragma unroll
        for (uint j = 0; j < RBK_ROUNDS; j++) {
            const ulong g = s + j * 32 + lane;
            ulong pk = run_shfl_ul(k[j], 1);
            if (lane == 0)
                pk = last;
            last = run_idx_ul(k[j], 31);
            const uint head = g < e && (g == 0 || k[j] != pk);
            const uint heads = nv_ballot(head);
            const uint mine = heads & (below | (1u << lane));
            const int start = mine ? 31 - (int)clz(mine) : -1; /* this lane's run's first lane */
            T x = v[j];
#pragma unroll
            for (uint d = 1; d < 32; d <<= 1) {
                const T y = run_shfl_t(x, d);
                if ((int)lane - (int)d >= start && lane >= d)
                    x = COMBINE(y, x);
            }
            if (start < 0)
                x = COMBINE(carry, x);
            T prev = run_shfl_t(x, 1);
            if (lane == 0)
                prev = carry;
            if (head) {
                const ulong r = runs + popcount(heads & below);
                if (r)
                    tv[b + r - 1] = prev;
                else
                    part[u] = prev;
                key_put(tk, b + r, k[j], wide);
            }
            carry = run_idx_t(x, 31);
            runs += popcount(heads);
        }
    }
    if (lane == 0) {
        if (!runs)
            part[u] = carry;
        part[units + u] = carry;
        cnt[u] = runs;
    }
}
#endif

/* CPUs launch the units as groups of one work item: PoCL would otherwise
   run a group's items in vector lanes, each in its own chunk, and take the
   per-element path in every lane whenever one lane needs it. */
#if CHUNKED
#define RBK_GROUP
#else
#define RBK_GROUP __attribute__((reqd_work_group_size(WG, 1, 1)))
#endif

/* Unit u of units owns elements [u * per, (u + 1) * per) of [0, n); as many
   units as the launch has. */
__kernel RBK_GROUP
void rbk_chunks(__global const uint *keys, ulong key_off, int wide, __global const T *vals,
                ulong val_off, ulong n, ulong per, ulong units, __global uint *tk,
                __global T *tv, __global T *part, __global ulong *cnt)
{
#if RBK_WARP
    const ulong u = get_global_id(0) / 32;
    if (u >= units)
        return; /* whole warps leave: the launch rounds units * 32 up to WG */
    const ulong b = min(u * per, n), e = min(b + per, n);
    rbk_warp(keys + (key_off << wide), vals + val_off, b, e, tk, tv, part, cnt, u, units, wide);
#else
#if CHUNKED
    __local T *lv = NULL, *sv = NULL;
    __local uchar *lf = NULL;
    __local ulong *sc = NULL;
#else
    __local T lv[RBK_SUB + RBK_SUB / 32];
    __local uint lf4[RBK_SUB / 4];
    __local uchar *lf = (__local uchar *)lf4;
    __local ulong sc[WG];
    __local T sv[WG];
#endif
    const ulong u = UNIT;
    const ulong b = min(u * per, n), e = min(b + per, n);
    keys += key_off << wide;
    vals += val_off;
#if CHUNKED
    /* the key width a constant in each copy of the loop */
    if (wide)
        rbk_chunk(keys, vals, b, e, tk, tv, part, cnt, u, units, 1, lv, lf, sc, sv);
    else
        rbk_chunk(keys, vals, b, e, tk, tv, part, cnt, u, units, 0, lv, lf, sc, sv);
#else
    /* one copy: PoCL's compiler fails on two copies of a loop with barriers */
    rbk_chunk(keys, vals, b, e, tk, tv, part, cnt, u, units, wide, lv, lf, sc, sv);
#endif
#endif
}

/* Launched as one group; see above. cnt[units + u] gets H[u]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void rbk_carry(__global const T *part, __global ulong *cnt, ulong units, __global T *vout,
               ulong vout_off, __global ulong *nruns, ulong nruns_off)
{
    __local ulong sc[WG];
    __local T sv[WG];
    const uint lid = get_local_id(0);
    T carry = IDENTITY;
    ulong runs = 0;
    vout += vout_off;
    for (ulong first = 0; first < units; first += WG) {
        const ulong u = first + lid;
        const ulong h = u < units ? cnt[u] : 0;
        const T head = u < units ? part[u] : IDENTITY;
        ulong c = h | (h ? RUN_HEAD : 0);
        T v = h ? part[units + u] : head;
        group_run_scan(&c, &v, sc, sv);
        const ulong xc = lid ? sc[lid - 1] : 0;
        const T carry_in = lid ? RUN_APPLY(xc, sv[lid - 1], carry) : carry;
        const ulong at = runs + (xc & ~RUN_HEAD);
        if (u < units)
            cnt[units + u] = at;
        if (h && at)
            vout[at - 1] = COMBINE(carry_in, head);
        carry = RUN_APPLY(sc[WG - 1], sv[WG - 1], carry);
        runs += sc[WG - 1] & ~RUN_HEAD;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        if (runs)
            vout[runs - 1] = carry;
        nruns[nruns_off] = runs;
    }
}

/* Unit u's runs from scratch to their place; a run's value only when it
   ended in the chunk (rbk_carry wrote the others). */
__kernel RBK_GROUP
void rbk_move(__global const uint *tk, __global const T *tv, __global const ulong *cnt,
              ulong per, ulong units, int wide, __global uint *kout, ulong kout_off,
              __global T *vout, ulong vout_off)
{
    const ulong u = UNIT;
    const ulong h = cnt[u], at = cnt[units + u], b = u * per;
    kout += kout_off << wide;
    vout += vout_off + at;
#if CHUNKED
    const uint lane = 0, lanes = 1;
#else
    const uint lane = get_local_id(0), lanes = WG;
#endif
    for (ulong j = lane; j < h; j += lanes) {
        key_put(kout, at + j, key_at(tk, b + j, wide), wide);
        if (j + 1 < h)
            vout[j] = tv[b + j];
    }
}

/* ---- scan by key on CPUs ----------------------------------------------------

   The runs of equal keys are the segments, found as the scan goes, each
   work item owning one contiguous chunk of the n elements (the CPU layout).
   sbk_chunk_carry folds the chunk's last run, from its end back to the
   run's head, into part[id] (only the tail after the chunk's last head is
   read), and notes in heads[id] whether the chunk holds a head;
   sbk_chunk_scan seeds its chunk with the fold of the parts from the
   nearest earlier chunk with a head, then scans the chunk, restarting at
   each head. Keys are compared as bit patterns of 32 or 64 bits (k64), so
   one program per value type serves every key type; key_off counts keys. */

static inline int sbk_head(__global const uint *keys, int k64, ulong i)
{
    if (i == 0)
        return 1;
    if (k64)
        return keys[2 * i] != keys[2 * i - 2] || keys[2 * i + 1] != keys[2 * i - 1];
    return keys[i] != keys[i - 1];
}

__kernel void sbk_chunk_carry(__global const uint *keys, ulong key_off, int k64,
                              __global const T *in, ulong in_off, ulong n, __global T *part,
                              __global uint *heads)
{
    keys += key_off << k64;
    in += in_off;
    const ulong id = get_global_id(0), items = get_global_size(0);
    const ulong per = (n + items - 1) / items, lo = min(id * per, n), hi = min(lo + per, n);
    T acc = IDENTITY;
    uint head = 0;
    for (ulong i = hi; i > lo && !head; i--) {
        acc = COMBINE(in[i - 1], acc);
        head = sbk_head(keys, k64, i - 1);
    }
    part[id] = acc;
    heads[id] = head;
}

__kernel void sbk_chunk_scan(__global const uint *keys, ulong key_off, int k64,
                             __global const T *in, ulong in_off, __global T *out, ulong out_off,
                             ulong n, __global const T *part, __global const uint *heads,
                             int inclusive)
{
    keys += key_off << k64;
    in += in_off;
    out += out_off;
    const ulong id = get_global_id(0), items = get_global_size(0);
    const ulong per = (n + items - 1) / items, lo = min(id * per, n), hi = min(lo + per, n);
    if (lo >= hi)
        return;
    T acc = IDENTITY;
    if (id > 0) {
        ulong s = id - 1;
        while (s > 0 && !heads[s])
            s--;
        acc = part[s];
        for (ulong k = s + 1; k < id; k++)
            acc = COMBINE(acc, part[k]);
    }
    /* one loop per key width and kind, the previous key in a register */
#define SBK_SCAN(K, KEY, INCL)                                                 \
    {                                                                          \
        K prev = lo ? KEY(lo - 1) : ~KEY(0);                                   \
        for (ulong i = lo; i < hi; i++) {                                      \
            const K k = KEY(i);                                                \
            const T x = in[i];                                                 \
            acc = k != prev ? IDENTITY : acc;                                  \
            prev = k;                                                          \
            const T next = COMBINE(acc, x);                                    \
            out[i] = INCL ? next : acc;                                        \
            acc = next;                                                        \
        }                                                                      \
    }
#define SBK_KEY32(i) keys[i]
#define SBK_KEY64(i) (((ulong)keys[2 * (i) + 1] << 32) | keys[2 * (i)])
    if (k64 && inclusive)
        SBK_SCAN(ulong, SBK_KEY64, 1)
    else if (k64)
        SBK_SCAN(ulong, SBK_KEY64, 0)
    else if (inclusive)
        SBK_SCAN(uint, SBK_KEY32, 1)
    else
        SBK_SCAN(uint, SBK_KEY32, 0)
#undef SBK_SCAN
#undef SBK_KEY32
#undef SBK_KEY64
}
