/* pocl-context-leak.c - resident memory of an OpenCL platform across
   context lifetimes, with plain OpenCL calls only (no libgpgpu): each round
   creates a context and releases everything it made, the way a program
   that creates and destroys library contexts does. If resident memory
   grows per round, the platform keeps something per context.

   Each round, up to STEPS (argument 2):
     1  clCreateContext
     2  + clCreateCommandQueue (profiling enabled)
     3  + a program from a binary (clCreateProgramWithBinary, clBuildProgram)
     4  + a kernel, a buffer over host memory (CL_MEM_USE_HOST_PTR), one
          launch and a blocking read
   and then releases all of it.

     cc -O2 -o pocl-context-leak bench/pocl-context-leak.c -lOpenCL
     ./pocl-context-leak ROUNDS STEPS [SAMPLE]
   prints VmRSS every SAMPLE rounds (default 100) and the growth per round
   after the first fifth. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rss.h"

static const char *source =
    "__kernel void twice(__global uint *a, uint n)\n"
    "{ size_t i = get_global_id(0); if (i < n) a[i] = 2u * a[i] + 1u; }\n";

#define CHECK(err, what)                                                 \
    do {                                                                 \
        if ((err) != CL_SUCCESS) {                                       \
            fprintf(stderr, "%s failed: %d\n", (what), (int)(err));      \
            exit(1);                                                     \
        }                                                                \
    } while (0)

/* The device's binary of source, built once in its own context. */
static unsigned char *binary_of_source(cl_device_id dev, size_t *size)
{
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err, "clCreateContext");
    cl_program p = clCreateProgramWithSource(c, 1, &source, NULL, &err);
    CHECK(err, "clCreateProgramWithSource");
    CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL), "clBuildProgram");
    CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof *size, size, NULL),
          "CL_PROGRAM_BINARY_SIZES");
    unsigned char *bin = malloc(*size);
    if (!bin)
        exit(1);
    CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL),
          "CL_PROGRAM_BINARIES");
    clReleaseProgram(p);
    clReleaseContext(c);
    return bin;
}

static void round_trip(cl_device_id dev, int steps, const unsigned char *bin, size_t size,
                       cl_uint *host, cl_uint n)
{
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err, "clCreateContext");
    cl_command_queue q = NULL;
    cl_program p = NULL;
    if (steps >= 2) {
        q = clCreateCommandQueue(c, dev, CL_QUEUE_PROFILING_ENABLE, &err);
        CHECK(err, "clCreateCommandQueue");
    }
    if (steps >= 3) {
        cl_int status;
        p = clCreateProgramWithBinary(c, 1, &dev, &size, &bin, &status, &err);
        CHECK(err, "clCreateProgramWithBinary");
        CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL), "clBuildProgram");
    }
    if (steps >= 4) {
        cl_kernel k = clCreateKernel(p, "twice", &err);
        CHECK(err, "clCreateKernel");
        cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * sizeof *host,
                                  host, &err);
        CHECK(err, "clCreateBuffer");
        size_t global = n;
        cl_event ev;
        CHECK(clSetKernelArg(k, 0, sizeof b, &b), "clSetKernelArg");
        CHECK(clSetKernelArg(k, 1, sizeof n, &n), "clSetKernelArg");
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev),
              "clEnqueueNDRangeKernel");
        CHECK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, n * sizeof *host, host, 0, NULL, NULL),
              "clEnqueueReadBuffer");
        clReleaseEvent(ev);
        clReleaseMemObject(b);
        clReleaseKernel(k);
    }
    if (p)
        clReleaseProgram(p);
    if (q) {
        clFinish(q);
        clReleaseCommandQueue(q);
    }
    clReleaseContext(c);
}

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 2000;
    int steps = argc > 2 ? atoi(argv[2]) : 4;
    long sample = argc > 3 ? atol(argv[3]) : 100;
    cl_platform_id plat;
    cl_device_id dev;
    CHECK(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    size_t size = 0;
    unsigned char *bin = binary_of_source(dev, &size);
    enum { N = 4096 };
    static cl_uint host[N];
    printf("pocl-context-leak: %s, %ld rounds of steps 1..%d\n", name, rounds, steps);
    double warm = -1;
    long warm_round = 0;
    for (long r = 1; r <= rounds; r++) {
        round_trip(dev, steps, bin, size, host, N);
        if (r % sample == 0) {
            double kib = rss_kib();
            printf("round %ld: RSS %.1f MiB\n", r, kib / 1024);
            fflush(stdout);
            if (warm < 0 && r >= rounds / 5) {
                warm = kib;
                warm_round = r;
            }
        }
    }
    double end = rss_kib();
    if (warm >= 0 && rounds > warm_round)
        printf("pocl-context-leak: %.0f bytes per round after round %ld (%.1f -> %.1f MiB)\n",
               (end - warm) * 1024 / (double)(rounds - warm_round), warm_round, warm / 1024,
               end / 1024);
    free(bin);
    return 0;
}
