#!/bin/bash
# histogram2d with the band count's four loads a lane in flight: this tree
# (.gpu/install) against the build under .gpu/before2, f32, `_buffer`
# form, kernel events, median of 10, in turn twice; the kernel trace of
# 256 x 256 cells at 2^28; every staged suite. On the GPU machine, after
# ../shared/gpu/prepare --build and bench/gpu-stage-tests.sh:
#   source .gpu/env.sh; OUT=dir bash bench/results/2026-11-27-h100-hist2d-count4/run.sh
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
for round in 1 2; do
    for b in install before2; do
        for B in 256 200 300 420; do
            LD_LIBRARY_PATH="$PWD/.gpu/$b/lib:$LD_LIBRARY_PATH" timeout 120 gpgpu-bench \
                --json --repeat 10 --api buffer --op histogram2d --type f32 --n $((1 << 28)) \
                --bins $B 2>> "$o/err.txt" | sed "s|^{|{\"v\": \"$b\", |" >> "$o/hist2d.jsonl"
        done
    done
done
GPGPU_BENCH_TRACE=1 gpgpu-bench --repeat 3 --api buffer --op histogram2d --type f32 \
    --n $((1 << 28)) --bins 256 2>&1 | grep -E "kernel|verified" >> "$o/trace.txt"
OUT=$o timeout 300 sh .gpu/tests/run.sh > /dev/null 2>&1; echo "suites rc=$?" >> "$o/tests.txt"
