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

/* How many of s[0 .. n) come before x (x already through order_key):
   those < x, or <= x when right. Branch-free halving, so that CPUs select
   instead of mispredicting; every probe is inside [0, n) whatever s holds. */
inline ulong search_one(__global const K *s, ulong n, K x, uint right, K m0, K m1)
{
    ulong base = 0, len = n;
    while (len > 0) {
        ulong step = len >> 1;
        K v = order_key(s[base + step], m0, m1);
        int go = right ? v <= x : v < x;
        base = go ? base + step + 1 : base;
        len = go ? len - step - 1 : step;
    }
    return base;
}

__kernel void search_sorted(__global const K *sorted, ulong sorted_off, ulong n,
                            __global const K *needles, ulong needles_off, ulong m, uint right,
                            K m0, K m1, __global ulong *pos, ulong pos_off, ulong chunk)
{
    sorted += sorted_off;
    needles += needles_off;
    pos += pos_off;
    FOR_MINE(j, m, chunk)
        pos[j] = search_one(sorted, n, order_key(needles[j], m0, m1), right, m0, m1);
}

/* out[j] = in[idx[j]]; an index past n_in leaves out[j] as it was (the
   host and array calls check the indices first: gather_check). */
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
