"""An RFD's schema change as data: `schema/<rfd-slug>/source.yaml`, resolved per version.

A source holds the new definitions and the changes to published definitions,
written once for every protocol version it targets. Three constructs let one
source say what differs between versions without repeating itself:

- `{$versions: {v1: X, v2: Y}}` is X in v1 and Y in v2; it names every version
  the source targets (a version left out is an error at its line), and
  `v2: $omit` leaves the member or list item holding it out of v2;
- `{$shared: name}` is the value of `shared.name`;
- `{$join: [a, b, ...]}` is the strings joined, after the two above.

(`acp_docs.schema.constructs` applies them.)

Nothing else in the file is interpreted: definitions are JSON Schema as it will
be published. Every key is described, with the error each mistake gives, in
docs/tooling/engine.md ("Every key of source.yaml").

A source with a problem is still loaded, by `load_all`, with its `problems`
(each at its line) and no `versions`: the other RFDs' changes merge without
it, and the schema check reports its problems first. `load` raises the first.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.core import budget, memo, protocols
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.schema import changes as changes_module
from acp_docs.schema.constructs import DROP, Resolver
from acp_docs.schema.refcycles import ref_cycles
from acp_docs.schemalib import schemacheck
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.sources.yamlfile import load_with_lines

SOURCE_NAME = "source.yaml"
TOP_LEVEL = ("title", "versions", "shared", "definitions", "changes")
REQUIRED = ("title", "versions", "changes")
MISSING = {
    "title": "a few words naming the change, such as `title: session rename request`",
    "versions": "the protocol versions the change targets, such as `versions: [v1, v2]`",
    "changes": (
        "the changes to published definitions, in order; write `changes: []` when the"
        " RFD only adds definitions"
    ),
}
"""What each required top-level key holds, said when it is missing."""
DEFINITION_NAME = re.compile(r"^[A-Z][A-Za-z0-9]{0,99}$")


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
    problems: tuple[SourceError, ...] = ()
    """Why the source cannot be used, each at its line; empty when it can."""
    digest: str = ""
    """A digest of the file's text (what the merge results are kept under)."""

    @property
    def usable(self) -> bool:
        """True when the source has no problem: its changes are merged."""
        return not self.problems

    @property
    def directory(self) -> Path:
        """`schema/<slug>/`, where the source and its fragments live."""
        return self.path.parent

    @property
    def title(self) -> str:
        """What the change is, in a few words (the fragments' titles use it)."""
        return str(self.data.get("title", ""))

    @property
    def versions(self) -> tuple[str, ...]:
        """The protocol versions this change targets, in the order of the version table.

        Empty for a source with problems: nothing is generated or merged from it.
        """
        if self.problems:
            return ()
        wanted = set(self.data["versions"])
        return tuple(name for name in protocols.NAMES if name in wanted)

    def declared_versions(self) -> tuple[str, ...]:
        """The known versions the file names, whether or not it has problems."""
        listed = self.data.get("versions")
        wanted = {v for v in listed if isinstance(v, str)} if isinstance(listed, list) else set()
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
        resolver = Resolver(
            version, self.declared_versions(), self.data.get("shared") or {}, self.error
        )
        definitions = {}
        for name, value in (self.data.get("definitions") or {}).items():
            resolved = resolver.value(value, f"/definitions/{name}")
            if resolved is not DROP:
                definitions[name] = resolved
        changes = []
        for index, value in enumerate(self.data["changes"]):
            pointer = f"/changes/{index}"
            resolved = resolver.value(value, pointer)
            if resolved is DROP:
                continue
            if isinstance(value, dict) and set(value) == {"$versions"}:
                pointer = f"{pointer}/$versions/{version}"
            if not isinstance(resolved, dict):
                raise self.error(pointer, "a change must be a mapping with an `op`")
            changes.append((pointer, resolved))
        return Resolved(definitions, changes)


