/* huge - every primitive once at one n (default 2^32 + 5 elements), through
   the host API on the default device, each result checked against plain C
   on the host. Built and run by bench/huge.sh:

     huge [N] [OP ...]          (no OP: all of them)

   One line per primitive: name, PASS or FAIL (or the status and message),
   the call's wall time (transfers included; kernels are built by a call at
   a small n first) and elements per second.
   Inputs come from a counter-based generator, so that a check recomputes
   them instead of keeping a copy: the host holds at most 68 GiB at
   2^32 + 5 (gather: values, output and 8-byte indices; search_sorted:
   keys, needles and 8-byte positions).
   The segmented sort runs on the device's kernels (GPGPU_SEGSORT=device,
   set here unless the caller set it). Exit status: 0 if every primitive
   passed. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpgpu.h"

static gpgpu_context *ctx;
static size_t n;

/* ---- inputs ---------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint32_t val(size_t i) { return (uint32_t)mix(i); }              /* full range */
static uint32_t run_key(size_t i) { return (uint32_t)mix(~(uint64_t)(i >> 2)); } /* runs of 4 */
static int picked(uint32_t x) { return x % 3 == 0; }                     /* "x % 3 == 0" */
static const char *const pick_expr = "x % 3 == 0";

/* ---- a parallel loop over [0, n) ------------------------------------------ */

enum { MAX_THREADS = 64 };

typedef struct {
    void (*fn)(void *arg, size_t lo, size_t hi, uint64_t *acc);
    void *arg;
    size_t lo, hi;
    uint64_t acc[4];
} part;

static void *part_run(void *p_)
{
    part *p = p_;
    p->fn(p->arg, p->lo, p->hi, p->acc);
    return NULL;
}

/* fn over [0, count) in one stretch per thread; each thread's four
   accumulators are summed into acc (may be NULL). */
static void par(size_t count, void (*fn)(void *, size_t, size_t, uint64_t *), void *arg,
                uint64_t *acc)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (size_t)cpus;
    if (count < ((size_t)1 << 20))
        t = 1;
    part parts[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    for (size_t k = 0; k < t; k++) {
        parts[k] = (part){ fn, arg, count / t * k, k + 1 == t ? count : count / t * (k + 1),
                           { 0, 0, 0, 0 } };
        if (k && pthread_create(&th[k], NULL, part_run, &parts[k]))
            part_run(&parts[k]);
    }
    part_run(&parts[0]);
    for (size_t k = 1; k < t; k++)
        pthread_join(th[k], NULL);
    for (size_t k = 0; acc && k < t; k++)
        for (int a = 0; a < 4; a++)
            acc[a] += parts[k].acc[a];
}

static void fill_val(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((uint32_t *)a)[i] = val(i);
}

static void fill_runs(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((uint32_t *)a)[i] = run_key(i);
}

static void fill_index(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((uint32_t *)a)[i] = (uint32_t)i;
}

static void fill_small_float(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    for (size_t i = lo; i < hi; i++) {
        int64_t x = (int64_t)(val(i) & 15) - 8;
        ((float *)a)[i] = (float)x;
        acc[0] += (uint64_t)x;
    }
}

/* ---- running one case ------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "huge: no host memory for %zu bytes\n", bytes);
        exit(2);
    }
    return p;
}

static int failures, warming;
static double t_call;

#define CALL(expr)                                                                         \
    do {                                                                                   \
        double t0_ = now_s();                                                              \
        gpgpu_status s_ = (expr);                                                          \
        t_call = now_s() - t0_;                                                            \
        if (s_ != GPGPU_SUCCESS) {                                                         \
            printf("%-20s ERROR%s %s: %s\n", name, warming ? " (warm-up)" : "",           \
                   gpgpu_status_string(s_), gpgpu_last_error(ctx));                        \
            fflush(stdout);                                                                \
            failures++;                                                                    \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

static void report(const char *name, int ok, const char *note)
{
    if (warming && ok)
        return;
    if (warming)
        printf("(warm-up, n = %zu) ", n);
    printf("%-20s %s %9.3f s %8.3f Gelem/s  %s\n", name, ok ? "PASS" : "FAIL", t_call,
           t_call > 0 ? (double)n / t_call * 1e-9 : 0.0, note);
    fflush(stdout);
    failures += !ok;
}

/* ---- checks (each over [lo, hi), reading a[lo - 1] where it needs) ---------- */

