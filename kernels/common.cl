/* common.cl - prepended to every kernel file: the element type, the
   operator and the plan's tunables, each from a -D option with a default so
   that every file also compiles on its own (oclgrind, experiments).

     TYPE_ID  0 int, 1 uint, 2 float, 3 long, 4 ulong, 5 double (gpgpu_type)
     OP_ID    0 sum, 1 min, 2 max, 16 user (USER_COMBINE, USER_IDENTITY)
     WG       work-group size (a power of two)
     GROUP    a program's own work-group size where it is not the plan's WG
              (the look-back scan's, GPGPU_LOOKBACK_WG): it replaces WG in
              every file
     CHUNKED  1: each work item owns a contiguous chunk (CPUs);
              0: adjacent work items read adjacent words (GPUs)
     NV_PTX   1: NVIDIA inline PTX may be used (never on other devices)
     MAP(x)   transform applied to each element as it is loaded (default x) */

#ifndef TYPE_ID
#define TYPE_ID 1
#endif
#ifndef OP_ID
#define OP_ID 0
#endif
#ifndef WG
#define WG 64
#endif
#ifdef GROUP
#undef WG
#define WG GROUP
#endif
#ifndef CHUNKED
#define CHUNKED 0
#endif
#ifndef NV_PTX
#define NV_PTX 0
#endif

#if TYPE_ID == 5
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if TYPE_ID == 0
typedef int T;
typedef int4 T4;
#define T_LOWEST INT_MIN
#define T_HIGHEST INT_MAX
#define T_IS_FLOAT 0
#elif TYPE_ID == 1
typedef uint T;
typedef uint4 T4;
#define T_LOWEST 0u
#define T_HIGHEST UINT_MAX
#define T_IS_FLOAT 0
#elif TYPE_ID == 2
typedef float T;
typedef float4 T4;
#define T_LOWEST (-INFINITY)
#define T_HIGHEST INFINITY
#define T_IS_FLOAT 1
#elif TYPE_ID == 3
typedef long T;
typedef long4 T4;
#define T_LOWEST LONG_MIN
#define T_HIGHEST LONG_MAX
#define T_IS_FLOAT 0
#elif TYPE_ID == 4
typedef ulong T;
typedef ulong4 T4;
#define T_LOWEST 0ul
#define T_HIGHEST ULONG_MAX
#define T_IS_FLOAT 0
#elif TYPE_ID == 5
typedef double T;
typedef double4 T4;
#define T_LOWEST (-INFINITY)
#define T_HIGHEST INFINITY
#define T_IS_FLOAT 1
#else
#error "unknown TYPE_ID"
#endif

/* COMBINE works on T and on T4 for the built-in operators. Float MIN/MAX
   follow fmin/fmax: a NaN loses to any number. */
#if OP_ID == 0
#define IDENTITY ((T)0)
#define COMBINE(a, b) ((a) + (b))
#elif OP_ID == 1
#define IDENTITY ((T)T_HIGHEST)
#if T_IS_FLOAT
#define COMBINE(a, b) fmin((a), (b))
#else
#define COMBINE(a, b) min((a), (b))
#endif
#elif OP_ID == 2
#define IDENTITY ((T)T_LOWEST)
#if T_IS_FLOAT
#define COMBINE(a, b) fmax((a), (b))
#else
#define COMBINE(a, b) max((a), (b))
#endif
#elif OP_ID == 16
/* A user operator: a scalar expression, applied lane by lane to vectors. */
#define IDENTITY ((T)(USER_IDENTITY))
static inline T gpgpu_user_combine(T a, T b) { return (T)(USER_COMBINE); }
#define COMBINE(a, b) gpgpu_user_combine((a), (b))
#define COMBINE4_LANES 1
#else
#error "unknown OP_ID"
#endif

#ifdef MAP
static inline T gpgpu_map(T x) { return (T)(MAP); }
#define MAP1(x) gpgpu_map(x)
#define MAP4(v) ((T4)(gpgpu_map((v).s0), gpgpu_map((v).s1), gpgpu_map((v).s2), gpgpu_map((v).s3)))
#else
#define MAP1(x) (x)
#define MAP4(v) (v)
#endif

#ifdef COMBINE4_LANES
#define COMBINE4(a, b) ((T4)(COMBINE((a).s0, (b).s0), COMBINE((a).s1, (b).s1), \
                             COMBINE((a).s2, (b).s2), COMBINE((a).s3, (b).s3)))
#else
#define COMBINE4(a, b) COMBINE((a), (b))
#endif

/* Folds the four lanes in a fixed order (deterministic floats). */
#define FOLD4(v) COMBINE(COMBINE((v).s0, (v).s1), COMBINE((v).s2, (v).s3))

/* Work-group reduction of one value per work item through __local memory:
   every item must call it (it contains barriers); all get the result. */
static inline T group_reduce(T x, __local T *tree)
{
    const uint lid = get_local_id(0);
    tree[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            tree[lid] = COMBINE(tree[lid], tree[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T r = tree[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* tree may be reused by the caller */
    return r;
}

/* The 64-bit status words of decoupled look-backs (scan.cl, sort.cl), read
   and written by accesses that are not data races: PTX volatile loads and
   stores on NVIDIA (relaxed, system scope: morally strong in PTX's memory
   model, and as fast as plain ones), 64-bit atomics elsewhere where the
   device has them (a plain store racing a plain load is a data race under
   OpenCL 1.2, and oclgrind says so), volatile accesses otherwise. Each word
   carries a flag and its value together, so no other ordering is needed. */
#if NV_PTX
static inline ulong status_load(__global ulong *p)
{
    ulong v;
    asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(v) : "l"((ulong)p) : "memory");
    return v;
}
static inline void status_store(__global ulong *p, ulong v)
{
    asm volatile("st.volatile.global.u64 [%0], %1;" : : "l"((ulong)p), "l"(v) : "memory");
}
#elif defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
static inline ulong status_load(__global ulong *p)
{
    return atom_or((__global volatile ulong *)p, 0ul);
}
static inline void status_store(__global ulong *p, ulong v)
{
    atom_xchg((__global volatile ulong *)p, v);
}
#else
static inline ulong status_load(__global ulong *p)
{
    return *(__global volatile ulong *)p;
}
static inline void status_store(__global ulong *p, ulong v)
{
    *(__global volatile ulong *)p = v;
}
#endif

/* Orders this work item's global accesses before and after it for every
   work item of the device: between a group's last words and the atomic
   that says they are out, or that atomic and the reads that follow. */
static inline void gpu_fence(void)
{
#if NV_PTX
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

/* NVIDIA warp collectives through inline PTX, for every lane of a full
   warp (the kernels that use them keep whole warps converged there). */
#if NV_PTX
static inline uint nv_ballot(uint pred)
{
    uint r;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
                 : "=r"(r) : "r"(pred));
    return r;
}
static inline uint nv_shfl_up(uint x, uint off)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(off));
    return r;
}
static inline uint nv_shfl_down(uint x, uint off)
{
    uint r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(off));
    return r;
}
/* Asks L2 for the 128-byte line at p without waiting for it (no register
   holds the data). */
static inline void nv_prefetch_l2(__global const void *p)
{
    asm volatile("prefetch.global.L2 [%0];" : : "l"((ulong)p));
}
static inline uint nv_shfl_idx(uint x, uint src)
{
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(x), "r"(src));
    return r;
}
#endif
