"""Time `acp-docs check --upstream DIR` on a real upstream checkout, cold and warm.

    .venv/bin/python scripts/bench_upstream.py ../agent-client-protocol

Cold runs with an empty cache folder (every page read by Node's MDX parser),
warm with the cache of the cold run (median of 5). Next to them, upstream's own
link check alone (`mint broken-links`, run in DIR) when `mint` is installed.
The check's findings are counted by check and level. Nothing is written in DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_report import figure

WARM_TARGET = 5.0
"""Seconds: "the whole upstream docs tree checked in a few seconds warm"."""


def _run(directory: Path, env: dict[str, str]) -> tuple[float, str]:
    command = [str(Path(sys.executable).parent / "acp-docs"), "check", "--format", "json"]
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--upstream", str(directory)], capture_output=True, text=True, env=env
    )
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"acp-docs check --upstream failed:\n{done.stderr}")
    return seconds, done.stdout


def main() -> int:
    """Print the cold and warm figures, mint's when it can run, and the findings by kind."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="a checkout of the upstream repository")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "ACP_DOCS_CACHE_DIR": cache}
        cold, _out = _run(args.directory, env)
        warm_runs = [_run(args.directory, env) for _ in range(5)]
    warm = statistics.median(s for s, _ in warm_runs)
    print(figure("upstream check cold", f"{cold:.2f} s"))
    print(
        figure(
            "upstream check warm (median of 5)",
            f"{warm:.2f} s",
            f"≤ {WARM_TARGET:g} s",
            warm <= WARM_TARGET,
        )
    )
    mint = shutil.which("mint")
    if mint is None:
        print(figure("mint broken-links", "not installed"))
    else:
        start = time.perf_counter()
        subprocess.run([mint, "broken-links"], cwd=args.directory / "docs", capture_output=True)
        print(figure("mint broken-links", f"{time.perf_counter() - start:.2f} s"))
    findings = json.loads(warm_runs[-1][1])["findings"]
    by_kind = Counter((f["rule"], f["level"]) for f in findings)
    for (rule, level), count in sorted(by_kind.items()):
        print(f"  {count:4d}  {level:<8} {rule}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
