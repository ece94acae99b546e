/* test_memlimit.c - running out of memory is a status, never an abort.

   For each primitive the test runs itself as a child ("child NAME SPEC")
   that makes one small call (its programs are built while memory is
   plentiful), allocates a large input, then limits its own address space
   (setrlimit RLIMIT_AS) to what it uses plus a margin far below what the
   call needs. The large call must return GPGPU_ERROR_OUT_OF_MEMORY with a
   message and the input untouched, and, once the limit is lifted, the same
   call on the same context must work. On the host fallback the calls that
   need no memory of their own may simply succeed, and so may any call on a
   device with memory of its own (a GPU), which the limit does not cover:
   there the test proves only that nothing aborts.

   PoCL gives a buffer its memory only when a command first uses it and
   aborts when that fails: this is the test that the library makes the
   memory exist first (lib/queue.c). Sanitizer builds skip it: their
   allocators reserve their own address space and abort rather than return
   NULL. */
#include <malloc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpgpu_cl.h"
#include "util.h"

extern char **environ;

/* Elements of the large call (32 MiB of u32) and the margin left under the
   limit: the device paths need at least another copy of the input. */
enum { BIG = 1 << 23, SMALL = 1 << 16 };
#define MARGIN ((rlim_t)8 << 20)

/* ---- the child ------------------------------------------------------------ */

static int failures;

#define CHILD_CHECK(cond, ...)                                                   \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "test_memlimit: %s:%d: ", __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            failures++;                                                          \
        }                                                                        \
    } while (0)

typedef struct {
    gpgpu_context *ctx;
    uint32_t *in, *out, *values;
    size_t n;
} job;

static gpgpu_status run_reduce(job *j)
{
    uint32_t r;
    return gpgpu_reduce(j->ctx, GPGPU_U32, GPGPU_SUM, j->in, j->n, &r);
}

static gpgpu_status run_transform_reduce(job *j)
{
    uint32_t r;
    return gpgpu_transform_reduce(j->ctx, GPGPU_U32, "x * x", GPGPU_SUM, j->in, j->n, &r);
}

static gpgpu_status run_scan(job *j)
{
    return gpgpu_scan(j->ctx, GPGPU_U32, GPGPU_SUM, GPGPU_INCLUSIVE, j->in, j->out, j->n);
}

static gpgpu_status run_sort(job *j)
{
    return gpgpu_sort(j->ctx, GPGPU_U32, j->in, j->n, 0);
}

static gpgpu_status run_sort_pairs(job *j)
{
    return gpgpu_sort_pairs(j->ctx, GPGPU_U32, j->in, j->values, 4, j->n, 0);
}

static gpgpu_status run_histogram(job *j)
{
    uint64_t bins[256];
    return gpgpu_histogram(j->ctx, GPGPU_U32, j->in, j->n, 256, 0, 4294967296.0, bins);
}

static gpgpu_status run_histogram_rgba8(job *j)
{
    uint64_t bins[4 * 256];
    size_t width = 1024;
    return gpgpu_histogram_rgba8(j->ctx, (const uint8_t *)j->in, width, j->n / width,
                                 4 * width, 256, bins);
}

static gpgpu_status run_select(job *j)
{
    size_t count;
    return gpgpu_select(j->ctx, GPGPU_U32, "(x & 1) == 0", j->in, j->n, j->out, &count);
}

static const struct {
    const char *name;
    gpgpu_status (*run)(job *);
    int needs_device;   /* UNSUPPORTED on the host fallback */
    int host_allocates; /* the host fallback needs memory of its own */
} prims[] = {
    {"reduce", run_reduce, 0, 0},
    {"transform_reduce", run_transform_reduce, 1, 0},
    {"scan", run_scan, 0, 0},
    {"sort", run_sort, 0, 1},
    {"sort_pairs", run_sort_pairs, 0, 1},
    {"histogram", run_histogram, 0, 0},
    {"histogram_rgba8", run_histogram_rgba8, 0, 0},
    {"select", run_select, 1, 0},
};
enum { NPRIMS = sizeof prims / sizeof prims[0] };

static uint64_t checksum(const uint32_t *x, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ x[i]) * 0x100000001b3ull;
    return h;
}

/* This process's address space now, in bytes (0 if unknown). */
static rlim_t address_space(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (rlim_t)kb * 1024;
}

