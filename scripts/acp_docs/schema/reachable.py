"""Whether the message types an RFD defines are reachable: dispatched to, by method and side.

A definition named like a message (`...Request`, `...Response`,
`...Notification`) is only ever checked when a JSON-RPC message reaches it: it
needs `x-method` and `x-side`, a place in the message union of its kind and
side, and a method no other message of its kind has. `merge.assemble` reports
what is missing at the definition's line.
"""

from __future__ import annotations

from typing import Any

from acp_docs.schema import messages
from acp_docs.schema.fragments import Contribution


def message_problems(made: Contribution, defs: dict[str, Any]) -> list[tuple[int, str]]:
    """(line, message) for each new definition named like a message that no message reaches.

    A definition whose name ends in `Request`, `Response` or `Notification` is a
    message type: it needs `x-method` and `x-side`, and an `add-message` change
    (or JSON Patch) that puts it in the union of its kind and side, such as
    `ClientRequest` for a request the Agent handles; a request or notification
    needs a method no other one of its kind has.
    """
    out: list[tuple[int, str]] = []
    sides = {d.get("x-side") for d in defs.values() if isinstance(d, dict)} - {None}
    for name, definition in made.definitions.items():
        kind = messages.message_kind(name)
        if kind is None or not isinstance(definition, dict):
            continue
        line = made.line_of(name)
        method, side = definition.get("x-method"), definition.get("x-side")
        if not (isinstance(method, str) and method and isinstance(side, str) and side):
            missing = [
                k
                for k, v in (("x-method", method), ("x-side", side))
                if not isinstance(v, str) or not v
            ]
            needs = " and ".join(f"`{key}`" for key in missing)
            out.append(
                (
                    line,
                    f"`{name}` is named like a {kind.lower()}, so it needs {needs}: `x-method` is"
                    " its JSON-RPC method (such as session/rename); `x-side` is the side that"
                    " implements the method, `agent` for a request the Client sends and the"
                    " Agent's response to it, `client` for the other way round",
                )
            )
            continue
        if side not in sides:
            known = ", ".join(sorted(str(s) for s in sides))
            out.append(
                (line, f"`{name}` has x-side {side!r}, which no message has (known: {known})")
            )
            continue
        union = messages.message_union(kind, side)
        if union is not None:
            out += _union_problems(name, kind, side, union, defs, line)
        if kind != "Response":
            same = sorted(
                other
                for other, d in defs.items()
                if other != name
                and messages.message_kind(other) == kind
                and isinstance(d, dict)
                and d.get("x-method") == method
            )
            if same:
                out.append(
                    (
                        line,
                        f"`{name}` has x-method {method!r}, which {same[0]} already has: a"
                        f" message is dispatched by its method, so each {kind.lower()} needs its"
                        " own",
                    )
                )
    return out


def _union_problems(
    name: str,
    kind: str,
    side: str,
    union: messages.MessageUnion,
    defs: dict[str, Any],
    line: int,
) -> list[tuple[int, str]]:
    members = messages.message_members(defs.get(union.definition), union)
    if members is None or name in messages.member_refs(members):
        return []
    elsewhere = [
        other.definition
        for other in messages.MESSAGE_UNIONS.values()
        if name
        in messages.member_refs(messages.message_members(defs.get(other.definition), other) or [])
    ]
    if elsewhere:
        return [
            (
                line,
                f"`{name}` is in {elsewhere[0]}, but its x-side is {side!r}: it belongs in"
                f" {union.definition}, {union.says()}",
            )
        ]
    return [
        (
            line,
            f"`{name}` is in no message union, so no JSON-RPC message reaches it: add the change"
            f" `{{op: add-message, union: {union.definition}, definition: {name}}}`"
            f" ({union.definition} holds {union.says()})",
        )
    ]
