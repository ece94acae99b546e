/*
 * sort.cl - stable radix sort of 32- or 64-bit keys, optionally carrying 4- or
 * 8-byte values.
 *
 * Keys move as raw bits (KT); digits are taken from transformed bits:
 * x ^ (top bit of x ? m1 : m0), masks from the host (gpgpu__sort_masks), so one
 * program serves every key type of a width, both orders, and floats by
 * totalOrder without any floating-point arithmetic.
 *
 * Every launch reads its decisions from the plan the device made from one
 * read of the keys (sort_bits, sort_plan), so passes whose digit is the same
 * for every key cost no work, input already in order costs one read, and
 * the host never waits. The caller's keys are written only by the last
 * kernel.
 *
 * Each program holds one layout's kernels (fewer to compile).
 *
 * Chunked layout (CHUNKED=1, CPUs): each work item owns a contiguous chunk.
 *   sort_bits     one read: OR and AND of the keys, any key out of order
 *   sort_count    per-chunk counts of the most significant live digit (MSD)
 *   sort_plan     live digits, MSD buckets, per-chunk scatter offsets
 *   sort_msd      one stable MSD scatter of the whole array into scratch A
 *   sort_buckets  each MSD bucket (a cache-sized piece for random keys) is
 *                 sorted by its remaining live digits, LSD, between A and B,
 *                 the last pass writing the caller's buffer; a bucket too
 *                 big for the cache is split by its next digit first
 * Tiled layout (CHUNKED=0, GPUs): the same sort_bits / sort_plan decisions,
 * then per live digit LSD passes over tiles of TILE keys:
 *   sort_tile_count   per-tile digit counts in __local memory
 *   (scan of the digit-major count table, sort_scan_*)
 *   sort_tile_scatter stable in-tile ranking in __local memory, then writes
 *                     that are contiguous per digit
 *   sort_copy         the result, from scratch, into the caller's buffer
 */

#ifndef CHUNKED
#define CHUNKED 1
#endif
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
#define PLAN_ROUTE (2 + 2 * RADIX) /* per digit: ROUTE_LIVE | src | dst << 2 */
#define PLAN_FINAL (PLAN_ROUTE + 16) /* buffer holding the tiled result: 1 A, 2 B */
#define PLAN_WORDS (PLAN_FINAL + 1)
#define ROUTE_LIVE 16
/* then chunk i's first output position per digit value: [i * RADIX + v] */

inline KT sort_xf(KT x, KT m0, KT m1)
{
    return x ^ ((x >> (KEY_BITS - 1)) ? m1 : m0);
}

inline uint sort_digit(KT x, uint d)
{
    return (uint)(x >> (d * RADIX_BITS)) & (RADIX - 1);
}

/* Per chunk (CHUNKED) or work-group (grid-stride), in one read: the OR and
   the AND of the transformed keys (a digit is the same for every key where
   they agree) and whether some key orders before its predecessor (none
   anywhere: the input is already in order). bits[3 * i + 0, 1, 2]. */
