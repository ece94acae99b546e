import json,sys,collections
rows=collections.defaultdict(list)
for l in open(sys.argv[1]):
    try: d=json.loads(l)
    except: continue
    k=(d['dev'],d['op'],d['type'],d.get('input',''),d['n'])
    rows[k].append((d['v'],d['r'],d['ms'],d.get('of_serial')))
for k in sorted(rows):
    if k[3] not in ('random',): continue
    b0=[f"{ms:.1f}/{o:.2f}x" for v,r,ms,o in rows[k] if v in ('b0','before')]
    b=[f"{ms:.1f}/{o:.2f}x" for v,r,ms,o in rows[k] if v in ('b','after')]
    print(k[0],k[1],k[2],k[4].bit_length()-1,'before',' '.join(b0),'| after',' '.join(b))
