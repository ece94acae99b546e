/* bykey.cl - the runs of equal keys as segments (T is the key type, an
   integer type, so == compares bit patterns).

   bykey_heads marks the first element of each run; the host scans the
   marks (inclusive sum: rank[i] = runs that start at or before i, a
   RANK_T: uint, or ulong from 2^32 elements); then
   bykey_scatter writes each run's start offset at its rank, so that the
   segmented scan can take the runs as segments (scan_by_key; reduce_by_key
   has its own kernels in segmented.cl). Element layout as everywhere: a contiguous chunk per work item
   on CPUs, adjacent items on adjacent elements on GPUs. */

#ifndef RANK_T
#define RANK_T uint
#endif

static inline int run_head(__global const T *keys, ulong i)
{
    return i == 0 || keys[i] != keys[i - 1];
}

#if CHUNKED
#define FOR_ELEMENTS(i, n)                                                     \
    const ulong items_ = get_global_size(0), per_ = ((n) + items_ - 1) / items_; \
    const ulong end_ = min(get_global_id(0) * per_ + per_, (n));              \
    for (ulong i = min(get_global_id(0) * per_, (n)); i < end_; i++)
#else
#define FOR_ELEMENTS(i, n) \
    for (ulong i = get_global_id(0); i < (n); i += get_global_size(0))
#endif

__kernel void bykey_heads(__global const T *keys, ulong key_off, ulong n, __global RANK_T *rank)
{
    keys += key_off;
    FOR_ELEMENTS(i, n)
        rank[i] = run_head(keys, i);
}

/* offs[r] = start of run r, offs[runs] = n; nruns[nruns_off] = runs; with
   kout, kout[r] = the key of run r. */
static inline void scatter(__global const T *keys, ulong n, __global const RANK_T *rank,
                           __global ulong *offs, __global ulong *nruns, __global T *kout)
{
    FOR_ELEMENTS(i, n) {
        if (run_head(keys, i)) {
            offs[rank[i] - 1] = i;
            if (kout)
                kout[rank[i] - 1] = keys[i];
        }
        if (i == n - 1) {
            offs[rank[i]] = n;
            *nruns = rank[i];
        }
    }
}

__kernel void bykey_scatter(__global const T *keys, ulong key_off, ulong n,
                            __global const RANK_T *rank, __global ulong *offs,
                            __global ulong *nruns, ulong nruns_off)
{
    scatter(keys + key_off, n, rank, offs, nruns + nruns_off, NULL);
}

/* reduce_by_key with GPGPU_SUM_EXACT: the runs' keys too. */
__kernel void bykey_scatter_keys(__global const T *keys, ulong key_off, ulong n,
                                 __global const RANK_T *rank, __global ulong *offs,
                                 __global ulong *nruns, ulong nruns_off, __global T *kout,
                                 ulong kout_off)
{
    scatter(keys + key_off, n, rank, offs, nruns + nruns_off, kout + kout_off);
}