#if CHUNKED
__kernel void sort_bits(__global const KT *keys, ulong koff, ulong n, ulong chunk, KT m0,
                        KT m1, __global ulong *bits)
{
    ulong i = get_global_id(0);
    ulong b = min(n, i * chunk), e = min(n, b + chunk);
    KT some = 0, every = ~(KT)0, descents = 0;

    keys += koff;
    KT prev = b < e ? sort_xf(keys[b], m0, m1) : 0;
    for (ulong j = b; j < e; j++) {
        KT x = sort_xf(keys[j], m0, m1);
        descents |= x < prev;
        some |= x;
        every &= x;
        prev = x;
    }
    if (b < e && e < n)
        descents |= sort_xf(keys[e], m0, m1) < prev;
    bits[3 * i] = b < e ? some : 0;
    bits[3 * i + 1] = b < e ? every : ~(ulong)0;
    bits[3 * i + 2] = descents;
}
#else
__kernel void sort_bits(__global const KT *keys, ulong koff, ulong n, ulong chunk, KT m0,
                        KT m1, __global ulong *bits)
{
    __local KT lany[TILE_WG], lall[TILE_WG], ldesc[TILE_WG];
    uint lid = get_local_id(0);
    KT some = 0, every = ~(KT)0, descents = 0;

    keys += koff;
    for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) {
        KT x = sort_xf(keys[j], m0, m1);
        if (j + 1 < n)
            descents |= sort_xf(keys[j + 1], m0, m1) < x;
        some |= x;
        every &= x;
    }
    lany[lid] = some;
    lall[lid] = every;
    ldesc[lid] = descents;
    for (uint width = TILE_WG / 2; width > 0; width /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < width) {
            lany[lid] |= lany[lid + width];
            lall[lid] &= lall[lid + width];
            ldesc[lid] |= ldesc[lid + width];
        }
    }
    if (lid == 0) {
        ulong g = get_group_id(0);
        bits[3 * g] = lany[0];
        bits[3 * g + 1] = lall[0];
        bits[3 * g + 2] = ldesc[0];
    }
}
#endif

/* The digits that differ between keys (none when the keys are already in
   order), from the bits of every chunk or group. */
inline ulong sort_live(__global const ulong *bits, uint nbits)
{
    ulong some = 0, every = ~0ul, descents = 0, live = 0;
    for (uint i = 0; i < nbits; i++) {
        some |= bits[3 * i];
        every &= bits[3 * i + 1];
        descents |= bits[3 * i + 2];
    }
    for (uint d = 0; d < DIGITS && descents; d++)
        if (sort_digit((KT)(some ^ every), d))
            live |= 1ul << d;
    return live;
}

#if CHUNKED
/* Counts of the most significant live digit for chunk i: hist[i * RADIX + v]. */
__kernel void sort_count(__global const KT *keys, ulong koff, ulong n, ulong chunk, KT m0,
                         KT m1, __global const ulong *bits, __global uint *hist)
{
    uint c[RADIX];
    ulong i = get_global_id(0);
    ulong b = min(n, i * chunk), e = min(n, b + chunk);
    ulong live = sort_live(bits, get_global_size(0));

    if (!live)
        return;
    uint msd = 63 - (uint)clz(live);
    for (uint v = 0; v < RADIX; v++)
        c[v] = 0;
    keys += koff;
    for (ulong j = b; j < e; j++)
        c[sort_digit(sort_xf(keys[j], m0, m1), msd)]++;
    for (uint v = 0; v < RADIX; v++)
        hist[i * RADIX + v] = c[v];
}
#endif

/* The tiled passes' buffers: the first live digit reads the caller's keys
   (0), then A (1) and B (2) alternate; sort_copy brings the result home. */
inline void sort_route(__global ulong *plan, ulong live)
{
    ulong src = 0;
    for (uint d = 0; d < 16; d++) {
        ulong dst = src == 1 ? 2 : 1;
        plan[PLAN_ROUTE + d] = (live >> d) & 1 ? ROUTE_LIVE | src | dst << 2 : 0;
        if ((live >> d) & 1)
            src = dst;
    }
    plan[PLAN_FINAL] = src;
}

/* One group of RADIX items, item v owning digit value v: the live digits,
   the route of the tiled passes and, in the chunked layout, the MSD
   buckets and each chunk's first output position per value (digit-major,
   then chunk order: the scatter is stable). */
