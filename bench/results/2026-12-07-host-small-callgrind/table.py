#!/usr/bin/env python3
"""Per-call instructions and mispredicted branches from two run.sh outputs:
   python3 table.py before.txt after.txt (each op less the program alone)."""
import re, sys
def load(f):
    d={}
    for l in open(f):
        m=re.match(r'(\S+) n=(\d+) calls=(\d+): I\s+refs ([\d,]+) Mispredicts ([\d,]+)',l)
        if m: d[(m[1],int(m[2]),int(m[3]))]=(int(m[4].replace(',','')),int(m[5].replace(',','')))
    return d
b=load(sys.argv[1]); a=load(sys.argv[2])
print("| op | n | before: instructions a call | mispredicted | after: instructions a call | mispredicted |")
print("|---|---|---|---|---|---|")
for op in ['search','top_k','serial_top_k','rle','serial_rle','scan','serial_scan']:
    for n in [1024,4096,16384]:
        def per(d):
            x=d[(op,n,200)]; z=d[(op,n,0)]
            return ((x[0]-z[0])/200,(x[1]-z[1])/200)
        pb=per(b); pa=per(a)
        print(f"| {op} | {n} | {pb[0]:.0f} | {pb[1]:.0f} | {pa[0]:.0f} | {pa[1]:.0f} |")
