/* fault.c - test-only fault injection (see gpgpu__fault in internal.h).
   The library's own tests use it to make every allocation, enqueue and build
   fail in turn and check that each failure is clean. */
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static long fail_at;     /* 0: off */
static int count_points; /* print the number of points at exit */
static long counter;     /* points passed so far (atomic) */

static void report(void)
{
    fprintf(stderr, "gpgpu: %ld fault-injection points passed\n",
            __atomic_load_n(&counter, __ATOMIC_RELAXED));
}

static void init(void)
{
    const char *at = getenv("GPGPU_FAULT_AT");
    const char *count = getenv("GPGPU_FAULT_COUNT");
    fail_at = at ? strtol(at, NULL, 10) : 0;
    count_points = count && *count == '1';
    if (count_points)
        atexit(report);
}

int gpgpu__fault(const char *what)
{
    pthread_once(&once, init);
    if (!fail_at && !count_points)
        return 0;
    long k = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    if (k != fail_at)
        return 0;
    fprintf(stderr, "gpgpu: injected a failure of %s (point %ld)\n", what, k);
    return 1;
}

void *gpgpu__malloc(size_t bytes)
{
    if (gpgpu__fault("malloc"))
        return NULL;
    return malloc(bytes ? bytes : 1);
}
