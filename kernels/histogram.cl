/*
 * histogram.cl - even-bin histograms (seed 001, steps 3 and 4).
 *
 * Pass 1 (hist_count, hist_rgba8): each work-group counts its share of the
 * input into its own 32-bit bins and writes them out as one chunk of
 * part[group * nbins ..]. Pass 2 (hist_merge): one work item per bin sums
 * that bin over all chunks into the 64-bit result; adjacent items read
 * adjacent bins, so the merge is coalesced and takes one dispatch instead of
 * the seed's log2(groups) tree passes.
 *
 * Where a group's bins live and how they are incremented is the plan's:
 *   HIST_PRIVATE=1  groups of one work item (CPUs, PoCL): the item owns its
 *                   bins and increments them plainly over one contiguous
 *                   chunk (__local atomics are locked instructions there).
 *   HIST_PRIVATE=0  groups of WG items (GPUs) share __local bins through
 *                   local atomics over a coalesced grid-stride loop.
 * hist_*_global count into global memory instead of __local, for bin counts
 * that do not fit: with HIST_PRIVATE each group into its own chunk of part,
 * otherwise every group into part[0 ..] with global atomics (one chunk).
 * Counters are 32-bit: the host keeps each launch under 2^32 samples.
 *
 * The binning rule and its arguments are lib/histogram.h's. With
 * HIST_EDGES=1 the rule is a binary search over given edges
 * (gpgpu_histogram_edges); the passes are the same.
 */
#pragma OPENCL FP_CONTRACT OFF

#ifndef HIST_PRIVATE
#define HIST_PRIVATE 0
#endif
#ifndef HIST_WIDE
#define HIST_WIDE 0     /* integer rule needs 128-bit intermediates */
#endif
#ifndef HIST_EDGES
#define HIST_EDGES 0    /* bins over given edges (gpgpu_histogram_edges) */
#endif
#ifndef HIST_EDGES_CHECK
#define HIST_EDGES_CHECK 1 /* CPUs' edges: check the host's table (hist_cut_count) */
#endif

#if HIST_PRIVATE
#define HIST_INC(bins, b) ((bins)[b]++)
#else
#define HIST_INC(bins, b) atomic_inc(&(bins)[b])
#endif

/* The unsigned type of T's width, for exact differences of integers. */
#if TYPE_ID == 0 || TYPE_ID == 1
#define HIST_UT uint
#else
#define HIST_UT ulong
#endif

/* The arguments of the rule, in the order lib/histogram.c passes them. */
#if HIST_EDGES
#define HIST_RULE_ARGS __global const T *cut, uint ncut, T top, uint nbm1
#define HIST_RULE cut, ncut, top, nbm1
#else
#define HIST_RULE_ARGS T lo, T top, T scale, ulong q0, ulong s0, ulong dm1, ulong m, uint nbm1
#define HIST_RULE lo, top, scale, q0, s0, dm1, m, nbm1
#endif

#if HIST_EDGES

/* cut[0 .. ncut) are the edges rounded up to T (x >= edge <=> x >= cut,
   exactly), top the largest T not above the last edge. The bin is the
   number of cuts <= x, less one, the last edge's bin folded into the one
   before; NaN is above no cut. On GPUs the count is a binary search by
   halving steps with selects, not branches: the same log2(ncut) + 1 steps
   for every sample (random samples would mispredict every other branch). */
#if CHUNKED
/* CPUs: the host's lookup table follows the cuts (histogram_edges.c says
   how it is made): after the cuts and one of padding, at the next multiple
   of 8 bytes, the cell count nlut, a spare word, lo and scale (8 bytes
   each: a float in the first 4, or a double for f64), then nlut + 1
   counts: lut[k] cuts lie in the cells before k. x's cell is
   clamp(floor((x - lo) * scale + 1), 0, nlut - 1) in HIST_FT, and the cuts
   <= x are lut[k] plus those of cell k that are <= x: most cells hold
   none, the others few (a binary search over them). Each step is rounded
   as on the host that built the table (OpenCL rounds +, -, * and int to
   float conversions correctly; FP_CONTRACT is off), so the cell is the
   host's and the count exact, on devices that keep subnormals. Where the
   device may flush them (no CL_FP_DENORM), HIST_EDGES_CHECK=1 checks the
   count against the cuts on either side of it, and one they disagree with
   is searched again over all the cuts (reading those two cuts costs more
   than the rest of the lookup on PoCL). NaN is above no cut. */
#if TYPE_ID == 5
#define HIST_FT double
#define HIST_FT_AT(h, i) as_double(((__global const ulong *)(h))[i])
#else
#define HIST_FT float
#define HIST_FT_AT(h, i) as_float((h)[2 * (i)])
#endif
/* The number of cuts <= x among the m from pos on (the rest: those before
   are <= x, those after are not). */
__attribute__((noinline)) uint hist_cut_search(__global const T *cut, uint pos, uint m, T x)
{
    while (m > 0) {
        const uint h2 = m / 2;
        if (cut[pos + h2] <= x) {
            pos += h2 + 1;
            m -= h2 + 1;
        } else {
            m = h2;
        }
    }
    return pos;
}

/* The table's header after the cuts. */
inline __global const uint *hist_lut_head(__global const T *cut, uint ncut)
{
    return (__global const uint *)((__global const uchar *)cut +
                                   ((ulong)(ncut + 1) * sizeof(T) + 7) / 8 * 8);
}

/* The count of cuts <= x, from the table (lut = the header's counts). */
inline uint hist_cut_count(T x, __global const T *cut, uint ncut, __global const uint *lut,
                           HIST_FT lo, HIST_FT scale, HIST_FT last)
{
    const HIST_FT t = fmin(fmax(((HIST_FT)x - lo) * scale + 1, (HIST_FT)0), last);
    const uint k = (uint)t;
    uint pos = lut[k];
    const uint m = lut[k + 1] - pos;
    if (m != 0)
        pos = hist_cut_search(cut, pos, m, x);
#if HIST_EDGES_CHECK
    /* without branches but the rare one: a quarter of random samples may
       lie below the first cut (pos 0) */
    const uint below = pos - (pos > 0);
    const int bad = ((pos > 0) & !(cut[below] <= x)) | ((pos < ncut) & (cut[pos] <= x));
    if (bad)
        pos = hist_cut_search(cut, 0, ncut, x);
#endif
    return pos;
}

inline int hist_bin(T x, HIST_RULE_ARGS, uint *b)
{
    __global const uint *h = hist_lut_head(cut, ncut);
    const uint pos = hist_cut_count(x, cut, ncut, h + 6, HIST_FT_AT(h, 1), HIST_FT_AT(h, 2),
                                    (HIST_FT)(h[0] - 1));
    *b = min(pos - 1, nbm1);
    return pos > 0 && x <= top;
}
#else
inline int hist_bin(T x, HIST_RULE_ARGS, uint *b)
{
    uint pos = 0;
    for (uint step = 1u << (31 - clz(ncut)); step; step >>= 1) {
        const uint probe = pos + step;
        const int up = (probe <= ncut) & (cut[min(probe, ncut) - 1] <= x);
        pos = up ? probe : pos;
    }
    *b = min(pos - 1, nbm1);
    return pos > 0 && x <= top;
}
#endif