__kernel void sort_plan(__global const ulong *bits, __global const uint *hist, uint nchunks,
                        __global ulong *plan)
{
    __global ulong *offsets = plan + PLAN_WORDS;
    __local ulong start[RADIX];
    uint v = get_local_id(0);
    ulong live = sort_live(bits, nchunks), size = 0;
    int msd = live ? 63 - (int)clz(live) : -1;

    if (v == 0) {
        plan[PLAN_MSD] = (ulong)(msd + 1);
        plan[PLAN_LIVE] = live;
        sort_route(plan, live);
    }
#if CHUNKED
    for (uint i = 0; i < nchunks && live; i++)
        size += hist[i * RADIX + v];
#endif
    start[v] = size;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (v == 0) {
        ulong sum = 0;
        for (uint u = 0; u < RADIX; u++) {
            ulong s = start[u];
            start[u] = sum;
            sum += s;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    plan[PLAN_START + v] = start[v];
    plan[PLAN_SIZE + v] = size;
#if CHUNKED
    ulong pos = start[v];
    for (uint i = 0; i < nchunks && live; i++) {
        offsets[i * RADIX + v] = pos;
        pos += hist[i * RADIX + v];
    }
#endif
}

/* ---- chunked layout (CPUs) ---------------------------------------------- */
#if CHUNKED

/* Stable scatter of chunk i by the MSD digit into A. A holds transformed
   keys: the bucket passes then order them as plain unsigned integers, and
   only their last write turns them back (sort_unxf). */
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
        KT x = sort_xf(keys[j], m0, m1);
        ulong p = pos[sort_digit(x, msd)]++;
        ak[p] = x;
#if VAL_BYTES
        av[p] = vals[j];
#endif
    }
}

/* The inverse of sort_xf: after it the top bit tells which mask applied. */
inline KT sort_unxf(KT x, KT m0, KT m1)
{
    KT if_set = (m0 >> (KEY_BITS - 1)) ? m0 : m1, if_clear = (m0 >> (KEY_BITS - 1)) ? m1 : m0;
    return x ^ ((x >> (KEY_BITS - 1)) ? if_set : if_clear);
}

/* Inside a bucket the LSD passes use wider digits: the bucket is in cache,
   where a 4096-way scatter costs little more than a 256-way one, and 24
   bits then take two passes instead of three. */
#ifndef WIDE_BITS
#define WIDE_BITS 12
#endif
#define WIDE (1 << WIDE_BITS)

inline uint sort_wide(KT x, uint w)
{
    return (uint)(x >> (w * WIDE_BITS)) & (WIDE - 1);
}

/* Whether wide digit w overlaps a RADIX_BITS digit that is set in live. */
inline int sort_wide_live(ulong live, uint w)
{
    uint lo = w * WIDE_BITS / RADIX_BITS, hi = (w * WIDE_BITS + WIDE_BITS - 1) / RADIX_BITS;
    return ((live >> lo) & ((2ul << (hi - lo)) - 1)) != 0;
}

inline void sort_count_wide(__global const KT *k, ulong cnt, uint w, uint *c)
{
    for (uint u = 0; u < WIDE; u++)
        c[u] = 0;
    for (ulong j = 0; j < cnt; j++)
        c[sort_wide(k[j], w)]++;
}

/* Sorts the transformed keys a[0..cnt) (values av) by their bits below the
   highest digit set in live (digits above it are the same for every key of
   the range), least significant wide digit first, skipping wide digits that
   overlap no live digit or that every key shares. b is scratch of the same
   size; the last pass (or a copy when it was skipped) writes the keys back
   untransformed to keys/vals. Each other pass counts the next wide digit as
   it goes. */
