#!/bin/sh
# search_sorted, gather and argsort on one GPU, in one device command: the
# search suite on the GPU, search_sorted (2^24 needles in 2^24 sorted keys)
# with 0, 8 and 12 levels of its __local tree (GPGPU_SEARCH_TREE), gather
# of 2^28 elements by random indices, argsort and sort_pairs of 2^28 keys,
# the kernel times of quantiles (1 and 5 at once) beside our sort of the
# same keys, then PyTorch and CuPy's science cases (.gpu/science_peers.py). Run
# on the GPU machine, after ../shared/gpu/prepare --build and
# bench/gpu-stage-tests.sh here:
#   source .gpu/env.sh; sh bench/search-probe.sh
# -> $OUT/device.txt, tests.txt, ours.jsonl, trace.txt (the kernels of
#    the median and of 5 quantiles at once), peers.jsonl
set -u
o=${OUT:-.}
big=$((1 << ${N_LG:-28}))
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_tests "$o/tests.txt" test_search test_sort test_select_k
b() { timeout 120 gpgpu-bench --json --repeat 5 "$@" >> "$o/ours.jsonl" 2>> "$o/err.txt"; }
for t in u32 u64 f64; do
    for tree in 0 8 12; do
        GPGPU_SEARCH_TREE=$tree b --op search_sorted --type $t --n $((1 << 24))
    done
done
b --op gather --type u32 --n $big
b --op argsort --type u32 --n $big
b --op sort_pairs --type u32 --n $big
for bins in 1 5; do
    GPGPU_BENCH_TRACE=1 timeout 120 gpgpu-bench --json --repeat 5 --op quantiles --bins $bins \
        --type f32 --n $big >> "$o/ours.jsonl" 2>> "$o/trace.raw"
done
b --op sort --type f32 --n $big
grep -E "kernel|quantiles" "$o/trace.raw" > "$o/trace.txt"
rm -f "$o/trace.raw"
timeout 300 python3 .gpu/science_peers.py "${N_LG:-28}" > "$o/peers.jsonl" 2> "$o/peers.err"
