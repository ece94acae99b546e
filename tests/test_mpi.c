/*
 * test_mpi.c - libgpgpu-mpi under mpirun (tests/mpi.sh runs it on 1 to 4
 * ranks). Every rank builds the same global array from the run's seed, calls
 * the primitive on its slice, and checks its slice of the answer against a
 * plain-C reference over the whole global array.
 *
 * Assertions are collective (mt_check): a test that fails on one rank fails
 * on every rank at the same point, so no rank is left in a collective.
 *
 * Where the ranks can read each other's memory (process_vm_readv), the
 * sort's exchanges must do so (GPGPU_MPI_CMA=require, unless the
 * environment sets GPGPU_MPI_CMA); one test takes MPI and the fallback
 * after failed reads.
 *
 * With argument "faults" it runs instead, on the default device, a loop of
 * calls in which rank 1's library fails at its GPGPU_FAULT_AT-th fault point
 * (set by mpi.sh on that rank only): every call must then succeed everywhere
 * or fail everywhere alike with nothing changed.
 */
#define _GNU_SOURCE     /* process_vm_readv */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/uio.h>
#endif

#include "gpgpu_cl.h"
#include "gpgpu_mpi.h"
#include "ref_histogram.h"
#include "ref_mpi.h"
#include "util.h"

static int rank, nranks;
#define W MPI_COMM_WORLD

/* ---- collective checks ------------------------------------------------------ */

static char why[512];

/* Records the first local failure; returns ok. */
static int note(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(int ok, const char *fmt, ...)
{
    if (!ok && why[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        int k = snprintf(why, sizeof why, "rank %d/%d: ", rank, nranks);
        vsnprintf(why + k, sizeof why - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return ok;
}

/* Fails the test on every rank if any rank noted a failure. */
static void mt_check(void)
{
    int ok = why[0] == '\0', all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, W);
    char msg[sizeof why];
    snprintf(msg, sizeof msg, "%s", ok ? "failed on another rank" : why);
    why[0] = '\0';
    ck_assert_msg(all, "%s [device %s, %d ranks, seed %llu]", msg, tu_device, nranks,
                  (unsigned long long)tu_seed());
}

static void note_ok(gpgpu_status st, const char *what)
{
    note(st == GPGPU_SUCCESS, "%s: %s (%s)", what, gpgpu_status_string(st),
         gpgpu_mpi_last_error());
}

/* ---- distributions ---------------------------------------------------------- */

enum { EVEN, UNEVEN, ONE_RANK, NSPLITS };
static const char *split_name[] = {"even", "uneven with an empty rank", "all on the last rank"};

/* This rank's slice [*first, *first + *n) of a global array of total. */
static void split(int kind, size_t total, size_t *first, size_t *n)
{
    uint64_t w[64], wsum = 0, before = 0;
    for (int r = 0; r < nranks; r++) {
        w[r] = kind == EVEN       ? 1
               : kind == ONE_RANK ? (r == nranks - 1)
                                  : (nranks > 1 && r == nranks / 2 ? 0 : 2 * (uint64_t)r + 1);
        wsum += w[r];
    }
    for (int r = 0; r < rank; r++)
        before += w[r];
    *first = (size_t)(total * before / wsum);
    *n = (size_t)(total * (before + w[rank]) / wsum) - *first;
}

/* On an OpenCL device each type (and operator) is a kernel build, about a
   second cold on PoCL per rank: there the suite keeps to u32 and f32; the
   host fallback, which builds nothing, runs every type. The MPI layer's own
   per-type code (the sort order of keys) is the same on every device. */
static const size_t sizes[] = {0, 1, 2, 7, 1000, 20011};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static const size_t big = (1u << 20) + 3;  /* for the first case, even split only */

static int skip_big(size_t z, size_t c, int sp)
{
    return z == NSIZES && (c > 0 || sp != EVEN);
}

/* ---- inputs ----------------------------------------------------------------- */

enum { RANDOM, SMALL, SPECIALS, EQUAL, RISING, FALLING };

/* RANDOM: tu_fill; SMALL: integers in [-8, 8] (exact float sums, many
   duplicate keys); SPECIALS: SMALL mixed with NaNs of both signs, infinities,
   zeros of both signs and subnormals; EQUAL: every key 3; RISING and
   FALLING: the index, or its reverse (already sorted, either way). */
static void fill(gpgpu_type t, void *buf, size_t n, uint64_t seed, int kind)
{
    if (kind >= EQUAL) {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = kind == EQUAL ? 3 : kind == RISING ? i : n - 1 - i;
            switch (t) {
            case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
            case GPGPU_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
            case GPGPU_F32: ((float *)buf)[i] = (float)v; break;
            case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
            case GPGPU_U64: ((uint64_t *)buf)[i] = v; break;
            case GPGPU_F64: ((double *)buf)[i] = (double)v; break;
            }
        }
        return;
    }
    tu_fill(GPGPU_U64 == t || t == GPGPU_I64 || t == GPGPU_F64 ? GPGPU_U64 : GPGPU_U32, buf, n,
            seed);
    if (kind == RANDOM) {
        tu_fill(t, buf, n, seed);
        return;
    }
    static const double f[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310, -1e-310,
                               1e-40, -1e-40, 3.0, -3.0};
    size_t s = gpgpu_type_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = 0;
        memcpy(&r, (unsigned char *)buf + i * s, s);
        double v = (double)(int)(r % 17) - 8;
        if (kind == SPECIALS && r % 3 == 0)
            v = f[(r / 3) % (sizeof f / sizeof f[0])];
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = (uint32_t)(r % 17); break;
        case GPGPU_F32: ((float *)buf)[i] = (float)v; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = r % 17; break;
        case GPGPU_F64: ((double *)buf)[i] = v; break;
        }
    }
}

/* The global array of a case: the same on every rank. */
typedef struct {
    gpgpu_type t;
    size_t size, total, first, n;
    unsigned char *global, *mine;  /* mine: a copy of this rank's slice */
} input;

/* This rank's slice [first, first + n) of the global array. */
static input make_input_at(gpgpu_type t, size_t total, int kind, size_t first, size_t n,
                           uint64_t seed)
{
    input in = {t, gpgpu_type_size(t), total, first, n, NULL, NULL};
    in.global = tu_alloc(total * in.size);
    fill(t, in.global, total, seed, kind);
    in.mine = tu_alloc(in.n * in.size);
    memcpy(in.mine, in.global + in.first * in.size, in.n * in.size);
    return in;
}

static input make_input(gpgpu_type t, size_t total, int kind, int split_kind, uint64_t seed)
{
    size_t first, n;
    split(split_kind, total, &first, &n);
    return make_input_at(t, total, kind, first, n, seed);
}

static void free_input(input *in)
{
    free(in->global);
    free(in->mine);
}

/* The first element of this rank's slice that differs from want's, or -1. */
static long first_diff(const input *in, const void *got, const void *want_global)
{
    for (size_t i = 0; i < in->n; i++)
        if (memcmp((const unsigned char *)got + i * in->size,
                   (const unsigned char *)want_global + (in->first + i) * in->size, in->size))
            return (long)i;
    return -1;
}

/* This rank's slice as a new array of tu_ctx. */
static gpgpu_array *slice_array(const input *in)
{
    gpgpu_array *a = NULL;
    note_ok(gpgpu_array_create(tu_ctx, in->t, in->n, &a), "array_create");
    if (a)
        note_ok(gpgpu_array_write(tu_ctx, a, 0, in->mine, in->n), "array_write");
    return a;
}

/* a's contents, in a new host array (n + 1 elements of room). */
static unsigned char *array_contents(const input *in, const gpgpu_array *a)
{
    unsigned char *got = tu_alloc((in->n + 1) * in->size);
    memset(got, 0x5a, (in->n + 1) * in->size);
    if (a)
        note_ok(gpgpu_array_read(tu_ctx, a, 0, got, in->n), "array_read");
    return got;
}

/* ---- reduce ----------------------------------------------------------------- */

static const struct { gpgpu_type t; gpgpu_op op; } reduce_cases[] = {
    {GPGPU_U32, GPGPU_SUM}, {GPGPU_I64, GPGPU_MIN}, {GPGPU_F32, GPGPU_SUM}, {GPGPU_F64, GPGPU_MAX},
};

START_TEST(reduce_matches_reference)
{
    for (size_t c = 0; c < sizeof reduce_cases / sizeof reduce_cases[0]; c++)
        for (int sp = 0; sp < NSPLITS; sp++)
            for (size_t z = 0; z <= NSIZES; z++) {
                if (skip_big(z, c, sp) || tu_skip_type(reduce_cases[c].t))
                    continue;
                gpgpu_type t = reduce_cases[c].t;
                gpgpu_op op = reduce_cases[c].op;
                size_t total = z < NSIZES ? sizes[z] : big;
                input in = make_input(t, total, SMALL, sp, tu_seed_for(c, z));
                uint64_t got = 0, want = 0;
                ref_mpi_reduce(t, op, in.global, total, &want);
                note_ok(gpgpu_mpi_reduce(tu_ctx, W, t, op, in.mine, in.n, &got), "reduce");
                note(got == want, "reduce case %zu, %s, n %zu: got %#llx, want %#llx", c,
                     split_name[sp], total, (unsigned long long)got, (unsigned long long)want);
                free_input(&in);
                mt_check();
            }
}
END_TEST

START_TEST(reduce_gives_every_rank_the_same_bits)
{
    for (int sp = 0; sp < NSPLITS; sp++) {
        input in = make_input(GPGPU_F32, 20011, RANDOM, sp, tu_seed_for(100, sp));
        float a = 0, b = 1, lo = 0, hi = 0;
        note_ok(gpgpu_mpi_reduce(tu_ctx, W, GPGPU_F32, GPGPU_SUM, in.mine, in.n, &a), "reduce");
        note_ok(gpgpu_mpi_reduce(tu_ctx, W, GPGPU_F32, GPGPU_SUM, in.mine, in.n, &b), "reduce");
        note(memcmp(&a, &b, sizeof a) == 0, "two runs differ: %a and %a", a, b);
        MPI_Allreduce(&a, &lo, 1, MPI_FLOAT, MPI_MIN, W);
        MPI_Allreduce(&a, &hi, 1, MPI_FLOAT, MPI_MAX, W);
        note(lo == hi, "ranks differ: %a .. %a", lo, hi);
        float want;
        ref_mpi_reduce(GPGPU_F32, GPGPU_SUM, in.global, in.total, &want);
        note(fabsf(a - want) <= 1e-3f * 20011, "sum %g far from %g", a, want);
        free_input(&in);
        mt_check();
    }
}
END_TEST

