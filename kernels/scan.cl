/*
 * scan.cl - prefix scan of T under COMBINE (common.cl), in tiles of
 * WG * SCAN_ITEMS elements. Each work item owns SCAN_ITEMS consecutive
 * elements of its tile and scans them serially; the work items' totals are
 * scanned across the group in __local memory.
 *
 * Where a work item's elements live while it works on them is the plan's
 * CHUNKED choice:
 *   CHUNKED=1 (CPUs)  in the caller's buffers: each item reads and writes one
 *                     contiguous chunk, which the second read finds in cache;
 *   CHUNKED=0 (GPUs)  in a __local copy of the tile, loaded and stored with
 *                     coalesced accesses and padded so that the items' strided
 *                     reads hit distinct banks.
 *
 * Two ways across tiles, chosen by the host:
 *   multi-pass   scan_reduce_tiles writes each tile's total, the totals are
 *                scanned (recursively, by the same kernels), scan_tiles scans
 *                each tile seeded with its scanned total: ~3n words moved;
 *   single-pass  scan_single: tiles take ids from an atomic ticket, publish
 *                their total and prefix, and look back over predecessors for
 *                their own prefix (decoupled look-back): ~2n words moved.
 *                No tile waits unboundedly for another, and float
 *                results do not depend on timing (see look_back).
 *
 * Every combination keeps its operands in index order (left operand first),
 * so associative operators need not be commutative.
 */

#ifndef SCAN_ITEMS
#define SCAN_ITEMS 8        /* consecutive elements per work item */
#endif

#ifndef SCAN_TICKET
#define SCAN_TICKET 1       /* scan_lookback: tiles by ticket, else by group id */
#endif

#ifndef SCAN_SPIN
#define SCAN_SPIN 65536     /* polls of a silent predecessor before working
                               round it */
#endif

#ifndef SCAN_LANES
#define SCAN_LANES 8        /* independent chains per work item (floats) */
#endif

#define SCAN_TILE (WG * SCAN_ITEMS)

#if CHUNKED
#define TS __global
#define TILE_AT(i) (i)
#else
#define TS __local
#define TILE_AT(i) ((i) + (i) / 32)   /* one pad word per 32: no bank conflicts */
#endif

/* Elements of the last, partial tile that belong to work item lid. */
static inline uint item_count(uint len, uint lid)
{
    uint first = lid * SCAN_ITEMS;
    return first >= len ? 0 : min((uint)SCAN_ITEMS, len - first);
}

/* Float combines take several cycles and may not be reordered by the
   compiler, so for floats a work item keeps SCAN_LANES independent chains:
   its reduce folds SCAN_LANES consecutive stretches side by side, then
   combines them in order; its scan goes in blocks of SCAN_LANES whose own
   prefixes do not wait for the running total. The order stays fixed by the
   layout alone, and operands stay in index order. */
static inline T item_reduce(const TS T *x, uint first, uint count)
{
    T acc = IDENTITY;
    uint k = 0;
#if T_IS_FLOAT
    uint len = count / SCAN_LANES;
    T lane[SCAN_LANES];
#pragma unroll
    for (uint l = 0; l < SCAN_LANES; ++l)
        lane[l] = IDENTITY;
    for (uint i = 0; i < len; ++i)
#pragma unroll
        for (uint l = 0; l < SCAN_LANES; ++l)
            lane[l] = COMBINE(lane[l], x[TILE_AT(first + l * len + i)]);
#pragma unroll
    for (uint l = 0; l < SCAN_LANES; ++l)
        acc = COMBINE(acc, lane[l]);
    k = SCAN_LANES * len;
#endif
    for (; k < count; ++k)
        acc = COMBINE(acc, x[TILE_AT(first + k)]);
    return acc;
}