typedef struct {
    const uint32_t *a, *b;
} pair;

static void sum_val(void *unused, size_t lo, size_t hi, uint64_t *acc)
{
    (void)unused;
    for (size_t i = lo; i < hi; i++) {
        uint32_t x = val(i);
        acc[0] += x;
        acc[1] += mix(x);
        acc[2] += mix(x ^ ((uint64_t)(uint32_t)i << 32));
    }
}

/* acc[0]: descents, acc[1]: sum of mix(key), acc[2]: sum of mix(key, value),
   acc[3]: equal neighbours whose values (indices mod 2^32) do not increase,
   unless one of them may be an index of 2^32 or more */
static void check_sorted(void *p_, size_t lo, size_t hi, uint64_t *acc)
{
    const pair *p = p_;
    /* a value below amb may be the index itself or that plus 2^32 */
    const size_t amb = n > ((size_t)1 << 32) ? n - ((size_t)1 << 32) : 0;
    for (size_t i = lo; i < hi; i++) {
        uint32_t k = p->a[i];
        if (i && p->a[i - 1] > k)
            acc[0]++;
        acc[1] += mix(k);
        if (p->b) {
            acc[2] += mix(k ^ ((uint64_t)p->b[i] << 32));
            if (i && p->a[i - 1] == k && p->b[i - 1] >= p->b[i] && p->b[i] >= amb &&
                p->b[i - 1] >= amb)
                acc[3]++;
        }
    }
}

static void check_scan(void *a_, size_t lo, size_t hi, uint64_t *acc)
{
    const uint32_t *a = a_;
    for (size_t i = lo; i < hi; i++)
        acc[0] += a[i] != (uint32_t)((i ? a[i - 1] : 0) + val(i));
}

static void check_scan_by_key(void *a_, size_t lo, size_t hi, uint64_t *acc)
{
    const uint32_t *a = a_;
    for (size_t i = lo; i < hi; i++) {
        int head = i == 0 || run_key(i) != run_key(i - 1);
        acc[0] += a[i] != (uint32_t)((head ? 0 : a[i - 1]) + val(i));
    }
}

/* ---- the primitives ------------------------------------------------------- */

static void do_reduce(const char *name)
{
    uint32_t *a = alloc(n * 4), got = 0;
    uint64_t ref[4] = { 0 };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_reduce(ctx, GPGPU_U32, GPGPU_SUM, a, n, &got));
    par(n, sum_val, NULL, ref);
    report(name, got == (uint32_t)ref[0], "u32 sum (wrapping)");
done:
    free(a);
}

static void do_reduce_index(const char *name)
{
    uint32_t *a = alloc(n * 4), got = 0;
    size_t at = 0, want = 0;
    par(n, fill_val, a, NULL);
    a[n - 1] = 0; /* the lowest index of the minimum: past 2^32 unless val() has a 0 */
    CALL(gpgpu_reduce_index(ctx, GPGPU_U32, GPGPU_MIN, a, n, &got, &at));
    for (size_t i = 0; i < n; i++)
        if (a[i] < a[want])
            want = i;
    report(name, got == a[want] && at == want, "u32 min and its lowest index");
done:
    free(a);
}

static void do_scan(const char *name)
{
    uint32_t *a = alloc(n * 4);
    uint64_t bad[4] = { 0 };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_scan(ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, a, a, n));
    par(n, check_scan, a, bad);
    report(name, bad[0] == 0, "u32 inclusive sum, in place");
done:
    free(a);
}

static void count_bins(void *b_, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    uint64_t *b = b_, mine[256] = { 0 }, edges[4] = { 0 };
    for (size_t i = lo; i < hi; i++) {
        uint32_t x = val(i);
        mine[x >> 24]++;
        edges[x < 1000000000u ? 0 : x < 2000000000u ? 1 : x < 3000000000u ? 2 : 3]++;
    }
    for (int k = 0; k < 256; k++)
        __atomic_add_fetch(&b[k], mine[k], __ATOMIC_RELAXED);
    for (int k = 0; k < 4; k++)
        __atomic_add_fetch(&b[256 + k], edges[k], __ATOMIC_RELAXED);
}

