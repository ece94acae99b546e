#!/bin/sh
# The sanitizer build's make check five times in a row on a loaded machine
# (a race or leak that shows once in a while shows here). From a clone of the project (not the tree you work in):
#   [STRESS="--cpu 2 --io 1 --vm 1"] [TESTS="tests/test_array ..."] \
#       sh bench/sanitizer-series.sh [RUNS] [LOG_DIR]
# Builds with --enable-sanitizers, keeps `stress $STRESS` (default --cpu 1)
# running, if installed, for the whole series, and writes one line per run
# (exit status, time, load averages, the test-suite summary) to
# LOG_DIR/results.txt, with each run's make output and test-suite.log
# beside it. TESTS: only those suites (make check TESTS=...), every run.
set -u
runs=${1:-5}
logs=${2:-sanitizer-series}
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
: > "$logs/results.txt"
sp=
if command -v stress > /dev/null; then
    # shellcheck disable=SC2086
    stress ${STRESS:---cpu 1} > /dev/null 2>&1 &
    sp=$!
fi
s=$(date +%s)
if ! (autoreconf -fi && ./configure -q --enable-sanitizers && make -j2) > "$logs/build.log" 2>&1; then
    echo "build failed: see $logs/build.log" >> "$logs/results.txt"
    [ -n "$sp" ] && kill "$sp"
    exit 1
fi
echo "build: $(( $(date +%s) - s )) s, commit $(git log -1 --format=%h 2>/dev/null), stress ${STRESS:---cpu 1}${TESTS:+, tests: $TESTS}" >> "$logs/results.txt"
i=1
while [ "$i" -le "$runs" ]; do
    s=$(date +%s)
    if [ -n "${TESTS:-}" ]; then
        make -j2 check TESTS="$TESTS" > "$logs/check-$i.log" 2>&1
    else
        make -j2 check > "$logs/check-$i.log" 2>&1
    fi
    rc=$?
    echo "run $i: exit $rc after $(( $(date +%s) - s )) s, ended $(date +%H:%M), load $(cut -d' ' -f1-3 /proc/loadavg); $(grep -E '^# (TOTAL|PASS|FAIL|ERROR)' "$logs/check-$i.log" | tr '\n' ' ')" >> "$logs/results.txt"
    cp test-suite.log "$logs/suite-$i.log" 2>/dev/null
    i=$((i + 1))
done
[ -n "$sp" ] && kill "$sp"
cat "$logs/results.txt"
