"""Definitions that refer to themselves in place: a loop no validator can end.

A definition that reaches itself through `$ref`s applied to the very value it
checks (through `allOf`, `anyOf`, `not`, ...) never ends for a validator (a
RecursionError), whatever the payload; a loop through `properties` or `items`
(a tree) is fine.
"""

from __future__ import annotations

from typing import Any

IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")
"""Keywords whose schemas apply to the same value: a `$ref` through them is not a step into it."""
_LOCAL = "#/$defs/"


def _in_place_refs(schema: Any) -> set[str]:
    """The local definitions `schema` applies to the very value it checks (not its members)."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_LOCAL):
            found.add(ref[len(_LOCAL) :])
        for key in IN_PLACE:
            value = node.get(key)
            pending.extend(
                value.values() if isinstance(value, dict) and key == "dependentSchemas" else [value]
            )
    return found


def ref_cycles(definitions: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Each definition that reaches itself through in-place `$ref`s alone, with the loop.

    Such a loop never ends for a validator (a RecursionError), whatever the
    payload; a loop through `properties` or `items` (a tree) is fine. Linear in
    the definitions and their references.
    """
    edges = {
        name: sorted(_in_place_refs(d) & definitions.keys()) for name, d in definitions.items()
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    out: list[tuple[str, list[str]]] = []
    for root in sorted(edges):
        if root in state:
            continue
        path = [root]
        stack = [iter(edges[root])]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                loop = [*path[path.index(nxt) :], nxt]
                out.append((nxt, loop))
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(edges[nxt]))
    return out
