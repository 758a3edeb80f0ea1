"""`acp-docs check --upstream DIR`: every upstream check of a tree, in place, read-only.

The tree is read once (`tree`), its pages once by the MDX parser (`scan`);
each check then reports on what was read: files that cannot be read, pages
that do not compile, examples, navigation and links. Nothing is written into
DIR; the only writes are to the user's cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.upstream import (
    links,
    messages,
    nav,
    prettier,
    recognise,
    scan,
    spelling,
    template,
    tree,
    treeschemas,
)

NAMES = (
    "upstream-files",
    "upstream-mdx",
    "upstream-examples",
    "upstream-nav",
    "upstream-links",
    "upstream-template",
    "upstream-typos",
    "upstream-prettier",
)
"""The upstream checks, in the order the summary lists them."""


def _timed(name: str, make: Callable[[], list[Finding]]) -> CheckResult:
    start = time.perf_counter()
    try:
        found = make()
    except UsageError as exc:
        return CheckResult(name, (), time.perf_counter() - start, str(exc))
    except Exception as exc:  # a check's own failure is that check's error, not the command's
        error = f"internal error: {type(exc).__name__}: {exc}"
        return CheckResult(name, (), time.perf_counter() - start, error)
    return CheckResult(name, tuple(sorted(set(found))), time.perf_counter() - start)


def run(
    root: Path, names: tuple[str, ...] = NAMES, only: frozenset[str] | None = None
) -> list[CheckResult]:
    """Run the named upstream checks on the tree at `root`; a UsageError when it is no tree.

    With `only` (paths from `root`), typos and Prettier read just those files:
    the other checks are cheap, and links need every page read anyway.
    """
    start = time.perf_counter()
    read = tree.load(root)
    pages = list(read.pages.values())
    navigation = nav.read(read)
    what = recognise.recognise(read, navigation)
    if not what.acp:
        asked = [name for name in names if name in recognise.ACP_ONLY]
        if only is None and asked and len(asked) == len(names):
            raise UsageError(
                f"{root}: {', '.join(asked)} only check ACP's tree, and this is {what.why}"
            )
        names = tuple(name for name in names if name not in recognise.ACP_ONLY)
        read.problems.append(
            Finding(tree.NAV_FILE, 1, 1, "upstream-files", what.why, "upstream/not-acp", "note")
        )
    loaded = time.perf_counter() - start
    scans = {"upstream-mdx", "upstream-examples", "upstream-links", "upstream-template"}
    scanned: dict[str, scan.Scanned] | str = {}
    if scans & set(names):
        try:
            scanned = scan.scan(pages)
        except runner.ToolFailure as exc:
            scanned = str(exc)

    Make = Callable[[], list[Finding]]

    def needs_scan(make: Callable[[dict[str, scan.Scanned]], list[Finding]]) -> Make:
        def made() -> list[Finding]:
            if isinstance(scanned, str):
                raise UsageError(scanned)
            return make(scanned)

        return made

    checks: dict[str, Make] = {
        "upstream-mdx": needs_scan(_mdx),
        "upstream-examples": needs_scan(lambda s: _examples(read, navigation, s)),
        "upstream-nav": lambda: nav.check(read, navigation, rfds=what.acp),
        "upstream-links": needs_scan(lambda s: links.check(read, navigation, s)),
        "upstream-template": needs_scan(lambda s: template.check(read, navigation, s)),
        "upstream-typos": lambda: spelling.check(read, only),
        "upstream-prettier": lambda: prettier.check(read, only),
    }
    results = [CheckResult("upstream-files", tuple(sorted(read.problems)), loaded)]
    results += [_timed(name, make) for name, make in checks.items() if name in names]
    return [r for r in results if r.name in names]


def _mdx(scanned: dict[str, scan.Scanned]) -> list[Finding]:
    return [
        Finding(
            path, s.line, s.col, "upstream-mdx", f"MDX does not compile: {s.error}", "upstream/mdx"
        )
        for path, s in scanned.items()
        if s.error is not None
    ]


def _examples(
    read: tree.Tree, navigation: nav.Nav, scanned: dict[str, scan.Scanned]
) -> list[Finding]:
    chosen = treeschemas.choose(read.root)
    schemas = chosen.schemas
    proposals = navigation.proposals()
    found = [*chosen.problems, *chosen.notes()]
    for route, page in sorted(read.pages.items()):
        page_scan = scanned[page.path]
        checker = messages.PageChecker(
            page.path, route, route in proposals, schemas, page_scan.blocks
        )
        for block in page_scan.blocks:
            checker.block(block)
        for line in page_scan.stray:
            checker.stray(line)
        found += checker.findings
    return found
