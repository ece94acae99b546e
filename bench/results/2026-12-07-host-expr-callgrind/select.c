#include <gpgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
/* select N CALLS: CALLS calls of gpgpu_select on the host fallback, the
   count checked against a plain loop. */
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], 0, 0) : 1024;
    int reps = argc > 2 ? atoi(argv[2]) : 100;
    gpgpu_context *ctx;
    if (gpgpu_context_create(&ctx, "host") != GPGPU_SUCCESS) return 1;
    uint32_t *x = malloc(n * 4), *o = malloc(n * 4);
    for (size_t i = 0; i < n; i++) x[i] = (uint32_t)(i * 2654435761u) >> 31;
    size_t c = 0;
    for (int k = 0; k < reps; k++)
        if (gpgpu_select(ctx, GPGPU_U32, "x > 0", x, n, o, &c)) return 2;
    size_t s = 0;
    for (size_t i = 0; i < n; i++) s += x[i] > 0;
    printf("%zu %zu\n", c, s);
    gpgpu_context_destroy(ctx);
    return c != s;
}
