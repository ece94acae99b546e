#!/bin/sh
# The layers of lib/, checked on the built objects and on the sources:
#   lib/core        calls nothing above it
#   lib/host        (the plain-C fallback) calls only the core
#   lib/primitives  calls the core and the fallback
# A symbol counts as a call when an object of one layer leaves it undefined
# and an object of another layer defines it (nm); an include counts when a
# source of one layer names a header of a layer above it. Prints each
# crossing that points up and fails if there is one.
top_srcdir=${top_srcdir:-$(dirname "$0")/..}
top_builddir=${top_builddir:-.}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
rank() { case $1 in core) echo 0 ;; host) echo 1 ;; primitives) echo 2 ;; esac; }
: > "$tmp/defs"
: > "$tmp/uses"
for layer in core host primitives; do
    objs=$(find "$top_builddir/lib/$layer" -name '*.o' ! -path '*/.libs/*' 2>/dev/null)
    [ -n "$objs" ] || objs=$(find "$top_builddir/lib/$layer" -name '*.o' 2>/dev/null)
    if [ -z "$objs" ]; then
        echo "layers.sh: no objects under $top_builddir/lib/$layer: build first" >&2
        exit 99
    fi
    for o in $objs; do
        nm --defined-only "$o" | awk -v l="$layer" -v f="${o##*/}" \
            '$2 ~ /^[TDBR]$/ {print $3, l, f}' >> "$tmp/defs"
        nm -u "$o" | awk -v l="$layer" -v f="${o##*/}" '{print $NF, l, f}' >> "$tmp/uses"
    done
done
sort -o "$tmp/defs" "$tmp/defs"
sort -o "$tmp/uses" "$tmp/uses"
bad=0
join "$tmp/uses" "$tmp/defs" > "$tmp/calls"
while read -r sym from ofile to dfile; do
    if [ "$(rank "$from")" -lt "$(rank "$to")" ]; then
        echo "layers.sh: $from/$ofile calls $sym of $to/$dfile"
        bad=1
    fi
done < "$tmp/calls"
for layer in core host; do
    for f in "$top_srcdir/lib/$layer"/*.[ch]; do
        grep -n '#include "\(host\|primitives\)/' "$f" | while IFS= read -r line; do
            hdr=$(echo "$line" | sed 's|.*#include "\([a-z]*\)/.*|\1|')
            if [ "$(rank "$layer")" -lt "$(rank "$hdr")" ]; then
                echo "layers.sh: ${f#"$top_srcdir"/}:$line"
            fi
        done
    done
done > "$tmp/includes"
if [ -s "$tmp/includes" ]; then
    cat "$tmp/includes"
    bad=1
fi
if [ "$bad" = 0 ]; then
    echo "layers.sh: $(wc -l < "$tmp/calls") calls between files of lib/core, lib/host and lib/primitives, none pointing up"
fi
exit "$bad"
