#!/bin/sh
# bench/gpu.sh - the GPU benchmarks on an NVIDIA machine, each with native
# CUB beside ours in the same command, in named parts:
#
#   PARTS="tests kernels segmented select" sh bench/gpu.sh     (the default)
#
# Run it from the project root with the library's tools on PATH (gpgpu-bench,
# gpgpu-info), e.g. after `source .gpu/env.sh` (docs/hacking.md says how to
# stage .gpu/). Native CUB comes from programs built once with nvcc into
# $CUB_DIR (default .gpu):
#   for p in cub_sort_scan_histogram cub_segmented cub_select; do
#       nvcc -O3 -arch=sm_90 -std=c++17 bench/$p.cu -o .gpu/$p; done
# A part whose CUB program is missing runs without it.
#
# Parts (ours: gpgpu-bench's _buffer forms timed by kernel events, median of
# 5 unless noted; CUB: CUDA events, median of 10; u32 and n = 2^28 unless
# noted):
#   tests      every test suite on the GPU, then the sort and host-memory
#              suites with GPGPU_PTX=0 (staged by bench/gpu-stage-tests.sh
#              into $TESTS_DIR, default .gpu/tests) -> tests.txt
#   kernels    sort (u32 keys, u32/u32 pairs, u64 keys), exclusive scan
#              (also the two-window look-back), histograms (f32 256 bins,
#              u32 4096 bins); scan and sort at 2^16, 2^20, 2^22; CUB's
#              sort, scan and histograms at 2^20 and 2^28 -> ours.jsonl, cub.jsonl
#   segmented  segmented reduce (2^16 and 2^22 segments), reduce_by_key (runs
#              of 8 and 256), segmented sort (2^16 segments), argmin; CUB's
#              segmented reduce, ReduceByKey, segmented sort, ArgMin
#   select     unique, run-length encode, partition, histogram over 256
#              uneven edges (f32), GPGPU_SUM_EXACT f32 and f64 (each note
#              holds GPGPU_SUM on the same data); CUB's Unique, Encode,
#              Partition::If, Select::If, HistogramRange
#   forms      the host calls (malloc'd arrays, wall clock) and _array forms
#              of the segmented, by-key, compaction, edges-histogram and
#              exact-sum calls at 2^26 ($FORMS_LG), each note holding its
#              baseline in the same form -> api.jsonl
#   host       every primitive as the _buffer form, the host call on malloc'd
#              memory and on gpgpu_host_alloc memory, at 2^28 (median of 7),
#              then each host call at n = 1000 (median of 101) -> host.jsonl;
#              bench/table_host.py makes the table
#   arrays     every primitive as the _array form next to its _buffer form
#              (median of 10), and the particle step of
#              tests/example_particles on arrays against host calls -> arrays.jsonl
#   peers      every primitive at 2^20, 2^24, 2^26, 2^28, then CUB through
#              CuPy and PyTorch (.gpu/cub_peers.py) at the same sizes, and
#              native CUB's reduce, scan, histogram and sorts at 2^28
#              (.gpu/cub_native.cu, built here with nvcc) -> sweep.jsonl,
#              peers.jsonl, cub-native.txt; bench/table_peers.py
#   variants   the plan's alternatives: scan single pass against multi-pass,
#              sort ranking by ballots or __local masks, sort tiles of 4096,
#              6144, 8192 keys (median of 10) -> variants.jsonl
#   science    search_sorted (2^24 needles in 2^24 sorted u32), argsort u32,
#              gather u32, top_k (k = 100), the median and 5 quantiles at
#              once of f32 (and of u32), histogram2d 256 x 256 and
#              histogram_weighted 256 bins of f32, beside our sort and
#              sort_pairs of the same n; then PyTorch and CuPy on the same
#              cases (.gpu/science_peers.py, staged by ../shared/gpu/prepare)
#              -> science.jsonl, science-peers.jsonl; top_k and the
#              quantiles again by the digit passes alone
#              (GPGPU_SELECT_SAMPLE=0) -> select-passes.jsonl
#   before     the installed library against an older install under $BEFORE
#              (configure --prefix=$PWD/.gpu/before at the older commit),
#              alternating twice: scan u32/f32 at 2^20, 2^24, 2^28 (and u32
#              with GPGPU_PTX=0), exact sums f32/f64, sort u32 and u64 and
#              sort_pairs u32 at 2^28 (median of 7)
#              -> before.jsonl, each line with "build": "before" or "after"
#   traces     per-kernel times of the last timed call (GPGPU_BENCH_TRACE=1)
#              of sort, scan, reduce_by_key, unique, run-length encode,
#              partition, select, segmented sort, exact sums -> profile.txt
#
# Every step is stamped with its start time in $OUT/log.txt, so a cut-off
# run still says what it reached; device.txt records the GPU, the driver,
# the plan, the commit and the time. bench/table_cub.py ours.jsonl cub.jsonl
# puts ours beside CUB. N_LG=k sets the large size to 2^k (default 28), for
# a trial run on a small device. PACK=1 packs $OUT into one results.tgz (for device
# calls that bring back only a few files).
set -u
out=${OUT:-.}
parts=${PARTS:-tests kernels segmented select}
cub_dir=${CUB_DIR:-.gpu}
tests_dir=${TESTS_DIR:-.gpu/tests}
n=$((1 << ${N_LG:-28}))
t0=$(date +%s)
stamp() { echo "$(( $(date +%s) - t0 ))s $*" >> "$out/log.txt"; }
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
# bf FILE REPEAT ARGS: one gpgpu-bench case, median of REPEAT, into FILE
bf() {
    f=$1; r=$2; shift 2
    stamp "bench $*"
    timeout 120 gpgpu-bench --json --repeat "$r" "$@" >> "$out/$f" 2>> "$out/err.txt" ||
        echo "rc=$? $*" >> "$out/err.txt"
}
# b ARGS: one case, median of 5, into ours.jsonl
b() { bf ours.jsonl 5 "$@"; }
# cub PROGRAM ARGS: a native CUB program's JSON lines into cub.jsonl
cub() {
    p=$1; shift
    stamp "$p $*"
    if [ -x "$cub_dir/$p" ]; then
        timeout 120 "$cub_dir/$p" "$@" >> "$out/cub.jsonl" 2>> "$out/cub-device.txt"
    else
        echo "$cub_dir/$p missing: no native CUB for this part" >> "$out/err.txt"
    fi
}
# traced ARGS: one case (u32 unless ARGS say), the kernels of its last
# timed call appended to profile.txt
traced() {
    stamp "trace $*"
    echo "== $*" >> "$out/profile.txt"
    GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --type u32 "$@" --n $n --repeat 3 2>&1 > /dev/null |
        grep -E "kernel|: [0-9.]+ ms," | sed 's/\[trace *[0-9.]* ms\] *//' >> "$out/profile.txt"
}
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    gpgpu-info | grep -E "^plan|default device"
    nproc
    git log -1 --format='commit %h' 2>/dev/null
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/device.txt" 2>&1

