/*
 * example_particles.c - the README's particle step ("Device arrays"), run
 * with device arrays and with the host-memory calls, checked and timed.
 *
 * n particles live in ncells cells. A step sorts them by cell (the cells
 * are the keys, the energies travel with them), counts the particles of
 * each cell, scans the counts into each cell's first particle and sums the
 * energy. Before each step the particles get their unsorted cells back (in
 * a simulation they would have moved): an untimed gpgpu_array_write for
 * the arrays, an untimed memcpy for the host arrays. The time of a step is
 * the wall time of the calls, median over the steps, after one warm-up
 * step that builds the kernels.
 *
 *   example_particles [--n N] [--cells C] [--steps S] [--pinned]
 *
 * --pinned: the host version's arrays come from gpgpu_host_alloc. Without
 * arguments, a small run for make check. Exit status 0 when both versions
 * give the same bits and the cell starts match a count on the host.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpgpu.h"

/* ---- the step, as in the README ----------------------------------------- */

/* One step on the device: the cells, energies and cell starts never leave
   it; count (ncells, host memory) and *total come back. */
static gpgpu_status step_arrays(gpgpu_context *ctx, gpgpu_array *cell, gpgpu_array *energy,
                                gpgpu_array *start, size_t ncells, uint64_t *count,
                                float *total)
{
    gpgpu_status s = gpgpu_sort_pairs_array(ctx, cell, energy, GPGPU_ASCENDING);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_histogram_array(ctx, cell, ncells, 0, (double)ncells, count);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_write(ctx, start, 0, count, ncells);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_scan_array(ctx, GPGPU_SUM, GPGPU_EXCLUSIVE, start, start);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_reduce_array(ctx, GPGPU_SUM, energy, total);
    return s;
}

/* The same step with the host-memory calls: every call moves its arrays. */
static gpgpu_status step_host(gpgpu_context *ctx, uint32_t *cell, float *energy, size_t n,
                              size_t ncells, uint64_t *count, uint64_t *start, float *total)
{
    gpgpu_status s = gpgpu_sort_pairs(ctx, GPGPU_U32, cell, energy, sizeof *energy, n,
                                      GPGPU_ASCENDING);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_histogram(ctx, GPGPU_U32, cell, n, ncells, 0, (double)ncells, count);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_scan(ctx, GPGPU_U64, GPGPU_SUM, GPGPU_EXCLUSIVE, count, start, ncells);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_reduce(ctx, GPGPU_F32, GPGPU_SUM, energy, n, total);
    return s;
}

/* ---- the harness --------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct {
    size_t n, ncells;
    int steps, pinned;
} options;

/* What each version ends with, to compare. */
typedef struct {
    uint32_t *cell;
    float *energy;
    uint64_t *count, *start;
    float total;
    double ms;        /* median step */
} outcome;

static int fail(gpgpu_context *ctx, const char *what, gpgpu_status s)
{
    fprintf(stderr, "example_particles: %s: %s (%s)\n", what, gpgpu_status_string(s),
            gpgpu_last_error(ctx));
    return 1;
}

static int run_arrays(gpgpu_context *ctx, const options *o, const uint32_t *cell0,
                      const float *energy0, outcome *out, double *ms)
{
    gpgpu_array *cell = NULL, *energy = NULL, *start = NULL;
    gpgpu_status s = gpgpu_array_create(ctx, GPGPU_U32, o->n, &cell);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(ctx, GPGPU_F32, o->n, &energy);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_create(ctx, GPGPU_U64, o->ncells, &start);
    for (int k = -1; k < o->steps && s == GPGPU_SUCCESS; k++) {
        s = gpgpu_array_write(ctx, cell, 0, cell0, o->n);
        if (s == GPGPU_SUCCESS)
            s = gpgpu_array_write(ctx, energy, 0, energy0, o->n);
        double t0 = now_ms();
        if (s == GPGPU_SUCCESS)
            s = step_arrays(ctx, cell, energy, start, o->ncells, out->count, &out->total);
        if (k >= 0)
            ms[k] = now_ms() - t0;
    }
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_read(ctx, cell, 0, out->cell, o->n);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_read(ctx, energy, 0, out->energy, o->n);
    if (s == GPGPU_SUCCESS)
        s = gpgpu_array_read(ctx, start, 0, out->start, o->ncells);
    gpgpu_array_destroy(cell);
    gpgpu_array_destroy(energy);
    gpgpu_array_destroy(start);
    return s == GPGPU_SUCCESS ? 0 : fail(ctx, "arrays", s);
}

static int run_host(gpgpu_context *ctx, const options *o, const uint32_t *cell0,
                    const float *energy0, outcome *out, double *ms)
{
    gpgpu_status s = GPGPU_SUCCESS;
    for (int k = -1; k < o->steps && s == GPGPU_SUCCESS; k++) {
        memcpy(out->cell, cell0, o->n * sizeof *cell0);
        memcpy(out->energy, energy0, o->n * sizeof *energy0);
        double t0 = now_ms();
        s = step_host(ctx, out->cell, out->energy, o->n, o->ncells, out->count, out->start,
                      &out->total);
        if (k >= 0)
            ms[k] = now_ms() - t0;
    }
    return s == GPGPU_SUCCESS ? 0 : fail(ctx, "host calls", s);
}

