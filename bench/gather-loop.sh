#!/bin/sh
# Builds bench/gather-loop.c against an install or a build tree of the
# library and runs it (gpgpu_gather against the serial loop, alternating
# into one output: see the program's header):
#   GPGPU_PREFIX=/tmp/b GPGPU_DEVICE=host sh bench/gather-loop.sh [ROUNDS [FROM TO]]
# GPGPU_PREFIX defaults to .gpu/install. To compare two versions, run it
# once against each build tree, in turn, twice or more.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/gpgpu-gather-loop.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
. "$here/cc-gpgpu.sh"
cc_gpgpu "$out/gather-loop" "$here/gather-loop.c" -Wall -Wextra
"$out/gather-loop" "$@"
