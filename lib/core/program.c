/* program.c - the JIT: embedded kernel source + -D options -> cl_program,
   kept for the context's life and cached on disk across processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

enum { MAX_KERNELS = 32 };

struct gpgpu__program {
    gpgpu__program *next;
    char *key;        /* file, extra and options: what makes it unique */
    cl_program program;
    struct {
        char *name;
        cl_kernel kernel;
    } kernels[MAX_KERNELS];
    int nkernels;
};

/* "file\nextra\noptions", malloc'd. */
static char *program_key(const char *file, const char *extra, const char *options)
{
    size_t n = strlen(file) + strlen(extra) + strlen(options) + 3;
    char *key = gpgpu__malloc(n);
    if (key)
        snprintf(key, n, "%s\n%s\n%s", file, extra, options);
    return key;
}

/* The disk cache key: everything that changes the binary. */
static void disk_key(const gpgpu_context *ctx, const char *const *parts, int nparts,
                     const char *options, char out[40])
{
    uint64_t h1 = GPGPU__HASH_INIT, h2 = 0x84222325cbf29ce4ull;
    const char *fields[] = {ctx->name, ctx->driver, ctx->platform_name, GPGPU_VERSION_STRING,
                            options};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        h1 = gpgpu__hash(h1, fields[i], strlen(fields[i]) + 1);
        h2 = gpgpu__hash(h2, fields[i], strlen(fields[i]) + 1);
    }
    for (int i = 0; i < nparts; i++) {
        h1 = gpgpu__hash(h1, parts[i], strlen(parts[i]) + 1);
        h2 = gpgpu__hash(h2, parts[i], strlen(parts[i]) + 1);
    }
    snprintf(out, 40, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
}