static void *alloc(gpgpu_context *ctx, int pinned, size_t bytes)
{
    void *p = pinned ? gpgpu_host_alloc(ctx, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "example_particles: no host memory for %zu bytes\n", bytes);
        exit(1);
    }
    return p;
}

static void outcome_init(gpgpu_context *ctx, const options *o, int pinned, outcome *r)
{
    r->cell = alloc(ctx, pinned, o->n * sizeof *r->cell);
    r->energy = alloc(ctx, pinned, o->n * sizeof *r->energy);
    r->count = alloc(ctx, 0, o->ncells * sizeof *r->count);
    r->start = alloc(ctx, 0, o->ncells * sizeof *r->start);
}

static void outcome_free(gpgpu_context *ctx, int pinned, outcome *r)
{
    if (pinned) {
        gpgpu_host_free(ctx, r->cell);
        gpgpu_host_free(ctx, r->energy);
    } else {
        free(r->cell);
        free(r->energy);
    }
    free(r->count);
    free(r->start);
}

/* Both versions agree bit for bit, and the starts are those of a count of
   the unsorted cells on the host. */
static int same(const options *o, const uint32_t *cell0, const outcome *a, const outcome *h)
{
    uint64_t at = 0, *c = calloc(o->ncells, sizeof *c);
    int ok = c != NULL;
    for (size_t i = 0; ok && i < o->n; i++)
        c[cell0[i]]++;
    for (size_t k = 0; ok && k < o->ncells; k++) {
        ok = a->start[k] == at && h->start[k] == at && a->count[k] == c[k];
        at += c[k];
    }
    free(c);
    return ok && !memcmp(a->cell, h->cell, o->n * sizeof *a->cell) &&
           !memcmp(a->energy, h->energy, o->n * sizeof *a->energy) &&
           !memcmp(&a->total, &h->total, sizeof a->total);
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){100003, 1024, 3, 0};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--n") && v)
            o->n = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--cells") && v)
            o->ncells = (size_t)strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--steps") && v)
            o->steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pinned"))
            o->pinned = 1;
        else
            return -1;
    }
    return o->steps >= 1 && o->ncells >= 1 && o->ncells <= ((size_t)1 << 24) ? 0 : -1;
}

int main(int argc, char **argv)
{
    options o;
    if (parse(argc, argv, &o)) {
        fprintf(stderr, "usage: example_particles [--n N] [--cells C (1 .. 2^24)] [--steps S]"
                        " [--pinned]\n");
        return 2;
    }
    gpgpu_context *ctx;
    gpgpu_status s = gpgpu_context_create(&ctx, NULL);
    if (s != GPGPU_SUCCESS)
        return fail(NULL, "context", s);
    uint32_t *cell0 = alloc(ctx, 0, o.n * sizeof *cell0);
    float *energy0 = alloc(ctx, 0, o.n * sizeof *energy0);
    double *ms_a = alloc(ctx, 0, o.steps * sizeof *ms_a);
    double *ms_h = alloc(ctx, 0, o.steps * sizeof *ms_h);
    uint64_t seed = 20261123;
    for (size_t i = 0; i < o.n; i++) {
        uint64_t r = splitmix(&seed);
        cell0[i] = (uint32_t)((r >> 32) % o.ncells);
        energy0[i] = (float)(r & 0xffffff) * 0x1p-24f;
    }
    outcome a, h;
    outcome_init(ctx, &o, 0, &a);
    outcome_init(ctx, &o, o.pinned, &h);
    int rc = run_arrays(ctx, &o, cell0, energy0, &a, ms_a) ||
             run_host(ctx, &o, cell0, energy0, &h, ms_h);
    if (!rc && !same(&o, cell0, &a, &h)) {
        fprintf(stderr, "example_particles: arrays and host calls disagree (n = %zu)\n", o.n);
        rc = 1;
    }
    if (!rc) {
        qsort(ms_a, o.steps, sizeof *ms_a, cmp_double);
        qsort(ms_h, o.steps, sizeof *ms_h, cmp_double);
        double ta = ms_a[o.steps / 2], th = ms_h[o.steps / 2];
        printf("particle step on %s: n = %zu, %zu cells, median of %d steps\n"
               "  device arrays  %10.3f ms\n"
               "  host calls     %10.3f ms (%s host memory)\n"
               "  arrays are %.1fx faster; total energy %.6g\n",
               gpgpu_device_name(ctx), o.n, o.ncells, o.steps, ta, th,
               o.pinned ? "gpgpu_host_alloc" : "malloc'd", ta > 0 ? th / ta : 0.0,
               (double)a.total);
    }
    outcome_free(ctx, 0, &a);
    outcome_free(ctx, o.pinned, &h);
    free(cell0);
    free(energy0);
    free(ms_a);
    free(ms_h);
    gpgpu_context_destroy(ctx);
    return rc;
}
