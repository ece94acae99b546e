/*
 * util.h - what every test suite shares: the device under test, seeded
 * random inputs and the runner.
 */
#ifndef GPGPU_TEST_UTIL_H
#define GPGPU_TEST_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "gpgpu_cl.h"

/* The context under test. tu_main runs the suites once per device: the
   default device ($GPGPU_DEVICE or the best one), then the host fallback
   (GPGPU_TEST_DEVICES="default,host" by default; a comma list of specs). */
extern gpgpu_context *tu_ctx;
extern const char *tu_device;   /* the spec of tu_ctx, "default" or "host" */
int tu_is_host(void);           /* tu_ctx is the plain-C fallback */

/* The run's seed: $GPGPU_TEST_SEED, else a fixed value. Printed by tu_main;
   tests derive per-case seeds from it with tu_seed_for(). */
uint64_t tu_seed(void);
uint64_t tu_seed_for(uint64_t a, uint64_t b);

/* The splitmix64 step behind tu_fill and tu_seed_for. */
uint64_t tu_splitmix(uint64_t *state);

/* Float bit patterns that sorting and searching must order right: both
   NaN signs (quiet, signalling, all ones), both infinities, both zeros,
   subnormals, the extremes of the normals, 1.0. */
enum { TU_NSPECIALS = 18 };
extern const uint32_t tu_f32_specials[TU_NSPECIALS];
extern const uint64_t tu_f64_specials[TU_NSPECIALS];

/* Deterministic random fill of n elements of t (splitmix64 of seed):
   integers over their full range, floats over [-1000, 1000). */
void tu_fill(gpgpu_type t, void *buf, size_t n, uint64_t seed);

/* The OpenCL context of tu_ctx's queue (a device context only). */
cl_context tu_cl_context(void);

/* 1 when t is a 64-bit type the device under test lacks (the calls say
   UNSUPPORTED), 0 when it runs t; any other failure fails the test. */
int tu_skip_type(gpgpu_type t);

/* 1 when the F32 or F64 values at a and b have the same bits, or are both
   NaN (a sum of NaNs has the adder's pick of payload); *av and *bv get
   them as doubles, for a message. */
int tu_same_float(gpgpu_type t, const void *a, const void *b, double *av, double *bv);

/* malloc that fails the test on NULL; size 0 gives a valid pointer. */
void *tu_alloc(size_t bytes);

/* A new context on tu_device, created while the environment holds
   settings ("NAME=VALUE NAME=VALUE ...", read by the plan at creation;
   docs/tuning.md lists them); the variables are then as they were. Fails
   the test if it cannot be created. */
gpgpu_context *tu_context_with(const char *settings);

/* Makes tu_context_with(settings) the context under test until
   tu_restore_ctx(), which every registered test's teardown calls, so a
   failing test puts tu_ctx back too. Returns 0 (and changes nothing) on the
   host fallback, which has no layouts to force. */
int tu_force(const char *settings);
void tu_restore_ctx(void);

/* Asserts st == GPGPU_SUCCESS, printing the status and gpgpu_last_error. */
#define tu_assert_ok(st)                                                             \
    ck_assert_msg((st) == GPGPU_SUCCESS, "%s failed: %s (%s) [device %s, seed %llu]", \
                  #st, gpgpu_status_string(st), gpgpu_last_error(tu_ctx), tu_device, \
                  (unsigned long long)tu_seed())

/* Asserts that call gives GPGPU_ERROR_INVALID_ARGUMENT, naming the call
   and the status it gave. */
#define REJECTED(call)                                                                   \
    do {                                                                                 \
        gpgpu_status s_ = (call);                                                        \
        ck_assert_msg(s_ == GPGPU_ERROR_INVALID_ARGUMENT, "%s gave %s", #call,           \
                      gpgpu_status_string(s_));                                          \
    } while (0)

/* Tests that register themselves, run in the order they are written:
       TU_TEST(name) { ... } END_TEST
       TU_LOOP_TEST(name, loops) { ... uses _i ... } END_TEST  (_i = 0 .. loops - 1)
   tu_run runs them all as one suite. START_TEST keeps Check's meaning: such
   a test runs only if a suite lists it (tu_add_case). */
#define TU_LOOP_TEST(name, loops)                                                      \
    static void name##_fn(int _i CK_ATTRIBUTE_UNUSED);                                 \
    static const TTest name##_ttest = {"" #name, name##_fn, __FILE__, __LINE__};       \
    __attribute__((constructor)) static void name##_register(void)                     \
    {                                                                                  \
        tu_register(&name##_ttest, (loops));                                           \
    }                                                                                  \
    static void name##_fn(int _i CK_ATTRIBUTE_UNUSED)
#define TU_TEST(name) TU_LOOP_TEST(name, 0)
void tu_register(const TTest *test, int loops);

/* One test of a list: test as START_TEST names it; loops > 0 runs it
   loops times with _i = 0 .. loops - 1. Lists end with {NULL, 0}. */
typedef struct {
    const TTest *test;
    int loops;
} tu_test;

/* Adds a test case called name to s, run with teardown (may be NULL)
   after each of its tests: for the cases that force a layout on tu_ctx
   and must put it back. timeout in seconds, 0 for Check's default. */
void tu_add_case(Suite *s, const char *name, int timeout, void (*teardown)(void),
                 const tu_test *tests);

/* Runs the registered tests as the suite name (one test case) on every
   device, as tu_main does; more (may be NULL) adds further cases. Returns
   the exit status. */
int tu_run(const char *name, int timeout, void (*more)(Suite *s));

/* Runs make()'s suite on every device (see tu_ctx) without forking (the
   OpenCL context lives across tests); returns the exit status. */
int tu_main(Suite *(*make)(void));

/* Processes, for the tests of fork, threads and exit. tu_wait waits for
   child pid at most timeout_s seconds, then kills it (SIGKILL); returns its
   wait status, or -1 when it had to be killed. tu_spawn_self runs this test
   program again as a fresh process (exec, so that it inherits no OpenCL
   state) with args after the program's name (NULL-terminated), its stdout
   and stderr captured into out (size bytes, NUL-terminated); returns as
   tu_wait does. */
int tu_wait(int pid, int timeout_s);
int tu_spawn_self(const char *const args[], int timeout_s, char *out, size_t size);

#endif
