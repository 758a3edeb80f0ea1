"""The checkout as the checks read it: loaded once, before any page is rendered.

`load` scans the source folders, loads the RFDs and their schema sources and
merges the schemas. It judges nothing: what could not be loaded is kept as a
`LoadError` for the check it concerns (`Check.sources` hooks turn the
checkout into findings). The site build renders from the same `Checkout`.
Costly steps are kept while serving until one of their inputs changes
(`acp_docs.core.memo`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from acp_docs.config.repo import Repo
from acp_docs.core import memo
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.policy import frontmatter
from acp_docs.rfds import model as rfds
from acp_docs.rfds.files import Rfd
from acp_docs.schema import merge
from acp_docs.schema.changes import MergeRefused
from acp_docs.schema.source import SchemaSource
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile
from acp_docs.validation.examples import Unusable, unusable
from acp_docs.validation.schemaset import SchemaSet


class SiteFileLike(Protocol):
    """What a site's file (MkDocs's `File`) tells about where it comes from."""

    src_dir: str | None
    src_uri: str


@dataclass(frozen=True)
class LoadError:
    """A step of loading that failed: its rule (`schema/merge`) and the error."""

    rule: str
    error: UsageError

    def finding(self, check: str) -> Finding:
        """The error as a finding of `check`, at the place it names (mkdocs.yml if none)."""
        path, line, col = "mkdocs.yml", 1, 1
        reason = str(self.error)
        error = self.error
        if isinstance(error, LocatedError):
            path, line, col, reason = error.path, error.line, error.col, error.reason
        elif isinstance(error, MergeRefused) and error.path:
            path, line, reason = error.path, error.line, error.reason
        elif isinstance(error, UnreadableFile):
            path, line, reason = error.name, error.line, error.reason
        return Finding(path, line, col, check, reason, self.rule)


@dataclass
class Checkout:
    """The repository as loaded: what every check and the site build read."""

    repo: Repo
    tree: filetree.Scan
    docs_pages: list[Path]
    """The Markdown pages of docs/ the scan allows."""
    rfds: list[Rfd]
    sources: list[SchemaSource]
    schema_key: Any
    """What the merged schemas were built from (see `acp_docs.core.memo`)."""
    errors: list[LoadError] = field(default_factory=list)
    serving: bool = False
    """Loaded by `mkdocs serve`: results may be kept between rebuilds."""
    _merged: list[SchemaSet | None] = field(default_factory=list, repr=False)

    @property
    def schemas(self) -> SchemaSet | None:
        """The merged schemas, made at the first use (a check of RFDs alone needs none);
        None when the merge is refused, which is then a `schema/merge` load error."""
        if not self._merged:
            root, sources = self.repo.root, self.sources
            try:
                made: SchemaSet | None = memo.remembered(
                    "schemas", self.schema_key, lambda: SchemaSet.from_sources(root, sources)
                )
            except UsageError as exc:
                self.errors.append(LoadError("schema/merge", exc))
                made = None
            self._merged.append(made)
        return self._merged[0]

    @property
    def root(self) -> Path:
        """The checkout's root folder."""
        return self.repo.root

    @property
    def unusable(self) -> list[Unusable]:
        """The schema sources that cannot be used, with what each would have defined."""
        return [unusable(source) for source in self.sources if not source.usable]

    def errors_of(self, prefix: str) -> list[LoadError]:
        """The load errors whose rule starts with `prefix` (`schema/`), the merge's included."""
        self.schemas  # noqa: B018  (the merge's error, if any, is one of them)
        return [e for e in self.errors if e.rule.startswith(prefix)]

    def ours(self, file: SiteFileLike) -> bool:
        """True for a file the site build added from the checkout (an RFD), not one of docs/."""
        return file.src_dir == str(self.repo.root)

    def rfd_of(self, file: SiteFileLike) -> Rfd | None:
        """The RFD a site's file shows (None for other pages and the template)."""
        if not self.ours(file):
            return None
        return next((r for r in self.rfds if r.docs_path == file.src_uri), None)


def load(root: Path, serving: bool = False) -> Checkout:
    """The checkout at `root`; a UsageError only when its mkdocs.yml is refused."""
    repo = Repo.load(root)
    tree = filetree.scan(root, repo.source_folders)
    pages = [p for p in frontmatter.docs_pages(repo.docs_dir) if tree.allows(root, p)]
    loaded_rfds = rfds.load_all(repo)
    errors: list[LoadError] = []
    try:
        sources = rfds.schema_sources(repo, loaded_rfds)
    except UsageError as exc:
        errors.append(LoadError("schema/source", exc))
        sources = []
    # Everything the merged schemas depend on: kept while serving until one of them changes.
    schema_key = (
        str(root),
        tuple((s.slug, s.shown, s.channel) for s in sources),
        memo.digest_of([s.path for s in sources] + merge.base_inputs(root)),
    )
    return Checkout(repo, tree, pages, loaded_rfds, sources, schema_key, errors, serving)
