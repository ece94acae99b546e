/* gather-loop - gpgpu_gather of u32 values by random 64-bit indices
   against the serial loop a C programmer writes, the two alternating
   round after round into the same output array, so that both meet the
   same caches and the same placement of their arrays in memory (timed in
   separate phases into separate arrays, as gpgpu-bench times them, the
   loop's own time moved by up to 1.7x from one process to the next on a
   2-core EPYC VM). Small sizes are timed in batches of calls.

     cc -O2 bench/gather-loop.c $(pkg-config --cflags --libs gpgpu) -o gather-loop
     GPGPU_DEVICE=host ./gather-loop [ROUNDS [FROM TO]]

   (GPGPU_PREFIX=dir sh bench/gather-loop.sh does the same against an
   install or a build tree.) One line per n = 2^FROM .. 2^TO (default 14
   .. 20, 201 rounds): the medians in ms and the loop's time over the
   library's. Every library result is compared with the loop's; exit
   status 1 if one differs or a call fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpgpu.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 201;
    const int from = argc > 3 ? atoi(argv[2]) : 14, to = argc > 3 ? atoi(argv[3]) : 20;
    if (rounds < 1 || from < 0 || to < from || to > 30) {
        fprintf(stderr, "usage: gather-loop [ROUNDS [FROM TO]] (sizes 2^FROM .. 2^TO, TO <= 30)\n");
        return 2;
    }
    gpgpu_context *ctx;
    if (gpgpu_context_create(&ctx, NULL) != GPGPU_SUCCESS) {
        fprintf(stderr, "gather-loop: %s\n", gpgpu_last_error(NULL));
        return 1;
    }
    printf("# gpgpu_gather u32 by u64 indices vs the serial loop, %d rounds, device %s\n",
           rounds, gpgpu_device_name(ctx));
    printf("%-6s %12s %12s %8s\n", "n", "library ms", "loop ms", "loop/lib");
    int rc = 0;
    double *tl = malloc(rounds * sizeof *tl), *ts = malloc(rounds * sizeof *ts);
    for (int lg = from; lg <= to && tl && ts; lg++) {
        const size_t n = (size_t)1 << lg;
        uint32_t *in = malloc(n * 4), *out = malloc(n * 4), *want = malloc(n * 4);
        uint64_t *idx = malloc(n * 8), s = 20261207;
        if (!in || !out || !want || !idx) {
            fprintf(stderr, "gather-loop: out of memory at 2^%d\n", lg);
            rc = 1;
        }
        for (size_t i = 0; !rc && i < n; i++) {
            in[i] = (uint32_t)splitmix(&s);
            idx[i] = splitmix(&s) % n;
        }
        for (size_t i = 0; !rc && i < n; i++)
            want[i] = in[idx[i]];
        const int batch = lg <= 14 ? 64 : lg <= 16 ? 8 : 1;
        for (int r = 0; !rc && r < rounds; r++) {
            double t0 = now_ms();
            for (int b = 0; b < batch && !rc; b++)
                if (gpgpu_gather(ctx, 4, in, n, idx, n, out) != GPGPU_SUCCESS) {
                    fprintf(stderr, "gather-loop: 2^%d: %s\n", lg, gpgpu_last_error(ctx));
                    rc = 1;
                }
            tl[r] = (now_ms() - t0) / batch;
            if (!rc && memcmp(out, want, n * 4) != 0) {
                fprintf(stderr, "gather-loop: 2^%d: the library's result differs\n", lg);
                rc = 1;
            }
            t0 = now_ms();
            for (int b = 0; b < batch; b++) {
                for (size_t i = 0; i < n; i++)
                    out[i] = in[idx[i]];
                __asm__ volatile("" : : "r"(out) : "memory"); /* each batch's loop runs */
            }
            ts[r] = (now_ms() - t0) / batch;
        }
        if (!rc) {
            qsort(tl, rounds, sizeof *tl, by_value);
            qsort(ts, rounds, sizeof *ts, by_value);
            printf("2^%-4d %12.4f %12.4f %8.2f\n", lg, tl[rounds / 2], ts[rounds / 2],
                   ts[rounds / 2] / tl[rounds / 2]);
        }
        free(in);
        free(out);
        free(want);
        free(idx);
        if (rc)
            break;
    }
    free(tl);
    free(ts);
    gpgpu_context_destroy(ctx);
    return rc;
}
