#include <gpgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
/* transform_reduce N CALLS: CALLS calls of gpgpu_transform_reduce on the
   host fallback, the result checked against a plain loop. */
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 1024;
    int reps = argc > 2 ? atoi(argv[2]) : 100;
    gpgpu_context *ctx;
    if (gpgpu_context_create(&ctx, "host") != GPGPU_SUCCESS) return 1;
    uint32_t *x = malloc(n * 4);
    for (size_t i = 0; i < n; i++) x[i] = (uint32_t)(i * 2654435761u);
    uint32_t r = 0, s = 0;
    for (int k = 0; k < reps; k++) {
        if (gpgpu_transform_reduce(ctx, GPGPU_U32, "x*x", GPGPU_SUM, x, n, &r)) return 2;
    }
    for (size_t i = 0; i < n; i++) s += x[i] * x[i];
    printf("%u %u\n", r, s);
    gpgpu_context_destroy(ctx);
    return r != s;
}
