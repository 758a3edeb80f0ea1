"""Every check of an RFD pull request: one site build and the other checks side by side.

The checks are those of the registry (`acp_docs.checks.registry`). The build
(through the `acp-docs` plugin, in a child process started first) yields the
findings of every check with `build` set, and runs their `after_build` hooks
(spelling of the words of every page it rendered) in the same child process;
each check outside the build (Prettier, with its cache) runs its `run` hook
beside it. Nothing runs twice. A check that cannot run reports its error; the
others still report.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from acp_docs.checks import registry
from acp_docs.config.repo import Repo
from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding

BUILD_TIMEOUT = 600.0


def __getattr__(name: str) -> tuple[str, ...]:
    """`CHECKS`: every check by name, in the order the summary lists them (from the registry)."""
    if name == "CHECKS":
        return tuple(registry.load_checks())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class BuildResult:
    """What a check's tool found, and why a check of it could not run (by check name)."""

    findings: list[Finding]
    errors: dict[str, str] = field(default_factory=dict)


def start_build(repo: Repo, after: Iterable[str] = ()) -> Callable[[], BuildResult]:
    """Start building the site once, in a child process with a timeout; the call that waits
    for it returns every finding it yields.

    `after` names the checks whose `after_build` hooks run once the pages are rendered.
    """
    wait = runner.start_module(
        "mkdocs",
        "acp_docs.mkdocs.sitebuild",
        [str(repo.root), *(f"--check={name}" for name in after)],
        cwd=repo.root,
        fix="run `make setup`, then `mkdocs build --strict` to see what stops it",
        timeout=BUILD_TIMEOUT,
    )

    def result() -> BuildResult:
        done = wait()
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            raise UsageError("mkdocs: the site build printed no result") from None
        if "error" in result:
            raise UsageError(str(result["error"]))
        findings = [Finding(**item) for item in result["findings"]]
        return BuildResult(findings, dict(result.get("check_errors", {})))

    return result


Outcome = tuple[BuildResult | None, str | None, float]


def _timed(run_tool: Callable[[], BuildResult]) -> Outcome:
    start = time.perf_counter()
    try:
        return run_tool(), None, time.perf_counter() - start
    except UsageError as exc:
        return None, str(exc), time.perf_counter() - start
    except Exception as exc:
        return None, f"internal error: {type(exc).__name__}: {exc}", time.perf_counter() - start


def _started(start: Callable[[], Callable[[], BuildResult]]) -> Callable[[], BuildResult]:
    """`start()` now; a tool that cannot start reports that when it is waited for."""
    try:
        return start()
    except UsageError as exc:
        failure = exc

        def failed() -> BuildResult:
            raise failure

        return failed


def _beside(repo: Repo, check: registry.Check) -> Callable[[], BuildResult]:
    def run_tool() -> BuildResult:
        return BuildResult(list(check.run(repo)) if check.run is not None else [])

    return run_tool


def run(repo: Repo, names: Iterable[str] | None = None) -> list[CheckResult]:
    """Run the named checks (default: all) side by side; results in the registry's order."""
    checks = registry.load_checks()
    wanted = None if names is None else set(names)
    chosen = [c for c in checks.values() if wanted is None or c.name in wanted]
    errors: dict[str, str] = {}
    for check in chosen:
        if check.preflight is not None:
            try:
                check.preflight(repo)
            except UsageError as exc:
                errors[check.name] = str(exc)
    building = [c for c in chosen if c.build and c.name not in errors]
    tools: dict[str, Callable[[], BuildResult]] = {}
    if building:
        # Started before any thread, so the build can be forked from this process.
        after = [c.name for c in building if c.after_build is not None]
        tools["build"] = _started(lambda: start_build(repo, after))
    for check in chosen:
        if not check.build and check.name not in errors:
            tools[check.name] = _beside(repo, check)
    with ThreadPoolExecutor(max_workers=max(1, len(tools))) as pool:
        futures = {tool: pool.submit(_timed, run_tool) for tool, run_tool in tools.items()}
        outcomes = {tool: future.result() for tool, future in futures.items()}
    built = {name for name, check in checks.items() if check.build}
    results = []
    for check in chosen:
        name = check.name
        if name in errors:
            results.append(CheckResult(name, (), 0.0, errors[name]))
            continue
        tool = "build" if check.build else name
        done, error, seconds = outcomes[tool]
        if error is None and done is not None:
            error = done.errors.get(name)
        if error is not None:
            results.append(CheckResult(name, (), seconds, error))
            continue
        found = done.findings if done is not None else []
        if tool == "build":
            # A finding of no registered build check is the build's own.
            found = [f for f in found if (f.check if f.check in built else "build") == name]
        results.append(CheckResult(name, tuple(sorted(set(found))), seconds))
    return results
