#!/bin/sh
# search_sorted, gather and argsort on one GPU, in one device command: the
# search suite on the GPU, search_sorted (2^24 needles in 2^24 sorted keys)
# with 0, 8 and 12 levels of its __local tree (GPGPU_SEARCH_TREE), gather
# of 2^28 elements by random indices, argsort and sort_pairs of 2^28 keys,
# then PyTorch and CuPy's science cases (.gpu/science_peers.py). Run
# on the GPU machine, after ../shared/gpu/prepare --build and
# bench/gpu-stage-tests.sh here:
#   source .gpu/env.sh; sh bench/search-probe.sh
# -> $OUT/device.txt, tests.txt, ours.jsonl, peers.jsonl
set -u
o=${OUT:-.}
big=$((1 << ${N_LG:-28}))
(date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
 gpgpu-info 2>&1 | head -30) > "$o/device.txt"
(
    cd .gpu/tests || exit 1
    export top_builddir="$PWD" GPGPU_TEST_DEVICES=default
    mkdir -p tests/.cache
    timeout 300 ./test_search > "$o/tests.txt" 2>&1
    echo "rc=$?" >> "$o/tests.txt"
)
b() { timeout 120 gpgpu-bench --json --repeat 5 "$@" >> "$o/ours.jsonl" 2>> "$o/err.txt"; }
for tree in 0 8 12; do
    for t in u32 u64 f64; do
        GPGPU_SEARCH_TREE=$tree b --op search_sorted --type $t --n $((1 << 24))
    done
done
b --op gather --type u32 --n $big
b --op argsort --type u32 --n $big
b --op sort_pairs --type u32 --n $big
timeout 300 python3 .gpu/science_peers.py "${N_LG:-28}" > "$o/peers.jsonl" 2> "$o/peers.err"
