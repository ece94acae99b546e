#!/bin/sh
# libgpgpu-mpi's scaling benchmark on GPU machines that reach
# no package registry. From the project root:
#
#   On the CPU machine:  sh bench/mpi.sh --stage
#       runs ../shared/gpu/prepare (OpenCL ICD loader, clinfo, .gpu/env.sh),
#       downloads the Open MPI runtime .debs into .gpu/ompi-debs/, and
#       builds this checkout with MPI into .gpu/install (with the MPI test
#       program as .gpu/install/libexec/test_mpi). Carry .gpu along.
#   On the GPU machine:  source .gpu/env.sh; sh bench/mpi.sh
#       unpacks Open MPI into /tmp/ompi and runs the parts named in PARTS
#       (default: all of them, in this order, each while time is left):
#       gpus    gpgpu-mpi-bench, weak (2^26 elements per rank) and strong
#               (2^28 in all) scaling, every primitive at 1, 2 and 4 ranks
#               (no more ranks than GPUs), one GPU a rank
#               (GPGPU_DEVICE=gpu:local), sorts with their steps
#               (--phases), and every primitive again on device arrays
#               (--arrays: reduce_array, scan_array, histogram_array,
#               sort_array, sort_pairs_array) with, for weak scaling, the
#               device sort's model (--model: the rates of its steps, each
#               measured with every rank at once); then where sort_pairs' time
#               goes at the most ranks (profile.txt)
#       numa    the weak case at the most ranks again, each rank bound to a
#               NUMA node (when there are several), host and device arrays
#       shared  2 ranks on one GPU (GPGPU_DEVICE=gpu), sort and sort_pairs
#               with their steps and the weak efficiency against rank 0
#               alone on that GPU (--efficiency)
#       host    the host fallback: its sort of 2^26 u32 on 1 thread and on
#               all cores (gpgpu-bench), then host ranks at 1, 2 and 4
#               (the cores shared among them, GPGPU_THREADS): sorts with
#               their steps, then reduce, scan and histogram
#       tests   the MPI test suite's checks at each rank count, and with a
#               fault injected into rank 1
#       Writes mpi.jsonl, mpi.md (bench/table_mpi.py), profile.txt,
#       numa.txt, shared.txt, host.txt, device.txt and tests.txt to $OUT (else
#       bench/results/<date>-mpi). Open MPI's cross-process single copy
#       (CMA) is used when a 2-rank trial shows that the machine allows
#       it; device.txt says which.
#
# Knobs (environment): PARTS ("gpus numa shared host tests"), GPGPU_DEVICE
# (gpu:local), RANKS ("1 2 4", cut to the device count), WEAK_N (2^26),
# STRONG_N (2^28), REPEAT (5), HOST_SORT_N (2^26) and HOST_N (2^24 a rank)
# for the host part, BUDGET_S (400: later parts give way after it),
# OMPI_DEBS (.gpu/ompi-debs). On a CPU machine with PoCL, for a trial
# of the run:
#   GPGPU_DEVICE=cpu RANKS="1 2" WEAK_N=1048576 STRONG_N=2097152 \
#       PATH=$PWD/.gpu/install/bin:$PATH LD_LIBRARY_PATH=$PWD/.gpu/install/lib \
#       sh bench/mpi.sh
set -u
debs=${OMPI_DEBS:-.gpu/ompi-debs}
# Open MPI 4.1 and what it loads, as Debian 12 packages it (amd64);
# libsubunit0 is the Check test framework's, for test_mpi.
pkgs="openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7
libevent-pthreads-2.1-7 libfabric1 libucx0 libibverbs1 librdmacm1 libpsm2-2 libpsm-infinipath1
libnl-3-200 libnl-route-3-200 libmunge2 libxnvctrl0 libltdl7 libnuma1 libudev1 libsubunit0"

