"""What one build knows and found: made fresh by the plugin's `on_config` for every build.

`BuildState` holds the repository as loaded (`Loaded`), every finding so far
(each once), and what the page events hand each other: the words and sources
of the rendered pages, the links awaiting their anchors. `mkdocs serve` keeps
the plugin between rebuilds but never a `BuildState`, so no rebuild sees what
an earlier one found.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File

from acp_docs.checks import registry
from acp_docs.checks.checkout import Checkout
from acp_docs.checks.registry import Check, Drawn, WrittenLink
from acp_docs.config.repo import Repo
from acp_docs.core import memo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.diagrams.publish import Publisher
from acp_docs.markdown import limits as mdlimits
from acp_docs.mkdocs import site
from acp_docs.mkdocs.apipages import ApiPages
from acp_docs.reporters import mkdocs_log

Loaded = Checkout
"""What one build knows about the repository, loaded in `on_config` (`acp_docs.checks.checkout`)."""


def downloads(loaded: Checkout) -> list[site.Download]:
    """The merged schemas the site publishes, built once while their inputs stay the same."""
    schemas = loaded.schemas
    if schemas is None:
        raise UsageError("the merged schemas could not be built (see the schema findings)")
    return memo.remembered(
        "downloads",
        loaded.schema_key,
        lambda: site.kept_downloads(loaded.repo.root, loaded.sources, schemas),
    )


@dataclass
class Link:
    """A link as written in a page's Markdown, before MkDocs rewrites it."""

    url: str
    occurrence: int


@dataclass
class BuildState:
    """Everything of one build; `findings` holds every problem it found, each once."""

    checks: dict[str, Check]
    """Every registered check (a problem of the build is reported under one of them)."""
    serving: bool
    selected: dict[str, Check] = field(default_factory=dict)
    """The checks whose hooks this build runs."""
    mode: str = "build"
    """`build`, `serve`, or `check` (a build `acp-docs check` started)."""
    loaded: Loaded | None = None
    findings: list[Finding] = field(default_factory=list)
    page_html: dict[str, str] = field(default_factory=dict)
    """Each rendered page's content, by source path, for the checks that run after the build."""
    page_sources: dict[str, str] = field(default_factory=dict)
    page_files: dict[str, File] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    """The links of the page being rendered (filled by `acp_docs.mkdocs.links`)."""
    owned: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Per RFD slug, the docs pages that name it in front matter (set by `on_files`)."""
    render_context: Any = None
    api: ApiPages = field(default_factory=ApiPages)
    """The generated API pages, and the page being rendered (for the `:::` guard)."""
    clock: mdlimits.RenderClock = field(default_factory=mdlimits.RenderClock)
    publisher: Publisher | None = None
    """Draws and publishes the build's Mermaid diagrams (made at the first one)."""
    figures: dict[str, str] = field(default_factory=dict)
    """Placeholder word -> the HTML the plugin puts in its place after the allowlist: each
    drawn diagram's figure, each demo's root."""
    links_of: dict[str, tuple[str, tuple[WrittenLink, ...]]] = field(default_factory=dict)
    """Each rendered page's links as written, by its path in the site's docs."""
    drawn: list[Drawn] = field(default_factory=list)
    """What drawing the diagrams of the page being rendered met."""
    nav: frozenset[str] = frozenset()
    check_errors: dict[str, str] = field(default_factory=dict)
    """Why a selected check's hook could not run, by check name."""
    _reported: set[tuple[str, int, int, str]] = field(default_factory=set)

    @property
    def repo(self) -> Repo:
        """The repository being built."""
        return self.loaded_or_fail().repo

    def loaded_or_fail(self) -> Loaded:
        """The repository as `on_config` loaded it."""
        if self.loaded is None:
            raise RuntimeError("the acp-docs plugin has not loaded the repository yet")
        return self.loaded

    def report(self, finding: Finding) -> None:
        """Record a finding and show it as a build warning (each finding once)."""
        if finding.check == registry.UNOWNED:
            finding = replace(finding, check=registry.owner(self.checks, finding.rule_id))
        key = (finding.path, finding.line, finding.col, finding.message)
        if key in self._reported:
            return
        self._reported.add(key)
        self.findings.append(finding)
        mkdocs_log.warn(finding)

    def run_hook(self, check: Check, stage: str, view: Any) -> None:
        """Report what a check's hook (`stage`: sources, page or site) finds. A hook that cannot
        run, or fails, is its check's error under `acp-docs check`, else a finding of it; the
        other checks go on."""
        hook = getattr(check, stage)
        try:
            found = registry.owned(check, hook(view))
        except (Exception, SystemExit) as exc:
            said = str(exc) if isinstance(exc, UsageError) else f"{type(exc).__name__}: {exc}"
            if self.mode == "check":
                self.check_errors.setdefault(check.name, said)
                return
            when = "while serving" if self.serving else "in this build"
            message = f"{check.name} is not checked {when}: {said}"
            found = [Finding("mkdocs.yml", 1, 1, check.name, message, f"{check.name}/unavailable")]
        for finding in found:
            self.report(finding)

    def shown(self, file: File) -> str:
        """A file's path as findings name it: relative to the repository root."""
        if file.abs_src_path:
            return self.repo.relative(Path(file.abs_src_path))
        return file.src_uri
