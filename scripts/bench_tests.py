"""Benchmark the test tiers: the fast tier's size and wall time, the whole suite's CPU time.

The fast tier is `pytest -n 2 -m "not build and not browser"` (`make test-fast`):
at least 200 tests in at most 20 s of wall time on a 2-core machine. The whole
suite is `pytest -n 2` as `make test` runs it: at most 120 CPU seconds, user
plus system time of pytest and every process it started (its workers, the
builds, Node, Chromium). Chromium's helper processes outlive the process that
started them and would go uncounted: on Linux this script takes them in as
their "subreaper" and reaps them, so their time counts too. The suite takes
minutes, so it runs only with `--suite`. `--by-file` shows where that time
goes: each file's build and browser tests run alone (`-n 0`). Each of those
runs pays pytest's start-up and a worker's imports (about 1 s) and builds the
shared site itself when it reads it, so their sum is more than those tests
cost in the suite.
Wall time depends on what else the machine runs: measure on a quiet machine.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from bench_report import figure

ROOT = Path(__file__).resolve().parent.parent
FAST = ("-m", "not build and not browser")
SLOW = "build or browser"
FAST_TESTS, FAST_SECONDS, SUITE_CPU = 200, 20.0, 120.0
PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans() -> bool:
    """Become the subreaper of every process pytest starts (Linux): orphans are ours to reap."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _reap_orphans(grace: float = 10.0) -> None:
    """Wait for every adopted process still running or unreaped, for at most `grace` seconds."""
    deadline = time.monotonic() + grace
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # none left
        if pid == 0:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


def run_pytest(*args: str, workers: int = 2) -> tuple[int, float, float, str]:
    """Run pytest -n `workers` with `args`: tests passed, wall and CPU seconds, its last lines."""
    command = [
        str(Path(sys.executable).parent / "pytest"),
        "-n",
        str(workers),
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    if not _adopt_orphans():
        print("  (no subreaper here: processes that outlive their parent are not counted)")
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run([*command, *args], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    _reap_orphans()
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    passed = re.search(r"(\d+) passed", done.stdout)
    if done.returncode == 5:  # nothing selected: not a failure
        return 0, wall, cpu, ""
    tail = "\n".join(done.stdout.strip().splitlines()[-5:])
    return (int(passed.group(1)) if passed else 0), wall, cpu, tail if done.returncode else ""


def fast_tier() -> list[str]:
    """The fast tier's figures: how many tests, in how long."""
    count, wall, cpu, failed = run_pytest(*FAST)
    lines = [
        figure("fast tier: tests", f"{count}", f"≥ {FAST_TESTS}", count >= FAST_TESTS),
        figure("fast tier: wall", f"{wall:.1f} s", f"≤ {FAST_SECONDS:g} s", wall <= FAST_SECONDS),
        figure("fast tier: CPU (user+sys)", f"{cpu:.1f} s"),
    ]
    if failed:
        lines.append(f"  the fast tier failed:\n{failed}")
    return lines


def whole_suite() -> list[str]:
    """The whole suite's figures: its CPU time (the target), wall time and test count."""
    count, wall, cpu, failed = run_pytest()
    lines = [
        figure(
            "whole suite: CPU (user+sys)", f"{cpu:.1f} s", f"≤ {SUITE_CPU:g} s", cpu <= SUITE_CPU
        ),
        figure("whole suite: wall", f"{wall:.1f} s"),
        figure("whole suite: tests passed", f"{count}"),
    ]
    if failed:
        lines.append(f"  the suite failed:\n{failed}")
    return lines


def _slow_files() -> list[str]:
    """The test files holding build or browser tests, as pytest collects them."""
    pytest = str(Path(sys.executable).parent / "pytest")
    done = subprocess.run(
        [pytest, "-q", "--co", "-p", "no:cacheprovider", "-m", SLOW],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return sorted({line.split("::")[0] for line in done.stdout.splitlines() if "::" in line})


def by_file() -> list[str]:
    """The CPU and wall time of each file's build and browser tests, run alone, most first."""
    rows = []
    for name in _slow_files():
        count, wall, cpu, failed = run_pytest("-m", SLOW, name, workers=0)
        verdict = f"{count} passed" + (", FAILED" if failed else "")
        rows.append((cpu, f"  {name:<44} {cpu:6.1f} CPU-s {wall:6.1f} s  {verdict}"))
    rows.sort(reverse=True)
    return [
        "build and browser tests by file, each run alone (pytest -n 0):",
        *(line for _cpu, line in rows),
        f"  {'sum':<44} {sum(cpu for cpu, _line in rows):6.1f} CPU-s",
    ]


def main() -> int:
    """Print the fast tier's figures, the suite's (`--suite`), each slow file's (`--by-file`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="store_true", help="also run the whole suite (minutes)")
    parser.add_argument(
        "--by-file", action="store_true", help="also time each build or browser test file alone"
    )
    args = parser.parse_args()
    print("\n".join(fast_tier()))
    if args.suite:
        print("\n".join(whole_suite()))
    if args.by_file:
        print("\n".join(by_file()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
