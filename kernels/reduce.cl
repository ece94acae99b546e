/* reduce.cl - one pass of a hierarchical reduction: each work-group combines
   its share of in[0, n) and writes one partial to out[out_off + group].
   The host runs it over the data, then (when there is more than one group)
   over the partials with one group.

   The element-to-item mapping is the plan's (CHUNKED):
   - CPUs: each work item owns one contiguous chunk and streams it with
     vector loads; PoCL turns that into a tight vectorised loop.
   - GPUs: a grid-stride loop over aligned T4 vectors, adjacent items reading
     adjacent vectors (coalesced); the few unaligned elements at either end
     are taken by the first items.
   Every lane sum is folded in a fixed order: the float result depends only
   on n, the offset's alignment and the launch shape, never on timing. */

#ifndef BLOCK
#define BLOCK 1024
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_pass(__global const T *in, ulong off, ulong n, __global T *out, ulong out_off)
{
    __local T tree[WG];
    in += off;
    const ulong gid = get_global_id(0), items = get_global_size(0);
    T acc = IDENTITY;
    T4 acc4 = (T4)(IDENTITY);
#if CHUNKED
    const ulong per = ((n + items - 1) / items + 3) & ~(ulong)3;
    const ulong begin = min(gid * per, n), end = min(begin + per, n);
    ulong i = begin;
    /* Blocks of BLOCK elements are summed on their own and then added to the
       total: a float sum's rounding error grows with the block, not with the
       whole chunk (which is n / items long). */
    for (; i + BLOCK <= end; i += BLOCK) {
        T4 block = (T4)(IDENTITY);
        for (uint j = 0; j < BLOCK; j += 4)
            block = COMBINE4(block, MAP4(vload4(0, in + i + j)));
        acc4 = COMBINE4(acc4, block);
    }
    for (; i + 4 <= end; i += 4)
        acc4 = COMBINE4(acc4, MAP4(vload4(0, in + i)));
    for (; i < end; i++)
        acc = COMBINE(acc, MAP1(in[i]));
#else
    const ulong head = min((ulong)((4 - (off & 3)) & 3), n);
    const ulong nvec = (n - head) / 4;
    const ulong tail = head + 4 * nvec;
    __global const T4 *v = (__global const T4 *)(in + head);
    for (ulong j = gid; j < nvec; j += items)
        acc4 = COMBINE4(acc4, MAP4(v[j]));
    if (gid < head)
        acc = COMBINE(acc, MAP1(in[gid]));
    if (gid < n - tail)
        acc = COMBINE(acc, MAP1(in[tail + gid]));
#endif
    acc = COMBINE(FOLD4(acc4), acc);
    T r = group_reduce(acc, tree);
    if (get_local_id(0) == 0)
        out[out_off + get_group_id(0)] = r;
}
