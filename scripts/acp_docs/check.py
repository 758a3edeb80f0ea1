"""Every check of an RFD pull request: one site build and the independent tools side by side.

The build (through the `acp-docs` plugin) yields the schema, examples, RFD,
link and build findings; spelling and Prettier run beside it. Nothing runs
twice. A check that cannot run reports its error; the others still report.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from acp_docs import prettier, runner, spell
from acp_docs.errors import UsageError
from acp_docs.findings import CheckResult, Finding
from acp_docs.repo import Repo

BUILD_CHECKS = ("files", "schema", "examples", "rfds", "links", "build")
"""The checks whose findings come out of the one site build."""

CHECKS: tuple[str, ...] = (*BUILD_CHECKS, "spell", "format")
"""Every check by name, in the order the summary lists them."""

BUILD_TIMEOUT = 600.0


def build_findings(repo: Repo) -> list[Finding]:
    """Build the site once, in a child process with a timeout; every finding it yields."""
    done = runner.run(
        "mkdocs",
        [sys.executable, "-m", "acp_docs.sitebuild", str(repo.root)],
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
    return [Finding(**item) for item in result["findings"]]


def _build_check(finding: Finding) -> str:
    return finding.check if finding.check in BUILD_CHECKS else "build"


TOOLS: dict[str, Callable[[Repo], list[Finding]]] = {
    "build": build_findings,
    "spell": spell.check,
    "format": prettier.check,
}


def _timed(name: str, repo: Repo) -> tuple[list[Finding] | None, str | None, float]:
    start = time.perf_counter()
    try:
        return TOOLS[name](repo), None, time.perf_counter() - start
    except UsageError as exc:
        return None, str(exc), time.perf_counter() - start
    except Exception as exc:
        return None, f"internal error: {type(exc).__name__}: {exc}", time.perf_counter() - start


def run(repo: Repo, names: Iterable[str] | None = None) -> list[CheckResult]:
    """Run the named checks (default: all) side by side; results in CHECKS order."""
    chosen = [n for n in CHECKS if names is None or n in set(names)]
    tools = []
    if any(n in BUILD_CHECKS for n in chosen):
        tools.append("build")
    tools += [n for n in ("spell", "format") if n in chosen]
    with ThreadPoolExecutor(max_workers=max(1, len(tools))) as pool:
        futures = {tool: pool.submit(_timed, tool, repo) for tool in tools}
        outcomes = {tool: future.result() for tool, future in futures.items()}
    results = []
    for name in chosen:
        tool = "build" if name in BUILD_CHECKS else name
        found, error, seconds = outcomes[tool]
        if error is not None:
            results.append(CheckResult(name, (), seconds, error))
            continue
        mine = [f for f in found or [] if tool != "build" or _build_check(f) == name]
        results.append(CheckResult(name, tuple(sorted(set(mine))), seconds))
    return results
