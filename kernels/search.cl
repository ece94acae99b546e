/*
 * search.cl - binary search of sorted keys (gpgpu_search_sorted), gather by
 * 64-bit indices (gpgpu_gather) and the index arrays of gpgpu_argsort.
 *
 *   KEY_BITS  32 or 64: the width of a key (search) or of a value (gather,
 *             iota); one program per width serves every type, since keys
 *             are compared as unsigned integers after the XOR masks of the
 *             radix sort (m1 when the top bit is set, else m0), which give
 *             gpgpu_sort's order: totalOrder for floats.
 *
 * Element-to-item mapping (CHUNKED, from the plan): on CPUs each work item
 * owns one contiguous chunk of `chunk` needles or outputs (groups of one
 * item); on GPUs adjacent items take adjacent needles, indices and outputs
 * (a grid-stride loop), so that those reads and writes coalesce.
 */
#ifndef KEY_BITS
#define KEY_BITS 32
#endif

#if KEY_BITS == 64
typedef ulong K;
#else
typedef uint K;
#endif
#define K_TOP ((K)1 << (KEY_BITS - 1))

#ifndef SEARCH_TREE
#define SEARCH_TREE 0 /* GPUs: levels of search_sorted's tree in __local memory */
#endif

#if CHUNKED
#define FOR_MINE(j, count, chunk)                                                 \
    for (ulong j = get_global_id(0) * (chunk), j##_end = min(j + (chunk), (count)); \
         j < j##_end; j++)
#else
#define FOR_MINE(j, count, chunk) \
    for (ulong j = get_global_id(0); j < (count); j += get_global_size(0))
#endif

inline K order_key(K x, K m0, K m1)
{
    return x ^ ((x & K_TOP) ? m1 : m0);
}

/* Whether sorted element v (through order_key) comes before needle x. */
#define BEFORE(v, x, right) ((right) ? (v) <= (x) : (v) < (x))

#if KEY_BITS == 64
typedef ulong8 K8;
typedef long8 M8;
#define AS_M8(c) (c)
#else
typedef uint8 K8;
typedef int8 M8;
#define AS_M8(c) convert_long8(c)
#endif

/* CPUs: needles searched side by side by one work item, eight to a vector
   register, so that the cache misses of many independent searches overlap
   (one search is a chain of dependent loads; a serial loop gets some
   overlap from branch prediction, which a select gives up). GPUs get that
   overlap from their other work items. */
inline K8 order_key8(K8 x, K m0, K m1)
{
    return x ^ select((K8)m0, (K8)m1, (M8)((x & (K8)K_TOP) != (K8)0));
}

/* Sets of eight needles in flight per work item. PoCL, 2 cores, 10^6 u32
   needles in 10^6 sorted, the kernel against a serial C loop of binary
   searches in the same run (2026-11-25, this kernel on a999fd6, `gpgpu-bench
   --op search_sorted --type u32 --n 1000003 --api buffer --repeat 3` with
   -D SEARCH_SETS=s): one set 1.4-1.6x, two 2.7-3.7x, four 5.9-7.1x, eight
   6.5-6.8x. */
#ifndef SEARCH_SETS
#define SEARCH_SETS 4
#endif

inline K8 load8(__global const K *s, ulong8 i)
{
    return (K8)(s[i.s0], s[i.s1], s[i.s2], s[i.s3], s[i.s4], s[i.s5], s[i.s6], s[i.s7]);
}

/* pos[j] = how many of sorted[0 .. n) (n >= 1) come before needles[j]:
   those < x, or <= x when right. The halving keeps base + len <= n with
   len's sequence independent of the needle, so that every search of a
   work item's sets (and every work item of a GPU group) takes the same steps, the
   compare is a select, and no probe leaves [0, n) whatever sorted holds. */
__kernel void search_sorted(__global const K *sorted, ulong sorted_off, ulong n,
                            __global const K *needles, ulong needles_off, ulong m, uint right,
                            K m0, K m1, __global ulong *pos, ulong pos_off, ulong chunk)
{
    sorted += sorted_off;
    needles += needles_off;
    pos += pos_off;
#if CHUNKED
    const ulong first = get_global_id(0) * chunk, end = min(first + chunk, m);
    const ulong8 lane = (ulong8)(0, 1, 2, 3, 4, 5, 6, 7), last = (ulong8)(end - 1);
    for (ulong j = first; j < end; j += 8 * SEARCH_SETS) {
        K8 x[SEARCH_SETS];
        ulong8 b[SEARCH_SETS];
#pragma unroll
        for (uint q = 0; q < SEARCH_SETS; q++) {
            x[q] = order_key8(load8(needles, min((ulong8)(j + 8 * q) + lane, last)), m0, m1);
            b[q] = 0;
        }
        for (ulong len = n; len > 1;) {
            const ulong step = len >> 1;
#pragma unroll
            for (uint q = 0; q < SEARCH_SETS; q++) {
                const K8 v = order_key8(load8(sorted, b[q] + step), m0, m1);
                b[q] = select(b[q], b[q] + step, AS_M8(right ? v <= x[q] : v < x[q]));
            }
            len -= step;
        }
        ulong r[8 * SEARCH_SETS];
#pragma unroll
        for (uint q = 0; q < SEARCH_SETS; q++) {
            const K8 v = order_key8(load8(sorted, b[q]), m0, m1);
            vstore8(b[q] - as_ulong8(AS_M8(right ? v <= x[q] : v < x[q])), q, r); /* true: -1 */
        }
        for (uint q = 0; q < 8 * SEARCH_SETS && j + q < end; q++)
            pos[j + q] = r[q];
    }
#else
    /* The first levels of every search probe the same few elements: the
       group keeps them in __local memory as a tree (node t's children 2t
       and 2t + 1), built once for its needles. A warp's probes of a level
       then cost a few bank cycles where 32 scattered global loads cost an
       L1 transaction each, the bound of a search on a GPU. */
    __local K tree[1 << SEARCH_TREE];
    uint levels = 0;
    ulong rest = n; /* len after the tree's levels */
    while (levels < SEARCH_TREE && rest > 1) {
        rest -= rest >> 1;
        levels++;
    }
    for (uint t = get_local_id(0) + 1; t < (1u << levels); t += get_local_size(0)) {
        const uint d = 31 - clz(t), path = t - (1u << d);
        ulong base = 0, len = n;
        for (uint i = 0; i < d; i++) {
            const ulong step = len >> 1;
            base += ((path >> (d - 1 - i)) & 1) ? step : 0;
            len -= step;
        }
        tree[t] = order_key(sorted[base + (len >> 1)], m0, m1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong j = get_global_id(0); j < m; j += get_global_size(0)) {
        const K x = order_key(needles[j], m0, m1);
        ulong base = 0, len = n;
        for (uint d = 0, t = 1; d < levels; d++) {
            const ulong step = len >> 1;
            const uint c = BEFORE(tree[t], x, right);
            base += c ? step : 0;
            t = 2 * t + c;
            len -= step;
        }
        for (; len > 1;) {
            const ulong step = len >> 1;
            K v = order_key(sorted[base + step], m0, m1);
            base = BEFORE(v, x, right) ? base + step : base;
            len -= step;
        }
        pos[j] = base + BEFORE(order_key(sorted[base], m0, m1), x, right);
    }
#endif
}

/* out[j] = in[idx[j]]; an index past n_in leaves out[j] as it was (the
   host and array calls check the indices first: gather_check). On an
   H200 four reads in flight per item instead of one changed nothing (2^28
   u32, 7.74 ms either way, as torch.index_select): scattered 32-byte
   sectors from the device's memory bound it. Nor did cache hints (the
   indices and out streamed with ld/st.global.cs, in read without L1
   allocation): 7.736-7.757 ms against 7.742-7.752
   (bench/results/2026-11-26-h200-gather-stream). */
__kernel void gather(__global const K *in, ulong in_off, ulong n_in, __global const ulong *idx,
                     ulong idx_off, ulong n, __global K *out, ulong out_off, ulong chunk)
{
    in += in_off;
    idx += idx_off;
    out += out_off;
    FOR_MINE(j, n, chunk) {
        ulong i = idx[j];
        if (i < n_in)
            out[j] = in[i];
    }
}

/* bad[group] = the first j of the group's with idx[j] >= n_in, or
   ULONG_MAX: the host takes the smallest. */
__kernel void gather_check(__global const ulong *idx, ulong idx_off, ulong n, ulong n_in,
                           ulong chunk, __global ulong *bad)
{
    ulong first = ULONG_MAX;
    idx += idx_off;
#if CHUNKED
    FOR_MINE(j, n, chunk) {
        if (idx[j] >= n_in) {
            first = j;
            break;
        }
    }
    bad[get_global_id(0)] = first;
#else
    __local ulong least[WG];
    const uint l = get_local_id(0);
    FOR_MINE(j, n, chunk) {
        if (idx[j] >= n_in && j < first)
            first = j;
    }
    least[l] = first;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (l < s)
            least[l] = min(least[l], least[l + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        bad[get_group_id(0)] = least[0];
#endif
}

/* idx[j] = j, as K: the values argsort sorts with its keys. */
__kernel void argsort_iota(__global K *idx, ulong n, ulong chunk)
{
    FOR_MINE(j, n, chunk)
        idx[j] = (K)j;
}

/* out[j] = in[j] widened to 64 bits: argsort's 32-bit indices to the
   caller's. */
__kernel void argsort_widen(__global const uint *in, ulong n, __global ulong *out,
                            ulong out_off, ulong chunk)
{
    out += out_off;
    FOR_MINE(j, n, chunk)
        out[j] = in[j];
}
