"""Every check, and the hooks it runs at: one module declares one check.

A check is a module with a module-level `CHECK = Check(...)`, registered in
`pyproject.toml`, of this package or of any package installed beside it:

    [project.entry-points."acp_docs.checks"]
    words = "my_package.words:CHECK"

or, for a check that lives in the checkout and needs no install, in the
checkout's own `pyproject.toml` (`acp_docs.checks.local`):

    [tool.acp-docs.local-checks]
    paths = ["checks"]
    words = "words:CHECK"

A check is a set of hooks, each at one stage of the work:

- `sources(checkout)`: the checkout as loaded (RFDs, schema sources, merged
  schemas, the scan of the files), before any page is rendered;
- `page(view)`: each page the site build renders;
- `site(view)`: once, when every page is rendered.

A check with only `sources` needs no site build: `acp-docs check` runs it in
its own process. A check with `page` or `site` is run inside the one site
build, which starts only when such a check is selected. The built-in checks
are built exactly this way; the MkDocs plugin calls hooks and names no check.

A problem the site build itself meets (a marker it cannot expand, markup a
page may not hold, a MkDocs warning) is reported under the check its rule
names (`build/marker` is the `build` check's), or else under the check that
declares `catch_all`. A registered check that cannot be imported, or that is
not a `Check`, is a `PluginLoadError` naming its entry point: never skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from acp_docs.core import plugins
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.core.plugins import PluginLoadError as PluginLoadError  # what load_checks raises

if TYPE_CHECKING:
    from acp_docs.checks.checkout import Checkout
    from acp_docs.config.repo import Repo

GROUP = "acp_docs.checks"
DOCS = "docs/tooling/checks.md"
"""The page whose sections (`Check.docs`) say what each check finds and how to fix it."""

MODES = frozenset({"check", "build", "serve"})
"""Where a check may run: `acp-docs check`, `mkdocs build`, `mkdocs serve`."""


@dataclass(frozen=True)
class Guide:
    """A section of the authors' guide that says more on fixing a check's findings."""

    doc: str
    """The guide page, as a path from the repository root (`docs/tooling/writing.md`)."""
    anchor: str
    title: str


@dataclass(frozen=True)
class WrittenLink:
    """A link of a page as its author wrote it, before MkDocs rewrites it."""

    url: str
    line: int
    col: int


@dataclass(frozen=True)
class Drawn:
    """A problem the drawing of one of the page's diagrams met, at its line of the page."""

    line: int
    message: str
    rule: str


@dataclass(frozen=True)
class PageView:
    """One page the site build rendered, as a `Check.page` hook sees it."""

    path: str
    """The page's file, relative to the repository root (a finding's `path`)."""
    markdown: str
    """The page's Markdown as written: a finding's line and column are in this text."""
    html: str
    """The page's content as rendered, before it is published."""
    checkout: Checkout | None = None
    """The checkout as loaded (its merged schemas, RFDs, ...); None outside a build."""
    rfd: str | None = None
    """The slug of the RFD the page shows, or names as its own in front matter."""
    links: tuple[WrittenLink, ...] = ()
    drawn: tuple[Drawn, ...] = ()


@dataclass(frozen=True)
class SiteFile:
    """A file of the built site, as a `Check.site` hook sees it."""

    path: str
    """Relative to the repository root (a finding's `path`)."""
    page: bool
    """A page (rendered from Markdown), not a static file."""
    anchors: frozenset[str] | None = None
    """The ids the rendered page has (None: not a page, or not known)."""


@dataclass(frozen=True)
class SiteView:
    """What the site build hands to `Check.site` hooks once every page is rendered."""

    html: Mapping[str, str]
    """Each page's content as the build rendered it (before the allowlist), by the page's path."""
    sources: Mapping[str, str]
    """Each page's Markdown as written, by the page's path."""
    serving: bool = False
    """True under `mkdocs serve` (results may be kept between rebuilds)."""
    checkout: Checkout | None = None
    files: Mapping[str, SiteFile] = field(default_factory=dict)
    """Every file of the site, by its path in the site's docs (`rfds/x.md`, `index.md`)."""
    links: Mapping[str, tuple[str, tuple[WrittenLink, ...]]] = field(default_factory=dict)
    """Each page's path in the site's docs, with its file's path and its links as written."""
    nav: frozenset[str] = frozenset()
    """The paths in the site's docs of the pages the navigation holds."""


SourcesHook = Callable[["Checkout"], Iterable[Finding]]
PageHook = Callable[[PageView], Iterable[Finding]]
SiteHook = Callable[[SiteView], Iterable[Finding]]
Preflight = Callable[["Repo"], None]


@dataclass(frozen=True)
class Check:
    """One check: what it is called and finds, how to fix it, and the hooks that do the work.

    A hook returns `acp_docs.core.findings.Finding`s; each is reported under
    this check's `name`, whatever check it says.
    """

    name: str
    summary: str
    rules: Mapping[str, str]
    """Rule id -> a line on how to fix a finding of it. The key `name` itself holds
    the hint of every rule of the check that has no line of its own."""
    docs: str = ""
    """The anchor of the check's section in docs/tooling/checks.md (every check this
    project ships has one; a test holds them to it)."""
    first: bool = False
    """Its findings are causes of findings elsewhere, so they are read first."""
    order: int = 100
    """Where the summary lists it (lower first)."""
    guide: Guide | None = None
    runs_in: frozenset[str] = MODES
    """Where it runs (`MODES`): Prettier over every file runs in `acp-docs check` only."""
    catch_all: bool = False
    """The site build's own problems whose rule names no registered check are this check's."""
    preflight: Preflight | None = None
    """Raises `UsageError` when the check cannot run in this checkout (a missing tool)."""
    sources: SourcesHook | None = None
    page: PageHook | None = None
    site: SiteHook | None = None
    """Once every page is rendered; may raise `UsageError` (the check could not run)."""

    @property
    def needs_pages(self) -> bool:
        """True when the check needs the site built: a page or site hook, or the build's own
        problems."""
        return self.page is not None or self.site is not None or self.catch_all


