# H200: every primitive at 2^32 + 5 after the scratch fix; the slow host
# routes profiled; the single-pass scan's knobs at 2^28 beside CUB; soak.
set -u
out=${OUT:-.}
t0=$(date +%s)
st() { echo "$(( $(date +%s) - t0 ))s $*" >> $out/log.txt; }
st start; nvidia-smi -L >> $out/log.txt; gpgpu-info >> $out/log.txt 2>&1
git log -1 --format=%H >> $out/log.txt 2>/dev/null
timeout 330 .gpu/huge > $out/huge.txt 2>&1; echo "rc=$?" >> $out/huge.txt; st huge
GPGPU_PROFILE=1 timeout 100 .gpu/huge 4294967301 scan sort_pairs > $out/huge-profile.txt 2>&1; st profile
B="gpgpu-bench --op scan --type u32 --n 268435456 --repeat 10 --json"
for cfg in "" "GPGPU_SCAN=multipass" "GPGPU_SCAN_SINGLE_MAX=0" "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_LB=2" \
  "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_TILE=8192" "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_TILE=8192 GPGPU_SCAN_LB=2" \
  "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_TILE=8192 GPGPU_WG=512" "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_TILE=16384 GPGPU_WG=512" \
  "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_TILE=8192 GPGPU_WG=1024" "GPGPU_SCAN_SINGLE_MAX=0 GPGPU_SCAN_TILE=16384 GPGPU_WG=1024"; do
  echo "{\"cfg\": \"$cfg\", \"r\": $(env $cfg timeout 30 $B 2>&1 | tail -1)}" >> $out/scan-sweep.jsonl
done; st sweep
timeout 60 .gpu/cub_sort_scan_histogram 20 28 > $out/cub.jsonl 2>&1; st cub
timeout 100 .gpu/soak --minutes 1.5 > $out/soak-gpu.log 2>&1; echo "rc=$?" >> $out/soak-gpu.log; st soak
