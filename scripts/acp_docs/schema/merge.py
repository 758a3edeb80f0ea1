"""Every RFD's contribution applied to a published ACP schema, refusing what does not fit.

The base is never changed. Two RFDs that claim overlapping places are refused
with both named; a base that does not look as a change expects is refused; a
`$ref` that leaves the document or names a missing definition is refused.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from acp_docs import protocols, schemacheck
from acp_docs.errors import UsageError
from acp_docs.protocols import ProtocolVersion
from acp_docs.schema import changes
from acp_docs.schema.changes import MergeRefused
from acp_docs.schema.fragments import Contribution
from acp_docs.textfile import load_json

__all__ = ["MergeRefused", "default_base", "load_base", "merge", "merged"]

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
    data = load_json(path, shown)
    return str(data.get("version", "unknown")) if isinstance(data, dict) else "unknown"


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
) -> dict[str, Any]:
    """The pinned base of `channel` with its RFDs merged in, saying where it comes from."""
    base = load_base(root, version, channel=channel)
    made = chosen(contributions, channel)
    result = merge(base, made, version, meta_check=meta_check)
    result[PROVENANCE_KEY] = {
        "base": f"{protocols.SDK_PACKAGE}@{sdk_version(root)} {version.base_files[channel]}",
        "rfds": [{"rfd": c.rfd, "base": Path(version.base_files[c.channel]).name} for c in made],
        "by": "acp-docs schema merge",
    }
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
    data = load_json(path, shown)
    if not isinstance(data, dict) or not isinstance(data.get("$defs"), dict):
        raise MergeRefused(f"{shown}: not a JSON Schema with $defs")
    return data


def _refuse_conflicts(contributions: Sequence[Contribution], version: ProtocolVersion) -> None:
    claimed: list[tuple[tuple[str, ...], Contribution]] = []
    for made in contributions:
        mine = [("$defs", name) for name in made.definitions]
        mine += [changes.place(change, version) for change in made.changes]
        for place in mine:
            for other_place, other in claimed:
                if other.rfd != made.rfd and changes.overlaps(place, other_place):
                    raise MergeRefused(
                        f"RFDs {other.rfd!r} ({other.shown}) and {made.rfd!r} ({made.shown})"
                        f" both change {changes.show_place(min(place, other_place, key=len))}"
                        f" in ACP {version.name}: only one RFD may change a place; agree on one"
                        " change or build one RFD on the other",
                        made.shown,
                    )
        claimed.extend((place, made) for place in mine)


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


def _refuse_dangling(made: Contribution, merged_defs: dict[str, Any]) -> None:
    sources = [*made.definitions.values(), *(c.args for c in made.changes)]
    for ref in _refs(sources):
        name = ref.removeprefix("#/$defs/")
        if not ref.startswith("#/$defs/") or "/" in name:
            raise MergeRefused(
                f"$ref {ref!r} leaves the schema; only #/$defs/<Name> is allowed"
                " (nothing is ever retrieved)",
                made.shown,
            )
        if name not in merged_defs:
            raise MergeRefused(
                f"$ref {ref!r} names no definition in ACP {made.version}", made.shown
            )
    for _where, reason in schemacheck.problems(sources):
        raise MergeRefused(reason, made.shown)
    for change in made.changes:
        fields = change.args.get("fields") if change.op == "add-variant" else None
        if fields is not None and fields not in merged_defs:
            raise MergeRefused(
                f"`fields: {fields}` names no definition in ACP {made.version}",
                change.shown,
                change.line_of("fields"),
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
    for made in contributions:
        for name in made.definitions:
            if name in defs:
                raise MergeRefused(
                    f"base schema already defines $defs/{name} (already merged?)", made.shown
                )
        for change in made.changes:
            changes.apply(merged, change, version)
        defs.update(copy.deepcopy(made.definitions))
    for made in contributions:
        _refuse_dangling(made, defs)
    if meta_check:
        try:
            Draft202012Validator.check_schema(merged)
        except SchemaError as exc:
            raise MergeRefused(
                f"merged ACP {version.name} schema fails the 2020-12 meta-schema: {exc.message}"
            ) from None
    return merged
