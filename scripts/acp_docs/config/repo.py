"""The repository: its root (found like mkdocs finds mkdocs.yml), its config and its nav."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.config.mkdocsconfig import (
    CONFIG_NAME,
    MAX_CONFIG_CHARS,
    find_root,
    parse_config,
    read_config,
)
from acp_docs.core import memo

__all__ = ["CONFIG_NAME", "MAX_CONFIG_CHARS", "NavEntry", "Repo", "find_root"]


@dataclass(frozen=True)
class NavEntry:
    """A page in the navigation: its section path, title and docs-relative file."""

    sections: tuple[str, ...]
    title: str | None
    file: str
    line: int


def _line_index(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("- ") or ": " in stripped:
            target = stripped.rsplit(" ", 1)[-1].strip("'\"")
            index.setdefault(target, []).append(number)
    return index


def _walk(node: Any, sections: tuple[str, ...], out: list[tuple[tuple[str, ...], Any, str]]):
    if isinstance(node, str):
        out.append((sections, None, node))
    elif isinstance(node, list):
        for item in node:
            _walk(item, sections, out)
    elif isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, str):
                out.append((sections, key, value))
            else:
                _walk(value, (*sections, str(key)), out)


@dataclass
class Repo:
    """A checkout of this project: paths and the parsed mkdocs.yml."""

    root: Path
    config: dict[str, Any]
    config_text: str

    @classmethod
    def load(cls, start: Path | None = None) -> Repo:
        """Find the root from `start` and read mkdocs.yml (a UsageError when malformed)."""
        root = find_root(start)
        text = read_config(root)
        # Kept while serving until mkdocs.yml, or a variable its `!ENV` tags may
        # read (only ACP_DOCS_*), changes (`acp_docs.core.memo`).
        env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("ACP_DOCS_")))
        return memo.remembered(CONFIG_NAME, (str(root), text, env), lambda: cls.parse(root, text))

    @classmethod
    def parse(cls, root: Path, text: str) -> Repo:
        """The repository at `root` with `text` as its mkdocs.yml (a UsageError when refused)."""
        return cls(root=root, config=parse_config(root, text), config_text=text)

    @property
    def docs_dir(self) -> Path:
        """The MkDocs docs directory."""
        return self.root / str(self.config.get("docs_dir", "docs"))

    @property
    def rfds_dir(self) -> Path:
        """Where RFD sources live."""
        return self.root / "rfds"

    @property
    def schema_dir(self) -> Path:
        """Where the generated fragments and fixtures live."""
        return self.root / "schema"

    @property
    def source_folders(self) -> list[Path]:
        """The folders a pull request's content comes from: docs, RFDs, schema."""
        return [self.docs_dir, self.rfds_dir, self.schema_dir]

    def relative(self, path: Path) -> str:
        """`path` relative to the root, with forward slashes (as findings show it)."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def nav(self) -> list[NavEntry]:
        """Every page of the `nav` in mkdocs.yml, with the line it is declared on."""
        raw: list[tuple[tuple[str, ...], Any, str]] = []
        _walk(self.config.get("nav") or [], (), raw)
        lines = _line_index(self.config_text)
        seen: dict[str, int] = {}
        entries = []
        for sections, title, file in raw:
            if "://" in file:
                continue
            candidates = lines.get(file, [1])
            occurrence = seen.get(file, 0)
            seen[file] = occurrence + 1
            line = candidates[min(occurrence, len(candidates) - 1)]
            entries.append(NavEntry(sections, title, file, line))
        return entries

    def source_of(self, docs_path: str) -> Path:
        """The file behind a docs-relative path: `rfds/<name>.md` is served from rfds/."""
        if docs_path.startswith("rfds/") and (self.root / docs_path).is_file():
            return self.root / docs_path
        return self.docs_dir / docs_path
