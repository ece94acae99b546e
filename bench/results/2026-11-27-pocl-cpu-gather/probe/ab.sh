#!/bin/sh
# ab.sh OUTDIR ROUNDS SIZES OP variant-spec...   variant-spec: label:builddir:ENV=V,ENV2=V
out=$1; rounds=$2; sizes=$3; op=$4; shift 4
mkdir -p "$out"
r=1
while [ $r -le $rounds ]; do
  for spec in "$@"; do
    label=${spec%%:*}; rest=${spec#*:}; dir=${rest%%:*}; envs=${rest#*:}
    for dev in host pocl; do
      echo "$(date -u +%T) round $r $label $dev $(cut -d' ' -f1 /proc/loadavg)" >> "$out/log"
      ( cd "$dir" && export $(echo "$envs" | tr ',' ' ') 2>/dev/null;
        if [ $dev = host ]; then export GPGPU_DEVICE=host; fi
        ./tools/gpgpu-bench --api host --op $op --sizes "$sizes" --repeat 5 --json ) >> "$out/$label-$dev.jsonl" 2>> "$out/err"
    done
  done
  r=$((r+1))
done