/* ---- exact sums ---------------------------------------------------------------- */

/* GPGPU_SUM_EXACT on floats: the ranks add exact partial sums, so every
   split of the global array (ranks with nothing, all ranks empty included)
   gives the bits of one device's gpgpu_reduce GPGPU_SUM_EXACT of the whole,
   on every rank. Both float types run on every device (one more kernel
   build each than skip_type allows: the case is about exactly these). */

enum { EX_WIDE, EX_TIES, EX_SPECIALS, EX_INFS, EX_ZEROS, EX_NKINDS };
static const char *exact_name[] = {"wide with cancellations", "half-ulp ties",
                                   "NaN, inf, zeros, subnormals", "+inf and -inf",
                                   "zeros"};

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void put(gpgpu_type t, void *buf, size_t i, double v)
{
    if (t == GPGPU_F32)
        ((float *)buf)[i] = (float)v;
    else
        ((double *)buf)[i] = v;
}

static double at(gpgpu_type t, const void *buf, size_t i)
{
    return t == GPGPU_F32 ? ((const float *)buf)[i] : ((const double *)buf)[i];
}

/* EX_WIDE: signed values over the type's whole exponent range, every 7th
   the negation of an earlier one, and huge ones (near the largest finite)
   whose partners come later: a sum far below its terms. EX_TIES: a value,
   its half ulp in 2^k pieces, then cancelling pairs; on odd seeds a least
   subnormal more, past the tie. EX_SPECIALS: small integers with NaNs,
   infinities, zeros of both signs and subnormals. EX_INFS: small integers
   with +inf near the start and -inf near the end (NaN), or only one of
   them on odd seeds. EX_ZEROS: -0.0 everywhere, and on odd seeds one +0.0. */
static void fill_exact(gpgpu_type t, void *buf, size_t n, uint64_t seed, int kind)
{
    const int f32 = t == GPGPU_F32;
    uint64_t s = seed;
    if (kind == EX_SPECIALS) {
        fill(t, buf, n, seed, SPECIALS);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        if (kind == EX_WIDE) {
            int span = f32 ? 125 : 1020;
            double m = (double)(mix(&s) >> 11) * 0x1p-53 - 0.5;
            v = ldexp(m, (int)(mix(&s) % (uint64_t)(2 * span + 1)) - span + 1);
            if (i % 11 == 5)
                v = (mix(&s) & 1 ? 1 : -1) * (f32 ? 0x1.fffffcp126 : 0x1.ffffffffffffep1022);
            if (i % 7 == 3 && i > 10)
                v = -at(t, buf, i / 2);
        } else if (kind == EX_INFS) {
            v = (double)(int)(mix(&s) % 17) - 8;
        } else if (kind == EX_ZEROS) {
            v = -0.0;
        }
        put(t, buf, i, v);
    }
    if (kind == EX_TIES && n > 0) {
        double a = ldexp((double)(mix(&s) >> 11) * 0x1p-53 + 0.5, (int)(mix(&s) % 40));
        if (f32)
            a = (float)a;
        double ulp = ldexp(1, ilogb(a) - (f32 ? 23 : 52));
        size_t q = 1;
        while (2 * q <= (n - 1) / 2)
            q *= 2;
        put(t, buf, 0, a);
        for (size_t i = 1; i <= q && i < n; i++)
            put(t, buf, i, ulp / 2 / (double)q);
        for (size_t i = q + 1; i + 1 < n; i += 2) {
            double x = ldexp(1, (int)(mix(&s) % 20));
            put(t, buf, i, x);
            put(t, buf, i + 1, -x);
        }
        if (seed & 1)
            put(t, buf, n - 1, f32 ? 0x1p-149 : 0x1p-1074);
    }
    if (kind == EX_INFS && n > 0) {
        if (!(seed & 1) || n % 2)
            put(t, buf, n / 5, INFINITY);
        if (!(seed & 1) || !(n % 2))
            put(t, buf, n - 1 - n / 7, -INFINITY);
    }
    if (kind == EX_ZEROS && n > 0 && (seed & 1))
        put(t, buf, (size_t)(seed % n), 0.0);
}

/* The splits of split(), then one at random cuts (the same on every rank). */
static void exact_split(int sp, size_t total, uint64_t seed, size_t *first, size_t *n)
{
    if (sp < NSPLITS) {
        split(sp, total, first, n);
        return;
    }
    size_t cut[65];
    uint64_t s = seed;
    cut[0] = 0;
    cut[nranks] = total;
    for (int r = 1; r < nranks; r++) {
        size_t c = (size_t)(mix(&s) % (total + 1));
        int j = r;
        for (; j > 1 && cut[j - 1] > c; j--)
            cut[j] = cut[j - 1];
        cut[j] = c;
    }
    *first = cut[rank];
    *n = cut[rank + 1] - cut[rank];
}

START_TEST(reduce_sum_exact_does_not_depend_on_the_split)
{
    static const size_t exact_sizes[] = {0, 1, 2, 3, 7, 1000, 20011};
    static const gpgpu_type types[] = {GPGPU_F32, GPGPU_F64};
    for (size_t ti = 0; ti < 2; ti++)
        for (int kind = 0; kind < EX_NKINDS; kind++)
            for (size_t z = 0; z < sizeof exact_sizes / sizeof exact_sizes[0]; z++)
                for (int sp = 0; sp <= NSPLITS; sp++) {
                    const gpgpu_type t = types[ti];
                    const size_t total = exact_sizes[z], size = gpgpu_type_size(t);
                    uint64_t seed = tu_seed_for(700 + 10 * ti + (uint64_t)kind, total);
                    if (sp == NSPLITS)
                        seed ^= 1; /* the other variant of the kind too */
                    unsigned char *global = tu_alloc(total * size);
                    fill_exact(t, global, total, seed, kind);
                    size_t first, n;
                    exact_split(sp, total, seed + (uint64_t)z, &first, &n);
                    uint64_t got = 0x5555, want = 0, lo = 0, hi = 0;
                    note_ok(gpgpu_reduce(tu_ctx, t, GPGPU_SUM_EXACT, global, total, &want),
                            "gpgpu_reduce of the whole");
                    note_ok(gpgpu_mpi_reduce(tu_ctx, W, t, GPGPU_SUM_EXACT, global + first * size,
                                             n, &got),
                            "reduce");
                    if (t == GPGPU_F32) {
                        got &= 0xffffffffu;
                        want &= 0xffffffffu;
                    }
                    MPI_Allreduce(&got, &lo, 1, MPI_UINT64_T, MPI_MIN, W);
                    MPI_Allreduce(&got, &hi, 1, MPI_UINT64_T, MPI_MAX, W);
                    note(got == want && lo == hi,
                         "exact sum %s, %s, %s, n %zu (here %zu from %zu): got %#llx, one "
                         "device %#llx, ranks %#llx .. %#llx",
                         t == GPGPU_F32 ? "f32" : "f64", exact_name[kind],
                         sp < NSPLITS ? split_name[sp] : "random cuts", total, n, first,
                         (unsigned long long)got, (unsigned long long)want,
                         (unsigned long long)lo, (unsigned long long)hi);
                    if (total == 0) /* every rank empty: +0.0 */
                        note(got == 0, "exact sum of nothing: %#llx", (unsigned long long)got);
                    free(global);
                    mt_check();
                }
}
END_TEST

/* ---- scan ------------------------------------------------------------------- */

static const struct { gpgpu_type t; gpgpu_op op; gpgpu_scan_kind kind; } scan_cases[] = {
    {GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE}, {GPGPU_U32, GPGPU_SUM, GPGPU_EXCLUSIVE},
    {GPGPU_I64, GPGPU_MIN, GPGPU_INCLUSIVE}, {GPGPU_F32, GPGPU_SUM, GPGPU_EXCLUSIVE},
};

START_TEST(scan_matches_reference)
{
    for (size_t c = 0; c < sizeof scan_cases / sizeof scan_cases[0]; c++)
        for (int sp = 0; sp < NSPLITS; sp++)
            for (size_t z = 0; z <= NSIZES; z++) {
                gpgpu_type t = scan_cases[c].t;
                size_t total = z < NSIZES ? sizes[z] : big;
                if (skip_big(z, c, sp) || tu_skip_type(t))
                    continue;
                input in = make_input(t, total, SMALL, sp, tu_seed_for(200 + c, z));
                unsigned char *want = tu_alloc(total * in.size);
                ref_mpi_scan(t, scan_cases[c].op, scan_cases[c].kind, in.global, want, total);
                /* in place on odd cases */
                unsigned char *out = c % 2 ? in.mine : tu_alloc(in.n * in.size);
                note_ok(gpgpu_mpi_scan(tu_ctx, W, t, scan_cases[c].op, scan_cases[c].kind,
                                       in.mine, out, in.n),
                        "scan");
                long d = first_diff(&in, out, want);
                note(d < 0, "scan case %zu, %s, n %zu: differs at local %ld", c, split_name[sp],
                     total, d);
                if (out != in.mine)
                    free(out);
                free(want);
                free_input(&in);
                mt_check();
            }
}
END_TEST

/* ---- user-defined operators ---------------------------------------------------- */

/* Their partials fold on a device: rank 0's answer for reduce, each rank's
   own offset for scan. Where user operators are UNSUPPORTED (the host
   fallback), they are so on every rank, and the case has nothing to test. */
