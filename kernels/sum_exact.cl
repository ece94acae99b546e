/* sum_exact.cl - GPGPU_SUM_EXACT on F32 and F64: the exact sum, rounded
   once to nearest even, with the same bits on every device and plan.

   A float is m * 2^p * 2^BASE with m an integer below 2^MANT and p >= 0
   (BASE = -149 for f32, -1074 for f64), so every sum of them is an integer
   times 2^BASE. That integer is kept in SX_LIMBS signed 64-bit limbs of 32
   bits each (limb j weighs 2^(32 j)): adding an element adds at most 32
   bits to each of two (f32) or three (f64) limbs, integer additions that
   are exact and associative, so any split of the input over items, groups,
   chunks or devices gives the same integer. Limbs are carried into their
   canonical form (every limb in [0, 2^32), the top one signed) every
   SX_BLOCK elements, before they could overflow.
     sum_exact_pass   each item sums its share into private limbs and
                      writes them as one row (SX_LIMBS limbs, then the
                      flags) on CPUs; on GPUs the group adds its items'
                      limbs (a __local tree per limb) into one row
     sum_exact_final  one group adds the rows column by column, carries,
                      rounds and writes the result
   The element-to-item mapping is the plan's (CHUNKED), as in reduce.cl.
   On CPUs with fp64 (SX_FAST) whole blocks go through double4 lanes first
   (sx_block): the same exact integer, reached with vector arithmetic.
   Inf and NaN elements only set flags (SX_*); the rounding applies the
   special-value rules of GPGPU_SUM_EXACT in gpgpu.h. lib/sum_exact.c does
   the same in plain C for the host fallback. */

#pragma OPENCL FP_CONTRACT OFF

#ifndef SX_FAST
#define SX_FAST 0
#endif
#if SX_FAST
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if TYPE_ID == 2
#define SX_LIMBS 12     /* 277 bits of range + 64 of growth + sign */
#define SX_MANT 24
#define SX_EXP_MAX 255u
#define SX_WIDTH 32
typedef uint UT;
#define SX_BITS(x) as_uint(x)
#define SX_FROM_BITS(b) as_float(b)
#define SX_BASE (-149)
#define SX_BITS4(v) as_int4(v)
#define SX_SIGN4 ((int4)INT_MIN)
#elif TYPE_ID == 5
#define SX_LIMBS 68     /* 2098 bits of range + 64 of growth + sign */
#define SX_MANT 53
#define SX_EXP_MAX 2047u
#define SX_WIDTH 64
typedef ulong UT;
#define SX_BITS(x) as_ulong(x)
#define SX_FROM_BITS(b) as_double(b)
#define SX_BASE (-1074)
#define SX_BITS4(v) as_long4(v)
#define SX_SIGN4 ((long4)LONG_MIN)
#else
#error "GPGPU_SUM_EXACT is for F32 and F64"
#endif

#define SX_ROW (SX_LIMBS + 1)
#define SX_M32 0xffffffffl
#define SX_BLOCK (1u << 28)     /* additions of < 2^33 per limb between carries */

#define SX_NAN 1u
#define SX_PINF 2u
#define SX_NINF 4u
#define SX_NOT_NEG_ZERO 8u      /* an element other than -0.0 */
#define SX_SEEN 16u             /* any element */

static inline void sx_add(long *acc, uint *flags, T x)
{
    const UT b = SX_BITS(x), sign = (UT)1 << (SX_WIDTH - 1);
    const uint e = (uint)(b >> (SX_MANT - 1)) & SX_EXP_MAX;
    UT m = b & (((UT)1 << (SX_MANT - 1)) - 1);
    *flags |= SX_SEEN | (b != sign ? SX_NOT_NEG_ZERO : 0u);
    if (e == SX_EXP_MAX) {
        *flags |= m ? SX_NAN : (b & sign) ? SX_NINF : SX_PINF;
        return;
    }
    const uint p = e ? e - 1 : 0u, k = p >> 5, s = p & 31;
    const long sg = (b & sign) ? -1 : 1;
    m |= e ? (UT)1 << (SX_MANT - 1) : (UT)0;
#if SX_MANT == 24
    const ulong v = (ulong)m << s;
    acc[k] += sg * (long)(v & SX_M32);
    acc[k + 1] += sg * (long)(v >> 32);
#else
    const ulong v0 = (m & SX_M32) << s, v1 = (m >> 32) << s;
    acc[k] += sg * (long)(v0 & SX_M32);
    acc[k + 1] += sg * (long)((v0 >> 32) + (v1 & SX_M32));
    acc[k + 2] += sg * (long)(v1 >> 32);
#endif
}

/* Canonical form: limbs below the top in [0, 2^32), the top one signed
   (right shifts of negative values are arithmetic: floor division). */
static inline void sx_carry(long *acc)
{
    long carry = 0;
    for (uint j = 0; j + 1 < SX_LIMBS; j++) {
        const long v = acc[j] + carry;
        acc[j] = v & SX_M32;
        carry = v >> 32;
    }
    acc[SX_LIMBS - 1] += carry;
}

