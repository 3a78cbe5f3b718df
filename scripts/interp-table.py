#!/usr/bin/env python3
"""Markdown table from runs of scripts/interp-counts.sh (issue 18 item 5).

Usage: scripts/interp-table.py [--wide] LABEL=FILE [LABEL=FILE ...]
Each FILE holds the output of one interp-counts.sh run (for instance the
plain search with EXTRA=--no-reduce, the reduced search of an older build,
and that of this build). One row per example and thread count; per LABEL a
cell "behaviours / executions, wall seconds (CPU seconds, when the run
recorded them)", where executions counts those
that reached their end plus those merged at a known state, and a run that
stopped at the time limit shows "INCOMPLETE" with the behaviours it had
found (not a count of the example's behaviours).

--wide: one row per example, a column per label and thread count; cells
"behaviours / executions", with CPU seconds where recorded (wall times on
a loaded machine say little), "INCOMPLETE" where the run was stopped.
"""
import sys


def load(path, wide=False):
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
            cpu = [p[4:] for p in parts[7:] if p.startswith("cpu=")]
            cpu = float(cpu[0]) if cpu and cpu[0] != "-" else None
            if wide:
                cell = f"{distinct} / {runs:,}"
                if cpu is not None:
                    cell += f", {cpu:.1f} s"
            else:
                cell = f"{distinct} / {runs:,}, {float(secs):.1f} s"
                if cpu is not None:
                    cell += f" ({cpu:.1f} s CPU)"
            if complete != "complete":
                cell += ", INCOMPLETE"
            rows[(name, int(threads))] = cell
    return rows


def main(args):
    wide = bool(args) and args[0] == "--wide"
    if wide:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    runs = []
    for a in args:
        label, _, path = a.partition("=")
        if not path:
            sys.exit(f"expected LABEL=FILE, got {a!r}")
        runs.append((label, load(path, wide)))
    if wide:
        cols = [(label, t) for label, rows in runs for t in sorted({k[1] for k in rows})]
        names = sorted({k[0] for _, rows in runs for k in rows})
        table = dict(runs)
        print("| example | " + " | ".join(f"{label}, {t} threads" for label, t in cols) + " |")
        print("|---|" + "---|" * len(cols))
        for name in names:
            cells = [table[label].get((name, t), "-") for label, t in cols]
            print(f"| {name} | " + " | ".join(cells) + " |")
        return
    keys = sorted({k for _, rows in runs for k in rows})
    print("| example | threads | " + " | ".join(label for label, _ in runs) + " |")
    print("|---|---|" + "---|" * len(runs))
    for name, threads in keys:
        cells = [rows.get((name, threads), "-") for _, rows in runs]
        print(f"| {name} | {threads} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
