"""Why a payload is invalid, said by python-jsonschema from the union branch the payload meant.

jsonschema-rs decides valid or not (`acp_docs.schemalib.decide`); only a
payload it rejects is explained here, with python-jsonschema's messages.

A discriminated union, a `oneOf`/`anyOf` whose branches are objects that each
require a property `P` with a distinct `const` (optionally followed by an open
fallback branch, such as v2's `other` in `SessionUpdate`), is explained as

    required: [P], allOf: [{if: {P: c_i}, then: branch_i}..., unknown-tag rule]

where the unknown-tag rule is `P in {c_i}` for a closed union, or `other` for an
open one. It accepts exactly what the union accepts (tests compare verdicts),
but its errors come from the branch the payload's tag names, not from every
branch. The published and downloaded schemas are never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import ValidationError

from acp_docs.sources import pointer as ptr


@dataclass(frozen=True)
class Problem:
    """One reason a payload is invalid: where in the payload, and what the validator said."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '(root)'}: {self.message}"


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
    if len(branches) < (1 if other is not None else 2):
        return None  # one tagged branch beside a fallback is a union to dispatch too
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


def _not_meant(errors: list[ValidationError]) -> bool:
    """True when a union branch failed on its discriminator or on the value's whole type.

    Such a branch is not the one the payload meant (`null` for an object, say),
    so its errors would only hide the ones that say what is wrong.
    """
    if any(e.validator == "const" and len(e.relative_path) == 1 for e in errors):
        return True
    return all(e.validator == "type" and not e.relative_path for e in errors)


def _relevant(error: ValidationError) -> list[ValidationError]:
    """The errors that say why, descending into the union branch the payload meant."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.schema_path[0], []).append(sub)
        meant = [errs for errs in branches.values() if not _not_meant(errs)]
        if len(meant) > 1:
            # No tag decides: the branch the payload came closest to says what is wrong
            # (fewest problems, then the deepest), not "valid under none of the schemas".
            meant = [min(meant, key=lambda errs: (len(errs), -max(len(e.path) for e in errs)))]
        if len(meant) == 1:
            out: list[ValidationError] = []
            for sub in meant[0]:
                out.extend(_relevant(sub))
            return out
    return [error]


def _message(error: ValidationError) -> str:
    value = error.validator_value
    if error.validator == "enum" and error.path and isinstance(value, list) and len(value) > 4:
        return f"{error.instance!r} is not a known {error.path[-1]} value"
    return error.message


def explain(
    validator: Any, payload: Any, prefix: str = ""
) -> tuple[tuple[Problem, ...], list[tuple[Any, ...]]]:
    """Why `validator` (python-jsonschema) rejects `payload`: each distinct problem, each place.

    Pointers start with `prefix`; the places are paths in `payload` itself, one
    for each reason found (a receiver's verdict looks at every one).
    """
    problems: list[Problem] = []
    places: list[tuple[Any, ...]] = []
    causes = [cause for error in validator.iter_errors(payload) for cause in _relevant(error)]
    too_short = {tuple(c.absolute_path) for c in causes if c.validator == "minLength"}
    for cause in causes:
        place = tuple(cause.absolute_path)
        if cause.validator == "pattern" and place in too_short:
            continue  # a string too short for the pattern too: its length says it plainly
        problems.append(Problem(prefix + ptr.format(place), _message(cause)))
        places.append(place)
    return tuple(dict.fromkeys(problems)), places
