"""Every RFD's contribution applied to a published ACP schema, refusing what does not fit.

The base is never changed. Two RFDs that claim overlapping places are refused
with both named; a base that does not look as a change expects is refused; a
`$ref` that leaves the document or names a missing definition is refused.

`merge` and `merged` refuse the whole merge on the first problem (`acp-docs
schema merge`). `assemble`, which the checks and the site use, leaves out each
RFD whose change is refused, merges the others, and returns the problems as
findings at their lines, with the message types a source leaves unreachable.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from acp_docs.core import budget, memo, protocols
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.schema import changes, fragments, reachable
from acp_docs.schema import source as source_module
from acp_docs.schema.changes import MergeRefused
from acp_docs.schema.fragments import Contribution
from acp_docs.schema.refcycles import ref_cycles
from acp_docs.schema.source import SchemaSource
from acp_docs.schemalib import schemacheck
from acp_docs.sources import pointer as ptr
from acp_docs.sources.textfile import load_json

__all__ = [
    "Assembly",
    "MergeRefused",
    "assemble",
    "base_inputs",
    "default_base",
    "load_base",
    "merge",
    "merged",
]

PROVENANCE_KEY = "x-acp-merged"


def default_base(root: Path, version: ProtocolVersion, channel: str = "stable") -> Path:
    """A schema file of the pinned SDK, as `npm ci` installs it."""
    return root / "node_modules" / protocols.SDK_PACKAGE / version.base_files[channel]


def sdk_version(root: Path) -> str:
    """The version of the pinned SDK package that `npm ci` installed."""
    path = root / "node_modules" / protocols.SDK_PACKAGE / "package.json"
    shown = f"node_modules/{protocols.SDK_PACKAGE}/package.json"
    if not path.is_file():
        raise UsageError(f"{shown}: the pinned ACP SDK is not installed; run `make setup`")
    data = load_json(path, shown, installed=True)
    return str(data.get("version", "unknown")) if isinstance(data, dict) else "unknown"


def base_inputs(root: Path) -> list[Path]:
    """Every file a merge onto the pinned bases reads: each base and the SDK's package.json."""
    package = root / "node_modules" / protocols.SDK_PACKAGE
    files = {default_base(root, v, c) for v in protocols.VERSIONS.values() for c in v.base_files}
    return [package / "package.json", *sorted(files)]


def default_channel(contributions: Sequence[Contribution]) -> str:
    """`unstable` while any RFD is not Completed (that base holds them all), else `stable`."""
    return "unstable" if any(c.channel == "unstable" for c in contributions) else "stable"


def chosen(contributions: Sequence[Contribution], channel: str) -> list[Contribution]:
    """What goes into a base: only Completed RFDs into `stable`, every RFD into `unstable`."""
    return [c for c in contributions if channel == "unstable" or c.channel == "stable"]


def merged(
    root: Path,
    version: ProtocolVersion,
    contributions: Sequence[Contribution],
    channel: str,
    meta_check: bool = True,
    base: Path | None = None,
    refuse_problems: bool | None = None,
) -> dict[str, Any]:
    """The base of `channel` (pinned, or the file `base`) with its RFDs merged in, saying where
    it comes from.

    With `refuse_problems` (by default, when `meta_check` is on: a schema published on
    its own, as `acp-docs schema merge` writes it), a schema source of the repository at
    `root` that has problems refuses the merge with its first problem, at its line: the
    result must not silently leave an RFD out. The site's build turns it off and
    reports those problems as findings instead (`drift.check`).
    """
    strict = meta_check if refuse_problems is None else refuse_problems
    if strict:
        source_module.refuse_problems(source_module.load_all(root, root / "schema"))
    loaded = load_base(root, version, base, channel=channel)
    made = chosen(contributions, channel)
    result = merge(loaded, made, version, meta_check=meta_check)
    base_name = (
        f"{protocols.SDK_PACKAGE}@{sdk_version(root)} {version.base_files[channel]}"
        if base is None
        else base.as_posix()
    )
    result[PROVENANCE_KEY] = {
        "base": base_name,
        "rfds": [{"rfd": c.rfd, "base": Path(version.base_files[c.channel]).name} for c in made],
        "by": "acp-docs schema merge",
    }
    rfds = ", ".join(c.rfd for c in made)
    if isinstance(result.get("title"), str):
        merged_in = f" + RFDs: {rfds}" if rfds else " (no RFD merged in)"
        result["title"] = f"{result['title']} {version.name}, {channel}{merged_in}"
    result["$comment"] = f"Generated by acp-docs from {base_name}" + (
        f", with the schema changes of these RFDs merged in: {rfds}." if rfds else "."
    )
    return result


