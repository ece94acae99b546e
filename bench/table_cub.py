#!/usr/bin/env python3
"""Ours against native CUB from one device command of bench/gpu.sh:
each gpgpu-bench row (_buffer form, kernel events, median) next to the CUB
call that computes the same thing on the same shape (CUDA events, median),
and the ratio CUB time / our time (above 1: we are faster).
Usage: python3 bench/table_cub.py ours.jsonl cub.jsonl > table.md"""
import json, sys


def rows(path):
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            yield json.loads(line)


def seg_len(r):
    inp = r.get("input") or ""
    return int(inp[3:]) if inp.startswith("seg") else None


def cub_match(r, c):
    """Whether CUB row c times what our row r timed."""
    if c.get("n") != r["n"]:
        return False
    op, t = r["op"], r["type"]
    if "case" in c:  # cub_sort_scan_histogram rows
        want = {"sort": "SortKeys", "sort_pairs": "SortPairs",
                "scan": "ExclusiveSum" if r.get("input") == "exclusive" else "InclusiveSum",
                "histogram": f'HistogramEven {r.get("bins")} bins'}.get(op)
        return c["op"] == op and c["type"] == t and c["case"] == want
    if c["op"] != op or c["type"] != t:
        return False
    if op in ("segmented_reduce", "segmented_sort"):
        return c.get("segments") == r["n"] // seg_len(r)
    if op == "reduce_by_key":
        return c.get("run_length") == seg_len(r)
    return True


ours = list(rows(sys.argv[1]))
cub = list(rows(sys.argv[2]))
print("| op | type | n | input | env | ours ms | Gelem/s | of copy | CUB ms | CUB / ours |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in ours:
    c = next((c for c in cub if cub_match(r, c)), None)
    env = r.get("env", "")
    cms = f'{c["ms"]:.4f}' if c else ""
    ratio = f'**{c["ms"] / r["ms"]:.2f}**' if c else ""
    print(f'| {r["op"]} | {r["type"]} | 2^{r["n"].bit_length() - 1} | {r.get("input", "")} '
          f'| {env} | {r["ms"]:.4f} | {r["gelems"]:.1f} | {r["of_copy"]:.3f} | {cms} | {ratio} |')
