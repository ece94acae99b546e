#!/bin/sh
# The GPU targets of issues 16, 17 and 18 with native CUB in the same device
# command, sized to fit one 600 s device call (from the project root, after
# `source .gpu/env.sh`; build the CUB programs on the CPU machine first:
#   for p in cub_issue18 cub_segmented cub_select; do
#       nvcc -O3 -arch=sm_90 -std=c++17 bench/$p.cu -o .gpu/$p; done
# and stage the suites with bench/gpu-stage-tests.sh).
#   PARTS="suites18 tests seg select sort sort64 scan hist small cub peers
#          probe64 profile16 profile" (default: the targets)
# Every step is stamped with its start time in $OUT/log.txt, so a cut-off
# run still says what it reached. JSON lines: $OUT/ours.jsonl (gpgpu-bench,
# _buffer forms timed by kernel events, median of 5), $OUT/cub.jsonl (native
# CUB, CUDA events, median of 10), $OUT/peers.jsonl (CuPy and PyTorch).
#   python3 bench/ratios.py ours.jsonl peers.jsonl cub.jsonl
set -u
out=${OUT:-.}
parts=${PARTS:-tests seg select sort scan hist small cub peers}
n=$((1 << 28))
: > "$out/ours.jsonl"
: > "$out/cub.jsonl"
t0=$(date +%s)
stamp() { echo "$(( $(date +%s) - t0 ))s $*" >> "$out/log.txt"; }
b() { stamp "bench $*"; timeout 120 gpgpu-bench --json --repeat 5 "$@" >> "$out/ours.jsonl" 2>> "$out/err.txt" || echo "rc=$? $*" >> "$out/err.txt"; }
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
# traced FILE ARGS: one gpgpu-bench case (u32 unless ARGS say) into ours.jsonl,
# the kernels of its last timed call appended to FILE
traced() {
    f=$1; shift
    stamp "$*"
    GPGPU_BENCH_TRACE=1 timeout 40 gpgpu-bench --type u32 "$@" --n $n --repeat 5 --json 2> "$out/trace.tmp" >> "$out/ours.jsonl"
    grep -E "kernel" "$out/trace.tmp" | sed 's/\[trace *[0-9.]* ms\] *//' >> "$f"
    rm -f "$out/trace.tmp"
}
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    gpgpu-info | grep -E "^plan|default device"
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/device.txt" 2>&1
if has suites18; then
    stamp suites18
    (cd .gpu/tests && export top_builddir="$PWD" GPGPU_TEST_DEVICES=default && mkdir -p tests/.cache &&
     for t in test_scan test_histogram test_sort; do timeout 60 ./$t > "$out/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^[0-9]+%' "$out/$t.log")"; done;
     GPGPU_PTX=0 timeout 60 ./test_sort > "$out/test_sort_ptx0.log" 2>&1; echo "test_sort PTX=0 rc=$? $(grep -E '^[0-9]+%' "$out/test_sort_ptx0.log")") > "$out/suites18.txt" 2>&1
fi
if has suites5; then
    # the suites that the session's kernel changes touch, on the GPU
    stamp suites5
    (cd .gpu/tests && export top_builddir="$PWD" GPGPU_TEST_DEVICES=default && mkdir -p tests/.cache &&
     for t in test_select_ops test_userop test_segmented test_scan test_histogram test_sum_exact; do
         timeout 90 ./$t > "$out/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^[0-9]+%' "$out/$t.log" | tr '\n' ' ')"; done;
     GPGPU_SELECT_WARPS=0 timeout 90 ./test_select_ops > "$out/test_select_ops_w0.log" 2>&1
     echo "test_select_ops SELECT_WARPS=0 rc=$? $(grep -E '^[0-9]+%' "$out/test_select_ops_w0.log" | tr '\n' ' ')") > "$out/suites5.txt" 2>&1
fi
if has changed; then
    # the kernels changed after the first run, with native CUB beside them
    b --op reduce_by_key --type u32 --n $n --input seg8
    b --op reduce_by_key --type u32 --n $n --input seg256
    for op in unique run_length_encode partition select; do
        b --op $op --type u32 --n $n
        GPGPU_SELECT_WARPS=0 b --op $op --type u32 --n $n
    done
    b --op sum_exact --type f64 --n $n
    b --op sort --type u64 --n $n
    stamp cub_segmented
    [ -x .gpu/cub_segmented ] && timeout 90 .gpu/cub_segmented 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
    stamp cub_select
    [ -x .gpu/cub_select ] && timeout 90 .gpu/cub_select 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
    stamp "cub_issue18 (u64)"
    [ -x .gpu/cub_issue18 ] && timeout 90 .gpu/cub_issue18 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
