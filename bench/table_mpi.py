#!/usr/bin/env python3
"""Markdown table of gpgpu-mpi-bench --json lines (bench/mpi.sh).

usage: python3 bench/table_mpi.py mpi.jsonl > mpi.md

Per primitive: weak-scaling times per rank count and the efficiency
(time at 1 rank / time at the most ranks), strong-scaling times and the
speedup (the same ratio), and the share of time spent in MPI at the most
ranks (weak / strong); then the sorts' steps where the lines carry them.
"""
import json
import sys


def main(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    models = [r for r in rows if r["op"] == "model"]
    rows = [r for r in rows if r["op"] != "model"]
    ops, ranks = [], sorted({r["ranks"] for r in rows})
    by = {}
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
        by[(r["op"], r["scaling"], r["ranks"])] = r
    sizes = {s: next((r["n_per_rank"] if s == "weak" else r["n_global"]
                      for r in rows if r["scaling"] == s), 0) for s in ("weak", "strong")}
    top = ranks[-1] if ranks else 1
    head = (["op"] + ["weak %d" % p for p in ranks] + ["efficiency"] +
            ["strong %d" % p for p in ranks] + ["speedup", "MPI share at %d (weak / strong)" % top])
    print("weak: 2^%d elements per rank; strong: 2^%d in all; ms, median of %s; device %s\n" % (
        sizes["weak"].bit_length() - 1, sizes["strong"].bit_length() - 1,
        rows[0]["repeat"] if rows else "?", rows[0]["device"] if rows else "?"))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for op in ops:
        cells = [op]
        for s in ("weak", "strong"):
            t = [by.get((op, s, p)) for p in ranks]
            cells += ["%.2f" % r["ms"] if r else "-" for r in t]
            ok = t[0] and t[-1]
            cells.append("%.2f" % (t[0]["ms"] / t[-1]["ms"]) if ok else "-")
        share = [by.get((op, s, top)) for s in ("weak", "strong")]
        cells.append(" / ".join("%.0f %%" % (r["mpi_share"] * 100) if r else "-" for r in share))
        print("| " + " | ".join(cells) + " |")
    # the device sort against the sum of its steps at rates measured alone
    # (gpgpu-mpi-bench --model), weak scaling
    if models:
        print("\nThe device sort of arrays against its model (weak; ms; the steps' rates "
              "measured with every rank at once, gpgpu-mpi-bench --model):\n")
        print("| ranks | read | write | exchange of (P-1)/P | sort | sort_pairs | "
              "sort_array model | measured | ratio | sort_pairs_array model | measured | ratio |")
        print("|" + "---|" * 12)
        for m in sorted(models, key=lambda m: m["ranks"]):
            cells = ["%d" % m["ranks"]] + ["%.2f" % m[k] for k in (
                "read_ms", "write_ms", "exchange_ms", "sort_ms", "sort_pairs_ms")]
            for op in ("sort_array", "sort_pairs_array"):
                r = by.get((op, "weak", m["ranks"]))
                model = m[op + "_model_ms"]
                cells += ["%.2f" % model, "%.2f" % r["ms"] if r else "-",
                          "%.2f" % (r["ms"] / model) if r and model > 0 else "-"]
            print("| " + " | ".join(cells) + " |")
    # the sorts' steps (gpgpu-mpi-bench --phases), where the lines carry them
    steps = [r for r in rows if r.get("phases")]
    if steps:
        print("\nSteps of the last timed call (slowest rank's time; bytes of all ranks):\n")
        for r in steps:
            print("- %s, %s, %d ranks: %s" % (r["op"], r["scaling"], r["ranks"], r["phases"]))


if __name__ == "__main__":
    main(sys.argv[1])
