#!/bin/sh
# Installs the library into a scratch root and builds a program outside the
# tree with nothing but `cc prog.c $(pkg-config --cflags --libs gpgpu)`;
# then, when cmake is installed, the same program with CMake's
# pkg_check_modules(... IMPORTED_TARGET gpgpu), as the README shows.
set -e
top_builddir=${top_builddir:-.}
scratch="$top_builddir/tests/.cache/consumer"
root="$scratch/root"
# What an earlier run left; the caches run-test.sh set up there stay.
rm -rf "$root" "$scratch/prog" "$scratch/prog.c" "$scratch/cmake"
mkdir -p "$root"
${MAKE:-make} -s -C "$top_builddir" install DESTDIR="$(cd "$root" && pwd)" >/dev/null
root=$(cd "$root" && pwd)
pc=$(find "$root" -name gpgpu.pc | head -n 1)
# Only the scratch root: pkg-config searches PKG_CONFIG_PATH before
# PKG_CONFIG_LIBDIR, so a PKG_CONFIG_PATH of the caller's (another installed
# libgpgpu, kept by the Makefile from configure time) must go.
unset PKG_CONFIG_PATH
PKG_CONFIG_LIBDIR=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR="$root"
export PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
prog="$top_builddir/tests/.cache/consumer/prog.c"
cat > "$prog" <<'EOC'
#include <gpgpu.h>
#include <stdio.h>
int main(void)
{
    gpgpu_context *ctx;
    double x[4] = {1.5, 2.5, -1.0, 4.0}, sum = 0;
    if (gpgpu_context_create(&ctx, NULL) != GPGPU_SUCCESS) {
        fprintf(stderr, "%s\n", gpgpu_last_error(NULL));
        return 1;
    }
    gpgpu_status s = gpgpu_reduce(ctx, GPGPU_F64, GPGPU_SUM, x, 4, &sum);
    printf("libgpgpu %s on %s: sum = %g\n", gpgpu_version(), gpgpu_device_name(ctx), sum);
    gpgpu_context_destroy(ctx);
    return s == GPGPU_SUCCESS && sum == 7.0 ? 0 : 1;
}
EOC
# A sanitizer build's library needs its runtime loaded first: build the
# consumer with the same flags (empty otherwise).
${CC:-cc} $SANITIZE_FLAGS -o "$top_builddir/tests/.cache/consumer/prog" "$prog" \
    $(pkg-config --cflags --libs gpgpu)
libdir="$(dirname "$(find "$root" -name 'libgpgpu.so' | head -n 1)")"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$top_builddir/tests/.cache/consumer/prog"

command -v cmake > /dev/null || { echo "consumer.sh: no cmake: CMake consumer not tried"; exit 0; }
proj="$top_builddir/tests/.cache/consumer/cmake"
mkdir -p "$proj"
cp "$prog" "$proj/prog.c"
cat > "$proj/CMakeLists.txt" <<'EOC'
cmake_minimum_required(VERSION 3.13)
project(gpgpu_consumer C)
find_package(PkgConfig REQUIRED)
pkg_check_modules(GPGPU REQUIRED IMPORTED_TARGET gpgpu)
add_executable(prog prog.c)
target_link_libraries(prog PRIVATE PkgConfig::GPGPU)
EOC
cmake -S "$proj" -B "$proj/build" -DCMAKE_C_FLAGS="$SANITIZE_FLAGS" > "$proj/cmake.log" 2>&1 ||
    { cat "$proj/cmake.log"; echo "consumer.sh: cmake configure failed" >&2; exit 1; }
cmake --build "$proj/build" > "$proj/build.log" 2>&1 ||
    { cat "$proj/build.log"; echo "consumer.sh: cmake build failed" >&2; exit 1; }
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$proj/build/prog"