#if SX_FAST
/* ---- the CPU fast path: error-free splitting in double4 lanes ------------- */

/* Elements per block, and M with 2^M = the values each lane adds per level. */
#define SX_FB 4096
#define SX_M 10
#define SX_W (53 - SX_M)    /* bits one level takes */

/* acc += v for a finite double v that is a multiple of 2^SX_BASE (all the
   level sums are: they are sums of parts of the elements). */
static inline void sx_add_double(long *acc, double v)
{
    const ulong b = as_ulong(v);
    const int e = (int)(b >> 52) & 2047;
    ulong m = (b & ((1ul << 52) - 1)) | (e ? 1ul << 52 : 0ul);
    int off = (e ? e - 1075 : -1074) - SX_BASE;
    if (off < 0) {          /* trailing zeros only: v is a multiple of 2^SX_BASE */
        m >>= -off;
        off = 0;
    }
    const uint k = (uint)off >> 5, s = (uint)off & 31;
    const long sg = (b >> 63) ? -1 : 1;
    const ulong v0 = (m & SX_M32) << s, v1 = (m >> 32) << s;
    acc[k] += sg * (long)(v0 & SX_M32);
    acc[k + 1] += sg * (long)((v0 >> 32) + (v1 & SX_M32));
    if (v1 >> 32)
        acc[k + 2] += sg * (long)(v1 >> 32);
}

/* SX_FB elements from p into acc. With 2^k0 above every |x| times 2^M,
   level j (sigma = 2^(k0 - j W)) takes q = (sigma + r) - sigma from the
   rest r: q and r - q are exact, q is a multiple of 2^(k - 53) at most
   2^(k - M), so the 2^M q's of a lane add up exactly in double. Three
   levels take 3 W bits below the top (the third needs no splitting: what
   is left after two adds up exactly as it is): a block whose values span
   more, or with inf or NaN, or near the ends of the double range, goes
   element by element instead. Each lane's level sums then go into the
   limbs. */
