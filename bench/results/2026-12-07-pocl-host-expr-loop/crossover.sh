#!/bin/sh
# PoCL's maps and predicates on the host's evaluation against its kernels
# (GPGPU_HOST_BELOW=expr=all | =0), around the plan's threshold; from a
# build tree: OUT=dir [ROUNDS=2] sh crossover.sh
set -eu
out=${OUT:?}
mkdir -p "$out"
r=1
while [ "$r" -le "${ROUNDS:-2}" ]; do
    for route in all 0; do
        for op in transform_reduce select partition; do
            GPGPU_HOST_BELOW=expr=$route ./tools/gpgpu-bench --api host --op $op \
                --sizes 16,18,19,20,21,22 --repeat 7 --json |
                sed "s/^{/{\"route\":\"$route\",\"round\":$r,/"
        done
    done
    r=$((r + 1))
done > "$out/crossover.jsonl"
