/*
 * select_k.cl - radix select for gpgpu_top_k and gpgpu_quantiles
 * (lib/primitives/select_k.c). radix.cl comes first: the keys are the
 * sort's transformed bits (sort_xf), so every type and both orders select
 * by unsigned comparison, floats by totalOrder.
 *
 * GPUs (the tiled layout): top_k reads the data once (select_thresh
 * below); quantiles first try two reads of the data. A sample of
 * SEL_SAMPLE keys, sorted by one group, places a window of keys around
 * each rank wanted (select_sample); one read counts the keys below each
 * window and bins those inside it in __local counters (select_window:
 * keys outside every window touch no counter, so that no counter is hot);
 * one group finds the bin of each rank (select_find); a second read copies
 * the keys of those bins, and for top_k every key below, into a small
 * candidates buffer (select_read); one group per rank then finishes on
 * the candidates alone (select_finish, select_take). When the sample
 * misled (a rank outside its window) or the bins hold more than the
 * buffer (many equal keys), the fast state's gate opens and the passes
 * below, which every layout has, take the call: each of their kernels
 * returns at once while the gate is shut.
 *
 * The passes: the data is read in parts: one contiguous chunk per work
 * item (CHUNKED, groups of one item) or one contiguous tile per group
 * whose items read adjacent words (GPUs). For each rank wanted (up to
 * SEL_SLOTS at once) a pass over the data counts, per part, the digits of
 * the keys that share the rank's prefix found so far (select_count); one
 * group adds the parts up and picks the digit the rank falls in
 * (select_plan). After the last digit the prefix is the key of that rank,
 * and the state also holds how many keys are below it. top_k then takes
 * the keys below the k-th key and the first ties in index order
 * (select_collect) and orders those k candidates by (key, index)
 * (select_rank).
 *
 * The state (ulong words): [0] NaNs seen, [1] the collect counter, [2]
 * whether a slot's prefix holds between 1/16 and 15/16 of the data, then
 * per slot: the prefix, the rank left within the prefix, the keys below.
 */

#ifndef SEL_SLOTS
#define SEL_SLOTS 16
#endif
#ifndef SELECT_FP64
#define SELECT_FP64 0
#endif

#define SEL_HIST (SEL_SLOTS * RADIX + 1)   /* counters per part, then the NaNs */
#define SEL_NANS (SEL_SLOTS * RADIX)
#define SEL_STATE_WORDS (3 + 3 * SEL_SLOTS)
#define ST_DENSE 2
#define ST_PRE(j) (3 + 3 * (j))
#define ST_REM(j) (4 + 3 * (j))
#define ST_LESS(j) (5 + 3 * (j))

/* CPUs read SEL_VW keys at a time where most are skipped. */
#if KEY_BITS == 64
typedef ulong8 KTV;
#define SEL_VW 8
#define sel_vload vload8
#define as_KTV as_ulong8
#define as_KTSV as_long8
#else
typedef uint16 KTV;
#define SEL_VW 16
#define sel_vload vload16
#define as_KTV as_uint16
#define as_KTSV as_int16
#endif

/* sort_xf on SEL_VW keys. */
inline KTV sel_xfv(KTV x, KT m0, KT m1)
{
    return x ^ select((KTV)m0, (KTV)m1, x >> (KT)(KEY_BITS - 1) != (KTV)0);
}

/* The elements [*lo, *hi) of part p and the stride of this item's reads. */
inline void sel_part(ulong n, ulong chunk, ulong *lo, ulong *hi, ulong *step)
{
#if CHUNKED
    ulong p = get_group_id(0);
    *lo = p * chunk + get_local_id(0);
    *step = 1;
#else
    ulong p = get_group_id(0);
    *lo = p * chunk + get_local_id(0);
    *step = get_local_size(0);
#endif
    ulong end = (p + 1) * chunk;
    *hi = end < n ? end : n;
}

#if CHUNKED
#define SEL_INC(h) ((h)++)
#else
#define SEL_INC(h) atomic_inc(&(h))
#endif

/* After the two reads (gated) the passes run only if gate[0] is set: the
   fast state's word that says the reads failed. */
#define SEL_GATED(gate, gated) if ((gated) && !(gate)[0]) return

/* The value v of cnt[0 .. nv) where rem falls: *before = the sum of
   cnt[0 .. v) <= rem < *before + cnt[v]; nv when rem is past the sum.
   Every item of the group calls it and gets the answer; ls: scratch of
   the group's size + 2 words. Each item adds a run of the values, then
   one item walks the runs and the run that holds rem. */