#elif T_IS_FLOAT

/* x in [lo, top): t = (x - lo) * scale, bin = min(floor(t), nbins - 1), a
   NaN t counting as nbins - 1 (fmin drops it); NaN x fails the test. */
inline int hist_bin(T x, HIST_RULE_ARGS, uint *b)
{
    T t = fmin((x - lo) * scale, (T)nbm1);
    *b = min(convert_uint(fmax(t, (T)0)), nbm1);
    return x >= lo && x < top;
}

#if HIST_PRIVATE
#define HIST_VEC 16
#define HIST_VEC_OK 1
#if TYPE_ID == 2
typedef float16 TV;
#else
typedef double16 TV;
#endif
/* hist_bin on 16 samples at once; samples outside go to the spare bin
   nbins (one past the last), so the increments need no branch. */
inline uint16 hist_bin_vec(TV x, HIST_RULE_ARGS)
{
    TV t = fmin((x - lo) * scale, (TV)nbm1);
    uint16 b = min(convert_uint16(fmax(t, (TV)0)), (uint16)nbm1);
    /* comparisons give -1 (all bits) per true lane: select takes the MSB */
    uint16 inside = convert_uint16((x >= lo) & (x < top));
    return select((uint16)(nbm1 + 1), b, inside);
}
#endif

#else

#if HIST_WIDE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* hi:lo = q * D, with D = dm1 + 1 up to 2^64. */
inline void hist_mul_d(ulong q, ulong dm1, ulong *hi, ulong *lo)
{
    ulong l = q * dm1;
    *hi = mul_hi(q, dm1) + (l + q < l);
    *lo = l + q;
}

/* floor(num / D) for a 128-bit num = nhi:nlo whose quotient is < 2^31: a
   double estimate (m holds 1/D; off by at most one) corrected exactly. */
inline ulong hist_div(ulong nhi, ulong nlo, ulong dm1, ulong m)
{
    double est = ((double)nhi * 0x1p64 + (double)nlo) * as_double(m);
    ulong q = convert_ulong_sat(est), phi, plo;
    hist_mul_d(q, dm1, &phi, &plo);
    if (phi > nhi || (phi == nhi && plo > nlo)) {
        q--;
        hist_mul_d(q, dm1, &phi, &plo);
    }
    ulong rlo = nlo - plo, rhi = nhi - phi - (nlo < plo);
    return q + (rhi != 0 || rlo > dm1);
}

inline ulong hist_int_bin(ulong d, ulong nb, ulong q0, ulong s0, ulong dm1, ulong m)
{
    ulong lo64 = d * nb, hi64 = mul_hi(d, nb);
    lo64 += s0;
    hi64 += lo64 < s0;
    return q0 + hist_div(hi64, lo64, dm1, m);
}
#else
/* (d * nb + s0) / D with m = floor((2^64 - 1) / D): the estimate is at most
   two below the quotient, and the remainder says by how much. */
inline ulong hist_int_bin(ulong d, ulong nb, ulong q0, ulong s0, ulong dm1, ulong m)
{
    ulong num = d * nb + s0, den = dm1 + 1;
    ulong q = mul_hi(num, m);
    ulong r = num - q * den;
    ulong k = r >= den;
    r -= k ? den : 0;
    return q0 + q + k + (r >= den);
}
#endif

/* x in [lo, top]; d = x - lo is exact in the type's unsigned width. */
inline int hist_bin(T x, HIST_RULE_ARGS, uint *b)
{
    ulong d = (ulong)((HIST_UT)x - (HIST_UT)lo);
    *b = (uint)hist_int_bin(d, (ulong)nbm1 + 1, q0, s0, dm1, m);
    return x >= lo && x <= top;
}

#if HIST_PRIVATE && !HIST_WIDE && (TYPE_ID == 0 || TYPE_ID == 1) && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define HIST_VEC 16
/* The vector rule needs D < 2^62 (hist_count checks it): the remainder of
   an estimate one off either way then fits a signed 64-bit word. */
#define HIST_VEC_OK (dm1 < (1ul << 62))
#if TYPE_ID == 0
typedef int16 TV;
#else
typedef uint16 TV;
#endif
/* hist_bin on 16 32-bit samples at once, exact: a double estimate of
   (d * nbins + s0) / D (the quotient is below 2^31, so it is at most one
   off) corrected by the remainder in 64-bit integers, which CPUs do in
   vector registers where the scalar rule's 64-bit mul_hi is not. Samples
   outside go to the spare bin nbins. */
inline uint16 hist_bin_vec(TV x, HIST_RULE_ARGS)
{
    ulong den = dm1 + 1;
    double inv = 1.0 / (double)den;
    ulong16 d = convert_ulong16(as_uint16(x) - (uint)lo);
    ulong16 num = d * (ulong)(nbm1 + 1) + s0;
    ulong16 q = convert_ulong16(convert_double16(num) * inv);
    long16 r = as_long16(num - q * den);
    q = select(q, q - 1, r < 0);
    r = select(r, r + (long)den, r < 0);
    q = select(q, q + 1, r >= (long)den);
    uint16 b = convert_uint16(q + q0);
    return select((uint16)(nbm1 + 1), b, (x >= lo) & (x <= top));
}
#endif

#endif

/* Counts in[begin, end) with the given stride into bins (one definition for
   __local and __global bins). */
#define HIST_DEFINE_COUNT(NAME, AS)                                                   \
    inline void NAME(__global const T *in, ulong begin, ulong end, ulong step,       \
                     HIST_RULE_ARGS, AS uint *bins)                                   \
    {                                                                                 \
        for (ulong i = begin; i < end; i += step) {                                   \
            uint b;                                                                   \
            if (hist_bin(in[i], HIST_RULE, &b))                                       \
                HIST_INC(bins, b);                                                    \
        }                                                                             \
    }
#if HIST_EDGES && !CHUNKED
/* The edges' searches, HIST_BATCH samples at a time: one search is a chain
   of dependent loads, several interleave. The rest as HIST_DEFINE_COUNT. */
#define HIST_BATCH 8
#define HIST_DEFINE_COUNT_EDGES(NAME, AS)                                             \
    inline void NAME(__global const T *in, ulong begin, ulong end, ulong step,       \
                     HIST_RULE_ARGS, AS uint *bins)                                   \
    {                                                                                 \
        const uint first = 1u << (31 - clz(ncut));                                    \
        ulong i = begin;                                                              \
        for (; i + (HIST_BATCH - 1) * step < end; i += HIST_BATCH * step) {           \
            T x[HIST_BATCH];                                                          \
            uint pos[HIST_BATCH];                                                     \
            for (uint l = 0; l < HIST_BATCH; l++) {                                   \
                x[l] = in[i + l * step];                                              \
                pos[l] = 0;                                                           \
            }                                                                         \
            for (uint s = first; s; s >>= 1)                                          \
                for (uint l = 0; l < HIST_BATCH; l++) {                               \
                    const uint probe = pos[l] + s;                                    \
                    const int up = (probe <= ncut) & (cut[min(probe, ncut) - 1] <= x[l]); \
                    pos[l] = up ? probe : pos[l];                                     \
                }                                                                     \
            for (uint l = 0; l < HIST_BATCH; l++)                                     \
                if (pos[l] > 0 && x[l] <= top)                                        \
                    HIST_INC(bins, min(pos[l] - 1, nbm1));                            \
        }                                                                             \
        for (; i < end; i += step) {                                                  \
            uint b;                                                                   \
            if (hist_bin(in[i], HIST_RULE, &b))                                       \
                HIST_INC(bins, b);                                                    \
        }                                                                             \
    }
