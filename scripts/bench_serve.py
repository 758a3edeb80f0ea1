"""Benchmark `mkdocs serve`: from saving an RFD to the served page showing the edit.

A copy of the repository is served on a free loopback port. Each round
rewrites one sentence of the RFD with a new token, then polls the RFD page
until the token is served; the time from the write to that moment is one
figure. The median of `--runs` rounds is printed next to the target (1 s).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bench_check import IGNORED  # noqa: E402
from bench_report import figure  # noqa: E402
from devserver import DevServer  # noqa: E402

RFD = "rfds/prompt-suggestions.md"
PAGE = "rfds/prompt-suggestions/"
TARGET = 1.0


def main() -> int:
    """Serve a copy, edit its RFD `--runs` times, print each figure and the median."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="acp-docs-bench-serve-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=IGNORED)
        (copy / "node_modules").symlink_to(ROOT / "node_modules")
        rfd = copy / RFD
        original = rfd.read_text(encoding="utf-8")
        anchor = "\n## Elevator pitch\n"
        if anchor not in original:
            print(f"{RFD}: no '## Elevator pitch' heading to edit after", file=sys.stderr)
            return 2
        figures = []
        with DevServer(copy) as server:
            server.wait_for(PAGE, lambda page: page is not None and "Elevator" in page, 60)
            time.sleep(1.0)  # let the watcher settle after the first build
            for run in range(args.runs):
                token = f"Benchmarktoken{run}x{time.time_ns() % 100000}"
                rfd.write_text(
                    original.replace(anchor, f"{anchor}\n{token}\n", 1), encoding="utf-8"
                )
                start = time.perf_counter()
                server.wait_for(PAGE, lambda page, t=token: page is not None and t in page, 60)
                figures.append(time.perf_counter() - start)
                print(f"  edit {run + 1}: served after {figures[-1]:.2f} s")
                time.sleep(0.5)
    median = statistics.median(figures)
    label = f"serve: edit to served (median of {len(figures)})"
    print(figure(label, f"{median:.2f} s", f"≤ {TARGET:g} s", median <= TARGET))
    return 0


if __name__ == "__main__":
    sys.exit(main())