/* y = scan of x seeded with acc; x and y may be the same memory. */
static inline void item_scan(const TS T *x, TS T *y, uint first, uint count, T acc, int inclusive)
{
    uint k = 0;
#if T_IS_FLOAT
    for (; k + SCAN_LANES <= count; k += SCAN_LANES) {
        T p[SCAN_LANES];
        p[0] = x[TILE_AT(first + k)];
#pragma unroll
        for (uint j = 1; j < SCAN_LANES; ++j)
            p[j] = COMBINE(p[j - 1], x[TILE_AT(first + k + j)]);
#pragma unroll
        for (uint j = 0; j < SCAN_LANES; ++j)
            y[TILE_AT(first + k + j)] = inclusive ? COMBINE(acc, p[j])
                                        : j ? COMBINE(acc, p[j - 1]) : acc;
        acc = COMBINE(acc, p[SCAN_LANES - 1]);
    }
#endif
    if (inclusive) {
        for (; k < count; ++k) {
            acc = COMBINE(acc, x[TILE_AT(first + k)]);
            y[TILE_AT(first + k)] = acc;
        }
    } else {
        for (; k < count; ++k) {
            T v = x[TILE_AT(first + k)];
            y[TILE_AT(first + k)] = acc;
            acc = COMBINE(acc, v);
        }
    }
}

/* The tile in[0 .. len) coalesced into tile[] (full tiles without bounds
   checks), then a barrier. */
