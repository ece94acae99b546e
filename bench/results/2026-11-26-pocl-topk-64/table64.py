#!/usr/bin/env python3
"""The 64-bit table of README.md: median of_serial (the loop ratio in each
line's note) of the spot64-{before,after}-r*-{pocl,host}.jsonl files in
the folder given; a second argument prints every round."""
import json,re,glob,statistics,sys
d=sys.argv[1]
def load(b,dev):
    out={}
    for f in sorted(glob.glob(f"{d}/spot64-{b}-r*-{dev}.jsonl")):
        for l in open(f):
            if not l.startswith("{"): continue
            r=json.loads(l); m=re.search(r"\(library ([0-9.]+)x\)", r["note"])
            assert r["verified"]
            out.setdefault((r["type"],r["n"]),[]).append(float(m.group(1)))
    return out
B={dev:load("before",dev) for dev in ("pocl","host")}
A={dev:load("after",dev) for dev in ("pocl","host")}
ns=[4096,65536,1048576]
print("| PoCL / host fallback | 2^12 | 2^16 | 2^20 |\n|---|---|---|---|")
f=lambda v:("**%.2f**" if v<1 else "%.2f")%v
for t in ("i64","u64","f64"):
    for name,X in (("before",B),("after",A)):
        print(f"| {t} {name} | "+" | ".join(f(statistics.median(X['pocl'][(t,n)]))+" / "+f(statistics.median(X['host'][(t,n)])) for n in ns)+" |")
if len(sys.argv)>2:
  for t in ("i64","u64","f64"):
    for n in ns:
      print(t,n,"before",B['pocl'][(t,n)],B['host'][(t,n)],"after",A['pocl'][(t,n)],A['host'][(t,n)])