static gpgpu_status build_failed(gpgpu_context *ctx, cl_program p, cl_int err, const char *file,
                                 const char *options)
{
    size_t size = 0;
    clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = gpgpu__malloc(size + 1);
    if (log) {
        log[0] = '\0';
        clGetProgramBuildInfo(p, ctx->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
        log[size] = '\0';
    }
    /* Anything but a build failure is the device or driver failing (out
       of resources, or a context an earlier command broke): said as such. */
    gpgpu_status s;
    if (err == CL_BUILD_PROGRAM_FAILURE)
        s = gpgpu__fail(ctx, GPGPU_ERROR_BUILD, "building kernels/%s.cl (%s) failed: %s\n%s",
                        file, options, gpgpu__cl_error_name(err), log ? log : "(no build log)");
    else
        s = gpgpu__fail(ctx, err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
                                     err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                                 ? GPGPU_ERROR_OUT_OF_MEMORY : GPGPU_ERROR_OPENCL,
                        "clBuildProgram(kernels/%s.cl) failed: %s (%d), an error of the device "
                        "or its driver, not of the source (an earlier command may have failed "
                        "on the device)%s%s", file, gpgpu__cl_error_name(err), (int)err,
                        log && *log ? "\n" : "", log ? log : "");
    free(log);
    return s;
}

/* A program from a cached binary, or NULL (the caller builds from source). */
static cl_program from_disk(gpgpu_context *ctx, const char *key, const char *options)
{
    unsigned char *bin;
    size_t size;
    if (!gpgpu__cache_enabled(ctx->tune.disk_cache) || gpgpu__cache_load(key, &bin, &size))
        return NULL;
    cl_int err, status;
    const unsigned char *bins[1] = {bin};
    cl_program p = clCreateProgramWithBinary(ctx->cl, 1, &ctx->device, &size, bins, &status, &err);
    free(bin);
    if (p && clBuildProgram(p, 1, &ctx->device, options, NULL, NULL) == CL_SUCCESS)
        return p;
    if (p)
        clReleaseProgram(p);
    return NULL;
}

static void to_disk(gpgpu_context *ctx, cl_program p, const char *key)
{
    size_t size = 0;
    if (!gpgpu__cache_enabled(ctx->tune.disk_cache) ||
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    unsigned char *bins[1] = {bin};
    if (bin && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        gpgpu__cache_store(key, bin, size);
    free(bin);
}

/* The kernel file that file's program needs between common.cl and its own
   source: the radix sorts and the radix select share their key transform
   and ranking. */
static const char *shared_source(const char *file)
{
    return !strcmp(file, "sort") || !strcmp(file, "segsort") || !strcmp(file, "select_k")
               ? gpgpu__kernel_source("radix")
               : "";
}

static gpgpu_status build(gpgpu_context *ctx, const char *file, const char *extra,
                          const char *options, cl_program *out)
{
    const char *body = gpgpu__kernel_source(file);
    const char *common = gpgpu__kernel_source("common");
    const char *shared = shared_source(file);
    if (!body || !common || !shared)
        return gpgpu__fail(ctx, GPGPU_ERROR_BUILD, "no kernel source called %s", file);
    char tune[512], all[2048];
    gpgpu__plan_options(ctx, tune, sizeof tune);
    if ((size_t)snprintf(all, sizeof all, "%s %s", tune, options) >= sizeof all)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "kernel options too long");
    /* extra first: common.cl tests MAP and expands USER_COMBINE in code */
    const char *parts[] = {extra, "\n", common, "\n", shared, "\n", body};
    char key[40];
    disk_key(ctx, parts, 7, all, key);

    if (gpgpu__fault("clBuildProgram"))
        return gpgpu__fail(ctx, GPGPU_ERROR_BUILD, "building kernels/%s.cl: injected failure", file);
    const char *log = getenv("GPGPU_CACHE_LOG");
    int verbose = log && *log == '1';
    if ((*out = from_disk(ctx, key, all)) != NULL) {
        if (verbose)
            fprintf(stderr, "gpgpu: disk cache hit %s (%s)\n", key, file);
        return GPGPU_SUCCESS;
    }
    if (verbose)
        fprintf(stderr, "gpgpu: disk cache miss %s (%s): building\n", key, file);
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    cl_program p = gpgpu__fault("clCreateProgramWithSource")
                       ? NULL : clCreateProgramWithSource(ctx->cl, 7, parts, NULL, &err);
    if (!p)
        return gpgpu__cl_fail(ctx, err, "clCreateProgramWithSource");
    err = clBuildProgram(p, 1, &ctx->device, all, NULL, NULL);
    if (err != CL_SUCCESS) {
        gpgpu_status s = build_failed(ctx, p, err, file, all);
        clReleaseProgram(p);
        return s;
    }
    to_disk(ctx, p, key);
    *out = p;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__program_get(gpgpu_context *ctx, const char *file, const char *extra,
                                const char *options, gpgpu__program **out)
{
    extra = extra ? extra : "";
    options = options ? options : "";
    char *key = program_key(file, extra, options);
    if (!key)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (gpgpu__program *p = ctx->programs; p; p = p->next) {
        if (!strcmp(p->key, key)) {
            free(key);
            *out = p;
            return GPGPU_SUCCESS;
        }
    }
    gpgpu__program *p = gpgpu__malloc(sizeof *p);
    if (!p) {
        free(key);
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    memset(p, 0, sizeof *p);
    gpgpu_status s = build(ctx, file, extra, options, &p->program);
    if (s != GPGPU_SUCCESS) {
        free(key);
        free(p);
        return s;
    }
    p->key = key;
    p->next = ctx->programs;
    ctx->programs = p;
    *out = p;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__kernel_get(gpgpu_context *ctx, gpgpu__program *prog, const char *name,
                               cl_kernel *out)
{
    for (int i = 0; i < prog->nkernels; i++) {
        if (!strcmp(prog->kernels[i].name, name)) {
            *out = prog->kernels[i].kernel;
            return GPGPU_SUCCESS;
        }
    }
    if (prog->nkernels == MAX_KERNELS)
        return gpgpu__fail(ctx, GPGPU_ERROR_OPENCL, "too many kernels in one program");
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    char *copy = gpgpu__malloc(strlen(name) + 1);
    cl_kernel k = copy && !gpgpu__fault("clCreateKernel")
                      ? clCreateKernel(prog->program, name, &err) : NULL;
    if (!k) {
        free(copy);
        return gpgpu__cl_fail(ctx, err, "clCreateKernel");
    }
    strcpy(copy, name);
    prog->kernels[prog->nkernels].name = copy;
    prog->kernels[prog->nkernels].kernel = k;
    prog->nkernels++;
    *out = k;
    return GPGPU_SUCCESS;
}

void gpgpu__programs_release(gpgpu_context *ctx)
{
    const int cl = !gpgpu__foreign(ctx); /* a fork's child frees only host memory */
    gpgpu__program *p = ctx->programs;
    while (p) {
        gpgpu__program *next = p->next;
        for (int i = 0; i < p->nkernels; i++) {
            if (cl)
                clReleaseKernel(p->kernels[i].kernel);
            free(p->kernels[i].name);
        }
        if (cl)
            clReleaseProgram(p->program);
        free(p->key);
        free(p);
        p = next;
    }
    ctx->programs = NULL;
}