static inline void tile_load(__global const T *in, uint len, __local T *tile, uint lid)
{
    if (len == SCAN_TILE) {
#pragma unroll
        for (uint j = 0; j < SCAN_ITEMS; ++j)
            tile[TILE_AT(j * WG + lid)] = in[j * WG + lid];
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j)
            if (j * WG + lid < len)
                tile[TILE_AT(j * WG + lid)] = in[j * WG + lid];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* A barrier, then tile[] back to out[0 .. len), coalesced. */
static inline void tile_store(__global T *out, uint len, __local const T *tile, uint lid)
{
    barrier(CLK_LOCAL_MEM_FENCE);
    if (len == SCAN_TILE) {
#pragma unroll
        for (uint j = 0; j < SCAN_ITEMS; ++j)
            out[j * WG + lid] = tile[TILE_AT(j * WG + lid)];
    } else {
        for (uint j = 0; j < SCAN_ITEMS; ++j)
            if (j * WG + lid < len)
                out[j * WG + lid] = tile[TILE_AT(j * WG + lid)];
    }
}

/* This work item's total over its elements of the tile in[0 .. len). On a
   GPU the tile is first copied to tile[] (full tiles without bounds checks). */
static inline T tile_item_total(__global const T *in, uint len, __local T *tile)
{
    uint lid = get_local_id(0);
#if CHUNKED
    const TS T *x = in;
#else
    tile_load(in, len, tile, lid);
    const TS T *x = tile;
#endif
    if (len == SCAN_TILE)
        return item_reduce(x, lid * SCAN_ITEMS, SCAN_ITEMS);
    return item_reduce(x, lid * SCAN_ITEMS, item_count(len, lid));
}

/* Scans this work item's elements of the tile seeded with acc into out. */
static inline void tile_item_scan(__global const T *in, __global T *out, uint len, T acc,
                           int inclusive, __local T *tile)
{
    uint lid = get_local_id(0);
#if CHUNKED
    if (len == SCAN_TILE)
        item_scan(in, out, lid * SCAN_ITEMS, SCAN_ITEMS, acc, inclusive);
    else
        item_scan(in, out, lid * SCAN_ITEMS, item_count(len, lid), acc, inclusive);
#else
    if (len == SCAN_TILE)
        item_scan(tile, tile, lid * SCAN_ITEMS, SCAN_ITEMS, acc, inclusive);
    else
        item_scan(tile, tile, lid * SCAN_ITEMS, item_count(len, lid), acc, inclusive);
    tile_store(out, len, tile, lid);
#endif
}

/* Inclusive scan of the work items' x across the group into sums[] (log2(WG)
   steps); returns the exclusive value for this item. sums[WG - 1] ends as
   the group's total. */
static inline T group_scan(T x, __local T *sums)
{
    uint lid = get_local_id(0);
    sums[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < WG; d <<= 1) {
        T v = lid >= d ? COMBINE(sums[lid - d], x) : x;
        barrier(CLK_LOCAL_MEM_FENCE);
        sums[lid] = x = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return lid ? sums[lid - 1] : IDENTITY;
}

static inline uint tile_len(ulong n, uint tile)
{
    return (uint)min((ulong)SCAN_TILE, n - (ulong)tile * SCAN_TILE);
}

#if CHUNKED
#define TILE_LOCAL(name)
#define TILE_ARG NULL
#else
#define TILE_LOCAL(name) __local T name[TILE_AT(SCAN_TILE)]
#define TILE_ARG tile
#endif

/* Multi-pass, first pass: totals[g] = the total of tile g. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_reduce_tiles(__global const T *in, ulong in_off, ulong n, __global T *totals,
                       ulong totals_off)
{
    __local T sums[WG];
    TILE_LOCAL(tile);
    uint g = get_group_id(0);
    __global const T *src = in + in_off + (ulong)g * SCAN_TILE;
    group_scan(tile_item_total(src, tile_len(n, g), TILE_ARG), sums);
    if (get_local_id(0) == 0)
        totals[totals_off + g] = sums[WG - 1];
}

/* Multi-pass, last pass (and the whole scan when n fits one tile): scans
   tile g seeded with seeds[seeds_off + g * seeds_stride] when has_seed. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_tiles(__global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n,
                int inclusive, __global const T *seeds, ulong seeds_off, uint seeds_stride,
                int has_seed)
{
    __local T sums[WG];
    TILE_LOCAL(tile);
    uint g = get_group_id(0);
    ulong base = (ulong)g * SCAN_TILE;
    uint len = tile_len(n, g);
    T excl = group_scan(tile_item_total(in + in_off + base, len, TILE_ARG), sums);
    T seed = has_seed ? seeds[seeds_off + (ulong)g * seeds_stride] : IDENTITY;
    tile_item_scan(in + in_off + base, out + out_off + base, len, COMBINE(seed, excl),
                   inclusive, TILE_ARG);
}

/* Single-pass state per tile: flags[1 + t] says what tile t has published in
   vals[]: its total (FLAG_TOTAL, slot 2t) or its inclusive prefix
   (FLAG_PREFIX, slot 2t + 1). flags[0] is the ticket counter; vals follows
   the flags from the next even word (8-byte aligned). All zero at launch.
   Each slot is written once: the value, a fence, then its flag; a reader
   that sees the flag and fences sees the value. Every access to this state
   is a 32-bit atomic (a value goes word by word), so that no group's plain
   load races with another's store (OpenCL 1.2 has no atomic load: an
   atomic_or of 0 reads). Only lid 0 touches it, a few times per tile. */
#define FLAG_TOTAL 1u
#define FLAG_PREFIX 2u

/* A value as the 32-bit words its atomics move. */
#if TYPE_ID <= 2
#define T_WORDS 1
#define TO_WORDS(v) as_uint(v)
#else
#define T_WORDS 2
#define TO_WORDS(v) as_uint2(v)
#endif
#if TYPE_ID == 0
#define FROM_WORDS(w) as_int(w)
#elif TYPE_ID == 1
#define FROM_WORDS(w) as_uint(w)
#elif TYPE_ID == 2
#define FROM_WORDS(w) as_float(w)
#elif TYPE_ID == 3
#define FROM_WORDS(w) as_long(w)
#elif TYPE_ID == 4
#define FROM_WORDS(w) as_ulong(w)
#else
#define FROM_WORDS(w) as_double(w)
#endif

static inline void publish(__global uint *flags, __global uint *vals, uint t, uint flag, T v)
{
    __global uint *slot = vals + (2 * t + (flag == FLAG_PREFIX)) * T_WORDS;
#if T_WORDS == 2
    uint2 w = TO_WORDS(v);
    atomic_xchg(&slot[0], w.x);
    atomic_xchg(&slot[1], w.y);
#else
    atomic_xchg(&slot[0], TO_WORDS(v));
#endif
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    atomic_xchg(&flags[1 + t], flag);
}

/* Waits until tile t has published at least `need`, polling at most
   `polls` times; returns what it has (0: nothing yet). */
static inline uint poll_flag(__global uint *flags, uint t, uint need, uint polls)
{
    uint f = atomic_or(&flags[1 + t], 0u);
    for (uint i = 0; f < need && i < polls; ++i)
        f = atomic_or(&flags[1 + t], 0u);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    return f;
}

/* The value tile k published with flag f. */
static inline T published(__global uint *vals, uint k, uint f)
{
    __global uint *slot = vals + (2 * k + (f == FLAG_PREFIX)) * T_WORDS;
#if T_WORDS == 2
    uint lo = atomic_or(&slot[0], 0u), hi = atomic_or(&slot[1], 0u);
    return FROM_WORDS((uint2)(lo, hi));
#else
    return FROM_WORDS(atomic_or(&slot[0], 0u));
#endif
}

/* The total of full tile k computed by this work item alone. On a CPU it is
   bit for bit what tile k's group computes (each item's item_reduce, then
   group_scan's balanced tree, rebuilt here as a binary counter). On a GPU it
   is a plain fold: only integer types scan single-pass there (scan.c). */
static inline T tile_total_alone(__global const T *x)
{
#if CHUNKED
    T stack[16];
    uint top = 0;
    for (uint i = 0; i < WG; ++i) {
        T v = item_reduce(x, i * SCAN_ITEMS, SCAN_ITEMS);
        for (uint c = i + 1; (c & 1) == 0; c >>= 1)
            v = COMBINE(stack[--top], v);
        stack[top++] = v;
    }
    return stack[0];
#else
    T acc = IDENTITY;
    for (uint k = 0; k < SCAN_TILE; ++k)
        acc = COMBINE(acc, x[k]);
    return acc;
#endif
}

/* What tile k has published (its total, or FLAG_PREFIX and its inclusive
   prefix) into *v, polling up to `polls` times. A tile still silent then
   has its total computed here from its input (returns 0), so that no tile
   ever depends on another making progress. The flag is read again after
   that: a tile that published meanwhile may already have overwritten its
   input (in place), and then its published value is used. */
static inline uint fetch(__global uint *flags, __global uint *vals, __global const T *in,
                         uint k, uint polls, T *v)
{
    uint f = poll_flag(flags, k, FLAG_TOTAL, polls);
    if (f == 0) {
        *v = tile_total_alone(in + (ulong)k * SCAN_TILE);
        f = poll_flag(flags, k, FLAG_TOTAL, 0);
        if (f == 0)
            return 0;
    }
    *v = published(vals, k, f);
    return f;
}

/* The prefix of everything before tile t (t > 0), seed included. Walks back
   to the nearest tile j with a published inclusive prefix (or to tile 0),
   then folds the totals of tiles j+1 .. t-1 onto it left to right. That is
   exactly the strict chain prefix(k+1) = prefix(k) op total(k+1), so float
   results do not depend on which tiles had published when: they are the
   same bits on every run. */
static inline T look_back(__global uint *flags, __global uint *vals, __global const T *in,
                          uint t, T total, T seed)
{
    publish(flags, vals, t, FLAG_TOTAL, total);
    uint j = t - 1, f;
    T v;
    while ((f = fetch(flags, vals, in, j, SCAN_SPIN, &v)) != FLAG_PREFIX && j > 0)
        --j;
    /* Tile 0 publishes only its prefix: without it, v is its total. */
    T prefix = f == FLAG_PREFIX ? v : COMBINE(seed, v);
    for (uint k = j + 1; k < t; ++k) {
        f = fetch(flags, vals, in, k, 0, &v);
        prefix = f == FLAG_PREFIX ? v : COMBINE(prefix, v);
    }
    return prefix;
}

/* Single pass over all tiles; see above. seed[seed_off] (when has_seed) is
   combined on the left of every output. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_single(__global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n,
                 int inclusive, __global const T *seed, ulong seed_off, int has_seed,
                 __global uint *flags)
{
    __global uint *vals = flags + ((uint)((n + SCAN_TILE - 1) / SCAN_TILE + 2) & ~1u);
    __local T sums[WG];
    __local uint ticket;
    __local T prefix;
    TILE_LOCAL(tile);
    uint lid = get_local_id(0);
    if (lid == 0)
        ticket = atomic_inc(&flags[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint t = ticket;
    ulong base = (ulong)t * SCAN_TILE;
    uint len = tile_len(n, t);
    T excl = group_scan(tile_item_total(in + in_off + base, len, TILE_ARG), sums);
    if (lid == 0) {
        T p = has_seed ? seed[seed_off] : IDENTITY;
        if (t > 0)
            p = look_back(flags, vals, in + in_off, t, sums[WG - 1], p);
        publish(flags, vals, t, FLAG_PREFIX, COMBINE(p, sums[WG - 1]));
        prefix = p;
    }
    /* The global fence keeps this tile's writes after its published prefix,
       which a successor's look-back relies on when the scan is in place. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    tile_item_scan(in + in_off + base, out + out_off + base, len, COMBINE(prefix, excl),
                   inclusive, TILE_ARG);
}

/* ---- single pass on GPUs: integers, decoupled look-back ------------------ */
#if !CHUNKED && !T_IS_FLOAT

/* scan_lookback: each group takes a tile id from a ticket (status[0]'s low
   word), scans its tile in registers and __local memory, and finds the
   prefix of everything before it from one 64-bit status word per earlier
   tile: flag << 32 | the value's bits, flag LB_AGG (the tile's total) or
   LB_INC (its inclusive prefix, seed included), 0 while silent. Flag and
   value travel in one word, so one load sees both. Integer operators are
   exact, so the prefix may be gathered from totals and prefixes in any
   grouping (floats keep the multi-pass scan on GPUs). A tile waits for
   predecessors that have taken their ticket and therefore run: a group
   that has started is resident, the co-scheduling that every decoupled
   look-back (and sort.cl's) relies on.
   On NVIDIA the first warp looks back over 32 predecessors at a time
   (one load per lane, ballots, a shuffle tree); elsewhere item 0 walks
   back one tile at a time. */
#define LB_AGG (1ul << 32)
#define LB_INC (2ul << 32)
#define LB_FLAGS (3ul << 32)
#if NV_PTX
#define LB_LANES 32
#else
#define LB_LANES 1
#endif

#if NV_PTX && T_WORDS == 2
inline T lb_shfl_up(T x, uint off)
{
    uint2 w = TO_WORDS(x);
    return FROM_WORDS((uint2)(nv_shfl_up(w.x, off), nv_shfl_up(w.y, off)));
}
inline T lb_shfl_down(T x, uint off)
{
    uint2 w = TO_WORDS(x);
    return FROM_WORDS((uint2)(nv_shfl_down(w.x, off), nv_shfl_down(w.y, off)));
}
#elif NV_PTX
inline T lb_shfl_up(T x, uint off)
{
    return FROM_WORDS(nv_shfl_up(TO_WORDS(x), off));
}
inline T lb_shfl_down(T x, uint off)
{
    return FROM_WORDS(nv_shfl_down(TO_WORDS(x), off));
}
#endif

#if T_WORDS == 2
/* 64-bit integers: a tile's value does not fit beside its flag, so its
   status word holds only the flag (LB_AGG or LB_INC), and the values go
   to their own words (val[2 t] the total, val[2 t + 1] the inclusive
   prefix, each written once) before it, a fence between; a reader that
   sees the flag fences, then loads the value it names. */
inline void lb_publish(__global ulong *st, __global ulong *val, uint t, ulong flag, T v)
{
    status_store(&val[2 * t + (flag == LB_INC)], (ulong)v);
    gpu_fence();
    status_store(&st[t], flag);
}

inline T lb_value(__global ulong *val, uint k, ulong s)
{
    gpu_fence();
    return (T)status_load(&val[2 * k + ((s & LB_FLAGS) == LB_INC)]);
}
#else
inline ulong lb_word(ulong flag, T v)
{
    return flag | TO_WORDS(v);
}

inline void lb_publish(__global ulong *st, __global ulong *val, uint t, ulong flag, T v)
{
    (void)val;
    status_store(&st[t], lb_word(flag, v));
}

inline T lb_value(__global ulong *val, uint k, ulong s)
{
    (void)val;
    (void)k;
    return FROM_WORDS((uint)s);
}
#endif

#if NV_PTX
/* Exclusive scan of one value per item over the group; *total gets the
   group's total. Warps scan by shuffles, then combine the warps' totals
   (ws: WG / 32 words) in order: one barrier. */
inline T lb_group_scan(T x, __local T *ws, T *total)
{
    uint lid = get_local_id(0), lane = lid % 32, w = lid / 32;
    T inc = x;
    for (uint off = 1; off < 32; off <<= 1) {
        T y = lb_shfl_up(inc, off);
        if (lane >= off)
            inc = COMBINE(y, inc);
    }
    T ex = lb_shfl_up(inc, 1);
    if (lane == 31)
        ws[w] = inc;
    barrier(CLK_LOCAL_MEM_FENCE);
    T before = IDENTITY, all = IDENTITY;
    for (uint u = 0; u < WG / 32; u++) {
        T c = ws[u];
        before = u < w ? COMBINE(before, c) : before;
        all = COMBINE(all, c);
    }
    *total = all;
    return lane ? COMBINE(before, ex) : before;
}

#ifndef SCAN_LB
#define SCAN_LB 1
#endif
/* The prefix of the tiles before t (t > 0), on lane 0 of the first warp
   (every lane of it calls). Each round reads SCAN_LB windows of 32 tiles
   with one load per lane and window, all in flight at once: window j, lane
   l reads tile k - 32 j - l (k = the newest tile not yet folded). The
   windows' values up to the nearest inclusive prefix are folded by a
   shuffle tree, earlier tiles on the left. A tile's inclusive prefix can
   only appear once its predecessor's look-back has seen one, so the
   published prefixes advance by at most the tiles one round can see per
   memory round trip: wide rounds (and big tiles) keep that front ahead of
   the bandwidth. SCAN_LB = 1 is one window a round. */
/* A window of status words, none of them silent: lane l holds tile k - l's
   word s, lanes from count on none. Folds the values up to the nearest
   inclusive prefix (earlier tiles on the left) into lane 0's result, and
   says in *found whether there was one. */
inline T lb_fold(__global ulong *val, int k, uint lane, uint count, ulong s, uint *found)
{
    uint incs = nv_ballot(lane < count && (s & LB_FLAGS) == LB_INC);
    uint last = incs ? 31 - clz(incs & (0u - incs)) : count - 1;
    T v = lane <= last ? lb_value(val, (uint)(k - (int)lane), s) : IDENTITY;
    for (uint off = 1; off < 32; off <<= 1) {
        T o = lb_shfl_down(v, off);
        if (lane + off < 32)
            v = COMBINE(o, v);
    }
    *found = incs != 0;
    return v;
}

inline T lb_look_back(__global ulong *st, __global ulong *val, uint t, uint lane)
{
    T acc = IDENTITY;
    for (int k = (int)t - 1;; k -= 32 * SCAN_LB) {
        ulong s[SCAN_LB];
        uint silent;
#pragma unroll
        for (uint j = 0; j < SCAN_LB; j++) {
            int mine = k - (int)(32 * j + lane);
            s[j] = mine >= 0 ? status_load(&st[mine]) : LB_INC;
        }
        do {
            silent = 0;
#pragma unroll
            for (uint j = 0; j < SCAN_LB; j++)
                if (!(s[j] & LB_FLAGS)) {
                    s[j] = status_load(&st[k - (int)(32 * j + lane)]);
                    silent |= !(s[j] & LB_FLAGS);
                }
        } while (nv_ballot(silent));
#pragma unroll
        for (uint j = 0; j < SCAN_LB; j++) {
            int first = k - (int)(32 * j); /* tile 0, inclusive, ends every walk */
            uint found, count = (uint)clamp(first + 1, 0, 32);
            acc = COMBINE(lb_fold(val, first, lane, count, s[j], &found), acc);
            if (found)
                return acc;
        }
    }
}

#ifndef SCAN_BLOCKS
#define SCAN_BLOCKS 1
#endif
#if T_WORDS == 2
#undef SCAN_BLOCKS
#define SCAN_BLOCKS 0 /* the blocks' words hold their value beside the flag */
#endif
#if SCAN_BLOCKS
/* Blocks of 32 tiles: the look-back's long walks go 32 blocks (1024
   tiles) a round instead of 32 tiles. While memory is saturated a
   round's loads take microseconds, and the tiles between a tile and the
   nearest inclusive prefix are many: walked 32 at a time, they, not the
   tile's own work, set the pace of big scans (docs/performance.md has
   the figures). Block b's status word (bst[b]) is
   written by the last of its tiles to publish: it folds the block's 32
   tile words, LB_INC if one of them is (from the nearest inclusive
   prefix on), else the block's total; the block's last tile later
   upgrades it to the block's inclusive prefix. Either value is true
   whenever it is read, so a late write of the total costs only speed.
   Block 0 always ends inclusive (tile 0 publishes its prefix first). */
inline uint lb_shfl_idx(uint x, uint from)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(from));
    return r;
}