START_TEST(user_defined_operators_fold_in_rank_order)
{
    gpgpu_op op;
    int mine = gpgpu_op_define(tu_ctx, GPGPU_U32, "a ^ b", "0u", &op) == GPGPU_SUCCESS, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, W);
    if (!all)
        return;
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++) {
            input in = make_input(GPGPU_U32, sizes[z], RANDOM, sp, tu_seed_for(250, z));
            const uint32_t *g = (const uint32_t *)in.global;
            uint32_t *want = tu_alloc(in.total * 4), acc = 0, got = 1;
            for (size_t i = 0; i < in.total; i++)
                want[i] = acc ^= g[i];
            note_ok(gpgpu_mpi_reduce(tu_ctx, W, GPGPU_U32, op, in.mine, in.n, &got), "reduce");
            note(got == acc, "user-op reduce, %s, n %zu: got %#x, want %#x", split_name[sp],
                 in.total, got, acc);
            note_ok(gpgpu_mpi_scan(tu_ctx, W, GPGPU_U32, op, GPGPU_INCLUSIVE, in.mine, in.mine,
                                   in.n),
                    "scan");
            long d = first_diff(&in, in.mine, want);
            note(d < 0, "user-op scan, %s, n %zu: differs at local %ld", split_name[sp],
                 in.total, d);
            /* the _array forms, from the input again */
            memcpy(in.mine, in.global + in.first * 4, in.n * 4);
            gpgpu_array *a = slice_array(&in);
            got = 1;
            note_ok(gpgpu_mpi_reduce_array(tu_ctx, W, op, a, &got), "reduce_array");
            note(got == acc, "user-op reduce_array, %s, n %zu: got %#x, want %#x",
                 split_name[sp], in.total, got, acc);
            note_ok(gpgpu_mpi_scan_array(tu_ctx, W, op, GPGPU_INCLUSIVE, a, a), "scan_array");
            unsigned char *scanned = array_contents(&in, a);
            d = first_diff(&in, scanned, want);
            note(d < 0, "user-op scan_array, %s, n %zu: differs at local %ld", split_name[sp],
                 in.total, d);
            free(scanned);
            gpgpu_array_destroy(a);
            free(want);
            free_input(&in);
            mt_check();
        }
}
END_TEST

/* ---- histogram ---------------------------------------------------------------- */

static const struct { gpgpu_type t; size_t nbins; double lo, hi; int kind; } hist_cases[] = {
    {GPGPU_F32, 37, -6.0, 6.0, SPECIALS}, {GPGPU_I32, 64, -8.0, 8.0, SMALL},
    {GPGPU_F64, 5, -2.0, 9.0, SPECIALS},
};

static void check_histogram(size_t c, int sp, size_t total)
{
    gpgpu_type t = hist_cases[c].t;
    size_t nb = hist_cases[c].nbins;
    if (tu_skip_type(t))
        return;
    input in = make_input(t, total, hist_cases[c].kind, sp, tu_seed_for(300 + c, total));
    uint64_t *got = tu_alloc(nb * sizeof *got), *want = tu_alloc(nb * sizeof *want);
    ref_mpi_histogram(t, in.global, total, nb, hist_cases[c].lo, hist_cases[c].hi, want);
    note_ok(gpgpu_mpi_histogram(tu_ctx, W, t, in.mine, in.n, nb, hist_cases[c].lo,
                                hist_cases[c].hi, got),
            "histogram");
    size_t b = 0;
    while (b < nb && got[b] == want[b])
        b++;
    note(b == nb, "histogram case %zu, %s, n %zu: bin %zu is %llu, want %llu", c,
         split_name[sp], total, b, b < nb ? (unsigned long long)got[b] : 0ull,
         b < nb ? (unsigned long long)want[b] : 0ull);
    free(got);
    free(want);
    free_input(&in);
    mt_check();
}

START_TEST(histogram_matches_reference)
{
    for (size_t c = 0; c < sizeof hist_cases / sizeof hist_cases[0]; c++)
        for (int sp = 0; sp < NSPLITS; sp++)
            for (size_t z = 0; z < NSIZES; z++)
                check_histogram(c, sp, sizes[z]);
}
END_TEST

/* ---- weighted and 2-D histograms --------------------------------------------- */

/* Every rank holds its slice of x, y and the weights; the bins on every
   rank are the reference's over the global arrays. */
static void check_cells(gpgpu_type t, gpgpu_type wt, int sp, size_t total, uint64_t seed)
{
    enum { NX = 9, NY = 13 };
    if (tu_skip_type(t))
        return;
    input x = make_input(t, total, SPECIALS, sp, seed), y = make_input(t, total, SPECIALS, sp,
                                                                       seed + 1);
    input w = make_input(wt, total, RANDOM, sp, seed + 2);
    uint64_t counts[NX * NY], want[NX * NY];
    double sums[NX * NY], sums1[NX];
    ref_wcell cells[NX * NY];
    note_ok(gpgpu_mpi_histogram2d(tu_ctx, W, t, x.mine, y.mine, x.n, NX, -6, 6, NY, -3, 8,
                                  counts),
            "histogram2d");
    ref_histogram2d(t, x.global, y.global, total, NX, -6, 6, NY, -3, 8, want);
    note(memcmp(counts, want, sizeof want) == 0, "histogram2d, %s, n %zu: wrong cells",
         split_name[sp], total);
    note_ok(gpgpu_mpi_histogram2d_weighted(tu_ctx, W, t, x.mine, y.mine, wt, w.mine, x.n, NX,
                                           -6, 6, NY, -3, 8, sums),
            "histogram2d_weighted");
    ref_histogram_weighted(t, x.global, y.global, wt, w.global, total, NX, -6, 6, NY, -3, 8,
                           cells);
    for (size_t i = 0; i < NX * NY; i++)
        if (!note(ref_weighted_ok(&cells[i], sums[i]),
                  "histogram2d_weighted, %s, n %zu: cell %zu is %.17g, want %.17Lg",
                  split_name[sp], total, i, sums[i], cells[i].sum))
            break;
    note_ok(gpgpu_mpi_histogram_weighted(tu_ctx, W, t, x.mine, wt, w.mine, x.n, NX, -6, 6,
                                         sums1),
            "histogram_weighted");
    ref_histogram_weighted(t, x.global, NULL, wt, w.global, total, NX, -6, 6, 0, 0, 0, cells);
    for (size_t i = 0; i < NX; i++)
        if (!note(ref_weighted_ok(&cells[i], sums1[i]),
                  "histogram_weighted, %s, n %zu: bin %zu is %.17g, want %.17Lg",
                  split_name[sp], total, i, sums1[i], cells[i].sum))
            break;
    /* every rank has the same bits */
    double first[NX];
    memcpy(first, sums1, sizeof first);
    MPI_Bcast(first, NX, MPI_DOUBLE, 0, W);
    note(memcmp(first, sums1, sizeof first) == 0, "histogram_weighted: ranks differ");
    free_input(&x);
    free_input(&y);
    free_input(&w);
    mt_check();
}

START_TEST(histogram2d_and_weighted_match_reference)
{
    static const gpgpu_type types[][2] = {
        {GPGPU_F32, GPGPU_F32}, {GPGPU_I32, GPGPU_F64}, {GPGPU_F64, GPGPU_F64}};
    for (size_t c = 0; c < 3; c++)
        for (int sp = 0; sp < NSPLITS; sp++)
            for (size_t z = 0; z < NSIZES; z++)
                check_cells(types[c][0], types[c][1], sp, sizes[z], tu_seed_for(350 + c, z));
}
END_TEST

/* ---- sort ------------------------------------------------------------------- */

/* Sorts the case with gpgpu_mpi_sort (vsize 0) or _sort_pairs carrying each
   element's global index over comm, and checks keys and values against the
   stable reference order. */
static void check_sort_on(MPI_Comm comm, gpgpu_type t, int kind, int sp, size_t total,
                          unsigned flags, size_t vsize, uint64_t seed)
{
    if (tu_skip_type(t))
        return;
    input in = make_input(t, total, kind, sp, seed);
    size_t *perm = tu_alloc(total * sizeof *perm);
    ref_mpi_sort_order(t, in.global, total, flags & GPGPU_DESCENDING, perm);
    unsigned char *vals = tu_alloc(in.n * 8);
    for (size_t i = 0; i < in.n; i++) {
        uint64_t g = in.first + i;
        memcpy(vals + i * vsize, &g, vsize);  /* little-endian: low bytes first */
    }
    gpgpu_status st = vsize ? gpgpu_mpi_sort_pairs(tu_ctx, comm, t, in.mine, vals, vsize, in.n,
                                                   flags)
                            : gpgpu_mpi_sort(tu_ctx, comm, t, in.mine, in.n, flags);
    note_ok(st, vsize ? "sort_pairs" : "sort");
    for (size_t i = 0; i < in.n && st == GPGPU_SUCCESS; i++) {
        size_t want = perm[in.first + i];
        uint64_t v = 0;
        memcpy(&v, vals + i * vsize, vsize);
        if (!note(memcmp(in.mine + i * in.size, in.global + want * in.size, in.size) == 0 &&
                      (vsize == 0 || v == want),
                  "sort type %d, %s, n %zu, flags %u, vsize %zu: local %zu holds global %llu, "
                  "want %zu",
                  (int)t, split_name[sp], total, flags, vsize, i, (unsigned long long)v, want))
            break;
    }
    free(vals);
    free(perm);
    free_input(&in);
    mt_check();
}

static void check_sort(gpgpu_type t, int kind, int sp, size_t total, unsigned flags,
                       size_t vsize, uint64_t seed)
{
    check_sort_on(W, t, kind, sp, total, flags, vsize, seed);
}

START_TEST(sort_matches_reference)
{
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++) {
            check_sort(GPGPU_U32, RANDOM, sp, sizes[z], GPGPU_ASCENDING, 0, tu_seed_for(400, z));
            check_sort(GPGPU_I32, SMALL, sp, sizes[z], GPGPU_DESCENDING, 0, tu_seed_for(401, z));
        }
}
END_TEST

/* A million keys and more, so that the partition's chunks run in whole
   blocks and every rank's bucket is sorted by the host sort's top digit
   and buckets: random u32 keys; integers in [-8, 8] with 8-byte values,
   descending, split unevenly (most keys equal: runs of one key cross
   ranks, and must keep their global order); random doubles with 4-byte
   values. */