static void do_histogram(const char *name)
{
    uint32_t *a = alloc(n * 4);
    uint64_t got[256], want[260] = { 0 };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_histogram(ctx, GPGPU_U32, a, n, 256, 0.0, 4294967296.0, got));
    par(n, count_bins, want, NULL);
    report(name, !memcmp(got, want, sizeof got), "u32, 256 bins over [0, 2^32)");
done:
    free(a);
}

static void do_histogram_edges(const char *name)
{
    uint32_t *a = alloc(n * 4);
    uint64_t got[4], want[260] = { 0 };
    const double edges[5] = { 0, 1e9, 2e9, 3e9, 4294967296.0 };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_histogram_edges(ctx, GPGPU_U32, a, n, edges, 4, got));
    par(n, count_bins, want, NULL);
    report(name, !memcmp(got, want + 256, sizeof got), "u32, 4 bins between given edges");
done:
    free(a);
}

static void do_sort(const char *name)
{
    uint32_t *a = alloc(n * 4);
    uint64_t ref[4] = { 0 }, got[4] = { 0 };
    pair p = { a, NULL };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_sort(ctx, GPGPU_U32, a, n, 0));
    par(n, sum_val, NULL, ref);
    par(n, check_sorted, &p, got);
    report(name, got[0] == 0 && got[1] == ref[1], "u32 keys: in order, same keys (hash)");
done:
    free(a);
}

static void do_sort_pairs(const char *name)
{
    uint32_t *a = alloc(n * 4), *v = alloc(n * 4);
    uint64_t ref[4] = { 0 }, got[4] = { 0 };
    pair p = { a, v };
    par(n, fill_val, a, NULL);
    par(n, fill_index, v, NULL);
    CALL(gpgpu_sort_pairs(ctx, GPGPU_U32, a, v, 4, n, 0));
    par(n, sum_val, NULL, ref);
    par(n, check_sorted, &p, got);
    report(name, got[0] == 0 && got[1] == ref[1] && got[2] == ref[2] && got[3] == 0,
           "u32 keys, u32 values (index mod 2^32): in order, same pairs (hash), stable");
done:
    free(a);
    free(v);
}

static void do_segmented_sort(const char *name)
{
    uint32_t *a = alloc(n * 4);
    size_t off[4] = { 0, 2, 3, n }; /* at 2^32 + 5 the last one has more than 2^32 keys */
    uint64_t ref[4] = { 0 }, got[4] = { 0 };
    pair p = { a, NULL };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_segmented_sort(ctx, GPGPU_U32, a, off, 3, 0));
    par(n, sum_val, NULL, ref);
    par(n, check_sorted, &p, got);
    /* descents only where a segment starts */
    uint64_t allowed = (a[off[1] - 1] > a[off[1]]) + (off[2] < n && a[off[2] - 1] > a[off[2]]);
    report(name, got[0] == allowed && got[1] == ref[1],
           "u32 keys, segments of 2, 1 and n - 3 keys, on the device");
done:
    free(a);
}

static void do_select(const char *name, int partition)
{
    uint32_t *a = alloc(n * 4);
    size_t count = 0, bad = 0, j = 0;
    par(n, fill_val, a, NULL);
    if (partition)
        CALL(gpgpu_partition(ctx, GPGPU_U32, pick_expr, a, n, a, &count));
    else
        CALL(gpgpu_select(ctx, GPGPU_U32, pick_expr, a, n, a, &count));
    for (size_t i = 0; i < n; i++)
        if (picked(val(i)))
            bad += j >= count || a[j++] != val(i);
    bad += j != count;
    for (size_t i = 0; partition && i < n; i++)
        if (!picked(val(i)))
            bad += j >= n || a[j++] != val(i);
    report(name, bad == 0, partition ? "u32 in place, x % 3 == 0 first, both in order"
                                     : "u32 in place, x % 3 == 0");
done:
    free(a);
}

static void do_unique(const char *name, int rle)
{
    uint32_t *a = alloc(n * 4);
    uint64_t *len = rle ? alloc(n * 8) : NULL;
    size_t count = 0, bad = 0, r = 0;
    par(n, fill_runs, a, NULL);
    if (rle)
        CALL(gpgpu_run_length_encode(ctx, GPGPU_U32, a, n, a, len, &count));
    else
        CALL(gpgpu_unique(ctx, GPGPU_U32, a, n, a, &count));
    for (size_t i = 0; i < n; r++) {
        size_t e = i + 1;
        while (e < n && run_key(e) == run_key(i))
            e++;
        bad += r >= count || a[r] != run_key(i) || (rle && len[r] != e - i);
        i = e;
    }
    bad += r != count;
    report(name, bad == 0, rle ? "u32 runs of 4, values in place, 64-bit lengths"
                               : "u32 runs of 4, in place");
done:
    free(a);
    free(len);
}

