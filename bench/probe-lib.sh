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