START_TEST(sort_of_a_million_matches_reference)
{
    check_sort(GPGPU_U32, RANDOM, EVEN, big, GPGPU_ASCENDING, 0, tu_seed_for(440, 0));
    check_sort(GPGPU_I64, SMALL, UNEVEN, big, GPGPU_DESCENDING, 8, tu_seed_for(441, 0));
    check_sort(GPGPU_F64, RANDOM, EVEN, big, GPGPU_ASCENDING, 4, tu_seed_for(442, 0));
}
END_TEST

/* ---- top_k and quantiles ---------------------------------------------------- */

/* gpgpu_mpi_top_k against the first k of the stable global order. */
static void check_top_k(gpgpu_type t, int kind, int sp, size_t total, size_t k, unsigned flags,
                        uint64_t seed)
{
    if (tu_skip_type(t))
        return;
    input in = make_input(t, total, kind, sp, seed);
    size_t *perm = tu_alloc(total * sizeof *perm);
    ref_mpi_sort_order(t, in.global, total, flags & GPGPU_DESCENDING, perm);
    unsigned char *vals = tu_alloc(k * in.size);
    uint64_t *idx = tu_alloc(k * sizeof *idx);
    note_ok(gpgpu_mpi_top_k(tu_ctx, W, t, in.mine, in.n, k, flags, vals, idx), "top_k");
    size_t i = 0;
    while (i < k && idx[i] == perm[i] &&
           !memcmp(vals + i * in.size, in.global + perm[i] * in.size, in.size))
        i++;
    note(i == k, "top_k type %d kind %d, %s, n %zu, k %zu: differs at %zu", (int)t, kind,
         split_name[sp], total, k, i);
    free(perm);
    free(vals);
    free(idx);
    free_input(&in);
    mt_check();
}

START_TEST(top_k_matches_reference)
{
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++) {
            size_t ks[] = {0, 1, 7, sizes[z]};
            for (size_t j = 0; j < 4; j++) {
                if (ks[j] > sizes[z] || ks[j] > 1100)
                    continue;
                check_top_k(GPGPU_U32, SMALL, sp, sizes[z], ks[j], j % 2, tu_seed_for(420, z));
                check_top_k(GPGPU_F32, SPECIALS, sp, sizes[z], ks[j], (j + 1) % 2,
                            tu_seed_for(421, z));
            }
        }
}
END_TEST

/* gpgpu_mpi_quantiles against the linear rule on the sorted global array. */
static void check_quantiles(gpgpu_type t, int kind, int sp, size_t total, uint64_t seed)
{
    static const double q[] = {0.5, 0, 1, 0.25, 0.999, 1.0 / 3};
    enum { NQ = sizeof q / sizeof q[0] };
    if (tu_skip_type(t) || total == 0)
        return;
    input in = make_input(t, total, kind, sp, seed);
    double got[NQ], want[NQ];
    ref_mpi_quantiles(t, in.global, total, q, NQ, want);
    note_ok(gpgpu_mpi_quantiles(tu_ctx, W, t, in.mine, in.n, q, NQ, got), "quantiles");
    size_t j = 0;
    while (j < NQ && (!memcmp(&got[j], &want[j], sizeof got[j]) || (isnan(got[j]) && isnan(want[j]))))
        j++;
    note(j == NQ, "quantiles type %d kind %d, %s, n %zu: q = %g gives %.17g, want %.17g",
         (int)t, kind, split_name[sp], total, j < NQ ? q[j] : 0,
         j < NQ ? got[j] : 0, j < NQ ? want[j] : 0);
    free_input(&in);
    mt_check();
}

START_TEST(quantiles_match_reference)
{
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++) {
            check_quantiles(GPGPU_F32, RANDOM, sp, sizes[z], tu_seed_for(430, z));
            check_quantiles(GPGPU_F32, SPECIALS, sp, sizes[z], tu_seed_for(431, z));
            check_quantiles(GPGPU_U32, SMALL, sp, sizes[z], tu_seed_for(432, z));
            check_quantiles(GPGPU_I64, RANDOM, sp, sizes[z], tu_seed_for(433, z));
            check_quantiles(GPGPU_F64, SMALL, sp, sizes[z], tu_seed_for(434, z));
        }
}
END_TEST

START_TEST(sort_orders_float_specials)
{
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++)
            for (unsigned flags = 0; flags < 2; flags++) {
                check_sort(GPGPU_F32, SPECIALS, sp, sizes[z], flags, 0, tu_seed_for(410, z));
                check_sort(GPGPU_F64, SPECIALS, sp, sizes[z], flags, 8, tu_seed_for(411, z));
            }
}
END_TEST

START_TEST(sort_pairs_is_stable_across_ranks)
{
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++)
            for (unsigned flags = 0; flags < 2; flags++) {
                check_sort(GPGPU_U32, SMALL, sp, sizes[z], flags, 4, tu_seed_for(420, z));
                check_sort(GPGPU_I64, SMALL, sp, sizes[z], flags, 8, tu_seed_for(421, z));
            }
}
END_TEST

/* The splitters come from samples of the unsorted parts: inputs that are
   already sorted (either way) or all one key must still come out stable,
   with every rank holding its own count. */
START_TEST(sort_handles_sorted_and_equal_keys)
{
    static const size_t n[] = {7, 1000, 20011};
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < sizeof n / sizeof n[0]; z++)
            for (int kind = EQUAL; kind <= FALLING; kind++)
                for (unsigned flags = 0; flags < 2; flags++)
                    check_sort(GPGPU_I32, kind, sp, n[z], flags, 4,
                               tu_seed_for(440 + (uint64_t)kind, z));
}
END_TEST

/* Counts beyond GPGPU_MPI_MAX_COUNT take the derived-datatype paths that
   counts beyond INT_MAX take. */
START_TEST(large_counts_use_derived_datatypes)
{
    setenv("GPGPU_MPI_MAX_COUNT", "7", 1);
    for (int sp = 0; sp < NSPLITS; sp++) {
        check_sort(GPGPU_U32, SMALL, sp, 1000, GPGPU_ASCENDING, 4, tu_seed_for(430, sp));
        check_sort(GPGPU_F32, SPECIALS, sp, 20011, GPGPU_DESCENDING, 0, tu_seed_for(431, sp));
        check_histogram(0, sp, 1000);
    }
    unsetenv("GPGPU_MPI_MAX_COUNT");
}
END_TEST

/* The sort's exchanges read from the other ranks' memory where they can
   (GPGPU_MPI_CMA, unset or 1), else take MPI_Alltoallv. main() requires
   the reads where they work here; this test takes MPI (on every rank, then
   with the knob off on rank 0 alone), then has one rank's reads fail
   midway (after writing garbage) on a communicator of its own, which the
   failure marks for MPI from then on: every rank must fall back alike and
   redo the exchange. */
START_TEST(sort_exchanges_by_mpi_and_after_failed_reads)
{
    const char *was = getenv("GPGPU_MPI_CMA");
    char keep[32] = "";
    if (was != NULL)
        snprintf(keep, sizeof keep, "%s", was);
    setenv("GPGPU_MPI_CMA", "0", 1);
    for (int sp = 0; sp < NSPLITS; sp++) {
        check_sort(GPGPU_U32, RANDOM, sp, 20011, GPGPU_ASCENDING, 8, tu_seed_for(450, sp));
        setenv("GPGPU_MPI_MAX_COUNT", "7", 1);
        check_sort(GPGPU_I64, SMALL, sp, 1000, GPGPU_DESCENDING, 4, tu_seed_for(451, sp));
        unsetenv("GPGPU_MPI_MAX_COUNT");
    }
    /* A knob that differs between ranks must not hang them. */
    setenv("GPGPU_MPI_CMA", rank == 0 ? "0" : "1", 1);
    check_sort(GPGPU_U32, RANDOM, UNEVEN, 20011, GPGPU_ASCENDING, 4, tu_seed_for(454, 0));
    MPI_Comm comm;
    MPI_Comm_dup(W, &comm);
    setenv("GPGPU_MPI_CMA", rank == nranks - 1 ? "fail" : "1", 1);
    for (int round = 0; round < 2; round++) {
        check_sort_on(comm, GPGPU_U32, RANDOM, EVEN, 20011, GPGPU_ASCENDING, 4,
                      tu_seed_for(452, (uint64_t)round));
        check_sort_on(comm, GPGPU_F64, SPECIALS, UNEVEN, 5000, GPGPU_DESCENDING, 0,
                      tu_seed_for(453, (uint64_t)round));
    }
    MPI_Comm_free(&comm);
    if (was != NULL)
        setenv("GPGPU_MPI_CMA", keep, 1);
    else
        unsetenv("GPGPU_MPI_CMA");
}
END_TEST

/* ---- collective failure ------------------------------------------------------- */

/* The rank that gets the bad argument. */
static int bad(void)
{
    return rank == nranks - 1;
}

/* Every rank must have got the same non-success status. */
static void note_failed_alike(gpgpu_status st, const char *what)
{
    int mine = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, W);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, W);
    note(lo == hi && st != GPGPU_SUCCESS, "%s: status %d here, %d..%d over the ranks", what,
         mine, lo, hi);
    note(st == GPGPU_SUCCESS || gpgpu_mpi_last_error()[0] != '\0', "%s: no error detail", what);
}

/* Runs every primitive with one argument spoiled by how on the bad rank (or
   on all ranks), checks the collective failure and that nothing changed,
   then that the same calls work again. */
typedef struct {
    int reduce_result_null, scan_out_null, hist_bins_null, hist_nbins0, hist_lo_hi, sort_keys_null,
        sort_flags, pairs_vsize, pairs_values_null, type_differs, op_differs, kind_differs,
        ctx_null, comm_null, reduce_op_bad, scan_overlap;
} spoil;

/* A spoiled call must fail alike everywhere; an untouched one succeed. */
static int outcome(gpgpu_status st, int spoiled, const char *what)
{
    if (spoiled)
        note_failed_alike(st, what);
    else
        note_ok(st, what);
    return spoiled;
}

