"""Time `acp-docs check --upstream DIR` on a real upstream checkout, cold and warm, beside
upstream's own three tools run one after another in the same run.

    .venv/bin/python scripts/bench_upstream.py ../agent-client-protocol [--mint PATH]

Cold runs with an empty cache folder (every page read by Node's MDX parser),
warm with the cache of the cold run (median of 5). Upstream's own checks, as
its `npm run check` and docs workflow run them: `prettier --check docs`
(the pinned Prettier, with the tree's configuration), `typos --config
./typos.toml docs`, and `mint broken-links` in `docs/` when Mintlify's CLI is
found (`--mint PATH`, or `mint` on PATH; it is about 1 GB and is not installed by
this project). Their sum is set beside the check, as a ratio. The check's
findings are counted by check and level. Nothing is written in DIR.
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

WARM_TARGET = 0.5
"""Seconds: a second run of an unchanged tree (the kept run)."""
COLD_SHARE = 0.5
"""The cold check takes at most this share of upstream's own three tools run in a row."""


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


def _timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, timeout=900)
    return time.perf_counter() - start


def _upstream_tools(directory: Path, mint: str | None) -> list[tuple[str, float | None]]:
    """Upstream's own checks of its docs, each timed once: (label, seconds or None)."""
    root = Path(__file__).resolve().parent.parent
    prettier = root / "node_modules" / ".bin" / "prettier"
    typos = Path(sys.executable).parent / "typos"
    found_mint = mint or shutil.which("mint")
    out: list[tuple[str, float | None]] = []
    out.append(
        (
            "prettier --check docs",
            _timed([str(prettier), "--check", "docs"], directory) if prettier.exists() else None,
        )
    )
    out.append(
        (
            "typos --config ./typos.toml docs",
            _timed([str(typos), "--config", "./typos.toml", "docs"], directory)
            if typos.exists()
            else None,
        )
    )
    out.append(
        (
            "mint broken-links",
            _timed([found_mint, "broken-links"], directory / "docs") if found_mint else None,
        )
    )
    return out


def main() -> int:
    """Print the cold and warm figures, mint's when it can run, and the findings by kind."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path, help="a checkout of the upstream repository")
    parser.add_argument("--mint", help="Mintlify's CLI, for `mint broken-links` (default: PATH)")
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
    tools = _upstream_tools(args.directory, args.mint)
    for label, seconds in tools:
        print(figure(label, "not installed" if seconds is None else f"{seconds:.2f} s"))
    ran = [seconds for _label, seconds in tools if seconds is not None]
    if ran:
        total = sum(ran)
        print(figure(f"upstream's {len(ran)} tools, one after another", f"{total:.2f} s"))
        print(figure("  their sum / check cold", f"{total / cold:.1f}x"))
        if len(ran) == len(tools):
            print(
                figure(
                    "upstream check cold / their sum",
                    f"{cold / total:.2f}",
                    f"≤ {COLD_SHARE:g}",
                    cold <= COLD_SHARE * total,
                )
            )
        print(figure("  their sum / check warm", f"{total / warm:.1f}x"))
    findings = json.loads(warm_runs[-1][1])["findings"]
    by_kind = Counter((f["rule"], f["level"]) for f in findings)
    for (rule, level), count in sorted(by_kind.items()):
        print(f"  {count:4d}  {level:<8} {rule}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