HIST_DEFINE_COUNT_EDGES(hist_count_into_local, __local)
HIST_DEFINE_COUNT_EDGES(hist_count_into_global, __global)
#elif HIST_EDGES && HIST_PRIVATE
/* CPUs, private bins: the table's header read once; a sample not counted
   adds 0 to the last bin, with no branch on whether it counts (a quarter
   of random samples below the first edge would mispredict). */
#define HIST_DEFINE_COUNT_EDGES(NAME, AS)                                             \
    inline void NAME(__global const T *in, ulong begin, ulong end, ulong step,       \
                     HIST_RULE_ARGS, AS uint *bins)                                   \
    {                                                                                 \
        __global const uint *h = hist_lut_head(cut, ncut);                           \
        __global const uint *lut = h + 6;                                             \
        const HIST_FT lo = HIST_FT_AT(h, 1), scale = HIST_FT_AT(h, 2);                \
        const HIST_FT last = (HIST_FT)(h[0] - 1);                                     \
        for (ulong i = begin; i < end; i += step) {                                   \
            const T x = in[i];                                                        \
            const uint pos = hist_cut_count(x, cut, ncut, lut, lo, scale, last);      \
            bins[min(pos - 1, nbm1)] += (uint)(pos > 0) & (uint)(x <= top);           \
        }                                                                             \
    }
HIST_DEFINE_COUNT_EDGES(hist_count_into_local, __local)
HIST_DEFINE_COUNT_EDGES(hist_count_into_global, __global)
#else
HIST_DEFINE_COUNT(hist_count_into_local, __local)
HIST_DEFINE_COUNT(hist_count_into_global, __global)
#endif

#ifdef HIST_VEC
/* A work item's own chunk, 16 samples per step with vector binning (the
   scalar loop on the ragged end); bins has the spare slot bins[nbins]. */
inline void hist_count_chunk_vec(__global const T *in, ulong begin, ulong end,
                                 HIST_RULE_ARGS, __local uint *bins)
{
    ulong full = begin + (end - begin) / HIST_VEC * HIST_VEC;
    uint idx[HIST_VEC];
    for (ulong i = begin; i < full; i += HIST_VEC) {
        vstore16(hist_bin_vec(vload16(0, in + i), HIST_RULE), 0, idx);
        for (int k = 0; k < HIST_VEC; k++)
            bins[idx[k]]++;
    }
    hist_count_into_local(in, full, end, 1, HIST_RULE, bins);
}
#endif

/* This work item's share: a contiguous chunk (HIST_PRIVATE, chunk items per
   group) or a grid-stride walk. */
inline void hist_share(ulong n, ulong chunk, ulong *begin, ulong *end, ulong *step)
{
#if HIST_PRIVATE
    *begin = min(n, (ulong)get_group_id(0) * chunk);
    *end = min(n, *begin + chunk);
    *step = 1;
#else
    *begin = get_global_id(0);
    *end = n;
    *step = get_global_size(0);
#endif
}

