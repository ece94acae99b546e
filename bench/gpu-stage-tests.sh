#!/bin/sh
# Stages the test suites for an NVIDIA machine that has no Check library
# and no autotools. Run from the project root with BUILD naming a build
# tree of this checkout configured with --prefix=$PWD/.gpu/install and
# installed there (default /tmp/gpgpu-gpu-src):
#   BUILD=/path/to/build sh bench/gpu-stage-tests.sh
# On the GPU machine, after `source .gpu/env.sh`:
#   sh .gpu/tests/run.sh            every suite on the GPU, then GPGPU_PTX=0
# Results go to $OUT/tests.txt when OUT is set.
set -eu
src=${BUILD:-/tmp/gpgpu-gpu-src}
[ -d "$src/tests" ] || { echo "no build tree at $src: build and install into .gpu/install first" >&2; exit 1; }
(cd "$src" && make -j"$(nproc)" --quiet check TESTS= >/dev/null)
rm -rf .gpu/tests
mkdir -p .gpu/tests/tests
for t in "$src"/tests/.libs/test_* "$src"/tests/.libs/example_particles; do
    case "$t" in *.o) continue ;; esac
    cp "$t" .gpu/tests/
done
cp -r "$src"/tests/data .gpu/tests/tests/ 2>/dev/null || true
cp /lib/x86_64-linux-gnu/libsubunit.so.0* .gpu/install/lib/
cat > .gpu/tests/run.sh <<'EOF'
#!/bin/sh
# Every staged suite on the default device (the GPU; test_faults only its
# host-memory route scenarios, each fault point in turn, since the whole
# table takes minutes there), then the sort and host-memory suites again
# without inline PTX. One line per suite and run in $OUT/tests.txt.
out=${OUT:-.}
log="$out/tests.txt"
: > "$log"
cd .gpu/tests
# test_cache makes its own cache directories; a preset GPGPU_CACHE_DIR,
# shared by every suite, would turn its expected misses into hits.
export top_builddir="$PWD" GPGPU_TEST_DEVICES=default
mkdir -p tests/.cache
suite() { # ptx name
    start=$(date +%s)
    GPGPU_PTX=$1 timeout 300 "./$2" > "tests/$2.ptx$1.log" 2>&1
    rc=$?
    echo "$2 ptx=$1 rc=$rc $(( $(date +%s) - start ))s $(grep -E '^[0-9]+%' "tests/$2.ptx$1.log" | tr '\n' ' ')" | tee -a "$log"
    [ $rc = 0 ] || tail -20 "tests/$2.ptx$1.log" >> "$log"
}
for t in test_*; do
    case $t in test_mpi|test_faults) continue ;; esac
    suite 1 "$t"
done
for t in test_hostmem test_sort; do
    suite 0 "$t"
done
for sc in reduce_staged scan_in_place_staged sort_pairs_staged sort_pairs_pinned sort_pairs_host_alloc sort_pairs scan_in_place; do
    n=$(GPGPU_CACHE=0 GPGPU_FAULT_COUNT=1 ./test_faults child $sc 0:0 2>&1 | sed -n 's/.* \([0-9][0-9]*\) fault-injection points.*/\1/p' | tail -1)
    bad=0
    for k in $(seq 1 "${n:-0}"); do
        GPGPU_CACHE=0 GPGPU_FAULT_AT=$k ./test_faults child $sc 0:0 > tests/fault.log 2>&1
        rc=$?
        [ $rc = 0 ] || { bad=$((bad + 1)); echo "  $sc point $k: exit $rc: $(grep test_faults tests/fault.log | head -1)" >> "$log"; }
    done
    echo "test_faults $sc: ${n:-?} points, $bad not clean" | tee -a "$log"
done
EOF
du -sh .gpu
