/* util.c - the device under test, seeded random inputs and the runner. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tu_seed_for(uint64_t a, uint64_t b)
{
    uint64_t s = tu_seed() ^ (a * 0x100000001b3ull) ^ (b << 32);
    return splitmix(&s);
}

void tu_fill(gpgpu_type t, void *buf, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix(&s);
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

void *tu_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_msg(p != NULL, "out of memory allocating %zu bytes", bytes);
    return p;
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
    tu_add_case(s, run_name, run_timeout, NULL, registered);
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