static void do_reduce_by_key(const char *name)
{
    uint32_t *k = alloc(n * 4), *v = alloc(n * 4), *ko = alloc(n * 4), *vo = alloc(n * 4);
    size_t runs = 0, bad = 0, r = 0;
    par(n, fill_runs, k, NULL);
    par(n, fill_val, v, NULL);
    CALL(gpgpu_reduce_by_key(ctx, GPGPU_U32, k, GPGPU_U32, GPGPU_SUM, v, n, ko, vo, &runs));
    for (size_t i = 0; i < n; r++) {
        uint32_t sum = 0;
        size_t e = i;
        for (; e < n && k[e] == k[i]; e++)
            sum += v[e];
        bad += r >= runs || ko[r] != k[i] || vo[r] != sum;
        i = e;
    }
    bad += r != runs;
    report(name, bad == 0, "u32 keys in runs of 4, u32 sums");
done:
    free(k);
    free(v);
    free(ko);
    free(vo);
}

static void do_scan_by_key(const char *name)
{
    uint32_t *k = alloc(n * 4), *v = alloc(n * 4);
    uint64_t bad[4] = { 0 };
    par(n, fill_runs, k, NULL);
    par(n, fill_val, v, NULL);
    CALL(gpgpu_scan_by_key(ctx, GPGPU_U32, k, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, v, v, n));
    par(n, check_scan_by_key, v, bad);
    report(name, bad[0] == 0, "u32 keys in runs of 4, inclusive u32 sums in place");
done:
    free(k);
    free(v);
}

enum { SEG_LEN = 4099 };

static void check_seg_scan(void *a_, size_t lo, size_t hi, uint64_t *acc)
{
    const uint32_t *a = a_;
    for (size_t i = lo; i < hi; i++)
        acc[0] += a[i] != (uint32_t)((i % SEG_LEN ? a[i - 1] : 0) + val(i));
}

static void seg_sums(void *s_, size_t lo, size_t hi, uint64_t *acc)
{
    uint32_t *s = s_;
    (void)acc;
    for (size_t g = lo; g < hi; g++) {
        uint32_t sum = 0;
        for (size_t i = g * SEG_LEN; i < (g + 1) * SEG_LEN && i < n; i++)
            sum += val(i);
        s[g] = sum;
    }
}

static void do_segmented(const char *name, int scan)
{
    size_t nseg = (n + SEG_LEN - 1) / SEG_LEN;
    uint32_t *a = alloc(n * 4), *out = alloc((scan ? n : nseg) * 4), *want = NULL;
    size_t *off = alloc((nseg + 1) * sizeof *off);
    uint64_t bad[4] = { 0 };
    par(n, fill_val, a, NULL);
    for (size_t g = 0; g <= nseg; g++)
        off[g] = g * SEG_LEN < n ? g * SEG_LEN : n;
    if (scan) {
        CALL(gpgpu_segmented_scan(ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, a, out, off, nseg));
        par(n, check_seg_scan, out, bad);
    } else {
        CALL(gpgpu_segmented_reduce(ctx, GPGPU_U32, GPGPU_SUM, a, off, nseg, out));
        want = alloc(nseg * 4);
        par(nseg, seg_sums, want, NULL);
        bad[0] = memcmp(out, want, nseg * 4) != 0;
    }
    report(name, bad[0] == 0, scan ? "u32 inclusive sums, segments of 4099"
                                   : "u32 sums, segments of 4099");
done:
    free(a);
    free(out);
    free(off);
    free(want);
}

static void do_sum_exact(const char *name)
{
    float *a = alloc(n * 4), got = 0;
    uint64_t ref[4] = { 0 };
    par(n, fill_small_float, a, ref);
    CALL(gpgpu_reduce(ctx, GPGPU_F32, GPGPU_SUM_EXACT, a, n, &got));
    report(name, got == (float)(double)(int64_t)ref[0], "f32 integers in [-8, 8), exact sum");
done:
    free(a);
}

/* ---- the primitives scientists reach for next -------------------------------- */

