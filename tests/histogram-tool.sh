#!/bin/sh
# Smoke test of tools/gpgpu-histogram: the test image (tests/data/gradient.png,
# 64x48: red ramps left to right, green top to bottom, blue 64 on the left
# half and 192 on the right) through the default device, the picture drawn,
# and a raw file through the host fallback.
set -e
tool="${top_builddir:-.}/tools/gpgpu-histogram"
img="${top_srcdir:-.}/tests/data/gradient.png"
out="${top_builddir:-.}/tests/.cache/histogram-tool"
mkdir -p "$out"
"$tool" -b 64 -o "$out/plot.png" "$img" > "$out/chart.txt"
grep -q "^luminance: 64 bins over \[0, 1), 3072 counted" "$out/chart.txt"
# blue: two spikes of 1536 pixels each
test "$(sed -n '/^blue:/,/^luminance:/p' "$out/chart.txt" | grep -c ' 1536$')" -eq 2
test -s "$out/plot.png"
printf '\001\000\000\000\002\000\000\000\002\000\000\000\011\000\000\000' > "$out/four.u32"
"$tool" -d host -t u32 -r 0:10 -b 5 "$out/four.u32" > "$out/raw.txt"
grep -q "5 bins over \[0, 10), 4 counted" "$out/raw.txt"
