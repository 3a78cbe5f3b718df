#!/usr/bin/env python3
"""Times shell commands RUNS times each (after one warm-up), prints the
median wall time of each and the ratio of the first to each other one.

usage: timeit.py RUNS NAME1 CMD1 NAME2 CMD2 ... [--title TEXT]
"""
import shlex
import statistics
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    title = None
    if "--title" in args:
        i = args.index("--title")
        title = args[i + 1]
        del args[i : i + 2]
    runs = int(args[0])
    pairs = list(zip(args[1::2], args[2::2]))
    medians = []
    for name, cmd in pairs:
        argv = shlex.split(cmd)
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times.append(time.perf_counter() - t0)
        medians.append((name, statistics.median(times)))
    if title:
        print(f"## {title}")
    print(f"{'command':<32} {'median s':>10}   (runs={runs})")
    for name, m in medians:
        print(f"{name:<32} {m:>10.4f}")
    base = medians[0][1]
    for name, m in medians[1:]:
        print(f"ratio {medians[0][0]} / {name}: {base / m:.3f}")


if __name__ == "__main__":
    main()
