/*
 * sort.cl - stable radix sort of 32- or 64-bit keys, optionally carrying 4- or
 * 8-byte values.
 *
 * Keys move as raw bits (KT), their digits taken from transformed bits
 * (kernels/radix.cl, prepended, holds the transform and the in-tile ranking).
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
 * Tiled layout (CHUNKED=0, GPUs): the same decisions, sort_bits also
 * counting every digit of every key (each pass's global digit starts), its
 * last group making the plan (sort_plan_make), then per live digit one LSD
 * pass over tiles of TILE keys:
 *   sort_tile_scatter counts its tile's digits and publishes the counts,
 *                     ranks each key in its tile by warp (on NVIDIA
 *                     by __local peer masks or ballots), finds the
 *                     tile's offsets by a decoupled look-back over
 *                     earlier tiles' digit counts, reorders the tile in
 *                     __local memory and writes it so that keys
 *                     of one digit go to consecutive addresses. The
 *                     passes go from the caller's buffer through scratch A
 *                     and B; the pass of the top digit, the call's last
 *                     command, writes the result home (a copy when that
 *                     digit is not live: sort_route)
 */

#ifndef CHUNKED
#define CHUNKED 1
#endif
#ifndef TILE_ITEMS
#define TILE_ITEMS 8
#endif

#define TILE (TILE_WG * TILE_ITEMS)

/* Plan layout (ulong words), written by sort_plan. */
#define PLAN_MSD 0           /* 1 + the MSD digit, 0: nothing to sort */
#define PLAN_LIVE 1          /* bit d: digit d differs between keys */
#define PLAN_START 2         /* RADIX bucket starts of the MSD digit */
#define PLAN_SIZE (2 + RADIX) /* RADIX bucket sizes */
#define PLAN_ROUTE (2 + 2 * RADIX) /* per digit: mode | src | dst << 2 */
#define PLAN_WORDS (PLAN_ROUTE + 17)
#define ROUTE_LIVE 16 /* the pass sorts src by its digit into dst */
#define ROUTE_COPY 32 /* the pass copies src to dst */
/* then chunk i's first output position per digit value: [i * RADIX + v] */

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
#endif

/* The digits that differ between keys (none when the keys are already in
   order), from the OR and AND of all keys and whether any descends. */
inline ulong sort_live_of(ulong some, ulong every, ulong descents)
{
    ulong live = 0;
    for (uint d = 0; d < DIGITS && descents; d++)
        if (sort_digit((KT)(some ^ every), d))
            live |= 1ul << d;
    return live;
}

/* The same from the bits of every chunk or group. */
inline ulong sort_live(__global const ulong *bits, uint nbits)
{
    ulong some = 0, every = ~0ul, descents = 0;
    for (uint i = 0; i < nbits; i++) {
        some |= bits[3 * i];
        every &= bits[3 * i + 1];
        descents |= bits[3 * i + 2];
    }
    return sort_live_of(some, every, descents);
}

/* The tiled layout's plan is made by the counting read's last group from
   what the other groups wrote: it reads their words atomically. */
#if CHUNKED
#define PLAN_BITS(p) (*(p))
#define PLAN_COUNT(p) (*(p))
#else
#define PLAN_BITS(p) status_load(p)
#define PLAN_COUNT(p) atomic_or((p), 0u)
#endif

/* The same, the RADIX items of a group sharing the reading (lr: 3 * RADIX
   words); every item gets the answer. */