def _check_top_level(source: SchemaSource) -> list[SourceError]:
    """Every problem of the top-level keys: unknown, missing, or of the wrong kind."""
    data = source.data
    found: list[SourceError] = []
    for key in data:
        if key not in TOP_LEVEL:
            allowed = ", ".join(TOP_LEVEL)
            found.append(source.error(f"/{key}", f"unknown key {key!r} (allowed: {allowed})"))
    for key in REQUIRED:
        if key not in data:
            found.append(source.error("", f"missing required key `{key}`: {MISSING[key]}"))
    if "title" in data and (not isinstance(data["title"], str) or not data["title"].strip()):
        found.append(source.error("/title", "`title` must be a non-empty string"))
    versions = data.get("versions")
    if "versions" in data and (not isinstance(versions, list) or not versions):
        found.append(
            source.error("/versions", "`versions` must be a non-empty list such as [v1, v2]")
        )
    elif isinstance(versions, list):
        for index, name in enumerate(versions):
            if not isinstance(name, str) or name not in protocols.VERSIONS:
                found.append(source.error(f"/versions/{index}", protocols.unknown(name)))
    for key in ("shared", "definitions"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            found.append(source.error(f"/{key}", f"`{key}` must be a mapping of names"))
    definitions = data.get("definitions")
    for name in definitions if isinstance(definitions, dict) else {}:
        if not isinstance(name, str) or not DEFINITION_NAME.match(name):
            found.append(
                source.error(
                    f"/definitions/{name}",
                    f"definition name {name!r} is not PascalCase (such as RenameSessionRequest)",
                )
            )
    if "changes" in data and not isinstance(data["changes"], list):
        found.append(
            source.error("/changes", "`changes` must be a list of changes (`changes: []` for none)")
        )
    return found


def _as_source_error(source: SchemaSource, error: UsageError) -> SourceError:
    if isinstance(error, SourceError):
        return error
    if isinstance(error, LocatedError):
        return SourceError(error.path, error.line, error.reason)
    return SourceError(source.shown, 1, str(error))


_VERSION_MARK = "\x00"


def unversioned(message: str, version: str) -> str:
    """`message` with `ACP <version>` marked, so that one problem of several versions is one."""
    return message.replace(f"ACP {version}", _VERSION_MARK)


def versioned(template: str, versions: set[str], targeted: set[str]) -> str:
    """The message of a problem found in `versions` of a source that targets `targeted`."""
    names = " and ".join(v for v in protocols.NAMES if v in versions)
    if _VERSION_MARK in template:
        return template.replace(_VERSION_MARK, f"ACP {names}")
    if targeted and versions != targeted:
        return f"{template} (in ACP {names})"
    return template


def _check_resolved(source: SchemaSource) -> list[SourceError]:
    """Every problem found resolving the source in each of its versions, once each: each
    definition and each change is checked on its own, so one mistake hides no other."""
    found: dict[tuple[int, str], set[str]] = {}

    def record(version: str, exc: UsageError) -> None:
        error = _as_source_error(source, exc)
        found.setdefault((error.line, unversioned(error.reason, version)), set()).add(version)

    for version in source.declared_versions():
        table = protocols.get(version)
        try:
            resolved = source.resolve(version)
        except UsageError as exc:
            record(version, exc)
            continue
        for name, definition in resolved.definitions.items():
            try:
                _check_definition(source, name, definition)
            except UsageError as exc:
                record(version, exc)
        for name, cycle in ref_cycles(resolved.definitions):
            record(
                version,
                source.error(
                    f"/definitions/{name}",
                    f"definition `{name}` refers back to itself ({' -> '.join(cycle)}) without"
                    " going into a property or an item, so no payload could ever be checked"
                    " against it: make one of them a real schema",
                ),
            )
        for pointer, raw in resolved.changes:
            try:
                _check_change(source, table, pointer, raw)
            except UsageError as exc:
                record(version, exc)
    targeted = set(source.declared_versions())
    return [
        SourceError(source.shown, line, versioned(template, versions, targeted))
        for (line, template), versions in found.items()
    ]


def _check_definition(source: SchemaSource, name: str, definition: Any) -> None:
    pointer = f"/definitions/{name}"
    if not isinstance(definition, dict):
        raise source.error(pointer, f"definition `{name}` must be a JSON Schema object (a mapping)")
    for where, reason in schemacheck.problems(definition):
        raise source.error(f"{pointer}{where}", reason)


def _check_change(source: SchemaSource, table: Any, pointer: str, raw: Any) -> None:
    for where, reason in schemacheck.problems(raw):
        raise source.error(f"{pointer}{where}", reason)
    change = changes_module.parse(
        raw,
        source.shown,
        source.line(pointer),
        {key: source.line(f"{pointer}/{key}") for key in raw} if isinstance(raw, dict) else {},
    )
    wrong = changes_module.version_problem(change, table)
    if wrong is not None:
        key, reason = wrong
        raise SourceError(source.shown, change.line_of(key), reason)


def problems_of(source: SchemaSource) -> list[SourceError]:
    """Every problem that keeps the source from being used, in the order of its lines."""
    found = _check_top_level(source)
    if not found:
        found = _check_resolved(source)
    return sorted(found, key=lambda error: error.line)


def load(root: Path, path: Path) -> SchemaSource:
    """Read and check one source; its first problem is raised (a UsageError naming file and line).

    `load_all` keeps a source with problems instead, so that other sources still merge.
    """
    loaded = _load(root, path)
    if loaded.problems:
        raise loaded.problems[0]
    return loaded


def _load(root: Path, path: Path) -> SchemaSource:
    shown = path.relative_to(root).as_posix()
    try:
        text = read_text(path, shown)
    except UnreadableFile as exc:
        problem = SourceError(shown, exc.line, exc.reason)
        return SchemaSource(path.parent.name, path, shown, {}, {}, problems=(problem,))
    # Kept while serving until the file changes (`acp_docs.core.memo`); the source is never mutated.
    return memo.remembered(f"source:{path}", (shown, text), lambda: _bounded(path, shown, text))


def _bounded(path: Path, shown: str, text: str) -> SchemaSource:
    """`_parse` within the source's time budget (`core.budget`)."""
    try:
        with budget.limited(shown):
            return _parse(path, shown, text)
    except budget.OutOfTime as out:
        if out.what != shown:
            raise
        message = f"reading this source took more than {out.seconds:g} s, and was stopped"
        problem = SourceError(shown, 1, message)
        return SchemaSource(path.parent.name, path, shown, {}, {}, problems=(problem,))


def from_text(root: Path, path: Path, text: str) -> SchemaSource:
    """The source `text` would be at `path`, with its problems (nothing is read or written)."""
    return _parse(path, path.relative_to(root).as_posix(), text)


def _parse(path: Path, shown: str, text: str) -> SchemaSource:
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    slug = path.parent.name
    try:
        data, lines = load_with_lines(text, shown)
    except LocatedError as exc:
        problem = SourceError(shown, exc.line, exc.reason)
        return SchemaSource(slug, path, shown, {}, {}, problems=(problem,), digest=digest)
    if not isinstance(data, dict):
        problem = SourceError(
            shown, 1, "a schema source is a YAML mapping with title, versions and changes"
        )
        return SchemaSource(slug, path, shown, {}, lines, problems=(problem,), digest=digest)
    source = SchemaSource(slug, path, shown, data, lines, digest=digest)
    return SchemaSource(
        slug, path, shown, data, lines, problems=tuple(problems_of(source)), digest=digest
    )


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
    """Every RFD's schema source in the repository, those with problems included.

    A source with problems has no `versions`, so nothing is generated or merged
    from it; `drift.check` reports its problems.
    """
    return [_load(root, path) for path in source_paths(schema_dir)]


def refuse_problems(sources: list[SchemaSource]) -> None:
    """Raise the first problem of any source (for commands that must not leave one out)."""
    for source in sources:
        if source.problems:
            first = source.problems[0]
            more = sum(len(s.problems) for s in sources) - 1
            if more:
                raise SourceError(
                    first.path,
                    first.line,
                    f"{first.reason} ({more} more problem(s): run `acp-docs schema check`)",
                )
            raise first