inline uint sel_find(__local const ulong *cnt, uint nv, ulong rem, __local ulong *ls,
                     ulong *before)
{
    uint lid = get_local_id(0), lsz = get_local_size(0), run = (nv + lsz - 1) / lsz;
    ulong sum = 0;
    for (uint v = lid * run; v < nv && v < (lid + 1) * run; v++)
        sum += cnt[v];
    ls[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        ulong acc = 0;
        uint t = 0, v = nv;
        while (t < lsz && acc + ls[t] <= rem)
            acc += ls[t++];
        if (t < lsz)
            for (v = t * run; v < nv && acc + cnt[v] <= rem; v++)
                acc += cnt[v];
        ls[lsz] = v;
        ls[lsz + 1] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint v = (uint)ls[lsz];
    *before = ls[lsz + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return v;
}

/* The first pass: counts, for part p into hist[p * SEL_HIST ..], the
   top digit (at shift) of every key, and the NaNs (keys outside [nan_lo,
   nan_hi]). */
__kernel void select_count0(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0,
                            KT m1, uint shift, KT nan_lo, KT nan_hi, __global uint *hist,
                            __global const ulong *gate, uint gated)
{
    __local uint lh[RADIX + 1];
    ulong lo, hi, step;
    uint lid = get_local_id(0), lsz = get_local_size(0), nans = 0;
    SEL_GATED(gate, gated);
    for (uint i = lid; i <= RADIX; i += lsz)
        lh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    sel_part(n, chunk, &lo, &hi, &step);
    in += off;
    for (ulong i = lo; i < hi; i += step) {
        KT u = sort_xf(in[i], m0, m1);
        SEL_INC(lh[(uint)(u >> shift) & (RADIX - 1)]);
        nans += u < nan_lo || u > nan_hi;
    }
    if (nans)
        atomic_add(&lh[RADIX], nans);
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint *mine = hist + get_group_id(0) * SEL_HIST;
    for (uint i = lid; i < RADIX; i += lsz)
        mine[i] = lh[i];
    if (lid == 0)
        mine[SEL_NANS] = lh[RADIX];
}

/* The later passes: counts, for each of the nr slots, the digit at shift
   of the keys sharing the slot's prefix above it. Slots whose prefix
   equals the previous slot's (ascending ranks: they are neighbours) share
   its counts: pre[] keeps the distinct prefixes. */
__kernel void select_count(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0,
                           KT m1, uint shift, uint nr, __global const ulong *state,
                           __global uint *hist, __global const ulong *gate, uint gated)
{
    __local uint lh[SEL_HIST];
    KT pre[SEL_SLOTS];
    ulong lo, hi, step;
    uint lid = get_local_id(0), lsz = get_local_size(0);
    uint above = shift + RADIX_BITS, lead = 0;
    SEL_GATED(gate, gated);
    for (uint i = lid; i < SEL_HIST; i += lsz)
        lh[i] = 0;
    for (uint j = 0; j < nr; j++) {
        KT p = (KT)state[ST_PRE(j)];
        if (j == 0 || ((p ^ pre[lead - 1]) >> above) != 0)
            pre[lead++] = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    sel_part(n, chunk, &lo, &hi, &step);
    in += off;
    if (lead == 1) {
        KT p0 = pre[0];
#if CHUNKED
        if (state[ST_DENSE]) {
            /* CPUs, when about as many keys match the prefix as not: every
               key adds whether it matches to its digit's counter, rather
               than count behind a branch that would guess wrong half the
               time. */
            for (ulong i = lo; i < hi; i++) {
                KT u = sort_xf(in[i], m0, m1);
                lh[(uint)(u >> shift) & (RADIX - 1)] += ((u ^ p0) >> above) == 0;
            }
        } else {
            /* CPUs, when few keys match: SEL_VW keys at a time, skipped
               together unless one matches (the read then runs at the
               memory's pace) */
            ulong i = lo;
            for (; i + SEL_VW <= hi; i += SEL_VW) {
                KTV u = sel_xfv(sel_vload(0, in + i), m0, m1);
                if (!any(((u ^ (KTV)p0) >> (KTV)above) == (KTV)0))
                    continue;
                for (uint e = 0; e < SEL_VW; e++) {
                    KT w = sort_xf(in[i + e], m0, m1);
                    if (((w ^ p0) >> above) == 0)
                        lh[(uint)(w >> shift) & (RADIX - 1)]++;
                }
            }
            for (; i < hi; i++) {
                KT w = sort_xf(in[i], m0, m1);
                if (((w ^ p0) >> above) == 0)
                    lh[(uint)(w >> shift) & (RADIX - 1)]++;
            }
        }
#else
        for (ulong i = lo; i < hi; i += step) {
            KT u = sort_xf(in[i], m0, m1);
            if (((u ^ p0) >> above) == 0)
                SEL_INC(lh[(uint)(u >> shift) & (RADIX - 1)]);
        }
#endif
    } else {
        ulong i = lo;
#if CHUNKED
        /* CPUs: SEL_VW keys at a time, skipped together unless one
           matches a prefix (ranks that part in the last digits) */
        if (!state[ST_DENSE])
            for (; i + SEL_VW <= hi; i += SEL_VW) {
                KTV u = sel_xfv(sel_vload(0, in + i), m0, m1), hit = 0;
                for (uint j = 0; j < lead; j++)
                    hit |= as_KTV(((u ^ (KTV)pre[j]) >> (KTV)above) == (KTV)0);
                if (!any(as_KTSV(hit)))
                    continue;
                for (uint e = 0; e < SEL_VW; e++) {
                    KT w = sort_xf(in[i + e], m0, m1);
                    uint d = (uint)(w >> shift) & (RADIX - 1);
                    for (uint j = 0; j < lead; j++)
                        if (((w ^ pre[j]) >> above) == 0)
                            lh[j * RADIX + d]++;
                }
            }
#endif
        for (; i < hi; i += step) {
            KT u = sort_xf(in[i], m0, m1);
            uint d = (uint)(u >> shift) & (RADIX - 1);
            for (uint j = 0; j < lead; j++)
                if (((u ^ pre[j]) >> above) == 0)
                    SEL_INC(lh[j * RADIX + d]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint *mine = hist + get_group_id(0) * SEL_HIST;
    for (uint i = lid; i < lead * RADIX; i += lsz)
        mine[i] = lh[i];
}

/* One group of RADIX items after each select_count: adds the parts'
   counts and moves each slot's prefix, rank and count below to the digit
   its rank falls in. first: the counts are one histogram for every slot,
   and the state starts from ranks (and the NaNs are added up). ties
   (after the last pass, top_k): tieb[p] = the ties of slot 0's key in
   parts before p (nparts + 1 entries). */
__kernel void select_plan(__global const uint *hist, uint nparts, uint nr, uint shift,
                          uint first, ulong16 ranks, uint ties, ulong n, __global ulong *state,
                          __global ulong *tieb, __global const ulong *gate, uint gated)
{
    __local ulong lc[RADIX], ls[RADIX + 2];
    uint v = get_local_id(0);
    ulong rk[16] = {ranks.s0, ranks.s1, ranks.s2, ranks.s3, ranks.s4, ranks.s5, ranks.s6,
                    ranks.s7, ranks.s8, ranks.s9, ranks.sa, ranks.sb, ranks.sc, ranks.sd,
                    ranks.se, ranks.sf};
    SEL_GATED(gate, gated);
    if (first && v == 0) {
        ulong nans = 0;
        for (uint p = 0; p < nparts; p++)
            nans += hist[p * SEL_HIST + SEL_NANS];
        state[0] = nans;
        state[1] = 0;
        state[ST_DENSE] = 0;
        for (uint j = 0; j < SEL_SLOTS; j++) { /* unused slots too: they are copied */
            state[ST_PRE(j)] = 0;
            state[ST_REM(j)] = j < nr ? rk[j] : 0;
            state[ST_LESS(j)] = 0;
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    uint above = shift + RADIX_BITS, h = 0, dense = 0;
    for (uint j = 0; j < nr; j++) {
        /* the counts of the first slot of the run with this prefix (as
           select_count keeps them) */
        if (!first && j > 0 && ((state[ST_PRE(j)] ^ state[ST_PRE(j - 1)]) >> above) != 0)
            h++;
        ulong c = 0, before, rem = state[ST_REM(j)];
        for (uint p = 0; p < nparts; p++)
            c += hist[p * SEL_HIST + h * RADIX + v];
        lc[v] = c;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* item 0 writes state next */
        uint d = sel_find(lc, RADIX, rem, ls, &before);
        if (v == 0 && d < RADIX) {
            state[ST_PRE(j)] |= (ulong)d << shift;
            state[ST_REM(j)] = rem - before;
            state[ST_LESS(j)] += before;
            dense |= lc[d] > n / 16 && lc[d] < n - n / 16;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
    if (v == 0)
        state[ST_DENSE] = dense;
    if (ties && v == 0) {
        uint d = (uint)state[ST_PRE(0)] & (RADIX - 1);
        ulong acc = 0;
        for (uint p = 0; p < nparts; p++) {
            tieb[p] = acc;
            acc += hist[p * SEL_HIST + d];
        }
        tieb[nparts] = acc;
    }
}

/* top_k: the keys below slot 0's key (in any order, through the counter)
   and its first ties in index order (need = rank left + 1 of them, after
   the keys below) into ck / ci (raw bits and index). */
__kernel void select_collect(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0,
                             KT m1, __global ulong *state, __global const ulong *tieb,
                             __global KT *ck, __global ulong *ci, __global const ulong *gate, uint gated)
{
    KT kth = (KT)state[ST_PRE(0)];
    ulong less = state[ST_LESS(0)], need = state[ST_REM(0)] + 1;
    ulong lo, hi, step, p = get_group_id(0);
    ulong tb = tieb[p], te = tieb[p + 1];
    __global uint *counter = (__global uint *)(state + 1);
    SEL_GATED(gate, gated);
    sel_part(n, chunk, &lo, &hi, &step);
    in += off;
#if CHUNKED
    ulong o = tb;
    for (ulong i = lo; i < hi; i++) {
        KT x = in[i], u = sort_xf(x, m0, m1);
        if (u < kth) {
            uint s = atomic_inc(counter);
            ck[s] = x;
            ci[s] = i;
        } else if (u == kth && o < need) {
            ck[less + o] = x;
            ci[less + o] = i;
            o++;
        }
    }
#else
    /* Ties are ranked by a group scan of each round of WG elements, only
       in parts that hold ties to take (a condition the group shares). */
    __local uint lt[SORT_LX];
    uint lid = get_local_id(0);
    int take = tb < need && te > tb;
    ulong base = tb;
    ulong start = lo - lid;
    for (ulong r = start; r < hi; r += step) {
        ulong i = r + lid;
        KT x = 0, u = 0;
        int in_range = i < hi, tie = 0;
        if (in_range) {
            x = in[i];
            u = sort_xf(x, m0, m1);
            if (u < kth) {
                uint s = atomic_inc(counter);
                ck[s] = x;
                ci[s] = i;
            }
            tie = u == kth;
        }
        if (take) {
            uint round;
            ulong o = base + sort_wg_scan((uint)tie, lt, &round);
            if (tie && o < need) {
                ck[less + o] = x;
                ci[less + o] = i;
            }
            base += round;
            barrier(CLK_LOCAL_MEM_FENCE); /* lt is written again next round */
        }
    }
#endif
}

/* top_k: the k candidates in (key, index) order, each placed by counting
   the candidates before it; values (when has_v) and indices (when has_i)
   written at their offsets. */
__kernel void select_rank(__global const KT *ck, __global const ulong *ci, uint k, KT m0,
                          KT m1, __global KT *values, ulong voff, uint has_v,
                          __global ulong *indices, ulong ioff, uint has_i)
{
    for (uint c = get_local_id(0); c < k; c += get_local_size(0)) {
        KT x = ck[c], u = sort_xf(x, m0, m1);
        ulong id = ci[c];
        uint r = 0;
        for (uint j = 0; j < k; j++) {
            KT v = sort_xf(ck[j], m0, m1);
            r += v < u || (v == u && ci[j] < id);
        }
        if (has_v)
            values[voff + r] = x;
        if (has_i)
            indices[ioff + r] = id;
    }
}

/* ---- top_k on CPUs: a heap per part --------------------------------------- */

/* (u, x) after (v, y) in the heap's order: the larger key, then the later
   index. */
inline int sel_after(KT u, ulong x, KT v, ulong y)
{
    return u > v || (u == v && x > y);
}

inline void sel_sift(__global KT *hu, __global ulong *hx, uint m, uint at)
{
    KT u = hu[at];
    ulong x = hx[at];
    for (;;) {
        uint c = 2 * at + 1;
        if (c >= m)
            break;
        if (c + 1 < m && sel_after(hu[c + 1], hx[c + 1], hu[c], hx[c]))
            c++;
        if (!sel_after(hu[c], hx[c], u, x))
            break;
        hu[at] = hu[c];
        hx[at] = hx[c];
        at = c;
    }
    hu[at] = u;
    hx[at] = x;
}

/* Part p keeps the k smallest (key, index) pairs of its chunk in a
   max-heap at hu / hx + p * k, then sorts them ascending; hn[p] = how many.
   The chunk is read 4 * SEL_VW keys at a time and a heap step is taken
   only when one of them beats the heap's largest, which after the first keys
   is rare: the read runs at the memory's pace. */
__kernel void select_heap(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0, KT m1,
                          uint k, __global KT *hu, __global ulong *hx, __global uint *hn)
{
    ulong p = get_group_id(0), lo = p * chunk, end = lo + chunk, hi = end < n ? end : n;
    uint m = 0;
    hu += p * k;
    hx += p * k;
    in += off;
    ulong i = lo;
    for (; i < hi && m < k; i++, m++) {
        hu[m] = sort_xf(in[i], m0, m1);
        hx[m] = i;
    }
    for (uint a = m / 2; a-- > 0;)
        sel_sift(hu, hx, m, a);
    KT top = hu[0];
    /* four vectors a step, folded by min before one test (on PoCL
       faster than a test per vector) */
    for (; i + 4 * SEL_VW <= hi; i += 4 * SEL_VW) {
        __global const KT *at = in + i;
        KTV u = min(min(sel_xfv(sel_vload(0, at), m0, m1),
                        sel_xfv(sel_vload(0, at + SEL_VW), m0, m1)),
                    min(sel_xfv(sel_vload(0, at + 2 * SEL_VW), m0, m1),
                        sel_xfv(sel_vload(0, at + 3 * SEL_VW), m0, m1)));
        if (!any(u < (KTV)top))
            continue;
        for (uint e = 0; e < 4 * SEL_VW; e++) {
            KT w = sort_xf(in[i + e], m0, m1);
            if (w < top) { /* a later index never beats an equal key */
                hu[0] = w;
                hx[0] = i + e;
                sel_sift(hu, hx, m, 0);
                top = hu[0];
            }
        }
    }
    for (; i < hi; i++) {
        KT w = sort_xf(in[i], m0, m1);
        if (w < top) {
            hu[0] = w;
            hx[0] = i;
            sel_sift(hu, hx, m, 0);
            top = hu[0];
        }
    }
    for (uint e = m; e > 1; e--) { /* heap sort: ascending */
        KT u = hu[0];
        ulong x = hx[0];
        hu[0] = hu[e - 1];
        hx[0] = hx[e - 1];
        hu[e - 1] = u;
        hx[e - 1] = x;
        sel_sift(hu, hx, e - 1, 0);
    }
    hn[p] = m;
}

/* One item: the first k of the parts' sorted lists, merged; the keys
   turned back into elements. pos: nparts words of scratch. */
__kernel void select_merge(__global const KT *hu, __global const ulong *hx,
                           __global const uint *hn, __global uint *pos, uint nparts, uint k,
                           KT m0, KT m1, __global KT *values, ulong voff, uint has_v,
                           __global ulong *indices, ulong ioff, uint has_i)
{
    for (uint p = 0; p < nparts; p++)
        pos[p] = 0;
    for (uint r = 0; r < k; r++) {
        uint best = nparts;
        KT bu = 0;
        ulong bx = 0;
        for (uint p = 0; p < nparts; p++) {
            uint at = pos[p];
            if (at >= hn[p])
                continue;
            KT u = hu[(ulong)p * k + at];
            ulong x = hx[(ulong)p * k + at];
            if (best == nparts || sel_after(bu, bx, u, x)) {
                best = p;
                bu = u;
                bx = x;
            }
        }
        pos[best]++;
        KT raw = bu ^ m0; /* the inverse of sort_xf */
        if (raw >> (KEY_BITS - 1))
            raw = bu ^ m1;
        if (has_v)
            values[voff + r] = raw;
        if (has_i)
            indices[ioff + r] = bx;
    }
}

/* quantiles with many ranks: the key of rank ranks[j] of the sorted keys
   (ascending) into the states as the rounds of passes leave it, and the
   NaN flag (a sorted array's NaNs lie at its ends). */
__kernel void select_pick(__global const KT *sorted, ulong n, __global const ulong *ranks,
                          uint nr, KT m0, KT m1, KT nan_lo, KT nan_hi, __global ulong *states)
{
    for (uint j = get_global_id(0); j < nr; j += get_global_size(0))
        states[(j / SEL_SLOTS) * SEL_STATE_WORDS + ST_PRE(j % SEL_SLOTS)] =
            sort_xf(sorted[ranks[j]], m0, m1);
    if (get_global_id(0) == 0) {
        KT a = sort_xf(sorted[0], m0, m1), b = sort_xf(sorted[n - 1], m0, m1);
        states[0] = a < nan_lo || b > nan_hi;
    }
}

/* The large-k route's indices: ci[i] = i. */
__kernel void select_iota(__global ulong *ci, ulong n)
{
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        ci[i] = i;
}

/* ---- GPUs: a sample, then two reads ------------------------------------------ */

#define SEL_SAMPLE 4096 /* keys of the sample */
#define SEL_BINS 4096   /* a window pass's counters, shared by the windows */
#define SEL_PIECE 2048  /* bins select_find holds in __local memory at once */

/* The fast state (ulong words): the gate, the windows (lowest key, span
   and the shift of its bins; four words each), then the candidate ranges
   (lowest key, span, offset and count in the candidates buffer), then per
   slot its window and then its range. */
#define FS_GATE 0
#define FS_NW 1   /* windows */
#define FS_NB 2   /* bins a window */
#define FS_NC 3   /* candidate ranges */
#define FS_WIN(w) (4 + 4 * (w))
#define FS_RANGE(c) (4 + 4 * SEL_SLOTS + 4 * (c))
#define FS_SLOT(j) (4 + 8 * SEL_SLOTS + 2 * (j))
#define FS_WORDS (4 + 10 * SEL_SLOTS)

/* The counters (uint words) the reads add to, in 64 bits as low and high
   words: the bins, the keys below each window, the NaNs; then the fill of
   each candidate range. */
#define AC_BIN(i) (i)
#define AC_BIN_HI(i) (SEL_BINS + (i))
#define AC_BELOW(w) (2 * SEL_BINS + (w))
#define AC_BELOW_HI(w) (2 * SEL_BINS + SEL_SLOTS + (w))
#define AC_NANS (2 * SEL_BINS + 2 * SEL_SLOTS)
#define AC_NANS_HI (AC_NANS + 1)
#define AC_FILL(c) (AC_NANS + 2 + (c))
#define AC_WORDS (AC_FILL(SEL_SLOTS))

#define KT_MAX ((KT)~(KT)0)

/* 64-bit counters from 32-bit atomics: the high word takes the carry.
   Below 2^32 keys none can carry, and an add whose old value is not
   looked at needs no reply (NVIDIA: a reduction, not an atomic). */
inline void sel_add64(__global uint *acc, uint lo, uint hi, uint v, ulong n)
{
    if (v && n <= UINT_MAX)
        atomic_add(&acc[lo], v);
    else if (v && atomic_add(&acc[lo], v) + v < v)
        atomic_inc(&acc[hi]);
}

inline ulong sel_get64(__global const uint *acc, uint lo, uint hi)
{
    return acc[lo] | (ulong)acc[hi] << 32;
}

#define SEL_LOADS 4 /* loads of each item in flight in the two reads */

/* One group: clears the counters, sorts SEL_SAMPLE keys taken evenly
   across the data (bitonic, in __local memory) and places a window around
   each of the nr ranks (ascending): the keys between the sample's ranks a
   few deviations either side of where the rank is expected, reaching
   beyond the sample's ends by twice the window when the rank is near
   them. Windows that overlap are one. */
__kernel void select_sample(__global const KT *in, ulong off, ulong n, KT m0, KT m1,
                            ulong16 ranks, uint nr, __global ulong *fs, __global uint *acc)
{
    __local KT ls[SEL_SAMPLE];
    uint lid = get_local_id(0), lsz = get_local_size(0);
    ulong rk[16] = {ranks.s0, ranks.s1, ranks.s2, ranks.s3, ranks.s4, ranks.s5, ranks.s6,
                    ranks.s7, ranks.s8, ranks.s9, ranks.sa, ranks.sb, ranks.sc, ranks.sd,
                    ranks.se, ranks.sf};
    for (uint i = lid; i < AC_WORDS; i += lsz)
        acc[i] = 0;
    for (uint i = lid; i < FS_WORDS; i += lsz)
        fs[i] = 0;
    for (uint i = lid; i < SEL_SAMPLE; i += lsz)
        ls[i] = sort_xf(in[off + i * n / SEL_SAMPLE], m0, m1);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* item 0 writes fs last */
    for (uint size = 2; size <= SEL_SAMPLE; size <<= 1)
        for (uint stride = size / 2; stride > 0; stride >>= 1) {
            for (uint t = lid; t < SEL_SAMPLE / 2; t += lsz) {
                uint i = 2 * t - (t & (stride - 1)), j = i + stride;
                KT a = ls[i], b = ls[j];
                if ((a > b) == ((i & size) == 0)) {
                    ls[i] = b;
                    ls[j] = a;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    if (lid != 0)
        return;
    uint nw = 0;
    KT whi = 0;
    for (uint j = 0; j < nr; j++) {
        float p = (float)rk[j] * SEL_SAMPLE / (float)n;
        float dev = 3 * sqrt(p * (1 - p / SEL_SAMPLE)) + 2;
        int a = (int)floor(p - dev), b = (int)ceil(p + dev);
        KT lo = ls[clamp(a, 0, SEL_SAMPLE - 1)], hi = ls[clamp(b, 0, SEL_SAMPLE - 1)];
        ulong reach = 2 * (ulong)(hi - lo) + 1;
        if (a < 0)
            lo = lo > reach ? lo - (KT)reach : 0;
        if (b >= SEL_SAMPLE)
            hi = KT_MAX - hi > reach ? hi + (KT)reach : KT_MAX;
        if (nw > 0 && lo <= whi) {
            whi = max(whi, hi);
        } else {
            fs[FS_WIN(nw)] = lo;
            nw++;
            whi = hi;
        }
        fs[FS_WIN(nw - 1) + 1] = whi - (KT)fs[FS_WIN(nw - 1)];
        fs[FS_SLOT(j)] = nw - 1;
    }
    uint nb = SEL_BINS / nw;
    for (uint w = 0; w < nw; w++) {
        uint sh = 0;
        while ((fs[FS_WIN(w) + 1] >> sh) >= nb)
            sh++;
        fs[FS_WIN(w) + 2] = sh;
    }
    fs[FS_GATE] = 0;
    fs[FS_NW] = nw;
    fs[FS_NB] = nb;
}

/* One group (quantiles): the bin of each rank, and the candidate ranges,
   each bin that holds a rank. Opens the gate when a rank lies outside its
   window or the ranges hold more than cap keys. Starts the state as
   select_plan does (the NaNs). */
__kernel void select_find(ulong16 ranks, uint nr, ulong cap, __global ulong *fs,
                          __global const uint *acc, __global ulong *state)
{
    __local ulong lc[SEL_PIECE], ls[WG + 2];
    uint lid = get_local_id(0), nb = (uint)fs[FS_NB], nc = 0, bad = 0, cw = ~0u, cbin = 0;
    ulong rk[16] = {ranks.s0, ranks.s1, ranks.s2, ranks.s3, ranks.s4, ranks.s5, ranks.s6,
                    ranks.s7, ranks.s8, ranks.s9, ranks.sa, ranks.sb, ranks.sc, ranks.sd,
                    ranks.se, ranks.sf};
    ulong total = 0;
    for (uint j = 0; j < nr; j++) {
        uint w = (uint)fs[FS_SLOT(j)];
        ulong before = 0, below = sel_get64(acc, AC_BELOW(w), AC_BELOW_HI(w));
        ulong rem = rk[j] - below, got;
        uint t = nb, piece = SEL_PIECE;
        /* the window's bins SEL_PIECE at a time, each with the bins
           before it added to before */
        for (uint at = 0; at < nb && t == nb; at += piece) {
            piece = min(nb - at, (uint)SEL_PIECE);
            for (uint i = lid; i < piece; i += get_local_size(0))
                lc[i] = sel_get64(acc, AC_BIN(w * nb + at + i), AC_BIN_HI(w * nb + at + i));
            barrier(CLK_LOCAL_MEM_FENCE);
            uint v = sel_find(lc, piece, rem - before, ls, &got);
            before += got;
            t = v < piece ? at + v : nb;
        }
        if (lid == 0 && (rk[j] < below || t >= nb)) {
            bad = 1;
        } else if (lid == 0) {
            KT wlo = (KT)fs[FS_WIN(w)], span = (KT)fs[FS_WIN(w) + 1];
            uint sh = (uint)fs[FS_WIN(w) + 2];
            ulong top = ((ulong)(t + 1) << sh) - 1;
            /* the bin [blo, bhi] holds cnt keys, the rank's at rank in it */
            KT blo = wlo + ((KT)t << sh), bhi = wlo + (top < span ? (KT)top : span);
            ulong cnt = lc[t % SEL_PIECE], rank = rem - before;
            if (nc == 0 || cw != w || cbin != t) {
                fs[FS_RANGE(nc)] = blo;
                fs[FS_RANGE(nc) + 1] = bhi - blo;
                fs[FS_RANGE(nc) + 2] = total;
                fs[FS_RANGE(nc) + 3] = cnt;
                total += cnt;
                nc++;
                cw = w;
                cbin = t;
            }
            fs[FS_SLOT(j) + 1] = nc - 1;
            state[ST_REM(j)] = rank;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        state[0] = sel_get64(acc, AC_NANS, AC_NANS_HI);
        state[1] = 0;
        state[ST_DENSE] = 0;
        for (uint j = nr; j < SEL_SLOTS; j++) /* unused slots: they are copied */
            state[ST_PRE(j)] = state[ST_REM(j)] = state[ST_LESS(j)] = 0;
        fs[FS_NC] = nc;
        fs[FS_GATE] = bad || total > cap;
    }
}

/* The two reads, both a pass over the data with SEL_LOADS loads of each
   item in flight. Read 0 (the windows of select_sample): the keys below
   each window and the NaNs (keys outside [nan_lo, nan_hi]) counted per
   item, the keys inside a window in its bins in __local memory, then all
   of them added to acc. Read 1 (the ranges of select_find, unless the gate
   is open): the keys of each range (raw bits) to the range's place in
   ck. The windows' and ranges' words stay in __local memory (every item
   reads the same word: a broadcast), so that the registers hold only the
   counts below and the loads in flight: with the bounds in registers
   too, an H200 took 1.645 and 1.082 ms for the reads of 5 quantiles of
   2^28 f32 (1.306 and 0.944 from __local memory) and 1.665 ms for the
   median (1.363), fewer groups fitting a multiprocessor; with the loops
   turned (each window's bounds loaded once for the SEL_LOADS keys) 1.700
   and 1.420 (median 1.560).
   Two forms. select_read tests each key against every window (for one
   window, the median's, the cheapest). select_read_cols (cols: several
   quantiles) uses that the windows, and the ranges, ascend and do not
   overlap: g, the number of lower bounds at or below the key, says which
   windows it is below and the only one that can hold it; each item counts
   its keys by g in its own column of __local memory (lgap), summed at the
   end. On an H200, 2^28 f32: 5 quantiles' reads 1.304 and 0.941 ms by
   select_read, 1.045 and 0.837 by select_read_cols; the median's 0.605
   and 0.555 against 0.834 and 0.654 (the column costs groups a
   multiprocessor); with the counts by g in registers instead of the
   column, 1.145 and 1.018, and 0.808 and 0.708. */
inline void sel_read(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0, KT m1,
                     KT nan_lo, KT nan_hi, uint read, __global const ulong *fs,
                     __global uint *acc, __global KT *ck, __local uint *lh, __local uint *lb,
                     __local KT *rlo, __local KT *rspan, __local ulong *rarg,
                     __local ulong *rcnt, __local uint *lgap, const int cols)
{
    uint below[SEL_SLOTS], nans = 0;
    uint lid = get_local_id(0), lsz = get_local_size(0);
    uint nr = (uint)fs[read ? FS_NC : FS_NW], nb = (uint)fs[FS_NB];
    __global const ulong *par = fs + (read ? FS_RANGE(0) : FS_WIN(0));
    ulong lo, hi, step;
    if (read && fs[FS_GATE])
        return;
    for (uint i = lid; i < SEL_BINS; i += lsz)
        lh[i] = 0;
    for (uint i = lid; i <= SEL_SLOTS; i += lsz)
        lb[i] = 0;
    for (uint g = 0; cols && g <= SEL_SLOTS; g++)
        lgap[g * WG + lid] = 0;
    for (uint w = lid; w < SEL_SLOTS; w += lsz) {
        rlo[w] = (KT)par[4 * w];
        rspan[w] = (KT)par[4 * w + 1];
        rarg[w] = par[4 * w + 2];
        rcnt[w] = par[4 * w + 3];
    }
#pragma unroll
    for (uint w = 0; w < SEL_SLOTS; w++)
        below[w] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    sel_part(n, chunk, &lo, &hi, &step);
    in += off;
    for (ulong i = lo; i < hi; i += SEL_LOADS * step) {
        KT x[SEL_LOADS];
#pragma unroll
        for (uint e = 0; e < SEL_LOADS; e++)
            x[e] = i + e * step < hi ? in[i + e * step] : 0;
#pragma unroll
        for (uint e = 0; e < SEL_LOADS; e++) {
            KT u = sort_xf(x[e], m0, m1);
            if (i + e * step >= hi)
                break;
            nans += !read && (u < nan_lo || u > nan_hi);
            if (cols) {
                uint g = 0;
#pragma unroll
                for (uint w = 0; w < SEL_SLOTS; w++) {
                    if (w >= nr)
                        break;
                    g += u >= rlo[w];
                }
                if (!read)
                    lgap[g * WG + lid]++;
                if (g == 0)
                    continue;
                KT d = u - rlo[g - 1];
                if (d > rspan[g - 1])
                    continue;
                if (!read) {
                    atomic_inc(&lh[(g - 1) * nb + (uint)(d >> rarg[g - 1])]);
                    continue;
                }
                uint s = atomic_inc(&acc[AC_FILL(g - 1)]);
                if (s < rcnt[g - 1]) /* always, unless the data changed */
                    ck[rarg[g - 1] + s] = x[e];
                continue;
            }
#pragma unroll
            for (uint w = 0; w < SEL_SLOTS; w++) {
                KT d = u - rlo[w];
                if (w >= nr)
                    break;
                below[w] += u < rlo[w];
                if (d > rspan[w])
                    continue;
                if (!read) {
                    atomic_inc(&lh[w * nb + (uint)(d >> rarg[w])]);
                    continue;
                }
                uint s = atomic_inc(&acc[AC_FILL(w)]);
                if (s < rcnt[w]) /* always, unless the data changed */
                    ck[rarg[w] + s] = x[e];
                break;
            }
        }
    }
    if (read)
        return;
    /* with cols: the keys below window w are those whose g was at most w */
    uint sum = 0;
#pragma unroll
    for (uint w = 0; w < SEL_SLOTS; w++) {
        if (w >= nr)
            break;
        sum += cols ? lgap[w * WG + lid] : below[w];
        if (cols ? sum : below[w])
            atomic_add(&lb[w], cols ? sum : below[w]);
    }
    if (nans)
        atomic_add(&lb[SEL_SLOTS], nans);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < nr * nb; i += lsz)
        sel_add64(acc, AC_BIN(i), AC_BIN_HI(i), lh[i], n);
    for (uint w = lid; w < nr; w += lsz)
        sel_add64(acc, AC_BELOW(w), AC_BELOW_HI(w), lb[w], n);
    if (lid == 0)
        sel_add64(acc, AC_NANS, AC_NANS_HI, lb[SEL_SLOTS], n);
}

#define SEL_READ_LOCALS                                                            \
    __local uint lh[SEL_BINS], lb[SEL_SLOTS + 1];                                  \
    __local KT rlo[SEL_SLOTS], rspan[SEL_SLOTS];                                   \
    __local ulong rarg[SEL_SLOTS], rcnt[SEL_SLOTS]
#define SEL_READ_ARGS                                                              \
    __global const KT *in, ulong off, ulong n, ulong chunk, KT m0, KT m1, KT nan_lo, \
        KT nan_hi, uint read, __global const ulong *fs, __global uint *acc,       \
        __global KT *ck
#define SEL_READ_PASS in, off, n, chunk, m0, m1, nan_lo, nan_hi, read, fs, acc, ck, lh, lb, \
                      rlo, rspan, rarg, rcnt

__kernel void select_read(SEL_READ_ARGS)
{
    SEL_READ_LOCALS;
    sel_read(SEL_READ_PASS, lh, 0);
}

__kernel void select_read_cols(SEL_READ_ARGS)
{
    SEL_READ_LOCALS;
    __local uint lgap[(SEL_SLOTS + 1) * WG];
    sel_read(SEL_READ_PASS, lgap, 1);
}

#define SEL_DL 4 /* loads of each item in flight in sel_digits and select_take */
#define SEL_TIES 512 /* ties of the k-th key that select_finish ranks in __local memory */

/* Among the cnt candidates at ck + at, the value of rank *rem by digits
   of RADIX_BITS: of the keys (key) or, among the keys equal to kth, of
   their indices (index bits: nbits); *rem becomes the rank within the
   ties of the value found, *ties their number. */
inline ulong sel_digits(__global const KT *ck, __global const ulong *ci, ulong at, ulong cnt,
                        KT m0, KT m1, int key, KT kth, uint nbits, ulong *rem, ulong *ties,
                        __local uint *lh, __local ulong *lc, __local ulong *ls)
{
    uint lid = get_local_id(0), lsz = get_local_size(0);
    uint digits = (nbits + RADIX_BITS - 1) / RADIX_BITS;
    ulong pre = 0;
    for (uint pass = 0; pass < digits; pass++) {
        uint shift = RADIX_BITS * (digits - 1 - pass);
        ulong before;
        for (uint v = lid; v < RADIX; v += lsz)
            lh[v] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* SEL_DL loads of each item in flight; equal digits in a row are
           one atomic (the candidates of a top_k share their high digits) */
        uint run_d = 0, run_n = 0;
        for (ulong e0 = lid; e0 < cnt; e0 += SEL_DL * lsz) {
            KT x[SEL_DL];
            ulong y[SEL_DL];
#pragma unroll
            for (uint j = 0; j < SEL_DL; j++) {
                ulong e = e0 + j * lsz;
                x[j] = e < cnt ? ck[at + e] : 0;
                y[j] = !key && e < cnt ? ci[at + e] : 0;
            }
#pragma unroll
            for (uint j = 0; j < SEL_DL; j++) {
                KT u = sort_xf(x[j], m0, m1);
                ulong w = key ? u : y[j];
                if (e0 + j * lsz < cnt && (key || u == kth) &&
                    (pass == 0 || ((w ^ pre) >> (shift + RADIX_BITS)) == 0)) {
                    uint d = (uint)(w >> shift) & (RADIX - 1);
                    if (run_n && d != run_d) {
                        atomic_add(&lh[run_d], run_n);
                        run_n = 0;
                    }
                    run_d = d;
                    run_n++;
                }
            }
        }
        if (run_n)
            atomic_add(&lh[run_d], run_n);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint v = lid; v < RADIX; v += lsz)
            lc[v] = lh[v];
        barrier(CLK_LOCAL_MEM_FENCE);
        uint d = sel_find(lc, RADIX, *rem, ls, &before);
        d = min(d, (uint)RADIX - 1); /* the rank lies in the candidates */
        pre |= (ulong)d << shift;
        *rem -= before;
        *ties = lc[d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return pre;
}

/* The index of rank rem among the same (at most SEL_TIES) candidates equal
   to kth: their indices gathered in lt, then each ranked by the count of
   smaller ones (indices are distinct). Every item returns it. */
inline ulong sel_tie_index(__global const KT *ck, __global const ulong *ci, ulong at, ulong cnt,
                           KT m0, KT m1, KT kth, uint same, ulong rem, __local ulong *lt,
                           __local uint *ltn)
{
    uint lid = get_local_id(0), lsz = get_local_size(0);
    if (lid == 0)
        *ltn = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong e0 = lid; e0 < cnt; e0 += SEL_DL * lsz) {
        KT x[SEL_DL];
#pragma unroll
        for (uint j = 0; j < SEL_DL; j++)
            x[j] = e0 + j * lsz < cnt ? ck[at + e0 + j * lsz] : 0;
#pragma unroll
        for (uint j = 0; j < SEL_DL; j++)
            if (e0 + j * lsz < cnt && sort_xf(x[j], m0, m1) == kth) {
                uint p = atomic_inc(ltn);
                if (p < same)
                    lt[p] = ci[at + e0 + j * lsz];
            }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local ulong *found = lt + SEL_TIES - 1; /* read before anyone writes it */
    ulong mine = ~0ul;
    for (uint p = lid; p < same; p += lsz) {
        ulong v = lt[p], r = 0;
        for (uint q = 0; q < same; q++)
            r += lt[q] < v;
        if (r == rem)
            mine = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (mine != ~0ul)
        *found = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong v = *found;
    barrier(CLK_LOCAL_MEM_FENCE);
    return v;
}

/* One group per slot: the key of the slot's rank within its candidate
   range into the state (ST_PRE). top_k (ties): also the last index to
   take among the ties of that key (ST_LESS; all of them: ~0), so that the
   keys to take are those of (key, index) up to (ST_PRE, ST_LESS). */
__kernel void select_finish(__global const ulong *fs, __global const KT *ck,
                            __global const ulong *ci, KT m0, KT m1, uint ties, ulong n,
                            __global ulong *state)
{
    __local uint lh[RADIX], ltn;
    __local ulong lc[RADIX], ls[WG + 2], lt[SEL_TIES];
    if (fs[FS_GATE])
        return;
    uint j = get_group_id(0), c = (uint)fs[FS_SLOT(j) + 1];
    ulong at = fs[FS_RANGE(c) + 2], cnt = fs[FS_RANGE(c) + 3], rem = state[ST_REM(j)], same;
    KT kth = (KT)sel_digits(ck, ci, at, cnt, m0, m1, 1, 0, KEY_BITS, &rem, &same, lh, lc, ls);
    ulong last = ~0ul;
    if (ties && rem + 1 < same && same <= SEL_TIES)
        last = sel_tie_index(ck, ci, at, cnt, m0, m1, kth, (uint)same, rem, lt, &ltn);
    else if (ties && rem + 1 < same)
        last = sel_digits(ck, ci, at, cnt, m0, m1, 0, kth, 64 - (uint)clz(n - 1), &rem, &same,
                          lh, lc, ls);
    if (get_local_id(0) == 0) {
        state[ST_PRE(j)] = kth;
        state[ST_LESS(j)] = last;
    }
}

/* top_k: the k candidates of (key, index) up to (ST_PRE, ST_LESS) of slot
   0 into tk / ti, for select_rank. */
__kernel void select_take(__global const ulong *fs, __global const KT *ck,
                          __global const ulong *ci, KT m0, KT m1, __global const ulong *state,
                          __global KT *tk, __global ulong *ti)
{
    __local uint lt;
    if (fs[FS_GATE])
        return;
    uint lid = get_local_id(0);
    ulong cnt = fs[FS_RANGE(0) + 3], last = state[ST_LESS(0)];
    KT kth = (KT)state[ST_PRE(0)];
    if (lid == 0)
        lt = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong e0 = lid; e0 < cnt; e0 += SEL_DL * get_local_size(0)) {
        KT x[SEL_DL];
        ulong i[SEL_DL];
#pragma unroll
        for (uint j = 0; j < SEL_DL; j++) {
            ulong e = e0 + j * get_local_size(0);
            x[j] = e < cnt ? ck[e] : 0;
            i[j] = e < cnt ? ci[e] : 0;
        }
#pragma unroll
        for (uint j = 0; j < SEL_DL; j++) {
            KT u = sort_xf(x[j], m0, m1);
            if (e0 + j * get_local_size(0) < cnt && (u < kth || (u == kth && i[j] <= last))) {
                uint s = atomic_inc(&lt);
                tk[s] = x[j];
                ti[s] = i[j];
            }
        }
    }
}

/* ---- top_k in one read ----------------------------------------------------
   The k smallest keys lie at or below a threshold T that a sample places:
   T is the sample's key of rank jr, which the host picks so that about
   jr * n / s keys (a few thousand or tens of thousands, far above k and
   far below the candidates buffer) lie at or below it. One read then
   copies every key u <= T with its index into the candidates (select_grab),
   and select_finish and select_take finish on them as after the two reads.
   When fewer than k keys or more than the buffer holds came out (a sample
   that misled, many equal keys) the gate opens and the passes take the
   call. acc's words: AC_FILL(0) and AC_FILL(1) the fill (low and high 32
   bits), AC_FILL(2) set once the buffer overflowed, which stops the read. */

/* The sample: s keys taken evenly across the data into ck (raw bits). */
__kernel void select_tsample(__global const KT *in, ulong off, ulong n, uint s,
                             __global KT *ck)
{
    for (uint i = get_global_id(0); i < s; i += get_global_size(0))
        ck[i] = in[off + (ulong)i * n / s];
}

/* One group: clears the counters and the fast state, finds T and starts
   the state as select_find does for top_k: one range from key 0 to T,
   rank k - 1. Each item keeps the SEL_TM smallest of its sample keys; T is
   the key of rank jr among those (ranked by key, then place), at or above
   the sample's own key of rank jr: a T a little high costs candidates,
   never a wrong answer. */
#define SEL_TM 4
__kernel void select_thresh(__global const KT *ck, uint s, ulong jr, ulong k, KT m0, KT m1,
                            __global ulong *fs, __global uint *acc, __global ulong *state)
{
    __local KT lu[SEL_TM * WG];
    uint lid = get_local_id(0), lsz = get_local_size(0), nu = SEL_TM * lsz;
    KT best[SEL_TM];
    for (uint i = lid; i < AC_WORDS; i += lsz)
        acc[i] = 0;
    for (uint i = lid; i < FS_WORDS; i += lsz)
        fs[i] = 0;
#pragma unroll
    for (uint j = 0; j < SEL_TM; j++)
        best[j] = KT_MAX;
    for (uint e0 = lid; e0 < s; e0 += 2 * SEL_DL * lsz) {
        KT x[2 * SEL_DL];
#pragma unroll
        for (uint j = 0; j < 2 * SEL_DL; j++)
            x[j] = e0 + j * lsz < s ? sort_xf(ck[e0 + j * lsz], m0, m1) : KT_MAX;
#pragma unroll
        for (uint j = 0; j < 2 * SEL_DL; j++) {
            KT u = x[j];
#pragma unroll
            for (uint t = 0; t < SEL_TM; t++) { /* insert u: the larger moves on */
                KT b = best[t];
                best[t] = min(b, u);
                u = max(b, u);
            }
        }
    }
#pragma unroll
    for (uint j = 0; j < SEL_TM; j++)
        lu[lid * SEL_TM + j] = best[j];
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); /* the clears come first */
    ulong want = min(jr, (ulong)nu - 1);
    for (uint p = lid; p < nu; p += lsz) {
        KT x = lu[p];
        uint r = 0;
        for (uint q = 0; q < nu; q++) {
            KT y = lu[q];
            r += y < x || (y == x && q < p);
        }
        if (r == want)
            fs[FS_RANGE(0) + 1] = x;
    }
    if (lid == 0) {
        fs[FS_NC] = 1;
        state[0] = state[1] = state[ST_DENSE] = 0;
        for (uint j = 0; j < SEL_SLOTS; j++)
            state[ST_PRE(j)] = state[ST_REM(j)] = state[ST_LESS(j)] = 0;
        state[ST_REM(0)] = k - 1;
    }
}

#define SEL_GRAB 16 /* loads of each item in flight in select_grab */

inline int sel_grab1(KT x, ulong i, KT t, KT m0, KT m1, ulong cap, __global uint *acc,
                     __global KT *ck, __global ulong *ci)
{
    if (sort_xf(x, m0, m1) > t)
        return 0;
    uint s = atomic_inc(&acc[AC_FILL(0)]);
    if (s == UINT_MAX)
        atomic_inc(&acc[AC_FILL(1)]);
    if (s < cap && !acc[AC_FILL(1)]) {
        ck[s] = x;
        ci[s] = i;
    } else {
        acc[AC_FILL(2)] = 1;
    }
    return 1;
}

/* The read: every key at or below T, with its index, into ck / ci. */
__kernel void select_grab(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0, KT m1,
                          __global const ulong *fs, __global uint *acc, __global KT *ck,
                          __global ulong *ci, ulong cap)
{
    __global volatile uint *stop = acc + AC_FILL(2);
    KT t = (KT)fs[FS_RANGE(0) + 1];
    ulong lo, hi, step, i;
    sel_part(n, chunk, &lo, &hi, &step);
    in += off;
    for (i = lo; i + (SEL_GRAB - 1) * step < hi; i += SEL_GRAB * step) {
        KT x[SEL_GRAB];
        int hits = 0;
#pragma unroll
        for (uint e = 0; e < SEL_GRAB; e++)
            x[e] = in[i + e * step];
#pragma unroll
        for (uint e = 0; e < SEL_GRAB; e++)
            hits |= sel_grab1(x[e], i + e * step, t, m0, m1, cap, acc, ck, ci);
        if (hits && *stop) /* only items that took keys look: the rest never wait */
            return;
    }
    for (; i < hi; i += step)
        sel_grab1(in[i], i, t, m0, m1, cap, acc, ck, ci);
}

/* One item: the candidates' count into the range, and the gate open when
   they cannot hold the k-th key or overflowed the buffer. */
__kernel void select_tcheck(__global ulong *fs, __global const uint *acc, ulong k)
{
    ulong fill = acc[AC_FILL(0)] | (ulong)acc[AC_FILL(1)] << 32;
    fs[FS_RANGE(0) + 3] = fill;
    fs[FS_GATE] = acc[AC_FILL(2)] || fill < k;
}

#if SELECT_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

/* The key in state word w as a double: the raw bits of type tid
   (gpgpu_type) from the ascending key. */
inline double sel_value(__global const ulong *state, ulong w, KT m0, KT m1, uint tid)
{
    KT u = (KT)state[w], x = u ^ m0;
    if (x >> (KEY_BITS - 1))
        x = u ^ m1;
#if KEY_BITS == 64
    if (tid == 3)
        return (double)as_long(x);
    if (tid == 4)
        return (double)x;
    return as_double(x);
#else
    if (tid == 0)
        return (double)as_int(x);
    if (tid == 1)
        return (double)x;
    return (double)as_float(x);
#endif
}

/* gpgpu_quantiles_buffer: out[j] from the state words of x[i] and
   x[i + 1] and the bits of g (tab[3j .. 3j + 2]), as NumPy's linear
   method; all NaN when the data has a NaN. */
__kernel void select_quantiles(__global const ulong *state, __global const ulong *tab, uint nq,
                               KT m0, KT m1, uint tid, __global double *out, ulong ooff)
{
    for (uint j = get_global_id(0); j < nq; j += get_global_size(0)) {
        double r, g = as_double(tab[3 * j + 2]);
        if (state[0]) {
            r = NAN;
        } else {
            double a = sel_value(state, tab[3 * j], m0, m1, tid);
            if (g == 0) {
                r = a;
            } else {
                double b = sel_value(state, tab[3 * j + 1], m0, m1, tid);
                double d = b - a;
                double e = g * d;
                r = a + e;
            }
        }
        out[ooff + j] = r;
    }
}
#endif
