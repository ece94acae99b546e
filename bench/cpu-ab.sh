#!/bin/sh
# Two builds in turn on the rows of the standard table named in OPS, against
# their serial loops (bench/cpu-loop.sh), on PoCL and on the host fallback:
#   BEFORE=build-dir AFTER=build-dir OUT=dir OPS="scan top_k ..." \
#       [ROUNDS=2] [SIZES=10,12,...] [REPEAT=5] sh bench/cpu-ab.sh
# Each build dir is a build tree (its .libs and tools/.libs/gpgpu-bench);
# the AFTER tree's gpgpu-bench runs against each build's library, so that
# the serial loops are the same code. Rounds alternate the builds; each
# run's JSON lines go to OUT/before-R and OUT/after-R (loop-pocl.jsonl,
# loop-host.jsonl). python3 bench/table_loop.py makes a table of each.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:?}
: "${OPS:?name the rows: OPS=\"scan top_k ...\"}"
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
        (cd "$out/$which-tree" && OUT="$d" REPEAT="${REPEAT:-5}" OPS="$OPS" \
            sh "$src/bench/cpu-loop.sh")
    done
    r=$((r + 1))
done