if has tests; then
    stamp tests
    OUT=$out timeout ${TESTS_S:-240} sh "$tests_dir/run.sh" > /dev/null 2>&1 || echo "tests cut: rc=$?" >> "$out/log.txt"
fi
if has kernels; then
    b --op sort --type u32 --n $n
    b --op sort_pairs --type u32 --n $n
    b --op sort --type u64 --n $n
    b --op scan --type u32 --input exclusive --n $n
    GPGPU_SCAN=single GPGPU_SCAN_SINGLE_MAX=$n GPGPU_SCAN_LB=2 b --op scan --type u32 --input exclusive --n $n
    b --op histogram --type f32 --bins 256 --n $n
    b --op histogram --type u32 --bins 4096 --n $n
    for lg in 16 20 22; do
        b --op scan --type u32 --n $((1 << lg))
        b --op scan --type u32 --input exclusive --n $((1 << lg))
        b --op sort --type u32 --n $((1 << lg))
    done
    cub cub_sort_scan_histogram ${CUB_LG:-20 28}
fi
if has segmented; then
    b --op segmented_reduce --type u32 --n $n --input seg4096
    b --op segmented_reduce --type u32 --n $n --input seg64
    b --op reduce_by_key --type u32 --n $n --input seg8
    b --op reduce_by_key --type u32 --n $n --input seg256
    b --op segmented_sort --type u32 --n $n --input seg4096
    b --op argmin --type u32 --n $n
    cub cub_segmented ${N_LG:-28}
