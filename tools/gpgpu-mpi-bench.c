/*
 * gpgpu-mpi-bench - times libgpgpu-mpi's primitives under mpirun:
 *
 *   mpirun -np P gpgpu-mpi-bench [--op reduce|scan|histogram|sort|sort_pairs|all]
 *       [--n N] [--strong] [--repeat R] [--device SPEC] [--phases] [--efficiency]
 *       [--arrays] [--model] [--json]
 *
 * --n is the count per rank (weak scaling), or with --strong the global
 * count split evenly (strong scaling). Each primitive is called once to warm
 * up, then R times between barriers. Per primitive it prints the median wall
 * time of a call (the slowest rank's), Gelem/s over the global array, and
 * the share of that time spent inside MPI calls, averaged over ranks
 * (measured through the MPI profiling interface: the wrappers below count
 * the collectives libgpgpu-mpi makes, waiting for slower ranks included).
 *
 * --phases sets GPGPU_MPI_TRACE=1 on every rank and prints, after a sort's
 * line, the steps of its last timed call (gpgpu_mpi_last_trace: each
 * step's time, bytes over MPI and within the ranks, rate). --efficiency
 * (weak scaling) also times the same call on rank 0 alone
 * (MPI_COMM_SELF, the other ranks idle at a barrier) and prints that time
 * and the weak efficiency, its time over the P-rank time. --arrays times
 * the _array forms on each rank's gpgpu_arrays instead of host arrays
 * (rows reduce_array, scan_array, histogram_array, sort_array and
 * sort_pairs_array): the data is written to the device before the timed
 * calls (for the sorts, the unsorted input again before each call), and
 * each timed call ends when the device has finished its work.
 *
 * --model measures, with every rank at once, what the device sort's steps
 * are made of: a read of the rank's n u32 from its device into pinned host
 * memory (gpgpu_host_alloc, as the sort's own buffers are; gpgpu_array_read)
 * and a write back (gpgpu_array_write), an MPI_Alltoallv of (P-1)/P of them
 * (between two such buffers, n/P to each other rank),
 * and gpgpu_sort_array and gpgpu_sort_pairs_array of n on the device. It
 * prints those and the model of sort_array, the sum of its steps at those
 * rates: a sort, (P-1)/P of a read, the exchange, (P-1)/P of a write, and
 * the sort of the bucket; sort_pairs_array moves twice the bytes and sorts
 * pairs. A row "model" goes into --json output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_mpi.h"

/* ---- time inside MPI, through PMPI --------------------------------------- */

static double mpi_seconds;

#define TIMED(call)                          \
    do {                                     \
        double t0_ = PMPI_Wtime();           \
        int r_ = (call);                     \
        mpi_seconds += PMPI_Wtime() - t0_;   \
        return r_;                           \
    } while (0)

#define EXPORT __attribute__((visibility("default")))

EXPORT int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    TIMED(PMPI_Allreduce(s, r, n, t, op, c));
}

EXPORT int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                         MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Allgather(s, sn, st, r, rn, rt, c));
}

EXPORT int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                        MPI_Comm c)
{
    TIMED(PMPI_Alltoall(s, sn, st, r, rn, rt, c));
}

EXPORT int MPI_Alltoallv(const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r,
                         const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c));
}

EXPORT int MPI_Alltoallw(const void *s, const int sn[], const int sd[], const MPI_Datatype st[],
                         void *r, const int rn[], const int rd[], const MPI_Datatype rt[],
                         MPI_Comm c)
{
    TIMED(PMPI_Alltoallw(s, sn, sd, st, r, rn, rd, rt, c));
}

EXPORT int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    TIMED(PMPI_Bcast(b, n, t, root, c));
}

/* ---- the cases -------------------------------------------------------------- */

typedef struct {
    gpgpu_context *ctx;
    size_t n;                   /* this rank's count */
    uint32_t *keys, *pristine, *values, *out;
    gpgpu_array *akeys, *avalues;   /* --arrays: the sorts' */
    gpgpu_array *ain, *aout, *asamples; /* --arrays: reduce's and scan's input, scan's
                                           output, histogram's samples */
    float *samples;
    uint64_t bins[256];
} bench_data;