inline void sort_lsd(__global KT *ak, __global VT *av, __global KT *bk, __global VT *bv,
                     __global KT *keys, __global VT *vals, ulong cnt, ulong live, KT m0, KT m1)
{
    uint c[2][WIDE], cur = 0;
    ulong pos[WIDE];
    uint np = live ? ((64 - (uint)clz(live)) * RADIX_BITS + WIDE_BITS - 1) / WIDE_BITS : 0;
    int counted = 0;
    __global KT *sk = ak;
    __global VT *sv = av;

    for (uint w = 0; w < np; w++) {
        if (!sort_wide_live(live, w))
            continue;
        if (!counted)
            sort_count_wide(sk, cnt, w, c[cur]);
        counted = 0;
        if (c[cur][sort_wide(sk[0], w)] == cnt)
            continue;
        uint nw = w + 1;
        while (nw < np && !sort_wide_live(live, nw))
            nw++;
        ulong sum = 0;
        for (uint u = 0; u < WIDE; u++) {
            pos[u] = sum;
            sum += c[cur][u];
            c[cur ^ 1][u] = 0;
        }
        if (nw >= np) {
            for (ulong j = 0; j < cnt; j++) {
                KT x = sk[j];
                ulong p = pos[sort_wide(x, w)]++;
                keys[p] = sort_unxf(x, m0, m1);
#if VAL_BYTES
                vals[p] = sv[j];
#endif
            }
            return;
        }
        __global KT *dk = sk == ak ? bk : ak;
        __global VT *dv = sv == av ? bv : av;
        for (ulong j = 0; j < cnt; j++) {
            KT x = sk[j];
            ulong p = pos[sort_wide(x, w)]++;
            dk[p] = x;
#if VAL_BYTES
            dv[p] = sv[j];
#endif
            c[cur ^ 1][sort_wide(x, nw)]++;
        }
        cur ^= 1;
        counted = 1;
        sk = dk;
        sv = dv;
        w = nw - 1;
    }
    for (ulong j = 0; j < cnt; j++) {
        keys[j] = sort_unxf(sk[j], m0, m1);
#if VAL_BYTES
        vals[j] = sv[j];
#endif
    }
}

/* Above this many bytes of keys and values a bucket no longer sorts in
   cache (skewed keys, such as floats of one binade): it is split once more
   by its next live digit first. */
#ifndef BUCKET_BYTES
#define BUCKET_BYTES (512 * 1024)
#endif

/* Work item v sorts MSD bucket v (in A, the first n of ak) by the live
   digits below the MSD, using B (the next n) as scratch; the result goes to
   the caller's buffers. */
__kernel void sort_buckets(__global KT *ak, __global VT *av, ulong n, __global KT *keys,
                           __global VT *vals, ulong koff, ulong voff, KT m0, KT m1,
                           __global const ulong *plan)
{
    uint v = get_global_id(0);

    if (plan[PLAN_MSD] == 0)
        return;
    uint msd = (uint)plan[PLAN_MSD] - 1;
    ulong s = plan[PLAN_START + v], cnt = plan[PLAN_SIZE + v];
    ulong live = plan[PLAN_LIVE] & ((1ul << msd) - 1);
    __global KT *bk = ak + n + s;
    __global VT *bv = av + n + s;

    ak += s;
    av += s;
    keys += koff + s;
    vals += voff + s;
    if (cnt == 0)
        return;
    if (!live || cnt * (sizeof(KT) + VAL_BYTES) <= BUCKET_BYTES) {
        sort_lsd(ak, av, bk, bv, keys, vals, cnt, live, m0, m1);
        return;
    }

    /* Split by the highest live digit into B (stable), then sort each part. */
    uint d = 63 - clz(live), c[RADIX];
    ulong pos[RADIX], sum = 0;
    for (uint u = 0; u < RADIX; u++)
        c[u] = 0;
    for (ulong j = 0; j < cnt; j++)
        c[sort_digit(ak[j], d)]++;
    for (uint u = 0; u < RADIX; u++) {
        pos[u] = sum;
        sum += c[u];
    }
    for (ulong j = 0; j < cnt; j++) {
        ulong p = pos[sort_digit(ak[j], d)]++;
        bk[p] = ak[j];
#if VAL_BYTES
        bv[p] = av[j];
#endif
    }
    live &= ~(1ul << d);
    sum = 0;
    for (uint u = 0; u < RADIX; u++) {
        if (c[u])
            sort_lsd(bk + sum, bv + sum, ak + sum, av + sum, keys + sum, vals + sum, c[u],
                     live, m0, m1);
        sum += c[u];
    }
}

#endif /* CHUNKED */

/* ---- tiled layout (GPUs) ------------------------------------------------ */
#if !CHUNKED

