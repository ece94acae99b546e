#!/bin/sh
# Stages the test suites for the NVIDIA machine, which has no Check library
# and no autotools. Run from the project root after
# `../shared/gpu/prepare --build` (which leaves its private build tree in
# /tmp/gpgpu-gpu-src and the install in .gpu/install):
#   sh bench/gpu-stage-tests.sh
# On the GPU machine, after `source .gpu/env.sh`:
#   sh .gpu/tests/run.sh            every suite on the GPU, then GPGPU_PTX=0
# Results go to $OUT/tests.txt when OUT is set.
set -eu
src=/tmp/gpgpu-gpu-src
[ -d "$src" ] || { echo "run ../shared/gpu/prepare --build first" >&2; exit 1; }
(cd "$src" && make -j"$(nproc)" --quiet check TESTS= >/dev/null)
rm -rf .gpu/tests
mkdir -p .gpu/tests/tests
for t in "$src"/tests/.libs/test_*; do
    case "$t" in *.o) continue ;; esac
    cp "$t" .gpu/tests/
done
cp -r "$src"/tests/data .gpu/tests/tests/ 2>/dev/null || true
cp /lib/x86_64-linux-gnu/libsubunit.so.0* .gpu/install/lib/
cat > .gpu/tests/run.sh <<'EOF'
#!/bin/sh
# Every staged suite on the default device (the GPU) and the host fallback,
# then the GPU again without inline PTX. One line per suite and run.
out=${OUT:-.}
log="$out/tests.txt"
: > "$log"
cd .gpu/tests
export top_builddir="$PWD" GPGPU_CACHE_DIR=/tmp/gpgpu-test-cache
mkdir -p tests/.cache /tmp/gpgpu-test-cache && chmod 700 /tmp/gpgpu-test-cache
for ptx in 1 0; do
    for t in ./test_*; do
        [ "$t" = ./test_mpi ] && continue
        start=$(date +%s)
        GPGPU_PTX=$ptx timeout 300 "$t" > "tests/$t.ptx$ptx.log" 2>&1
        rc=$?
        echo "$t ptx=$ptx rc=$rc $(( $(date +%s) - start ))s $(grep -E '^[0-9]+%' "tests/$t.ptx$ptx.log" | tr '\n' ' ')" | tee -a "$log"
        [ $rc = 0 ] || tail -20 "tests/$t.ptx$ptx.log" >> "$log"
    done
    [ "${GPU_TESTS_PTX0:-1}" = 1 ] || break
done
EOF
du -sh .gpu
