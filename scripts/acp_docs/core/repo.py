"""The repository: its root (found like mkdocs finds mkdocs.yml), its config and its nav."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from acp_docs.core import memo
from acp_docs.core.errors import UsageError
from acp_docs.policy import mkdocsconfig
from acp_docs.sources.textfile import read_text
from acp_docs.sources.yamlfile import NoAliasLoader, lines_of

CONFIG_NAME = "mkdocs.yml"
MAX_CONFIG_CHARS = 256 * 1024
"""mkdocs.yml is a few kilobytes; YAML of megabytes would take minutes to parse."""


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above `start` (default: cwd) holding mkdocs.yml."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate
    raise UsageError(
        f"no {CONFIG_NAME} in {here} or any parent directory: run acp-docs inside a checkout"
    )


class _IgnoreTagsLoader(NoAliasLoader):
    """A safe loader: `!ENV` resolves as MkDocs does, other tags read as plain values."""


def _construct_env(loader: yaml.Loader, node: yaml.Node) -> Any:
    names = (
        loader.construct_sequence(node)
        if isinstance(node, yaml.SequenceNode)
        else [loader.construct_scalar(node)]
    )
    for name in names[:-1] if len(names) > 1 else names:
        if str(name) in os.environ:
            return os.environ[str(name)]
    return names[-1] if len(names) > 1 else None


def _construct_any(loader: yaml.Loader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


_IgnoreTagsLoader.add_constructor("!ENV", _construct_env)
_IgnoreTagsLoader.add_multi_constructor("", _construct_any)


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
        text = read_text(root / CONFIG_NAME, CONFIG_NAME)
        if len(text) > MAX_CONFIG_CHARS:
            # PyYAML's parser, MkDocs's too, takes minutes on a few megabytes of YAML.
            raise UsageError(
                f"{CONFIG_NAME}:1:1: {len(text):,} characters; a site's configuration holds at"
                f" most {MAX_CONFIG_CHARS:,}"
            )
        # Kept while serving until mkdocs.yml, or a variable its `!ENV` tags may
        # read (only ACP_DOCS_*), changes (`acp_docs.core.memo`).
        env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("ACP_DOCS_")))
        return memo.remembered(CONFIG_NAME, (str(root), text, env), lambda: cls.parse(root, text))

    @classmethod
    def parse(cls, root: Path, text: str) -> Repo:
        """The repository at `root` with `text` as its mkdocs.yml."""
        loader = _IgnoreTagsLoader(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                mkdocsconfig.refuse_unsafe_nodes(node)
            config = loader.construct_document(node) if node is not None else None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f":{mark.line + 1}:{mark.column + 1}" if mark else ":1:1"
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise UsageError(f"{CONFIG_NAME}{where}: malformed YAML: {problem}") from None
        except (RecursionError, ValueError) as exc:
            raise UsageError(f"{CONFIG_NAME}:1:1: malformed YAML: {exc}") from None
        finally:
            loader.dispose()
        if not isinstance(config, dict):
            raise UsageError(f"{CONFIG_NAME}:1:1: expected a mapping at the top level")
        mkdocsconfig.refuse_code(config, lines_of(node), root)
        return cls(root=root, config=config, config_text=text)

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