/* Tile t has published its status word: it counts itself into its block,
   and the block's last tile to arrive writes the block's word (the last
   block is never read). Every lane of the first warp calls. */
inline void lb_block_arrive(__global ulong *st, __global ulong *bst, __global uint *bcnt,
                            uint t, uint tiles, uint lane)
{
    uint b = t / 32, first = b * 32, c = 0;
    if (first + 32 >= tiles)
        return;
    if (lane == 0) {
        gpu_fence();
        c = atomic_inc(&bcnt[b]);
    }
    if (lb_shfl_idx(c, 0) != 31)
        return;
    gpu_fence();
    ulong s = status_load(&st[first + lane]);
    uint incs = nv_ballot((s & LB_FLAGS) == LB_INC);
    uint from = incs ? 31 - clz(incs) : 0;
    T v = lane >= from ? FROM_WORDS((uint)s) : IDENTITY;
    for (uint off = 1; off < 32; off <<= 1) {
        T o = lb_shfl_down(v, off);
        if (lane + off < 32)
            v = COMBINE(v, o);
    }
    if (lane == 0)
        status_store(&bst[b], lb_word(incs ? LB_INC : LB_AGG, v));
}

/* The prefix of the tiles before t (t > 0), on lane 0: the tiles of its
   own block before it (one window), then whole blocks. */
