#!/bin/sh
# Every primitive at n = 2^32 + 5 elements (or the n given) on the default
# device, each result checked against plain C on the host (bench/huge.c).
# On an NVIDIA GPU machine, from the project root, after
# `source .gpu/env.sh` (the library installed under .gpu/install):
#   sh bench/huge.sh [N] [OP ...]
# Here, on PoCL, at a small n, against a build tree:
#   GPGPU_PREFIX=/tmp/b-x sh bench/huge.sh 1000003
#   GPGPU_CHUNKED=0 GPGPU_WIDE_FROM=1000 GPGPU_PREFIX=/tmp/b-x sh bench/huge.sh 300007
# (the GPU layout, and the 64-bit forms that by-key ranks, segmented-sort
# segments and argsort's indices take from 2^32 elements, at a size PoCL
# can hold).
# GPGPU_PREFIX: an install prefix (include/, lib/) or a build tree (include/
# of the source beside it is found through the build's config); default:
# .gpu/install. CC: the compiler (default cc). Prints one line per primitive:
# name, PASS/FAIL/ERROR, the call's wall time (host arrays: transfers
# included) and elements per second; exit status 0 if all passed.
# Memory at 2^32 + 5: at most 68 GiB on the host, and on the device at most
# about 112 GiB (sort_pairs: keys, values and scratch A and B of each, 16
# GiB apiece; scan_by_key: keys, values, 64-bit ranks and run offsets;
# argsort: keys, two copies of them, and two arrays of 8-byte indices,
# the result one of them).
# Some primitives need one buffer of 32 GiB (8-byte lengths or offsets per
# element): more than an H100's largest allocation (a quarter of its
# memory), so there they stop with OUT_OF_MEMORY naming the size; an H200
# (141 GB) holds every primitive.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/gpgpu-huge.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
. "$here/cc-gpgpu.sh"
cc_gpgpu "$out/huge" "$here/huge.c" -lpthread
"$out/huge" "$@"
