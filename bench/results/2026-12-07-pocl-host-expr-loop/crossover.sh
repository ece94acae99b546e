#!/bin/sh
# PoCL's maps and predicates on the host's evaluation against its kernels
# (GPGPU_HOST_BELOW=expr=all | =0), around the plan's threshold; from a
# build tree: OUT=dir [ROUNDS=2] sh crossover.sh
here=$(cd "$(dirname "$0")" && pwd)
NAME=expr OPS="transform_reduce select partition" SIZES=16,18,19,20,21,22 \
    exec sh "$here/../../host-route.sh"
