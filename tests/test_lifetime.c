/* test_lifetime.c - the threads the library starts end when no longer
   needed, and a process may exit with contexts alive: the host threads are
   gone once the last context is destroyed (the process's thread count,
   /proc/self/task, is back where it started), and exit() with contexts
   alive, even while another thread is inside a call, ends the process
   with its own status, neither crashing nor hanging.

   Each case runs in a fresh process (this program again, through exec):
   the test runner's own context would keep the threads alive. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

enum { N = 1 << 20, LOOPS = 6, CASE_SECONDS = 120, EXIT_STATUS = 7 };

static const char *scenario_device; /* "default" or "host" */

static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static gpgpu_context *open_ctx(const char *spec)
{
    gpgpu_context *ctx = NULL;
    if (gpgpu_context_create(&ctx, strcmp(spec, "default") ? spec : NULL) != GPGPU_SUCCESS) {
        fprintf(stderr, "cannot open %s: %s\n", spec, gpgpu_last_error(NULL));
        exit(2);
    }
    return ctx;
}

/* A reduce of N elements (on the host fallback: several parts on the host
   threads), checked; exits on a wrong result. */
static void reduce_checked(gpgpu_context *ctx)
{
    uint32_t *x = malloc(N * sizeof *x), want = 0, got = 0;
    if (!x)
        exit(2);
    for (uint32_t i = 0; i < N; i++)
        want += (x[i] = i * 2654435761u);
    gpgpu_status s = gpgpu_reduce(ctx, GPGPU_U32, GPGPU_SUM, x, N, &got);
    free(x);
    if (s != GPGPU_SUCCESS || got != want) {
        fprintf(stderr, "reduce on %s: %s (%s)\n", gpgpu_device_name(ctx),
                gpgpu_status_string(s), gpgpu_last_error(ctx));
        exit(3);
    }
}

/* Contexts made and destroyed in a loop, the host threads busy in each
   round: afterwards as many threads as before. On an OpenCL device the
   count is taken after one round, since the platform keeps its own
   threads from its first use to the end of the process. */
static int scenario_threads(void)
{
    if (strcmp(scenario_device, "host") != 0) {
        gpgpu_context *ctx = open_ctx(scenario_device);
        reduce_checked(ctx);
        gpgpu_context_destroy(ctx);
    }
    const int start = threads_now();
    for (int i = 0; i < LOOPS; i++) {
        gpgpu_context *a = open_ctx(scenario_device), *b = open_ctx("host");
        reduce_checked(a);
        reduce_checked(b);
        int during = threads_now();
        if (during <= start) {
            fprintf(stderr, "round %d: %d threads while the host threads work, %d before\n",
                    i, during, start);
            return 1;
        }
        gpgpu_context_destroy(a);
        reduce_checked(b); /* b still has its threads */
        gpgpu_context_destroy(b);
        /* A joined thread can stay listed in /proc for a moment after
           pthread_join returns (the kernel wakes the joiner before it
           reaps the thread): a thread left over is one still there after
           two seconds, not one a loaded machine has not reaped yet. */
        int after = threads_now();
        for (int w = 0; w < 2000 && after != start; w++) {
            usleep(1000);
            after = threads_now();
        }
        if (after != start) {
            fprintf(stderr, "round %d: %d threads after the last context was destroyed, "
                            "%d before the first\n", i, after, start);
            return 1;
        }
    }
    return 0;
}

/* exit() with contexts alive and the host threads started. */
static int scenario_exit_alive(void)
{
    gpgpu_context *ctx = open_ctx(scenario_device), *h = open_ctx("host");
    reduce_checked(ctx);
    reduce_checked(h);
    exit(EXIT_STATUS);
}

static void *calls_forever(void *arg)
{
    for (;;)
        reduce_checked(arg);
    return NULL;
}

/* exit() while other threads are inside calls on live contexts. */
static int scenario_exit_busy(void)
{
    gpgpu_context *ctx = open_ctx(scenario_device), *h = open_ctx("host");
    reduce_checked(ctx);
    pthread_t t1, t2;
    if (pthread_create(&t1, NULL, calls_forever, ctx) != 0 ||
        pthread_create(&t2, NULL, calls_forever, h) != 0)
        return 2;
    usleep(200000);
    exit(EXIT_STATUS);
}

/* ---- the cases ------------------------------------------------------------- */

static void run_case(const char *name, int want)
{
    char out[8192];
    const char *args[] = {"--scenario", name, tu_device, NULL};
    int status = tu_spawn_self(args, CASE_SECONDS, out, sizeof out);
    ck_assert_msg(status != -1, "%s on %s: hung, killed after %d s; output:\n%s", name,
                  tu_device, CASE_SECONDS, out);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == want,
                  "%s on %s: %s %d, expected exit status %d; output:\n%s", name, tu_device,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), want, out);
}

/* The host threads end with the last context: the thread count returns to
   its start value after each round of creating and destroying contexts. */
TU_TEST(threads_end_with_last_context)
{
    run_case("threads", 0);
}
END_TEST

/* exit() with contexts alive ends the process with exit's status. */
TU_TEST(exit_with_contexts_alive)
{
    run_case("exit_alive", EXIT_STATUS);
}
END_TEST

/* exit() while other threads are inside calls: no crash, no hang. */
TU_TEST(exit_during_calls)
{
    run_case("exit_busy", EXIT_STATUS);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--scenario")) {
        scenario_device = argv[3];
        setenv("GPGPU_THREADS", "4", 1); /* workers even on a 2-core machine */
        if (!strcmp(argv[2], "threads"))
            return scenario_threads();
        if (!strcmp(argv[2], "exit_alive"))
            return scenario_exit_alive();
        if (!strcmp(argv[2], "exit_busy"))
            return scenario_exit_busy();
        return 2;
    }
    return tu_run("lifetime", CASE_SECONDS + 30, NULL);
}
