#!/bin/sh
# The rows that user expressions and the histogram serve, against their
# serial loops (bench/cpu-loop.sh with OPS), on PoCL and on the host
# fallback, two builds in turn, ROUNDS rounds (bench/cpu-ab.sh):
#   BEFORE=build-dir AFTER=build-dir OUT=dir [ROUNDS=2] sh run.sh
here=$(cd "$(dirname "$0")" && pwd)
OPS="transform_reduce select partition histogram histogram_weighted" \
    exec sh "$here/../../cpu-ab.sh"