static void run_spoiled(const spoil *how, int everyone)
{
    int b = everyone || bad(), all = how->ctx_null || how->comm_null || how->type_differs;
    input in = make_input(GPGPU_U32, 1000, SMALL, EVEN, tu_seed_for(500, 0));
    size_t n = in.n;
    unsigned char *keep = tu_alloc(n * 4);
    memcpy(keep, in.mine, n * 4);
    uint32_t vals[1000], vkeep[1000], out[1000], result = 12345;
    uint64_t bins[16];
    for (size_t i = 0; i < n; i++)
        vals[i] = vkeep[i] = out[i] = (uint32_t)i;
    memset(bins, 0xab, sizeof bins);
    gpgpu_context *ctx = b && how->ctx_null ? NULL : tu_ctx;
    MPI_Comm comm = b && how->comm_null ? MPI_COMM_NULL : W;
    gpgpu_type t = b && how->type_differs ? GPGPU_I32 : GPGPU_U32;
    gpgpu_op op = b && how->op_differs ? GPGPU_MAX : b && how->reduce_op_bad ? 7 : GPGPU_SUM;
    unsigned flags = b && how->sort_flags ? 0x10u : GPGPU_ASCENDING;

    if (outcome(gpgpu_mpi_reduce(ctx, comm, t, op, in.mine, n,
                                 b && how->reduce_result_null ? NULL : &result),
                all || how->reduce_result_null || how->op_differs || how->reduce_op_bad,
                "reduce"))
        note(result == 12345, "reduce changed the result");
    if (outcome(gpgpu_mpi_scan(ctx, comm, t, op,
                               b && how->kind_differs ? GPGPU_INCLUSIVE : GPGPU_EXCLUSIVE,
                               in.mine,
                               b && how->scan_out_null  ? NULL
                               : b && how->scan_overlap ? (uint32_t *)in.mine + 1
                                                        : out,
                               n),
                all || how->scan_out_null || how->op_differs || how->kind_differs ||
                    how->reduce_op_bad || how->scan_overlap,
                "scan"))
        for (size_t i = 0; i < n; i++)
            note(out[i] == i && ((uint32_t *)in.mine)[i] == ((uint32_t *)keep)[i],
                 "scan changed out[%zu] or in[%zu]", i, i);
    if (outcome(gpgpu_mpi_histogram(ctx, comm, t, in.mine, n, b && how->hist_nbins0 ? 0 : 16,
                                    b && how->hist_lo_hi ? 9.0 : -8.0, 9.0,
                                    b && how->hist_bins_null ? NULL : bins),
                all || how->hist_nbins0 || how->hist_lo_hi || how->hist_bins_null,
                "histogram"))
        note(bins[3] == 0xababababababababull, "histogram changed bins");
    double sums[16];
    memset(sums, 0xab, sizeof sums);
    if (outcome(gpgpu_mpi_histogram2d_weighted(ctx, comm, t, in.mine, in.mine, GPGPU_F64,
                                               (const double *)in.mine, n / 2,
                                               b && how->hist_nbins0 ? 0 : 4,
                                               b && how->hist_lo_hi ? 9.0 : -8.0, 9.0, 4, 0,
                                               1e9, b && how->hist_bins_null ? NULL : sums),
                all || how->hist_nbins0 || how->hist_lo_hi || how->hist_bins_null,
                "histogram2d_weighted"))
        note(memcmp(&sums[3], &bins[0], 8) == 0, "histogram2d_weighted changed bins");
    if (outcome(gpgpu_mpi_sort(ctx, comm, t, b && how->sort_keys_null ? NULL : in.mine, n, flags),
                all || how->sort_flags || how->sort_keys_null, "sort"))
        note(memcmp(keep, in.mine, n * 4) == 0, "sort changed keys");
    if (outcome(gpgpu_mpi_sort_pairs(ctx, comm, t, in.mine,
                                     b && how->pairs_values_null ? NULL : vals,
                                     b && how->pairs_vsize ? 3 : 4, n, flags),
                all || how->sort_flags || how->pairs_vsize || how->pairs_values_null,
                "sort_pairs"))
        note(memcmp(vals, vkeep, n * 4) == 0, "sort_pairs changed values");
    /* Afterwards the communicator and the context still work. */
    note_ok(gpgpu_mpi_reduce(tu_ctx, W, GPGPU_U32, GPGPU_SUM, in.mine, n, &result), "reduce");
    note_ok(gpgpu_mpi_sort(tu_ctx, W, GPGPU_U32, in.mine, n, 0), "sort");
    free(keep);
    free_input(&in);
    mt_check();
}

/* GPGPU_SUM_EXACT on floats: a bad argument on one rank (in NULL with
   n > 0) fails every rank alike, with the result untouched, and the next
   call works; on an integer type it is GPGPU_SUM. */
START_TEST(reduce_sum_exact_fails_alike_and_takes_integers)
{
    double x[3] = {1e308, 1, -1e308}, r = 7;
    gpgpu_status st = gpgpu_mpi_reduce(tu_ctx, W, GPGPU_F64, GPGPU_SUM_EXACT, bad() ? NULL : x,
                                       3, &r);
    note_failed_alike(st, "reduce SUM_EXACT with in NULL on one rank");
    note(r == 7, "a failed exact reduce changed the result");
    st = gpgpu_mpi_reduce(tu_ctx, W, GPGPU_F64, GPGPU_SUM_EXACT, x, 3, &r);
    note_ok(st, "reduce SUM_EXACT");
    note(r == nranks, "1e308, 1, -1e308 on each of %d ranks: %a", nranks, r);
    uint32_t u[2] = {0xffffffffu, 2}, ur = 0;
    note_ok(gpgpu_mpi_reduce(tu_ctx, W, GPGPU_U32, GPGPU_SUM_EXACT, u, 2, &ur), "u32 SUM_EXACT");
    note(ur == (uint32_t)nranks, "u32 SUM_EXACT wraps as GPGPU_SUM: %u", ur);
    mt_check();
}
END_TEST

START_TEST(null_pointers_fail_everywhere)
{
    spoil how = {.reduce_result_null = 1, .scan_out_null = 1, .hist_bins_null = 1,
                 .sort_keys_null = 1, .pairs_values_null = 1};
    run_spoiled(&how, 0);
}
END_TEST

START_TEST(bad_flags_nbins_and_sizes_fail_everywhere)
{
    spoil how = {.hist_nbins0 = 1, .sort_flags = 1, .pairs_vsize = 1};
    run_spoiled(&how, 0);
    spoil how2 = {.hist_lo_hi = 1, .reduce_op_bad = 1, .scan_overlap = 1};
    run_spoiled(&how2, 0);
}
END_TEST

/* Host only: on a device the odd rank would build kernels for the odd type
   and operator, and the check is the MPI layer's alone. */
START_TEST(arguments_that_differ_between_ranks_fail_everywhere)
{
    if (nranks == 1 || !tu_is_host())
        return;
    spoil how = {.type_differs = 1};
    run_spoiled(&how, 0);
    spoil how2 = {.op_differs = 1, .kind_differs = 1};
    run_spoiled(&how2, 0);
}
END_TEST

START_TEST(null_context_fails_everywhere)
{
    spoil how = {.ctx_null = 1};
    run_spoiled(&how, 0);
}
END_TEST

START_TEST(comm_null_fails_everywhere)
{
    spoil how = {.comm_null = 1};
    run_spoiled(&how, 0);
    run_spoiled(&how, 1);
}
END_TEST

/* ---- contexts ------------------------------------------------------------------ */

/* The "<kind>:local" spec of the device under test (a GPU machine may have
   no CPU device). */
static const char *local_spec(void)
{
    cl_device_id dev = NULL;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    if (clGetCommandQueueInfo(gpgpu_queue(tu_ctx), CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) ==
        CL_SUCCESS)
        clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return type & CL_DEVICE_TYPE_GPU           ? "gpu:local"
           : type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator:local"
                                               : "cpu:local";
}

START_TEST(context_create_gives_each_rank_a_device)
{
    gpgpu_context *c = NULL;
    const char *spec = tu_is_host() ? "host" : local_spec();
    note_ok(gpgpu_mpi_context_create(&c, W, spec), spec);
    uint32_t x = (uint32_t)rank + 1, sum = 0;
    note_ok(gpgpu_mpi_reduce(c, W, GPGPU_U32, GPGPU_SUM, &x, 1, &sum), "reduce");
    note(sum == (uint32_t)(nranks * (nranks + 1) / 2), "sum %u", sum);
    gpgpu_context_destroy(c);
    c = (gpgpu_context *)&x;
    gpgpu_status st = gpgpu_mpi_context_create(&c, W, bad() ? "no such device" : spec);
    note_failed_alike(st, "context_create");
    note(c == NULL, "a failed context_create left a context");
    mt_check();
}
END_TEST

/* ---- sorts of gpgpu_arrays ---------------------------------------------------- */

/* The case sorted with gpgpu_mpi_sort_array, or _sort_pairs_array carrying
   each element's global index (vsize 4 or 8), against the stable order. */
static void check_sort_array(gpgpu_type t, int kind, int sp, size_t total, unsigned flags,
                             size_t vsize, uint64_t seed)
{
    if (tu_skip_type(t))
        return;
    input in = make_input(t, total, kind, sp, seed);
    size_t *perm = tu_alloc(total * sizeof *perm);
    ref_mpi_sort_order(t, in.global, total, flags & GPGPU_DESCENDING, perm);
    unsigned char *vals = tu_alloc(in.n * 8 + 8), *got = tu_alloc(in.n * in.size + 8);
    for (size_t i = 0; i < in.n; i++) {
        uint64_t g = in.first + i;
        memcpy(vals + i * vsize, &g, vsize);
    }
    gpgpu_array *k = NULL, *v = NULL;
    note_ok(gpgpu_array_create(tu_ctx, t, in.n, &k), "array_create");
    if (vsize)
        note_ok(gpgpu_array_create(tu_ctx, vsize == 4 ? GPGPU_U32 : GPGPU_U64, in.n, &v),
                "array_create");
    note_ok(gpgpu_array_write(tu_ctx, k, 0, in.mine, in.n), "array_write");
    if (vsize)
        note_ok(gpgpu_array_write(tu_ctx, v, 0, vals, in.n), "array_write");
    gpgpu_status st = vsize ? gpgpu_mpi_sort_pairs_array(tu_ctx, W, k, v, flags)
                            : gpgpu_mpi_sort_array(tu_ctx, W, k, flags);
    note_ok(st, vsize ? "sort_pairs_array" : "sort_array");
    note_ok(gpgpu_array_read(tu_ctx, k, 0, got, in.n), "array_read");
    if (vsize)
        note_ok(gpgpu_array_read(tu_ctx, v, 0, vals, in.n), "array_read");
    for (size_t i = 0; i < in.n && st == GPGPU_SUCCESS; i++) {
        size_t want = perm[in.first + i];
        uint64_t x = 0;
        memcpy(&x, vals + i * vsize, vsize);
        if (!note(memcmp(got + i * in.size, in.global + want * in.size, in.size) == 0 &&
                      (vsize == 0 || x == want),
                  "sort_array type %d, %s, n %zu, flags %u, vsize %zu: local %zu holds "
                  "global %llu, want %zu",
                  (int)t, split_name[sp], total, flags, vsize, i, (unsigned long long)x, want))
            break;
    }
    gpgpu_array_destroy(k);
    gpgpu_array_destroy(v);
    free(got);
    free(vals);
    free(perm);
    free_input(&in);
    mt_check();
}