/* A pseudo-random index in [0, n) for position i (gather). */
static size_t rand_index(size_t i)
{
    return (size_t)(mix(i ^ 0x5bd1e995ull) % n);
}

typedef struct {
    const uint64_t *idx;
    const uint32_t *vals;
} indexed;

/* acc[0]: elements of a that are no longer val() */
static void check_fill_val(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    for (size_t i = lo; i < hi; i++)
        acc[0] += ((const uint32_t *)a)[i] != val(i);
}

/* acc[0]: keys out of order, acc[1]: equal keys whose indices do not
   increase, acc[2]: indices out of range, acc[3]: sum of mix(index) */
static void check_argsort(void *p_, size_t lo, size_t hi, uint64_t *acc)
{
    const indexed *p = p_;
    for (size_t i = lo; i < hi; i++) {
        uint64_t j = p->idx[i];
        if (j >= n) {
            acc[2]++;
            continue;
        }
        acc[3] += mix(j);
        if (i && p->idx[i - 1] < n) {
            uint32_t a = val(p->idx[i - 1]), b = val(j);
            acc[0] += a > b;
            acc[1] += a == b && p->idx[i - 1] >= j;
        }
    }
}

static void sum_mix_index(void *unused, size_t lo, size_t hi, uint64_t *acc)
{
    (void)unused;
    for (size_t i = lo; i < hi; i++)
        acc[3] += mix(i);
}

static void do_argsort(const char *name)
{
    uint32_t *a = alloc(n * 4);
    uint64_t *idx = alloc(n * 8), ref[4] = { 0 }, got[4] = { 0 }, changed[4] = { 0 };
    indexed p = { idx, NULL };
    par(n, fill_val, a, NULL);
    CALL(gpgpu_argsort(ctx, GPGPU_U32, a, n, GPGPU_ASCENDING, idx));
    par(n, sum_mix_index, NULL, ref);
    par(n, check_argsort, &p, got);
    par(n, check_fill_val, a, changed);
    report(name, got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == ref[3] && !changed[0],
           "u32 keys -> 64-bit indices: keys in order, stable, a permutation (hash), keys "
           "unchanged");
done:
    free(a);
    free(idx);
}

/* The k largest of val(): for the k-th value v and the largest index m the
   call returned with v, acc[0] counts the elements above v and acc[1] those
   equal to v at or before m. */
typedef struct {
    uint32_t v;
    uint64_t m;
} kth;

static void count_above(void *p_, size_t lo, size_t hi, uint64_t *acc)
{
    const kth *p = p_;
    for (size_t i = lo; i < hi; i++) {
        uint32_t x = val(i);
        acc[0] += x > p->v;
        acc[1] += x == p->v && i <= p->m;
    }
}

static void do_top_k(const char *name)
{
    enum { K = 100 };
    uint32_t *a = alloc(n * 4), vals[K];
    uint64_t idx[K], got[4] = { 0 }, changed[4] = { 0 };
    size_t above = 0, equal = 0, bad = 0;
    par(n, fill_val, a, NULL);
    CALL(gpgpu_top_k(ctx, GPGPU_U32, a, n, K, GPGPU_DESCENDING, vals, idx));
    kth p = { vals[K - 1], 0 };
    for (size_t i = 0; i < K; i++) {
        bad += idx[i] >= n || val(idx[i]) != vals[i];
        bad += i && (vals[i - 1] < vals[i] || (vals[i - 1] == vals[i] && idx[i - 1] >= idx[i]));
        above += vals[i] > p.v;
        if (vals[i] == p.v) {
            equal++;
            p.m = idx[i];
        }
    }
    par(n, count_above, &p, got);
    par(n, check_fill_val, a, changed);
    report(name, !bad && got[0] == above && got[1] == equal && !changed[0],
           "u32, the 100 largest in order with their indices, ties by index");
done:
    free(a);
}

static void fill_rand_index(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((uint64_t *)a)[i] = rand_index(i);
}

static void check_gather(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    for (size_t i = lo; i < hi; i++)
        acc[0] += ((const uint32_t *)a)[i] != val(rand_index(i));
}

static void do_gather(const char *name)
{
    uint32_t *in = alloc(n * 4), *out = alloc(n * 4);
    uint64_t *idx = alloc(n * 8), bad[4] = { 0 };
    par(n, fill_val, in, NULL);
    par(n, fill_rand_index, idx, NULL);
    CALL(gpgpu_gather(ctx, 4, in, n, idx, n, out));
    par(n, check_gather, out, bad);
    report(name, bad[0] == 0, "u32 values by n random 64-bit indices into n");
done:
    free(in);
    free(out);
    free(idx);
}

