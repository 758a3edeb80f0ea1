"""A fragment applied to a published ACP schema, refusing shapes it does not recognise."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from acp_docs.errors import UsageError
from acp_docs.schema import source
from acp_docs.schema.fragments import MERGE_KEY
from acp_docs.schema.source import Protocol
from acp_docs.textfile import load_json

SDK_PACKAGE = "@agentclientprotocol/sdk"

TOUCHED: dict[Protocol, tuple[str, ...]] = {
    "v1": ("SessionUpdate", "ClientSessionCapabilities"),
    "v2": ("SessionUpdate",),
}
"""The base definitions a merge changes; every other one stays as it was."""


class MergeRefused(UsageError):
    """The base schema is not one this fragment can be applied to."""


def default_base(root: Path, protocol: Protocol) -> Path:
    """The pinned SDK's stable schema of a version, as `npm ci` installs it."""
    return root / "node_modules" / SDK_PACKAGE / "schema" / protocol / "schema.json"


def load_base(root: Path, protocol: Protocol, base: Path | None = None) -> dict[str, Any]:
    """Read the base schema; a missing default base says to run `make setup`."""
    path = base or default_base(root, protocol)
    if base is None and not path.is_file():
        raise UsageError(
            f"{path.relative_to(root).as_posix()}: the pinned ACP schema is not installed;"
            " run `make setup` (it runs `npm ci`)"
        )
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    data = load_json(path, shown)
    if not isinstance(data, dict):
        raise MergeRefused(f"{shown}: not a JSON Schema object")
    return data


def _tag_of(branch: Any) -> Any:
    if not isinstance(branch, dict):
        return None
    return (branch.get("properties") or {}).get("sessionUpdate", {}).get("const")


def _other_branch(branches: list[Any]) -> dict[str, Any] | None:
    if branches and isinstance(branches[-1], dict) and branches[-1].get("title") == "other":
        last = branches[-1]
        excluded = (last.get("not") or {}).get("anyOf")
        if isinstance(excluded, list):
            return last
    return None


def _refuse_unknown_shape(defs: dict[str, Any], protocol: Protocol) -> list[Any]:
    update = defs.get("SessionUpdate")
    if not isinstance(update, dict):
        raise MergeRefused("base schema has no $defs/SessionUpdate")
    key = "oneOf" if protocol == "v1" else "anyOf"
    branches = update.get(key)
    if not isinstance(branches, list):
        raise MergeRefused(f"base $defs/SessionUpdate has no `{key}` list: not an ACP {protocol}")
    if any(_tag_of(b) == source.TAG for b in branches):
        raise MergeRefused(
            f"base $defs/SessionUpdate already has a `{source.TAG}` variant (already merged?)"
        )
    for name in source.new_defs(protocol):
        if name in defs:
            raise MergeRefused(f"base schema already defines $defs/{name} (already merged?)")
    if protocol == "v1":
        caps = defs.get("ClientSessionCapabilities")
        if not isinstance(caps, dict) or not isinstance(caps.get("properties"), dict):
            raise MergeRefused("base v1 schema has no $defs/ClientSessionCapabilities")
        if source.CAPABILITY_FIELD in caps["properties"]:
            raise MergeRefused(
                f"base ClientSessionCapabilities already has `{source.CAPABILITY_FIELD}`"
            )
    elif _other_branch(branches) is None:
        raise MergeRefused(
            "base v2 $defs/SessionUpdate does not end with the `other` fallback"
            " (title: other, not.anyOf): not a shape this merge recognises"
        )
    return branches


def merge(
    base: dict[str, Any], fragment: dict[str, Any], protocol: Protocol, meta_check: bool = True
) -> dict[str, Any]:
    """The base schema with the fragment applied; the base itself is left unchanged.

    With `meta_check` (the default) the result must pass the 2020-12 meta-schema.
    """
    defs = base.get("$defs")
    if not isinstance(defs, dict):
        raise MergeRefused("base schema has no $defs")
    _refuse_unknown_shape(defs, protocol)
    instructions = fragment[MERGE_KEY]

    merged = copy.deepcopy(base)
    mdefs = merged["$defs"]
    update = mdefs["SessionUpdate"]
    variant = copy.deepcopy(instructions["SessionUpdate"]["variant"])
    if protocol == "v1":
        update["oneOf"].append(variant)
        props = instructions["ClientSessionCapabilities"]["properties"]
        mdefs["ClientSessionCapabilities"]["properties"].update(copy.deepcopy(props))
    else:
        branches = update["anyOf"]
        other = branches[-1]
        branches.insert(len(branches) - 1, variant)
        exclusion = copy.deepcopy(instructions["SessionUpdate"]["otherExclusion"])
        other["not"]["anyOf"].append(exclusion)
    for name, definition in fragment["$defs"].items():
        mdefs[name] = copy.deepcopy(definition)

    if not meta_check:
        return merged
    try:
        Draft202012Validator.check_schema(merged)
    except SchemaError as exc:
        raise MergeRefused(f"merged schema fails the 2020-12 meta-schema: {exc.message}") from None
    return merged
