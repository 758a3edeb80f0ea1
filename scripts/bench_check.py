"""Benchmark `acp-docs check` warm and cold on this repository, then on growing RFDs.

1. This repository, after set-up: one cold run (an empty cache folder, so no
   Prettier cache, template cache or bytecode) and `--runs` warm runs, whose
   median is compared with the target (2 s); then `--only rfds` and `--only
   schema`, which start no site build (target 0.6 s each).
2. Growth: a copy of the repository whose RFD carries 1x, 10x and 100x a
   block of 800 lines with 200 declared JSON blocks (100x is an RFD of about
   80,000 lines and 20,000 blocks); wall time and peak memory of each run, so
   the growth is visible. Target at 100x: 30 s and 300 MB.
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
from pathlib import Path

from bench_report import figure

ROOT = Path(__file__).resolve().parent.parent
RFD = "rfds/prompt-suggestions.md"
WARM_TARGET = 2.0
ONLY_TARGET = 0.6
SOURCES_ONLY = ("rfds", "schema")
"""Checks that need no site build: each alone, warm, is held to `ONLY_TARGET`."""
GROWTH_TARGET = (30.0, 300.0)
IGNORED = shutil.ignore_patterns(".git", ".venv", ".cache", "node_modules", "site", "__pycache__")

# Runs a command and prints its wall time and the peak RSS of its largest process.
MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({
    "seconds": time.perf_counter() - start,
    "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    "status": done.returncode,
    "stderr": done.stderr[-2000:],
    "stdout": done.stdout[-2000:],
}))
"""


def measure(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, object]:
    """Wall time, peak memory and exit status of one run of `command`."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], cwd=cwd, env=env, capture_output=True, text=True
    )
    return json.loads(done.stdout)


def chunk(index: int) -> str:
    """800 lines holding 200 declared JSON blocks (a quarter counter-examples), each distinct."""
    lines = []
    for block in range(200):
        if block % 4 == 3:
            title = "Invalid PromptSuggestion (v1, v2): the text is a number"
            payload = f'{{ "text": {index * 1000 + block} }}'
        elif block % 10 == 0:
            title = "SessionUpdate (v1, v2)"
            payload = '{ "sessionUpdate": "prompt_suggestions", "suggestions": [] }'
        else:
            title = "PromptSuggestion (v1, v2)"
            payload = f'{{ "text": "Run the tests of part {index}-{block}" }}'
        lines += [f'```json title="{title}"', payload, "```", ""]
    return "\n".join(lines)


def grown_copy(folder: Path, scale: int) -> Path:
    """A copy of the repository whose RFD holds `scale` chunks before its Shiny future."""
    repo = folder / f"x{scale}"
    shutil.copytree(ROOT, repo, ignore=IGNORED)
    (repo / "node_modules").symlink_to(ROOT / "node_modules")
    rfd = repo / RFD
    text = rfd.read_text(encoding="utf-8")
    extra = "".join(chunk(i) for i in range(scale))
    rfd.write_text(text.replace("## Shiny future\n", extra + "## Shiny future\n", 1), "utf-8")
    prettier = repo / "node_modules" / "prettier" / "bin" / "prettier.cjs"
    subprocess.run(["node", str(prettier), "--write", RFD], cwd=repo, capture_output=True)
    return repo


def run_all(runs: int, scales: list[int]) -> tuple[list[str], int]:
    """Each figure's line (see bench_report), and 1 if `acp-docs check` failed on this checkout."""
    acp = str(Path(sys.executable).parent / "acp-docs")
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="acp-docs-bench-") as tmp:
        cold_env = {**env, "ACP_DOCS_CACHE_DIR": str(Path(tmp) / "cold-cache")}
        cold = measure([acp, "check"], ROOT, cold_env)
        if cold["status"] != 0:
            print(cold["stdout"], cold["stderr"], file=sys.stderr)
            return lines, 1
        lines.append(figure("check cold (empty caches)", f"{cold['seconds']:.2f} s"))
        warm = [float(measure([acp, "check"], ROOT, env)["seconds"]) for _ in range(runs)]  # type: ignore[arg-type]
        median = statistics.median(warm)
        lines.append(
            figure(
                f"check warm (median of {runs})",
                f"{median:.2f} s",
                f"≤ {WARM_TARGET:g} s",
                median <= WARM_TARGET,
            )
        )
        for only in SOURCES_ONLY:
            alone = [
                float(measure([acp, "check", "--only", only], ROOT, env)["seconds"])  # type: ignore[arg-type]
                for _ in range(runs)
            ]
            middle = statistics.median(alone)
            lines.append(
                figure(
                    f"check --only {only} warm (median of {runs}, no site build)",
                    f"{middle:.2f} s",
                    f"≤ {ONLY_TARGET:g} s",
                    middle <= ONLY_TARGET,
                )
            )
        for scale in scales:
            repo = grown_copy(Path(tmp), scale)
            text = (repo / RFD).read_text(encoding="utf-8")
            done = measure([acp, "check"], repo, env)
            seconds, megabytes = float(done["seconds"]), float(done["peak_mb"])  # type: ignore[arg-type]
            label = f"check RFD x{scale} ({text.count(chr(10))} lines)"
            if done["status"] != 0:
                label += f" exit {done['status']}"
            if scale == 100:
                limit, memory = GROWTH_TARGET
                lines.append(figure(label, f"{seconds:.2f} s", f"≤ {limit:g} s", seconds <= limit))
                lines.append(
                    figure(
                        f"check RFD x{scale} peak memory",
                        f"{megabytes:.0f} MB",
                        f"≤ {memory:g} MB",
                        megabytes <= memory,
                    )
                )
            else:
                lines.append(figure(label, f"{seconds:.2f} s, {megabytes:.0f} MB"))
            shutil.rmtree(repo)
    return lines, 0


def main() -> int:
    """Time `acp-docs check` warm, cold and on growing RFDs; print each figure by its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="warm runs (median reported)")
    parser.add_argument("--scales", default="1,10,100", help="RFD sizes, in 800-line chunks")
    args = parser.parse_args()
    lines, status = run_all(args.runs, [int(s) for s in args.scales.split(",")])
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main())
