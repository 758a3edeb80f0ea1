"""What one build knows and found: made fresh by the plugin's `on_config` for every build.

`BuildState` holds the repository as loaded (`Loaded`), every finding so far
(each once), and what the page events hand each other: the words and sources
of the rendered pages, the links awaiting their anchors. `mkdocs serve` keeps
the plugin between rebuilds but never a `BuildState`, so no rebuild sees what
an earlier one found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File

from acp_docs.checks.registry import Check
from acp_docs.config.repo import Repo
from acp_docs.core import memo
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.diagrams.publish import Publisher
from acp_docs.markdown import limits as mdlimits
from acp_docs.mkdocs import site
from acp_docs.mkdocs.apipages import ApiPages
from acp_docs.reporters import mkdocs_log
from acp_docs.rfds import model as rfds
from acp_docs.schema.changes import MergeRefused
from acp_docs.schema.source import SchemaSource
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile
from acp_docs.validation.examples import Unusable, unusable
from acp_docs.validation.schemaset import SchemaSet


@dataclass
class Loaded:
    """What one build knows about the repository, loaded in `on_config`."""

    repo: Repo
    tree: filetree.Scan
    rfds: list[rfds.Rfd]
    sources: list[SchemaSource]
    schemas: SchemaSet | None
    schema_key: Any
    """What the merged schemas were built from (see `acp_docs.core.memo`)."""

    def downloads(self) -> list[site.Download]:
        """The merged schemas the site publishes, built once while their inputs stay the same."""
        schemas = self.schemas
        if schemas is None:
            raise UsageError("the merged schemas could not be built (see the schema findings)")
        return memo.remembered(
            "downloads",
            self.schema_key,
            lambda: site.kept_downloads(self.repo.root, self.sources, schemas),
        )

    def rfd_of(self, file: File) -> rfds.Rfd | None:
        """The RFD a page's file shows (None for other pages and the template)."""
        if file.src_dir != str(self.repo.root):
            return None
        return next((r for r in self.rfds if r.docs_path == file.src_uri), None)

    @property
    def unusable(self) -> list[Unusable]:
        """The schema sources that cannot be used, with what each would have defined."""
        return [unusable(source) for source in self.sources if not source.usable]

    def ours(self, file: File) -> bool:
        """True for a file the plugin added from the checkout (an RFD), not one of docs/."""
        return file.src_dir == str(self.repo.root)


@dataclass
class Link:
    """A link as written in a page's Markdown, before MkDocs rewrites it."""

    url: str
    occurrence: int


@dataclass
class Anchor:
    """A link to an anchor, checked once every page is rendered."""

    page: Any
    target: File
    anchor: str
    url: str
    line: int
    col: int


@dataclass
class BuildState:
    """Everything of one build; `findings` holds every problem it found, each once."""

    checks: dict[str, Check]
    serving: bool
    loaded: Loaded | None = None
    findings: list[Finding] = field(default_factory=list)
    page_html: dict[str, str] = field(default_factory=dict)
    """Each rendered page's content, by source path, for the checks that run after the build."""
    page_sources: dict[str, str] = field(default_factory=dict)
    page_files: dict[str, File] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    """The links of the page being rendered (filled by `acp_docs.mkdocs.links`)."""
    anchors: list[Anchor] = field(default_factory=list)
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
        key = (finding.path, finding.line, finding.col, finding.message)
        if key in self._reported:
            return
        self._reported.add(key)
        self.findings.append(finding)
        mkdocs_log.warn(finding)

    def load_error(self, error: UsageError, rule: str, check: str = "schema") -> None:
        """A loading step that failed, reported at the place it names (mkdocs.yml if none)."""
        path, line, col = "mkdocs.yml", 1, 1
        reason = str(error)
        if isinstance(error, LocatedError):
            path, line, col, reason = error.path, error.line, error.col, error.reason
        elif isinstance(error, MergeRefused) and error.path:
            path, line, reason = error.path, error.line, error.reason
        elif isinstance(error, UnreadableFile):
            path, line, reason = error.name, error.line, error.reason
        self.report(Finding(path, line, col, check, reason, rule))

    def shown(self, file: File) -> str:
        """A file's path as findings name it: relative to the repository root."""
        if file.abs_src_path:
            return self.repo.relative(Path(file.abs_src_path))
        return file.src_uri