inline ulong sort_live_group(__global ulong *bits, uint nbits, __local ulong *lr)
{
    uint v = get_local_id(0);
    ulong some = 0, every = ~0ul, descents = 0;
    for (uint i = v; i < nbits; i += RADIX) {
        some |= PLAN_BITS(&bits[3 * i]);
        every &= PLAN_BITS(&bits[3 * i + 1]);
        descents |= PLAN_BITS(&bits[3 * i + 2]);
    }
    lr[v] = some;
    lr[RADIX + v] = every;
    lr[2 * RADIX + v] = descents;
    for (uint width = RADIX / 2; width > 0; width /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (v < width) {
            lr[v] |= lr[v + width];
            lr[RADIX + v] &= lr[RADIX + v + width];
            lr[2 * RADIX + v] |= lr[2 * RADIX + v + width];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return sort_live_of(lr[0], lr[RADIX], lr[2 * RADIX]);
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

/* The tiled passes' buffers (0 the caller's, 1 A, 2 B). Only the pass of
   the top digit, the call's last command, writes the caller's buffer: the
   first live digit reads it, each live pass below the top writes A or B in
   turn, and the top pass sorts into the caller's buffer or, when its digit
   is not live, copies the result there. When the top digit is the only
   live one, pass 0 first copies the keys to A. So a failed call leaves the
   caller's keys and values as they were, and no extra copy is paid when
   the top digit is live (random keys). With VALS_WIDE the values' home
   is the wide output, which only the top pass writes, so keys already in
   order still take that pass: a copy of the keys onto themselves and of
   the values to their home. */
#ifndef VALS_WIDE
#define VALS_WIDE 0         /* sort_tile_scatter: values go home as ulongs (wide) */
#endif
#ifndef KEYS_KEPT
#define KEYS_KEPT 1         /* sort_tile_scatter: 0, the keys are not written home
                               (argsort: only the order is wanted, and the
                               caller's keys are read in place) */
#endif
#ifndef VALS_B_HOME
#define VALS_B_HOME 0       /* sort_tile_scatter: the values' B is their wide
                               home (8-byte indices past 2^32 keys: one buffer
                               of them fewer), so the live passes below the top
                               start at A or B such that the last of them
                               writes A, which the top pass (or the final copy)
                               then reads */
#endif
#if VALS_B_HOME && (!VALS_WIDE || VAL_BYTES != 8)
#error "VALS_B_HOME needs VALS_WIDE and 8-byte values"
#endif
inline void sort_route(__global ulong *plan, ulong live)
{
    const uint top = DIGITS - 1;
    ulong src = 0;
    for (uint d = 0; d < 16; d++)
        plan[PLAN_ROUTE + d] = 0;
    if (!live) { /* already in order: nothing moves */
        if (VALS_WIDE)
            plan[PLAN_ROUTE + top] = ROUTE_COPY | 0 | 0 << 2;
        return;
    }
    ulong first = 1; /* the alternate the first live pass writes */
    if (live == 1ul << top) {
        plan[PLAN_ROUTE] = ROUTE_COPY | 0 | 1 << 2;
        src = 1;
    } else if (VALS_B_HOME && popcount(live & ~(1ul << top)) % 2 == 0) {
        first = 2;
    }
    for (uint d = 0; d < DIGITS; d++) {
        if (!((live >> d) & 1))
            continue;
        ulong dst = d == top ? 0 : src == 0 ? first : 3 - src;
        plan[PLAN_ROUTE + d] = ROUTE_LIVE | src | dst << 2;
        src = dst;
    }
    if (src)
        plan[PLAN_ROUTE + top] = ROUTE_COPY | src | 0 << 2;
}

/* Exclusive prefix sums of `rows` rows of RADIX counts at once, in place
   (ls[r * RADIX + v]), by the group's RADIX items (item v owns column v):
   log2(RADIX) steps, one barrier pair each, for every row together. */
inline void sort_exclusive_rows(__local ulong *ls, uint rows)
{
    uint v = get_local_id(0);
    ulong own[DIGITS];
    for (uint r = 0; r < rows; r++)
        own[r] = ls[r * RADIX + v];
    for (uint off = 1; off < RADIX; off <<= 1) {
        ulong y[DIGITS];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint r = 0; r < rows; r++)
            y[r] = v >= off ? ls[r * RADIX + v - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint r = 0; r < rows; r++)
            ls[r * RADIX + v] += y[r];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < rows; r++)
        ls[r * RADIX + v] -= own[r];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* One group of RADIX items, item v owning digit value v: the live digits,
   the route of the tiled passes and, in the chunked layout, the MSD
   buckets and each chunk's first output position per value (digit-major,
   then chunk order: the scatter is stable); in the tiled layout every
   digit's global starts. start: DIGITS * RADIX words, lr: 3 * RADIX. */
inline void sort_plan_make(__global ulong *bits, __global uint *hist, uint nchunks,
                           __global ulong *plan, __local ulong *start, __local ulong *lr)
{
    __global ulong *offsets = plan + PLAN_WORDS;
    uint v = get_local_id(0);
    ulong live = sort_live_group(bits, nchunks, lr);
    int msd = live ? 63 - (int)clz(live) : -1;

    if (v == 0) {
        plan[PLAN_MSD] = (ulong)(msd + 1);
        plan[PLAN_LIVE] = live;
        sort_route(plan, live);
    }
#if CHUNKED
    ulong size = 0;
    for (uint i = 0; i < nchunks && live; i++)
        size += hist[i * RADIX + v];
    start[v] = size;
    sort_exclusive_rows(start, 1);
    plan[PLAN_START + v] = start[v];
    plan[PLAN_SIZE + v] = size;
    ulong pos = start[v];
    for (uint i = 0; i < nchunks && live; i++) {
        offsets[i * RADIX + v] = pos;
        pos += hist[i * RADIX + v];
    }
#else
    /* each digit's global starts: offsets[d * RADIX + v] */
    for (uint d = 0; d < DIGITS; d++)
        start[d * RADIX + v] = (ulong)PLAN_COUNT(&hist[(DIGITS + d) * RADIX + v]) << 32 |
                               PLAN_COUNT(&hist[d * RADIX + v]);
    sort_exclusive_rows(start, DIGITS);
    for (uint d = 0; d < DIGITS; d++)
        offsets[d * RADIX + v] = start[d * RADIX + v];
#endif
}

#if CHUNKED
__kernel void sort_plan(__global ulong *bits, __global uint *hist, uint nchunks,
                        __global ulong *plan)
{
    __local ulong start[DIGITS * RADIX], lr[3 * RADIX];
    sort_plan_make(bits, hist, nchunks, plan, start, lr);
}
#else
/* The GPU form also counts every digit of every key (hist[d * RADIX + v],
   zeroed by the host): the passes' global digit starts. Each item takes
   SORT_BITS_ITEMS consecutive keys a round, in vector loads when the keys
   are aligned to them, and checks them for a descent in registers; only
   the key after them is loaded again, until a descent is found. A whole
   round counts without a bounds test a key. (H200, 2^28 keys: u32 0.548
   ms with bounds tests and 8 keys a round, 0.513 without, 0.510 with 4 a
   round, 0.567 with 16; u64 1.120, 1.117, 1.008, 1.371; the atomics
   digit by digit rather than key by key, no faster. With no counting
   at all, a bound that gives wrong results, u32 0.305 and u64 0.55: the
   rest is the __local atomics, one a digit of each key. Earlier: four
   keys a grid apart with a second load each, 0.68; the next key from the
   next lane by a shuffle, 0.80.) The last group to finish (the one that
   takes the last number from a counter after hist's counts,
   hist[2 * DIGITS * RADIX]) then makes the plan from every group's words,
   which saves sort_plan's launch (7 us of a 92 us sort of 2^20 keys on an
   H200). */
#ifndef SORT_BITS_ITEMS
#define SORT_BITS_ITEMS 4   /* consecutive keys an item takes a round (a multiple of 4) */
#endif
#ifndef SORT_BITS_PROBE
#define SORT_BITS_PROBE 0   /* 1: whole rounds not counted (wrong results: a bound) */
#endif
/* SORT_COUNT_PARTS (1, 2 or 4) copies of the counts, item lid counting
   into copy lid % SORT_COUNT_PARTS, a bin's copies side by side: lanes of
   a warp that meet on one bin (every key, for a digit that all keys share,
   as the high digits of small integers) then add to that many addresses
   instead of one, at the price of __local space. The group sums the
   copies before it adds its counts to hist. */
#ifndef SORT_COUNT_PARTS
#define SORT_COUNT_PARTS 1
#endif
#if SORT_COUNT_PARTS > 2
#define SORT_LSTART_WORDS (SORT_COUNT_PARTS * DIGITS * RADIX / 2)
#else
#define SORT_LSTART_WORDS (DIGITS * RADIX)
#endif
#define SORT_COUNT_AT(d, v) (((d) * RADIX + (v)) * SORT_COUNT_PARTS + lid % SORT_COUNT_PARTS)
#if KEY_BITS == 64
typedef ulong4 KT4;
#else
typedef uint4 KT4;
#endif
__kernel void sort_bits(__global const KT *keys, ulong koff, ulong n, ulong chunk, KT m0,
                        KT m1, __global ulong *bits, __global uint *hist,
                        __global ulong *plan, __global ulong *status, ulong status_words)
{
    /* the plan's __local space holds the reduction's and the counts' */
    __local ulong lstart[SORT_LSTART_WORDS], lr[3 * RADIX];
    __local KT *lany = (__local KT *)lr, *lall = lany + TILE_WG, *ldesc = lall + TILE_WG;
    __local uint *lh = (__local uint *)lstart;
    __local uint last;
    uint lid = get_local_id(0);
    ulong grid = get_global_size(0);
    KT some = 0, every = ~(KT)0, descents = 0;

    for (uint j = lid; j < SORT_COUNT_PARTS * DIGITS * RADIX; j += TILE_WG)
        lh[j] = 0;
    /* the passes' look-back words, zeroed here rather than by a fill
       before this launch (on an H200 a command and its gap cost about
       10 us, as much as this kernel at 2^20 keys) */
    for (ulong j = get_global_id(0); j < status_words; j += grid)
        status[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    keys += koff;
    int aligned = (ulong)keys % sizeof(KT4) == 0;
    for (ulong j = SORT_BITS_ITEMS * get_global_id(0); j < n; j += SORT_BITS_ITEMS * grid) {
        KT x[SORT_BITS_ITEMS];
        int full = j + SORT_BITS_ITEMS <= n;
        if (aligned && full) {
#pragma unroll
            for (uint q = 0; q < SORT_BITS_ITEMS / 4; q++) {
                KT4 v = ((__global const KT4 *)keys)[j / 4 + q];
                x[4 * q] = v.s0;
                x[4 * q + 1] = v.s1;
                x[4 * q + 2] = v.s2;
                x[4 * q + 3] = v.s3;
            }
        } else {
            for (uint u = 0; u < SORT_BITS_ITEMS; u++)
                x[u] = j + u < n ? keys[j + u] : 0;
        }
        /* One descent is enough: random keys stop loading after a round. */
        KT after = !descents && j + SORT_BITS_ITEMS < n ? keys[j + SORT_BITS_ITEMS] : 0;
        if (full) {
            /* a whole round: no bounds to test key by key */
            KT y[SORT_BITS_ITEMS];
#pragma unroll
            for (uint u = 0; u < SORT_BITS_ITEMS; u++) {
                y[u] = sort_xf(x[u], m0, m1);
                some |= y[u];
                every &= y[u];
                if (u)
                    descents |= y[u] < y[u - 1];
            }
            if (j + SORT_BITS_ITEMS < n)
                descents |= sort_xf(after, m0, m1) < y[SORT_BITS_ITEMS - 1];
#if !SORT_BITS_PROBE
#pragma unroll
            for (uint u = 0; u < SORT_BITS_ITEMS; u++)
#pragma unroll
                for (uint d = 0; d < DIGITS; d++)
                    atomic_add(&lh[SORT_COUNT_AT(d, sort_digit(y[u], d))], 1u);
#endif
            continue;
        }
        /* the last, partial round */
#pragma unroll
        for (uint u = 0; u < SORT_BITS_ITEMS; u++) {
            if (j + u < n) {
                KT y = sort_xf(x[u], m0, m1);
                if (j + u + 1 < n)
                    descents |= sort_xf(u < SORT_BITS_ITEMS - 1 ? x[u + 1] : after, m0, m1) < y;
                some |= y;
                every &= y;
                for (uint d = 0; d < DIGITS; d++)
                    atomic_add(&lh[SORT_COUNT_AT(d, sort_digit(y, d))], 1u);
            }
        }
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
        status_store(&bits[3 * g], lany[0]);
        status_store(&bits[3 * g + 1], lall[0]);
        status_store(&bits[3 * g + 2], ldesc[0]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* 64-bit counts from 32-bit atomics: a carry out of the low word
       (hist[j]) goes to the high word (hist[DIGITS * RADIX + j]). */
    for (uint j = lid; j < DIGITS * RADIX; j += TILE_WG) {
        uint c = 0;
        for (uint p = 0; p < SORT_COUNT_PARTS; p++)
            c += lh[j * SORT_COUNT_PARTS + p];
        if (c && atomic_add(&hist[j], c) + c < c)
            atomic_inc(&hist[DIGITS * RADIX + j]);
    }
    /* Every item's atomics have returned: this group's counts are in. */
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
        gpu_fence();
        last = atomic_inc(&hist[2 * DIGITS * RADIX]) == get_num_groups(0) - 1;
        gpu_fence();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The last group leaves hist (counts and counter) zero for the next
       call, which then needs no fill first. sort_plan_make's barriers come
       after its every read of hist, so no further barrier is needed (and
       none may stand inside this condition: see scan_lookback). */
    if (last) {
        sort_plan_make(bits, hist, (uint)get_num_groups(0), plan, lstart, lr);
        for (uint j = lid; j <= 2 * DIGITS * RADIX; j += TILE_WG)
            hist[j] = 0;
    }
}
#endif

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

/* KEYS_SPLIT (64-bit keys): the keys go through the tile's __local space
   as two 32-bit halves, one after the other, so that the tile holds twice
   as many keys as whole ones would allow: a group gets no more than 48
   KiB of __local memory on NVIDIA, and a pass's cost is set by its
   tiles' latency, so bigger tiles go faster
   (bench/results/2026-11-27-h200-sort-8byte-tiles). The second trip costs
   more than the bigger tile saves for keys alone, less for keys with
   4-byte values (bench/results/2026-12-07-h100-sort-split-count), so the
   host asks for it only there unless told (GPGPU_SORT_SPLIT). */
#ifndef KEYS_SPLIT
#define KEYS_SPLIT 0
#endif
#if KEY_BITS != 64
#undef KEYS_SPLIT
#define KEYS_SPLIT 0
#endif
#if KEYS_SPLIT
#define SORT_KEY_SLOT 4
#else
#define SORT_KEY_SLOT (KEY_BITS / 8)
#endif
/* Bytes of a tile slot: a key (or half of one) or a value, whichever is
   wider. */
#if VAL_BYTES > SORT_KEY_SLOT
#define SORT_SLOT VAL_BYTES
#else
#define SORT_SLOT SORT_KEY_SLOT
#endif

/* The masks of SORT_MATCH borrow the tile's __local space. */
#if SORT_MATCH && TILE * SORT_SLOT < TILE_WG / 32 * RADIX * 4
#undef SORT_MATCH
#define SORT_MATCH 0
#endif

/* Buffer id (0 the caller's, 1 A, 2 B) to pointer. */
#define SORT_PICK(id, k, a, b) ((id) == 0 ? (k) : (id) == 1 ? (a) : (b))

#if TILE_WG % 32 || TILE_WG != RADIX
#error "the tiled sort needs TILE_WG a multiple of 32 and equal to RADIX"
#endif
#if 32 * TILE_ITEMS > 0xffff
#error "a key's place among its warp's keys must fit the 16 bits it has beside its digit"
#endif

/* Status words of the decoupled look-back (status_load and status_store,
   common.cl): a tile's count of one digit (AGG) or that plus the counts of
   every earlier tile (INC), tagged with the pass that wrote it (LB_TAG:
   d + 1). sort_bits zeroes the words once per call, and each pass takes a
   word of another pass (an earlier one: the passes run in order) for "not
   yet", so the passes of a call share them without a fill between. */
#define LB_AGG (1ul << 62)
#define LB_INC (2ul << 62)
#define LB_TAG(d) ((ulong)((d) + 1) << 56)
#define LB_TAGS (63ul << 56)
#define LB_COUNT ((1ul << 56) - 1)

/* Words of the look-back loaded at once: a tile's counts go out before
   its ranking, so a look-back after the ranking mostly walks over counts
   of tiles still running, SORT_LB_WINDOW of them a round trip (H200,
   2^28: 32-bit keys and u32 pairs fastest by 4, 64-bit keys by 8; 2 and
   16 slower, and pair passes near their register limit slowed by a
   third at some windows, so passes with values keep the measured 4).
   Measured on NVIDIA only: elsewhere status_load is an atomic, and the
   walk loads one word a round as before. */
#ifndef SORT_LB_WINDOW
#if !NV_PTX
#define SORT_LB_WINDOW 1
#elif KEY_BITS == 64 && !VAL_BYTES
#define SORT_LB_WINDOW 8
#else
#define SORT_LB_WINDOW 4
#endif
#endif

/* Item v's exclusive prefix for digit v over the tiles before t in pass
   d: their status words, latest first, until one holds an inclusive
   prefix; a word not yet written ends a round early, and the next round
   starts at it. */
inline ulong sort_lookback(__global ulong *st, uint t, uint v, uint d)
{
    ulong excl = 0;
    for (uint k = t; k > 0;) {
        ulong s[SORT_LB_WINDOW];
#pragma unroll
        for (uint j = 0; j < SORT_LB_WINDOW; j++)
            s[j] = j < k ? status_load(&st[(ulong)(k - 1 - j) * RADIX + v]) : 0;
        uint took = 0, stop = 0;
#pragma unroll
        for (uint j = 0; j < SORT_LB_WINDOW; j++) {
            if (stop || j >= k || (s[j] & LB_TAGS) != LB_TAG(d)) {
                stop = 1;
                continue;
            }
            excl += s[j] & LB_COUNT;
            took++;
            if (s[j] & LB_INC) {
                stop = 1;
                took = k; /* the walk is over */
            }
        }
        k -= took;
    }
    return excl;
}

/* The tile place of a key ranked rank (its place among its warp's keys
   of its digit | digit << 16) in warp w, once lc holds each (warp, digit)
   pair's first place. */
inline uint sort_place(__local const uint *lc, uint w, uint rank)
{
    return lc[w * RADIX + (rank >> 16)] + (rank & 0xffff);
}

#ifndef VALS_IOTA
#define VALS_IOTA 0         /* sort_tile_scatter: the caller's values[i] == i, so
                               the passes compute them where they would read them */
#endif

#ifndef SORT_BY_GROUP
#define SORT_BY_GROUP 0     /* sort_tile_scatter: tiles by group id, else by ticket */
#endif

/* sort_tile_scatter's tile t: its place (base, valid), the sources moved
   to it, and its keys loaded into k[], each item's in warp-strided order.
   Every load in flight before the ranking (its inline assembly keeps the
   compiler from moving loads past it), loops unrolled: private arrays
   stay in registers. A macro, so that the tile can be taken before the
   first barrier (by group id) or after it (by ticket). */
#define SORT_LOAD_TILE()                                                    \
    ulong base = (ulong)t * TILE;                                           \
    uint valid = (uint)min((ulong)TILE, n - base);                          \
    sk += base;                                                             \
    sv += base;                                                             \
    KT k[TILE_ITEMS];                                                       \
    uint first = w * 32 * TILE_ITEMS + lane;                                \
    _Pragma("unroll")                                                       \
    for (uint i = 0; i < TILE_ITEMS; i++) {                                 \
        uint p = first + i * 32;                                            \
        k[i] = valid == TILE || p < valid ? sk[p] : 0;                      \
    }

/* One LSD pass, one tile: tile t (in the order of a ticket taken at the
   start, so that every earlier tile is already running) is sorted stably
   by digit d: the tile's digit counts go out first for later tiles (one
   __local atomic a key, before the ranking, so that later tiles' look-backs
   find them), each key is ranked among its warp's keys of the same digit
   (sort_rank), a scan of the (warp, digit) counts gives its place in the
   tile, it looks back over earlier tiles for its offsets (status, zeroed
   by sort_bits once per call: DIGITS tickets, one per pass, then RADIX
   words per tile), the tile is reordered in __local memory and written
   so that the keys of one digit go to consecutive addresses. A pass
   whose route says copy moves the group's tile as it is (sort_route). */
__kernel void sort_tile_scatter(__global KT *keys, __global VT *vals, __global KT *ak,
                                __global VT *av, __global KT *bk, __global VT *bv,
                                ulong koff, ulong voff, ulong n, uint d,
                                KT m0, KT m1, __global const ulong *plan,
                                __global ulong *status, __global ulong *wide, ulong woff)
{
    /* The tile's keys, then (pairs) its values, in one __local array:
       tiles of pairs are as big as tiles of keys. */
    __local ulong lbuf[(TILE * SORT_SLOT + 7) / 8];
#if !KEYS_SPLIT
    __local KT *lk = (__local KT *)lbuf;
#endif
#if VAL_BYTES
    __local VT *lv = (__local VT *)lbuf;
#endif
    __local uint lc[SORT_WARPS * RADIX];
    __local uint lx[SORT_LX];
    __local ulong lo[RADIX];
    __local uint lt;
    __local uint lh[RADIX]; /* the tile's digit counts */
    ulong route = plan[PLAN_ROUTE + d];
    uint lid = get_local_id(0), total;
    uint lane = lid % 32, w = lid / 32;
#if VALS_B_HOME
    bv = (__global VT *)(wide + woff);
#endif
    __global KT *sk = SORT_PICK(route & 3, keys + koff, ak, bk);
    __global VT *sv = SORT_PICK(route & 3, vals + voff, av, bv);
    __global KT *dk = SORT_PICK((route >> 2) & 3, keys + koff, ak, bk);
    __global VT *dv = SORT_PICK((route >> 2) & 3, vals + voff, av, bv);
#if VAL_BYTES
    /* VALS_IOTA: the values this pass reads are the caller's, so their
       positions; VALS_WIDE: those it writes go home, as ulongs to wide */
    int iota_src = VALS_IOTA && (route & 3) == 0;
    int wide_dst = VALS_WIDE && ((route >> 2) & 3) == 0;
#endif
    int keys_out = KEYS_KEPT || ((route >> 2) & 3) != 0;

    if (route & ROUTE_COPY) {
        ulong base = (ulong)get_group_id(0) * TILE;
        for (uint r = 0; r < TILE_ITEMS; r++) {
            ulong p = base + r * TILE_WG + lid;
            if (p < n) {
                if (keys_out)
                    dk[p] = sk[p];
#if VAL_BYTES
                VT x = iota_src ? (VT)p : sv[p];
                if (wide_dst)
                    wide[woff + p] = x;
                else
                    dv[p] = x;
#endif
            }
        }
        return;
    }
    if (!(route & ROUTE_LIVE))
        return;
#if SORT_BY_GROUP
    /* By group id (where groups start in id order, so that every earlier
       tile is already running): the tile is known at once, and its loads
       go out before the barrier below instead of after a ticket's round
       trip. */
    (void)lt;
    uint t = get_group_id(0);
    SORT_LOAD_TILE();
#else
    if (lid == 0)
        lt = atomic_inc((__global uint *)(status + d)); /* the pass's own ticket */
#endif
    for (uint j = lid; j < RADIX * SORT_WARPS; j += TILE_WG)
        lc[j] = 0;
    lh[lid] = 0;
#if SORT_MATCH
    /* the warps' mask words, in the tile's space until the keys go there */
    __local uint *lm = (__local uint *)lbuf;
    for (uint j = lid; j < RADIX * SORT_WARPS; j += TILE_WG)
        lm[j] = 0;
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    __global ulong *st = status + DIGITS;
    uint rank[TILE_ITEMS]; /* place among the warp's keys of its digit | digit << 16 */
#if !SORT_BY_GROUP
    uint t = lt;
    SORT_LOAD_TILE();
#endif
#if VAL_BYTES && NV_PTX
    /* The tile's values are read after its keys are written: ask L2 for
       them now, a line per item, so that they arrive during the ranking
       and the look-back. */
    if (!iota_src)
        for (uint q = lid * (128 / VAL_BYTES); q < valid; q += TILE_WG * (128 / VAL_BYTES))
            nv_prefetch_l2(sv + q);
#endif
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        if (valid == TILE || p < valid)
            atomic_inc(&lh[sort_digit(sort_xf(k[i], m0, m1), d)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    status_store(&st[(ulong)t * RADIX + lid], (t ? LB_AGG : LB_INC) | LB_TAG(d) | lh[lid]);
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        uint v = valid == TILE || p < valid ? sort_digit(sort_xf(k[i], m0, m1), d) : RADIX;
#if SORT_MATCH
        rank[i] = sort_rank_match(v, lane, w, lc, lm) | v << 16;
#else
        rank[i] = sort_rank(v, lane, w, lc, lx) | v << 16;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Item v owns digit v: its warps' counts become their first places.
       (Their sum is lh[lid] again, added here rather than kept from
       before the ranking: one register more across it made pair passes
       spill, 9.3 -> 11.8 ms at 2^28 on an H200.) */
    uint sum = 0;
    for (uint u = 0; u < SORT_WARPS; u++) {
        uint c = lc[u * RADIX + lid];
        lc[u * RADIX + lid] = sum;
        sum += c;
    }
    uint at = sort_wg_scan(sum, lx, &total);
    for (uint u = 0; u < SORT_WARPS; u++)
        lc[u * RADIX + lid] += at;
    ulong excl = sort_lookback(st, t, lid, d);
    if (t)
        status_store(&st[(ulong)t * RADIX + lid], LB_INC | LB_TAG(d) | (excl + sum));
    /* output position of tile place p with digit v: lo[v] + p (mod 2^64;
       places within the tile stay 32-bit) */
    lo[lid] = plan[PLAN_WORDS + d * RADIX + lid] + excl - at;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Keys to their places in the tile, then out in tile order, so that
       the keys of one digit go to consecutive addresses. */
#if KEYS_SPLIT
    /* The low halves first, back into registers in tile order; the high
       halves then take their place (their slots are free after the
       barrier), and each key goes out whole. */
    __local uint *lk32 = (__local uint *)lbuf;
    uint khi[TILE_ITEMS]; /* the high halves alone stay in registers */
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        khi[i] = (uint)(k[i] >> 32);
        if (valid == TILE || p < valid)
            lk32[sort_place(lc, w, rank[i])] = (uint)k[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    uint klo[TILE_ITEMS];
#pragma unroll
    for (uint r = 0; r < TILE_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        klo[r] = valid == TILE || p < valid ? lk32[p] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        if (valid == TILE || p < valid)
            lk32[sort_place(lc, w, rank[i])] = khi[i];
    }
#else
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        if (valid == TILE || p < valid)
            lk[sort_place(lc, w, rank[i])] = k[i];
    }
#endif
#if VAL_BYTES
    /* VALS_IOTA (argsort): the caller's values are their own positions, so
       the pass that reads them computes them instead. */
    VT val[TILE_ITEMS];
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        val[i] = !(valid == TILE || p < valid) ? 0
               : iota_src ? (VT)(base + p) : sv[p];
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#if VAL_BYTES
    uint dg[(TILE_ITEMS + 3) / 4]; /* the digit of each key this item wrote */
#pragma unroll
    for (uint q = 0; q < (TILE_ITEMS + 3) / 4; q++)
        dg[q] = 0;
#endif
#pragma unroll
    for (uint r = 0; r < TILE_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        if (valid == TILE || p < valid) {
#if KEYS_SPLIT
            KT x = (KT)lk32[p] << 32 | klo[r];
#else
            KT x = lk[p];
#endif
            uint v = sort_digit(sort_xf(x, m0, m1), d);
            if (keys_out)
                dk[lo[v] + p] = x;
#if VAL_BYTES
            dg[r / 4] |= v << (8 * (r % 4));
#endif
        }
    }
#if VAL_BYTES
    /* The values the same way, through the same __local array, from the
       registers the keys had (loaded before the keys go out, so that they
       arrive while they do). */
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint i = 0; i < TILE_ITEMS; i++) {
        uint p = first + i * 32;
        if (valid == TILE || p < valid)
            lv[sort_place(lc, w, rank[i])] = val[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint r = 0; r < TILE_ITEMS; r++) {
        uint p = r * TILE_WG + lid;
        if (valid == TILE || p < valid) {
            ulong at = lo[(dg[r / 4] >> (8 * (r % 4))) & (RADIX - 1)] + p;
            if (wide_dst)
                wide[woff + at] = lv[p];
            else
                dv[at] = lv[p];
        }
    }
#endif
}
#endif /* !CHUNKED */