/* acc[0]: elements below v, acc[1]: elements at most v */
static void count_rank(void *v_, size_t lo, size_t hi, uint64_t *acc)
{
    const double v = *(const double *)v_;
    for (size_t i = lo; i < hi; i++) {
        double x = val(i);
        acc[0] += x < v;
        acc[1] += x <= v;
    }
}

static void do_quantiles(const char *name)
{
    uint32_t *a = alloc(n * 4);
    const double q[4] = { 0, 0.25, 0.5, 1 };
    double got[4];
    int ok = 1;
    par(n, fill_val, a, NULL);
    CALL(gpgpu_quantiles(ctx, GPGPU_U32, a, n, q, 4, got));
    for (int j = 0; j < 4; j++) {
        /* h = (n - 1) q (exact here); with i = floor(h), the result is the
           (i + 1)-th smallest (h whole) or between it and the next: at
           most ceil(h) elements below it, more than i up to it */
        double h = (double)(n - 1) * q[j];
        uint64_t i = (uint64_t)h, c[4] = { 0 };
        par(n, count_rank, &got[j], c);
        ok &= c[0] <= i + ((double)i < h) && c[1] > i;
    }
    report(name, ok, "u32, quantiles 0, 0.25, 0.5 and 1 (ranks checked by counting)");
done:
    free(a);
}

static void fill_half_index(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((uint32_t *)a)[i] = (uint32_t)(i / 2);
}

/* sorted[i] = i / 2: the elements below x are min(n, 2x). */
static void check_search(void *pos_, size_t lo, size_t hi, uint64_t *acc)
{
    const uint64_t *pos = pos_;
    for (size_t i = lo; i < hi; i++) {
        uint64_t w = 2 * (uint64_t)val(i);
        acc[0] += pos[i] != (w < n ? w : n);
    }
}

static void do_search_sorted(const char *name)
{
    uint32_t *sorted = alloc(n * 4), *needles = alloc(n * 4);
    uint64_t *pos = alloc(n * 8), bad[4] = { 0 };
    par(n, fill_half_index, sorted, NULL);
    par(n, fill_val, needles, NULL);
    CALL(gpgpu_search_sorted(ctx, GPGPU_U32, sorted, n, needles, n, GPGPU_SEARCH_LEFT, pos));
    par(n, check_search, pos, bad);
    report(name, bad[0] == 0, "n u32 needles in n sorted u32 (i / 2), left side");
done:
    free(sorted);
    free(needles);
    free(pos);
}

static uint32_t val_y(size_t i) { return (uint32_t)mix(i + n); }
static float weight(size_t i) { return (float)((int)(i % 7) - 3); }

static void fill_y(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((uint32_t *)a)[i] = val_y(i);
}

static void fill_weight(void *a, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    for (size_t i = lo; i < hi; i++)
        ((float *)a)[i] = weight(i);
}

/* 256 x 256 cells of (val, val_y) over [0, 2^32)^2: cell (x >> 24, y >> 24),
   into b[0 .. 65536). */
static void count_cells(void *b_, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    uint64_t *b = b_, *mine = calloc(65536, sizeof *mine);
    if (!mine)
        abort();
    for (size_t i = lo; i < hi; i++)
        mine[(val(i) >> 24) * 256 + (val_y(i) >> 24)]++;
    for (int k = 0; k < 65536; k++)
        __atomic_add_fetch(&b[k], mine[k], __ATOMIC_RELAXED);
    free(mine);
}

/* 256 bins of val summing weight() (exact in double), into b[65536 ..). */
static void sum_weights(void *b_, size_t lo, size_t hi, uint64_t *acc)
{
    (void)acc;
    uint64_t *b = b_;
    int64_t sums[256] = { 0 };
    for (size_t i = lo; i < hi; i++)
        sums[val(i) >> 24] += (int64_t)weight(i);
    for (int k = 0; k < 256; k++)
        __atomic_add_fetch(&b[65536 + k], (uint64_t)sums[k], __ATOMIC_RELAXED);
}

