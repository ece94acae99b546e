cd /tmp/sanser
stress --cpu 2 --io 1 --vm 1 >/dev/null 2>&1 &
sp=$!
for i in $(seq 1 25); do
  top_builddir=/tmp/sanser top_srcdir=/tmp/sanser sh tests/run-test.sh tests/test_fork --scenario busy default > /tmp/fh-$i.log 2>&1 &
  p=$!
  for s in $(seq 1 50); do
    sleep 1
    kill -0 $p 2>/dev/null || break
  done
  if kill -0 $p 2>/dev/null; then
    echo "run $i: hung" >> /tmp/fh.out
    for c in $(pgrep -f "test_fork --scenario busy"); do
      echo "== pid $c $(cat /proc/$c/status | grep -E 'State|PPid')" >> /tmp/fh.out
      gdb -p $c -batch -ex "thread apply all bt 12" >> /tmp/fh.out 2>&1
    done
    pkill -f "test_fork --scenario busy"
    break
  fi
  echo "run $i: ok $(tail -1 /tmp/fh-$i.log)" >> /tmp/fh.out
done
kill $sp; pkill stress
