#!/usr/bin/env python3
"""Markdown table of the loop ratio (the library's speed over the serial C
loop it replaces, of_serial in gpgpu-bench's JSON lines): one row per case,
one column per n; below 1.0 in bold. Several files: the median of each cell
over them. Two groups of files separated by "--": each cell "before -> after".

usage: python3 bench/table_loop.py loop-pocl.jsonl [more.jsonl ...] [-- after.jsonl ...]
"""
import json
import re
import statistics
import sys


def cells(paths):
    out = {}
    for path in paths:
        for line in open(path):
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if "of_serial" not in r:
                # search_sorted and gather give the loop ratio in the note
                m = re.search(r"\(library ([0-9.]+)x\)", r.get("note", ""))
                if not m:
                    continue
                r["of_serial"] = float(m.group(1))
            key = (r["op"], r.get("input", "random"), r["type"], r.get("bins", 0))
            out.setdefault(key, {}).setdefault(r["n"], []).append(r["of_serial"])
    return out


def fmt(v):
    if v is None:
        return ""
    return ("**%.2f**" if v < 1.0 else "%.2f") % v


def main(args):
    groups = [[]]
    for a in args:
        if a == "--":
            groups.append([])
        else:
            groups[-1].append(a)
    data = [cells(g) for g in groups]
    sizes = sorted({n for d in data for row in d.values() for n in row})
    keys = list(dict.fromkeys(k for d in data for k in d))
    print("| row | " + " | ".join("2^%d" % (n.bit_length() - 1) for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for key in keys:
        op, inp, t, bins = key
        name = op + ("/" + inp if inp != "random" else "") + " " + t
        name += " %d bins" % bins if bins else ""
        row = []
        for n in sizes:
            vals = [statistics.median(d[key][n]) if key in d and n in d[key] else None
                    for d in data]
            row.append(" -> ".join(fmt(v) for v in vals))
        print("| " + name + " | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