static int child(const char *name, const char *spec)
{
    int k = 0;
    while (k < NPRIMS && strcmp(prims[k].name, name))
        k++;
    if (k == NPRIMS)
        return 2;
    /* One malloc arena: a thread's first allocation under the limit would
       otherwise reserve a new 64 MiB arena and fail where the test does not
       mean it to. */
    mallopt(M_ARENA_MAX, 1);
    /* On a device that shares host memory the host calls use the caller's
       arrays in place and need no memory of their own; the copying route
       (GPGPU_ZERO_COPY=0: scratch buffers and pinned staging) is the one
       that can run out. */
    setenv("GPGPU_ZERO_COPY", "0", 1);
    job j = {NULL, NULL, NULL, NULL, SMALL};
    gpgpu_status s = gpgpu_context_create(&j.ctx, strcmp(spec, "default") ? spec : NULL);
    CHILD_CHECK(s == GPGPU_SUCCESS, "context %s: %s", spec, gpgpu_last_error(NULL));
    if (s != GPGPU_SUCCESS)
        return 1;
    int host = !strcmp(gpgpu_device_name(j.ctx), "host");
    /* a device whose memory is the process's: the limit covers it */
    cl_device_id dev = NULL;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    if (!host && clGetCommandQueueInfo(gpgpu_queue(j.ctx), CL_QUEUE_DEVICE, sizeof dev, &dev,
                                       NULL) == CL_SUCCESS)
        clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int limited = host ? prims[k].host_allocates : (type & CL_DEVICE_TYPE_CPU) != 0;
    j.in = malloc(BIG * sizeof *j.in);
    j.out = malloc(BIG * sizeof *j.out);
    j.values = malloc(BIG * sizeof *j.values);
    CHILD_CHECK(j.in && j.out && j.values, "no memory for the inputs");
    if (!j.in || !j.out || !j.values)
        return 1;
    tu_fill(GPGPU_U32, j.in, BIG, tu_seed_for(k, 1));
    tu_fill(GPGPU_U32, j.values, BIG, tu_seed_for(k, 2));
    /* the small call builds the programs the large one uses */
    s = prims[k].run(&j);
    CHILD_CHECK(s == GPGPU_SUCCESS, "%s of %zu: %s", name, j.n, gpgpu_last_error(j.ctx));
    tu_fill(GPGPU_U32, j.in, BIG, tu_seed_for(k, 1));
    uint64_t before = checksum(j.in, BIG), vbefore = checksum(j.values, BIG);

    struct rlimit old, lim;
    getrlimit(RLIMIT_AS, &old);
    lim = old;
    lim.rlim_cur = address_space() + MARGIN;
    CHILD_CHECK(lim.rlim_cur > MARGIN && setrlimit(RLIMIT_AS, &lim) == 0,
                "cannot limit the address space");
    j.n = BIG;
    s = prims[k].run(&j);
    setrlimit(RLIMIT_AS, &old);

    if (s == GPGPU_SUCCESS) {
        CHILD_CHECK(!limited, "%s of %d elements succeeded %d MiB above the address space in "
                    "use", name, BIG, (int)(MARGIN >> 20));
    } else {
        CHILD_CHECK(s == GPGPU_ERROR_OUT_OF_MEMORY, "%s under the limit gave %s (%s)", name,
                    gpgpu_status_string(s), gpgpu_last_error(j.ctx));
        CHILD_CHECK(*gpgpu_last_error(j.ctx) != '\0', "%s: no message", name);
        CHILD_CHECK(checksum(j.in, BIG) == before && checksum(j.values, BIG) == vbefore,
                    "%s: a failed call changed its input", name);
        fprintf(stderr, "test_memlimit: %s on %s: %s (%s)\n", name, spec,
                gpgpu_status_string(s), gpgpu_last_error(j.ctx));
        /* the context still works once memory is back */
        s = prims[k].run(&j);
        CHILD_CHECK(s == GPGPU_SUCCESS, "%s after the limit was lifted: %s", name,
                    gpgpu_last_error(j.ctx));
    }
    gpgpu_context_destroy(j.ctx);
    free(j.in);
    free(j.out);
    free(j.values);
    return failures ? 1 : 0;
}

/* ---- the parent ------------------------------------------------------------ */

static int run_child(const char *name, const char *spec)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert(len > 0);
    self[len] = '\0';
    char *argv[] = {self, "child", (char *)name, (char *)spec, NULL};
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, self, NULL, NULL, argv, environ), 0);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        return -WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TU_LOOP_TEST(out_of_memory_is_a_status, NPRIMS)
{
#if defined(__SANITIZE_ADDRESS__)
    return;
#endif
    if (prims[_i].needs_device && tu_is_host())
        return;
    int rc = run_child(prims[_i].name, tu_device);
    ck_assert_msg(rc == 0, "%s on %s under a memory limit: %s %d (its messages are above)",
                  prims[_i].name, tu_device, rc < 0 ? "killed by signal" : "exit status",
                  rc < 0 ? -rc : rc);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "child"))
        return child(argv[2], argv[3]);
    return tu_run("memlimit", 0, NULL);
}
