"""An RFD's schema change as data: `schema/<rfd-slug>/source.yaml`, resolved per version.

A source holds the new definitions and the changes to published definitions,
written once for every protocol version it targets. Three constructs let one
source say what differs between versions without repeating itself:

- `{$versions: {v1: X, v2: Y}}` is X in v1 and Y in v2; in a version it does not
  name, the member or list item holding it is left out;
- `{$shared: name}` is the value of `shared.name`;
- `{$join: [a, b, ...]}` is the strings joined, after the two above.

Nothing else in the file is interpreted: definitions are JSON Schema as it will
be published. Problems are UsageErrors naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs import filetree, memo, protocols
from acp_docs.errors import LocatedError
from acp_docs.textfile import read_text
from acp_docs.yamlfile import load_with_lines

SOURCE_NAME = "source.yaml"
TOP_LEVEL = {"title", "versions", "shared", "definitions", "changes"}
REQUIRED = {"title", "versions", "changes"}
DEFINITION_NAME = re.compile(r"^[A-Z][A-Za-z0-9]{0,99}$")
MAX_DEPTH = 64
_DROP = object()


class SourceError(LocatedError):
    """A schema source that cannot be used, at a line of the file."""

    def __init__(self, shown: str, line: int, message: str) -> None:
        super().__init__(shown, line, 1, message)


@dataclass(frozen=True)
class Resolved:
    """A source as one version sees it: new definitions and ordered changes."""

    definitions: dict[str, Any]
    changes: list[tuple[str, dict[str, Any]]]
    """(pointer in the source, change) pairs."""


@dataclass(frozen=True)
class SchemaSource:
    """The schema change of one RFD, loaded from `schema/<slug>/source.yaml`."""

    slug: str
    path: Path
    shown: str
    data: dict[str, Any]
    lines: dict[str, int]
    channel: str = "unstable"
    """`unstable` until the owning RFD is Completed (see `protocols.channel_of`)."""

    @property
    def directory(self) -> Path:
        """`schema/<slug>/`, where the source and its fragments live."""
        return self.path.parent

    @property
    def title(self) -> str:
        """What the change is, in a few words (the fragments' titles use it)."""
        return str(self.data["title"])

    @property
    def versions(self) -> tuple[str, ...]:
        """The protocol versions this change targets, in the order of the version table."""
        wanted = set(self.data["versions"])
        return tuple(name for name in protocols.NAMES if name in wanted)

    def line(self, pointer: str) -> int:
        """The line of the source that holds `pointer` (its nearest parent if unknown)."""
        while pointer and pointer not in self.lines:
            pointer = pointer.rsplit("/", 1)[0]
        return self.lines.get(pointer, 1)

    def error(self, pointer: str, message: str) -> SourceError:
        """A SourceError at the line of `pointer`."""
        return SourceError(self.shown, self.line(pointer), message)

    def resolve(self, version: str) -> Resolved:
        """The definitions and changes of `version`, with every construct applied."""
        protocols.get(version)
        shared = self.data.get("shared") or {}
        definitions = {}
        for name, value in (self.data.get("definitions") or {}).items():
            resolved = self._resolve(value, version, shared, f"/definitions/{name}", 0)
            if resolved is not _DROP:
                definitions[name] = resolved
        changes = []
        for index, value in enumerate(self.data["changes"]):
            pointer = f"/changes/{index}"
            resolved = self._resolve(value, version, shared, pointer, 0)
            if resolved is _DROP:
                continue
            if isinstance(value, dict) and set(value) == {"$versions"}:
                pointer = f"{pointer}/$versions/{version}"
            if not isinstance(resolved, dict):
                raise self.error(pointer, "a change must be a mapping with an `op`")
            changes.append((pointer, resolved))
        return Resolved(definitions, changes)

    def _resolve(self, value: Any, version: str, shared: dict, pointer: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.error(pointer, f"nested deeper than {MAX_DEPTH} levels (a $shared cycle?)")
        if isinstance(value, list):
            items = (
                self._resolve(item, version, shared, f"{pointer}/{i}", depth + 1)
                for i, item in enumerate(value)
            )
            return [item for item in items if item is not _DROP]
        if not isinstance(value, dict):
            if value is None or isinstance(value, str | bool | int | float):
                return value
            kind = type(value).__name__
            raise self.error(pointer, f"{kind} values are not JSON: quote it as a string")
        constructs = [key for key in value if key in ("$versions", "$shared", "$join")]
        if constructs:
            if len(value) != 1:
                raise self.error(pointer, f"`{constructs[0]}` must be the only key of its mapping")
            return self._construct(
                constructs[0], value[constructs[0]], version, shared, pointer, depth
            )
        out = {}
        for key, item in value.items():
            resolved = self._resolve(item, version, shared, f"{pointer}/{key}", depth + 1)
            if resolved is not _DROP:
                out[str(key)] = resolved
        return out

    def _construct(
        self, kind: str, arg: Any, version: str, shared: dict, pointer: str, depth: int
    ) -> Any:
        here = f"{pointer}/{kind}"
        if kind == "$versions":
            if not isinstance(arg, dict) or not arg:
                raise self.error(here, "`$versions` maps version names to values")
            for name in arg:
                if not isinstance(name, str) or name not in protocols.VERSIONS:
                    raise self.error(f"{here}/{name}", protocols.unknown(name))
            if version not in arg:
                return _DROP
            return self._resolve(arg[version], version, shared, f"{here}/{version}", depth + 1)
        if kind == "$shared":
            if not isinstance(arg, str) or not isinstance(shared, dict) or arg not in shared:
                known = ", ".join(sorted(shared)) or "none"
                raise self.error(here, f"no shared value {arg!r} (shared: {known})")
            return self._resolve(shared[arg], version, shared, f"/shared/{arg}", depth + 1)
        if not isinstance(arg, list):
            raise self.error(here, "`$join` takes a list of strings")
        parts = self._resolve(arg, version, shared, here, depth + 1)
        if not all(isinstance(part, str) for part in parts):
            raise self.error(here, "`$join` takes a list of strings")
        return "".join(parts)


def _check_top_level(source: SchemaSource) -> None:
    data = source.data
    for key in data:
        if key not in TOP_LEVEL:
            allowed = ", ".join(sorted(TOP_LEVEL))
            raise source.error(f"/{key}", f"unknown key {key!r} (allowed: {allowed})")
    for key in sorted(REQUIRED - set(data)):
        raise source.error("", f"missing required key {key!r}")
    if not isinstance(data["title"], str) or not data["title"].strip():
        raise source.error("/title", "`title` must be a non-empty string")
    versions = data["versions"]
    if not isinstance(versions, list) or not versions:
        raise source.error("/versions", "`versions` must be a non-empty list such as [v1, v2]")
    for index, name in enumerate(versions):
        if not isinstance(name, str) or name not in protocols.VERSIONS:
            raise source.error(f"/versions/{index}", protocols.unknown(name))
    for key in ("shared", "definitions"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise source.error(f"/{key}", f"`{key}` must be a mapping")
    for name in data.get("definitions") or {}:
        if not isinstance(name, str) or not DEFINITION_NAME.match(name):
            raise source.error(
                f"/definitions/{name}", f"definition name {name!r} is not PascalCase"
            )
    if not isinstance(data["changes"], list):
        raise source.error("/changes", "`changes` must be a list")


def load(root: Path, path: Path) -> SchemaSource:
    """Read and check the shape of one source (a UsageError naming file and line)."""
    shown = path.relative_to(root).as_posix()
    text = read_text(path, shown)
    # Kept while serving until the file changes (`acp_docs.memo`); the source is never mutated.
    return memo.remembered(f"source:{path}", (shown, text), lambda: _parse(path, shown, text))


def _parse(path: Path, shown: str, text: str) -> SchemaSource:
    data, lines = load_with_lines(text, shown)
    if not isinstance(data, dict):
        raise SourceError(shown, 1, "a schema source is a YAML mapping")
    source = SchemaSource(path.parent.name, path, shown, data, lines)
    _check_top_level(source)
    return source


def source_paths(schema_dir: Path) -> list[Path]:
    """Every `schema/<slug>/source.yaml`, sorted by slug."""
    if not schema_dir.is_dir():
        return []
    root = schema_dir.parent
    return sorted(
        p / SOURCE_NAME
        for p in schema_dir.iterdir()
        if not p.is_symlink() and filetree.inside(root, p / SOURCE_NAME)
    )


def load_all(root: Path, schema_dir: Path) -> list[SchemaSource]:
    """Every RFD's schema source in the repository."""
    return [load(root, path) for path in source_paths(schema_dir)]
