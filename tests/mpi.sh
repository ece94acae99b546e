#!/bin/sh
# Runs tests/test_mpi under mpirun with 1, 2, 3 and 4 ranks (oversubscribed:
# CI has 2 cores), then with a fault injected into one rank's library.
# Each rank gets its own PoCL and gpgpu caches (PoCL's is not safe against
# several processes updating it at once). Rank 0's PoCL cache starts from
# what the other tests compiled (tests/pocl-cache.sh); after the 1-rank run
# it shares what it compiled with them, and seeds the other ranks' caches
# (with whatever the other tests added meanwhile), as rank 0's gpgpu cache
# seeds theirs: each kernel compiles cold only once. What the ranks compile
# later is shared at the end.
set -u
builddir=${top_builddir:-.}
prog="$builddir/tests/test_mpi"
cache=${POCL_CACHE_DIR:-$builddir/tests/.cache/mpi/pocl}
gcache=${GPGPU_CACHE_DIR:-$builddir/tests/.cache/mpi/gpgpu}
pocl_cache_sh="${top_srcdir:-$(dirname "$0")/..}/tests/pocl-cache.sh"
pocl_cache() { ${SHELL:-/bin/sh} "$pocl_cache_sh" "$@"; }

# CI runs as root; containers often forbid the cross-process memory copy
# that Open MPI's shared-memory transport tries first.
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
# Ranks outnumber the cores here (and make check runs other suites beside
# them): a rank waiting on a message yields its core rather than polling.
# Beside stress --cpu 2, the whole script took 188 s so, 222 s polling.
OMPI_MCA_mpi_yield_when_idle=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism
export OMPI_MCA_mpi_yield_when_idle

# Per-rank environment: caches, and GPGPU_FAULT_AT on rank 1 when FAULT_RANK1 is set.
# shellcheck disable=SC2016
per_rank='r=$OMPI_COMM_WORLD_RANK
POCL_CACHE_DIR="$0/rank$r"; GPGPU_CACHE_DIR="$1/rank$r"
mkdir -p "$POCL_CACHE_DIR" "$GPGPU_CACHE_DIR"; chmod 700 "$GPGPU_CACHE_DIR"
export POCL_CACHE_DIR GPGPU_CACHE_DIR
if [ "$r" = 1 ] && [ -n "${FAULT_RANK1:-}" ]; then GPGPU_FAULT_AT=$FAULT_RANK1; export GPGPU_FAULT_AT; fi
shift; exec "$@"'

# A hang must fail the test, not the CI job; the limit only catches hangs,
# so it is far above what a run takes on a loaded 2-core machine. The
# 1-rank run compiles every kernel cold: 120 s there with 6 other jobs
# running (the old limit was 120 s, and a run it killed left no message);
# under the sanitizers, whose exact leak stacks make every malloc of PoCL's
# compiler unwind its stack, 611 s.
limit=900
[ -z "${SANITIZE_FLAGS:-}" ] || limit=2400

# Under the sanitizers, leak stacks are unwound exactly here (run-test.sh
# keeps ASan's fast unwinder elsewhere): Open MPI is built without frame
# pointers, so the fast unwinder gives its start-up allocations bogus
# frames that tests/lsan.supp cannot match (24 such "leaks" in one run).
if [ -n "${SANITIZE_FLAGS:-}" ]; then
    ASAN_OPTIONS="fast_unwind_on_malloc=0:${ASAN_OPTIONS:-detect_leaks=1}"
    export ASAN_OPTIONS
fi

# Runs test_mpi on np ranks; any failure says which run failed and how.
run() {
    np=$1; shift
    start=$(date +%s)
    timeout -k 10 "$limit" mpirun -np "$np" --oversubscribe --bind-to none \
        sh -c "$per_rank" "$cache" "$gcache" "$prog" "$@"
    rc=$?
    took=$(( $(date +%s) - start ))
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "mpi.sh: TIMEOUT: mpirun -np $np tests/test_mpi${*:+ $*} was killed after $limit s" >&2
    elif [ "$rc" != 0 ]; then
        echo "mpi.sh: mpirun -np $np tests/test_mpi${*:+ $*} exited $rc after $took s" >&2
    else
        echo "mpi.sh: mpirun -np $np tests/test_mpi${*:+ $*} passed in $took s"
    fi
    return "$rc"
}

status=0
seeded0=$(pocl_cache seed "$cache/rank0")
for np in 1 2 3 4; do
    # From 3 ranks on, the sort's partition and reads run on 3 threads.
    # At 2, the sorts of host arrays take the device path too, which they
    # take by default on GPUs only (the _array forms take it on PoCL).
    # The sort's exchanges read the peers' memory where they can (test_mpi
    # then requires it, and tests MPI and the fallback in one case of its
    # own); the 3-rank run takes MPI throughout instead, at no extra time.
    # The 4-rank run keeps no memory between calls (GPGPU_MPI_KEEP=0): each
    # call allocates and frees its host buffers, pinned ones on the device
    # path (the _array forms), which the other runs keep.
    if [ "$np" = 3 ]; then
        echo "== mpirun -np $np tests/test_mpi, exchanges over MPI (GPGPU_MPI_CMA=0)"
        GPGPU_MPI_CMA=0 GPGPU_MPI_THREADS=3 run "$np" || status=1
    elif [ "$np" = 4 ]; then
        echo "== mpirun -np $np tests/test_mpi, no memory kept (GPGPU_MPI_KEEP=0)"
        GPGPU_MPI_KEEP=0 GPGPU_MPI_THREADS=3 run "$np" || status=1
    elif [ "$np" = 2 ]; then
        echo "== mpirun -np $np tests/test_mpi, sorts on the device path (GPGPU_MPI_SORT=device)"
        GPGPU_MPI_SORT=device run "$np" || status=1
    else
        echo "== mpirun -np $np tests/test_mpi"
        run "$np" || status=1
    fi
    if [ "$np" = 1 ]; then
        # shellcheck disable=SC2086
        pocl_cache publish "$cache/rank0" $seeded0
        seeded0=$(pocl_cache seed "$cache/rank0")
        seeded1=$(pocl_cache seed "$cache/rank1")
        seeded2=$(pocl_cache seed "$cache/rank2")
        seeded3=$(pocl_cache seed "$cache/rank3")
        for r in 1 2 3; do
            [ -d "$gcache/rank$r" ] || cp -R "$gcache/rank0" "$gcache/rank$r"
        done
    fi
done

# A failure inside one rank's library (allocation, enqueue ...) at a few
# points of a loop of calls: every call must fail or succeed on all ranks.
for at in 5 30 60; do
    echo "== mpirun -np 3 tests/test_mpi faults, rank 1 failing at point $at"
    FAULT_RANK1=$at run 3 faults || status=1
done
# The same with every sort on the device path.
for at in 7 40; do
    echo "== mpirun -np 3 tests/test_mpi faults, device path, rank 1 failing at point $at"
    GPGPU_MPI_SORT=device FAULT_RANK1=$at run 3 faults || status=1
done
# shellcheck disable=SC2086
{
    pocl_cache publish "$cache/rank0" $seeded0
    pocl_cache publish "$cache/rank1" $seeded1
    pocl_cache publish "$cache/rank2" $seeded2
    pocl_cache publish "$cache/rank3" $seeded3
}
exit $status
