/*
 * sort.cl - stable radix sort of 32- or 64-bit keys, optionally carrying 4- or
 * 8-byte values.
 *
 * Keys move as raw bits (KT); digits are taken from transformed bits:
 * x ^ (top bit of x ? m1 : m0), masks from the host (gpgpu__sort_masks), so one
 * program serves every key type of a width, both orders, and floats by
 * totalOrder without any floating-point arithmetic.
 *
 * Every launch reads its decisions from the plan the device computed from the
 * digit histograms (sort_plan), so passes whose digit is the same for every
 * key cost no work and the host never waits for the histograms. The caller's
 * keys are written only by the last kernel.
 *
 * Chunked layout (CHUNKED=1, CPUs): each work item owns a contiguous chunk.
 *   sort_count    one read: per-chunk counts of every digit
 *   sort_plan     totals, trivial digits, the most significant live digit
 *                 (MSD) and per-chunk scatter offsets for it
 *   sort_msd      one stable MSD scatter of the whole array into scratch A
 *   sort_buckets  each MSD bucket (a cache-sized piece for random keys) is
 *                 sorted by its remaining live digits, LSD, between A and B,
 *                 the last pass writing the caller's buffer
 * Tiled layout (CHUNKED=0, GPUs): the same sort_count / sort_plan decisions,
 * then per live digit LSD passes over tiles of TILE keys:
 *   sort_tile_count   per-tile digit counts in __local memory
 *   (scan of the digit-major count table, sort_scan_*)
 *   sort_tile_scatter stable in-tile ranking in __local memory, then writes
 *                     that are contiguous per digit
 */

#ifndef KEY_BITS
#define KEY_BITS 32
#endif
#ifndef VAL_BYTES
#define VAL_BYTES 0
#endif
#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef TILE_WG
#define TILE_WG 256
#endif
#ifndef TILE_ITEMS
#define TILE_ITEMS 8
#endif

#if KEY_BITS == 64
typedef ulong KT;
#else
typedef uint KT;
#endif
#if VAL_BYTES == 8
typedef ulong VT;
#else
typedef uint VT;
#endif

#define RADIX (1 << RADIX_BITS)
#define DIGITS ((KEY_BITS + RADIX_BITS - 1) / RADIX_BITS)
#define TILE (TILE_WG * TILE_ITEMS)

/* Plan layout (ulong words), written by sort_plan. */
#define PLAN_MSD 0           /* 1 + the MSD digit, 0: nothing to sort */
#define PLAN_LIVE 1          /* bit d: digit d differs between keys */
#define PLAN_START 2         /* RADIX bucket starts of the MSD digit */
#define PLAN_SIZE (2 + RADIX) /* RADIX bucket sizes */
#define PLAN_WORDS (2 + 2 * RADIX)
/* then chunk i's first output position per digit value: [i * RADIX + v] */

inline KT sort_xf(KT x, KT m0, KT m1)
{
    return x ^ ((x >> (KEY_BITS - 1)) ? m1 : m0);
}

inline uint sort_digit(KT x, uint d)
{
    return (uint)(x >> (d * RADIX_BITS)) & (RADIX - 1);
}

/* One read of every key: counts of all DIGITS digits for chunk i, written as
   hist[(i * DIGITS + d) * RADIX + v]. */
__kernel void sort_count(__global const KT *keys, ulong koff, ulong n, ulong chunk, KT m0,
                         KT m1, __global uint *hist)
{
    uint c[DIGITS][RADIX];
    ulong i = get_global_id(0);
    ulong b = min(n, i * chunk), e = min(n, b + chunk);

    for (uint d = 0; d < DIGITS; d++)
        for (uint v = 0; v < RADIX; v++)
            c[d][v] = 0;
    keys += koff;
    for (ulong j = b; j < e; j++) {
        KT x = sort_xf(keys[j], m0, m1);
        for (uint d = 0; d < DIGITS; d++)
            c[d][sort_digit(x, d)]++;
    }
    for (uint d = 0; d < DIGITS; d++)
        for (uint v = 0; v < RADIX; v++)
            hist[(i * DIGITS + d) * RADIX + v] = c[d][v];
}

/* One group of RADIX items, item v owning digit value v. A digit is dead when
   one value has all n keys. Writes the plan and, for the MSD digit, each
   chunk's first output position per value (digit-major, then chunk order:
   the scatter is stable). */
