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
 * The state (ulong words): [0] NaNs seen, [1] the collect counter, then
 * per slot: the prefix, the rank left within the prefix, the keys below.
 */

#ifndef SEL_SLOTS
#define SEL_SLOTS 8
#endif
#ifndef SELECT_FP64
#define SELECT_FP64 0
#endif

#define SEL_HIST (SEL_SLOTS * RADIX + 1)   /* counters per part, NaNs last */
#define ST_PRE(j) (2 + 3 * (j))
#define ST_REM(j) (3 + 3 * (j))
#define ST_LESS(j) (4 + 3 * (j))

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

/* Counts, for part p into hist[p * SEL_HIST ..], the digit at shift of
   every key (first pass: one histogram; NaNs counted when nan_hi >
   nan_lo) or, for each of the nr slots, of the keys sharing its prefix
   above the digit. */
__kernel void select_count(__global const KT *in, ulong off, ulong n, ulong chunk, KT m0,
                           KT m1, uint shift, uint nr, KT nan_lo, KT nan_hi,
                           __global const ulong *state, __global uint *hist)
{
    __local uint lh[SEL_HIST];
    KT pre[SEL_SLOTS];
    ulong lo, hi, step;
    uint lid = get_local_id(0), lsz = get_local_size(0);
    uint width = nr ? nr * RADIX : RADIX;
    for (uint i = lid; i < SEL_HIST; i += lsz)
        lh[i] = 0;
    for (uint j = 0; j < SEL_SLOTS; j++)
        pre[j] = j < nr ? (KT)state[ST_PRE(j)] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    sel_part(n, chunk, &lo, &hi, &step);
    in += off;
    if (nr == 0) {
        uint nans = 0;
        for (ulong i = lo; i < hi; i += step) {
            KT u = sort_xf(in[i], m0, m1);
            SEL_INC(lh[(uint)(u >> shift) & (RADIX - 1)]);
            nans += u < nan_lo || u > nan_hi;
        }
        if (nans)
            atomic_add(&lh[SEL_HIST - 1], nans);
    } else {
        uint above = shift + RADIX_BITS;
        for (ulong i = lo; i < hi; i += step) {
            KT u = sort_xf(in[i], m0, m1);
            uint d = (uint)(u >> shift) & (RADIX - 1);
            for (uint j = 0; j < nr; j++)
                if (((u ^ pre[j]) >> above) == 0)
                    SEL_INC(lh[j * RADIX + d]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint *mine = hist + get_group_id(0) * SEL_HIST;
    for (uint i = lid; i < width; i += lsz)
        mine[i] = lh[i];
    if (lid == 0)
        mine[SEL_HIST - 1] = lh[SEL_HIST - 1];
}

/* One group of RADIX items after each select_count: adds the parts'
   counts and moves each slot's prefix, rank and count below to the digit
   its rank falls in. first: the counts are one histogram for every slot,
   and the state starts from ranks (and the NaNs are added up). ties
   (after the last pass, top_k): tieb[p] = the ties of slot 0's key in
   parts before p (nparts + 1 entries). */
__kernel void select_plan(__global const uint *hist, uint nparts, uint nr, uint shift,
                          uint first, ulong8 ranks, uint ties, __global ulong *state,
                          __global ulong *tieb)
{
    __local ulong ls[RADIX];
    uint v = get_local_id(0);
    ulong rk[8] = {ranks.s0, ranks.s1, ranks.s2, ranks.s3,
                   ranks.s4, ranks.s5, ranks.s6, ranks.s7};
    if (first && v == 0) {
        ulong nans = 0;
        for (uint p = 0; p < nparts; p++)
            nans += hist[p * SEL_HIST + SEL_HIST - 1];
        state[0] = nans;
        state[1] = 0;
        for (uint j = 0; j < nr; j++) {
            state[ST_PRE(j)] = 0;
            state[ST_REM(j)] = rk[j];
            state[ST_LESS(j)] = 0;
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < nr; j++) {
        uint h = first ? 0 : j;
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
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
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
