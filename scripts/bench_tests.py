"""Benchmark the test phase of `make test` (`pytest -n 2`): the median wall time by its target.

Each run is the whole suite as `make test` runs it, browser tests included.
The target is 35 s on a 2-core machine (median of three runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 35.0


def main() -> int:
    """Run the suite `--runs` times and print each wall time and the median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    command = [
        str(Path(sys.executable).parent / "pytest"),
        "-n",
        "2",
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            print(done.stdout[-3000:], file=sys.stderr)
            return 1
    median = statistics.median(times)
    verdict = "met" if median <= TARGET else "NOT met"
    shown = ", ".join(f"{t:.1f}s" for t in times)
    print(f"machine: {os.cpu_count()} cores")
    figure = f"median {median:.1f}s of {shown}"
    print(f"test phase (pytest -n 2): {figure}; target {TARGET:.0f} s -> {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