START_TEST(sort_array_matches_reference)
{
    for (int sp = 0; sp < NSPLITS; sp++)
        for (size_t z = 0; z < NSIZES; z++) {
            if (skip_big(z, 0, sp))
                continue;
            check_sort_array(GPGPU_U32, RANDOM, sp, sizes[z], GPGPU_ASCENDING, 0,
                             tu_seed_for(700, z));
            check_sort_array(GPGPU_I32, SMALL, sp, sizes[z], GPGPU_DESCENDING, 4,
                             tu_seed_for(701, z));
            check_sort_array(GPGPU_F64, SPECIALS, sp, sizes[z], GPGPU_ASCENDING, 8,
                             tu_seed_for(702, z));
        }
}
END_TEST

/* A bad argument on one rank (keys NULL, values of another length) fails
   every rank alike, and no rank's arrays change. */
START_TEST(sort_array_fails_alike_and_changes_nothing)
{
    input in = make_input(GPGPU_U32, 1000, SMALL, EVEN, tu_seed_for(710, 0));
    gpgpu_array *k = NULL, *v = NULL, *v2 = NULL;
    note_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, in.n, &k), "array_create");
    note_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, in.n, &v), "array_create");
    note_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, in.n + 1, &v2), "array_create");
    note_ok(gpgpu_array_write(tu_ctx, k, 0, in.mine, in.n), "array_write");
    note_ok(gpgpu_array_write(tu_ctx, v, 0, in.mine, in.n), "array_write");
    unsigned char *got = tu_alloc(in.n * 4 + 4);
    for (int how = 0; how < 3; how++) {
        gpgpu_status st =
            how == 0   ? gpgpu_mpi_sort_array(tu_ctx, W, bad() ? NULL : k, 0)
            : how == 1 ? gpgpu_mpi_sort_pairs_array(tu_ctx, W, k, bad() ? v2 : v, 0)
                       : gpgpu_mpi_sort_pairs_array(tu_ctx, W, k, bad() ? k : v, 0);
        note_failed_alike(st, "sort_array");
        note_ok(gpgpu_array_read(tu_ctx, k, 0, got, in.n), "array_read");
        note(memcmp(got, in.mine, in.n * 4) == 0, "a failed sort_array (%d) changed keys", how);
        note_ok(gpgpu_array_read(tu_ctx, v, 0, got, in.n), "array_read");
        note(memcmp(got, in.mine, in.n * 4) == 0, "a failed sort_array (%d) changed values",
             how);
    }
    note_ok(gpgpu_mpi_sort_pairs_array(tu_ctx, W, k, v, 0), "sort_pairs_array");
    free(got);
    gpgpu_array_destroy(k);
    gpgpu_array_destroy(v);
    gpgpu_array_destroy(v2);
    free_input(&in);
}
END_TEST

/* ---- reduce, scan and histogram of gpgpu_arrays ------------------------------ */

/* The cases of the _array forms: the splits of split() over sizes[z] (and
   big, evenly, for the first case), then one more split, sp == NSPLITS,
   in which each rank holds its own count of PRIME_COUNTS (0, 1 and primes,
   rotating with z and the rank): uneven sizes whatever the rank count. */
static const size_t prime_counts[] = {0, 1, 2, 3, 7, 13, 31, 1009, 4099, 20011};
#define NPRIMES (sizeof prime_counts / sizeof prime_counts[0])

static input array_input(gpgpu_type t, int kind, int sp, size_t z, uint64_t seed)
{
    if (sp < NSPLITS)
        return make_input(t, z < NSIZES ? sizes[z] : big, kind, sp, seed);
    size_t total = 0, first = 0, n = 0;
    for (int r = 0; r < nranks; r++) {
        size_t c = prime_counts[((size_t)r * 3 + z) % NPRIMES];
        if (r == rank) {
            first = total;
            n = c;
        }
        total += c;
    }
    return make_input_at(t, total, kind, first, n, seed);
}

static const char *array_split_name(int sp)
{
    return sp < NSPLITS ? split_name[sp] : "0, 1 or a prime per rank";
}

/* check(c, sp, z) for every case c < ncases, split sp <= NSPLITS and size
   z < zend (z == NSIZES: big, for case 0 split evenly, as skip_big). */
static void each_array_case(size_t ncases, size_t zend, void (*check)(size_t c, int sp, size_t z))
{
    for (size_t c = 0; c < ncases; c++)
        for (int sp = 0; sp <= NSPLITS; sp++)
            for (size_t z = 0; z < zend; z++)
                if (sp < NSPLITS ? !skip_big(z, c, sp) : z < NSIZES) {
                    check(c, sp, z);
                    mt_check();
                }
}

static void check_reduce_array(size_t c, int sp, size_t z)
{
    gpgpu_type t = reduce_cases[c].t;
    if (tu_skip_type(t))
        return;
    input in = array_input(t, SMALL, sp, z, tu_seed_for(800 + c, z));
    gpgpu_array *a = slice_array(&in);
    uint64_t got = 0, want = 0;
    ref_mpi_reduce(t, reduce_cases[c].op, in.global, in.total, &want);
    note_ok(gpgpu_mpi_reduce_array(tu_ctx, W, reduce_cases[c].op, a, &got), "reduce_array");
    note(got == want, "reduce_array case %zu, %s, n %zu here of %zu: got %#llx, want %#llx", c,
         array_split_name(sp), in.n, in.total, (unsigned long long)got,
         (unsigned long long)want);
    gpgpu_array_destroy(a);
    free_input(&in);
}

START_TEST(reduce_array_matches_reference)
{
    each_array_case(sizeof reduce_cases / sizeof reduce_cases[0], NSIZES + 1,
                    check_reduce_array);
}
END_TEST

/* Float sums (c: F32, F64): the host form's order of combination, so its
   bits, on every rank; GPGPU_SUM_EXACT: one device's exact sum of the
   whole. */
static void check_reduce_array_bits(size_t c, int sp, size_t z)
{
    gpgpu_type t = c == 0 ? GPGPU_F32 : GPGPU_F64;
    if (t == GPGPU_F64 && tu_skip_type(t))
        return;
    const char *name = c == 0 ? "f32" : "f64";
    input in = array_input(t, RANDOM, sp, z, tu_seed_for(810 + c, z));
    gpgpu_array *a = slice_array(&in);
    uint64_t host = 1, dev = 2, exact = 3, whole = 4, lo = 0, hi = 0;
    note_ok(gpgpu_mpi_reduce(tu_ctx, W, t, GPGPU_SUM, in.mine, in.n, &host), "reduce");
    note_ok(gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM, a, &dev), "reduce_array");
    note_ok(gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM_EXACT, a, &exact),
            "reduce_array SUM_EXACT");
    note_ok(gpgpu_reduce(tu_ctx, t, GPGPU_SUM_EXACT, in.global, in.total, &whole),
            "gpgpu_reduce of the whole");
    uint64_t mask = t == GPGPU_F32 ? 0xffffffffu : ~0ull;
    host &= mask, dev &= mask, exact &= mask, whole &= mask;
    MPI_Allreduce(&dev, &lo, 1, MPI_UINT64_T, MPI_MIN, W);
    MPI_Allreduce(&dev, &hi, 1, MPI_UINT64_T, MPI_MAX, W);
    note(dev == host && lo == hi,
         "reduce_array %s sum, %s, n %zu here of %zu: %#llx, host form %#llx, ranks %#llx .. "
         "%#llx", name, array_split_name(sp), in.n, in.total, (unsigned long long)dev,
         (unsigned long long)host, (unsigned long long)lo, (unsigned long long)hi);
    note(exact == whole, "reduce_array %s SUM_EXACT, %s, n %zu of %zu: %#llx, one device %#llx",
         name, array_split_name(sp), in.n, in.total, (unsigned long long)exact,
         (unsigned long long)whole);
    gpgpu_array_destroy(a);
    free_input(&in);
}

START_TEST(reduce_array_combines_as_the_host_form)
{
    each_array_case(2, NSIZES + 1, check_reduce_array_bits);
}
END_TEST

static void check_scan_array(size_t c, int sp, size_t z)
{
    gpgpu_type t = scan_cases[c].t;
    if (tu_skip_type(t))
        return;
    input in = array_input(t, SMALL, sp, z, tu_seed_for(820 + c, z));
    unsigned char *want = tu_alloc(in.total * in.size);
    ref_mpi_scan(t, scan_cases[c].op, scan_cases[c].kind, in.global, want, in.total);
    gpgpu_array *a = slice_array(&in), *out = a;
    if (c % 2 == 0)  /* in place on odd cases */
        note_ok(gpgpu_array_create(tu_ctx, t, in.n, &out), "array_create");
    note_ok(gpgpu_mpi_scan_array(tu_ctx, W, scan_cases[c].op, scan_cases[c].kind, a, out),
            "scan_array");
    unsigned char *got = array_contents(&in, out);
    long d = first_diff(&in, got, want);
    note(d < 0, "scan_array case %zu, %s, n %zu here of %zu: differs at local %ld", c,
         array_split_name(sp), in.n, in.total, d);
    if (out != a) {
        free(got);
        got = array_contents(&in, a);
        note(memcmp(got, in.mine, in.n * in.size) == 0, "scan_array changed in");
        gpgpu_array_destroy(out);
    }
    gpgpu_array_destroy(a);
    free(got);
    free(want);
    free_input(&in);
}

