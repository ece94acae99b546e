#!/bin/bash
# histogram2d's split into up to six parts (a segment's counts in 10-bit
# fields): this tree (.gpu/install) against the builds under .gpu/before2
# (the four-part split with mul_hi where it fits) and .gpu/before (the
# four-part split before it), f32, `_buffer` form, kernel events, median
# of 10, in turn twice; the kernel traces of 256 x 256 cells at 2^28;
# test_histogram2d; the peers of .gpu/science_peers.py. On the GPU
# machine, after ../shared/gpu/prepare --build and bench/gpu-stage-tests.sh:
#   source .gpu/env.sh; OUT=dir bash bench/results/2026-11-27-h200-hist2d-parts6/run.sh
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
for round in 1 2; do
    for b in install before2 before; do
        for r in "28 256" "28 200" "28 300" "28 420" "28 436"; do
            set -- $r
            LD_LIBRARY_PATH="$PWD/.gpu/$b/lib:$LD_LIBRARY_PATH" timeout 120 gpgpu-bench \
                --json --repeat 10 --api buffer --op histogram2d --type f32 --n $((1 << $1)) \
                --bins $2 2>> "$o/err.txt" | sed "s|^{|{\"v\": \"$b\", |" >> "$o/hist2d.jsonl"
        done
    done
done
for b in install before2; do
    echo "== $b" >> "$o/trace.txt"
    GPGPU_BENCH_TRACE=1 LD_LIBRARY_PATH="$PWD/.gpu/$b/lib:$LD_LIBRARY_PATH" gpgpu-bench \
        --repeat 3 --api buffer --op histogram2d --type f32 --n $((1 << 28)) --bins 256 2>&1 |
        grep -E "kernel|verified" >> "$o/trace.txt"
done
probe_tests "$o/tests.txt" test_histogram2d
timeout 150 python3 .gpu/science_peers.py 28 > "$o/peers.jsonl" 2>> "$o/err.txt"
