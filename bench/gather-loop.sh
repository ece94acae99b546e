#!/bin/sh
# Builds bench/gather-loop.c against an install or a build tree of the
# library and runs it (gpgpu_gather against the serial loop, alternating
# into one output: see the program's header):
#   GPGPU_PREFIX=/tmp/b GPGPU_DEVICE=host sh bench/gather-loop.sh [ROUNDS [FROM TO]]
# GPGPU_PREFIX defaults to .gpu/install. To compare two versions, run it
# once against each build tree, in turn, twice or more.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${GPGPU_PREFIX:-$PWD/.gpu/install}
out=${TMPDIR:-/tmp}/gpgpu-gather-loop.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
if [ -f "$prefix/include/gpgpu.h" ]; then
    inc="-I$prefix/include"
    libdir=$prefix/lib
else
    # a build tree: gpgpu_version.h is generated there, gpgpu.h is in the source
    src=$(sed -n "s/^abs_top_srcdir = //p" "$prefix/Makefile")
    inc="-I$src/include -I$prefix/include"
    libdir=$prefix/.libs
fi
${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra $inc "$here/gather-loop.c" \
    -o "$out/gather-loop" -L"$libdir" -Wl,-rpath,"$libdir" -lgpgpu
"$out/gather-loop" "$@"