static gpgpu_status run_op(const char *op, bench_data *d, MPI_Comm comm)
{
    uint32_t sum;
    if (d->ain && !strcmp(op, "reduce"))
        return gpgpu_mpi_reduce_array(d->ctx, comm, GPGPU_SUM, d->ain, &sum);
    if (d->ain && !strcmp(op, "scan"))
        return gpgpu_mpi_scan_array(d->ctx, comm, GPGPU_SUM, GPGPU_INCLUSIVE, d->ain, d->aout);
    if (d->ain && !strcmp(op, "histogram"))
        return gpgpu_mpi_histogram_array(d->ctx, comm, d->asamples, 256, 0.0, 1.0, d->bins);
    if (!strcmp(op, "reduce"))
        return gpgpu_mpi_reduce(d->ctx, comm, GPGPU_U32, GPGPU_SUM, d->pristine, d->n, &sum);
    if (!strcmp(op, "scan"))
        return gpgpu_mpi_scan(d->ctx, comm, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, d->pristine,
                              d->out, d->n);
    if (!strcmp(op, "histogram"))
        return gpgpu_mpi_histogram(d->ctx, comm, GPGPU_F32, d->samples, d->n, 256, 0.0, 1.0,
                                   d->bins);
    if (d->akeys && !strcmp(op, "sort"))
        return gpgpu_mpi_sort_array(d->ctx, comm, d->akeys, 0);
    if (d->akeys)
        return gpgpu_mpi_sort_pairs_array(d->ctx, comm, d->akeys, d->avalues, 0);
    if (!strcmp(op, "sort"))
        return gpgpu_mpi_sort(d->ctx, comm, GPGPU_U32, d->keys, d->n, 0);
    return gpgpu_mpi_sort_pairs(d->ctx, comm, GPGPU_U32, d->keys, d->values, 4, d->n, 0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    int repeat, strong, json, phases, efficiency, arrays, model;
    const char *device;     /* rank 0's device name */
} bench_opts;

/* --arrays: waits until the device has finished (an _array call need
   not wait: a scan, or a sort on one rank). */
static void wait_arrays(bench_data *d)
{
    uint32_t one;
    if (d->akeys && d->n > 0)
        gpgpu_array_read(d->ctx, d->akeys, 0, &one, 1);
}

/* --arrays: the arrays get the input again (and the device has finished). */
static void restore_arrays(bench_data *d)
{
    if (d->akeys && d->n > 0) {
        gpgpu_array_write(d->ctx, d->akeys, 0, d->pristine, d->n);
        gpgpu_array_write(d->ctx, d->avalues, 0, d->values, d->n);
        uint32_t one;
        gpgpu_array_read(d->ctx, d->akeys, 0, &one, 1);     /* waits */
    }
}

/* The median time of op on rank 0 alone (MPI_COMM_SELF), the other ranks
   waiting: a one-rank run of the same part on the same device. 0 if it
   failed. Every rank calls it. */
static double one_rank_ms(const char *op, bench_data *d, int repeat, int rank)
{
    double *times = calloc((size_t)repeat, sizeof *times), t = 0;
    int failed = 0;
    if (rank == 0 && times) {
        for (int i = -1; i < repeat && !failed; i++) {
            memcpy(d->keys, d->pristine, d->n * sizeof *d->keys);
            restore_arrays(d);
            double t0 = MPI_Wtime();
            failed = run_op(op, d, MPI_COMM_SELF) != GPGPU_SUCCESS;
            wait_arrays(d);
            if (i >= 0)
                times[i] = MPI_Wtime() - t0;
        }
        qsort(times, (size_t)repeat, sizeof *times, cmp_double);
        t = failed ? 0 : times[repeat / 2] * 1e3;
    }
    free(times);
    PMPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* Times op; on rank 0 prints its line. Returns 0, or 1 if a call failed. */
static int bench_op(const char *op, bench_data *d, const bench_opts *o, size_t total, int rank,
                    int size)
{
    int repeat = o->repeat;
    double *times = calloc((size_t)repeat, sizeof *times), share = 0;
    int failed = 0;
    for (int i = -1; i < repeat && !failed; i++) {
        memcpy(d->keys, d->pristine, d->n * sizeof *d->keys);  /* sorts start unsorted */
        restore_arrays(d);
        MPI_Barrier(MPI_COMM_WORLD);
        mpi_seconds = 0;
        double t0 = MPI_Wtime();
        gpgpu_status st = run_op(op, d, MPI_COMM_WORLD);
        wait_arrays(d);
        double mine[2] = {MPI_Wtime() - t0, 0}, worst[2];
        mine[1] = mpi_seconds / (mine[0] > 0 ? mine[0] : 1);
        if (st != GPGPU_SUCCESS && rank == 0)
            fprintf(stderr, "%s: %s (%s)\n", op, gpgpu_status_string(st), gpgpu_mpi_last_error());
        failed = st != GPGPU_SUCCESS;
        PMPI_Allreduce(mine, worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Allreduce(&mine[1], &worst[1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (i >= 0) {
            times[i] = worst[0];
            share += worst[1] / size / repeat;
        }
    }
    qsort(times, (size_t)repeat, sizeof *times, cmp_double);
    double t = times[repeat / 2];
    char phases[1024] = "";     /* (before the one-rank run, which clears the trace) */
    if (o->phases && size > 1 && !strncmp(op, "sort", 4))
        snprintf(phases, sizeof phases, "%s", gpgpu_mpi_last_trace());
    double one = !failed && o->efficiency && !o->strong ? one_rank_ms(op, d, repeat, rank) : 0;
    char extra[128] = "";
    char shown[32];
    snprintf(shown, sizeof shown, "%s%s", op, o->arrays ? "_array" : "");
    if (one > 0)
        snprintf(extra, sizeof extra, ", \"ms_one_rank\": %.4f, \"efficiency\": %.4f", one,
                 one / (t * 1e3));
    if (rank == 0 && !failed && o->json)
        printf("{\"op\": \"%s\", \"scaling\": \"%s\", \"ranks\": %d, \"n_per_rank\": %zu, "
               "\"n_global\": %zu, \"ms\": %.4f, \"gelem_per_s\": %.4f, "
               "\"mpi_share\": %.4f, \"repeat\": %d, \"device\": \"%s\"%s%s%s%s}\n",
               shown, o->strong ? "strong" : "weak", size, d->n, total, t * 1e3,
               (double)total / t * 1e-9, share, repeat, o->device, extra,
               *phases ? ", \"phases\": \"" : "", phases, *phases ? "\"" : "");
    else if (rank == 0 && !failed) {
        printf("%-16s %5d %12zu %12zu %10.3f %9.3f %6.1f", shown, size, d->n, total, t * 1e3,
               (double)total / t * 1e-9, share * 100);
        if (one > 0)
            printf("   1 rank %.3f ms, weak efficiency %.2f", one, one / (t * 1e3));
        printf("\n");
        if (*phases)
            printf("#   %s\n", phases);
    }
    free(times);
    return failed;
}

/* --model: one step's median time (the slowest rank's) over repeat runs
   with every rank at once; what: 0 read, 1 write, 2 exchange, 3 sort,
   4 sort pairs. */
static double step_ms(bench_data *d, uint32_t *h0, uint32_t *h1, int what, int repeat, int size,
                      int *sc, int *sd, int *rc, int *rd)
{
    double *times = calloc((size_t)repeat, sizeof *times), t = 0;
    if (times == NULL)
        return 0;
    for (int i = -1; i < repeat; i++) {
        if (what >= 3)
            restore_arrays(d);
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (what == 0)
            gpgpu_array_read(d->ctx, d->ain, 0, h0, d->n);
        else if (what == 1)
            gpgpu_array_write(d->ctx, d->aout, 0, h1, d->n);
        else if (what == 2)
            PMPI_Alltoallv(h1, sc, sd, MPI_UINT32_T, h0, rc, rd, MPI_UINT32_T, MPI_COMM_WORLD);
        else if (what == 3)
            gpgpu_sort_array(d->ctx, d->akeys, 0);
        else
            gpgpu_sort_pairs_array(d->ctx, d->akeys, d->avalues, 0);
        wait_arrays(d);
        double mine = MPI_Wtime() - t0, worst = 0;
        PMPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (i >= 0)
            times[i] = worst;
    }
    (void)size;
    qsort(times, (size_t)repeat, sizeof *times, cmp_double);
    t = times[repeat / 2] * 1e3;
    free(times);
    return t;
}

static void model(bench_data *d, const bench_opts *o, int rank, int size)
{
    int *v = calloc(4 * (size_t)size, sizeof *v);
    if (v == NULL || d->n / (size_t)size > INT32_MAX) {
        free(v);
        return;
    }
    for (int r = 0; r < size; r++) {   /* n / P to each other rank, none to itself */
        v[r] = r == rank ? 0 : (int)(d->n / (size_t)size);
        v[size + r] = (int)(d->n / (size_t)size) * r;
        v[2 * size + r] = v[r];
        v[3 * size + r] = v[size + r];
    }
    /* (pageable memory where pinned is refused: the host fallback) */
    uint32_t *h0 = gpgpu_host_alloc(d->ctx, d->n * 4), *h1 = gpgpu_host_alloc(d->ctx, d->n * 4);
    if (h1 != NULL)
        memcpy(h1, d->pristine, d->n * 4);
    double ms[5];
    for (int w = 0; w < 5; w++)
        ms[w] = step_ms(d, h0 ? h0 : d->out, h1 ? h1 : d->keys, w, o->repeat, size, v, v + size,
                        v + 2 * size, v + 3 * size);
    free(v);
    gpgpu_host_free(d->ctx, h0);
    gpgpu_host_free(d->ctx, h1);
    double f = (double)(size - 1) / size, gb = (double)d->n * 4 * 1e-9;
    double keys = ms[3] + f * (ms[0] + ms[1]) + ms[2] + ms[3];
    double pairs = ms[4] + 2 * (f * (ms[0] + ms[1]) + ms[2]) + ms[4];
    if (rank != 0)
        return;
    if (o->json)
        printf("{\"op\": \"model\", \"ranks\": %d, \"n_per_rank\": %zu, \"read_ms\": %.4f, "
               "\"write_ms\": %.4f, \"exchange_ms\": %.4f, \"sort_ms\": %.4f, "
               "\"sort_pairs_ms\": %.4f, \"sort_array_model_ms\": %.4f, "
               "\"sort_pairs_array_model_ms\": %.4f, \"device\": \"%s\"}\n",
               size, d->n, ms[0], ms[1], ms[2], ms[3], ms[4], keys, pairs, o->device);
    else
        printf("# model, %d ranks, %zu u32 a rank: read %.3f ms (%.1f GB/s), write %.3f ms "
               "(%.1f GB/s), exchange of (P-1)/P %.3f ms (%.1f GB/s a rank), sort %.3f ms, "
               "sort_pairs %.3f ms; sort_array %.3f ms, sort_pairs_array %.3f ms\n",
               size, d->n, ms[0], gb / (ms[0] * 1e-3), ms[1], gb / (ms[1] * 1e-3), ms[2],
               f * gb / (ms[2] * 1e-3), ms[3], ms[4], keys, pairs);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int alloc_data(bench_data *d, int rank)
{
    size_t n = d->n ? d->n : 1;
    d->keys = malloc(n * 4);
    d->pristine = malloc(n * 4);
    d->values = malloc(n * 4);
    d->out = malloc(n * 4);
    d->samples = malloc(n * 4);
    if (!d->keys || !d->pristine || !d->values || !d->out || !d->samples)
        return 1;
    uint64_t s = 0x5eed + (uint64_t)rank;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t r = splitmix(&s);
        d->pristine[i] = (uint32_t)r;
        d->values[i] = (uint32_t)i;
        d->samples[i] = (float)(r >> 40) * 0x1.0p-24f;
    }
    return 0;
}

/* --arrays: every array, and the inputs of reduce, scan and histogram
   written once (those calls leave them as they are). */
static gpgpu_status make_arrays(bench_data *d)
{
    gpgpu_array **u32[] = {&d->akeys, &d->avalues, &d->ain, &d->aout};
    gpgpu_status st = GPGPU_SUCCESS;
    for (size_t i = 0; i < sizeof u32 / sizeof u32[0] && st == GPGPU_SUCCESS; i++)
        st = gpgpu_array_create(d->ctx, GPGPU_U32, d->n, u32[i]);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_create(d->ctx, GPGPU_F32, d->n, &d->asamples);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_write(d->ctx, d->ain, 0, d->pristine, d->n);
    if (st == GPGPU_SUCCESS)
        st = gpgpu_array_write(d->ctx, d->asamples, 0, d->samples, d->n);
    return st;
}

static void usage(void)
{
    fprintf(stderr, "usage: mpirun -np P gpgpu-mpi-bench [--op reduce|scan|histogram|sort|"
                    "sort_pairs|all] [--n N] [--strong] [--repeat R] [--device SPEC] "
                    "[--phases] [--efficiency] [--arrays] [--model] [--json]\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, strong = 0, repeat = 5, json = 0, failed = 0, phases = 0, efficiency = 0,
        arrays = 0, with_model = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *op = "all", *device = NULL;
    size_t n = (size_t)1 << 22;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--op") && i + 1 < argc)
            op = argv[++i];
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device = argv[++i];
        else if (!strcmp(argv[i], "--strong"))
            strong = 1;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--phases"))
            phases = 1;
        else if (!strcmp(argv[i], "--efficiency"))
            efficiency = 1;
        else if (!strcmp(argv[i], "--arrays"))
            arrays = 1;
        else if (!strcmp(argv[i], "--model"))
            with_model = 1;
        else {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (repeat < 1)
        repeat = 1;
    if (phases)     /* before any call, alike on every rank */
        setenv("GPGPU_MPI_TRACE", "1", 1);
    bench_data d = {.n = strong ? n / (size_t)size + ((size_t)rank < n % (size_t)size) : n};
    size_t total = strong ? n : n * (size_t)size;
    gpgpu_status st = gpgpu_mpi_context_create(&d.ctx, MPI_COMM_WORLD, device);
    if (st != GPGPU_SUCCESS || alloc_data(&d, rank)) {
        fprintf(stderr, "rank %d: %s\n", rank,
                st ? gpgpu_mpi_last_error() : "out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if ((arrays || with_model) && make_arrays(&d) != GPGPU_SUCCESS) {
        fprintf(stderr, "rank %d: the arrays: %s\n", rank, gpgpu_last_error(d.ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* A device name goes into JSON as is: keep it to characters that need no escape. */
    char name[128];
    snprintf(name, sizeof name, "%s", gpgpu_device_name(d.ctx));
    for (char *c = name; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = ' ';
    bench_opts o = {repeat, strong, json, phases, efficiency, arrays, with_model, name};
    if (with_model)
        model(&d, &o, rank, size);
    if (rank == 0 && !json)
        printf("# %s scaling, device %s (rank 0), median of %d\n"
               "%-16s %5s %12s %12s %10s %9s %6s\n",
               strong ? "strong" : "weak", gpgpu_device_name(d.ctx), repeat, "op", "ranks",
               "n/rank", "N global", "ms", "Gelem/s", "MPI %");
    static const char *ops[] = {"reduce", "scan", "histogram", "sort", "sort_pairs"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, "all") || !strcmp(op, ops[i]))
            failed |= bench_op(ops[i], &d, &o, total, rank, size);
    gpgpu_array_destroy(d.akeys);
    gpgpu_array_destroy(d.avalues);
    gpgpu_array_destroy(d.ain);
    gpgpu_array_destroy(d.aout);
    gpgpu_array_destroy(d.asamples);
    gpgpu_context_destroy(d.ctx);
    free(d.keys);
    free(d.pristine);
    free(d.values);
    free(d.out);
    free(d.samples);
    MPI_Finalize();
    return failed;
}