inline T lb_look_back_blocks(__global ulong *st, __global ulong *bst, uint t, uint lane)
{
    uint b = t / 32, before = t - b * 32;
    T acc = IDENTITY;
    if (before) {
        int mine = lane < before;
        ulong s = mine ? status_load(&st[t - 1 - lane]) : LB_AGG;
        for (;;) {
            uint silent = !(s & LB_FLAGS);
            if (!nv_ballot(silent))
                break;
            if (silent)
                s = status_load(&st[t - 1 - lane]);
        }
        uint found;
        acc = lb_fold(NULL, (int)t - 1, lane, before, s, &found);
        if (found)
            return acc;
    }
    return COMBINE(lb_look_back(bst, NULL, b, lane), acc);
}
#endif
#else
/* The same one tile at a time, by item 0. */
inline T lb_look_back(__global ulong *st, __global ulong *val, uint t, uint lane)
{
    T acc = IDENTITY;
    (void)lane;
    for (uint k = t; k > 0;) {
        ulong s = status_load(&st[k - 1]);
        if (!(s & LB_FLAGS))
            continue;
        acc = COMBINE(lb_value(val, k - 1, s), acc);
        if ((s & LB_FLAGS) == LB_INC)
            break;
        k--;
    }
    return acc;
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_lookback(__global const T *in, ulong in_off, __global T *out, ulong out_off, ulong n,
                   int inclusive, __global const T *seed, ulong seed_off, int has_seed,
                   __global ulong *status, uint clean, ulong state_words)
{
    __local T tile[TILE_AT(SCAN_TILE)];
#if NV_PTX
    __local T sums[WG / 32];
#else
    __local T sums[WG];
#endif
    __local uint ticket;
    __local T prefix;
    __global ulong *st = status + 1;
    uint lid = get_local_id(0);
    uint tiles = (uint)((n + SCAN_TILE - 1) / SCAN_TILE);
    __global ulong *val = st + tiles; /* 64-bit values: two words a tile */
#if NV_PTX && SCAN_BLOCKS
    uint blocks = (tiles + 31) / 32;
    __global ulong *bst = st + tiles;
    __global uint *bcnt = (__global uint *)(bst + blocks);
#endif
#if SCAN_TICKET
    if (lid == 0)
        ticket = atomic_inc((__global uint *)status);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint t = ticket;
#else
    /* By group id: the loads start at once, without the ticket's round
       trip; safe where groups start in id order (so every predecessor of
       a running group has started). */
    uint t = get_group_id(0);
    (void)ticket;
#endif
    ulong base = (ulong)t * SCAN_TILE;
    uint len = tile_len(n, t);
    in += in_off + base;
    out += out_off + base;

    /* The tile: coalesced into __local memory, then each item's
       SCAN_ITEMS consecutive elements into registers. */
    tile_load(in, len, tile, lid);
    T x[SCAN_ITEMS], acc = IDENTITY;
    uint first = lid * SCAN_ITEMS;
#pragma unroll
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        x[j] = first + j < len ? tile[TILE_AT(first + j)] : IDENTITY;
        acc = COMBINE(acc, x[j]);
    }
    T total;
#if NV_PTX
    T excl = lb_group_scan(acc, sums, &total);
#else
    T excl = group_scan(acc, sums);
    total = sums[WG - 1];
#endif

    /* This tile's total goes out at once for later tiles' look-back; its
       inclusive prefix once the look-back has found what comes before.
       Tile 0's prefix is the seed, and its successors' look-backs end at
       (or pass through) its LB_INC, so theirs hold the seed once. */
    if (lid < LB_LANES) {
        T p;
        if (t == 0) {
            p = has_seed ? seed[seed_off] : IDENTITY;
            if (lid == 0)
                lb_publish(st, val, t, LB_INC, COMBINE(p, total));
#if NV_PTX && SCAN_BLOCKS
            lb_block_arrive(st, bst, bcnt, t, tiles, lid);
#endif
        } else {
            if (lid == 0)
                lb_publish(st, val, t, LB_AGG, total);
#if NV_PTX && SCAN_BLOCKS
            lb_block_arrive(st, bst, bcnt, t, tiles, lid);
            p = lb_look_back_blocks(st, bst, t, lid);
#else
            p = lb_look_back(st, val, t, lid);
#endif
        }
        if (lid == 0) {
            if (t)
                lb_publish(st, val, t, LB_INC, COMBINE(p, total));
#if NV_PTX && SCAN_BLOCKS
            if (t % 32 == 31)
                status_store(&bst[t / 32], lb_word(LB_INC, COMBINE(p, total)));
#endif
            prefix = p;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* clean: the state's state_words are left zero for the next call (which
       then needs no fill first). The last group past its look-back counts
       itself in status[0]'s high half; every other group's look-back is
       over, so it zeroes every word. The barrier is outside any `if
       (clean)`: PoCL 3.1 ran a uniform barrier inside one wrongly here,
       and the tiles' stores went to wild addresses of host memory. */
    if (lid == 0) {
        gpu_fence();
        ticket = clean && atomic_inc((__global uint *)status + 1) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ticket) {
        gpu_fence();
        for (uint i = lid; i < state_words; i += WG)
            status_store(status + i, 0);
    }

    /* Scan the item's elements from its start into the tile, then out. */
    acc = COMBINE(prefix, excl);
#pragma unroll
    for (uint j = 0; j < SCAN_ITEMS; ++j) {
        T y = COMBINE(acc, x[j]);
        if (first + j < len)
            tile[TILE_AT(first + j)] = inclusive ? y : acc;
        acc = y;
    }
    tile_store(out, len, tile, lid);
}
#endif
