# Sourced by the one-GPU probes (bench/*-probe.sh) on the GPU machine.
# probe_device FILE: the date, the GPU, its driver and the library's plan.
probe_device() {
    (date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
     gpgpu-info 2>&1 | head -30) > "$1"
}
# probe_tests FILE TEST...: the staged suites (bench/gpu-stage-tests.sh) on
# the GPU, each under a time limit, their output and status into FILE.
probe_tests() {
    case $1 in
    /*) f=$1 ;;
    *) f=$PWD/$1 ;; # the suites run from .gpu/tests
    esac
    shift
    (
        cd .gpu/tests || exit 1
        export top_builddir="$PWD" GPGPU_TEST_DEVICES=default
        mkdir -p tests/.cache
        for t in "$@"; do
            timeout 300 "./$t" >> "$f" 2>&1
            echo "$t rc=$?" >> "$f"
        done
    )
}
# probe_cub_start DIR: native CUB's sort, scan and histogram program
# (bench/cub_sort_scan_histogram.cu) built in the background, nvcc's
# messages to DIR/nvcc.txt; probe_cub_run DIR LG...: waits for it, then
# runs it at n = 2^LG each, its lines to DIR/cub.jsonl.
probe_cub_start() {
    (nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_sort_scan_histogram.cu -o /tmp/cub \
        > "$1/nvcc.txt" 2>&1) &
    probe_cub_pid=$!
}
probe_cub_run() {
    cub_dir=$1
    shift
    wait "$probe_cub_pid"
    /tmp/cub "$@" > "$cub_dir/cub.jsonl" 2>&1
}
# probe_start DIR: DIR made, the device described in DIR/device.txt and
# CUB's program started building (what every probe beside CUB does first).
probe_start() {
    mkdir -p "$1"
    probe_device "$1/device.txt"
    probe_cub_start "$1"
}
# probe_row DIR ENV ARG...: gpgpu-bench --json --repeat 10 --api buffer ARG...
# under the settings ENV (VAR=value words), its line to DIR/ours.jsonl with
# "env" first, its messages to DIR/err.txt.
probe_row() {
    row_dir=$1
    row_env=$2
    shift 2
    # shellcheck disable=SC2086
    env $row_env gpgpu-bench --json --repeat 10 --api buffer "$@" 2>> "$row_dir/err.txt" |
        sed "s|^{|{\"env\": \"$row_env\", |" >> "$row_dir/ours.jsonl"
}
