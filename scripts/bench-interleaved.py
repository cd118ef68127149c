#!/usr/bin/env python3
"""Times commands interleaved, round-robin, and prints each one's median
wall time and its ratio to the first's. hyperfine runs all runs of one
command before the next, so on a shared machine a drifting baseline skews
the ratios; interleaving exposes every command to the same drift.

    scripts/bench-interleaved.py RUNS 'CMD1 ARGS' 'CMD2 ARGS' ...

Each command is split like a shell would (shlex), but run without one. A
command that exits non-zero in a timed run is counted and named after
the medians (a failing command's time is not its work's), and the script
then exits 1.
"""
import shlex
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    cmds = [shlex.split(c) for c in sys.argv[2:]]
    times = [[] for _ in cmds]
    failed = [0 for _ in cmds]
    for c in cmds:  # warm up
        for _ in range(10):
            subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(runs):
        for j, c in enumerate(cmds):
            t = time.perf_counter()
            r = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[j].append(time.perf_counter() - t)
            if r.returncode != 0:
                failed[j] += 1
    base = statistics.median(times[0])
    for j, c in enumerate(sys.argv[2:]):
        m = statistics.median(times[j])
        print(f"{m * 1000:7.2f} ms  {m / base:5.2f}x  {c}")
    for j, c in enumerate(sys.argv[2:]):
        if failed[j]:
            print(f"bench-interleaved: {failed[j]} of {runs} runs failed: {c}", file=sys.stderr)
    if any(failed):
        sys.exit(1)


if __name__ == "__main__":
    main()
