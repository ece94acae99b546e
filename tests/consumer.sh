#!/bin/sh
# Installs the library into a scratch root and builds a program outside the
# tree with nothing but `cc prog.c $(pkg-config --cflags --libs gpgpu)`.
set -e
top_builddir=${top_builddir:-.}
root="$top_builddir/tests/.cache/consumer/root"
rm -rf "$top_builddir/tests/.cache/consumer"
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
LD_LIBRARY_PATH="$(dirname "$(find "$root" -name 'libgpgpu.so' | head -n 1)")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$top_builddir/tests/.cache/consumer/prog"