fi
if has select; then
    for op in unique run_length_encode partition select; do
        b --op $op --type u32 --n $n
    done
    b --op histogram_edges --type f32 --n $n --bins 256
    b --op sum_exact --type f32 --n $n
    b --op sum_exact --type f64 --n $n
    cub cub_select ${N_LG:-28}
fi
if has forms; then
    for api in host array; do
        for c in "segmented_reduce --input seg4096" "reduce_by_key --input seg8" \
                 "reduce_by_key --input seg256" "argmin" "unique" "run_length_encode" \
                 "partition" "sum_exact --type f32" "sum_exact --type f64"; do
            bf api.jsonl 5 --api $api --n $((1 << ${FORMS_LG:-26})) --type u32 --op $c
        done
        bf api.jsonl 5 --api $api --n $((1 << ${FORMS_LG:-26})) --op histogram_edges --type f32 --bins 256
    done
fi
if has host; then
    for op in reduce histogram scan sort sort_pairs; do
        bf host.jsonl 7 --op $op --type u32 --n $n --api buffer
        bf host.jsonl 7 --op $op --type u32 --n $n --api host
        bf host.jsonl 7 --op $op --type u32 --n $n --api host --pinned
    done
    GPGPU_HOST_READS=0 bf host.jsonl 7 --op reduce --type u32 --n $n --api host
    bf host.jsonl 7 --op reduce --type f32 --n $n --api host
    bf host.jsonl 7 --op reduce --type f32 --n $n --api host --pinned
    for op in reduce histogram scan sort sort_pairs select transform_reduce; do
        bf host.jsonl 101 --op $op --type u32 --n 1000 --api host
    done
fi
if has arrays; then
    for op in reduce scan sort sort_pairs histogram transform_reduce select; do
        bf arrays.jsonl 10 --op $op --type u32 --n $n --api buffer
        bf arrays.jsonl 10 --op $op --type u32 --n $n --api array
    done
    stamp particles
    timeout 120 "$tests_dir/example_particles" --n 67108864 > "$out/particles.txt" 2>&1
fi
if has peers; then
    for lg in 20 24 26 28; do
        for t in u32 f32; do
            for op in reduce scan sort sort_pairs; do
                bf sweep.jsonl 5 --op $op --type $t --n $((1 << lg))
            done
        done
        bf sweep.jsonl 5 --op scan --type u32 --input exclusive --n $((1 << lg))
        bf sweep.jsonl 5 --op histogram --type f32 --bins 256 --n $((1 << lg))
        bf sweep.jsonl 5 --op histogram --type u32 --bins 4096 --n $((1 << lg))
    done
    bf sweep.jsonl 5 --op sort --type u32 --input sorted --n $n
    bf sweep.jsonl 5 --op sort --type u32 --input narrow16 --n $n
    stamp peers
    timeout 300 python3 .gpu/cub_peers.py ${PEERS_LG:-20 24 26 28} > "$out/peers.jsonl" 2>&1
    stamp cub_native
    nvcc -O3 -arch=sm_90 -std=c++17 .gpu/cub_native.cu -o /tmp/cub_native 2>> "$out/err.txt" &&
        timeout 120 /tmp/cub_native 28 > "$out/cub-native.txt" 2>&1
