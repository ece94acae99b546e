#!/bin/sh
# The distributed sorts of two installs of libgpgpu-mpi in one command, on
# a GPU machine (one GPU a rank, GPGPU_DEVICE=gpu:local): gpgpu-mpi-bench
# --op sort and sort_pairs, weak scaling, host arrays then device arrays
# (--arrays), each with its steps (--phases), at each rank count, the
# installs taking turns so that both see the same machine.
#
#   On the CPU machine: sh bench/mpi.sh --stage   (the change, .gpu/install)
#       and an install of the baseline with MPI under .gpu/, e.g.
#       ./configure --with-mpi --prefix=$PWD/.gpu/before-mpi from its tree.
#   On the GPU machine: source .gpu/env.sh; BEFORE=.gpu/before-mpi sh bench/mpi-ab.sh
#
# Knobs: BEFORE (required), AFTER (.gpu/install), RANKS ("1 2 4", cut to the
# GPUs), N (2^26 a rank), OPS ("sort sort_pairs"), REPEAT (5), OMPI_DEBS
# (.gpu/ompi-debs). Writes ab.txt (the tables and steps) and ab.jsonl to
# $OUT (else the current directory).
set -u
out=${OUT:-.}
debs=${OMPI_DEBS:-.gpu/ompi-debs}
before=${BEFORE:?BEFORE: the baseline install}
after=${AFTER:-.gpu/install}
# shellcheck source=bench/ompi-env.sh
. "$(dirname "$0")/ompi-env.sh"
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-cma}
GPGPU_DEVICE=${GPGPU_DEVICE:-gpu:local}
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    OMPI_MCA_btl_vader_single_copy_mechanism GPGPU_DEVICE
ndev=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$ndev" -gt 0 ] || ndev=1
status=0
: > "$out/ab.jsonl"
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
    git log -1 --format='commit %h %s' 2>/dev/null
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/ab.txt"
for p in ${RANKS:-1 2 4}; do
    [ "$p" -le "$ndev" ] || continue
    for form in "" --arrays; do
        for side in before after; do
            eval dir=\$$side
            for op in ${OPS:-sort sort_pairs}; do
                echo "== $side ($dir), $p rank(s), $op ${form:-host arrays}" >> "$out/ab.txt"
                # shellcheck disable=SC2086
                timeout -k 5 120 orterun -np "$p" --bind-to none --oversubscribe \
                    env LD_LIBRARY_PATH="$dir/lib:$LD_LIBRARY_PATH" "$dir/bin/gpgpu-mpi-bench" \
                    --op "$op" --n "${N:-67108864}" --repeat "${REPEAT:-5}" --phases $form \
                    >> "$out/ab.txt" 2>&1 || status=1
            done
        done
    done
done
cat "$out/ab.txt"
exit $status
