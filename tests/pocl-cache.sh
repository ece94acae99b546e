#!/bin/sh
# Shares the kernels PoCL compiles among the tests of one make check, so
# that each program and kernel compiles once per run, not once per test
# program (a cold run built some 460 programs and compiled some 1260
# kernels where 264 programs and 807 kernels were distinct).
#
#   pocl-cache.sh seed DIR          before a test: copies the shared cache
#                                   into DIR, the test's own POCL_CACHE_DIR;
#                                   prints how many programs and kernels
#                                   DIR then holds
#   pocl-cache.sh publish DIR P K   after it: adds to the shared cache what
#                                   DIR holds and it lacks; P and K are what
#                                   seed printed, to report what the test
#                                   compiled itself
#
# PoCL's cache is not safe against several processes updating it at once,
# so no test uses the shared one, $top_builddir/tests/.cache/pocl-seed/kcache,
# directly: each keeps its own (tests/run-test.sh; one per rank in
# tests/mpi.sh), and this script moves whole pieces between the two.
# PoCL 3.1 keeps a built program in DIR/XX/HASH/ (program.bc, last_accessed,
# build.log) and each kernel compiled for one work-group size in
# DIR/XX/HASH/KERNEL/SPEC/KERNEL.so; the temporary files at DIR's top are
# left out.
#
# Publishing copies each missing piece (a program's directory; else, the
# program being there, a kernel's; else one work-group size's) into tmp/
# beside kcache/, then renames it into place: rename() is atomic, so the
# piece appears whole or not at all, and it fails when another test put the
# same piece there first (the copy is then dropped). Nothing in the shared
# cache changes once it is there and nothing is removed but by make clean,
# so tests that run at once (make -j) can seed from it and publish to it
# freely. A test's own kernels reach it only when the test ends: the long
# tests that start first compile theirs cold, the later ones little.
# The copies are plain, not links: PoCL rewrites last_accessed and appends
# to build.log in place, which would reach every linked copy. So each
# test's cache holds all that the tests before it compiled (some 40 MB by
# the end of a run, near 1 GB for tests/.cache in all).
# The shared cache starts empty in every build tree and make clean removes
# it with the rest of tests/.cache: nothing from an earlier run is needed.
# A piece that fails to copy or to publish costs compile time, nothing
# else; the test's status is its own.
mode=$1
dir=$2
shared="${top_builddir:-.}/tests/.cache/pocl-seed"
kcache="$shared/kcache"

# Prints "PROGRAMS KERNELS": the built programs and compiled kernels in $1.
count() {
    c=$1
    set -- "$c"/??/*/program.bc
    if [ -e "$1" ]; then p=$#; else p=0; fi
    set -- "$c"/??/*/*/*/*.so
    if [ -e "$1" ]; then k=$#; else k=0; fi
    echo "$p $k"
}

# put SRC PARENT: SRC's copy appears as PARENT/$(basename SRC), whole, unless
# something is there already. mv with a directory operand renames SRC to
# PARENT/NAME and fails when that is a directory that is not empty.
n=0
put() {
    n=$((n + 1))
    t="$shared/tmp/$$.$n"
    rm -rf "$t"
    if mkdir -p "$t" "$2" && cp -R "$1" "$t/" && mv "$t/${1##*/}" "$2/" 2>/dev/null; then
        published=$((published + 1))
    fi
    rm -rf "$t"
}

case $mode in
seed)
    mkdir -p "$dir"
    if [ -d "$kcache" ]; then
        cp -R "$kcache/." "$dir/" 2>/dev/null ||
            echo "pocl-cache.sh: could not copy all of $kcache into $dir: those kernels compile again" >&2
    fi
    count "$dir"
    ;;
publish)
    p0=${3:-0}
    k0=${4:-0}
    published=0
    mkdir -p "$kcache" "$shared/tmp" || exit 0
    # Programs the shared cache lacks, whole with their kernels.
    for bc in "$dir"/??/*/program.bc; do
        [ -f "$bc" ] || continue
        prog=${bc%/program.bc}
        rel=${prog#"$dir"/}
        [ -d "$kcache/$rel" ] || put "$prog" "$kcache/${rel%/*}"
    done
    # Kernels (or work-group sizes) that programs already there lack.
    for so in "$dir"/??/*/*/*/*.so; do
        [ -f "$so" ] || continue
        rel=${so#"$dir"/}
        [ -f "$kcache/$rel" ] && continue
        spec=${rel%/*}
        kernel=${spec%/*}
        prog=${kernel%/*}
        [ -f "$dir/$prog/program.bc" ] || continue
        if [ ! -d "$kcache/$prog" ]; then
            put "$dir/$prog" "$kcache/${prog%/*}"
        elif [ ! -d "$kcache/$kernel" ]; then
            put "$dir/$kernel" "$kcache/$prog"
        else
            # An empty directory there (a compile that died) is replaced.
            put "$dir/$spec" "$kcache/$kernel"
        fi
    done
    # shellcheck disable=SC2046
    set -- $(count "$dir")
    echo "pocl-cache.sh: ${dir#"${top_builddir:-.}"/}: PoCL built $(($1 - p0)) programs and compiled $(($2 - k0)) kernels here; $published directories added to tests/.cache/pocl-seed"
    ;;
*)
    echo "usage: pocl-cache.sh seed DIR | publish DIR PROGRAMS KERNELS" >&2
    exit 2
    ;;
esac
exit 0
