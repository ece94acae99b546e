/* context.c - device discovery and choice, the queue, per-device limits. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

/* CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform at all. */
#define NO_PLATFORM (-1001)

const char *gpgpu_version(void)
{
    return GPGPU_VERSION_STRING;
}

void gpgpu__lock(gpgpu_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->epoch++; /* scratch taken before this is not in use by this call */
}

void gpgpu__unlock(gpgpu_context *ctx)
{
    pthread_mutex_unlock(&ctx->lock);
}

/* ---- fork ----------------------------------------------------------------- */

/* The process that first opened an OpenCL platform (0: none yet). A child
   of a fork inherits the value and so knows that its parent did. */
static pid_t opencl_opener;

/* This process's id, kept: getpid is a system call (glibc caches it no
   more), which every call's check of its context paid, a quarter of a
   small host call's time. 0 in the child of a fork until asked again. */
static pid_t self_pid;

static void pid_after_fork(void)
{
    __atomic_store_n(&self_pid, 0, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void pid_load(void)
{
    pthread_atfork(NULL, NULL, pid_after_fork);
}

static pid_t self(void)
{
    pid_t p = __atomic_load_n(&self_pid, __ATOMIC_RELAXED);
    if (!p) {
        p = getpid();
        __atomic_store_n(&self_pid, p, __ATOMIC_RELAXED);
    }
    return p;
}

int gpgpu__foreign(const gpgpu_context *ctx)
{
    return ctx->pid != self();
}

int gpgpu__opencl_inherited(void)
{
    pid_t p = __atomic_load_n(&opencl_opener, __ATOMIC_RELAXED);
    return p != 0 && p != self();
}

/* Why a forked child gets no OpenCL device (func: the public function). */
static gpgpu_status refuse_inherited_opencl(const char *func)
{
    return gpgpu__fail(NULL, GPGPU_ERROR_NO_DEVICE,
                       "%s: this process is a fork of process %d, which had opened an OpenCL "
                       "platform; OpenCL cannot be used again in a forked child (the "
                       "platform's threads and driver state stayed in the parent: its commands "
                       "would never complete). Use the host fallback here (device \"host\" or "
                       "GPGPU_DEVICE=host), or exec a new program in the child, or create the "
                       "parent's first context after the fork",
                       func, (int)__atomic_load_n(&opencl_opener, __ATOMIC_RELAXED));
}

/* ---- choosing a device ---------------------------------------------------- */

typedef struct {
    cl_platform_id platforms[16];
    cl_uint nplatforms;
} platform_list;

static int type_rank(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return 3;
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return 2;
    if (t & CL_DEVICE_TYPE_CPU)
        return 1;
    return 0;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* "P:D" with both parts decimal. */
static int parse_index_spec(const char *spec, unsigned *p, unsigned *d)
{
    char *end;
    if (!isdigit((unsigned char)spec[0]))
        return 0;
    unsigned long a = strtoul(spec, &end, 10);
    if (*end != ':' || !isdigit((unsigned char)end[1]))
        return 0;
    unsigned long b = strtoul(end + 1, &end, 10);
    if (*end || a > 1000 || b > 1000)
        return 0;
    *p = (unsigned)a;
    *d = (unsigned)b;
    return 1;
}

/* Does device d of platform p (indices pi, di) match spec? */
static int matches(const char *spec, cl_platform_id p, cl_device_id d, unsigned pi, unsigned di)
{
    cl_device_type type = 0;
    char name[256] = "", pname[256] = "";
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (!strcmp(spec, "gpu"))
        return (type & CL_DEVICE_TYPE_GPU) != 0;
    if (!strcmp(spec, "cpu"))
        return (type & CL_DEVICE_TYPE_CPU) != 0;
    if (!strcmp(spec, "accelerator"))
        return (type & CL_DEVICE_TYPE_ACCELERATOR) != 0;
    unsigned wp, wd;
    if (parse_index_spec(spec, &wp, &wd))
        return wp == pi && wd == di;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    return contains_nocase(name, spec) || contains_nocase(pname, spec);
}

/* Finds the device for spec (NULL: the best). *host is set when the answer
   is the plain-C fallback. */
static gpgpu_status pick_device(const char *spec, cl_platform_id *pp, cl_device_id *dp,
                                int *host)
{
    *host = 0;
    if (spec && !strcmp(spec, "host")) { /* no OpenCL at all */
        *host = 1;
        return GPGPU_SUCCESS;
    }
    if (gpgpu__opencl_inherited())
        return refuse_inherited_opencl("gpgpu_context_create");
    platform_list pl = {{0}, 0};
    cl_int err = clGetPlatformIDs(16, pl.platforms, &pl.nplatforms);
    if (err == NO_PLATFORM || (err == CL_SUCCESS && pl.nplatforms == 0))
        pl.nplatforms = 0;
    else if (err != CL_SUCCESS)
        return gpgpu__cl_fail(NULL, err, "clGetPlatformIDs");
    if (pl.nplatforms > 16)
        pl.nplatforms = 16;
    if (pl.nplatforms > 0) /* listing its devices starts PoCL's threads */
        __atomic_store_n(&opencl_opener, self(), __ATOMIC_RELAXED);

    int best = -1;
    for (unsigned pi = 0; pi < pl.nplatforms; pi++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(pl.platforms[pi], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS)
            continue;
        for (unsigned di = 0; di < nd && di < 64; di++) {
            if (spec) {
                if (matches(spec, pl.platforms[pi], devs[di], pi, di)) {
                    *pp = pl.platforms[pi];
                    *dp = devs[di];
                    return GPGPU_SUCCESS;
                }
                continue;
            }
            cl_device_type type = 0;
            clGetDeviceInfo(devs[di], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (type_rank(type) > best) {
                best = type_rank(type);
                *pp = pl.platforms[pi];
                *dp = devs[di];
            }
        }
    }
    if (spec)
        return gpgpu__fail(NULL, GPGPU_ERROR_NO_DEVICE,
                           "no OpenCL device matches \"%s\" (see gpgpu-info for the list)", spec);
    if (best < 0)
        *host = 1; /* no OpenCL platform or device: the plain-C fallback */
    return GPGPU_SUCCESS;
}

/* ---- the context ---------------------------------------------------------- */

static gpgpu_context *context_new(void)
{
    gpgpu_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx || gpgpu__fault("malloc")) {
        free(ctx);
        return NULL;
    }
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->error_lock, NULL);
    ctx->pid = self();
    gpgpu__pool_retain();
    const char *p = getenv("GPGPU_PROFILE");
    ctx->profile_print = p && *p && strcmp(p, "0") != 0;
    ctx->profiling = ctx->profile_print;
    return ctx;
}

/* Frees what context_new made. */
static void context_free(gpgpu_context *ctx)
{
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->error_lock);
    free(ctx);
    gpgpu__pool_release();
}

static int has_extension(const char *exts, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = exts; (s = strstr(s, name)) != NULL; s += n)
        if ((s == exts || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
            return 1;
    return 0;
}

/* Reads what the plan and the checks need to know about the device.
   OUT_OF_MEMORY if the extension list cannot be read: guessing "no fp64"
   would silently change what the context can do. */
static gpgpu_status read_device(gpgpu_context *ctx)
{
    cl_device_id d = ctx->device;
    cl_uint cu = 0;
    size_t wg = 0, ext_size = 0;
    cl_ulong local = 0, alloc = 0, global = 0;
    char vendor[256] = "", profile[64] = "";
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof ctx->name - 1, ctx->name, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof ctx->driver - 1, ctx->driver, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    clGetDeviceInfo(d, CL_DEVICE_PROFILE, sizeof profile - 1, profile, NULL);
    clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME, sizeof ctx->platform_name - 1,
                      ctx->platform_name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof ctx->type, &ctx->type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    cl_bool unified = CL_FALSE;
    cl_uint align_bits = 0;
    clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    ctx->unified = unified == CL_TRUE;
    ctx->base_align = align_bits >= 64 ? align_bits / 8 : 128;
    while (ctx->base_align & (ctx->base_align - 1)) /* a power of two */
        ctx->base_align &= ctx->base_align - 1;
    ctx->compute_units = cu ? cu : 1;
    ctx->max_wg = wg ? wg : 1;
    ctx->local_mem = (size_t)local;
    ctx->max_alloc = alloc;
    ctx->global_mem = global;

    clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size);
    char *exts = gpgpu__malloc(ext_size + 1);
    if (!exts)
        return gpgpu__fail(NULL, GPGPU_ERROR_OUT_OF_MEMORY, "reading the device's extensions: out of memory");
    memset(exts, 0, ext_size + 1);
    clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_size, exts, NULL);
    ctx->fp64 = has_extension(exts, "cl_khr_fp64");
    ctx->int64_atomics = has_extension(exts, "cl_khr_int64_base_atomics");
    ctx->int64 = !strcmp(profile, "FULL_PROFILE") || has_extension(exts, "cles_khr_int64");
    free(exts);
    ctx->vendor_nvidia = contains_nocase(vendor, "nvidia");
    /* whether float and double arithmetic keep subnormals (histogram_edges'
       kernels on CPUs rely on the device rounding as the host does) */
    cl_device_fp_config single = 0, dbl = 0;
    clGetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single, NULL);
    if (ctx->fp64)
        clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dbl, &dbl, NULL);
    ctx->fp32_denorm = (single & CL_FP_DENORM) != 0;
    ctx->fp64_denorm = (dbl & CL_FP_DENORM) != 0;
    return GPGPU_SUCCESS;
}