static void do_histogram_cells(const char *name, int two_d)
{
    uint32_t *x = alloc(n * 4), *y = two_d ? alloc(n * 4) : NULL;
    float *w = two_d ? NULL : alloc(n * 4);
    uint64_t *got = alloc(65536 * 8), *want = calloc(65536 + 256, 8);
    double sums[256];
    int ok = 1;
    if (!want)
        abort();
    par(n, fill_val, x, NULL);
    if (two_d) {
        par(n, fill_y, y, NULL);
        CALL(gpgpu_histogram2d(ctx, GPGPU_U32, x, y, n, 256, 0.0, 4294967296.0, 256, 0.0,
                               4294967296.0, got));
    } else {
        par(n, fill_weight, w, NULL);
        CALL(gpgpu_histogram_weighted(ctx, GPGPU_U32, x, GPGPU_F32, w, n, 256, 0.0,
                                      4294967296.0, sums));
    }
    par(n, two_d ? count_cells : sum_weights, want, NULL);
    for (int k = 0; two_d && k < 65536; k++)
        ok &= got[k] == want[k];
    for (int k = 0; !two_d && k < 256; k++)
        ok &= sums[k] == (double)(int64_t)want[65536 + k];
    report(name, ok, two_d ? "u32 pairs, 256 x 256 cells over [0, 2^32)^2"
                           : "u32, 256 bins over [0, 2^32), f32 weights (small integers)");
done:
    free(x);
    free(y);
    free(w);
    free(got);
    free(want);
}

static void do_histogram2d(const char *name) { do_histogram_cells(name, 1); }
static void do_histogram_weighted(const char *name) { do_histogram_cells(name, 0); }

static const struct {
    const char *name;
    void (*run)(const char *name);
} ops[] = {
    { "reduce", do_reduce },
    { "reduce_index", do_reduce_index },
    { "scan", do_scan },
    { "histogram", do_histogram },
    { "histogram_edges", do_histogram_edges },
    { "sort", do_sort },
    { "sort_pairs", do_sort_pairs },
    { "segmented_sort", do_segmented_sort },
    { "select", NULL },
    { "partition", NULL },
    { "unique", NULL },
    { "run_length_encode", NULL },
    { "reduce_by_key", do_reduce_by_key },
    { "scan_by_key", do_scan_by_key },
    { "segmented_reduce", NULL },
    { "segmented_scan", NULL },
    { "sum_exact", do_sum_exact },
    { "argsort", do_argsort },
    { "top_k", do_top_k },
    { "gather", do_gather },
    { "quantiles", do_quantiles },
    { "search_sorted", do_search_sorted },
    { "histogram_weighted", do_histogram_weighted },
    { "histogram2d", do_histogram2d },
};

static void run_op(size_t k)
{
    const char *name = ops[k].name;
    if (ops[k].run)
        ops[k].run(name);
    else if (!strcmp(name, "select") || !strcmp(name, "partition"))
        do_select(name, !strcmp(name, "partition"));
    else if (!strcmp(name, "unique") || !strcmp(name, "run_length_encode"))
        do_unique(name, !strcmp(name, "run_length_encode"));
    else
        do_segmented(name, !strcmp(name, "segmented_scan"));
}

int main(int argc, char **argv)
{
    n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : ((size_t)1 << 32) + 5;
    if (n < 4) {
        fprintf(stderr, "usage: huge [N >= 4] [OP ...]\n");
        return 2;
    }
    setenv("GPGPU_SEGSORT", "device", 0);
    gpgpu_status s = gpgpu_context_create(&ctx, NULL);
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "huge: %s: %s\n", gpgpu_status_string(s), gpgpu_last_error(NULL));
        return 2;
    }
    printf("huge: n = %zu on %s\n", n, gpgpu_device_name(ctx));
    fflush(stdout);
    int ran = 0;
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        int want = argc <= 2;
        for (int a = 2; a < argc; a++)
            want |= !strcmp(argv[a], ops[k].name);
        if (want) {
            /* the kernels built at a small n first, so that the time is the
               call's (the largest sizes may still build a 64-bit variant) */
            size_t big = n;
            n = 5003;
            warming = 1;
            run_op(k);
            n = big;
            warming = 0;
            run_op(k);
            ran++;
        }
    }
    gpgpu_context_destroy(ctx);
    if (!ran) {
        fprintf(stderr, "huge: no such primitive\n");
        return 2;
    }
    return failures ? 1 : 0;
}
