/* util.c - the device under test, seeded random inputs and the runner. */
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

gpgpu_context *tu_ctx;
const char *tu_device = "default";

int tu_is_host(void)
{
    return !strcmp(gpgpu_device_name(tu_ctx), "host");
}

uint64_t tu_seed(void)
{
    const char *s = getenv("GPGPU_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 0) : 20261122u;
}

const uint32_t tu_f32_specials[TU_NSPECIALS] = {
    0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu,
    0x7f800000u, 0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
    0x007fffffu, 0x807fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u,
};
const uint64_t tu_f64_specials[TU_NSPECIALS] = {
    0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
    0xfff0000000000001ull, 0x7fffffffffffffffull, 0xffffffffffffffffull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x0000000000000000ull,
    0x8000000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
    0x000fffffffffffffull, 0x800fffffffffffffull, 0x0010000000000000ull,
    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x3ff0000000000000ull,
};

uint64_t tu_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tu_seed_for(uint64_t a, uint64_t b)
{
    uint64_t s = tu_seed() ^ (a * 0x100000001b3ull) ^ (b << 32);
    return tu_splitmix(&s);
}

void tu_fill(gpgpu_type t, void *buf, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tu_splitmix(&s);
        double u = (double)(r >> 11) * 0x1.0p-53 * 2000.0 - 1000.0;
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)(uint32_t)r; break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = (uint32_t)r; break;
        case GPGPU_F32: ((float *)buf)[i] = (float)u; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)r; break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = r; break;
        case GPGPU_F64: ((double *)buf)[i] = u; break;
        }
    }
}

cl_context tu_cl_context(void)
{
    cl_context cl = NULL;
    clGetCommandQueueInfo(gpgpu_queue(tu_ctx), CL_QUEUE_CONTEXT, sizeof cl, &cl, NULL);
    return cl;
}

int tu_skip_type(gpgpu_type t)
{
    uint64_t x = 0;
    gpgpu_status s = gpgpu_reduce(tu_ctx, t, GPGPU_SUM, &x, 1, &x);
    if (s == GPGPU_ERROR_UNSUPPORTED && gpgpu_type_size(t) == 8)
        return 1;
    tu_assert_ok(s);
    return 0;
}

int tu_same_float(gpgpu_type t, const void *a, const void *b, double *av, double *bv)
{
    if (t == GPGPU_F64) {
        memcpy(av, a, 8);
        memcpy(bv, b, 8);
    } else {
        float af, bf;
        memcpy(&af, a, 4);
        memcpy(&bf, b, 4);
        *av = af;
        *bv = bf;
    }
    return !memcmp(a, b, gpgpu_type_size(t)) || (isnan(*av) && isnan(*bv));
}

void *tu_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "out of memory allocating %zu bytes", bytes);
    return p;
}

gpgpu_context *tu_context_with(const char *settings)
{
    char buf[512], *names[16], *was[16];
    size_t nnames = 0;
    snprintf(buf, sizeof buf, "%s", settings ? settings : "");
    for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv && nnames < 16;
         kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        ck_assert_msg(eq != NULL, "tu_context_with: \"%s\" is not NAME=VALUE", kv);
        *eq = '\0';
        const char *old = getenv(kv);
        was[nnames] = old ? strdup(old) : NULL;
        setenv(kv, eq + 1, 1);
        names[nnames++] = kv;
    }
    gpgpu_context *c = NULL;
    gpgpu_status st = gpgpu_context_create(&c, strcmp(tu_device, "default") ? tu_device : NULL);
    for (size_t i = 0; i < nnames; i++) { /* as the environment was (run-test.sh sets some) */
        if (was[i])
            setenv(names[i], was[i], 1);
        else
            unsetenv(names[i]);
        free(was[i]);
    }
    ck_assert_msg(st == GPGPU_SUCCESS, "context on %s with %s: %s (%s)", tu_device, settings,
                  gpgpu_status_string(st), gpgpu_last_error(NULL));
    return c;
}

static gpgpu_context *saved_ctx;

int tu_force(const char *settings)
{
    if (tu_is_host())
        return 0;
    gpgpu_context *c = tu_context_with(settings);
    tu_restore_ctx();
    saved_ctx = tu_ctx;
    tu_ctx = c;
    return 1;
}

void tu_restore_ctx(void)
{
    if (saved_ctx) {
        gpgpu_context_destroy(tu_ctx);
        tu_ctx = saved_ctx;
        saved_ctx = NULL;
    }
}