START_TEST(scan_array_matches_reference)
{
    each_array_case(sizeof scan_cases / sizeof scan_cases[0], NSIZES + 1, check_scan_array);
}
END_TEST

/* Float sums (c: the kind): the bits of gpgpu_mpi_scan on the same parts. */
static void check_scan_array_bits(size_t c, int sp, size_t z)
{
    gpgpu_scan_kind kind = c == 0 ? GPGPU_EXCLUSIVE : GPGPU_INCLUSIVE;
    input in = array_input(GPGPU_F32, RANDOM, sp, z, tu_seed_for(830 + c, z));
    float *host = tu_alloc((in.n + 1) * 4);
    note_ok(gpgpu_mpi_scan(tu_ctx, W, GPGPU_F32, GPGPU_SUM, kind, in.mine, host, in.n), "scan");
    gpgpu_array *a = slice_array(&in);
    note_ok(gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, kind, a, a), "scan_array");
    unsigned char *got = array_contents(&in, a);
    size_t i = 0;
    while (i < in.n && memcmp(got + 4 * i, host + i, 4) == 0)
        i++;
    note(i == in.n, "scan_array f32 %s, %s, n %zu here of %zu: local %zu is %a, host form %a",
         c ? "inclusive" : "exclusive", array_split_name(sp), in.n, in.total, i,
         i < in.n ? (double)((float *)got)[i] : 0.0, i < in.n ? (double)host[i] : 0.0);
    gpgpu_array_destroy(a);
    free(got);
    free(host);
    free_input(&in);
}

START_TEST(scan_array_rounds_as_the_host_form)
{
    each_array_case(2, NSIZES, check_scan_array_bits);
}
END_TEST

static void check_histogram_array(size_t c, int sp, size_t z)
{
    gpgpu_type t = hist_cases[c].t;
    size_t nb = hist_cases[c].nbins;
    if (tu_skip_type(t))
        return;
    input in = array_input(t, hist_cases[c].kind, sp, z, tu_seed_for(840 + c, z));
    uint64_t *got = tu_alloc(nb * sizeof *got), *want = tu_alloc(nb * sizeof *want);
    ref_mpi_histogram(t, in.global, in.total, nb, hist_cases[c].lo, hist_cases[c].hi, want);
    gpgpu_array *a = slice_array(&in);
    note_ok(gpgpu_mpi_histogram_array(tu_ctx, W, a, nb, hist_cases[c].lo, hist_cases[c].hi, got),
            "histogram_array");
    size_t b = 0;
    while (b < nb && got[b] == want[b])
        b++;
    note(b == nb, "histogram_array case %zu, %s, n %zu here of %zu: bin %zu is %llu, want %llu",
         c, array_split_name(sp), in.n, in.total, b, b < nb ? (unsigned long long)got[b] : 0ull,
         b < nb ? (unsigned long long)want[b] : 0ull);
    gpgpu_array_destroy(a);
    free(got);
    free(want);
    free_input(&in);
}

START_TEST(histogram_array_matches_reference)
{
    each_array_case(sizeof hist_cases / sizeof hist_cases[0], NSIZES, check_histogram_array);
}
END_TEST

/* A bad argument on one rank fails every rank alike, with no array, result
   or bin changed on any rank; then the same calls work. */
START_TEST(array_forms_fail_alike_and_change_nothing)
{
    input in = make_input(GPGPU_U32, 1000, SMALL, UNEVEN, tu_seed_for(850, 0));
    gpgpu_context *other = NULL;
    note_ok(gpgpu_context_create(&other, "host"), "a second context");
    gpgpu_array *a = slice_array(&in), *out = NULL, *longer = NULL, *wrong_type = NULL,
                *foreign = NULL;
    note_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, in.n, &out), "array_create");
    note_ok(gpgpu_array_create(tu_ctx, GPGPU_U32, in.n + 1, &longer), "array_create");
    note_ok(gpgpu_array_create(tu_ctx, GPGPU_I32, in.n, &wrong_type), "array_create");
    note_ok(gpgpu_array_create(other, GPGPU_U32, in.n, &foreign), "array_create");
    uint32_t *pattern = tu_alloc((in.n + 1) * 4);
    for (size_t i = 0; i < in.n; i++)
        pattern[i] = 0xdead0000u + (uint32_t)i;
    note_ok(gpgpu_array_write(tu_ctx, out, 0, pattern, in.n), "array_write");
    mt_check();
    const int b = bad();
    for (int how = 0; how < 12; how++) {
        if (how == 9 && nranks == 1)
            continue;
        uint32_t result = 777;
        uint64_t bins[8];
        memset(bins, 0xab, sizeof bins);
        gpgpu_status st;
        switch (how) {
        case 0: st = gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM, b ? NULL : a, &result); break;
        case 1: st = gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM, a, b ? NULL : &result); break;
        case 2: st = gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM, b ? foreign : a, &result); break;
        case 3: st = gpgpu_mpi_reduce_array(b ? NULL : tu_ctx, W, GPGPU_SUM, a, &result); break;
        case 4:
            st = gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a, b ? NULL : out);
            break;
        case 5:
            st = gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a, b ? longer : out);
            break;
        case 6:
            st = gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a,
                                      b ? wrong_type : out);
            break;
        case 7:
            st = gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a, b ? foreign : out);
            break;
        case 8:
            st = gpgpu_mpi_scan_array(tu_ctx, b ? MPI_COMM_NULL : W, GPGPU_SUM, GPGPU_EXCLUSIVE,
                                      a, out);
            break;
        case 9:  /* the host form on one rank, the array form on the others */
            st = b ? gpgpu_mpi_scan(tu_ctx, W, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in.mine,
                                      in.mine, in.n)
                   : gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a, out);
            break;
        case 10:
            st = gpgpu_mpi_histogram_array(tu_ctx, W, a, b ? 0 : 8, -8, 9, bins);
            break;
        default:
            st = gpgpu_mpi_histogram_array(tu_ctx, W, b ? foreign : a, 8, -8, 9, bins);
            break;
        }
        note_failed_alike(st, "an _array form with a bad argument on one rank");
        note(result == 777, "case %d: a failed reduce_array changed the result", how);
        note(bins[3] == 0xababababababababull, "case %d: a failed histogram_array changed bins",
             how);
        unsigned char *got = array_contents(&in, a);
        note(memcmp(got, in.mine, in.n * 4) == 0, "case %d: a failed call changed in", how);
        free(got);
        got = array_contents(&in, out);
        note(memcmp(got, pattern, in.n * 4) == 0, "case %d: a failed call changed out", how);
        free(got);
        mt_check();
    }
    /* afterwards the arrays, the context and the communicator work */
    uint32_t sum = 0, want = 0;
    ref_mpi_reduce(GPGPU_U32, GPGPU_SUM, in.global, in.total, &want);
    note_ok(gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM, a, &sum), "reduce_array");
    note(sum == want, "reduce_array after the failures: %u, want %u", sum, want);
    note_ok(gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a, out), "scan_array");
    gpgpu_array_destroy(a);
    gpgpu_array_destroy(out);
    gpgpu_array_destroy(longer);
    gpgpu_array_destroy(wrong_type);
    gpgpu_array_destroy(foreign);
    gpgpu_context_destroy(other);
    free(pattern);
    free_input(&in);
    mt_check();
}
END_TEST

START_TEST(top_k_and_quantiles_fail_everywhere)
{
    float x[4] = {1, 2, 3, 4}, v[8];
    uint64_t ix[8];
    double q = 0.5, bad = 2, out;
    /* k above the global n */
    gpgpu_status st = gpgpu_mpi_top_k(tu_ctx, W, GPGPU_F32, x, 1, (size_t)nranks + 1, 0, v, ix);
    note_failed_alike(st, "top_k with k above the global n");
    st = gpgpu_mpi_quantiles(tu_ctx, W, GPGPU_F32, x, 0, &q, 1, &out);
    note_failed_alike(st, "quantiles of an empty global array");
    st = gpgpu_mpi_quantiles(tu_ctx, W, GPGPU_F32, x, 4, rank == 0 ? &bad : &q, 1, &out);
    note_failed_alike(st, "quantiles with q = 2 on rank 0");
    mt_check();
}
END_TEST

