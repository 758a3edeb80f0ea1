"""A validation-only rewrite of discriminated unions, so one branch is checked, not all.

A `oneOf`/`anyOf` whose branches are objects that each require a property `P`
with a distinct `const` (optionally followed by an open fallback branch, such as
v2's `other` in `SessionUpdate`) accepts exactly what this accepts:

    required: [P], allOf: [{if: {P: c_i}, then: branch_i}..., unknown-tag rule]

where the unknown-tag rule is `P in {c_i}` for a closed union, or `other` for an
open one. The verdict is the same; jsonschema evaluates one branch instead of
every branch, and its errors come from the branch the payload meant. The
published and downloaded schemas are never rewritten; tests compare verdicts.
"""

from __future__ import annotations

from typing import Any


def _tag(branch: Any, fallbacks: frozenset[str]) -> tuple[str, Any] | None:
    if not isinstance(branch, dict) or branch.get("title") in fallbacks:
        return None
    props = branch.get("properties")
    required = branch.get("required") or []
    if not isinstance(props, dict) or len(props) < 1:
        return None
    for name, prop in props.items():
        if isinstance(prop, dict) and "const" in prop and name in required:
            return name, prop["const"]
    return None


def _rewrite_union(
    key: str, branches: list[Any], fallbacks: frozenset[str]
) -> dict[str, Any] | None:
    other = None
    last = branches[-1]
    if key == "anyOf" and isinstance(last, dict) and last.get("title") in fallbacks:
        other, branches = last, branches[:-1]
    if len(branches) < 2:
        return None
    tags = [_tag(b, fallbacks) for b in branches]
    if any(t is None for t in tags):
        return None
    names = {t[0] for t in tags if t}
    values = [t[1] for t in tags if t]
    if len(names) != 1 or len({repr(v) for v in values}) != len(values):
        return None
    prop = names.pop()
    rules: list[Any] = [
        {"if": {"properties": {prop: {"const": value}}}, "then": branch}
        for value, branch in zip(values, branches, strict=True)
    ]
    if other is None:
        rules.append({"properties": {prop: {"enum": values}}})
    else:
        rules.append({"if": {"not": {"properties": {prop: {"enum": values}}}}, "then": other})
    return {"type": "object", "required": [prop], "allOf": rules}


def discriminate(node: Any, fallbacks: frozenset[str] = frozenset()) -> Any:
    """A copy of a schema with every discriminated union dispatched by its tag.

    `fallbacks` are the titles of open unions' fallback branches (the version
    table's), which take every tag the other branches do not.
    """
    if isinstance(node, list):
        return [discriminate(item, fallbacks) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: discriminate(value, fallbacks) for key, value in node.items()}
    for key in ("oneOf", "anyOf"):
        branches = out.get(key)
        if isinstance(branches, list) and branches:
            rewritten = _rewrite_union(key, branches, fallbacks)
            if rewritten is not None:
                del out[key]
                existing = out.get("allOf", [])
                out["allOf"] = [*existing, *rewritten["allOf"]]
                out["required"] = sorted({*out.get("required", []), *rewritten["required"]})
                out.setdefault("type", "object")
    return out
