#!/bin/sh
# Runs one test program with its own PoCL and gpgpu caches: PoCL's kernel
# cache is not safe against several processes updating it at once, and the
# gpgpu disk cache is part of what the tests check. The PoCL cache starts
# as a copy of what the tests before this one compiled, and what this test
# compiled is shared with the tests after it (tests/pocl-cache.sh, which
# says how), so that each kernel compiles once per make check.
# The caller's environment must not change what the tests see: every
# GPGPU_* and POCL_* variable is cleared except those that choose what to
# test (GPGPU_DEVICE, GPGPU_TEST_DEVICES, GPGPU_TEST_SEED, GPGPU_NO_AVX2 and
# GPGPU_HOST_BELOW); the caches are set below. GPGPU_HOST_BELOW is 0 unless
# set: the suites test the kernels at every size, not the plan's small
# calls on the host's own code (which the "host" device runs); set it
# (e.g. to "all") to test the routes through the plan's host code.
for var in $(env | sed -n 's/^\(GPGPU_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(POCL_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $var in
    GPGPU_DEVICE | GPGPU_TEST_DEVICES | GPGPU_TEST_SEED | GPGPU_HOST_BELOW | GPGPU_NO_AVX2) ;;
    *) unset "$var" ;;
    esac
done
name=$(basename "$1" .sh)
cache="${top_builddir:-.}/tests/.cache/$name"
GPGPU_HOST_BELOW="${GPGPU_HOST_BELOW-0}"
export GPGPU_HOST_BELOW
mkdir -p "$cache/pocl" "$cache/gpgpu"
chmod 700 "$cache/gpgpu"
POCL_CACHE_DIR="$cache/pocl"
GPGPU_CACHE_DIR="$cache/gpgpu"
export POCL_CACHE_DIR GPGPU_CACHE_DIR
# Sanitizer builds: every report fails the test; tests/lsan.supp names the
# modules whose own start-up and compiler state is never freed. ASan's
# default fast unwinder (frame pointers) is kept: the exact one
# (fast_unwind_on_malloc=0) unwinds every malloc of PoCL's in-process LLVM
# and made the sanitized make check seven times slower (test_reduce: 95 s
# against 14 s). No effect on other builds.
# intercept_tls_get_addr=0: the sanitizer runtime of GCC 12 (Debian 12's)
# takes a dynamic TLS block that malloc placed 16 bytes past a page
# boundary for a glibc 2.19 block with a header, reads its bounds from the
# 16 bytes before it (malloc's chunk header) and, at exit, LeakSanitizer's
# tracer scans that bogus range and dies ("Tracer caught signal 11",
# "LeakSanitizer has encountered a fatal error") after every check passed.
# PoCL's LLVM, loaded by dlopen, has such blocks in every thread that uses
# it; where malloc puts them depends on timing, so the failure came and
# went with the machine's load (ASAN_OPTIONS=verbosity=2 prints
# "__tls_get_addr: glibc >=2.19 suspected" with the bogus range just before
# the crash). Without the interception LeakSanitizer does not scan dynamic
# TLS: only PoCL and LLVM keep pointers there, and their modules are
# suppressed in tests/lsan.supp anyway.
srcdir="${top_srcdir:-$(dirname "$0")/..}"
ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:intercept_tls_get_addr=0}"
LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$srcdir/tests/lsan.supp:print_suppressions=0}"
UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
# The test's own status is kept whatever the sharing does.
seeded=$(${SHELL:-/bin/sh} "$srcdir/tests/pocl-cache.sh" seed "$POCL_CACHE_DIR")
case "$1" in
*.sh) ${SHELL:-/bin/sh} "$@" ;;
*) "$@" ;;
esac
status=$?
# shellcheck disable=SC2086
${SHELL:-/bin/sh} "$srcdir/tests/pocl-cache.sh" publish "$POCL_CACHE_DIR" $seeded
exit $status
