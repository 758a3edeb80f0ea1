"""A fragment rendered as a Markdown schema reference: each type, its fields, what changes."""

from __future__ import annotations

from typing import Any

from acp_docs.schema.fragments import MERGE_KEY
from acp_docs.schema.source import Protocol


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _link(name: str, local: set[str]) -> str:
    return f"[`{name}`](#{name.lower()})" if name in local else f"`{name}`"


def type_of(prop: dict[str, Any], local: set[str]) -> str:
    """A property's type as a reader would say it, linking the fragment's own types."""
    if "$ref" in prop:
        return _link(_ref_name(prop["$ref"]), local)
    if "anyOf" in prop:
        return " or ".join(type_of(option, local) for option in prop["anyOf"])
    if "const" in prop:
        return f'`"{prop["const"]}"`'
    kind = prop.get("type")
    if kind == "array":
        return f"array of {type_of(prop.get('items', {}), local)}"
    if kind == "string" and prop.get("minLength"):
        return "non-empty string"
    if isinstance(kind, list):
        return " or ".join(f"`{k}`" for k in kind)
    return f"`{kind}`" if kind else "any"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n\n", "<br><br>").replace("\n", " ")


def _fields(definition: dict[str, Any], local: set[str]) -> list[str]:
    props = definition.get("properties") or {}
    if not props:
        return ["No fields: the empty object `{}` is the whole value.", ""]
    required = set(definition.get("required") or [])
    rows = ["| Field | Type | Required | Description |", "| --- | --- | --- | --- |"]
    for name, prop in props.items():
        need = "required" if name in required else "optional"
        rows.append(
            f"| `{name}` | {type_of(prop, local)} | {need} | {_cell(prop.get('description', ''))} |"
        )
    return [*rows, ""]


def render(fragment: dict[str, Any], protocol: Protocol) -> str:
    """The reference page body for one version's fragment."""
    defs: dict[str, Any] = fragment["$defs"]
    local = set(defs)
    merge = fragment[MERGE_KEY]
    variant = merge["SessionUpdate"]["variant"]
    tag = variant["properties"]["sessionUpdate"]["const"]
    update_type = _ref_name(variant["allOf"][0]["$ref"])
    out = [
        "## Changes to published definitions",
        "",
        f"### `SessionUpdate`: the `{tag}` variant",
        "",
        f'A new branch whose `sessionUpdate` is `"{tag}"`, with the fields of'
        f" {_link(update_type, local)}.",
        "",
        _cell(variant.get("description", "")).replace("<br><br>", "\n\n"),
        "",
    ]
    if protocol == "v1":
        out += ["`SessionUpdate` is a closed `oneOf` in v1: the branch is appended to it.", ""]
        for name, prop in merge["ClientSessionCapabilities"]["properties"].items():
            out += [
                f"### `ClientSessionCapabilities`: the `{name}` field",
                "",
                "| Field | Type | Required | Description |",
                "| --- | --- | --- | --- |",
                f"| `{name}` | {type_of(prop, local)} | optional | {_cell(prop['description'])} |",
                "",
            ]
    else:
        out += [
            "### `SessionUpdate`: the `other` fallback",
            "",
            "`SessionUpdate` is open in v2: its last branch, `other`, accepts any tag that"
            " is not a known one. The merge inserts the new branch before `other` and adds"
            f' `"{tag}"` to the tags `other` excludes, so a malformed `{tag}` update is'
            " rejected instead of passing as an unknown update.",
            "",
        ]
    out += ["## New definitions", ""]
    for name, definition in defs.items():
        out += [f"### {name}", "", definition.get("description", ""), ""]
        out += ["Type: `object`", ""]
        out += _fields(definition, local)
    return "\n".join(out).rstrip("\n") + "\n"