fi
if has last; then
    stamp last
    (cd .gpu/tests && export top_builddir="$PWD" GPGPU_TEST_DEVICES=default && mkdir -p tests/.cache &&
     for t in test_segmented test_select_ops; do
         timeout 60 ./$t > "$out/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^[0-9]+%' "$out/$t.log" | tr '\n' ' ')"; done) > "$out/suites-last.txt" 2>&1
    for c in "--op reduce_by_key --input seg8" "--op reduce_by_key --input seg256" \
             "--op run_length_encode" "--op unique"; do
        traced "$out/profile-last.txt" $c
    done
    stamp cub_segmented
    [ -x .gpu/cub_segmented ] && timeout 40 .gpu/cub_segmented 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
    stamp cub_select
    [ -x .gpu/cub_select ] && timeout 40 .gpu/cub_select 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
fi
if has s6; then
    # session 6: the warp-per-unit reduce_by_key, the batched exact sum and
    # the _array forms, on the GPU (suites, then targets with CUB beside)
    stamp s6-suites
    (cd .gpu/tests && export top_builddir="$PWD" GPGPU_TEST_DEVICES=default && mkdir -p tests/.cache &&
     for t in test_segmented test_array_ops test_sum_exact test_select_ops test_reduce; do
         timeout 90 ./$t > "$out/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^[0-9]+%' "$out/$t.log" | tr '\n' ' ')"; done;
     GPGPU_PTX=0 timeout 90 ./test_segmented > "$out/test_segmented_ptx0.log" 2>&1
     echo "test_segmented PTX=0 rc=$? $(grep -E '^[0-9]+%' "$out/test_segmented_ptx0.log" | tr '\n' ' ')") > "$out/suites6.txt" 2>&1
    for c in "--op reduce_by_key --input seg8" "--op reduce_by_key --input seg256" \
             "--op sum_exact --type f32" "--op sum_exact --type f64"; do
        traced "$out/profile6.txt" $c
    done
    GPGPU_PTX=0 b --op reduce_by_key --type u32 --n $n --input seg8
    stamp cub_segmented
    [ -x .gpu/cub_segmented ] && timeout 40 .gpu/cub_segmented 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
    stamp cub_select
    [ -x .gpu/cub_select ] && timeout 40 .gpu/cub_select 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
fi
if has api6; then
    # the public calls users make: host memory and device arrays, each next
    # to its baseline in the same form (the notes give the ratios)
    for api in host array; do
        for c in "segmented_reduce --input seg4096" "reduce_by_key --input seg8" \
                 "reduce_by_key --input seg256" "argmin" "unique" "run_length_encode" \
                 "partition" "sum_exact --type f32" "sum_exact --type f64"; do
            stamp "$api $c"
            timeout 90 gpgpu-bench --json --repeat 5 --api $api --n $((1 << ${API_LG:-26})) --type u32 --op $c >> "$out/api.jsonl" 2>> "$out/err.txt" || echo "rc=$? $api $c" >> "$out/err.txt"
        done
        stamp "$api histogram_edges"
        timeout 90 gpgpu-bench --json --repeat 5 --api $api --n $((1 << ${API_LG:-26})) --op histogram_edges --type f32 --bins 256 >> "$out/api.jsonl" 2>> "$out/err.txt"
    done
fi
if has final6; then
    # session 6's last command: the suites its last kernel change touched
    stamp final6-suites
    (cd .gpu/tests && export top_builddir="$PWD" GPGPU_TEST_DEVICES=default && mkdir -p tests/.cache &&
     for t in test_sum_exact test_segmented test_array_ops; do
         timeout 90 ./$t > "$out/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^[0-9]+%' "$out/$t.log" | tr '\n' ' ')"; done) > "$out/suites-final6.txt" 2>&1
fi
if has tests; then
    stamp tests
    OUT=$out timeout ${TESTS_S:-240} sh .gpu/tests/run.sh > /dev/null 2>&1 || echo "tests cut: rc=$?" >> "$out/log.txt"
fi
if has seg; then
    # issue 16: 2^16 and 2^22 segments of equal length, runs of 8 and 256,
    # segmented sort of 2^16 segments, argmin
    b --op segmented_reduce --type u32 --n $n --input seg4096
    b --op segmented_reduce --type u32 --n $n --input seg64
    b --op reduce_by_key --type u32 --n $n --input seg8
    b --op reduce_by_key --type u32 --n $n --input seg256
    b --op segmented_sort --type u32 --n $n --input seg4096
    b --op argmin --type u32 --n $n
    stamp cub_segmented
    [ -x .gpu/cub_segmented ] && timeout 90 .gpu/cub_segmented 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
fi
if has select; then
    # issue 17: unique, run-length encode, partition, uneven-edge histogram,
    # exact sums (each beside GPGPU_SUM on the same data in its note)
    for op in unique run_length_encode partition; do
        b --op $op --type u32 --n $n
    done
    b --op histogram_edges --type f32 --n $n --bins 256
    b --op sum_exact --type f32 --n $n
    b --op sum_exact --type f64 --n $n
    stamp cub_select
    [ -x .gpu/cub_select ] && timeout 90 .gpu/cub_select 28 >> "$out/cub.jsonl" 2>> "$out/err.txt"
