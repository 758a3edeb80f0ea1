"""Every check, found through the `acp_docs.checks` entry points: one module declares one check.

A check is a module with a module-level `CHECK = Check(...)`, registered in
`pyproject.toml`:

    [project.entry-points."acp_docs.checks"]
    words = "my_package.words:CHECK"

The runner (`acp_docs.checks.run`), the MkDocs plugin and the served page read
every check from here: its name, its rules with a line on how to fix each, its
section of docs/tooling/checks.md, whether its findings come out of the site
build, whether they are causes read first, and its hooks. A registered check
that cannot be imported, or that is not a `Check`, is a `PluginLoadError` that
names the entry point; it is never skipped.

As it loads the checks it tells `acp_docs.core.findings`, which sorts causes
first, which checks are causes (`Check.first`); that lower layer imports no check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from acp_docs.core import findings, plugins
from acp_docs.core.errors import UsageError
from acp_docs.core.plugins import PluginLoadError as PluginLoadError  # what load_checks raises

GROUP = "acp_docs.checks"
DOCS = "docs/tooling/checks.md"
"""The page whose sections (`Check.docs`) say what each check finds and how to fix it."""


@dataclass(frozen=True)
class Guide:
    """A section of the authors' guide that says more on fixing a check's findings."""

    doc: str
    """The guide page, as a path from the repository root (`docs/tooling/writing.md`)."""
    anchor: str
    title: str


@dataclass(frozen=True)
class PageView:
    """One page the site build rendered, as a `Check.page` hook sees it."""

    path: str
    """The page's file, relative to the repository root (a finding's `path`)."""
    markdown: str
    """The page's Markdown as written: a finding's line and column are in this text."""
    html: str
    """The page's content as rendered, before it is published."""


@dataclass(frozen=True)
class Pages:
    """What the site build hands to `Check.after_build` hooks: every rendered page."""

    html: Mapping[str, str]
    """Each page's content as the build rendered it (before the allowlist), by the page's path."""
    sources: Mapping[str, str]
    """Each page's Markdown as written, by the page's path."""
    serving: bool = False
    """True under `mkdocs serve` (results may be kept between rebuilds)."""


@dataclass(frozen=True)
class Check:
    """One check: what it is called and finds, how to fix it, and when it runs.

    A hook returns `acp_docs.core.findings.Finding`s whose `check` is `name`.
    A check with `build` True reports from inside the one site build (the
    plugin calls `page` for every rendered page and `after_build` once all are
    rendered); any other check runs `run` beside the build. The built-in build
    checks (`files`, `schema`, ...) are reported by the plugin itself and have
    no hook.
    """

    name: str
    summary: str
    rules: Mapping[str, str]
    """Rule id -> a line on how to fix a finding of it. The key `name` itself holds
    the hint of every rule of the check that has no line of its own."""
    docs: str
    """The anchor of the check's section in docs/tooling/checks.md."""
    build: bool = True
    first: bool = False
    """Its findings are causes of findings elsewhere, so they are read first."""
    order: int = 100
    """Where the summary lists it (lower first)."""
    guide: Guide | None = None
    preflight: Callable[[Any], None] | None = None
    """Raises `UsageError` when the check cannot run in this checkout (a missing tool)."""
    run: Callable[[Any], Iterable[Any]] | None = None
    """repo -> findings, for a check outside the build."""
    page: Callable[[PageView], Iterable[Any]] | None = None
    after_build: Callable[[Any, Pages], Iterable[Any]] | None = None
    """(repo, pages) -> findings, once every page is rendered; may raise `UsageError`."""


def _refusal(check: Check, entry_name: str) -> str | None:
    if check.name != entry_name:
        return f"declares the check {check.name!r}, not {entry_name!r}"
    if not check.build and check.run is None:
        return "runs outside the build (build=False) but has no `run` hook"
    return None


_loaded: dict[tuple[tuple[str, str], ...], dict[str, Check]] = {}


def load_checks() -> dict[str, Check]:
    """Every registered check by name, in the order the summary lists them.

    Raises `PluginLoadError` for an entry point that cannot be loaded, and
    `UsageError` when none is registered (the package's metadata is missing).
    """
    key = tuple((e.name, e.value) for e in plugins.entries(GROUP))
    if key in _loaded:
        ordered = _loaded[key]
        findings.set_first_checks(tuple(name for name, check in ordered.items() if check.first))
        return ordered
    if not key:
        raise UsageError(
            f"no check is registered under the entry points {GROUP}: the installed metadata of"
            " acp-docs is out of date; run `make setup`"
        )
    checks = plugins.load_group(GROUP, Check, _refusal)
    ordered = dict(sorted(checks.items(), key=lambda item: (item[1].order, item[0])))
    _loaded[key] = ordered
    findings.set_first_checks(tuple(name for name, check in ordered.items() if check.first))
    return ordered


def fix_hint(check: Check | None, rule: str) -> str | None:
    """The line on how to fix a finding of `rule`, or None when its check gives none."""
    if check is None:
        return None
    return check.rules.get(rule) or check.rules.get(check.name)