static Suite *make(void)
{
    Suite *s = suite_create("mpi");
    struct { const char *name; const TTest *test; } tests[] = {
        {"reduce", reduce_matches_reference},
        {"reduce_bits", reduce_gives_every_rank_the_same_bits},
        {"reduce_exact", reduce_sum_exact_does_not_depend_on_the_split},
        {"reduce_exact_args", reduce_sum_exact_fails_alike_and_takes_integers},
        {"scan", scan_matches_reference},
        {"user_op", user_defined_operators_fold_in_rank_order},
        {"histogram", histogram_matches_reference},
        {"histogram2d", histogram2d_and_weighted_match_reference},
        {"sort", sort_matches_reference},
        {"sort_specials", sort_orders_float_specials},
        {"sort_million", sort_of_a_million_matches_reference},
        {"top_k", top_k_matches_reference},
        {"quantiles", quantiles_match_reference},
        {"select_args", top_k_and_quantiles_fail_everywhere},
        {"sort_pairs", sort_pairs_is_stable_across_ranks},
        {"sort_sorted", sort_handles_sorted_and_equal_keys},
        {"large_counts", large_counts_use_derived_datatypes},
        {"sort_exchange", sort_exchanges_by_mpi_and_after_failed_reads},
        {"null_pointers", null_pointers_fail_everywhere},
        {"bad_args", bad_flags_nbins_and_sizes_fail_everywhere},
        {"mismatch", arguments_that_differ_between_ranks_fail_everywhere},
        {"null_context", null_context_fails_everywhere},
        {"comm_null", comm_null_fails_everywhere},
        {"context", context_create_gives_each_rank_a_device},
        {"sort_array", sort_array_matches_reference},
        {"sort_array_args", sort_array_fails_alike_and_changes_nothing},
        {"reduce_array", reduce_array_matches_reference},
        {"reduce_array_bits", reduce_array_combines_as_the_host_form},
        {"scan_array", scan_array_matches_reference},
        {"scan_array_bits", scan_array_rounds_as_the_host_form},
        {"histogram_array", histogram_array_matches_reference},
        {"array_forms_args", array_forms_fail_alike_and_change_nothing},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        TCase *tc = tcase_create(tests[i].name);
        tcase_add_test(tc, tests[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

/* ---- faults on one rank ------------------------------------------------------------ */

static int faulted, calls;  /* calls made, and those that failed (alike) */

/* The _array forms of reduce and scan on the round's input (an array made
   and written outside the counted calls, which fault like the rest). */
static void fault_round_arrays(int i, const input *in, uint32_t want_sum, const size_t *perm)
{
    gpgpu_array *a = NULL, *out = NULL;
    gpgpu_status st = gpgpu_array_create(tu_ctx, GPGPU_U32, in->n, &a);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_create(tu_ctx, GPGPU_U32, in->n, &out);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_write(tu_ctx, a, 0, in->mine, in->n);
    uint32_t *pattern = tu_alloc((in->n + 1) * 4), *got = tu_alloc((in->n + 1) * 4);
    for (size_t k = 0; k < in->n; k++)
        pattern[k] = 0xfeed0000u + (uint32_t)k;
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_write(tu_ctx, out, 0, pattern, in->n);
    int ok = st == GPGPU_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, W);
    if (all) {
        uint32_t sum = 7;
        st = gpgpu_mpi_reduce_array(tu_ctx, W, GPGPU_SUM, a, &sum);
        calls++;
        faulted += st != GPGPU_SUCCESS;
        if (st != GPGPU_SUCCESS)
            note_failed_alike(st, "reduce_array");
        note(st == GPGPU_SUCCESS ? sum == want_sum : sum == 7, "round %d: reduce_array gave %u",
             i, sum);
        uint32_t *want = tu_alloc((in->total + 1) * 4);
        ref_mpi_scan(GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, in->global, want, in->total);
        st = gpgpu_mpi_scan_array(tu_ctx, W, GPGPU_SUM, GPGPU_INCLUSIVE, a, out);
        calls++;
        faulted += st != GPGPU_SUCCESS;
        if (st != GPGPU_SUCCESS)
            note_failed_alike(st, "scan_array");
        const uint32_t *expect = st == GPGPU_SUCCESS ? want + in->first : pattern;
        note(gpgpu_array_read(tu_ctx, out, 0, got, in->n) != GPGPU_SUCCESS ||
                 memcmp(got, expect, in->n * 4) == 0,
             "round %d: scan_array (%s) wrote the wrong out", i, gpgpu_status_string(st));
        note(gpgpu_array_read(tu_ctx, a, 0, got, in->n) != GPGPU_SUCCESS ||
                 memcmp(got, in->mine, in->n * 4) == 0,
             "round %d: scan_array changed in", i);
        free(want);
        /* sort_array: sorted, or on failure as it was */
        st = gpgpu_mpi_sort_array(tu_ctx, W, a, 0);
        calls++;
        faulted += st != GPGPU_SUCCESS;
        if (st != GPGPU_SUCCESS)
            note_failed_alike(st, "sort_array");
        if (gpgpu_array_read(tu_ctx, a, 0, got, in->n) == GPGPU_SUCCESS)
            for (size_t k = 0; k < in->n; k++) {
                uint32_t e = st == GPGPU_SUCCESS
                                 ? ((const uint32_t *)in->global)[perm[in->first + k]]
                                 : ((const uint32_t *)in->mine)[k];
                if (!note(got[k] == e, "round %d: sort_array (%s) wrong at %zu", i,
                          gpgpu_status_string(st), k))
                    break;
            }
    }
    gpgpu_array_destroy(a);
    gpgpu_array_destroy(out);
    free(pattern);
    free(got);
}

/* Each call succeeds with the right answer everywhere, or fails everywhere
   alike with its output untouched. */
static void fault_round(int i)
{
    input in = make_input(GPGPU_U32, 5000, SMALL, UNEVEN, tu_seed_for(600, (uint64_t)i));
    unsigned char *keep = tu_alloc(in.n * 4);
    memcpy(keep, in.mine, in.n * 4);
    size_t *perm = tu_alloc(in.total * sizeof *perm);
    ref_mpi_sort_order(GPGPU_U32, in.global, in.total, 0, perm);
    uint32_t sum = 7, want = 0;
    ref_mpi_reduce(GPGPU_U32, GPGPU_SUM, in.global, in.total, &want);
    gpgpu_status st = gpgpu_mpi_reduce(tu_ctx, W, GPGPU_U32, GPGPU_SUM, in.mine, in.n, &sum);
    calls++;
    faulted += st != GPGPU_SUCCESS;
    if (st != GPGPU_SUCCESS)
        note_failed_alike(st, "reduce");
    note(st == GPGPU_SUCCESS ? sum == want : sum == 7, "round %d: reduce gave %u", i, sum);
    fault_round_arrays(i, &in, want, perm);
    st = gpgpu_mpi_sort(tu_ctx, W, GPGPU_U32, in.mine, in.n, 0);
    calls++;
    faulted += st != GPGPU_SUCCESS;
    if (st != GPGPU_SUCCESS)
        note_failed_alike(st, "sort");
    for (size_t k = 0; k < in.n; k++) {
        uint32_t got = ((uint32_t *)in.mine)[k];
        uint32_t expect = st == GPGPU_SUCCESS ? ((uint32_t *)in.global)[perm[in.first + k]]
                                              : ((uint32_t *)keep)[k];
        if (!note(got == expect, "round %d: sort (%s) wrong at %zu", i, gpgpu_status_string(st),
                  k))
            break;
    }
    free(perm);
    free(keep);
    free_input(&in);
    mt_check();
}

START_TEST(a_fault_on_one_rank_fails_every_rank_alike)
{
    for (int i = 0; i < 6; i++)
        fault_round(i);
}
END_TEST

static Suite *make_faults(void)
{
    Suite *s = suite_create("mpi faults");
    TCase *tc = tcase_create("faults");
    tcase_add_test(tc, a_fault_on_one_rank_fails_every_rank_alike);
    suite_add_tcase(s, tc);
    return s;
}

/* mpi.sh sets GPGPU_FAULT_AT on rank 1 only. The context is made
   collectively: a fault that lands there must fail every rank alike too. */
static int run_faults(void)
{
    tu_device = "default";
    gpgpu_status st = gpgpu_mpi_context_create(&tu_ctx, W, NULL);
    int mine = (int)st, lo, hi, failed = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, W);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, W);
    if (st != GPGPU_SUCCESS) {
        if (rank == 0)
            printf("faults: context creation failed %s (%s)\n", lo == hi ? "alike" : "UNALIKE",
                   gpgpu_mpi_last_error());
        return lo != hi;
    }
    SRunner *sr = srunner_create(make_faults());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr) != 0;
    srunner_free(sr);
    if (rank == 0)
        printf("faults: %d of %d calls failed alike, the others succeeded (%s)\n", faulted,
               calls, gpgpu_mpi_last_error());
    gpgpu_context_destroy(tu_ctx);
    return failed;
}

/* Whether every rank can read the memory of the next one with
   process_vm_readv, as the sort's exchanges try to: decided together.
   Fills why_not when not. */
static int cross_reads_work(char *why_not, size_t room)
{
    snprintf(why_not, room, "not on Linux");
#ifdef __linux__
    static volatile uint64_t token;
    token = UINT64_C(0x5eed000000000000) | (uint64_t)rank;
    MPI_Comm node;
    int node_size = 0, ok = 1, all = 0;
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    uint64_t mine[2] = {(uint64_t)(uintptr_t)&token, (uint64_t)getpid()}, every[2 * 64];
    MPI_Allgather(mine, 2, MPI_UINT64_T, every, 2, MPI_UINT64_T, W);
    int next = (rank + 1) % nranks;
    uint64_t got = 0;
    struct iovec local = {&got, sizeof got}, remote = {(void *)(uintptr_t)every[2 * next],
                                                       sizeof got};
    if (node_size != nranks) {
        snprintf(why_not, room, "the ranks are on several nodes");
        ok = 0;
    } else if (process_vm_readv((pid_t)every[2 * next + 1], &local, 1, &remote, 1, 0) !=
                   (ssize_t)sizeof got ||
               got != (UINT64_C(0x5eed000000000000) | (uint64_t)next)) {
        snprintf(why_not, room, "process_vm_readv: %s", strerror(errno));
        ok = 0;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, W);
    if (all)
        return 1;
    if (ok)
        snprintf(why_not, room, "it failed on another rank");
#endif
    return 0;
}

int main(int argc, char **argv)
{
    /* Line by line: a rank killed by mpi.sh's time limit still shows how
       far it got (a full buffer dies with it). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nranks);
    if (nranks > 64) {
        fprintf(stderr, "test_mpi: at most 64 ranks\n");
        MPI_Abort(W, 1);
    }
    int faults = argc > 1 && strcmp(argv[1], "faults") == 0;
    /* Where the exchanges can read each other's memory, they must (a path
       that fell back to MPI every time would pass unseen); GPGPU_MPI_CMA
       from the environment wins. */
    char why_not[256];
    if (!faults && nranks > 1 && getenv("GPGPU_MPI_CMA") == NULL) {
        int reads = cross_reads_work(why_not, sizeof why_not);
        if (reads)
            setenv("GPGPU_MPI_CMA", "require", 1);
        if (rank == 0 && reads)
            printf("test_mpi: the sort's exchanges must read the other ranks' memory\n");
        else if (rank == 0)
            printf("test_mpi: the sort's exchanges take MPI: no cross-process reads here (%s)\n",
                   why_not);
    }
    int rc = faults ? run_faults() : tu_main(make);
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, W);
    MPI_Finalize();
    return worst;
}
