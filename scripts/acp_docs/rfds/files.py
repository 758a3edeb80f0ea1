"""RFD files: which files of rfds/ are RFDs, and each one read with its front matter."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.findings import Finding
from acp_docs.markdown.blocks import Heading, headings
from acp_docs.markdown.fences import front_matter_end
from acp_docs.requirements.model import RequirementSet
from acp_docs.requirements.model import load_all as load_requirements
from acp_docs.rfds.template import CHECK, TEMPLATE_NAME
from acp_docs.schema.source import SchemaSource
from acp_docs.schema.source import load_all as load_sources
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.sources.yamlfile import YamlError
from acp_docs.sources.yamlfile import load as load_yaml


@dataclass
class Rfd:
    """An RFD file: its path, front matter (None when absent or broken), body lines."""

    path: Path
    shown: str
    text: str
    meta: dict[str, Any] | None
    meta_error: Finding | None

    @property
    def slug(self) -> str:
        """The file name without `.md`: the page's URL segment."""
        return self.path.stem

    @property
    def folder(self) -> str | None:
        """The version folder holding the RFD (`rfds/<folder>/`, a version's `rfds_folder`),
        or None for an RFD of `rfds/` itself."""
        parts = self.shown.split("/")
        if len(parts) == 3 and parts[1] in protocols.folders():
            return parts[1]
        return None

    @property
    def versions(self) -> tuple[str, ...] | None:
        """The protocol versions the RFD is about: its folder's version, else None (any)."""
        return (protocols.folders()[self.folder],) if self.folder else None

    @property
    def docs_path(self) -> str:
        """The path of the page in the site (as the nav names it): its path in the checkout."""
        return f"rfds/{self.folder}/{self.path.name}" if self.folder else f"rfds/{self.path.name}"

    @property
    def title(self) -> str:
        """The front-matter title, or the file name when there is none."""
        return str((self.meta or {}).get("title") or self.slug)

    @property
    def status(self) -> str | None:
        """The front-matter status, if any."""
        value = (self.meta or {}).get("status")
        return value if isinstance(value, str) else None

    def headings(self) -> list[Heading]:
        """The headings of the body."""
        return headings(self.text)


def _normalise(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def parse_front_matter(text: str, shown: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """The YAML front matter of a Markdown text, or the finding that says what is wrong."""
    lines = text.split("\n")
    end = front_matter_end(lines)
    if end == 0:
        return None, Finding(
            shown, 1, 1, CHECK, "missing YAML front matter (a '---' block)", "rfds/front-matter"
        )
    try:
        meta = load_yaml("\n".join(lines[1 : end - 1]), shown, first_line=2)
    except YamlError as exc:
        return None, Finding(
            shown,
            exc.line,
            exc.col,
            CHECK,
            f"malformed YAML front matter: {exc.problem}",
            "rfds/front-matter",
        )
    if not isinstance(meta, dict):
        return None, Finding(
            shown, 1, 1, CHECK, "front matter is not a YAML mapping", "rfds/front-matter"
        )
    return _normalise(meta), None


def load(repo: Repo, path: Path) -> Rfd:
    """Read one RFD; unreadable bytes become a front-matter finding, never an exception."""
    shown = repo.relative(path)
    try:
        text = read_text(path, shown)
    except UnreadableFile as exc:
        unreadable = Finding(shown, exc.line, 1, CHECK, exc.reason, "rfds/unreadable")
        return Rfd(path, shown, "", None, unreadable)
    meta, error = parse_front_matter(text, shown)
    return Rfd(path, shown, text, meta, error)


def _rfd_folders(repo: Repo) -> list[Path]:
    return [
        folder
        for folder in (repo.rfds_dir, *(repo.rfds_dir / name for name in protocols.folders()))
        if folder.is_dir() and not folder.is_symlink()
    ]


def rfd_files(repo: Repo) -> list[Path]:
    """Every RFD source (the template excluded): rfds/*.md, then each version folder's, by name.

    Only regular files inside the checkout whose names are UTF-8; `odd_entries`
    reports the others.
    """
    found: list[Path] = []
    for folder in _rfd_folders(repo):
        found.extend(
            sorted(
                p
                for p in folder.glob("*.md")
                if p.name != TEMPLATE_NAME
                and not p.is_symlink()
                and filetree.decodable(p.name)
                and filetree.inside(repo.root, p)
            )
        )
    return found


def odd_entries(repo: Repo) -> list[Finding]:
    """An entry of rfds/ (or a version folder of it) that looks like an RFD but cannot be read.

    A name that is not UTF-8, a `*.md` that is a link or a folder, or a folder of
    RFDs that is no version's would otherwise be skipped in silence.
    """
    out = []
    folders = protocols.folders()
    for folder in _rfd_folders(repo):
        for path in sorted(folder.iterdir()):
            shown = filetree.shown(os.path.relpath(path, repo.root))
            if not filetree.decodable(path.name):
                reason, rule = "the file name is not UTF-8: rename it", "rfds/file-name"
            elif path.suffix == ".md" and path.is_symlink():
                reason = "is a link: an RFD is a file of its own; copy or move it instead"
                rule = "rfds/link"
            elif path.suffix == ".md" and path.is_dir():
                reason = "is a folder, not an RFD: an RFD is one Markdown file; rename or remove it"
                rule = "rfds/not-a-file"
            elif folder == repo.rfds_dir and _holds_markdown(path) and path.name not in folders:
                known = ", ".join(f"rfds/{name}/" for name in folders) or "none"
                reason = (
                    "is no protocol version's RFD folder, so its RFDs are not read"
                    f" (version folders: {known}): move them to rfds/ or a version folder"
                )
                rule = "rfds/unknown-folder"
            else:
                continue
            out.append(Finding(shown, 1, 1, CHECK, reason, rule))
    return out


def _holds_markdown(path: Path) -> bool:
    """A real folder (not a link) with a `*.md` file in it."""
    if path.is_symlink() or not path.is_dir():
        return False
    try:
        return any(entry.suffix == ".md" for entry in path.iterdir())
    except OSError:
        return False


def load_all(repo: Repo) -> list[Rfd]:
    """Every RFD of the repository."""
    return [load(repo, path) for path in rfd_files(repo)]


def schema_sources(repo: Repo, loaded: list[Rfd] | None = None) -> list[SchemaSource]:
    """Every RFD's schema source, each with the base its RFD's status decides."""
    statuses = {rfd.slug: rfd.status for rfd in (load_all(repo) if loaded is None else loaded)}
    return [
        replace(source, channel=protocols.channel_of(statuses.get(source.slug)))
        for source in load_sources(repo.root, repo.schema_dir)
    ]


def requirement_sets(repo: Repo) -> list[RequirementSet]:
    """Every RFD's requirements (`schema/<slug>/requirements.yaml`); a LocatedError for a
    file that breaks the format or belongs to no RFD."""
    paths = {p.stem: p.relative_to(repo.root).as_posix() for p in rfd_files(repo)}
    return load_requirements(repo, paths)


def meta_line(rfd: Rfd, key: str) -> int:
    """The line of the front matter where `key` is set (1 when it is not)."""
    for number, line in enumerate(rfd.text.split("\n")[:60], start=1):
        if line.startswith(f"{key}:"):
            return number
    return 1
