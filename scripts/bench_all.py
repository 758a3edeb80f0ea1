"""`make bench`: every benchmark figure, one line each, next to its target.

Runs `acp-docs check` warm, cold and on growing RFDs (bench_check.py), the
5,000 example blocks (bench_examples.py, read from its output), the fast test
tier and, with `--suite`, the whole suite's CPU time (bench_tests.py; with
`--by-file`, that of each build or browser test file run alone), and a
save served again by `mkdocs serve` (bench_serve.py). A figure over its target
prints OVER; the run still exits 0 (benchmarks report, tests assert), unless a
benchmark could not run at all.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import bench_check
import bench_tests
from bench_report import figure

HERE = Path(__file__).resolve().parent
EXAMPLES_TARGET = 1.0
# bench_examples.py prints `examples 5000 blocks: 0.42 s`; older versions print
# `corpus: ... 5000 JSON blocks ...` and `wall time: best 0.42s, ...`.
EXAMPLES_LINE = re.compile(r"examples (\d+) blocks: ([0-9.]+) ?s")
CORPUS_LINE = re.compile(r"(\d+) JSON blocks")
BEST_LINE = re.compile(r"wall time: best ([0-9.]+) ?s")


def examples_figure(output: str) -> str | None:
    """The examples benchmark's line, from what bench_examples.py printed (None if unreadable)."""
    found = EXAMPLES_LINE.search(output)
    if found:
        blocks, seconds = int(found.group(1)), float(found.group(2))
    else:
        corpus, best = CORPUS_LINE.search(output), BEST_LINE.search(output)
        if not (corpus and best):
            return None
        blocks, seconds = int(corpus.group(1)), float(best.group(1))
    return figure(
        f"examples, {blocks:,} blocks",
        f"{seconds:.2f} s",
        f"≤ {EXAMPLES_TARGET:g} s",
        seconds <= EXAMPLES_TARGET,
    )


def script(name: str) -> subprocess.CompletedProcess[str]:
    """Run one benchmark script of this folder and capture what it prints."""
    return subprocess.run(
        [sys.executable, str(HERE / name)], capture_output=True, text=True, cwd=HERE.parent
    )


def main() -> int:
    """Run every benchmark and print each figure as it comes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="store_true", help="also time the whole test suite")
    parser.add_argument(
        "--by-file", action="store_true", help="also time each build or browser test file alone"
    )
    parser.add_argument("--runs", type=int, default=5, help="warm `acp-docs check` runs")
    args = parser.parse_args()
    status = 0
    lines, failed = bench_check.run_all(args.runs, [1, 10, 100])
    print("\n".join(lines), flush=True)
    status |= failed
    examples = script("bench_examples.py")
    line = examples_figure(examples.stdout)
    if line is None:
        print(f"examples: no figure in bench_examples.py's output:\n{examples.stdout}")
        print(examples.stderr, file=sys.stderr)
        status = 1
    else:
        print(line, flush=True)
    print("\n".join(bench_tests.fast_tier()), flush=True)
    if args.suite:
        print("\n".join(bench_tests.whole_suite()), flush=True)
    if args.by_file:
        print("\n".join(bench_tests.by_file()), flush=True)
    serve = script("bench_serve.py")
    print(serve.stdout.strip().splitlines()[-1] if serve.stdout.strip() else serve.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