static int run_on(const char *spec, Suite *(*make)(void))
{
    tu_device = spec;
    gpgpu_status s = gpgpu_context_create(&tu_ctx, strcmp(spec, "default") ? spec : NULL);
    if (s != GPGPU_SUCCESS) {
        fprintf(stderr, "cannot open device %s: %s: %s\n", spec, gpgpu_status_string(s),
                gpgpu_last_error(NULL));
        return 1;
    }
    fprintf(stderr, "== device %s (%s), seed %llu (set GPGPU_TEST_SEED to change)\n", spec,
            gpgpu_device_name(tu_ctx), (unsigned long long)tu_seed());
    SRunner *sr = srunner_create(make());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    gpgpu_context_destroy(tu_ctx);
    tu_ctx = NULL;
    return failed != 0;
}

/* ---- registered tests ---------------------------------------------------- */

enum { TU_MAX_TESTS = 256 };
static tu_test registered[TU_MAX_TESTS + 1];
static size_t nregistered;
static const char *run_name;
static int run_timeout;
static void (*run_more)(Suite *s);

void tu_register(const TTest *test, int loops)
{
    if (nregistered == TU_MAX_TESTS) {
        fprintf(stderr, "tests/util.c: more than %d tests in one suite\n", TU_MAX_TESTS);
        abort();
    }
    registered[nregistered++] = (tu_test){test, loops};
}

/* In the order they are written (constructors may run in any order). */
static int by_line(const void *a, const void *b)
{
    const tu_test *x = a, *y = b;
    return (x->test->line > y->test->line) - (x->test->line < y->test->line);
}

void tu_add_case(Suite *s, const char *name, int timeout, void (*teardown)(void),
                 const tu_test *tests)
{
    TCase *tc = tcase_create(name);
    if (timeout > 0)
        tcase_set_timeout(tc, timeout);
    if (teardown)
        tcase_add_checked_fixture(tc, NULL, teardown);
    for (; tests->test; tests++) {
        if (tests->loops > 0)
            tcase_add_loop_test(tc, tests->test, 0, tests->loops);
        else
            tcase_add_test(tc, tests->test);
    }
    suite_add_tcase(s, tc);
}

static Suite *registered_suite(void)
{
    Suite *s = suite_create(run_name);
    qsort(registered, nregistered, sizeof *registered, by_line);
    tu_add_case(s, run_name, run_timeout, tu_restore_ctx, registered);
    if (run_more)
        run_more(s);
    return s;
}

int tu_run(const char *name, int timeout, void (*more)(Suite *s))
{
    run_name = name;
    run_timeout = timeout;
    run_more = more;
    return tu_main(registered_suite);
}

int tu_main(Suite *(*make)(void))
{
    const char *list = getenv("GPGPU_TEST_DEVICES");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list && *list ? list : "default,host");
    int failed = 0;
    for (char *save = NULL, *spec = strtok_r(buf, ",", &save); spec;
         spec = strtok_r(NULL, ",", &save))
        failed |= run_on(spec, make);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ---- processes ------------------------------------------------------------ */

int tu_wait(int pid, int timeout_s)
{
    for (long waited_ms = 0;; waited_ms += 10) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0)
            return -1;
        if (waited_ms >= timeout_s * 1000L) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        usleep(10000);
    }
}

int tu_spawn_self(const char *const args[], int timeout_s, char *out, size_t size)
{
    int fds[2];
    out[0] = '\0';
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const char *argv[16] = {"tu_spawn_self"};
        for (int i = 0; args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    size_t used = 0;
    time_t end = time(NULL) + timeout_s;
    for (;;) { /* read until the child closes its end or time is up */
        struct pollfd p = {fds[0], POLLIN, 0};
        int left = (int)(end - time(NULL));
        if (left <= 0 || poll(&p, 1, left * 1000) <= 0)
            break;
        char buf[4096];
        ssize_t got = read(fds[0], buf, sizeof buf);
        if (got <= 0)
            break;
        size_t keep = (size_t)got < size - 1 - used ? (size_t)got : size - 1 - used;
        memcpy(out + used, buf, keep);
        used += keep;
    }
    out[used] = '\0';
    close(fds[0]);
    int left = (int)(end - time(NULL));
    return tu_wait(pid, left > 0 ? left : 0);
}