static gpgpu_status open_device(gpgpu_context *ctx)
{
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    GPGPU__TRY(read_device(ctx));
    if (gpgpu__fault("clCreateContext"))
        return gpgpu__cl_fail(NULL, CL_OUT_OF_HOST_MEMORY, "clCreateContext");
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform, 0};
    ctx->cl = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    if (!ctx->cl)
        return gpgpu__cl_fail(NULL, err, "clCreateContext");
    if (!gpgpu__fault("clCreateCommandQueue"))
        ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ctx->queue)
        return gpgpu__cl_fail(NULL, err, "clCreateCommandQueue");
    ctx->can_profile = 1;
    gpgpu__plan_init(ctx);
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_context_create(gpgpu_context **out, const char *device)
{
    GPGPU__REQUIRE(NULL, out != NULL, __func__, "out is NULL; need somewhere to store the context");
    *out = NULL;
    if (!device || !*device)
        device = getenv("GPGPU_DEVICE");
    if (device && !*device)
        device = NULL;

    cl_platform_id platform = NULL;
    cl_device_id dev = NULL;
    int host = 0;
    GPGPU__TRY(pick_device(device, &platform, &dev, &host));

    gpgpu_context *ctx = context_new();
    if (!ctx)
        return gpgpu__fail(NULL, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_context_create: out of memory");
    ctx->host = host;
    if (host) {
        snprintf(ctx->name, sizeof ctx->name, "host");
        snprintf(ctx->platform_name, sizeof ctx->platform_name, "plain C fallback");
        ctx->profiling = ctx->profile_print = 0;
        *out = ctx;
        return GPGPU_SUCCESS;
    }
    ctx->platform = platform;
    ctx->device = dev;
    gpgpu_status s = open_device(ctx);
    if (s != GPGPU_SUCCESS) {
        gpgpu_context_destroy(ctx);
        return s;
    }
    *out = ctx;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu_context_from_queue(gpgpu_context **out, cl_command_queue queue)
{
    GPGPU__REQUIRE(NULL, out != NULL, __func__, "out is NULL; need somewhere to store the context");
    *out = NULL;
    GPGPU__REQUIRE(NULL, queue != NULL, __func__, "queue is NULL; need an OpenCL command queue");
    if (gpgpu__opencl_inherited())
        return refuse_inherited_opencl(__func__);
    __atomic_store_n(&opencl_opener, getpid(), __ATOMIC_RELAXED);
    cl_command_queue_properties props = 0;
    gpgpu_context *ctx = context_new();
    if (!ctx)
        return gpgpu__fail(NULL, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_context_from_queue: out of memory");
    cl_int err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof ctx->device, &ctx->device, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof ctx->cl, &ctx->cl, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof ctx->platform, &ctx->platform, NULL);
    if (err != CL_SUCCESS) {
        context_free(ctx);
        return gpgpu__cl_fail(NULL, err, "gpgpu_context_from_queue: clGetCommandQueueInfo");
    }
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        context_free(ctx);
        return gpgpu__fail(NULL, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_context_from_queue: the queue must be in order");
    }
    clRetainCommandQueue(queue);
    clRetainContext(ctx->cl);
    ctx->queue = queue;
    ctx->can_profile = (props & CL_QUEUE_PROFILING_ENABLE) != 0;
    if (!ctx->can_profile)
        ctx->profiling = ctx->profile_print = 0;
    gpgpu_status s = read_device(ctx);
    if (s != GPGPU_SUCCESS) {
        gpgpu_context_destroy(ctx);
        return s;
    }
    gpgpu__plan_init(ctx);
    *out = ctx;
    return GPGPU_SUCCESS;
}

/* A context inherited through fork: its OpenCL objects belong to the
   parent's platform, which cannot be called here, and its locks may have
   been held by threads that stayed in the parent. Only the host memory
   the context owns is freed. */
static void foreign_destroy(gpgpu_context *ctx)
{
    free(ctx->launches);
    free(ctx->records);
    gpgpu__programs_release(ctx);
    for (int i = 0; i < GPGPU__ON_DESTROY_MAX && ctx->on_destroy[i]; i++)
        ctx->on_destroy[i](ctx);
    gpgpu__host_memory_release(ctx);
    free(ctx);
}

void gpgpu_context_destroy(gpgpu_context *ctx)
{
    if (!ctx)
        return;
    if (gpgpu__foreign(ctx)) {
        foreign_destroy(ctx);
        return;
    }
    if (ctx->queue)
        clFinish(ctx->queue);
    gpgpu__profile_clear(ctx);
    if (ctx->last)
        clReleaseEvent(ctx->last);
    free(ctx->launches);
    free(ctx->records);
    for (int i = 0; i < GPGPU__SCRATCH_SLOTS; i++)
        if (ctx->scratch[i])
            clReleaseMemObject(ctx->scratch[i]);
    gpgpu__programs_release(ctx);
    for (int i = 0; i < GPGPU__ON_DESTROY_MAX && ctx->on_destroy[i]; i++)
        ctx->on_destroy[i](ctx);
    gpgpu__host_memory_release(ctx);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl)
        clReleaseContext(ctx->cl);
    context_free(ctx);
}

void gpgpu__context_on_destroy(gpgpu_context *ctx, void (*fn)(gpgpu_context *ctx))
{
    for (int i = 0; i < GPGPU__ON_DESTROY_MAX; i++) {
        if (ctx->on_destroy[i] == fn)
            return;
        if (!ctx->on_destroy[i]) {
            ctx->on_destroy[i] = fn;
            return;
        }
    }
    abort(); /* more layers register than GPGPU__ON_DESTROY_MAX allows */
}

const char *gpgpu_device_name(const gpgpu_context *ctx)
{
    return ctx ? ctx->name : "";
}

cl_command_queue gpgpu_queue(const gpgpu_context *ctx)
{
    return ctx ? ctx->queue : NULL;
}
