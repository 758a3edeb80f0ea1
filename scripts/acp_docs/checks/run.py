"""Every check of an RFD pull request: each at the stage it needs, nothing run twice.

The checks are those of the registry (`acp_docs.checks.registry`). The
checkout is loaded once in this process, and every selected check's `sources`
hook runs here, in the main thread, where each file it reads has its time
budget. Only when a selected check needs pages (a `page`
or `site` hook, or the build's own problems) is the site built: once, in a
child process started first, which runs just those checks' hooks and hands
back their findings. A check that cannot run reports its error; the others
still report.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from acp_docs.checks import checkout as checkouts
from acp_docs.checks import registry
from acp_docs.config.repo import Repo
from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding

BUILD_TIMEOUT = 600.0
BUILD = " build"
"""The site build's key among the tools (no check has a name with a space)."""


@dataclass
class BuildResult:
    """What a check's tool found, and why a check of it could not run (by check name)."""

    findings: list[Finding]
    errors: dict[str, str] = field(default_factory=dict)


def start_build(repo: Repo, names: Iterable[str]) -> Callable[[], BuildResult]:
    """Start building the site once, in a child process with a timeout; the call that waits
    for it returns every finding it yields.

    `names` are the checks whose `page` and `site` hooks run in the build (their
    `sources` hooks run in this process).
    """
    wait = runner.start_module(
        "mkdocs",
        "acp_docs.mkdocs.sitebuild",
        [str(repo.root), *(f"--check={name}" for name in names)],
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
    except (Exception, SystemExit) as exc:  # a check's own code failing is that check's error
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


class _Loaded:
    """The checkout, loaded once, by the first `sources` hook that asks for it."""

    def __init__(self, repo: Repo) -> None:
        self.root = repo.root
        self._checkout: checkouts.Checkout | None = None

    def get(self) -> checkouts.Checkout:
        if self._checkout is None:
            self._checkout = checkouts.load(self.root)
        return self._checkout


def _beside(loaded: _Loaded, check: registry.Check) -> Callable[[], BuildResult]:
    def run_tool() -> BuildResult:
        hook = check.sources
        found = registry.owned(check, hook(loaded.get())) if hook is not None else []
        return BuildResult(found)

    return run_tool


def run(repo: Repo, names: Iterable[str] | None = None) -> list[CheckResult]:
    """Run the named checks (default: all) at their stages; results in the registry's order."""
    checks = registry.load_checks(repo.root)
    wanted = None if names is None else set(names)
    chosen = [
        c for c in checks.values() if (wanted is None or c.name in wanted) and "check" in c.runs_in
    ]
    errors: dict[str, str] = {}
    for check in chosen:
        if check.preflight is not None:
            try:
                check.preflight(repo)
            except UsageError as exc:
                errors[check.name] = str(exc)
            except (Exception, SystemExit) as exc:
                errors[check.name] = f"internal error: {type(exc).__name__}: {exc}"
    runnable = [c for c in chosen if c.name not in errors]
    building = [c.name for c in runnable if c.needs_pages]
    outcomes: dict[str, Outcome] = {}
    started = time.perf_counter()
    # The build goes first, in a child process, and works while this process runs the
    # sources hooks one after another in its main thread: there each file a hook reads has
    # its time budget (`acp_docs.core.budget` needs the main thread's timer).
    wait_build = _started(lambda: start_build(repo, building)) if building else None
    loaded = _Loaded(repo)
    for check in registry.with_hook(runnable, "sources"):
        outcomes[check.name] = _timed(_beside(loaded, check))
    if wait_build is not None:
        done, error, _took = _timed(wait_build)
        outcomes[BUILD] = (done, error, time.perf_counter() - started)
    results = []
    for check in chosen:
        name = check.name
        if name in errors:
            results.append(CheckResult(name, (), 0.0, errors[name], check.first))
            continue
        tools_of = (name, BUILD) if check.needs_pages else (name,)
        parts = [outcomes[tool] for tool in tools_of if tool in outcomes]
        if tool_error := next((error for _done, error, _s in parts if error is not None), None):
            results.append(CheckResult(name, (), _seconds(parts), tool_error, check.first))
            continue
        built = outcomes.get(BUILD, (None, None, 0.0))[0] if check.needs_pages else None
        if built is not None and name in built.errors:
            results.append(CheckResult(name, (), _seconds(parts), built.errors[name], check.first))
            continue
        found = [f for done, _e, _s in parts if done is not None for f in done.findings]
        mine = [f for f in found if f.check == name]
        results.append(
            CheckResult(name, tuple(sorted(set(mine))), _seconds(parts), None, check.first)
        )
    return results


def _seconds(parts: list[Outcome]) -> float:
    return max((seconds for _done, _error, seconds in parts), default=0.0)
