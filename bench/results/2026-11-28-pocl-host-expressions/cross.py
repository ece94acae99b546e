import json,sys,collections
rows=collections.defaultdict(list)
for l in open(sys.argv[1]):
    l=l.strip()
    if not l.startswith('{'): continue
    d=json.loads(l)
    rows[(d['op']+'/'+d.get('input','random'),d['type'],d['n'],d['hb'])].append((d['of_serial'],d['ms'],d['serial_ms']))
keys=sorted(set((k[0],k[1],k[2]) for k in rows))
print("| op | type | n | host's evaluation (x loop) | kernels (x loop) |")
print("|---|---|---|---|---|")
for op,t,n in keys:
    a=rows.get((op,t,n,'all'),[]); b=rows.get((op,t,n,'0'),[])
    f=lambda v: "-".join(sorted({"%.2f"%x[0] for x in v},key=float)) if v else ""
    lg=n.bit_length()-1
    print(f"| {op} | {t} | 2^{lg} | {f(a)} | {f(b)} |")
