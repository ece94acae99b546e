#!/bin/sh
# The rows that user expressions and the histogram serve, against their
# serial loops (bench/cpu-loop.sh with OPS), on PoCL and on the host
# fallback, two builds in turn, ROUNDS rounds:
#   BEFORE=build-dir AFTER=build-dir OUT=dir [ROUNDS=2] sh run.sh
# Each build dir is a build tree (its tools/.libs/gpgpu-bench and .libs);
# the AFTER tree's gpgpu-bench runs against each build's library.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
out=${OUT:?}
mkdir -p "$out"
for which in before after; do
    if [ $which = before ]; then lib=${BEFORE:?}; else lib=${AFTER:?}; fi
    mkdir -p "$out/$which-tree/tools"
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/.libs exec %s/tools/.libs/gpgpu-bench "$@"\n' \
        "$lib" "$AFTER" > "$out/$which-tree/tools/gpgpu-bench"
    chmod +x "$out/$which-tree/tools/gpgpu-bench"
done
r=1
while [ "$r" -le "${ROUNDS:-2}" ]; do
    for which in before after; do
        d="$out/$which-$r"
        mkdir -p "$d"
        (cd "$out/$which-tree" && OUT="$d" REPEAT=5 \
            OPS="transform_reduce select partition histogram histogram_weighted" \
            sh "$src/bench/cpu-loop.sh")
    done
    r=$((r + 1))
done
