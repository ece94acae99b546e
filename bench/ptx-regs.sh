#!/bin/sh
# Registers, spills and __local bytes of each kernel that NVIDIA's OpenCL
# compiles for one gpgpu-bench call: the call runs with a fresh program
# cache, whose binaries on NVIDIA are PTX text, and ptxas (CUDA toolkit)
# reports on each. On the GPU machine, after `source .gpu/env.sh`:
#   sh bench/ptx-regs.sh --op sort_pairs --type u32 --n 1048576
set -u
dir=$(mktemp -d)
GPGPU_CACHE_DIR=$dir gpgpu-bench --repeat 1 "$@" > /dev/null 2>&1
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); i=d.find(b"//"); sys.stdout.buffer.write(d[i:].rstrip(b"\0"))' \
        "$f" > "$dir/p.ptx"
    ptxas -arch=sm_90 -v "$dir/p.ptx" -o /dev/null 2>&1 |
        awk '/Compiling entry/ { k = $0; sub(/.*entry function .|. for .*/, "", k) }
             /Used|spill/ { print k ": " $0 }' | sed 's/ptxas info *: //'
done
rm -rf "$dir"