fi
if has variants; then
    for lg in 16 20 24 28; do
        bf variants.jsonl 10 --op scan --type u32 --n $((1 << lg))
        GPGPU_SCAN=multipass bf variants.jsonl 10 --op scan --type u32 --n $((1 << lg))
        bf variants.jsonl 10 --op sort --type u32 --n $((1 << lg))
        GPGPU_SORT_MATCH=0 bf variants.jsonl 10 --op sort --type u32 --n $((1 << lg))
    done
    GPGPU_SCAN=single GPGPU_SCAN_SINGLE_MAX=$n GPGPU_SCAN_LB=2 GPGPU_SCAN_TILE=8192 \
        bf variants.jsonl 5 --op scan --type u32 --input exclusive --n $n
    for tile in 4096 6144 8192; do
        for m in 0 1; do
            GPGPU_SORT_TILE=$tile GPGPU_SORT_MATCH=$m bf variants.jsonl 10 --op sort --type u32 --n $n
            GPGPU_SORT_TILE=$tile GPGPU_SORT_MATCH=$m bf variants.jsonl 10 --op sort_pairs --type u32 --n $n
        done
    done
fi
if has science; then
    bf science.jsonl 5 --op search_sorted --type u32 --n $((1 << 24))
    for op in argsort gather sort_pairs; do
        bf science.jsonl 5 --op $op --type u32 --n $n
    done
    for op in top_k quantiles histogram2d histogram_weighted sort; do
        bf science.jsonl 5 --op $op --type f32 --n $n
    done
    bf science.jsonl 5 --op quantiles --bins 5 --type f32 --n $n
    for op in top_k quantiles; do
        bf science.jsonl 5 --op $op --type u32 --n $n
    done
    for t in f32 u32; do
        for sel in "--op top_k" "--op quantiles" "--op quantiles --bins 5"; do
            # shellcheck disable=SC2086
            GPGPU_SELECT_SAMPLE=0 bf select-passes.jsonl 5 $sel --type $t --n $n
        done
    done
    stamp science_peers
    timeout 300 python3 .gpu/science_peers.py ${N_LG:-28} > "$out/science-peers.jsonl" 2>> "$out/err.txt"
fi
if has before; then
    before=${BEFORE:-.gpu/before}
    # ba LABEL PREFIX ARGS: one case with the library under PREFIX
    ba() {
        lab=$1; pre=$2; shift 2
        stamp "$lab $*"
        LD_LIBRARY_PATH="$pre/lib:${LD_LIBRARY_PATH:-}" timeout 60 "$pre/bin/gpgpu-bench" --json \
            --repeat 7 "$@" 2>> "$out/err.txt" | sed "s/^{/{\"build\":\"$lab\",/" >> "$out/before.jsonl"
    }
    after=$(dirname "$(dirname "$(command -v gpgpu-bench)")")
    for round in $(seq "${BEFORE_ROUNDS:-2}"); do
        for lab in before after; do
            pre=$before
            [ $lab = after ] && pre=$after
            for lg in 20 24 28; do
                ba $lab "$pre" --op scan --type u32 --n $((1 << lg))
                ba $lab "$pre" --op scan --type f32 --n $((1 << lg))
            done
            ba $lab "$pre" --op sum_exact --type f64 --n $n
            ba $lab "$pre" --op sum_exact --type f32 --n $n
            ba $lab "$pre" --op sort --type u32 --n $n
            ba $lab "$pre" --op sort_pairs --type u32 --n $n
            ba $lab "$pre" --op sort --type u64 --n $n
            GPGPU_PTX=0 ba $lab-ptx0 "$pre" --op scan --type u32 --n $n
        done
    done
    cub cub_sort_scan_histogram 28
fi
if has traces; then
    for c in "--op sort" "--op sort_pairs" "--op scan --input exclusive" \
             "--op reduce_by_key --input seg8" "--op reduce_by_key --input seg256" \
             "--op unique" "--op run_length_encode" "--op partition" "--op select" \
             "--op segmented_sort --input seg4096" "--op sum_exact --type f32" \
             "--op sum_exact --type f64"; do
        # shellcheck disable=SC2086
        traced $c
    done
fi
stamp done
if [ "${PACK:-0}" = 1 ]; then
    (cd "$out" && tar czf /tmp/results.tgz . && mv /tmp/results.tgz . &&
        find . -type f ! -name results.tgz ! -name log.txt -delete)
fi
