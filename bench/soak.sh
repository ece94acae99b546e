#!/bin/sh
# Soak: builds bench/soak in a build tree and runs it for a number of
# minutes on one device, keeping its output (RSS samples, calls/s, growth
# per 100,000 calls after warm-up) in a log named by date, device and
# commit.
#   sh bench/soak.sh MINUTES [DEVICE] [soak options...]
# Run from the build directory (or set BUILD=path). DEVICE as GPGPU_DEVICE
# ("host", "gpu", ...; "default" or nothing: the best device). The log goes
# to ${OUT:-.}/soak-DATE-DEVICE-COMMIT.log. Extra options go to bench/soak
# (bench/soak --help), e.g. --context-every 0 for one context per run.
set -eu
minutes=${1:?usage: sh bench/soak.sh MINUTES [DEVICE] [soak options...]}
shift
device=${1:-default}
[ $# -gt 0 ] && shift
build=${BUILD:-.}
src=$(cd "$(dirname "$0")/.." && pwd)
make -C "$build" -s bench/soak
commit=$(git -C "$src" log -1 --format=%h 2>/dev/null || echo unknown)
log="${OUT:-.}/soak-$(date -u +%Y%m%d-%H%M)-$device-$commit.log"
set -- --minutes "$minutes" "$@"
[ "$device" != default ] && set -- --device "$device" "$@"
{
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, $(uname -n), $(nproc) cores"
    echo "# bench/soak $*"
} > "$log"
status=0
"$build/bench/soak" "$@" >> "$log" 2>&1 || status=$?
tail -n 2 "$log"
echo "log: $log"
exit $status
