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
# A command that fails the test says which one it was.
trap 'rc=$?; [ $rc = 0 ] || echo "histogram-tool.sh: failed (exit $rc) at line $LINENO" >&2' EXIT
"$tool" -b 64 "$img" > "$out/chart.txt"
grep -q "^luminance: 64 bins over \[0, 1), 3072 counted" "$out/chart.txt"
# blue: two spikes of 1536 pixels each
test "$(sed -n '/^blue:/,/^luminance:/p' "$out/chart.txt" | grep -c ' 1536$')" -eq 2

# The chart: with 32 bins the terminal chart has a row per bin, so it tells
# where each channel's tallest bar is: "LEVEL:COUNT" (the bin's centre).
tallest() {
    sed -n "/^$1:/,/^[a-z]*:/p" "$out/chart32.txt" |
        awk -F'|' 'NF == 2 { n = split($2, f, " "); c = f[n] + 0;
                             if (c > max) { max = c; level = $1 * 256 + 4 } }
                   END { print level ":" max }'
}
check="${top_builddir:-.}/tests/plot_check"
if [ -x "$check" ]; then
    "$tool" -b 32 -o "$out/chart.png" "$img" > "$out/chart32.txt"
    "$check" "$out/chart.png" 1200 900 "$out/chart32.txt" "red:d62728:$(tallest red)" \
        "green:2ca02c:$(tallest green)" "blue:1f77b4:$(tallest blue)" \
        "luminance:7f7f7f:$(tallest luminance)"
    # the same on a log scale, and at another size
    "$tool" -b 32 --log --size 800x600 -o "$out/log.png" "$img" > "$out/log.txt"
    "$check" "$out/log.png" 800 600 "$out/log.txt" "blue:1f77b4:$(tallest blue)"
    # overlaid, as SVG and PDF
    "$tool" --overlay -o "$out/chart.svg" "$img" > /dev/null
    grep -q "<svg" "$out/chart.svg"
    "$tool" --overlay --log -o "$out/chart.pdf" "$img" > /dev/null
    head -c 5 "$out/chart.pdf" | grep -q "%PDF-"
else
    if "$tool" -o "$out/chart.png" "$img" > /dev/null 2> "$out/nocairo.err"; then exit 1; fi
    grep -q "built without cairo" "$out/nocairo.err"
fi
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
# Raw input problems: each a message that names it and a non-zero exit.
raw_fails() { # the message expected, then the tool's arguments
    want=$1
    shift
    if "$tool" -d host "$@" > /dev/null 2> "$out/raw.err"; then
        echo "histogram-tool.sh: gpgpu-histogram $* succeeded" >&2
        exit 1
    fi
    if ! grep -q -e "$want" "$out/raw.err"; then
        echo "histogram-tool.sh: gpgpu-histogram $*: \"$(cat "$out/raw.err")\"" >&2
        exit 1
    fi
}
printf 'abcdefghij' > "$out/ten.bytes"
raw_fails "10 bytes is not a whole number of 4-byte samples" -t f32 "$out/ten.bytes"
raw_fails "no samples: the input is empty" -t u32 /dev/null
raw_fails "longer than the 256 MiB read from a pipe" -t u32 /dev/zero
raw_fails "whole number from 1 to 2147483648" -t u32 -b 99999999999 "$out/four.u32"
raw_fails "need LO:HI" -t u32 -r 5:5 "$out/four.u32"
raw_fails "unknown type" -t u8 "$out/four.u32"
printf '\000\000\300\177' > "$out/nan.f32"
raw_fails "none of its 1 samples is a finite number" -t f32 "$out/nan.f32"
if [ -z "${SANITIZE_FLAGS:-}" ]; then # sanitizers reserve more address space than this
    (ulimit -v 2000000 && raw_fails "counts take 16.0 GiB" -t u32 -b 2147483648 "$out/four.u32")
fi
# Samples all equal to x: NumPy's range, [x - 0.5, x + 0.5).
printf '\005\000\000\000\005\000\000\000' > "$out/fives.u32"
"$tool" -d host -t u32 -b 4 "$out/fives.u32" > "$out/fives.txt"
grep -q "4 bins over \[4.5, 5.5), 2 counted" "$out/fives.txt"
# --2d: (x, y) pairs of u32, x first: (1, 1) (2, 3) (9, 9) (5, 1) (12, 0), the
# last outside [0, 10) in x.
printf '\001\000\000\000\001\000\000\000\002\000\000\000\003\000\000\000\011\000\000\000\011\000\000\000\005\000\000\000\001\000\000\000\014\000\000\000\000\000\000\000' > "$out/pairs.u32"
"$tool" -d host -t u32 --2d -b 10x5 -r 0:10,0:10 "$out/pairs.u32" > "$out/2d.txt"
grep -q "^x: 10 bins over \[0, 10), y: 5 bins over \[0, 10), 4 counted, at most 1 in a cell" \
    "$out/2d.txt"
# the shade map: 5 rows, y up; (9, 9) in the top row's last column
test "$(grep -c '|' "$out/2d.txt")" -eq 5
sed -n '/|/p' "$out/2d.txt" | head -n 1 | grep -q '|         @$'
# two columns of text; comments and blank lines skipped; one -r for both axes
printf '# x y\n1 2\n\n-3 4.0\n  5 6\n' > "$out/cols.txt"
"$tool" -t i32 --2d --columns -b 4 -r -4:8 "$out/cols.txt" > "$out/cols.out"
grep -q "3 i32 pairs on" "$out/cols.out"
grep -q "x: 4 bins over \[-4, 8), y: 4 bins over \[-4, 8), 3 counted" "$out/cols.out"
if [ -x "$check" ]; then
    "$tool" -t u32 --2d -b 10x5 -r 0:10,0:10 -o "$out/heat.png" "$out/pairs.u32" > "$out/heat.txt"
    grep -q "heat map axes at .* x 0 to 10, y 0 to 10, colour 0 to 1 linear" "$out/heat.txt"
    head -c 4 "$out/heat.png" | grep -q PNG
    "$tool" -t u32 --2d --log --size 800x600 -o "$out/heat.svg" "$out/pairs.u32" > "$out/heat.txt"
    grep -q "800x600 chart written" "$out/heat.txt"
    grep -q "<svg" "$out/heat.svg"
fi
raw_fails "--2d is for raw samples" --2d "$out/pairs.u32"
raw_fails "--columns reads (x, y) pairs" -t u32 --columns "$out/pairs.u32"
raw_fails "need NX or NXxNY" -t u32 --2d -b 0x5 "$out/pairs.u32"
raw_fails "need NX or NXxNY" -t u32 --2d -b 65536x65537 "$out/pairs.u32"
raw_fails "10 bytes is not a whole number of 8-byte samples" -t u32 --2d "$out/ten.bytes"
printf '1 2\n3 x\n' > "$out/badcols.txt"
raw_fails "badcols.txt:2: need two numbers (x y) that i32 holds exactly" -t i32 --2d --columns \
    "$out/badcols.txt"
printf '1.5 2\n' > "$out/halves.txt"
raw_fails "halves.txt:1: need two numbers" -t i32 --2d --columns "$out/halves.txt"
raw_fails "need LO:HI" -t u32 --2d -r 0:1,5:5 "$out/pairs.u32"
