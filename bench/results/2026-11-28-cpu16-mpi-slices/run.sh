#!/bin/sh
# Host-fallback MPI ranks sharing a 16-core machine's cores: the sort of
# 2^24 u32 keys a rank (and of u32/u32 pairs at 4 ranks) with its steps and
# its weak efficiency, for f3e762e (.gpu/before-trial: each bucket sorted
# whole), the tree with buckets sent in slices (.gpu/install, an install
# of 4a1937d or 2b56bab) and that tree with GPGPU_MPI_SORT=bucket, in
# turn, twice. From the project root of a GPU machine, with 2b56bab (or
# 4a1937d) checked out, after `sh bench/mpi.sh --stage` and an install of
# f3e762e (configured with MPI) under .gpu/before-trial:
#   source .gpu/env.sh; OUT=dir sh bench/results/2026-11-28-cpu16-mpi-slices/run.sh
set -u
out=${OUT:-.}
debs=.gpu/ompi-debs
. bench/ompi-env.sh
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism
{
    lscpu | grep -E "^Model name|^CPU\(s\)|^NUMA node\(s\)|^Socket"
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/machine.txt"
cores=$(nproc)
ld0=$LD_LIBRARY_PATH
for round in 1 2; do
    for form in before after after-bucket; do
        lib=$PWD/.gpu/install/lib mode=
        [ "$form" = before ] && lib=$PWD/.gpu/before-trial/lib
        [ "$form" = after-bucket ] && mode=bucket
        for p in 2 4; do
            for op in sort sort_pairs; do
                [ "$op" = sort_pairs ] && [ "$p" = 2 ] && continue
                echo "== $form round $round: $p ranks, $op, GPGPU_THREADS=$((cores / p))"
                env LD_LIBRARY_PATH="$lib:$ld0" GPGPU_DEVICE=host GPGPU_THREADS=$((cores / p)) \
                    ${mode:+GPGPU_MPI_SORT=$mode} timeout 120 orterun -np "$p" --bind-to none \
                    --oversubscribe gpgpu-mpi-bench --op "$op" --n 16777216 --repeat 3 --phases \
                    --efficiency 2>&1 | grep -v "^gpgpu-mpi trace"
            done
        done
    done
done > "$out/host-ranks.txt"