static inline void sx_block(__global const T *p, long *acc, uint *flags)
{
    double4 hi = 0, lo = INFINITY;
    long4 bad = 0, some = 0;
    for (uint j = 0; j < SX_FB / 4; j++) {
        const T4 v = MAP4(vload4(j, p));
        const double4 a = fabs(convert_double4(v));
        hi = fmax(hi, a);
        lo = fmin(lo, select(a, (double4)INFINITY, a == 0));
        bad |= isnan(a) | isinf(a);
        some |= convert_long4(SX_BITS4(v) != SX_SIGN4);
    }
    const double top = fmax(fmax(hi.s0, hi.s1), fmax(hi.s2, hi.s3));
    const double bottom = fmin(fmin(lo.s0, lo.s1), fmin(lo.s2, lo.s3));
    const int k0 = ilogb(top) + 1 + SX_M;
    const int lsb = ilogb(bottom) - (SX_MANT - 1);
    if (any(bad) || top == 0 || k0 > 1023 || k0 - 2 * SX_W < -1000 || k0 - 53 - 2 * SX_W > lsb) {
        for (uint j = 0; j < SX_FB; j++)
            sx_add(acc, flags, MAP1(p[j]));
        return;
    }
    *flags |= SX_SEEN | (any(some) ? SX_NOT_NEG_ZERO : 0u);
    const double4 s0 = ldexp(1.0, k0), s1 = ldexp(1.0, k0 - SX_W);
    double4 a0 = 0, a1 = 0, a2 = 0;
    for (uint j = 0; j < SX_FB / 4; j++) {
        double4 r = convert_double4(MAP4(vload4(j, p)));
        double4 q = (s0 + r) - s0;
        a0 += q;
        r -= q;
        q = (s1 + r) - s1;
        a1 += q;
        r -= q;
        a2 += r;            /* the rest fits the third level exactly */
    }
    const double l[12] = {a0.s0, a0.s1, a0.s2, a0.s3, a1.s0, a1.s1,
                          a1.s2, a1.s3, a2.s0, a2.s1, a2.s2, a2.s3};
    for (uint j = 0; j < 12; j++)
        sx_add_double(acc, l[j]);
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void sum_exact_pass(__global const T *in, ulong off, ulong n, __global long *rows, ulong row0)
{
    long acc[SX_LIMBS];
    uint flags = 0, since = 0;
    for (uint j = 0; j < SX_LIMBS; j++)
        acc[j] = 0;
    in += off;
    const ulong gid = get_global_id(0), items = get_global_size(0);
#if CHUNKED
    const ulong per = (n + items - 1) / items;
    const ulong begin = min(gid * per, n), end = min(begin + per, n), step = 1;
#else
    const ulong begin = gid, end = n, step = items;
#endif
    ulong i = begin;
#if SX_FAST
    for (; i + SX_FB <= end; i += SX_FB) {
        sx_block(in + i, acc, &flags);
        sx_carry(acc);
    }
#endif
    for (; i < end; i += step) {
        sx_add(acc, &flags, MAP1(in[i]));
        if (++since == SX_BLOCK) {
            sx_carry(acc);
            since = 0;
        }
    }
    sx_carry(acc);
#if CHUNKED
    /* one row per item: no barrier in the kernel, so that a CPU compiler
       keeps acc private to the item's loop */
    __global long *mine = rows + (row0 + gid) * SX_ROW;
    for (uint j = 0; j < SX_LIMBS; j++)
        mine[j] = acc[j];
    mine[SX_LIMBS] = flags;
#else
    /* the group's row: each limb (then the flags) summed (or'ed) over items */
    __local long tree[WG];
    const uint lid = get_local_id(0);
    __global long *row = rows + (row0 + get_group_id(0)) * SX_ROW;
    for (uint j = 0; j < SX_ROW; j++) {
        tree[lid] = j < SX_LIMBS ? acc[j] : (long)flags;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = WG / 2; d > 0; d >>= 1) {
            if (lid < d)
                tree[lid] = j < SX_LIMBS ? tree[lid] + tree[lid + d] : tree[lid] | tree[lid + d];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            row[j] = tree[0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/* Bits [lo, lo + len) of the canonical magnitude a (len <= 32). */
static inline ulong sx_field(const long *a, uint lo, uint len)
{
    const uint i = lo >> 5;
    const ulong w = (ulong)a[i] | (i + 1 < SX_LIMBS ? (ulong)a[i + 1] << 32 : 0ul);
    return (w >> (lo & 31)) & ((1ul << len) - 1);
}

/* Any bit of a below bit pos. */
static inline int sx_sticky(const long *a, uint pos)
{
    const uint i = pos >> 5;
    int any = (a[i] & ((1l << (pos & 31)) - 1)) != 0;
    for (uint j = 0; j < i; j++)
        any |= a[j] != 0;
    return any;
}

/* The sum of canonical limbs a (changed) with flags, rounded to T. */
static inline T sx_round(long *a, uint flags)
{
    const UT sign = (UT)1 << (SX_WIDTH - 1);
    const UT inf = (UT)SX_EXP_MAX << (SX_MANT - 1);
    if ((flags & SX_NAN) || ((flags & SX_PINF) && (flags & SX_NINF)))
        return SX_FROM_BITS(inf | (UT)1 << (SX_MANT - 2));
    if (flags & (SX_PINF | SX_NINF))
        return SX_FROM_BITS(inf | ((flags & SX_NINF) ? sign : (UT)0));
    const int neg = a[SX_LIMBS - 1] < 0;
    if (neg) {
        for (uint j = 0; j < SX_LIMBS; j++)
            a[j] = -a[j];
        sx_carry(a);
    }
    int h = SX_LIMBS - 1;
    while (h >= 0 && a[h] == 0)
        h--;
    if (h < 0)
        return SX_FROM_BITS((flags & SX_SEEN) && !(flags & SX_NOT_NEG_ZERO) ? sign : (UT)0);
    const uint P = 32 * (uint)h + 31 - clz((uint)a[h]);
    UT bits;
    if (P < SX_MANT) {          /* exact: a subnormal or the smallest normals */
        bits = (UT)(a[0] | (SX_LIMBS > 1 ? a[1] << 32 : 0l));
    } else if (P - (SX_MANT - 1) + 1 >= SX_EXP_MAX) {
        bits = inf;
    } else {
        const uint lo = P - (SX_MANT - 1);
#if SX_MANT == 24
        UT q = (UT)sx_field(a, lo, 24);
#else
        UT q = (UT)(sx_field(a, lo, 32) | sx_field(a, lo + 32, 21) << 32);
#endif
        if (sx_field(a, lo - 1, 1) && (sx_sticky(a, lo - 1) || (q & 1)))
            q++;
        bits = ((UT)lo << (SX_MANT - 1)) + q;    /* a carry out of q bumps the exponent */
        bits = min(bits, inf);
    }
    return SX_FROM_BITS(bits | (neg ? sign : (UT)0));
}

/* One group: limb j of the result is the sum of column j of the rows. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void sum_exact_final(__global const long *rows, ulong nrows, __global T *out, ulong out_off)
{
    __local long col[SX_ROW];
    for (uint j = get_local_id(0); j < SX_ROW; j += WG) {
        long s = 0;
        for (ulong r = 0; r < nrows; r++)
            s = j < SX_LIMBS ? s + rows[r * SX_ROW + j] : s | rows[r * SX_ROW + j];
        col[j] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        long a[SX_LIMBS];
        for (uint j = 0; j < SX_LIMBS; j++)
            a[j] = col[j];
        sx_carry(a);
        out[out_off] = sx_round(a, (uint)col[SX_LIMBS]);
    }
}
