#!/usr/bin/env python3
"""Median and range, over the rounds, of each case's ratio to the baseline
its note names (bench/cpu-forms.sh): python3 bench/table_forms.py forms.jsonl"""
import json
import re
import statistics
import sys
from collections import defaultdict

ratios = defaultdict(list)
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    m = re.search(r"([0-9.]+)x", d.get("note", "")) or re.search(r": ([0-9.]+)x of it", d.get("note", ""))
    if not m:
        continue
    base = re.sub(r"[0-9.]+ ms|[0-9.]+x|\(.*?\)", "", d["note"]).strip(" :,")
    key = (d["op"], d["type"], d.get("input", ""), d["api"], base)
    ratios[key].append(float(m.group(1)))
print("| op | type | input | api | ratio to | median | range | rounds |")
print("|---|---|---|---|---|---|---|---|")
for (op, t, inp, api, base), r in sorted(ratios.items()):
    print(f"| {op} | {t} | {inp} | {api} | {base} | {statistics.median(r):.2f}x | "
          f"{min(r):.2f}-{max(r):.2f} | {len(r)} |")
