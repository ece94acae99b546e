#!/bin/sh
# A CPU device's host route against its kernels for one name of the plan's
# host-below rule (GPGPU_HOST_BELOW=NAME=all | NAME=0), on the rows OPS,
# ROUNDS rounds, with the host fallback's own run when FALLBACK=1; from a
# build tree:
#   NAME=search OPS="search_sorted" SIZES=10,12,... OUT=dir [ROUNDS=2] \
#       [FALLBACK=1] sh bench/host-route.sh
# JSON lines to OUT/crossover.jsonl, each with "route" (all, 0 or
# fallback) and "round".
set -eu
out=${OUT:?}
name=${NAME:?the plan name: search, expr, ...}
: "${OPS:?}" "${SIZES:?}"
mkdir -p "$out"
r=1
while [ "$r" -le "${ROUNDS:-2}" ]; do
    for route in all 0; do
        for op in $OPS; do
            GPGPU_HOST_BELOW=$name=$route ./tools/gpgpu-bench --api host --op "$op" \
                --sizes "$SIZES" --repeat 7 --json |
                sed "s/^{/{\"route\":\"$route\",\"round\":$r,/"
        done
    done
    if [ "${FALLBACK:-0}" = 1 ]; then
        for op in $OPS; do
            GPGPU_DEVICE=host ./tools/gpgpu-bench --api host --op "$op" \
                --sizes "$SIZES" --repeat 7 --json |
                sed "s/^{/{\"route\":\"fallback\",\"round\":$r,/"
        done
    fi
    r=$((r + 1))
done > "$out/crossover.jsonl"
