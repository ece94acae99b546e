/*
 * radix.cl - what the radix sorts share (kernels/sort.cl, kernels/segsort.cl):
 * the key types, the key transform that orders every key type by unsigned
 * comparison of its bits, and the group collectives that rank keys by one
 * digit stably (a warp of 32 items at a time; on NVIDIA by ballots, or by
 * __local peer masks with SORT_MATCH) and scan one value per item.
 * Prepended to those programs by lib/program.c.
 *
 * Keys move as raw bits (KT); digits are taken from transformed bits:
 * x ^ (top bit of x ? m1 : m0), masks from the host (gpgpu__sort_masks), so one
 * program serves every key type of a width, both orders, and floats by
 * totalOrder without any floating-point arithmetic.
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
#ifndef SORT_MATCH
#define SORT_MATCH 0        /* NVIDIA: rank through __local masks, not ballots */
#endif
#if !NV_PTX
#undef SORT_MATCH
#define SORT_MATCH 0
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

inline KT sort_xf(KT x, KT m0, KT m1)
{
    return x ^ ((x >> (KEY_BITS - 1)) ? m1 : m0);
}

inline uint sort_digit(KT x, uint d)
{
    return (uint)(x >> (d * RADIX_BITS)) & (RADIX - 1);
}

/* Scan and ranking space: warp totals with shuffles, two words per item
   without. */
#if NV_PTX
#define SORT_LX (TILE_WG / 32)
#else
#define SORT_LX (2 * TILE_WG)
#endif

/* The in-tile ranking works per warp of 32 items: item lane of warp w
   handles keys w * 32 * TILE_ITEMS + i * 32 + lane (i = 0 .. TILE_ITEMS-1),
   so the tile's order is (warp, i, lane) and loads stay coalesced. */
#define SORT_WARPS (TILE_WG / 32)

#if NV_PTX
/* Exclusive scan of one value per item over the group (TILE_WG items);
   *total gets the sum. Every item must call it; ls (SORT_WARPS words) is
   not reused afterwards. Warps scan by shuffles: two barriers in all. */
inline uint sort_wg_scan(uint x, __local uint *ls, uint *total)
{
    uint lid = get_local_id(0), lane = lid % 32, w = lid / 32, inc = x, before = 0, all = 0;
    for (uint off = 1; off < 32; off <<= 1) {
        uint y = nv_shfl_up(inc, off);
        if (lane >= off)
            inc += y;
    }
    if (lane == 31)
        ls[w] = inc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint u = 0; u < SORT_WARPS; u++) {
        uint c = ls[u];
        before += u < w ? c : 0;
        all += c;
    }
    *total = all;
    return before + inc - x;
}
#else
/* The same through __local memory (ls: TILE_WG words). */
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
#endif

/* The (warp, digit) counters lc[w * RADIX + v]: the leaders of one ballot
   round hold different digits, so their updates fall in different banks. */
#if NV_PTX
/* Keys of warp w with digit v before this one (in lane order) plus those of
   earlier calls: one ballot per digit bit finds the lanes with the same
   digit (the match.any instruction is much slower), their highest lane
   adds their number to the (w, v) counter and hands the old value to the
   others. v == RADIX (no key) takes part but counts nowhere. */
inline uint sort_rank(uint v, uint lane, uint w, __local uint *lc, __local uint *lx)
{
    uint m = nv_ballot(v < RADIX), pre = 0;
    if (v == RADIX)
        m = ~m;
    for (uint b = 0; b < RADIX_BITS; b++) {
        uint bit = (v >> b) & 1, votes = nv_ballot(bit);
        m &= bit ? votes : ~votes;
    }
    uint leader = 31 - clz(m);
    if (lane == leader && v < RADIX)
        pre = atomic_add(&lc[w * RADIX + v], popcount(m));
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(pre) : "r"(pre), "r"(leader));
    return pre + popcount(m & ((1u << lane) - 1));
}

/* SORT_MATCH: the same ranking with the lanes of one digit found through
   __local memory instead of RADIX_BITS ballots: each lane ORs its bit into
   its warp's mask word of its digit (lm: RADIX words per warp, zero between
   calls), so that one load gives every lane its peers; the leader takes the
   (warp, digit) counter forward and clears the word. */
#if SORT_MATCH
inline void sort_warp_sync(void)
{
    asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}

inline uint sort_rank_match(uint v, uint lane, uint w, __local uint *lc, __local uint *lm)
{
    __local uint *mine = lm + w * RADIX;
    if (v < RADIX)
        atomic_or(&mine[v], 1u << lane);
    sort_warp_sync();
    uint m = v < RADIX ? mine[v] : 1u << lane;
    uint leader = 31 - clz(m), pre = 0;
    sort_warp_sync();
    if (lane == leader && v < RADIX) {
        pre = lc[w * RADIX + v];
        lc[w * RADIX + v] = pre + popcount(m);
        mine[v] = 0;
    }
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(pre) : "r"(pre), "r"(leader));
    sort_warp_sync();
    return pre + popcount(m & ((1u << lane) - 1));
}
#endif
#else
/* The same through __local memory and group barriers (every item calls it
   the same number of times; lx: 2 * TILE_WG words). */
inline uint sort_rank(uint v, uint lane, uint w, __local uint *lc, __local uint *lx)
{
    uint lid = get_local_id(0), m = 0;
    __local uint *ld = lx, *lb = lx + TILE_WG;
    ld[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < 32; j++)
        m |= (uint)(ld[w * 32 + j] == v) << j;
    uint leader = 31 - clz(m);
    if (lane == leader) {
        uint pre = v < RADIX ? lc[w * RADIX + v] : 0;
        if (v < RADIX)
            lc[w * RADIX + v] = pre + popcount(m);
        lb[lid] = pre;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return lb[w * 32 + leader] + popcount(m & ((1u << lane) - 1));
}
#endif
