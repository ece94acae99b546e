#!/bin/sh
# Two builds of the library side by side on one GPU, in one device command:
# sort u32, sort_pairs u32 and sort u64 at n = 2^20, 2^24 and 2^28 (and
# argsort u32 at 2^28) with each build in turn, the kernel times of the
# first build's sort and sort_pairs at 2^20 and 2^28, then native CUB on
# the same GPU. Run on the GPU machine, after ../shared/gpu/prepare --build
# and bench/gpu-stage-tests.sh here, with the other build installed under
# .gpu/before (configure --prefix=$PWD/.gpu/before):
#   source .gpu/env.sh; sh bench/sort-ab-probe.sh
# -> $OUT/device.txt, tests.txt, ours.jsonl (each line tagged "lib"),
#    profile.txt, cub.jsonl
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
(nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_sort_scan_histogram.cu -o /tmp/cub > "$o/nvcc.txt" 2>&1) &
cp=$!
probe_tests "$o/tests.txt" ${TESTS:-test_sort}
b() { # lib op type lg
    LD_LIBRARY_PATH=$1:$LD_LIBRARY_PATH timeout 120 gpgpu-bench --json --repeat 10 --op $2 \
        --type $3 --n $((1 << $4)) 2>> "$o/err.txt" | sed "s|^{|{\"lib\": \"$1\", |" >> "$o/ours.jsonl"
}
for round in 1 2; do
    for lib in "$PWD/.gpu/install/lib" "$PWD/.gpu/before/lib"; do
        for lg in 20 24 28; do
            b $lib sort u32 $lg
            b $lib sort_pairs u32 $lg
            b $lib sort u64 $lg
        done
        [ $round = 1 ] && b $lib argsort u32 28
    done
done
for lg in 20 28; do
    for op in sort sort_pairs; do
        GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 --op $op --type u32 --n $((1 << lg)) \
            >> "$o/profile.txt" 2>&1
    done
done
wait $cp
/tmp/cub 20 24 28 > "$o/cub.jsonl" 2>&1