__kernel void sort_plan(__global const uint *hist, uint nchunks, ulong n, __global ulong *plan)
{
    __global ulong *offsets = plan + PLAN_WORDS;
    __local int live[DIGITS];
    __local ulong start[RADIX];
    uint v = get_local_id(0);
    ulong tot[DIGITS];

    if (v < DIGITS)
        live[v] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 0; d < DIGITS; d++) {
        tot[d] = 0;
        for (uint i = 0; i < nchunks; i++)
            tot[d] += hist[(i * DIGITS + d) * RADIX + v];
        if (tot[d] == n)
            live[d] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int msd = -1;
    ulong mask = 0;
    for (int d = 0; d < DIGITS; d++)
        if (live[d]) {
            msd = d;
            mask |= 1ul << d;
        }
    ulong size = msd < 0 ? 0 : tot[msd];
    start[v] = size;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (v == 0) {
        ulong sum = 0;
        for (uint u = 0; u < RADIX; u++) {
            ulong s = start[u];
            start[u] = sum;
            sum += s;
        }
        plan[PLAN_MSD] = (ulong)(msd + 1);
        plan[PLAN_LIVE] = mask;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    plan[PLAN_START + v] = start[v];
    plan[PLAN_SIZE + v] = size;
    if (msd >= 0) {
        ulong pos = start[v];
        for (uint i = 0; i < nchunks; i++) {
            offsets[i * RADIX + v] = pos;
            pos += hist[(i * DIGITS + msd) * RADIX + v];
        }
    }
}

/* ---- chunked layout (CPUs) ---------------------------------------------- */

/* Stable scatter of chunk i by the MSD digit into A. */
__kernel void sort_msd(__global const KT *keys, __global const VT *vals, ulong koff,
                       ulong voff, ulong n, ulong chunk, KT m0, KT m1,
                       __global const ulong *plan, __global KT *ak, __global VT *av)
{
    __global const ulong *offsets = plan + PLAN_WORDS;
    ulong pos[RADIX];
    ulong i = get_global_id(0);
    ulong b = min(n, i * chunk), e = min(n, b + chunk);

    if (plan[PLAN_MSD] == 0)
        return;
    uint msd = (uint)plan[PLAN_MSD] - 1;
    for (uint v = 0; v < RADIX; v++)
        pos[v] = offsets[i * RADIX + v];
    keys += koff;
    vals += voff;
    for (ulong j = b; j < e; j++) {
        KT k = keys[j];
        ulong p = pos[sort_digit(sort_xf(k, m0, m1), msd)]++;
        ak[p] = k;
#if VAL_BYTES
        av[p] = vals[j];
#endif
    }
}

/* Counting sort of src[0..cnt) by digit d into dst, stable. */
inline void sort_pass(__global const KT *sk, __global const VT *sv, __global KT *dk,
                      __global VT *dv, ulong cnt, uint d, KT m0, KT m1, const uint *count)
{
    ulong pos[RADIX], sum = 0;

    for (uint v = 0; v < RADIX; v++) {
        pos[v] = sum;
        sum += count[v];
    }
    for (ulong j = 0; j < cnt; j++) {
        KT k = sk[j];
        ulong p = pos[sort_digit(sort_xf(k, m0, m1), d)]++;
        dk[p] = k;
#if VAL_BYTES
        dv[p] = sv[j];
#endif
    }
}

/* Work item v sorts MSD bucket v (in A, the first n of ak) by the live
   digits below the MSD that differ inside the bucket, ping-ponging with B
   (the next n); the last pass (or a copy when none is left) writes the
   caller's buffers. */
__kernel void sort_buckets(__global KT *ak, __global VT *av, ulong n, __global KT *keys,
                           __global VT *vals, ulong koff, ulong voff, KT m0, KT m1,
                           __global const ulong *plan)
{
    __global KT *bk = ak + n;
    __global VT *bv = av + n;
    uint c[DIGITS][RADIX];
    uint v = get_global_id(0);

    if (plan[PLAN_MSD] == 0)
        return;
    uint msd = (uint)plan[PLAN_MSD] - 1;
    ulong s = plan[PLAN_START + v], cnt = plan[PLAN_SIZE + v];
    ulong live = plan[PLAN_LIVE] & ((1ul << msd) - 1);
    if (cnt == 0)
        return;

    for (uint d = 0; d < msd; d++)
        for (uint u = 0; u < RADIX; u++)
            c[d][u] = 0;
    ak += s;
    av += s;
    bk += s;
    bv += s;
    keys += koff + s;
    vals += voff + s;
    if (live) {
        for (ulong j = 0; j < cnt; j++) {
            KT x = sort_xf(ak[j], m0, m1);
            for (uint d = 0; d < msd; d++)
                c[d][sort_digit(x, d)]++;
        }
        for (uint d = 0; d < msd; d++)
            if (c[d][sort_digit(sort_xf(ak[0], m0, m1), d)] == cnt)
                live &= ~(1ul << d);
    }

    __global KT *sk = ak, *dk;
    __global VT *sv = av, *dv;
    for (uint d = 0; d < msd; d++) {
        if (!(live & (1ul << d)))
            continue;
        live &= ~(1ul << d);
        dk = live ? (sk == ak ? bk : ak) : keys;
        dv = live ? (sv == av ? bv : av) : vals;
        sort_pass(sk, sv, dk, dv, cnt, d, m0, m1, c[d]);
        sk = dk;
        sv = dv;
    }
    if (sk == ak) {
        for (ulong j = 0; j < cnt; j++) {
            keys[j] = ak[j];
#if VAL_BYTES
            vals[j] = av[j];
#endif
        }
    }
}
