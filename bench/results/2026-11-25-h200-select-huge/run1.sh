set -u
out=${OUT:-.}
t0=$(date +%s)
N=268435456
for a in "--op top_k --type f32" "--op quantiles --type f32" "--op sort --type f32" "--op top_k --type f32"; do
  timeout 90 gpgpu-bench --json --repeat 5 $a --n $N >> $out/ours.jsonl 2>> $out/err.txt
  echo "$a $(( $(date +%s) - t0 ))s" >> $out/times.txt
done
timeout 240 python3 .gpu/science_peers.py 28 > $out/peers.jsonl 2>> $out/err.txt
echo "peers $(( $(date +%s) - t0 ))s" >> $out/times.txt
nvidia-smi -L > $out/device.txt
