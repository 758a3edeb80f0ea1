"""Every check of an RFD pull request: one site build and Prettier side by side.

The build (through the `acp-docs` plugin) yields the schema, examples, RFD,
link and build findings, and the words of every page it rendered, which are
spell-checked in the same child process; Prettier (with its cache) runs beside
it. Nothing runs twice. A check that cannot run reports its error; the others
still report.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from acp_docs.checks import prettier, spell
from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.core.repo import Repo

BUILD_CHECKS = ("files", "schema", "examples", "rfds", "links", "build", "spell")
"""The checks whose findings come out of the one site build."""

CHECKS: tuple[str, ...] = (*BUILD_CHECKS, "format")
"""Every check by name, in the order the summary lists them."""

BUILD_TIMEOUT = 600.0


@dataclass
class BuildResult:
    """What the one build found, and why spelling could not run (when it could not)."""

    findings: list[Finding]
    spell_error: str | None = None


def build_findings(repo: Repo, spelling: bool = True) -> BuildResult:
    """Build the site once, in a child process with a timeout; every finding it yields."""
    done = runner.run(
        "mkdocs",
        [
            sys.executable,
            # -P: the checkout is not put on sys.path, so a `json.py` or `yaml.py` in a
            # pull request cannot stand in for the module the build imports.
            "-P",
            "-m",
            "acp_docs.mkdocs.sitebuild",
            str(repo.root),
            *(["--spell"] if spelling else []),
        ],
        cwd=repo.root,
        fix="run `make setup`, then `mkdocs build --strict` to see what stops it",
        timeout=BUILD_TIMEOUT,
    )
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise UsageError("mkdocs: the site build printed no result") from None
    if "error" in result:
        raise UsageError(str(result["error"]))
    return BuildResult([Finding(**item) for item in result["findings"]], result.get("spell_error"))


def _build_check(finding: Finding) -> str:
    return finding.check if finding.check in BUILD_CHECKS else "build"


Outcome = tuple[BuildResult | None, str | None, float]


def _timed(run_tool: Callable[[], BuildResult]) -> Outcome:
    start = time.perf_counter()
    try:
        return run_tool(), None, time.perf_counter() - start
    except UsageError as exc:
        return None, str(exc), time.perf_counter() - start
    except Exception as exc:
        return None, f"internal error: {type(exc).__name__}: {exc}", time.perf_counter() - start


def run(repo: Repo, names: Iterable[str] | None = None) -> list[CheckResult]:
    """Run the named checks (default: all) side by side; results in CHECKS order."""
    chosen = [n for n in CHECKS if names is None or n in set(names)]
    spell_error = None
    if "spell" in chosen:
        try:
            spell.preflight(repo)
        except UsageError as exc:
            spell_error = str(exc)
    spelling = "spell" in chosen and spell_error is None
    tools: dict[str, Callable[[], BuildResult]] = {}
    if spelling or any(n in BUILD_CHECKS and n != "spell" for n in chosen):
        tools["build"] = lambda: build_findings(repo, spelling=spelling)
    if "format" in chosen:
        tools["format"] = lambda: BuildResult(prettier.check(repo))
    with ThreadPoolExecutor(max_workers=max(1, len(tools))) as pool:
        futures = {tool: pool.submit(_timed, run_tool) for tool, run_tool in tools.items()}
        outcomes = {tool: future.result() for tool, future in futures.items()}
    results = []
    for name in chosen:
        tool = "build" if name in BUILD_CHECKS else name
        if name == "spell" and spell_error is not None:
            results.append(CheckResult(name, (), 0.0, spell_error))
            continue
        done, error, seconds = outcomes[tool]
        if error is None and name == "spell" and done is not None:
            error = done.spell_error
        if error is not None:
            results.append(CheckResult(name, (), seconds, error))
            continue
        found = done.findings if done is not None else []
        mine = [f for f in found if tool != "build" or _build_check(f) == name]
        results.append(CheckResult(name, tuple(sorted(set(mine))), seconds))
    return results