inline void hist_zero_local(__local uint *bins, uint nbins)
{
    for (uint i = get_local_id(0); i < nbins; i += get_local_size(0))
        bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* After a barrier: the group's __local bins become its chunk of part. */
inline void hist_write_chunk(__local const uint *bins, uint nbins, __global uint *part)
{
    __global uint *mine = part + (ulong)get_group_id(0) * nbins;
    for (uint i = get_local_id(0); i < nbins; i += get_local_size(0))
        mine[i] = bins[i];
}

#if !HIST_PRIVATE && !HIST_EDGES
/* GPUs, even bins: the warps of a group count into copies of the bins (warp
   w into copy w % copies, as many as fit HIST_COPY_WORDS), so that they do
   not queue on one bin when the samples are skewed; lib/histogram.c sizes
   the __local array by the same rule. Loads are 16 bytes wide and two are
   in flight per item; the ends that are not 16-byte aligned go one by one. */
#define HIST_COPY_WORDS 6144u
inline uint hist_copies(uint nslots)
{
    uint c = get_local_size(0) / 32;
    while (c > 1 && c * nslots > HIST_COPY_WORDS)
        c >>= 1;
    return c ? c : 1;
}

#if TYPE_ID == 0
typedef int4 TW;
#elif TYPE_ID == 1
typedef uint4 TW;
#elif TYPE_ID == 2
typedef float4 TW;
#elif TYPE_ID == 3
typedef long2 TW;
#elif TYPE_ID == 4
typedef ulong2 TW;
#else
typedef double2 TW;
#endif
#define HIST_VW ((uint)(16 / sizeof(T)))

#define HIST_ONE(x)                                                                   \
    do {                                                                              \
        uint b_;                                                                      \
        if (hist_bin((x), HIST_RULE, &b_))                                            \
            atomic_inc(&bins[b_]);                                                    \
    } while (0)
#if TYPE_ID <= 2
#define HIST_LANES(v)                                                                 \
    do {                                                                              \
        HIST_ONE((v).s0);                                                             \
        HIST_ONE((v).s1);                                                             \
        HIST_ONE((v).s2);                                                             \
        HIST_ONE((v).s3);                                                             \
    } while (0)
#else
#define HIST_LANES(v)                                                                 \
    do {                                                                              \
        HIST_ONE((v).s0);                                                             \
        HIST_ONE((v).s1);                                                             \
    } while (0)
#endif

/* in[0, n) by a grid-stride walk over 16-byte words into bins (this warp's
   copy). */
inline void hist_count_wide(__global const T *in, ulong n, HIST_RULE_ARGS, __local uint *bins)
{
    ulong gid = get_global_id(0), gsz = get_global_size(0);
    uint mis = (uint)(((ulong)in / sizeof(T)) % HIST_VW);
    ulong head = min(n, (ulong)((HIST_VW - mis) % HIST_VW));
    ulong nv = (n - head) / HIST_VW;
    __global const TW *v = (__global const TW *)(in + head);
    for (ulong j = gid; j < head; j += gsz)
        HIST_ONE(in[j]);
    ulong i = gid;
    for (; i + gsz < nv; i += 2 * gsz) {
        TW a = v[i], b = v[i + gsz];
        HIST_LANES(a);
        HIST_LANES(b);
    }
    if (i < nv) {
        TW a = v[i];
        HIST_LANES(a);
    }
    for (ulong j = head + nv * HIST_VW + gid; j < n; j += gsz)
        HIST_ONE(in[j]);
}
#endif

/* Every count kernel takes the same arguments (the host sets them in one
   place): in[off, off + n) and the rule; the _global ones ignore bins. */
__kernel void hist_count(__global const T *in, ulong off, ulong n, ulong chunk,
                         HIST_RULE_ARGS, __global uint *part, __local uint *bins)
{
    ulong begin, end, step;
    in += off;
    hist_share(n, chunk, &begin, &end, &step);
#ifdef HIST_VEC
    hist_zero_local(bins, nbm1 + 2);
    if (HIST_VEC_OK)
        hist_count_chunk_vec(in, begin, end, HIST_RULE, bins);
    else
        hist_count_into_local(in, begin, end, step, HIST_RULE, bins);
#elif !HIST_PRIVATE && !HIST_EDGES
    uint nslots = nbm1 + 2, copies = hist_copies(nslots);
    hist_zero_local(bins, copies * nslots);
    hist_count_wide(in, n, HIST_RULE, bins + (get_local_id(0) / 32) % copies * nslots);
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint *mine = part + (ulong)get_group_id(0) * (nbm1 + 1);
    for (uint b = get_local_id(0); b <= nbm1; b += get_local_size(0)) {
        uint sum = 0;
        for (uint c = 0; c < copies; c++)
            sum += bins[c * nslots + b];
        mine[b] = sum;
    }
    return;
#else
    hist_zero_local(bins, nbm1 + 1);
    hist_count_into_local(in, begin, end, step, HIST_RULE, bins);
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    hist_write_chunk(bins, nbm1 + 1, part);
}

/* part is zeroed by the host first unless HIST_PRIVATE (each group then
   zeroes and fills its own chunk). */
__kernel void hist_count_global(__global const T *in, ulong off, ulong n, ulong chunk,
                                HIST_RULE_ARGS, __global uint *part, __local uint *unused)
{
    ulong begin, end, step;
    in += off;
    hist_share(n, chunk, &begin, &end, &step);
#if HIST_PRIVATE
    part += (ulong)get_group_id(0) * (nbm1 + 1);
    for (uint i = 0; i <= nbm1; i++)
        part[i] = 0;
#endif
    hist_count_into_global(in, begin, end, step, HIST_RULE, part);
}

/* ---- RGBA8 images: R, G, B and luminance bins from one read ---------------- */

/* Bins as lib/host_histogram.c: floor(c / 255 * nbins) per channel and
   floor((2126 R + 7152 G + 722 B) / 2550000 * nbins), exact in integers
   (constant divisors: the compiler multiplies instead). */
#define HIST_RGBA_PIXEL(bins, at)                                                      \
    do {                                                                               \
        uchar4 c = vload4(0, (at));                                                    \
        ulong r = c.x, g = c.y, b = c.z;                                               \
        HIST_INC(bins, (uint)min(r * nb / 255, last));                                 \
        HIST_INC(bins, (uint)(nb + min(g * nb / 255, last)));                          \
        HIST_INC(bins, (uint)(2 * nb + min(b * nb / 255, last)));                      \
        HIST_INC(bins, (uint)(3 * nb +                                                 \
                              min((2126 * r + 7152 * g + 722 * b) * nb / 2550000, last))); \
    } while (0)

/* Pixels p .. end (linear index y * width + x) by step: a CPU's contiguous
   chunk walks x and y along (no division per pixel) and looks the channel
   bins up in a table of the 256 levels, a GPU's grid-stride walk divides. */
#if HIST_PRIVATE
#define HIST_RGBA_DEFINE(NAME, AS)                                                     \
    inline void NAME(__global const uchar *px, ulong width, ulong stride, ulong p,     \
                     ulong end, ulong step, uint nbins, AS uint *bins)                 \
    {                                                                                  \
        ulong nb = nbins, last = nbins - 1, y = p / width, x = p - y * width;          \
        uint level[256];                                                               \
        AS uint *green = bins + nb, *blue = bins + 2 * nb, *luma = bins + 3 * nb;      \
        for (uint c = 0; c < 256; c++)                                                 \
            level[c] = (uint)min(c * nb / 255, last);                                  \
        for (; p < end; p++) {                                                         \
            uchar4 c = vload4(0, px + y * stride + 4 * x);                             \
            bins[level[c.x]]++;                                                        \
            green[level[c.y]]++;                                                       \
            blue[level[c.z]]++;                                                        \
            ulong s = 2126u * c.x + 7152u * c.y + 722u * c.z;                          \
            luma[min(s * nb / 2550000, last)]++;                                       \
            if (++x == width) {                                                        \
                x = 0;                                                                 \
                y++;                                                                   \
            }                                                                          \
        }                                                                              \
    }
#else
#define HIST_RGBA_DEFINE(NAME, AS)                                                     \
    inline void NAME(__global const uchar *px, ulong width, ulong stride, ulong p,     \
                     ulong end, ulong step, uint nbins, AS uint *bins)                 \
    {                                                                                  \
        ulong nb = nbins, last = nbins - 1;                                            \
        for (; p < end; p += step) {                                                   \
            ulong y = p / width;                                                       \
            HIST_RGBA_PIXEL(bins, px + y * stride + 4 * (p - y * width));              \
        }                                                                              \
    }
#endif
HIST_RGBA_DEFINE(hist_rgba_into_local, __local)
HIST_RGBA_DEFINE(hist_rgba_into_global, __global)

/* px: the rows of this launch, stride bytes apart; npix = width * rows. */
__kernel void hist_rgba8(__global const uchar *px, ulong width, ulong stride, ulong npix,
                         ulong chunk, uint nbins, __global uint *part, __local uint *bins)
{
    ulong begin, end, step;
    hist_share(npix, chunk, &begin, &end, &step);
    hist_zero_local(bins, 4 * nbins);
    hist_rgba_into_local(px, width, stride, begin, end, step, nbins, bins);
    barrier(CLK_LOCAL_MEM_FENCE);
    hist_write_chunk(bins, 4 * nbins, part);
}

__kernel void hist_rgba8_global(__global const uchar *px, ulong width, ulong stride,
                                ulong npix, ulong chunk, uint nbins, __global uint *part,
                                __local uint *unused)
{
    ulong begin, end, step;
    hist_share(npix, chunk, &begin, &end, &step);
#if HIST_PRIVATE
    part += (ulong)get_group_id(0) * 4 * nbins;
    for (uint i = 0; i < 4 * nbins; i++)
        part[i] = 0;
#endif
    hist_rgba_into_global(px, width, stride, begin, end, step, nbins, part);
}

/* ---- weighted and 2-D histograms (lib/primitives/histogram2d.c) ------------ */

/* HIST_CELLS=1 builds these. A sample's cell is its bin by hist_bin (1-D),
   or bx * ny + by with both coordinates binned by hist_bin over their own
   rule (HIST_2D=1, the y rule's arguments prefixed with y); a sample that
   either rule does not count goes to the spare cell ncells. Cells hold
   32-bit counts (WT_ID 0) or the double sums of float (WT_ID 2) or double
   (WT_ID 5) weights; weights are converted to double exactly, one by one.
     hist_cells       each group bins its share into __local cells and
                      writes them out as one chunk of part (HIST_PRIVATE:
                      one work item per group over a contiguous chunk,
                      plain adds; else a grid-stride walk with __local
                      atomics: a compare-and-swap loop for doubles).
     hist_merge       (at the end of the file, shared with the 1-D
                      histogram) out[i] (+)= the chunks' cell i, chunk by
                      chunk in group order.
     hist_cells_direct cells that do not fit __local memory: every sample
                      adds atomically to out (64-bit counts, or doubles by
                      compare-and-swap; NVIDIA's red.add.f64 with NV_PTX).
     hist_cells_banded counts over such cells by bands of 16-bit __local
                      counters, every band's groups reading every sample.
     hist_cells_split, hist_band_count  the same from one read of the
                      samples: entries by band, then each band's entries. */
#if HIST_CELLS
#ifndef HIST_2D
#define HIST_2D 0
#endif
#ifndef WT_ID
#define WT_ID 0
#endif
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#if WT_ID
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double ACC;
typedef double OUT;
#if WT_ID == 2
typedef float W;
#else
typedef double W;
#endif
#define HIST_WEIGHT(i) ((double)w[i])
#else
typedef uint ACC;
typedef ulong OUT;
typedef uint W;         /* no weights: w is not read */
#define HIST_WEIGHT(i) 1u
#endif

#define HIST_Y_ARGS T ylo, T ytop, T yscale, ulong yq0, ulong ys0, ulong ydm1, ulong ym, \
                    uint ynbm1
#define HIST_Y_RULE ylo, ytop, yscale, yq0, ys0, ydm1, ym, ynbm1

inline uint hist_cell(T x, T y, HIST_RULE_ARGS, HIST_Y_ARGS, uint spare)
{
    uint bx;
    int in = hist_bin(x, HIST_RULE, &bx);
#if HIST_2D
    uint by;
    in &= hist_bin(y, HIST_Y_RULE, &by);
    bx = bx * (ynbm1 + 1) + by;
#endif
    return in ? bx : spare;
}

/* weighted sums may also take the L2's atomics (hist_cells' gwarps) */
#define HIST_WT_GLOBAL (WT_ID && NV_PTX && !HIST_PRIVATE)

#if WT_ID
inline void hist_add_local(__local ACC *bins, uint c, double v)
{
#if HIST_PRIVATE
    bins[c] += v;
#else
#if NV_PTX
    asm volatile("red.shared.add.f64 [%0], %1;" : : "l"((ulong)(bins + c)), "d"(v) : "memory");
#else
    /* a first guess of 0.0 (the cells start there): every read is atomic */
    volatile __local long *q = (volatile __local long *)(bins + c);
    long old = 0, seen;
    do {
        seen = old;
        old = atom_cmpxchg(q, seen, as_long(as_double(seen) + v));
    } while (old != seen);
#endif
#endif
}

inline void hist_add_global(__global OUT *out, double v)
{
#if NV_PTX
    asm volatile("red.global.add.f64 [%0], %1;" : : "l"((ulong)out), "d"(v) : "memory");
#else
    volatile __global long *q = (volatile __global long *)out;
    long old = 0, seen;
    do {
        seen = old;
        old = atom_cmpxchg(q, seen, as_long(as_double(seen) + v));
    } while (old != seen);
#endif
}
#else
inline void hist_add_local(__local ACC *bins, uint c, uint v)
{
#if HIST_PRIVATE
    bins[c] += v;
#else
    atomic_inc(&bins[c]);
#endif
}

inline void hist_add_global(__global OUT *out, uint v)
{
    atom_inc((volatile __global ulong *)out);
}
#endif

#ifdef HIST_VEC
/* Groups of one work item: cells of HIST_VEC samples at a time through
   hist_bin_vec (whose spare bin is nbins), then plain adds. */
inline void hist_cells_vec(__global const T *x, __global const T *y, __global const W *w,
                           ulong begin, ulong end, HIST_RULE_ARGS, HIST_Y_ARGS, uint ncells,
                           __local ACC *bins)
{
    uint idx[HIST_VEC];
    for (ulong i = begin; i + HIST_VEC <= end; i += HIST_VEC) {
        uint16 c = hist_bin_vec(vload16(0, x + i), HIST_RULE);
#if HIST_2D
        uint16 by = hist_bin_vec(vload16(0, y + i), HIST_Y_RULE);
        c = select(c * (ynbm1 + 1) + by, (uint16)ncells, (c > nbm1) | (by > ynbm1));
#endif
        vstore16(c, 0, idx);
        for (int k = 0; k < HIST_VEC; k++)
            bins[idx[k]] += HIST_WEIGHT(i + k);
    }
}
#if T_IS_FLOAT
#define HIST_CELLS_VEC_OK 1
#else
#define HIST_CELLS_VEC_OK (HIST_VEC_OK && (!HIST_2D || ydm1 < (1ul << 62)))
#endif
#endif

/* x, y and w from their offsets on; y is x for 1-D, w unused for counts. */
#define HIST_CELLS_ARGS __global const T *x, ulong xoff, __global const T *y, ulong yoff,   \
                        __global const W *w, ulong woff, ulong n, ulong chunk,             \
                        HIST_RULE_ARGS, HIST_Y_ARGS, uint ncells
#define HIST_CELLS_START() (x += xoff, y += yoff, w += woff)

/* copies: the group's warps add into that many copies of the cells (warp
   w into copy w % copies), so that fewer of them queue on one cell; 1 with
   groups of one work item. gwarps (weighted sums with NV_PTX): the warps
   below it add into the group's chunk of part instead, by the L2's
   atomics, which then run beside the __local ones (each kind alone takes
   about one add per clock); the group's __local sums join them there. */
__kernel void hist_cells(HIST_CELLS_ARGS, uint copies, uint gwarps, __global ACC *part,
                         __local ACC *all)
{
    ulong begin, end, step;
    const uint stride = ncells + 1;
    __local ACC *bins = all + (get_local_id(0) / 32) % copies * stride;
    __global ACC *mine = part + (ulong)get_group_id(0) * ncells;
    HIST_CELLS_START();
    hist_share(n, chunk, &begin, &end, &step);
    for (uint i = get_local_id(0); i < copies * stride; i += get_local_size(0))
        all[i] = 0;
#if HIST_WT_GLOBAL
    const int global_adds = get_local_id(0) / 32 < gwarps;
    if (gwarps) {
        for (uint i = get_local_id(0); i < ncells; i += get_local_size(0))
            mine[i] = 0;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (global_adds) {
        for (ulong i = begin; i < end; i += step) {
            uint c = hist_cell(x[i], y[i], HIST_RULE, HIST_Y_RULE, ncells);
            if (c < ncells)
                hist_add_global(mine + c, HIST_WEIGHT(i));
        }
        begin = end;
    }
#else
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
#ifdef HIST_VEC
    if (HIST_CELLS_VEC_OK) {
        hist_cells_vec(x, y, w, begin, end, HIST_RULE, HIST_Y_RULE, ncells, bins);
        begin += (end - begin) / HIST_VEC * HIST_VEC;
    }
#endif
    for (ulong i = begin; i < end; i += step)
        hist_add_local(bins, hist_cell(x[i], y[i], HIST_RULE, HIST_Y_RULE, ncells),
                       HIST_WEIGHT(i));
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_local_id(0); i < ncells; i += get_local_size(0)) {
        ACC sum = all[i];
        for (uint c = 1; c < copies; c++)
            sum += all[c * stride + i];
#if HIST_WT_GLOBAL
        if (gwarps) {
            hist_add_global(mine + i, sum);
            continue;
        }
#endif
        mine[i] = sum;
    }
}

__kernel void hist_cells_direct(HIST_CELLS_ARGS, __global OUT *out, ulong out_off)
{
    ulong begin, end, step;
    HIST_CELLS_START();
    out += out_off;
    hist_share(n, chunk, &begin, &end, &step);
    for (ulong i = begin; i < end; i += step) {
        uint c = hist_cell(x[i], y[i], HIST_RULE, HIST_Y_RULE, ncells);
        if (c < ncells)
            hist_add_global(out + c, HIST_WEIGHT(i));
    }
}

/* Counts over more cells than __local memory holds as 32-bit counters
   (GPUs): the cells are split into nbands bands of band_cells, each small
   enough as 16-bit counters, and the samples into parts; group g counts
   part g / nbands into band g % nbands (the nbands groups of one part
   start side by side, yet on an H200 each reads the part from memory:
   three bands of 256 x 256 cells cost three times one band of 128 x 128).
   Each band then adds its nonzero counts to out with one 64-bit atomic
   per cell, instead of one per sample (which the L2's atomic units bound,
   whatever the loads do: on an H200, 256 x 256 cells at 2^28 samples
   take 3.04 ms with one sample's loads in flight per item and 3.04 with
   four).
   The 16-bit counters share 32-bit words. The item whose increment takes
   a counter from 0x7fff to 0x8000 moves 0x8000 of it to out at once, and
   a barrier after every `items` samples per item bounds what a counter
   gains meanwhile to the group's size times items, at most 16384: a
   counter starts each round below 0x8000 and stays below 0x8000 + 16384
   within it, so it never carries into its neighbour. Groups of any size
   up to 16384 / HIST_BAND_LOADS items. */
#ifndef HIST_BAND_LOADS
#define HIST_BAND_LOADS 4   /* samples an item loads before it counts them */
#endif
#if !HIST_PRIVATE && !WT_ID
/* One count into cell c of a band's 16-bit counters, moving 0x8000 of it to
   dst[c] when it reaches 0x8000 (the rounds' bound above). */
inline void hist_half_inc(__local uint *halves, uint c, volatile __global ulong *dst)
{
    uint sh = 16 * (c & 1);
    uint old = atomic_add(&halves[c / 2], 1u << sh);
    if ((old >> sh & 0xffff) == 0x7fff) {
        atomic_sub(&halves[c / 2], 0x8000u << sh);
        atom_add(dst + c, 0x8000ul);
    }
}

/* The band's cn counters, where nonzero, added to dst (after a barrier). */
inline void hist_halves_out(__local const uint *halves, uint cn, volatile __global ulong *dst)
{
    for (uint c = get_local_id(0); c < cn; c += get_local_size(0)) {
        uint v = halves[c / 2] >> 16 * (c & 1) & 0xffff;
        if (v)
            atom_add(dst + c, (ulong)v);
    }
}

__kernel void hist_cells_banded(HIST_CELLS_ARGS, uint band_cells, uint nbands, ulong part,
                                __global OUT *out, ulong out_off, __local uint *halves)
{
    uint g = get_group_id(0), lid = get_local_id(0), wg = get_local_size(0);
    uint items = 16384 / wg / HIST_BAND_LOADS * HIST_BAND_LOADS;
    uint first = g % nbands * band_cells, cn = min(band_cells, ncells - first);
    ulong begin = min(n, g / nbands * part), end = min(n, begin + part);
    volatile __global ulong *dst = (volatile __global ulong *)(out + out_off + first);
    HIST_CELLS_START();
    for (uint j = lid; j < band_cells / 2; j += wg)
        halves[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong r = begin; r < end; r += (ulong)wg * items) {
        /* HIST_BAND_LOADS samples' loads in flight before their counts */
        for (uint k = 0; k < items; k += HIST_BAND_LOADS) {
            T xs[HIST_BAND_LOADS], ys[HIST_BAND_LOADS];
#pragma unroll
            for (uint u = 0; u < HIST_BAND_LOADS; u++) {
                ulong i = min(r + (ulong)(k + u) * wg + lid, end - 1);
                xs[u] = x[i];
                ys[u] = y[i];
            }
#pragma unroll
            for (uint u = 0; u < HIST_BAND_LOADS; u++) {
                uint c = hist_cell(xs[u], ys[u], HIST_RULE, HIST_Y_RULE, ncells) - first;
                if (r + (ulong)(k + u) * wg + lid < end && c < cn)
                    hist_half_inc(halves, c, dst);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    hist_halves_out(halves, cn, dst);
}

/* Counts over several bands, reading the samples once: hist_cells_split
   writes each counted sample's cell within its part of the cells as a
   16-bit entry, the entries of a tile grouped by part, and each group of
   hist_band_count counts one band of 32-bit counters from the entries of
   the part that holds it. A part is `subs` adjacent bands (at most six
   parts: 256 x 256 cells are six bands, a part each; 400 x 400 fourteen,
   five parts of up to three). Per f32 sample 8 bytes read and 2 written,
   then 2 read by each band of the part, where hist_cells_banded reads 8
   bytes per band.
   Tile g is samples [g * tile, (g + 1) * tile), tile = group size x
   HIST_SPLIT_ITEMS (at most 16384); its entries fill ent[g * tile ..]
   part by part, part p's from starts[g * (nparts + 1) + p] up to the next
   start (offsets within the tile). An item loads four adjacent samples
   at a time where the tile is whole and aligned (its loads, not its
   bytes, bound the pass on an H200), else one sample a group's width
   apart. An item's counts per part are the 10-bit fields of a ulong,
   added up over its segment (warp shuffles on NVIDIA, else Hillis and
   Steele) and the segments' sums over the group into each item's place
   within each part; the entries meet in __local memory and leave it in
   order. */
#ifndef HIST_SPLIT_ITEMS /* histogram2d.c passes its CELLS_SPLIT_ITEMS (a multiple of 4) */
#define HIST_SPLIT_ITEMS 16
#endif

/* A segment is up to 32 adjacent items (a warp on NVIDIA); an item's
   counts per part, and their sums over its segment (at most 32 x 16),
   are 10-bit fields of a ulong: up to six parts. */
#define HIST_SPLIT_PARTS 6
#define HIST_SPLIT_SEG 32u
#if HIST_SPLIT_ITEMS * 32 > 1023
#error "hist_cells_split: a segment's count of a part must fit 10 bits"
#endif

inline ulong hist_split_one(uint p)
{
    return 1ul << 10 * p;
}

inline uint hist_split_field(ulong v, uint p)
{
    return (uint)(v >> 10 * p) & 0x3ff;
}

#if NV_PTX
/* A warp's inclusive sums of v. */
inline ulong hist_split_warp_scan(ulong v, uint lane)
{
    for (uint off = 1; off < 32; off *= 2) {
        uint2 h = as_uint2(v);
        ulong t = as_ulong((uint2)(nv_shfl_up(h.s0, off), nv_shfl_up(h.s1, off)));
        if (lane >= off)
            v += t;
    }
    return v;
}
#endif

/* Where an item's entries go in the tile's stage: returns the item's
   exclusive sums of v within its segment (fields as v's), and fills
   offs[seg * HIST_SPLIT_PARTS + p] with the place of segment seg's first
   entry of part p (the parts in order, segments in order within each),
   and ptot[p] with the tile's count of part p. On NVIDIA (groups of whole
   warps) warps' shuffles, then the first warp's over the segments' sums,
   two parts to a word (a tile's count of a part is below 2^16); else
   Hillis and Steele within each segment over sums (the group's size in
   ulong), then an item a part over the segments. */
inline ulong hist_split_scan(ulong v, uint nparts, __local ulong *sums, __local uint *offs,
                             __local uint *ptot)
{
    uint lid = get_local_id(0), wg = get_local_size(0);
    uint sl = min(HIST_SPLIT_SEG, wg), lane = lid % sl, nseg = wg / sl;
    ulong u;
#if NV_PTX
    if (wg % 32 == 0) {
        u = hist_split_warp_scan(v, lane);
        if (lane == 31)
            sums[lid / 32] = u;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < 32) {
            ulong t = lid < nseg ? sums[lid] : 0;
            uint3 f = (uint3)(hist_split_field(t, 0) | hist_split_field(t, 1) << 16,
                              hist_split_field(t, 2) | hist_split_field(t, 3) << 16,
                              hist_split_field(t, 4) | hist_split_field(t, 5) << 16);
            uint3 s = f;
            for (uint off = 1; off < nseg; off *= 2) {
                uint3 q = (uint3)(nv_shfl_up(s.x, off), nv_shfl_up(s.y, off),
                                  nv_shfl_up(s.z, off));
                if (lid >= off)
                    s += q;
            }
            uint3 tot = (uint3)(nv_shfl_idx(s.x, nseg - 1), nv_shfl_idx(s.y, nseg - 1),
                                nv_shfl_idx(s.z, nseg - 1));
            s -= f;
            /* the parts' starts (parts past nparts have no entries) */
            uint b1 = tot.x & 0xffff, b2 = b1 + (tot.x >> 16), b3 = b2 + (tot.y & 0xffff);
            uint b4 = b3 + (tot.y >> 16), b5 = b4 + (tot.z & 0xffff);
            if (lid < nseg) {
                __local uint *o = offs + lid * HIST_SPLIT_PARTS;
                o[0] = s.x & 0xffff;
                o[1] = b1 + (s.x >> 16);
                o[2] = b2 + (s.y & 0xffff);
                o[3] = b3 + (s.y >> 16);
                o[4] = b4 + (s.z & 0xffff);
                o[5] = b5 + (s.z >> 16);
            }
            uint w = lid < 2 ? tot.x : lid < 4 ? tot.y : tot.z;
            if (lid < nparts)
                ptot[lid] = lid % 2 ? w >> 16 : w & 0xffff;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        return u - v;
    }
#endif
    sums[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < sl; off *= 2) {
        ulong t = lane >= off ? sums[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        sums[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    u = sums[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane == sl - 1)
        sums[lid / sl] = u;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* segments' totals into each part's offsets, one item a part */
    if (lid < nparts) {
        uint s = 0;
        for (uint k = 0; k < nseg; k++) {
            offs[k * HIST_SPLIT_PARTS + lid] = s;
            s += hist_split_field(sums[k], lid);
        }
        ptot[lid] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* then the starts of the parts before (only the parts there are:
       the others' offsets were never written) */
    for (uint i = lid; i < nseg * HIST_SPLIT_PARTS; i += wg) {
        uint p = i % HIST_SPLIT_PARTS, before = 0;
        if (p >= nparts)
            continue;
        for (uint q = 0; q < p; q++)
            before += ptot[q];
        offs[i] += before;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return u - v;
}

/* An entry in registers: the part above 16 bits, the cell within the part
   below (part_cells <= 2^16); HIST_SPLIT_NONE for a sample not counted. */
#define HIST_SPLIT_NONE 0xffffffffu

/* sums: the group's size x 8 bytes, then max(group size, 16) x 4 (the
   segments' offsets and the parts' counts), then the tile's entries, 2
   bytes each */
__kernel void hist_cells_split(HIST_CELLS_ARGS, uint part_cells, uint nparts,
                               __global ushort *ent, __global uint *starts,
                               __local ulong *sums)
{
    uint g = get_group_id(0), lid = get_local_id(0), wg = get_local_size(0);
    ulong tile = (ulong)wg * HIST_SPLIT_ITEMS, base = g * tile;
    __local uint *ptot = (__local uint *)(sums + wg), *offs = ptot + HIST_SPLIT_PARTS;
    __local ushort *stage = (__local ushort *)(ptot + max(wg, 16u));
    uint e[HIST_SPLIT_ITEMS];
    ulong mine = 0;
    HIST_CELLS_START();
    /* a whole tile of aligned samples: four adjacent samples an item and
       load (a quarter of the load instructions), else one */
    if (((ulong)x | (ulong)y) % sizeof(T4) == 0 && base + tile <= n) {
        __global const T4 *x4 = (__global const T4 *)(x + base);
        __global const T4 *y4 = (__global const T4 *)(y + base);
#pragma unroll
        for (uint k = 0; k < HIST_SPLIT_ITEMS; k += 4) {
            T4 a = x4[k / 4 * wg + lid], b = y4[k / 4 * wg + lid];
            e[k] = hist_cell(a.s0, b.s0, HIST_RULE, HIST_Y_RULE, ncells);
            e[k + 1] = hist_cell(a.s1, b.s1, HIST_RULE, HIST_Y_RULE, ncells);
            e[k + 2] = hist_cell(a.s2, b.s2, HIST_RULE, HIST_Y_RULE, ncells);
            e[k + 3] = hist_cell(a.s3, b.s3, HIST_RULE, HIST_Y_RULE, ncells);
        }
    } else {
#pragma unroll
        for (uint k = 0; k < HIST_SPLIT_ITEMS; k++) {
            ulong i = base + (ulong)k * wg + lid, j = min(i, n - 1);
            uint c = hist_cell(x[j], y[j], HIST_RULE, HIST_Y_RULE, ncells);
            e[k] = i < n ? c : ncells;
        }
    }
    /* part = cell / part_cells by a multiplication: mul_hi(cell, magic),
       exact while ncells * part_cells < 2^32, else (cell * magic) >> 40,
       exact while that is below 2^40, with magic 32-bit while part_cells
       > 256 (histogram2d.c's plan sees to both); the first is an
       instruction less a sample */
#define HIST_SPLIT_ENTRY(k, p)                                                    \
    do {                                                                          \
        uint c_ = e[k], p_ = (p);                                                 \
        e[k] = c_ < ncells ? p_ << 16 | (c_ - p_ * part_cells) : HIST_SPLIT_NONE; \
        if (c_ < ncells)                                                          \
            mine += hist_split_one(p_);                                           \
    } while (0)
    if ((ulong)ncells * part_cells < 0x100000000ul) {
        uint magic = 0xffffffffu / part_cells + 1;
#pragma unroll
        for (uint k = 0; k < HIST_SPLIT_ITEMS; k++)
            HIST_SPLIT_ENTRY(k, mul_hi(e[k], magic));
    } else {
        uint magic = (uint)(0xfffffffffful / part_cells + 1);
#pragma unroll
        for (uint k = 0; k < HIST_SPLIT_ITEMS; k++)
            HIST_SPLIT_ENTRY(k, (uint)((ulong)e[k] * magic >> 40));
    }
#undef HIST_SPLIT_ENTRY
    ulong at = hist_split_scan(mine, nparts, sums, offs, ptot);
    /* a part's start is its first segment's offset */
    uint sum = offs[nparts - 1] + ptot[nparts - 1];
    if (lid <= nparts)
        starts[(ulong)g * (nparts + 1) + lid] = lid < nparts ? offs[lid] : sum;
    __local const uint *mo = offs + lid / min(HIST_SPLIT_SEG, wg) * HIST_SPLIT_PARTS;
#pragma unroll
    for (uint k = 0; k < HIST_SPLIT_ITEMS; k++)
        if (e[k] != HIST_SPLIT_NONE) {
            uint p = e[k] >> 16;
            stage[mo[p] + hist_split_field(at, p)] = (ushort)e[k];
            at += hist_split_one(p);
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* out four entries at a time (ent + base is 8-byte aligned), the last
       few one by one */
    __global ulong *ent4 = (__global ulong *)(ent + base);
    __local const ulong *stage4 = (__local const ulong *)stage;
    for (uint k = lid; k < sum / 4; k += wg)
        ent4[k] = stage4[k];
    for (uint k = sum / 4 * 4 + lid; k < sum; k += wg)
        ent[base + k] = stage[k];
}

/* An entry of a band's part into the band's counters, if it is the band's */
inline void hist_entry_inc(__local uint *bins, uint entry, uint skip, uint cn)
{
    uint c = entry - skip;
    if (c < cn)
        atomic_inc(&bins[c]);
}

inline void hist_entries_inc(__local uint *bins, ushort4 v, uint skip, uint cn)
{
    hist_entry_inc(bins, v.s0, skip, cn);
    hist_entry_inc(bins, v.s1, skip, cn);
    hist_entry_inc(bins, v.s2, skip, cn);
    hist_entry_inc(bins, v.s3, skip, cn);
}

/* Group g counts band g % nbands over tiles [g / nbands * per_group, ..+
   per_group), each team of up to 32 items (a warp) a tile at a time with
   sixteen entries (four loads) a lane in flight, into 32-bit counters (a
   group's count stays below the launch's 2^27 samples). Band b is the
   (b % subs)-th of part b / subs: its entries are those of the part less
   b % subs times band_cells, below band_cells. The bands of one part are
   adjacent groups, which read the part's entries at about the same
   time. */
__kernel void hist_band_count(__global const ushort *ent, __global const uint *starts,
                              ulong ntiles, uint tile, uint band_cells, uint nbands, uint subs,
                              uint ncells, ulong per_group, __global OUT *out, ulong out_off,
                              __local uint *bins)
{
    uint g = get_group_id(0), lid = get_local_id(0), wg = get_local_size(0);
    uint w = min(32u, wg), lane = lid % w, team = lid / w, teams = wg / w;
    uint b = g % nbands, first = b * band_cells, cn = min(band_cells, ncells - first);
    uint part = b / subs, nparts = (nbands + subs - 1) / subs, skip = b % subs * band_cells;
    ulong t0 = min(ntiles, g / nbands * per_group), t1 = min(ntiles, t0 + per_group);
    volatile __global ulong *dst = (volatile __global ulong *)(out + out_off + first);
    for (uint j = lid; j < cn; j += wg)
        bins[j] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (ulong t = t0 + team; t < t1; t += teams) {
        __global const uint *st = starts + t * (nparts + 1) + part;
        __global const ushort *src = ent + t * tile;
        /* the entries from the first multiple of four to the last four at
           a time (src is 8-byte aligned: tile is a multiple of four), the
           few before and after one by one */
        uint s = st[0], e = st[1], a = min(e, (s + 3) & ~3u), z = max(a, e & ~3u);
        for (uint j = s + lane; j < a; j += w)
            hist_entry_inc(bins, src[j], skip, cn);
        for (uint j = z + lane; j < e; j += w)
            hist_entry_inc(bins, src[j], skip, cn);
        __global const ushort4 *src4 = (__global const ushort4 *)src;
        uint k = a / 4 + lane, e4 = z / 4;
        /* four loads a lane in flight first (on an H200, 2^28 samples into
           256 x 256 cells: two 1.011-1.026 ms, four 0.997-0.999, eight
           1.028-1.035) */
        for (; k < e4; k += 4 * w) {
            ushort4 v[4];
#pragma unroll
            for (uint u = 0; u < 4; u++)
                if (k + u * w < e4)
                    v[u] = src4[k + u * w];
#pragma unroll
            for (uint u = 0; u < 4; u++)
                if (k + u * w < e4)
                    hist_entries_inc(bins, v[u], skip, cn);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = lid; c < cn; c += wg)
        if (bins[c])
            atom_add(dst + c, (ulong)bins[c]);
}
#endif

#endif

/* ---- the chunks' bins into the result -------------------------------------- */

#if !HIST_CELLS
typedef uint ACC;  /* the 1-D histogram's counts per chunk */
typedef ulong OUT;
#endif

/* out[i] (+)= sum over the chunks of part[c * nbins + i], in an order fixed
   by the launch alone, so that sums of weights do not depend on timing. A
   group takes `lanes` cells, item l cell l % lanes; the group's
   size / lanes slices of items each sum every slices-th chunk from their
   own (four sums in turn, so that four loads are in flight), and the
   cell's first item adds the slices up in order. One slice (lanes = group
   size) sums each cell's chunks alone, as a CPU's items should; on a GPU
   (say eight cells a group of 256) a cell's 1000 chunks take a few round
   trips to memory where one item would take hundreds. */
__kernel void hist_merge(__global const ACC *part, uint nchunks, uint nbins,
                         __global OUT *out, ulong out_off, uint accumulate, uint lanes,
                         __local OUT *sums)
{
    const uint lid = get_local_id(0), lane = lid % lanes, slice = lid / lanes;
    const uint slices = get_local_size(0) / lanes, i = get_group_id(0) * lanes + lane;
    OUT s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    if (i < nbins) {
        __global const ACC *p = part + i;
        const ulong step = (ulong)slices * nbins;
        uint c = slice;
        for (; c + 3 * slices < nchunks; c += 4 * slices) {
            __global const ACC *q = p + (ulong)c * nbins;
            s0 += q[0];
            s1 += q[step];
            s2 += q[2 * step];
            s3 += q[3 * step];
        }
        for (; c < nchunks; c += slices)
            s0 += p[(ulong)c * nbins];
    }
    if (slices == 1) {
        if (i < nbins)
            out[out_off + i] = (accumulate ? out[out_off + i] : 0) + ((s0 + s1) + (s2 + s3));
        return;
    }
    sums[lid] = (s0 + s1) + (s2 + s3);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slice == 0 && i < nbins) {
        OUT sum = accumulate ? out[out_off + i] : 0;
        for (uint k = 0; k < slices; k++)
            sum += sums[k * lanes + lane];
        out[out_off + i] = sum;
    }
}
