#!/bin/sh
# top_k and its peers on one GPU, in one device command: the selection
# suite and top_k's fault points on the GPU, the per-kernel times of top_k
# (k = 100 largest) at 2^28 for f32, u32, f64 and i64, top_k at 2^24 and
# on 16-bit keys (many ties), our sort of the same n, then PyTorch and
# CuPy's science cases (.gpu/science_peers.py). Run on the GPU machine,
# after ../shared/gpu/prepare --build and bench/gpu-stage-tests.sh here:
#   source .gpu/env.sh; sh bench/select-probe.sh
# -> $OUT/device.txt, tests.txt, trace.txt, ours.jsonl, peers.jsonl
set -u
o=${OUT:-.}
big=$((1 << ${N_LG:-28}))
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_tests "$o/tests.txt" test_select_k
(
    cd .gpu/tests || exit 1
    export top_builddir="$PWD"
    n=$(GPGPU_CACHE=0 GPGPU_FAULT_COUNT=1 ./test_faults child top_k 0:0 2>&1 |
        sed -n 's/.* \([0-9][0-9]*\) fault-injection points.*/\1/p' | tail -1)
    bad=0
    for k in $(seq 1 "${n:-0}"); do
        GPGPU_CACHE=0 GPGPU_FAULT_AT=$k ./test_faults child top_k 0:0 > /dev/null 2>&1 ||
            bad=$((bad + 1))
    done
    echo "test_faults top_k: ${n:-?} points, $bad not clean" >> "$o/tests.txt"
)
for t in f32 u32 f64 i64; do
    GPGPU_BENCH_TRACE=1 gpgpu-bench --json --op top_k --type $t --n $big --repeat 5 \
        >> "$o/ours.jsonl" 2>> "$o/trace.raw"
done
for t in f32 u32; do
    gpgpu-bench --json --op top_k --type $t --n $((1 << 24)) --repeat 5 >> "$o/ours.jsonl"
    gpgpu-bench --json --op top_k --type $t --input narrow16 --n $big --repeat 5 >> "$o/ours.jsonl"
    gpgpu-bench --json --op sort --type $t --n $big --repeat 5 >> "$o/ours.jsonl"
done
grep -E "kernel|top_k" "$o/trace.raw" > "$o/trace.txt"
rm -f "$o/trace.raw"
timeout 200 python3 .gpu/science_peers.py "${N_LG:-28}" > "$o/peers.jsonl" 2> "$o/peers.err"
