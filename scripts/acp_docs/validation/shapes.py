"""Which definition a JSON value has the shape of, when nothing else says: its members.

A fragment on a page (a content block, a capabilities object, an entry of a
list) names no definition. Its shape often fits exactly one: every member it
has is a property of that definition, every required property is there, and a
tag (`"type": "text"`) matches the branch of a union that carries it. When one
and only one definition fits, the value is checked against it; when none fits
whole but exactly one definition has every member the value has, each member
is checked against its property's definition (a fragment of a larger value:
`{"clientCapabilities": {...}}` of an `initialize` request). When several fit,
nothing is inferred: a guess would report problems that are not there.

Shapes are read from `$defs` alone, one level of `allOf`/`$ref` deep per step,
and never retrieve anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

META = "_meta"
_DEPTH = 8
_NONE = object()
"""No one fixed value."""


@dataclass(frozen=True)
class Shape:
    """One way a definition's value can look: its properties, required ones and tags."""

    props: frozenset[str]
    required: frozenset[str]
    tags: tuple[tuple[str, Any], ...] = ()
    """Members whose value is fixed (`const`): a union branch's discriminator."""


@dataclass(frozen=True)
class Inferred:
    """What a value was found to be: a definition (`whole`), or the members of one."""

    definition: str
    whole: bool
    members: tuple[tuple[str, str], ...] = ()
    """Without `whole`: (member, the definition its property refers to) for each member."""


def _ref_name(node: Any) -> str | None:
    """The `$defs` name a property schema refers to, plainly or through a one-item allOf."""
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and "/" not in ref[len("#/$defs/") :]:
        return ref[len("#/$defs/") :]
    items = node.get("allOf")
    if isinstance(items, list) and len(items) == 1:
        return _ref_name(items[0])
    return None