def load_base(
    root: Path, version: ProtocolVersion, base: Path | None = None, channel: str = "stable"
) -> dict[str, Any]:
    """Read the base schema; a missing default base says to run `make setup`."""
    path = base or default_base(root, version, channel)
    if base is None and not path.is_file():
        raise UsageError(
            f"{path.relative_to(root).as_posix()}: the pinned ACP schema is not installed;"
            " run `make setup` (it runs `npm ci`)"
        )
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    data = load_json(path, shown, installed=base is None)
    if not isinstance(data, dict) or not isinstance(data.get("$defs"), dict):
        raise MergeRefused(f"{shown}: not a JSON Schema with $defs")
    return data


def _claims(made: Contribution, version: ProtocolVersion) -> list[tuple[tuple[str, ...], int]]:
    """Each place the contribution claims, with the line of the source that claims it."""
    mine: list[tuple[tuple[str, ...], int]] = [
        (("$defs", name), made.line_of(name)) for name in made.definitions
    ]
    mine += [
        (changes.place(change, version), change.line_of(changes.PRIMARY.get(change.op, "path")))
        for change in made.changes
    ]
    return mine


def _refuse_conflicts(contributions: Sequence[Contribution], version: ProtocolVersion) -> None:
    claimed: list[tuple[tuple[str, ...], Contribution]] = []
    for made in contributions:
        mine = _claims(made, version)
        for place, line in mine:
            for other_place, other in claimed:
                if other.rfd != made.rfd and changes.overlaps(place, other_place):
                    raise MergeRefused(
                        f"RFDs {other.rfd!r} ({other.shown}) and {made.rfd!r} ({made.shown})"
                        f" both change {changes.show_place(min(place, other_place, key=len))}"
                        f" in ACP {version.name}: only one RFD may change a place; agree on one"
                        " change or build one RFD on the other",
                        made.shown,
                        line,
                    )
        claimed.extend((place, made) for place, _line in mine)


def _refs(node: Any) -> Iterator[str]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                yield ref
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _definition_named(ref: str) -> str | None:
    """The definition `#/$defs/<Name>` names (`~0`, `~1` unescaped); None for any other ref."""
    if not ref.startswith("#/"):
        return None
    try:
        parts = ptr.parse(ptr.from_fragment(ref))
    except ptr.PointerError:
        return None
    return parts[1] if len(parts) == 2 and parts[0] == "$defs" else None


def _refuse_dangling(made: Contribution, merged_defs: dict[str, Any]) -> None:
    items = [(d, made.line_of(name)) for name, d in made.definitions.items()]
    items += [(c.args, c.line) for c in made.changes]
    for item, line in items:
        for ref in _refs(item):
            name = _definition_named(ref)
            if name is None:
                raise MergeRefused(
                    f"$ref {ref!r} leaves the schema; only #/$defs/<Name> is allowed"
                    " (nothing is ever retrieved)",
                    made.shown,
                    line,
                )
            if name not in merged_defs:
                raise MergeRefused(
                    f"$ref {ref!r} names no definition in ACP {made.version}", made.shown, line
                )
        for _where, reason in schemacheck.problems(item):
            raise MergeRefused(reason, made.shown, line)
    for change in made.changes:
        key = {"add-variant": "fields", "add-message": "definition"}.get(change.op)
        if key is None:
            continue
        name = change.args.get(key)
        if name is not None and name not in merged_defs:
            raise MergeRefused(
                f"`{key}: {name}` names no definition in ACP {made.version}",
                change.shown,
                change.line_of(key),
            )


def merge(
    base: dict[str, Any],
    contributions: Sequence[Contribution],
    version: ProtocolVersion,
    meta_check: bool = True,
) -> dict[str, Any]:
    """The base schema with every contribution applied; the base itself is left unchanged.

    With `meta_check` (the default) the result must pass the 2020-12 meta-schema.
    """
    if not isinstance(base.get("$defs"), dict):
        raise MergeRefused("base schema has no $defs")
    _refuse_conflicts(contributions, version)
    merged = copy.deepcopy(base)
    defs = merged["$defs"]
    own_loops = {name for name, _ in ref_cycles(defs)}  # the base's, if it had any
    for made in contributions:
        for name in made.definitions:
            if name in defs:
                raise MergeRefused(
                    f"base schema already defines $defs/{name} (already merged?): choose"
                    " another name",
                    made.shown,
                    made.line_of(name),
                )
        for change in made.changes:
            changes.apply(merged, change, version)
        defs.update(copy.deepcopy(made.definitions))
        _refuse_loops(made, defs, own_loops)
    for made in contributions:
        _refuse_dangling(made, defs)
    if meta_check and not _meets_metaschema(merged):
        try:
            Draft202012Validator.check_schema(merged)  # says why, in jsonschema's words
        except SchemaError as exc:
            raise MergeRefused(
                f"merged ACP {version.name} schema fails the 2020-12 meta-schema: {exc.message}"
            ) from None
    return merged


