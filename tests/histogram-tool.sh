#!/bin/sh
# Smoke test of tools/gpgpu-histogram: the test image (tests/data/gradient.png,
# 64x48: red ramps left to right, green top to bottom, blue 64 on the left
# half and 192 on the right) through the default device, the picture drawn,
# a JPEG (tests/data/quadrants.jpg, 64x32: four flat 32x16 quadrants of
# RGB (32, 96, 160), (96, 160, 224), (160, 224, 32) and (224, 32, 96),
# written by libjpeg at quality 100 without chroma subsampling, so that
# decoding keeps every channel within one level of those values, far from a
# bin edge), and a raw file through the host fallback.
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
# JPEG: each channel puts 512 pixels in each of 4 bins; luminance (0.34,
# 0.59, 0.77, 0.30 of full scale) gives 0, 1024, 512, 512.
jpg="${top_srcdir:-.}/tests/data/quadrants.jpg"
if "$tool" -b 4 "$jpg" > "$out/jpeg.txt" 2> "$out/jpeg.err"; then
    grep -q "^red: 4 bins over \[0, 1), 2048 counted" "$out/jpeg.txt"
    test "$(grep -c ' 512$' "$out/jpeg.txt")" -eq 14
    test "$(sed -n '/^luminance:/,$p' "$out/jpeg.txt" | awk '{print $NF}' | tr '\n' ' ')" = \
        "counted 0 1024 512 512 "
else
    grep -q "built without libjpeg" "$out/jpeg.err" # the only acceptable failure
fi
# Damaged images end in a message or a warning, never in a signal or a
# sanitizer's report.
for img in "$jpg" "${top_srcdir:-.}/tests/data/gradient.png"; do
    head -c 300 "$img" > "$out/damaged.${img##*.}"
    rc=0
    "$tool" "$out/damaged.${img##*.}" > /dev/null 2> "$out/damaged.err" || rc=$?
    test "$rc" -lt 128
    test -s "$out/damaged.err"
    ! grep -q "Sanitizer\|runtime error" "$out/damaged.err"
done
printf '\001\000\000\000\002\000\000\000\002\000\000\000\011\000\000\000' > "$out/four.u32"
"$tool" -d host -t u32 -r 0:10 -b 5 "$out/four.u32" > "$out/raw.txt"
grep -q "5 bins over \[0, 10), 4 counted" "$out/raw.txt"
