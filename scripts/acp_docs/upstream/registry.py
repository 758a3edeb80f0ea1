"""Every upstream check, found through the `acp_docs.upstream_checks` entry points.

An upstream check reads a tree of another repository (upstream ACP's `docs/`,
or any Mintlify tree) as `acp-docs check --upstream DIR` loaded it, once for
every check: its files, its navigation, what kind of tree it is, and its
pages as the MDX parser read them. It is an `UpstreamCheck` named by an entry
point, as the checks of this site are (`acp_docs.checks.registry`):

    [project.entry-points."acp_docs.upstream_checks"]
    upstream-words = "my_package.words:UPSTREAM_CHECK"

A registered check that cannot be imported, or that is not an
`UpstreamCheck`, is a `PluginLoadError` naming its entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acp_docs.core import plugins
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding

if TYPE_CHECKING:  # only named: a command that runs no upstream check reads none of them
    from acp_docs.upstream.nav import Nav
    from acp_docs.upstream.scan import Scanned
    from acp_docs.upstream.tree import Tree

GROUP = "acp_docs.upstream_checks"


@dataclass(frozen=True)
class UpstreamTree:
    """A tree as every upstream check reads it, read once."""

    tree: Tree
    nav: Nav
    acp: bool
    """ACP's own tree (its schemas and RFD template hold), not another Mintlify tree."""
    scanned: dict[str, Scanned] | str
    """Each page as the MDX parser read it, by path; or why the parser could not run."""
    only: frozenset[str] | None = None
    """With paths from the root: the files a per-file check (typos, Prettier) reads."""

    @property
    def root(self) -> Path:
        """The tree's root folder."""
        return self.tree.root

    def pages(self) -> dict[str, Scanned]:
        """Each page as the MDX parser read it; a UsageError when the parser could not run."""
        if isinstance(self.scanned, str):
            raise UsageError(self.scanned)
        return self.scanned


@dataclass(frozen=True)
class UpstreamCheck:
    """One upstream check: its name, what it finds, and its hook."""

    name: str
    summary: str
    run: Callable[[UpstreamTree], list[Finding]]
    order: int = 100
    """Where the summary lists it (lower first)."""
    acp_only: bool = False
    """It holds only for ACP's tree (ACP's schemas, ACP's RFD template)."""
    reads_pages: bool = False
    """It reads the pages as the MDX parser read them (the parser runs only for such a check)."""


def _refusal(check: UpstreamCheck, entry_name: str) -> str | None:
    if check.name != entry_name:
        return f"declares the check {check.name!r}, not {entry_name!r}"
    if not callable(check.run):
        return "its `run` is not callable"
    return None


def load() -> dict[str, UpstreamCheck]:
    """Every upstream check by name, in the order the summary lists them."""
    if not plugins.entries(GROUP):
        raise UsageError(
            f"no upstream check is registered under the entry points {GROUP}: the installed"
            " metadata of acp-docs is out of date; run `make setup`"
        )
    checks = plugins.load_group(GROUP, UpstreamCheck, _refusal)
    return dict(sorted(checks.items(), key=lambda item: (item[1].order, item[0])))


def names() -> tuple[str, ...]:
    """The upstream checks' names, in summary order."""
    return tuple(load())


def entry_names() -> frozenset[str]:
    """The names the entry points give the upstream checks, none of them loaded."""
    return frozenset(entry.name for entry in plugins.entries(GROUP))