fi
if has sort; then
    b --op sort --type u32 --n $n
    b --op sort_pairs --type u32 --n $n
fi
if has sort64; then
    b --op sort --type u64 --n $n
fi
if has scan; then
    b --op scan --type u32 --input exclusive --n $n
    GPGPU_SCAN=single GPGPU_SCAN_SINGLE_MAX=$n GPGPU_SCAN_LB=2 b --op scan --type u32 --input exclusive --n $n
    GPGPU_SCAN=single GPGPU_SCAN_SINGLE_MAX=$n GPGPU_SCAN_LB=2 GPGPU_SCAN_TILE=8192 b --op scan --type u32 --input exclusive --n $n
fi
if has hist; then
    b --op histogram --type f32 --bins 256 --n $n
    b --op histogram --type u32 --bins 4096 --n $n
fi
if has small; then
    for lg in 16 20 22; do
        b --op scan --type u32 --n $((1 << lg))
        b --op scan --type u32 --input exclusive --n $((1 << lg))
        b --op sort --type u32 --n $((1 << lg))
    done
fi
if has cub; then
    stamp cub_issue18
    [ -x .gpu/cub_issue18 ] && timeout 120 .gpu/cub_issue18 ${CUB_LG:-20 28} >> "$out/cub.jsonl" 2> "$out/cub-device.txt"
fi
if has peers; then
    stamp peers
    timeout 120 python3 .gpu/cub_peers.py ${PEERS_LG:-20} > "$out/peers.jsonl" 2>&1
fi
if has probe64; then
    # 64-bit keys and f64 exact sums at growing n: where does the time go?
    for lg in 26 27; do
        b --op sort --type u64 --n $((1 << lg))
        b --op sum_exact --type f64 --n $((1 << lg))
    done
    stamp "probe64 profiles"
    GPGPU_PROFILE=1 timeout 40 gpgpu-bench --op sort --type u64 --n $((1 << 27)) --repeat 1 > /dev/null 2> "$out/profile64.txt"
    GPGPU_PROFILE=1 timeout 40 gpgpu-bench --op sum_exact --type f64 --n $((1 << 27)) --repeat 1 > /dev/null 2>> "$out/profile64.txt"
    stamp "probe64 2^28"
    GPGPU_PROFILE=1 timeout 40 gpgpu-bench --op sum_exact --type f64 --n $n --repeat 1 > "$out/f64-28.txt" 2>&1
    echo "rc=$?" >> "$out/f64-28.txt"
fi
if has trace64; then
    stamp trace64
    GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --op sum_exact --type f64 --n $n --repeat 5 --json >> "$out/ours.jsonl" 2> "$out/trace64.txt"
    echo "rc=$?" >> "$out/trace64.txt"
    stamp trace64 sort
    GPGPU_BENCH_TRACE=1 timeout 90 gpgpu-bench --op sort --type u64 --n $n --repeat 5 --json >> "$out/ours.jsonl" 2>> "$out/trace64.txt"
    echo "rc=$?" >> "$out/trace64.txt"
fi
if has profile16; then
    # per-kernel times of the last timed call (_buffer forms print no
    # GPGPU_PROFILE table): the targets that were missed
    stamp profile16
    for c in "reduce_by_key --input seg8" "reduce_by_key --input seg256" "unique" \
             "run_length_encode" "partition" "select" "segmented_sort --input seg4096"; do
        echo "== $c" >> "$out/profile16.txt"
        GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --op $c --type u32 --n $n --repeat 3 2>&1 > /dev/null | grep -E "kernel|: [0-9.]+ ms," >> "$out/profile16.txt"
    done
    for t in f32 f64; do
        echo "== sum_exact $t" >> "$out/profile16.txt"
        GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --op sum_exact --type $t --n $n --repeat 3 2>&1 > /dev/null | grep -E "kernel|: [0-9.]+ ms," >> "$out/profile16.txt"
    done
    echo "== scan exclusive" >> "$out/profile16.txt"
    GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --op scan --input exclusive --type u32 --n $n --repeat 3 2>&1 > /dev/null | grep -E "kernel|: [0-9.]+ ms," >> "$out/profile16.txt"
fi
if has profile; then
    stamp profile
    {
        GPGPU_PROFILE=1 gpgpu-bench --op sort --type u32 --n $n --repeat 1
        GPGPU_PROFILE=1 gpgpu-bench --op sort_pairs --type u32 --n $n --repeat 1
        GPGPU_PROFILE=1 gpgpu-bench --op scan --type u32 --input exclusive --n $n --repeat 1
    } > /dev/null 2> "$out/profile.txt"
fi
stamp done
# the device call brings back only a few files: everything in one archive
(cd "$out" && tar czf /tmp/results.tgz . && mv /tmp/results.tgz . && find . -type f ! -name results.tgz ! -name log.txt -delete)
