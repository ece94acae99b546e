/* small OP N CALLS [DEVICE]: CALLS calls of OP on N u32 elements (device
   "host" unless named), for callgrind's instruction counts. OP: search
   (N random needles in N sorted keys), top_k (the 100 largest of N
   random keys, values and indices), rle (run-length encoding of runs of
   two on average, as gpgpu-bench's input), scan (inclusive sum), and the
   serial loops gpgpu-bench times beside them: serial_top_k (a heap of the
   100 largest, then in order), serial_rle, serial_scan. Prints a word of
   the result so that no call is optimised away. */
#include <gpgpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static int cmpu(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void sift(uint32_t *h, size_t m, size_t at)
{
    for (;;) {
        size_t c = 2 * at + 1;
        if (c >= m)
            return;
        if (c + 1 < m && h[c + 1] < h[c])
            c++;
        if (!(h[c] < h[at]))
            return;
        uint32_t y = h[at];
        h[at] = h[c];
        h[c] = y;
        at = c;
    }
}

static void heap_top(const uint32_t *x, size_t n, uint32_t *h, size_t k)
{
    for (size_t i = 0; i < k; i++)
        h[i] = x[i];
    for (size_t i = k / 2; i-- > 0;)
        sift(h, k, i);
    for (size_t i = k; i < n; i++)
        if (x[i] > h[0]) {
            h[0] = x[i];
            sift(h, k, 0);
        }
    for (size_t m = k; m > 1; m--) {
        uint32_t y = h[0];
        h[0] = h[m - 1];
        h[m - 1] = y;
        sift(h, m - 1, 0);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    const char *op = argv[1];
    size_t n = strtoul(argv[2], 0, 0), c = 0;
    int reps = atoi(argv[3]);
    gpgpu_context *ctx;
    if (gpgpu_context_create(&ctx, argc > 4 ? argv[4] : "host") != GPGPU_SUCCESS)
        return 1;
    uint64_t s = 1;
    uint32_t *x = malloc(n * 4), *y = malloc(n * 4), *o = malloc(n * 4);
    uint64_t *p = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        x[i] = rnd(&s);
        y[i] = rnd(&s);
        p[i] = rnd(&s) % n;
    }
    if (!strcmp(op, "search"))
        qsort(x, n, 4, cmpu);
    if (strstr(op, "rle"))
        for (size_t i = 0; i < n; i++)
            x[i] = i && (y[i] & 2) ? x[i - 1] : y[i] & 1 ? y[i] | 1 : 0;
    for (int k = 0; k < reps; k++) {
        gpgpu_status st = GPGPU_SUCCESS;
        if (!strcmp(op, "search"))
            st = gpgpu_search_sorted(ctx, GPGPU_U32, x, n, y, n, 0, p);
        else if (!strcmp(op, "top_k"))
            st = gpgpu_top_k(ctx, GPGPU_U32, x, n, 100, GPGPU_DESCENDING, o, p);
        else if (!strcmp(op, "rle"))
            st = gpgpu_run_length_encode(ctx, GPGPU_U32, x, n, o, p, &c);
        else if (!strcmp(op, "scan"))
            st = gpgpu_scan(ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, x, o, n);
        else if (!strcmp(op, "serial_top_k"))
            heap_top(x, n, o, 100);
        else if (!strcmp(op, "serial_rle")) {
            size_t r = 0, start = 0;
            for (size_t i = 0; i < n; i++)
                if (i == 0 || x[i] != x[i - 1]) {
                    if (r)
                        p[r - 1] = i - start;
                    start = i;
                    o[r++] = x[i];
                }
            if (r)
                p[r - 1] = n - start;
            c = r;
        } else if (!strcmp(op, "serial_scan")) {
            uint32_t a = 0;
            for (size_t i = 0; i < n; i++)
                o[i] = a += x[i];
        } else
            return 1;
        if (st != GPGPU_SUCCESS) {
            fprintf(stderr, "%s\n", gpgpu_status_string(st));
            return 2;
        }
    }
    printf("%u %zu\n", o[0], c);
    gpgpu_context_destroy(ctx);
    return 0;
}