class Shapes:
    """The shapes of every definition of one schema, made once."""

    def __init__(self, schema: Any, fallbacks: frozenset[str] = frozenset()) -> None:
        defs = schema.get("$defs") if isinstance(schema, dict) else None
        self.defs: dict[str, Any] = defs if isinstance(defs, dict) else {}
        self.fallbacks = fallbacks
        self._shapes: dict[str, list[Shape]] = {}
        self._props: dict[str, dict[str, Any]] = {}

    def _object(self, node: Any, depth: int) -> tuple[dict[str, Any], set[str], list[tuple]]:
        """Properties, required names and tags of an object schema with its `allOf` parts."""
        props: dict[str, Any] = {}
        required: set[str] = set()
        tags: list[tuple[str, Any]] = []
        if not isinstance(node, dict) or depth > _DEPTH:
            return props, required, tags
        own = node.get("properties")
        if isinstance(own, dict):
            props.update(own)
            for name, value in own.items():
                fixed = self._const(value, 0)
                if fixed is not _NONE:
                    tags.append((name, fixed))
        listed = node.get("required")
        if isinstance(listed, list):
            required.update(str(name) for name in listed)
        parts = node.get("allOf")
        parts = list(parts) if isinstance(parts, list) else []
        if isinstance(node.get("$ref"), str):
            parts.append({"$ref": node["$ref"]})
        for part in parts:
            target = _ref_name(part)
            inner = self.defs.get(target) if target else part
            more, needed, fixed = self._object(inner, depth + 1)
            props.update(more)
            required |= needed
            tags += fixed
        return props, required, tags

    def _const(self, node: Any, depth: int) -> Any:
        """The one value a property schema allows (`const`, a one-value `enum`, or such a
        definition it refers to); `_NONE` when it allows more."""
        if not isinstance(node, dict) or depth > _DEPTH:
            return _NONE
        if "const" in node:
            return node["const"]
        values = node.get("enum")
        if isinstance(values, list) and len(values) == 1:
            return values[0]
        branches = node.get("oneOf") or node.get("anyOf")
        if isinstance(branches, list) and len(branches) == 1:
            return self._const(branches[0], depth + 1)
        target = _ref_name(node)
        return self._const(self.defs.get(target), depth + 1) if target else _NONE

    def shapes(self, name: str) -> list[Shape]:
        """The shapes of a definition: one, or one per branch of its union."""
        if name not in self._shapes:
            node = self.defs.get(name)
            branches = None
            if isinstance(node, dict):
                branches = node.get("anyOf") or node.get("oneOf")
            out: list[Shape] = []
            if isinstance(node, dict) and isinstance(branches, list):
                # What the union itself says of every branch (its own properties, required).
                base = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
                common, needed, fixed = self._object(base, 0)
                for branch in branches:
                    if isinstance(branch, dict) and branch.get("title") in self.fallbacks:
                        continue
                    props, required, tags = self._object(branch, 0)
                    props = {**common, **props}
                    if props:
                        out.append(
                            Shape(
                                frozenset(props),
                                frozenset(required | needed),
                                tuple(fixed + tags),
                            )
                        )
            else:
                props, required, tags = self._object(node, 0)
                if props:
                    out.append(Shape(frozenset(props), frozenset(required), tuple(tags)))
                self._props[name] = props
            self._shapes[name] = out
        return self._shapes[name]

    def _fits(self, shape: Shape, value: dict[str, Any]) -> bool:
        keys = set(value) - {META}
        if not keys or not shape.required <= set(value) or not keys <= shape.props:
            return False
        return all(value.get(tag, fixed) == fixed for tag, fixed in shape.tags) and all(
            tag in value for tag, _fixed in shape.tags if tag in shape.required
        )

    def fitting(self, value: dict[str, Any], names: Iterable[str] | None = None) -> list[str]:
        """The definitions (of `names`, or all) of which `value` has a whole shape."""
        pool = self.defs if names is None else names
        return [n for n in pool if any(self._fits(s, value) for s in self.shapes(n))]

    def nearest(self, value: dict[str, Any], names: Iterable[str]) -> list[str]:
        """The definitions of `names` whose required members `value` has (at least one), and
        of whose properties it has at least half: a response with a member too many."""
        keys = set(value) - {META}
        out = []
        for name in names:
            for shape in self.shapes(name):
                known = keys & shape.props
                if shape.required and shape.required <= keys and 2 * len(known) >= len(keys):
                    out.append(name)
                    break
        return out

    def holding(self, value: dict[str, Any]) -> list[str]:
        """The object definitions that have a property for every member of `value`."""
        keys = set(value) - {META}
        out = []
        for name in self.defs:
            self.shapes(name)
            props = self._props.get(name)
            if keys and props and keys <= set(props):
                out.append(name)
        return out

    def collapse(self, names: list[str]) -> list[str]:
        """`names` less each definition that a union among them refers to in a branch."""
        inside: set[str] = set()
        for name in names:
            node = self.defs.get(name)
            branches = (node.get("anyOf") or node.get("oneOf")) if isinstance(node, dict) else None
            for branch in branches if isinstance(branches, list) else []:
                target = _ref_name(branch)
                if target:
                    inside.add(target)
        return [name for name in names if name not in inside]

    def member_refs(self, name: str, members: Iterable[str]) -> tuple[tuple[str, str], ...] | None:
        """For each member, the definition its property in `name` refers to; None when one
        property is not a plain reference (an array, a string: nothing to check it against)."""
        self.shapes(name)
        props = self._props.get(name, {})
        out = []
        for member in sorted(members):
            target = _ref_name(props.get(member))
            if target is None:
                return None
            out.append((member, target))
        return tuple(out)


def infer(shapes: Shapes, value: Any, names: Iterable[str] | None = None) -> Inferred | None:
    """The one definition `value` has the shape of (of `names`, or of all), or the one whose
    members it holds; None when none or several fit.

    A union and the definitions its branches refer to are one candidate: the union.
    Only a value whose members are all objects is read as members of a larger one.
    """
    if not isinstance(value, dict):
        return None
    pool = list(shapes.defs if names is None else names)
    whole = shapes.collapse(shapes.fitting(value, pool))
    if len(whole) == 1:
        return Inferred(whole[0], True)
    if whole:
        return None
    if names is not None:
        near = shapes.nearest(value, pool)
        return Inferred(near[0], True) if len(near) == 1 else None
    members = {k: v for k, v in value.items() if k != META}
    if not all(isinstance(v, dict) for v in members.values()):
        return None
    holders = shapes.holding(value)
    if len(holders) != 1:
        return None
    refs = shapes.member_refs(holders[0], set(value) - {META})
    return Inferred(holders[0], False, refs) if refs else None