def _refuse_loops(made: Contribution, defs: dict[str, Any], own_loops: set[str]) -> None:
    """Refuse a contribution that makes a definition refer to itself in place (`allOf`, ...):
    no validator can end such a loop. The source's own definitions were checked on load; this
    catches a JSON Patch that closes a loop through the base's definitions."""
    loops = [(name, loop) for name, loop in ref_cycles(defs) if name not in own_loops]
    if not loops:
        return
    name, loop = loops[0]
    touching = [c for c in made.changes if any(n in repr(c.args) for n in loop)]
    line = touching[0].line if touching else made.line_of(name)
    raise MergeRefused(
        f"$defs/{name} refers to itself in place ({' -> '.join(loop)}): no validator can"
        " end that loop; refer to it from `properties` or `items` instead",
        made.shown,
        line,
    )


def _meets_metaschema(schema: dict[str, Any]) -> bool:
    """What `Draft202012Validator.check_schema` decides, at a hundredth of its cost:
    jsonschema-rs against the 2020-12 meta-schema, and every pattern compiles (the
    `regex` format that check_schema also checks)."""
    if not jsonschema_rs.meta.is_valid(schema):
        return False
    for _, node in ptr.nodes(schema):
        patterns = [node.get("pattern"), *(node.get("patternProperties") or {})]
        for pattern in patterns:
            if isinstance(pattern, str):
                try:
                    re.compile(pattern)
                except re.error:
                    return False
    return True


@dataclass(frozen=True)
class Assembly:
    """Each version's unstable base with every RFD that merges, and what kept the others out.

    `problems` are findings of the `schema` check, at the lines of the sources:
    `schema/merge` for a change the merge refuses (that RFD is left out of that
    version), `schema/message` for a request, response or notification type that
    no JSON-RPC message can reach. The schemas are shared: never change them.
    """

    schemas: dict[str, dict[str, Any]]
    problems: tuple[Finding, ...]


def assemble(root: Path, sources: Sequence[SchemaSource], meta_check: bool = False) -> Assembly:
    """Every usable source merged into each version's unstable base; kept while its inputs stay.

    A source with problems is left out (the schema check reports them); so is,
    in one version, a source whose change that version's merge refuses. The
    others merge as if it were not there.
    """
    parts = tuple((s.slug, s.shown, s.channel, s.digest, s.usable) for s in sources)
    if any(not s.digest for s in sources):
        return _assemble(root, sources, meta_check)
    # Keyed by content, not by place: the same files in another checkout give the same assembly.
    key = (meta_check, parts, memo.digest_of(base_inputs(root), root))
    # A few kept: a check and a test or a served preview may alternate between two states.
    return memo.remembered("assembly", key, lambda: _assemble(root, sources, meta_check), keep=3)


def _assemble(root: Path, sources: Sequence[SchemaSource], meta_check: bool) -> Assembly:
    found: dict[tuple[str, int, str, str], set[str]] = {}
    targets = {s.shown: set(s.versions) for s in sources}

    def record(path: str, line: int, message: str, rule: str, version: str) -> None:
        key = (path, line, source_module.unversioned(message, version), rule)
        found.setdefault(key, set()).add(version)

    schemas = {}
    for version in protocols.VERSIONS.values():
        made = []
        for source in sources:
            if source.usable and version.name in source.versions:
                try:
                    with budget.limited(source.shown):
                        made.append(fragments.contribution(source, version.name))
                except LocatedError as exc:
                    record(exc.path, exc.line, exc.reason, "schema/source", version.name)
                except budget.OutOfTime as out:
                    if out.what != source.shown:
                        raise
                    message = f"generating this change took more than {out.seconds:g} s"
                    record(source.shown, 1, message, "schema/source", version.name)
        while True:
            named = ", ".join(c.shown for c in made) or "the base schemas"
            try:
                with budget.limited(named):
                    result = merged(
                        root, version, made, "unstable", meta_check, refuse_problems=False
                    )
                break
            except budget.OutOfTime as out:
                if out.what != named or not made:
                    raise
                message = f"merging this change took more than {out.seconds:g} s, and was stopped"
                record(made[0].shown, 1, message, "schema/merge", version.name)
                made.pop(0)
                continue
            except MergeRefused as exc:
                culprit = next((c for c in made if exc.path and c.shown == exc.path), None)
                if culprit is None:
                    raise
                record(culprit.shown, exc.line, exc.reason, "schema/merge", version.name)
                made.remove(culprit)
        schemas[version.name] = result
        for contribution in made:
            for line, message in reachable.message_problems(contribution, result["$defs"]):
                record(contribution.shown, line, message, "schema/message", version.name)
    problems = []
    for (path, line, template, rule), versions in found.items():
        message = source_module.versioned(template, versions, targets.get(path, set()))
        problems.append(Finding(path, line, 1, fragments.CHECK, message, rule))
    return Assembly(schemas, tuple(sorted(set(problems))))
