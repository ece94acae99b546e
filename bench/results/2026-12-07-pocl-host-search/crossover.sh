#!/bin/sh
# PoCL's search_sorted on the host's code against its kernels
# (GPGPU_HOST_BELOW=search=all | =0), and the fallback's, 2^10 .. 2^24
# u32 and f32 needles in as many sorted keys; from a build tree:
#   OUT=dir [ROUNDS=2] sh crossover.sh
# python3 table.py dir/crossover.jsonl prints of_serial per route.
here=$(cd "$(dirname "$0")" && pwd)
NAME=search OPS=search_sorted SIZES=10,12,14,16,18,20,22,24 FALLBACK=1 \
    exec sh "$here/../../host-route.sh"
