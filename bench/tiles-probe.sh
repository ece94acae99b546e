#!/bin/bash
# From the project root on a GPU machine: source .gpu/env.sh; OUT=dir bash bench/tiles-probe.sh
# (writes probe.jsonl: gpgpu-bench lines tagged with ticket and scan knobs; cub.jsonl)
# scan and sort: tiles by ticket or by group id, beside native CUB (one GPU)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
(nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_sort_scan_histogram.cu -o /tmp/cub 2>&1 | tail -2) &
cp=$!
out=$OUT/probe.jsonl; : > $out
for lg in 20 24 28; do
  n=$((1 << lg))
  for tk in 1 0; do
    for cfg in "GPGPU_SCAN_SINGLE_MAX=$((1<<24))" "GPGPU_SCAN_SINGLE_MAX=0" "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_LB=2"; do
      env GPGPU_TICKET=$tk $cfg gpgpu-bench --op scan --type u32 --n $n --repeat 20 --json 2>&1 | sed "s/^{/{\"ticket\": $tk, \"cfg\": \"$cfg\", /" >> $out
    done
    for op in "sort u32" "sort_pairs u32" "sort u64"; do
      set -- $op
      [ $lg = 28 ] || [ $2 = u32 ] || continue
      env GPGPU_TICKET=$tk gpgpu-bench --op $1 --type $2 --n $n --repeat 10 --json 2>&1 | sed "s/^{/{\"ticket\": $tk, /" >> $out
    done
  done
done
wait $cp
/tmp/cub 20 24 28 > $OUT/cub.jsonl 2>&1
grep -c . $out
