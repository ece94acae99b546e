#!/bin/sh
# The manual pages made from the headers (man/*.3, man/gpgpu.7):
#  - every GPGPU_API function of gpgpu.h, gpgpu_cl.h and (when libgpgpu-mpi
#    is built) gpgpu_mpi.h has a page, and gpgpu(7) names it;
#  - every page renders with `man -l` at 80 columns with no warning, fits
#    in 80 columns, and has NAME, SYNOPSIS (with the function's prototype),
#    DESCRIPTION, RETURN VALUE and SEE ALSO; a function that returns a
#    gpgpu_status lists GPGPU_SUCCESS and at least one error there;
#  - groff -ww finds nothing to warn about (when groff is installed).
# Skipped (77) without man or nroff.
top_srcdir=${top_srcdir:-$(dirname "$0")/..}
top_builddir=${top_builddir:-.}
command -v man >/dev/null 2>&1 || { echo "man not installed: skipped"; exit 77; }
command -v nroff >/dev/null 2>&1 || { echo "nroff (groff) not installed: skipped"; exit 77; }
list="$top_builddir/man/pages.list"
[ -f "$list" ] || { echo "FAIL: $list missing (make builds it)"; exit 1; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
# the installed layout, so that .so links resolve
mkdir -p "$tmp/man3" "$tmp/man7"
for p in $(cat "$list"); do cp "$top_builddir/man/$p" "$tmp/man3/" || exit 99; done
cp "$top_builddir/man/gpgpu.7" "$tmp/man7/" || exit 99
cd "$tmp" || exit 99

fail=0
bad() { echo "FAIL: $*"; fail=1; }

headers="$top_srcdir/include/gpgpu.h $top_srcdir/include/gpgpu_cl.h"
[ -f "$top_builddir/libgpgpu-mpi.la" ] && headers="$headers $top_srcdir/include/gpgpu_mpi.h"
funcs=$(sed -n 's/^GPGPU_API[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' $headers)
[ -n "$funcs" ] || { echo "FAIL: no GPGPU_API function found in $headers"; exit 1; }
LC_ALL=C MANWIDTH=80 man -l man7/gpgpu.7 > overview.txt 2> err || bad "gpgpu.7 does not render"
[ -s err ] && bad "gpgpu.7: $(cat err)"
nf=0
for f in $funcs; do
    nf=$((nf + 1))
    grep -qx "$f.3" "$list" || bad "$f has no page"
    grep -q "$f(3)" overview.txt || bad "gpgpu(7) does not name $f"
done

np=0
for page in man3/*.3 man7/gpgpu.7; do
    np=$((np + 1))
    name=$(basename "$page" | sed 's/\.[0-9]$//')
    LC_ALL=C MANWIDTH=80 man --warnings -l "$page" > out.txt 2> err || bad "$page: man -l failed"
    [ -s err ] && bad "$page: $(cat err)"
    width=$(awk '{ if (length > w) w = length } END { print w + 0 }' out.txt)
    [ "$width" -le 80 ] || bad "$page: a line of $width columns"
    if command -v groff >/dev/null 2>&1; then
        groff -s -I"$tmp" -man -ww -z -Tutf8 "$page" > /dev/null 2> err
        [ -s err ] && bad "$page: groff: $(cat err)"
    fi
    for section in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
        grep -q "^$section\$" out.txt || bad "$page: no $section"
    done
    [ "$name" = gpgpu ] && continue
    grep -q "^RETURN VALUE\$" out.txt || bad "$page: no RETURN VALUE"
    # the synopsis shows the prototype
    sed -n '/^SYNOPSIS$/,/^DESCRIPTION$/p' out.txt | grep -q "[ *]$name(" ||
        bad "$page: no prototype of $name in SYNOPSIS"
    if sed -n '/^GPGPU_API/,/;/p' $headers | tr '\n' ' ' | grep -q "gpgpu_status $name("; then
        rv=$(sed -n '/^RETURN VALUE$/,/^[A-Z]/p' out.txt)
        echo "$rv" | grep -q GPGPU_SUCCESS || bad "$page: RETURN VALUE without GPGPU_SUCCESS"
        echo "$rv" | grep -q GPGPU_ERROR_ || bad "$page: RETURN VALUE names no error (give the comment in the header an \"Errors:\" list, or \"Errors as gpgpu_X\")"
    fi
done
echo "$nf functions in the headers, $np pages rendered"
exit $fail
