/*
 * select_k.cl - radix select for gpgpu_top_k and gpgpu_quantiles
 * (lib/primitives/select_k.c). radix.cl comes first: the keys are the
 * sort's transformed bits (sort_xf), so every type and both orders select
 * by unsigned comparison, floats by totalOrder.
 *
 * The data is read in parts: one contiguous chunk per work item (CHUNKED,
 * groups of one item) or one contiguous tile per group whose items read
 * adjacent words (GPUs). For each rank wanted (up to SEL_SLOTS at once) a
 * pass over the data counts, per part, the digits of the keys that share
 * the rank's prefix found so far (select_count); one group adds the parts
 * up and picks the digit the rank falls in (select_plan). After the last
 * digit the prefix is the key of that rank, and the state also holds how
 * many keys are below it. top_k then takes the keys below the k-th key and
 * the first ties in index order (select_collect) and orders those k
 * candidates by (key, index) (select_rank).
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

/* The first pass: counts, for part p into hist[p * SEL_HIST ..], the
   top digit (at shift) of every key, and the NaNs (keys outside [nan_lo,
   nan_hi]). */
__kernel void select_count0(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0,
                            KT m1, uint shift, KT nan_lo, KT nan_hi, __global uint *hist)
{
    __local uint lh[RADIX + 1];
    ulong lo, hi, step;
    uint lid = get_local_id(0), lsz = get_local_size(0), nans = 0;
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
                           __global uint *hist)
{
    __local uint lh[SEL_HIST];
    KT pre[SEL_SLOTS];
    ulong lo, hi, step;
    uint lid = get_local_id(0), lsz = get_local_size(0);
    uint above = shift + RADIX_BITS, lead = 0;
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
                          __global ulong *tieb)
{
    __local ulong ls[RADIX];
    uint v = get_local_id(0);
    ulong rk[16] = {ranks.s0, ranks.s1, ranks.s2, ranks.s3, ranks.s4, ranks.s5, ranks.s6,
                    ranks.s7, ranks.s8, ranks.s9, ranks.sa, ranks.sb, ranks.sc, ranks.sd,
                    ranks.se, ranks.sf};
    if (first && v == 0) {
        ulong nans = 0;
        for (uint p = 0; p < nparts; p++)
            nans += hist[p * SEL_HIST + SEL_NANS];
        state[0] = nans;
        state[1] = 0;
        state[ST_DENSE] = 0;
        for (uint j = 0; j < nr; j++) {
            state[ST_PRE(j)] = 0;
            state[ST_REM(j)] = rk[j];
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
        ulong c = 0;
        for (uint p = 0; p < nparts; p++)
            c += hist[p * SEL_HIST + h * RADIX + v];
        ls[v] = c;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint o = 1; o < RADIX; o <<= 1) {
            ulong y = v >= o ? ls[v - o] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            ls[v] += y;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        ulong before = ls[v] - c, rem = state[ST_REM(j)];
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (c > 0 && before <= rem && rem < before + c) {
            state[ST_PRE(j)] |= (ulong)v << shift;
            state[ST_REM(j)] = rem - before;
            state[ST_LESS(j)] += before;
            ls[0] = c > n / 16 && c < n - n / 16;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        dense |= (uint)ls[0];
        barrier(CLK_LOCAL_MEM_FENCE);
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
                             __global KT *ck, __global ulong *ci)
{
    KT kth = (KT)state[ST_PRE(0)];
    ulong less = state[ST_LESS(0)], need = state[ST_REM(0)] + 1;
    ulong lo, hi, step, p = get_group_id(0);
    ulong tb = tieb[p], te = tieb[p + 1];
    __global uint *counter = (__global uint *)(state + 1);
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
    __local uint lt[WG];
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
            lt[lid] = tie;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint w = 1; w < WG; w <<= 1) {
                uint y = lid >= w ? lt[lid - w] : 0;
                barrier(CLK_LOCAL_MEM_FENCE);
                lt[lid] += y;
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            ulong o = base + lt[lid] - tie;
            if (tie && o < need) {
                ck[less + o] = x;
                ci[less + o] = i;
            }
            base += lt[WG - 1];
            barrier(CLK_LOCAL_MEM_FENCE);
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
