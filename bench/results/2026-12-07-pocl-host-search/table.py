#!/usr/bin/env python3
"""The ratio to the serial loop (of_serial, or the note's "library X.XXx")
of each route, type and size in crossover.jsonl: the rounds' range
(min-max), one row per route and type."""
import json
import re
import sys
from collections import defaultdict

cells = defaultdict(list)
sizes = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    lg = r["n"].bit_length() - 1
    sizes.add(lg)
    ratio = r.get("of_serial")
    if ratio is None:
        ratio = float(re.search(r"library ([0-9.]+)x", r["note"]).group(1))
    cells[(r["route"], r["type"], lg)].append(ratio)
sizes = sorted(sizes)
print("| route | type | " + " | ".join(f"2^{s}" for s in sizes) + " |")
print("|---|---|" + "---|" * len(sizes))
for route in ("all", "0", "fallback"):
    for t in ("u32", "f32"):
        row = []
        for s in sizes:
            v = cells.get((route, t, s))
            row.append(f"{min(v):.2f}-{max(v):.2f}" if v else "")
        if any(row):
            print(f"| {route} | {t} | " + " | ".join(row) + " |")