stage() {
    set -e
    root=$(git rev-parse --show-toplevel)
    cd "$root"
    "${PREPARE:-$root/../shared/gpu/prepare}"
    mkdir -p "$debs"
    if ! ls "$debs"/openmpi-bin_*.deb >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        (cd "$debs" && apt-get download $pkgs)
    fi
    # A private copy of the working tree (uncommitted changes included),
    # built with MPI and installed into .gpu/install.
    src=$(mktemp -d /tmp/gpgpu-mpi-stage.XXXXXX)
    git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src"
    rm -rf .gpu/install
    (cd "$src" && autoreconf -fi >/dev/null 2>&1 &&
        ./configure --quiet --with-mpi --prefix="$root/.gpu/install" &&
        make -j"$(nproc)" --quiet install && make --quiet tests/test_mpi) >/dev/null
    mkdir -p .gpu/install/libexec
    cp "$src/tests/.libs/test_mpi" .gpu/install/libexec/test_mpi
    rm -rf "$src" .gpu/install/lib/*.a .gpu/install/lib/*.la
    du -sh .gpu
}

[ "${1:-}" = "--stage" ] && { stage; exit $?; }
[ $# -eq 0 ] || { echo "usage: sh bench/mpi.sh [--stage]" >&2; exit 2; }

start=$(date +%s)
out=${OUT:-bench/results/$(date -u +%Y-%m-%d)-mpi}
mkdir -p "$out"

# shellcheck source=bench/ompi-env.sh
. "$(dirname "$0")/ompi-env.sh"
# Root in containers; no cross-process memory copy there either.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
GPGPU_DEVICE=${GPGPU_DEVICE:-gpu:local}
parts=${PARTS:-gpus numa shared host tests}
want() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
export PATH LD_LIBRARY_PATH OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_DEVICE

# As many ranks as devices of the kind asked for, one each.
ndev=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$ndev" -eq 0 ]; then
    case $GPGPU_DEVICE in
    gpu*) kind=GPU ;;
    *) kind=. ;;
    esac
    ndev=$(clinfo -l 2>/dev/null | grep -c "Device #")
    [ "$kind" = GPU ] && ndev=$(clinfo 2>/dev/null | grep -c "Device Type.*GPU")
fi
[ "$ndev" -gt 0 ] || ndev=1
# (Ranks that share one device, as with GPGPU_DEVICE=cpu, are not cut.)
ranks=""
for p in ${RANKS:-1 2 4}; do
    case $GPGPU_DEVICE in
    *local) [ "$p" -le "$ndev" ] && ranks="$ranks $p" ;;
    *) ranks="$ranks $p" ;;
    esac
done
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    orterun --version 2>/dev/null | head -n 1
    echo "devices: $ndev; ranks:$ranks; GPGPU_DEVICE=$GPGPU_DEVICE"
    git log -1 --format='commit %h %s' 2>/dev/null
    date -u +%Y-%m-%dT%H:%MZ
    lscpu 2>/dev/null | grep -E "^Model name|^Socket|^NUMA"
    nvidia-smi topo -m 2>/dev/null
} > "$out/device.txt" 2>&1
cat "$out/device.txt"

# Each rank its own libgpgpu and PoCL caches (PoCL's is not safe against
# several processes filling it at once).
# shellcheck disable=SC2016
per_rank='r=$OMPI_COMM_WORLD_RANK
POCL_CACHE_DIR=/tmp/gpgpu-mpi-cache/pocl$r GPGPU_CACHE_DIR=/tmp/gpgpu-mpi-cache/gpgpu$r
mkdir -p "$POCL_CACHE_DIR" "$GPGPU_CACHE_DIR"; chmod 700 "$GPGPU_CACHE_DIR"
export POCL_CACHE_DIR GPGPU_CACHE_DIR
exec "$@"'
launch() {
    np=$1
    shift
    # shellcheck disable=SC2086
    timeout -k 5 "$limit" orterun -np "$np" ${bind:---bind-to none} --oversubscribe \
        sh -c "$per_rank" sh "$@"
}
status=0

# Open MPI's shared-memory transport copies large messages once across
# processes (CMA) where the container allows it, else twice through shared
# buffers: a 2-rank trial with CMA decides.
limit=60
OMPI_MCA_btl_vader_single_copy_mechanism=cma
if ! (GPGPU_DEVICE=host; export GPGPU_DEVICE
    launch 2 gpgpu-mpi-bench --op sort --n 1048576 --repeat 1 >/dev/null 2>&1); then
    OMPI_MCA_btl_vader_single_copy_mechanism=none
fi
echo "vader single copy: $OMPI_MCA_btl_vader_single_copy_mechanism" | tee -a "$out/device.txt"

# Within BUDGET_S, so that the run fits a 10-minute device call: later
# parts give way.
: > "$out/tests.txt"
in_time() {
    [ $(($(date +%s) - start)) -lt "${BUDGET_S:-400}" ] && return 0
    echo "== skipped (out of time): $1" | tee -a "$out/tests.txt"
    status=1
    return 1
}

: > "$out/mpi.jsonl"
limit=150
want gpus && for scaling in weak strong; do
    for p in $ranks; do
        if [ $scaling = weak ]; then
            args="--n ${WEAK_N:-67108864}"
        else
            args="--n ${STRONG_N:-268435456} --strong"
        fi
        in_time "gpus: $scaling scaling, $p rank(s)" || continue
        echo "== $scaling scaling, $p rank(s)"
        # shellcheck disable=SC2086
        launch "$p" gpgpu-mpi-bench $args --repeat "${REPEAT:-5}" --phases --json 2>/dev/null |
            tee -a "$out/mpi.jsonl" || status=1
        # every primitive again on device arrays (rows reduce_array, scan_array,
        # histogram_array, sort_array, sort_pairs_array); weak: with the
        # device sort's model (the rates of its steps, measured first)
        model=""
        [ $scaling = weak ] && model=--model
        # shellcheck disable=SC2086
        launch "$p" gpgpu-mpi-bench $args --arrays $model --repeat "${REPEAT:-5}" --phases \
            --json 2>/dev/null | tee -a "$out/mpi.jsonl" || status=1
    done
done
if want gpus; then
    python3 "$(dirname "$0")/table_mpi.py" "$out/mpi.jsonl" > "$out/mpi.md" || status=1
    cat "$out/mpi.md"
fi

# The weak case at the top rank count again with each rank bound to a
# NUMA node, as many ranks on each node, in rank order (so that local
# ranks 0 .. r-1, which take GPUs 0 .. r-1, sit on the first node, which
# on the usual two-socket GPU machine holds the first GPUs), and the cores
# shared among the ranks: host memory is then read by the node it is on.
nnuma=$(lscpu 2>/dev/null | awk -F: '/^NUMA node\(s\)/ {print $2 + 0}')
top=$(echo $ranks | awk '{print $NF}')
if want numa && [ "${nnuma:-1}" -ge 2 ] && [ "$top" -ge "$nnuma" ] && in_time "numa"; then
    echo "== weak scaling, $top ranks, bound: --map-by ppr:$((top / nnuma)):numa --bind-to numa" |
        tee "$out/numa.txt"
    for arrays in "" --arrays; do
        # shellcheck disable=SC2086
        (bind="--map-by ppr:$((top / nnuma)):numa --bind-to numa"
            GPGPU_THREADS=$(($(nproc) / top)); export GPGPU_THREADS
            launch "$top" gpgpu-mpi-bench --n "${WEAK_N:-67108864}" $arrays --repeat "${REPEAT:-5}" \
                --phases 2>/dev/null) | tee -a "$out/numa.txt" || status=1
    done
fi

# Where a distributed sort's time goes (GPGPU_MPI_PROFILE=1: each rank's
# steps), at the top rank count, as shipped and with Open MPI's shared-memory
# segments in /tmp instead of /dev/shm (small in containers).
top=$(echo $ranks | awk '{print $NF}')
if want gpus && [ "$top" -gt 1 ] && in_time "profile"; then
    for vader in default /tmp; do
        echo "== sort_pairs, weak, $top ranks, vader backing: $vader" >> "$out/profile.txt"
        if [ $vader = default ]; then
            GPGPU_MPI_PROFILE=1 launch "$top" gpgpu-mpi-bench --op sort_pairs --n ${WEAK_N:-67108864} --repeat 2 >> "$out/profile.txt" 2>&1
        else
            OMPI_MCA_btl_vader_backing_directory=/tmp GPGPU_MPI_PROFILE=1 launch "$top" gpgpu-mpi-bench --op sort_pairs --n ${WEAK_N:-67108864} --repeat 2 >> "$out/profile.txt" 2>&1
        fi
    done
    grep -E "gpgpu-mpi: sort|ms|==" "$out/profile.txt" | grep -v pmix | tail -20
fi

# Two ranks sharing one GPU: what the exchange costs, scaling aside.
shared=${GPGPU_DEVICE%:local}
[ "$shared" = local ] && shared=gpu
if want shared && in_time "shared"; then
    echo "== 2 ranks on one device (GPGPU_DEVICE=$shared)" | tee "$out/shared.txt"
    for op in sort sort_pairs; do
        (GPGPU_DEVICE=$shared; export GPGPU_DEVICE
            launch 2 gpgpu-mpi-bench --op $op --n "${WEAK_N:-67108864}" \
                --repeat "${REPEAT:-5}" --phases --efficiency 2>/dev/null) |
            tee -a "$out/shared.txt" || status=1
    done
fi

# The host fallback: its sort on one thread and on all cores, then host
# ranks sharing the cores.
if want host && in_time "host"; then
    cores=$(nproc)
    : > "$out/host.txt"
    for th in 1 "$cores"; do
        echo "== gpgpu-bench --device host --op sort, ${HOST_SORT_N:-67108864} u32, GPGPU_THREADS=$th" |
            tee -a "$out/host.txt"
        GPGPU_THREADS=$th timeout 150 gpgpu-bench --device host --api host --op sort \
            --type u32 --n "${HOST_SORT_N:-67108864}" --repeat 3 2>&1 | tail -n 1 |
            tee -a "$out/host.txt"
    done
    for p in 1 2 4; do
        in_time "host ranks: $p" || continue
        echo "== host ranks: $p, GPGPU_THREADS=$(( cores / p > 0 ? cores / p : 1 )), ${HOST_N:-16777216} per rank" |
            tee -a "$out/host.txt"
        th=$((cores / p))
        [ "$th" -ge 1 ] || th=1
        (GPGPU_DEVICE=host GPGPU_THREADS=$th; export GPGPU_DEVICE GPGPU_THREADS
            launch "$p" gpgpu-mpi-bench --op sort --n "${HOST_N:-16777216}" --repeat 3 --phases \
                --efficiency 2>/dev/null
            for op in reduce scan histogram; do
                launch "$p" gpgpu-mpi-bench --op $op --n "${HOST_N:-16777216}" --repeat 3 \
                    --efficiency 2>/dev/null | grep -v "^op"
            done) | tee -a "$out/host.txt" || status=1
    done
fi
want tests || { echo "bench/mpi.sh: status $status, $(($(date +%s) - start)) s, results in $out"; exit $status; }

# The MPI suite's checks (tests/mpi.sh) with each rank on its own device.
TEST_MPI=$(dirname "$(command -v gpgpu-mpi-bench)")/../libexec/test_mpi
# A "<kind>:local" device becomes, for the test's plain contexts, the
# (local rank mod count)-th device gpgpu-info lists (on the GPU machines all
# of them are GPUs).
specs=$(gpgpu-info 2>/dev/null | awk '$1 == "device" && $2 ~ /^[0-9]+:[0-9]+$/ {print $2}' | tr '\n' ' ')
# shellcheck disable=SC2016
device_per_rank='l=$OMPI_COMM_WORLD_LOCAL_RANK
case $GPGPU_DEVICE in
*:local|local) set -- $0 "$@"; shift $((l % $#)); GPGPU_DEVICE=$1 ;;
esac
GPGPU_TEST_DEVICES="$GPGPU_DEVICE,host"; export GPGPU_DEVICE GPGPU_TEST_DEVICES
if [ "$OMPI_COMM_WORLD_RANK" = 1 ] && [ -n "${FAULT_RANK1:-}" ]; then
    GPGPU_FAULT_AT=$FAULT_RANK1; export GPGPU_FAULT_AT; fi
exec "$TEST_MPI" ${TEST_ARG:-}'
export TEST_MPI
limit=240
for p in $ranks; do
    in_time "test_mpi at $p ranks" || continue
    echo "== orterun -np $p test_mpi" | tee -a "$out/tests.txt"
    launch "$p" sh -c "$device_per_rank" "${specs:-0:0}" \
        >> "$out/tests.txt" 2>&1 || { status=1; echo "FAILED" | tee -a "$out/tests.txt"; }
done
top=${ranks##* }
if [ "$top" -ge 2 ]; then
    for at in 5 30 60; do
        in_time "faults at point $at" || continue
        echo "== orterun -np $top test_mpi faults, rank 1 failing at point $at" |
            tee -a "$out/tests.txt"
        FAULT_RANK1=$at TEST_ARG=faults launch "$top" sh -c "$device_per_rank" "${specs:-0:0}" \
            >> "$out/tests.txt" 2>&1 ||
            { status=1; echo "FAILED" | tee -a "$out/tests.txt"; }
    done
fi
grep -E "^[0-9]+%: Checks|^faults:|FAILED" "$out/tests.txt" | sort | uniq -c
echo "bench/mpi.sh: status $status, $(($(date +%s) - start)) s, results in $out"
exit $status
