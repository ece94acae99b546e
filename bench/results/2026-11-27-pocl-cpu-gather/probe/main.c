#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>

void serial_gather(size_t size, const void *keys, const uint64_t *pos, size_t n, void *out);
int check_or(const uint64_t *, size_t, size_t);
int check_or1(const uint64_t *, size_t, size_t);
int check_cmp(const uint64_t *, size_t, size_t);
int check_or_rev(const uint64_t *, size_t, size_t);
void g_unroll(size_t, const void *, const uint64_t *, size_t, void *);
void g_plain(size_t, const void *, const uint64_t *, size_t, void *);
void g_hw(size_t, const void *, const uint64_t *, size_t, void *);
void g_pair(size_t, const void *, const uint64_t *, size_t, void *);
void g_pf(size_t, const void *, const uint64_t *, size_t, void *);

typedef int (*chk_fn)(const uint64_t *, size_t, size_t);
typedef void (*g_fn)(size_t, const void *, const uint64_t *, size_t, void *);
typedef struct { const char *name; chk_fn chk; g_fn g; int fused; } variant;

static variant vars[] = {
    {"serial", NULL, NULL, 0},
    {"cur", check_or, g_unroll, 0},
    {"or1+unr", check_or1, g_unroll, 0},
    {"cmp+unr", check_cmp, g_unroll, 0},
    {"rev+unr", check_or_rev, g_unroll, 0},
    {"rev+hw", check_or_rev, g_hw, 0},
    {"rev+pair", check_or_rev, g_pair, 0},
    {"or+hw", check_or, g_hw, 0},
    {"or+pair", check_or, g_pair, 0},
    {"or+pf", check_or, g_pf, 0},
    {"fusedblk", check_or, g_unroll, 1},
    {"fusedhw", check_or, g_hw, 1},
    {"nochk-unr", NULL, g_unroll, 0},
    {"nochk-hw", NULL, g_hw, 0},
    {"nochk-pair", NULL, g_pair, 0},
};
#define NV (sizeof vars / sizeof vars[0])

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
static uint64_t splitmix(uint64_t *s) { uint64_t z = (*s += 0x9e3779b97f4a7c15ull); z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }

static void run1(const variant *v, size_t vs, const void *in, size_t n_in, const uint64_t *idx, size_t n, void *out, void *sout)
{
    if (!v->chk && !v->g) { serial_gather(vs, in, idx, n, sout); return; }
    if (!v->chk) { v->g(vs, in, idx, n, out); return; }
    if (v->fused) {
        for (size_t at = 0; at < n; at += 1024) {
            size_t len = n - at < 1024 ? n - at : 1024;
            if (!v->chk(idx + at, len, n_in)) abort();
            v->g(vs, in, idx + at, len, (char *)out + at * vs);
        }
        return;
    }
    if (!v->chk(idx, n, n_in)) abort();
    v->g(vs, in, idx, n, out);
}

int main(int argc, char **argv)
{
    int lo = argc > 1 ? atoi(argv[1]) : 10, hi = argc > 2 ? atoi(argv[2]) : 24;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    size_t vs = argc > 4 ? (size_t)atoi(argv[4]) : 4;
    const char *only = getenv("ONLY");
    printf("%-5s", "log2");
    for (size_t k = 0; k < NV; k++) if (!only || k == 0 || strstr(only, vars[k].name)) printf(" %10s", vars[k].name);
    printf("   (serial ms; others: serial/variant, median of %d rounds)\n", rounds);
    for (int lg = lo; lg <= hi; lg += 1) {
        size_t n = (size_t)1 << lg;
        void *in = malloc(n * vs + 64), *out = malloc(n * vs + 64), *sout = malloc(n * 8 + 64);
        uint64_t *idx = malloc(n * 8 + 64), s = 42;
        for (size_t i = 0; i < n * vs / 4; i++) ((uint32_t *)in)[i] = (uint32_t)splitmix(&s);
        for (size_t i = 0; i < n; i++) idx[i] = splitmix(&s) % n;
        double ratio[NV][64], sms[64];
        for (int r = 0; r < rounds; r++) {
            double med[NV];
            for (size_t k = 0; k < NV; k++) {
                if (only && k && !strstr(only, vars[k].name)) continue;
                double t[9];
                int reps = 5;
                run1(&vars[k], vs, in, n, idx, n, out, sout);
                for (int q = 0; q < reps; q++) { double a = now(); run1(&vars[k], vs, in, n, idx, n, out, sout); t[q] = now() - a; }
                qsort(t, reps, sizeof t[0], cmpd);
                med[k] = t[reps / 2];
                if (k && memcmp(out, sout, n * vs)) { fprintf(stderr, "%s wrong at 2^%d\n", vars[k].name, lg); exit(1); }
                memset(out, 0, n * vs);
            }
            sms[r] = med[0];
            for (size_t k = 1; k < NV; k++) ratio[k][r] = med[0] / med[k];
        }
        qsort(sms, rounds, sizeof sms[0], cmpd);
        printf("%-5d %10.4f", lg, sms[rounds / 2]);
        for (size_t k = 1; k < NV; k++) {
            if (only && !strstr(only, vars[k].name)) continue;
            qsort(ratio[k], rounds, sizeof ratio[k][0], cmpd);
            printf(" %10.2f", ratio[k][rounds / 2]);
        }
        printf("\n");
        fflush(stdout);
        free(in); free(out); free(sout); free(idx);
    }
    return 0;
}