def _kinds(check: Check) -> str | None:
    """Why a `Check`'s fields are not of their kinds (a dataclass does not check them)."""
    texts = (check.name, check.summary, check.docs)
    if not all(isinstance(text, str) for text in texts):
        return "name, summary and docs must be text"
    if not isinstance(check.rules, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in check.rules.items()
    ):
        return "rules must map each rule id to a line of text"
    if not isinstance(check.runs_in, frozenset | set) or not all(
        isinstance(m, str) for m in check.runs_in
    ):
        return f"runs_in must be a set of {', '.join(sorted(MODES))}"
    if type(check.order) is not int or not all(
        isinstance(flag, bool) for flag in (check.first, check.catch_all)
    ):
        return "order must be a whole number, first and catch_all True or False"
    hooks = (check.preflight, check.sources, check.page, check.site)
    if not all(hook is None or callable(hook) for hook in hooks):
        return "each hook must be a function (or None)"
    return None


def _refusal(check: Check, entry_name: str) -> str | None:
    kinds = _kinds(check)
    if kinds is not None:
        return kinds
    if check.name != entry_name:
        return f"declares the check {check.name!r}, not {entry_name!r}"
    if check.sources is None and check.page is None and check.site is None:
        return "has no hook: give it `sources`, `page` or `site`"
    if not check.runs_in or not check.runs_in <= MODES:
        return f"runs_in must name some of {', '.join(sorted(MODES))}"
    odd = [r for r in check.rules if r != check.name and not r.startswith(f"{check.name}/")]
    if odd:
        return f"rule {odd[0]!r} is not named `{check.name}/...` after its check"
    return None


_loaded: dict[tuple[tuple[str, str], ...], dict[str, Check]] = {}


def load_checks(root: Path | None = None) -> dict[str, Check]:
    """Every registered check by name, in the order the summary lists them.

    With `root`, the checks of that checkout's `[tool.acp-docs.local-checks]`
    load too. Raises `PluginLoadError` for an entry that cannot be loaded,
    and `UsageError` when none is registered (the package's metadata is missing).
    """
    from acp_docs.checks import local

    extra = local.entries(root) if root is not None else []
    found = plugins.entries(GROUP) + [entry for entry, _file, _line in extra]
    key = tuple((e.name, e.value) for e in found)
    if key in _loaded:
        return _loaded[key]
    if not plugins.entries(GROUP):
        raise UsageError(
            f"no check is registered under the entry points {GROUP}: the installed metadata of"
            " acp-docs is out of date; run `make setup`"
        )
    if extra and root is not None:
        local.put_on_path(root)
    checks = plugins.load_group(GROUP, Check, _refusal, extra)
    catch_alls = [c.name for c in checks.values() if c.catch_all]
    if len(catch_alls) > 1:
        raise UsageError(f"more than one check declares catch_all: {', '.join(catch_alls)}")
    ordered = dict(sorted(checks.items(), key=lambda item: (item[1].order, item[0])))
    _loaded[key] = ordered
    return ordered


def owner(checks: Mapping[str, Check], rule: str) -> str:
    """The check a problem of the site build with `rule` is reported under."""
    named = rule.partition("/")[0]
    if named in checks:
        return named
    return next((c.name for c in checks.values() if c.catch_all), named)


UNOWNED = ""
"""The check of a problem of the site build until it is reported (`owner` names it)."""


def build_problem(path: str, line: int, col: int, message: str, rule: str) -> Finding:
    """A problem the site build itself met, at a place: it is reported under `owner(rule)`."""
    return Finding(path, line, col, UNOWNED, message, rule)


def causes(checks: Mapping[str, Check]) -> frozenset[str]:
    """The checks whose findings are causes of others (`Check.first`)."""
    return frozenset(name for name, check in checks.items() if check.first)


def _odd(item: object) -> str | None:
    """What is wrong with a hook's result `item`, or None for a well-formed Finding."""
    if not isinstance(item, Finding):
        return f"a {type(item).__name__}, not a Finding"
    texts = (item.path, item.check, item.message, item.rule)
    if not all(isinstance(text, str) for text in texts):
        return "a Finding whose path, check, message or rule is not text"
    if not all(type(number) is int for number in (item.line, item.col)):
        return "a Finding whose line or column is not a whole number"
    return None


def owned(check: Check, found: Iterable[Finding] | None) -> list[Finding]:
    """A hook's findings, each under the check whose hook returned it; a `UsageError` (the
    check's error) when the hook returned anything else."""
    if found is None or isinstance(found, str | bytes | Mapping):
        raise UsageError(f"{check.name}: a hook returned {type(found).__name__}, not findings")
    out = []
    for item in found:
        odd = _odd(item)
        if odd is not None:
            raise UsageError(f"{check.name}: a hook returned {odd}")
        out.append(
            item if item.check == check.name else dataclasses.replace(item, check=check.name)
        )
    return out


def with_hook(checks: Iterable[Check], hook: str) -> Sequence[Check]:
    """The checks that have the hook `hook` (`sources`, `page` or `site`)."""
    return [c for c in checks if getattr(c, hook) is not None]


def fix_hint(check: Check | None, rule: str) -> str | None:
    """The line on how to fix a finding of `rule`, or None when its check gives none."""
    if check is None:
        return None
    return check.rules.get(rule) or check.rules.get(check.name)
