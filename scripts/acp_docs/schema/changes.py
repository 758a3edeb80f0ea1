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
- `add-message` (`union`, `definition`, optional `description`): a request,
  response or notification type in the union of the messages one side sends
  (`ClientRequest`, `AgentResponse`, ...), so that a JSON-RPC message with its
  `x-method` dispatches to it.
- `test`, `add`, `replace`, `remove` (`path`, `value`): RFC 6902 JSON Patch
  operations under `/$defs/`, for anything else; `test` guards the others.

Every change refuses a base that does not look as it expects (the base moved),
and claims a place; two RFDs that claim overlapping places are refused.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.protocols import ProtocolVersion, Union
from acp_docs.schema import patch
from acp_docs.schema.messages import MESSAGE_UNIONS, member_refs, message_members
from acp_docs.sources import pointer as ptr

SPECS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "add-variant": (frozenset({"union", "tag", "fields"}), frozenset({"description"})),
    "add-capability": (frozenset({"scope", "property", "schema"}), frozenset()),
    "add-property": (frozenset({"definition", "property", "schema"}), frozenset()),
    "add-message": (frozenset({"union", "definition"}), frozenset({"description"})),
    "test": (frozenset({"path", "value"}), frozenset()),
    "add": (frozenset({"path", "value"}), frozenset()),
    "replace": (frozenset({"path", "value"}), frozenset()),
    "remove": (frozenset({"path"}), frozenset()),
}
"""Each op with its required and optional keys besides `op`."""

PATCH_OPS = frozenset({"test", "add", "replace", "remove"})

STRING_KEYS = ("union", "tag", "fields", "scope", "property", "definition", "path", "description")
"""The keys whose value must be a string (`schema` is a mapping, `value` any JSON)."""


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


PRIMARY = {
    "add-variant": "union",
    "add-capability": "scope",
    "add-property": "definition",
    "add-message": "union",
}
"""The key a refused change is reported at (JSON Patch operations: `path`)."""


def _takes(op: str) -> str:
    required, optional = SPECS[op]
    keys = sorted(required)
    if optional:
        keys += [f"optionally {key}" for key in sorted(optional)]
    return ", ".join(keys)


def parse(raw: Any, shown: str, line: int, key_lines: dict[str, int] | None = None) -> Change:
    """A change from its mapping; a LocatedError at the line of what is wrong when malformed."""
    lines = dict(key_lines or {})

    def bad(reason: str, key: str | None = None) -> LocatedError:
        return LocatedError(shown, lines.get(key, line) if key else line, 1, reason)

    known = ", ".join(SPECS)
    if not isinstance(raw, dict):
        raise bad(f"a change is a mapping with an `op` (one of {known})")
    if "op" not in raw:
        raise bad(f"a change is missing its required key `op` (one of {known})")
    op = raw["op"]
    if not isinstance(op, str) or op not in SPECS:
        close = difflib.get_close_matches(op, list(SPECS), n=1) if isinstance(op, str) else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise bad(f"unknown op {op!r}{hint} (known: {known})", "op")
    required, optional = SPECS[op]
    keys = set(raw) - {"op"}
    missing = sorted(required - keys)
    if missing:
        named = ", ".join(f"`{key}`" for key in missing)
        plural = "keys" if len(missing) > 1 else "key"
        raise bad(f"`{op}` change is missing required {plural} {named} (it takes {_takes(op)})")
    extra = sorted(keys - required - optional)
    if extra:
        raise bad(f"`{op}` does not take `{extra[0]}` (it takes {_takes(op)})", extra[0])
    args = {key: raw[key] for key in raw if key != "op"}
    for key in STRING_KEYS:
        if key in args and not isinstance(args[key], str):
            raise bad(f"`{key}` must be a string", key)
    if "schema" in args and not isinstance(args["schema"], dict):
        raise bad("`schema` must be a JSON Schema object (a mapping)", "schema")
    change = Change(op, args, shown, line, lines)
    if op in PATCH_OPS:
        _pointer(change)
    return change


def version_problem(change: Change, version: ProtocolVersion) -> tuple[str, str] | None:
    """(key, reason) when the change names a union or scope `version` does not have."""
    args = change.args
    if change.op == "add-variant" and args["union"] not in version.unions:
        known = ", ".join(sorted(version.unions)) or "none"
        return "union", (
            f"`union: {args['union']}` names no discriminated union of ACP {version.name}"
            f" (known: {known})"
        )
    if change.op == "add-capability" and args["scope"] not in version.capabilities:
        known = ", ".join(
            repr(s) + (" (the top level)" if not s else "") for s in sorted(version.capabilities)
        )
        return "scope", (
            f"`scope: {args['scope']!r}` names no Client capability scope of ACP"
            f" {version.name} (known: {known})"
        )
    if change.op == "add-message" and args["union"] not in MESSAGE_UNIONS:
        known = ", ".join(MESSAGE_UNIONS)
        return "union", f"`union: {args['union']}` names no message union (known: {known})"
    return None


def _pointer(change: Change) -> list[str]:
    try:
        return patch.path_parts(change.args["path"])
    except patch.PatchFailed as exc:
        raise LocatedError(change.shown, change.line_of("path"), 1, str(exc)) from None


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
    if change.op == "add-message":
        return ("$defs", args["union"], f"member {args['definition']!r}")
    # A JSON Patch operation claims the whole definition it touches.
    return tuple(_pointer(change)[:2])


def overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """True when one place contains the other."""
    shortest = min(len(a), len(b))
    return a[:shortest] == b[:shortest]


def show_place(parts: tuple[str, ...]) -> str:
    """A place as a reader would name it."""
    return "/".join(parts)


def _ref(name: str) -> str:
    """The `$ref` to a definition: `#/$defs/<name>`, escaped."""
    return ptr.fragment(ptr.format(("$defs", name)))


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
    branch["allOf"] = [{"$ref": _ref(fields)}]
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


def _add_message(defs: dict[str, Any], change: Change) -> None:
    args = change.args
    union = MESSAGE_UNIONS[args["union"]]
    members = message_members(defs.get(union.definition), union)
    if members is None:
        where = "/".join(str(part) for part in union.members)
        raise MergeRefused(
            f"base $defs/{union.definition} has no member list at {where}: not a shape this"
            " merge recognises"
        )
    name = args["definition"]
    if name in member_refs(members):
        raise MergeRefused(f"base $defs/{union.definition} already has {name} (already merged?)")
    member: dict[str, Any] = {"title": name}
    if args.get("description"):
        member["description"] = args["description"]
    member["allOf"] = [{"$ref": _ref(name)}]
    # The extension catch-all (ExtRequest, ...) stays last, as upstream keeps it.
    refs = member_refs(members)
    last_is_ext = bool(refs) and len(refs) == len(members) and refs[-1].startswith("Ext")
    members.insert(len(members) - 1 if last_is_ext else len(members), member)


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
        elif change.op == "add-message":
            _add_message(defs, change)
        else:
            patch.apply(merged, change.op, change.args["path"], change.args.get("value"))
    except patch.PatchFailed as exc:
        line = change.line_of("path")
        raise MergeRefused(str(exc), change.shown, line) from None
    except MergeRefused as exc:
        line = change.line_of(PRIMARY.get(change.op, "path"))
        raise MergeRefused(exc.reason, change.shown, line) from None
    except UsageError as exc:
        line = change.line_of(PRIMARY.get(change.op, "path"))
        raise MergeRefused(str(exc), change.shown, line) from None