/* Buffer id (0 the caller's, 1 A, 2 B) to pointer. */
#define SORT_PICK(id, k, a, b) ((id) == 0 ? (k) : (id) == 1 ? (a) : (b))

/* Exclusive scan of one value per item over the group (TILE_WG items);
   *total gets the sum. Every item must call it. */
inline uint sort_wg_scan(uint x, __local uint *ls, uint *total)
{
    uint lid = get_local_id(0);
    ls[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < TILE_WG; off <<= 1) {
        uint y = lid >= off ? ls[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        ls[lid] += y;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *total = ls[TILE_WG - 1];
    uint r = ls[lid] - x;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* Digit d's count in tile t, written digit-major: counts[v * ntiles + t]. */
__kernel void sort_tile_count(__global const KT *keys, __global const KT *ak, ulong koff,
                              ulong n, uint d, KT m0, KT m1, __global const ulong *plan,
                              __global uint *counts, uint ntiles)
{
    __local uint lh[RADIX];
    ulong route = plan[PLAN_ROUTE + d];
    uint lid = get_local_id(0), t = get_group_id(0);

    if (!(route & ROUTE_LIVE))
        return;
    __global const KT *src = SORT_PICK(route & 3, keys + koff, ak, ak + n) + (ulong)t * TILE;
    uint valid = (uint)min((ulong)TILE, n - (ulong)t * TILE);
    for (uint v = lid; v < RADIX; v += TILE_WG)
        lh[v] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (valid == TILE) {
        for (uint r = 0; r < TILE_ITEMS; r++)
            atomic_inc(&lh[sort_digit(sort_xf(src[r * TILE_WG + lid], m0, m1), d)]);
    } else {
        for (uint p = lid; p < valid; p += TILE_WG)
            atomic_inc(&lh[sort_digit(sort_xf(src[p], m0, m1), d)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint v = lid; v < RADIX; v += TILE_WG)
        counts[v * ntiles + t] = lh[v];
}

/* Exclusive scan of the count table, in three steps over blocks of bs
   entries: block sums, a scan of the sums (one group), the blocks scanned
   from their sums. */
__kernel void sort_scan_reduce(__global const uint *c, ulong len, ulong bs,
                               __global uint *sums, __global const ulong *plan, uint d)
{
    __local uint ls[TILE_WG];
    ulong b = get_group_id(0), start = b * bs, end = min(len, start + bs);
    uint s = 0, total;

    if (!(plan[PLAN_ROUTE + d] & ROUTE_LIVE))
        return;
    for (ulong j = start + get_local_id(0); j < end; j += TILE_WG)
        s += c[j];
    sort_wg_scan(s, ls, &total);
    if (get_local_id(0) == 0)
        sums[b] = total;
}

__kernel void sort_scan_sums(__global uint *sums, uint nb, __global const ulong *plan, uint d)
{
    __local uint ls[TILE_WG];
    uint carry = 0, total;

    if (!(plan[PLAN_ROUTE + d] & ROUTE_LIVE))
        return;
    for (uint base = 0; base < nb; base += TILE_WG) {
        uint j = base + get_local_id(0);
        uint ex = sort_wg_scan(j < nb ? sums[j] : 0, ls, &total);
        if (j < nb)
            sums[j] = carry + ex;
        carry += total;
    }
}

__kernel void sort_scan_apply(__global uint *c, ulong len, ulong bs,
                              __global const uint *sums, __global const ulong *plan, uint d)
{
    __local uint ls[TILE_WG];
    ulong b = get_group_id(0), start = b * bs, end = min(len, start + bs);
    uint carry, total;

    if (!(plan[PLAN_ROUTE + d] & ROUTE_LIVE))
        return;
    carry = sums[b];
    for (ulong base = start; base < end; base += TILE_WG) {
        ulong j = base + get_local_id(0);
        uint x = j < end ? c[j] : 0;
        uint ex = sort_wg_scan(x, ls, &total);
        if (j < end)
            c[j] = carry + ex;
        carry += total;
    }
}

/* Tile t sorted stably by digit d in __local memory (RADIX_BITS one-bit
   splits of (digit, index) entries), then written so that the keys of one
   digit go to consecutive addresses from the tile's offset. Padding entries
   of the last tile carry the largest digit and sit after every real key. */
__kernel void sort_tile_scatter(__global KT *keys, __global VT *vals, __global KT *ak,
                                __global VT *av, ulong koff, ulong voff, ulong n, uint d,
                                KT m0, KT m1, __global const ulong *plan,
                                __global const uint *offs, uint ntiles)
{
    __local KT lk[TILE];
#if VAL_BYTES
    __local VT lv[TILE];
#endif
    __local uint lp[TILE];
    __local uint ls[TILE_WG];
    __local uint lh[RADIX];
    __local uint lst[RADIX];
    ulong route = plan[PLAN_ROUTE + d];
    uint lid = get_local_id(0), t = get_group_id(0), total;

    if (!(route & ROUTE_LIVE))
        return;
    ulong base = (ulong)t * TILE;
    uint valid = (uint)min((ulong)TILE, n - base);
    __global KT *sk = SORT_PICK(route & 3, keys + koff, ak, ak + n) + base;
    __global VT *sv = SORT_PICK(route & 3, vals + voff, av, av + n) + base;
    __global KT *dk = SORT_PICK((route >> 2) & 3, keys + koff, ak, ak + n);
    __global VT *dv = SORT_PICK((route >> 2) & 3, vals + voff, av, av + n);

    for (uint v = lid; v < RADIX; v += TILE_WG)
        lh[v] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < TILE_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        uint v = RADIX - 1;
        if (valid == TILE || p < valid) {
            KT k = sk[p];
            lk[p] = k;
#if VAL_BYTES
            lv[p] = sv[p];
#endif
            v = sort_digit(sort_xf(k, m0, m1), d);
            atomic_inc(&lh[v]);
        }
        lp[p] = v << 16 | p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint bit = 0; bit < RADIX_BITS; bit++) {
        uint e[TILE_ITEMS], zeros = 0;
        for (uint k = 0; k < TILE_ITEMS; k++) {
            e[k] = lp[lid * TILE_ITEMS + k];
            zeros += !((e[k] >> (16 + bit)) & 1);
        }
        uint z = sort_wg_scan(zeros, ls, &total);
        uint o = total + lid * TILE_ITEMS - z;
        for (uint k = 0; k < TILE_ITEMS; k++) {
            if ((e[k] >> (16 + bit)) & 1)
                lp[o++] = e[k];
            else
                lp[z++] = e[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (uint v0 = 0; v0 < RADIX; v0 += TILE_WG) {
        uint v = v0 + lid;
        uint st = sort_wg_scan(v < RADIX ? lh[v] : 0, ls, &total);
        if (v < RADIX)
            lst[v] = st + (v0 ? lst[v0 - 1] + lh[v0 - 1] : 0);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint r = 0; r < TILE_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        if (valid == TILE || p < valid) {
            uint e = lp[p], v = e >> 16, i = e & 0xffff;
            ulong to = offs[v * ntiles + t] + (p - lst[v]);
            dk[to] = lk[i];
#if VAL_BYTES
            dv[to] = lv[i];
#endif
        }
    }
}

/* The tiled result, wherever the last live pass left it, into the caller's
   buffers: the only kernel of the tiled layout that writes them. */
__kernel void sort_copy(__global KT *keys, __global VT *vals, __global const KT *ak,
                        __global const VT *av, ulong koff, ulong voff, ulong n,
                        __global const ulong *plan)
{
    ulong from = plan[PLAN_FINAL];
    if (from == 0)
        return;
    __global const KT *sk = from == 1 ? ak : ak + n;
    __global const VT *sv = from == 1 ? av : av + n;
    for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) {
        keys[koff + j] = sk[j];
#if VAL_BYTES
        vals[voff + j] = sv[j];
#endif
    }
}
#endif /* !CHUNKED */
