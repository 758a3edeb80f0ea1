"""`acp-docs check --upstream DIR`: every upstream check of a tree, in place, read-only.

The tree is read once (`tree`), its pages once by the MDX parser (`scan`);
each check then reports on what was read: files that cannot be read, pages
that do not compile, examples, navigation and links. A run on a tree whose
every input is unchanged is the last run's, from the cache (`runcache`).
Nothing is written into DIR; the only writes are to the user's cache.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.upstream import registry, runcache
from acp_docs.upstream.registry import UpstreamCheck, UpstreamTree


def names() -> tuple[str, ...]:
    """The upstream checks, in the order the summary lists them (from the registry)."""
    return registry.names()


def _timed(check: UpstreamCheck, read: UpstreamTree) -> CheckResult:
    start = time.perf_counter()
    try:
        found = check.run(read)
    except UsageError as exc:
        return CheckResult(check.name, (), time.perf_counter() - start, str(exc))
    except Exception as exc:  # a check's own failure is that check's error, not the command's
        error = f"internal error: {type(exc).__name__}: {exc}"
        return CheckResult(check.name, (), time.perf_counter() - start, error)
    found = [f if f.check == check.name else replace(f, check=check.name) for f in found]
    return CheckResult(check.name, tuple(sorted(set(found))), time.perf_counter() - start)


def run(
    root: Path, names: tuple[str, ...] | None = None, only: frozenset[str] | None = None
) -> list[CheckResult]:
    """Run the named upstream checks (default: all) on the tree at `root`; a UsageError when it
    is no tree.

    With `only` (paths from `root`), typos and Prettier read just those files:
    the other checks are cheap, and links need every page read anyway.
    """
    checks = registry.load()
    names = tuple(checks) if names is None else names
    run_key = runcache.key(root, names, only)
    kept = runcache.read(run_key)
    if kept is not None:
        return kept
    results = _run(root, checks, names, only)
    runcache.write(run_key, results)
    return results


def _run(
    root: Path,
    checks: dict[str, UpstreamCheck],
    names: tuple[str, ...],
    only: frozenset[str] | None,
) -> list[CheckResult]:
    from acp_docs.upstream import nav, recognise, scan, tree  # a kept run reads none of them

    read = tree.load(root)
    navigation = nav.read(read)
    what = recognise.recognise(read, navigation)
    if not what.acp:
        asked = [name for name in names if name in checks and checks[name].acp_only]
        if only is None and asked and len(asked) == len(names):
            raise UsageError(
                f"{root}: {', '.join(asked)} only check ACP's tree, and this is {what.why}"
            )
        dropped = [name for name in names if name in checks and checks[name].acp_only]
        names = tuple(name for name in names if name not in dropped)
        note = Finding(tree.NAV_FILE, 1, 1, "upstream-files", what.why, "upstream/not-acp", "note")
        if "upstream-files" in names:
            read.problems.append(note)
        else:  # the note goes with the first check that runs: it says which did not
            names = ("upstream-files", *names)
            read.problems[:] = [note]
    chosen = [check for name, check in checks.items() if name in names]
    scanned: dict[str, scan.Scanned] | str = {}
    if any(check.reads_pages for check in chosen):
        try:
            scanned = scan.scan(list(read.pages.values()))
        except runner.ToolFailure as exc:
            scanned = str(exc)
    view = UpstreamTree(read, navigation, what.acp, scanned, only)
    return [_timed(check, view) for check in chosen]
