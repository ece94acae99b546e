#!/bin/sh
# The library before and after a kernel change, alternating in one device
# command, with native CUB and the staged suites beside them. Install the
# older commit under .gpu/before (configure --prefix=$PWD/.gpu/before) and
# the newer one with ../shared/gpu/prepare --build; then on the GPU machine:
#   source .gpu/env.sh; sh bench/gpu-folds.sh
out=${OUT:-.}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/device.txt
B=.gpu/before; A=.gpu/install
run() { # label prefix args
  lab=$1; pre=$2; shift 2
  LD_LIBRARY_PATH=$pre/lib:$LD_LIBRARY_PATH timeout 60 $pre/bin/gpgpu-bench --json --repeat 7 "$@" | sed "s/^{/{\"build\":\"$lab\",/" >> $out/fold.jsonl 2>>$out/err.txt
}
for r in 1 2; do
 for lab in before after; do
  pre=$B; [ $lab = after ] && pre=$A
  for n in 1048576 16777216 268435456; do
    run $lab $pre --op scan --type u32 --n $n
    run $lab $pre --op scan --type f32 --n $n
  done
  run $lab $pre --op sum_exact --type f64 --n 268435456
  run $lab $pre --op sum_exact --type f32 --n 268435456
  GPGPU_PTX=0 run $lab-ptx0 $pre --op scan --type u32 --n 268435456
 done
done
timeout 120 .gpu/cub_sort_scan_histogram 28 > $out/cub.jsonl 2>>$out/err.txt
timeout 60 .gpu/cub_sort_scan_histogram 20 >> $out/cub.jsonl 2>>$out/err.txt
(cd .gpu/tests && timeout 300 sh run.sh) > $out/tests-run.txt 2>&1
cp .gpu/tests/tests.txt $out/ 2>/dev/null
