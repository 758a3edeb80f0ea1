"""The changes an RFD makes to published definitions: their form, their place, their guards.

A change is a mapping with an `op`:

- `add-variant` (`union`, `tag`, `fields`, optional `description`): a new branch
  of a discriminated union of the version table, shaped like the published
  branches; in an open union it goes before the fallback, whose exclusion list
  gains the tag.
- `add-capability` (`scope`, `property`, `schema`): a new Client capability in
  the definition the version table names for that scope.
- `add-property` (`definition`, `property`, `schema`): a new property of any
  object definition.
- `test`, `add`, `replace`, `remove` (`path`, `value`): RFC 6902 JSON Patch
  operations under `/$defs/`, for anything else; `test` guards the others.

Every change refuses a base that does not look as it expects (the base moved),
and claims a place; two RFDs that claim overlapping places are refused.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from acp_docs.errors import LocatedError, UsageError
from acp_docs.protocols import ProtocolVersion, Union

SPECS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "add-variant": (frozenset({"union", "tag", "fields"}), frozenset({"description"})),
    "add-capability": (frozenset({"scope", "property", "schema"}), frozenset()),
    "add-property": (frozenset({"definition", "property", "schema"}), frozenset()),
    "test": (frozenset({"path", "value"}), frozenset()),
    "add": (frozenset({"path", "value"}), frozenset()),
    "replace": (frozenset({"path", "value"}), frozenset()),
    "remove": (frozenset({"path"}), frozenset()),
}
"""Each op with its required and optional keys besides `op`."""

PATCH_OPS = frozenset({"test", "add", "replace", "remove"})


class MergeRefused(UsageError):
    """The base schema is not one these changes can be applied to.

    `path` and `line` name the change that was refused, when one was.
    """

    def __init__(self, reason: str, path: str | None = None, line: int = 1) -> None:
        super().__init__(f"{path}:{line}:1: {reason}" if path else reason)
        self.path = path
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Change:
    """One validated change, with the file and line it comes from."""

    op: str
    args: dict[str, Any]
    shown: str
    line: int
    key_lines: dict[str, int] = field(default_factory=dict, compare=False)

    def line_of(self, key: str) -> int:
        """The line of one of the change's keys (the change's own line if unknown)."""
        return self.key_lines.get(key, self.line)

    @property
    def where(self) -> str:
        """`file:line`, for messages."""
        return f"{self.shown}:{self.line}"

    def as_json(self) -> dict[str, Any]:
        """The change as a fragment records it."""
        return {"op": self.op, **self.args}


PRIMARY = {"add-variant": "union", "add-capability": "scope", "add-property": "definition"}
"""The key a refused change is reported at (JSON Patch operations: `path`)."""


def parse(raw: Any, shown: str, line: int, key_lines: dict[str, int] | None = None) -> Change:
    """A change from its mapping; a LocatedError at `shown:line` when malformed."""

    def bad(reason: str) -> LocatedError:
        return LocatedError(shown, line, 1, reason)

    if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
        raise bad("a change is a mapping with an `op`")
    op = raw["op"]
    if op not in SPECS:
        raise bad(f"unknown op {op!r} (known: {', '.join(SPECS)})")
    required, optional = SPECS[op]
    keys = set(raw) - {"op"}
    if required - keys:
        raise bad(f"`{op}` needs {', '.join(sorted(required - keys))}")
    if keys - required - optional:
        raise bad(f"`{op}` does not take {', '.join(sorted(keys - required - optional))}")
    args = {key: raw[key] for key in raw if key != "op"}
    for key in ("union", "tag", "fields", "scope", "property", "definition", "path", "description"):
        if key in args and not isinstance(args[key], str):
            raise bad(f"`{key}` must be a string")
    if "schema" in args and not isinstance(args["schema"], dict):
        raise bad("`schema` must be a JSON Schema object")
    change = Change(op, args, shown, line, dict(key_lines or {}))
    if op in PATCH_OPS:
        _pointer(change)
    return change


def _pointer(change: Change) -> list[str]:
    path = change.args["path"]
    if not path.startswith("/$defs/") or path == "/$defs/":
        raise LocatedError(
            change.shown,
            change.line,
            1,
            f"JSON Patch paths must point under /$defs/, not {path!r}",
        )
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def place(change: Change, version: ProtocolVersion) -> tuple[str, ...]:
    """The part of the schema the change claims, as a path of names."""
    args = change.args
    if change.op == "add-variant":
        return ("$defs", args["union"], f"variant {args['tag']!r}")
    if change.op == "add-capability":
        definition = version.capability_definition(args["scope"])
        return ("$defs", definition, "properties", args["property"])
    if change.op == "add-property":
        return ("$defs", args["definition"], "properties", args["property"])
    # A JSON Patch operation claims the whole definition it touches.
    return tuple(_pointer(change)[:2])


def overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """True when one place contains the other."""
    shortest = min(len(a), len(b))
    return a[:shortest] == b[:shortest]


def show_place(parts: tuple[str, ...]) -> str:
    """A place as a reader would name it."""
    return "/".join(parts)


def _tag_of(branch: Any, discriminator: str) -> Any:
    if not isinstance(branch, dict):
        return None
    prop = (branch.get("properties") or {}).get(discriminator)
    return prop.get("const") if isinstance(prop, dict) else None


def tag_match(union: Union, tag: str) -> dict[str, Any]:
    """The object that matches one tag, as the published branches spell it."""
    return {
        "type": "object",
        "properties": {union.discriminator: {"type": "string", "const": tag}},
        "required": [union.discriminator],
    }


def variant_branch(union: Union, tag: str, fields: str, description: str | None) -> dict[str, Any]:
    """The union branch an `add-variant` inserts."""
    match = tag_match(union, tag)
    branch: dict[str, Any] = {"description": description} if description else {}
    branch.update(match)
    branch["allOf"] = [{"$ref": f"#/$defs/{fields}"}]
    return branch


def _fallback(union: Union, branches: list[Any], version: ProtocolVersion) -> dict[str, Any]:
    last = branches[-1] if branches else None
    excluded = ((last or {}).get("not") or {}).get("anyOf") if isinstance(last, dict) else None
    if not (isinstance(last, dict) and last.get("title") == union.fallback) or not isinstance(
        excluded, list
    ):
        raise MergeRefused(
            f"base $defs/{union.definition} does not end with the `{union.fallback}` fallback"
            f" (title: {union.fallback}, not.anyOf) that ACP {version.name} has: not a shape"
            " this merge recognises"
        )
    return last


def _add_variant(defs: dict[str, Any], change: Change, version: ProtocolVersion) -> None:
    args = change.args
    union = version.union(args["union"])
    target = defs.get(union.definition)
    branches = target.get(union.keyword) if isinstance(target, dict) else None
    if not isinstance(branches, list):
        raise MergeRefused(
            f"base $defs/{union.definition} has no `{union.keyword}` list: not ACP {version.name}"
            " as the version table describes it"
        )
    if any(_tag_of(b, union.discriminator) == args["tag"] for b in branches):
        raise MergeRefused(
            f"base $defs/{union.definition} already has a `{args['tag']}` variant (already merged?)"
        )
    branch = variant_branch(union, args["tag"], args["fields"], args.get("description"))
    if not union.is_open:
        branches.append(branch)
        return
    fallback = _fallback(union, branches, version)
    branches.insert(len(branches) - 1, branch)
    fallback["not"]["anyOf"].append(tag_match(union, args["tag"]))


def _add_property(defs: dict[str, Any], definition: str, change: Change) -> None:
    target = defs.get(definition)
    props = target.get("properties") if isinstance(target, dict) else None
    if not isinstance(props, dict):
        raise MergeRefused(f"base schema has no object definition $defs/{definition}")
    name = change.args["property"]
    if name in props:
        raise MergeRefused(f"base $defs/{definition} already has `{name}` (already merged?)")
    props[name] = copy.deepcopy(change.args["schema"])


def _parent(doc: Any, parts: list[str], change: Change) -> tuple[Any, str]:
    node = doc
    for part in parts[:-1]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise MergeRefused(f"{change.args['path']} does not exist in the base")
    return node, parts[-1]


def _patch(merged: dict[str, Any], change: Change) -> None:
    parts = _pointer(change)
    parent, last = _parent(merged, parts, change)
    op, path = change.op, change.args["path"]
    exists = (isinstance(parent, dict) and last in parent) or (
        isinstance(parent, list) and last.isdigit() and int(last) < len(parent)
    )
    key: Any = int(last) if isinstance(parent, list) and last.isdigit() else last
    if op == "test":
        if not exists or parent[key] != change.args["value"]:
            raise MergeRefused(f"test failed at {path}: the base has changed")
    elif op == "add":
        if isinstance(parent, list):
            if last == "-":
                parent.append(copy.deepcopy(change.args["value"]))
            elif last.isdigit() and int(last) <= len(parent):
                parent.insert(int(last), copy.deepcopy(change.args["value"]))
            else:
                raise MergeRefused(f"cannot add at {path}")
        elif isinstance(parent, dict):
            parent[last] = copy.deepcopy(change.args["value"])
        else:
            raise MergeRefused(f"cannot add at {path}")
    elif not exists:
        raise MergeRefused(f"{path} does not exist in the base")
    elif op == "replace":
        parent[key] = copy.deepcopy(change.args["value"])
    else:
        del parent[key]


def apply(merged: dict[str, Any], change: Change, version: ProtocolVersion) -> None:
    """Apply one change to `merged` in place; MergeRefused when its guards fail."""
    defs = merged["$defs"]
    try:
        if change.op == "add-variant":
            _add_variant(defs, change, version)
        elif change.op == "add-capability":
            definition = version.capability_definition(change.args["scope"])
            _add_property(defs, definition, change)
        elif change.op == "add-property":
            _add_property(defs, change.args["definition"], change)
        else:
            _patch(merged, change)
    except MergeRefused as exc:
        line = change.line_of(PRIMARY.get(change.op, "path"))
        raise MergeRefused(exc.reason, change.shown, line) from None
    except UsageError as exc:
        line = change.line_of(PRIMARY.get(change.op, "path"))
        raise MergeRefused(str(exc), change.shown, line) from None
