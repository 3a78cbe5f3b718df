#!/usr/bin/env python3
"""Markdown table from runs of scripts/interp-counts.sh (issue 18 item 5).

Usage: scripts/interp-table.py LABEL=FILE [LABEL=FILE ...]
Each FILE holds the output of one interp-counts.sh run (for instance the
plain search with EXTRA=--no-reduce, the reduced search of an older build,
and that of this build). One row per example and thread count; per LABEL a
cell "behaviours / executions, wall seconds (CPU seconds, when the run
recorded them)", where executions counts those
that reached their end plus those merged at a known state, and a run that
stopped at the time limit shows "INCOMPLETE" with the behaviours it had
found (not a count of the example's behaviours).
"""
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0] == "#" or len(parts) < 4:
                continue
            threads, name = parts[0], parts[1].split("/")[-1].removesuffix(".ll")
            if parts[2] == "TIMEOUT":
                rows[(name, int(threads))] = "killed (timeout)"
                continue
            explored, merged, distinct, complete, secs = parts[2:7]
            if explored == "ERR":
                rows[(name, int(threads))] = "error"
                continue
            runs = int(explored) + (int(merged) if merged != "-" else 0)
            cell = f"{distinct} / {runs:,}, {float(secs):.1f} s"
            cpu = [p[4:] for p in parts[7:] if p.startswith("cpu=")]
            if cpu and cpu[0] != "-":
                cell += f" ({float(cpu[0]):.1f} s CPU)"
            if complete != "complete":
                cell += ", INCOMPLETE"
            rows[(name, int(threads))] = cell
    return rows


def main(args):
    if not args:
        sys.exit(__doc__)
    runs = []
    for a in args:
        label, _, path = a.partition("=")
        if not path:
            sys.exit(f"expected LABEL=FILE, got {a!r}")
        runs.append((label, load(path)))
    keys = sorted({k for _, rows in runs for k in rows})
    print("| example | threads | " + " | ".join(label for label, _ in runs) + " |")
    print("|---|---|" + "---|" * len(runs))
    for name, threads in keys:
        cells = [rows.get((name, threads), "-") for _, rows in runs]
        print(f"| {name} | {threads} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
