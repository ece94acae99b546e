#!/bin/sh
# histogram2d on one GPU, split counts (the plan) against every band's
# groups reading every sample (GPGPU_HIST_SPLIT=0), f32 samples, `_buffer`
# form, kernel events, twice in turn; then the kernel trace at 2^28 and the
# suites in TESTS. Run on the GPU machine after ../shared/gpu/prepare
# --build and bench/gpu-stage-tests.sh here:
#   source .gpu/env.sh; sh bench/hist2d-probe.sh
# SIZES (lg n, 256 x 256 cells) and BINS (cells a side, at 2^28) pick the rows.
# -> $OUT/device.txt, hist2d.jsonl (tagged "split"), trace.txt, tests.txt
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
[ -n "${TESTS:-}" ] && probe_tests "$o/tests.txt" $TESTS
row() { # split lg bins
    GPGPU_HIST_SPLIT=$1 timeout 120 gpgpu-bench --json --repeat 10 --api buffer \
        --op histogram2d --type f32 --n $((1 << $2)) --bins "$3" 2>> "$o/err.txt" |
        sed "s|^{|{\"split\": $1, |" >> "$o/hist2d.jsonl"
}
for round in 1 2; do
    for split in 2 0; do
        for lg in ${SIZES:-24 25 26 27 28}; do row $split "$lg" 256; done
        for b in ${BINS:-128 200 300 400 512}; do row $split 28 "$b"; done
    done
done
for b in 256 400; do
    GPGPU_BENCH_TRACE=1 gpgpu-bench --repeat 3 --api buffer --op histogram2d --type f32 \
        --n $((1 << 28)) --bins $b 2>&1 | grep -E "kernel|verified" >> "$o/trace.txt"
done
