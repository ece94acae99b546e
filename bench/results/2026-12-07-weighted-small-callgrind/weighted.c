/* CALLS weighted histograms of 1,024 f32 samples into 256 bins on the
   default device (GPGPU_DEVICE chooses), host arrays: run.sh counts the
   instructions of 1 and of 1,001 calls. */
#include <stdio.h>
#include <stdlib.h>

#include "gpgpu.h"

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 1;
    enum { N = 1024, BINS = 256 };
    static float x[N], w[N];
    static double bins[BINS];
    for (int i = 0; i < N; i++) {
        x[i] = (float)((i * 7919) % 1000) / 1000.0f;
        w[i] = 1.0f + (float)(i % 3);
    }
    gpgpu_context *ctx;
    if (gpgpu_context_create(&ctx, NULL) != GPGPU_SUCCESS) {
        fprintf(stderr, "%s\n", gpgpu_last_error(NULL));
        return 1;
    }
    for (int c = 0; c < calls; c++)
        if (gpgpu_histogram_weighted(ctx, GPGPU_F32, x, GPGPU_F32, w, N, BINS, 0.0, 1.0, bins)) {
            fprintf(stderr, "%s\n", gpgpu_last_error(ctx));
            return 1;
        }
    printf("%s: bins[0] = %g\n", gpgpu_device_name(ctx), bins[0]);
    gpgpu_context_destroy(ctx);
    return 0;
}
