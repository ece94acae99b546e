/* gpgpu-info - every OpenCL platform and device, the spec that selects it,
   what the library needs to know about it, the plan it would get, and which
   device is the default. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpgpu_cl.h"

static void show_device(cl_platform_id p, cl_device_id d, unsigned pi, unsigned di)
{
    char name[256] = "", driver[128] = "", version[128] = "", ext[8192] = "";
    cl_device_type type = 0;
    cl_uint cu = 0;
    size_t wg = 0;
    cl_ulong local = 0, global = 0, alloc = 0;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof version - 1, version, NULL);
    clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
    (void)p;
    printf("  device %u:%u  %s\n", pi, di, name);
    printf("    select with    GPGPU_DEVICE=%u:%u  (or \"%s\", or a part of its name)\n", pi, di,
           type & CL_DEVICE_TYPE_GPU ? "gpu" : type & CL_DEVICE_TYPE_CPU ? "cpu" : "accelerator");
    printf("    version        %s, driver %s\n", version, driver);
    printf("    compute units  %u, max work-group %zu, local memory %llu KiB\n", cu, wg,
           (unsigned long long)local / 1024);
    printf("    global memory  %llu MiB, largest allocation %llu MiB\n",
           (unsigned long long)global >> 20, (unsigned long long)alloc >> 20);
    printf("    fp64 %s, int64 atomics %s\n", strstr(ext, "cl_khr_fp64") ? "yes" : "no",
           strstr(ext, "cl_khr_int64_base_atomics") ? "yes" : "no");
}

int main(int argc, char **argv)
{
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (argc > 1) {
        int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        fputs("usage: gpgpu-info\n"
              "Lists every OpenCL platform and device with the GPGPU_DEVICE spec that selects\n"
              "it, its compute units, work-group and memory limits, fp64 and 64-bit atomics;\n"
              "then the default device (GPGPU_DEVICE, else the best one) and the tuning plan\n"
              "libgpgpu picks for it. Exit status 1 when no device can be opened.\n",
              help ? stdout : stderr);
        return help ? 0 : 2;
    }
    printf("libgpgpu %s\n", gpgpu_version());
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
        np = 0;
    if (np > 16)
        np = 16;
    if (np == 0)
        printf("no OpenCL platform: the library runs on the host fallback (plain C)\n");
    for (unsigned pi = 0; pi < np; pi++) {
        char pname[256] = "", pver[256] = "";
        clGetPlatformInfo(platforms[pi], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        clGetPlatformInfo(platforms[pi], CL_PLATFORM_VERSION, sizeof pver - 1, pver, NULL);
        printf("platform %u: %s (%s)\n", pi, pname, pver);
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            nd = 0;
        for (unsigned di = 0; di < nd && di < 64; di++)
            show_device(platforms[pi], devs[di], pi, di);
    }
    printf("host fallback: select with GPGPU_DEVICE=host\n");
    gpgpu_context *ctx;
    gpgpu_status s = gpgpu_context_create(&ctx, NULL);
    if (s != GPGPU_SUCCESS) {
        printf("default device: none (%s: %s)\n", gpgpu_status_string(s), gpgpu_last_error(NULL));
        return 1;
    }
    const char *env = getenv("GPGPU_DEVICE");
    printf("default device: %s%s%s%s\n", gpgpu_device_name(ctx), env && *env ? " (GPGPU_DEVICE=" : "",
           env && *env ? env : "", env && *env ? ")" : "");
    printf("plan: %s\n", gpgpu_plan_description(ctx));
    gpgpu_context_destroy(ctx);
    return 0;
}
