#!/bin/sh
# bench/mpi.sh's host part (host-fallback ranks at 1, 2 and 4 sharing the
# machine's cores: the sort with its steps, then reduce, scan and
# histogram) for two installs of libgpgpu-mpi in turn, twice. From the
# project root of a GPU machine, after `sh bench/mpi.sh --stage` (the
# change, .gpu/install) and an install of the baseline with MPI:
#   source .gpu/env.sh; BEFORE=.gpu/before-host OUT=dir sh bench/results/2026-11-27-cpu16-mpi-partition/run.sh
set -u
out=${OUT:-.}
before=${BEFORE:?BEFORE: the baseline install}
after=${AFTER:-.gpu/install}
path0=$PATH
ld0=${LD_LIBRARY_PATH:-}
for round in 1 2; do
    for lib in "$before" "$after"; do
        PATH=$PWD/$lib/bin:$path0
        LD_LIBRARY_PATH=$PWD/$lib/lib:$ld0
        export PATH LD_LIBRARY_PATH
        dir="$out/$(basename "$lib")-$round"
        mkdir -p "$dir"
        PARTS=host HOST_SORT_N=16777216 OUT="$dir" sh bench/mpi.sh > /dev/null 2>&1
    done
done
