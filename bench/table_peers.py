#!/usr/bin/env python3
"""Table of ratios from the peers part of bench/gpu.sh: ours / best peer
(CuPy or PyTorch, same op, dtype and n) and ours / the device's buffer-copy
bandwidth measured in the same gpgpu-bench run; with a third file, also ours /
native CUB from bench/cub_sort_scan_histogram.cu in the same device command.
Usage: python3 bench/table_peers.py sweep.jsonl peers.jsonl [cub.jsonl] > table.md"""
import json, sys

PEER_OP = {  # our op -> peer ops that compute the same thing
    "reduce": ["reduce_sum"], "scan": ["scan_incl"], "sort": ["sort_keys"],
    "sort_pairs": ["sort_pairs_i32"], "histogram": ["histogram256", "histc256"],
}
DT = {"u32": ["uint32", "int32"], "f32": ["float32"]}

def rows(path):
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            yield json.loads(line)

ours = list(rows(sys.argv[1]))
peers = list(rows(sys.argv[2]))
cub = list(rows(sys.argv[3])) if len(sys.argv) > 3 else []

def cub_case(r):
    """Native CUB's call that computes what row r timed, or None."""
    want = {"scan": "ExclusiveSum" if r.get("input") == "exclusive" else "InclusiveSum",
            "sort": "SortKeys", "sort_pairs": "SortPairs"}.get(r["op"])
    if r["op"] == "histogram":
        want = f'HistogramEven {r.get("bins")} bins'
    if r.get("input") not in ("random", "exclusive", None):
        return None
    for c in cub:
        if c["op"] == r["op"] and c["type"] == r["type"] and c["n"] == r["n"] and c["case"] == want:
            return c
    return None

print("| op | type | n | input | ours Gelem/s | ours GB/s | of copy | best peer | peer Gelem/s | ours/peer | native CUB Gelem/s | ours/CUB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in ours:
    cands = [p for p in peers if p["op"] in PEER_OP.get(r["op"], []) and p["n"] == r["n"]
             and p["dtype"] in DT.get(r["type"], [])
             and (r["op"] != "histogram" or r.get("bins") == 256)]
    if r["op"] == "sort_pairs" and r["type"] != "u32":
        cands = []
    best = max(cands, key=lambda p: p["Gelem_s"], default=None)
    peer = f'{best["lib"]} {best["op"]} {best["dtype"]}' if best else "-"
    pg = f'{best["Gelem_s"]:.1f}' if best else "-"
    ratio = f'{r["gelems"] / best["Gelem_s"]:.2f}' if best and r.get("input") == "random" else "-"
    bins = f'/{r["bins"]}' if r.get("bins") else ""
    c = cub_case(r)
    cg = f'{c["gelems"]:.1f}' if c else "-"
    cr = f'{r["gelems"] / c["gelems"]:.2f}' if c else "-"
    print(f'| {r["op"]}{bins} | {r["type"]} | 2^{r["n"].bit_length() - 1} | {r.get("input", "random")} | '
          f'{r["gelems"]:.1f} | {r["gbps"]:.0f} | {r["of_copy"]:.2f} | {peer} | {pg} | {ratio} | {cg} | {cr} |')
