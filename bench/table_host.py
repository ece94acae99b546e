#!/usr/bin/env python3
"""Markdown table of the host part of bench/gpu.sh (or of bench/cpu-host.sh):
each primitive's host call next to its _buffer form, with the targets for
host calls checked (at most 1.25x the _buffer form on a CPU, at least the
bus's pageable or pinned rate on a GPU, at most 40 us at n = 1000).

usage: python3 bench/table_host.py host.jsonl > table.md
"""
import json
import re
import sys


def main(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    xfer = next((r for r in rows if "h2d_pinned_gbps" in r), {})
    w_pin, r_pin = xfer.get("h2d_pinned_gbps", 0), xfer.get("d2h_pinned_gbps", 0)
    w_page, r_page = xfer.get("h2d_pageable_gbps", 0), xfer.get("d2h_pageable_gbps", 0)
    print(f"Transfers measured in the run: host to device {w_page:.1f} GB/s from malloc'd memory, "
          f"{w_pin:.1f} from pinned; device to host {r_page:.1f} / {r_pin:.1f}.\n")
    print("| op | type | n | api | memory | ms | input GB/s | vs buffer form | serial C loop | target | met |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    buffer_ms = {(r["op"], r["type"], r["n"]): r["ms"] for r in rows if r.get("api") == "buffer"}
    for r in rows:
        op, t, n, ms = r["op"], r["type"], r["n"], r["ms"]
        size = 8 if t in ("i64", "u64", "f64") else 4
        inb = n * size * (2 if op == "sort_pairs" else 1)
        gbps = inb / (ms * 1e6)
        api = r.get("api", "buffer")
        mem = "pinned" if r.get("pinned") else ("device" if api == "buffer" else "malloc")
        if (api == "host" and op == "reduce" and t not in ("f32", "f64") and n > 4096
                and "host-reads" in r.get("plan", "") and not r.get("pinned")):
            mem += " (host reads)"
        buf = buffer_ms.get((op, t, n))
        vs = f"{ms / buf:.2f}x" if buf and api != "buffer" else ""
        target, met = "", ""
        serial = ""
        m = re.search(r"serial C (?:loop|LSD radix) ([0-9.]+) ms", r.get("note", ""))
        if m:
            serial = f"{float(m.group(1)):.3f} ms ({float(m.group(1)) / ms:.2f}x)"
        m = re.search(r"serial C ([0-9.]+) GB/s", r.get("note", ""))
        if m:
            sms = r["gbps"] * r["ms"] / float(m.group(1))
            serial = f"{sms:.3f} ms ({sms / ms:.2f}x)"
        cpu = "memcpy2_gbps" in r
        if cpu and api == "host" and buf:
            target, met = "<= 1.25x buffer", "yes" if ms <= 1.25 * buf else "no"
            if op in ("reduce", "scan", "histogram") and serial:
                ratio = float(serial.split("(")[1].rstrip("x)"))
                target += ", >= 1.3x serial"
                met = "yes" if ms <= 1.25 * buf and ratio >= 1.3 else "no"
        elif api == "host" and n == 1000:
            target, met = "<= 0.040 ms", "yes" if ms <= 0.040 else "no"
        elif api == "host" and op in ("reduce", "histogram") and t == "u32":
            want = 0.8 * w_pin if r.get("pinned") else 25.0
            target, met = f">= {want:.1f} GB/s", "yes" if gbps >= want else "no"
        elif api == "host" and op in ("sort", "sort_pairs") and r.get("pinned") and buf:
            bound = inb / (w_pin * 1e6) + inb / (r_pin * 1e6) + buf
            target = f"<= {1.3 * bound:.1f} ms (1.3 x {bound:.1f})"
            met = "yes" if ms <= 1.3 * bound else "no"
        print(f"| {op} | {t} | {n} | {api} | {mem} | {ms:.3f} | {gbps:.1f} | {vs} | {serial} | {target} | {met} |")


if __name__ == "__main__":
    main(sys.argv[1])
