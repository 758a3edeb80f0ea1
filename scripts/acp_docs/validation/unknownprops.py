"""Members of a payload object that no schema applying at their place names: likely typos.

ACP's schemas leave objects open (a receiver keeps a message from a newer peer
and ignores what it does not know), so a misspelt member, `"name"` where the
definition has `"title"`, validates, and every receiver silently drops it.
`Finder` reports such members:

- At each object of a payload, the schemas that apply there are gathered: the
  definition, each `$ref` and `allOf` item followed, of each `anyOf` and `oneOf`
  the branches the value matches (every branch when it matches none), and of an
  `if` the `then` or `else` the value takes; the members of each `properties`
  are descended into the same way, and list items through `items`.
- A member that an untagged `anyOf` or `oneOf` names in a branch the value
  does not match is known all the same (a sibling branch names it: no typo);
  in a tagged union (every branch fixes one member with `const`) only the
  branch of the value's tag counts.
- A member that none of them names in `properties` is reported, with the
  closest name they do (`difflib`, ignoring case first: `sessionID` ->
  `sessionId`).
- An object is not checked when no schema applying there names a property (a
  free-form object), or when one of them says what its other members hold
  (`additionalProperties` or `unevaluatedProperties` with content, or
  `patternProperties`: a map such as environment variables) or forbids them
  (`false`: the schema itself reports those).
- The fallback branch of an open union (v2's `other` in `SessionUpdate`: a
  tag this version does not know, holding anything) is a free-form object.
- `_meta` is never reported, and what it holds is free.

A discriminated union rewritten as `allOf: [{if, then}, ...]` (see
`acp_docs.validation.explain`) is one choice: the case whose tag matches, or every
case when no tag does (a misspelt tag), as for a `oneOf` no branch matches.

Each schema's unconditional part (its `properties`, `$ref` and `allOf`, and the
choices left to make) is worked out once and kept, so a payload costs one walk.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp_docs.sources import pointer as ptr

META = "_meta"
MAX_DEPTH = 200
SHOWN_NAMES = 12
"""At most this many known names are listed when none is close."""

Valid = Callable[[dict[str, Any], Any], bool]
Path = tuple[Any, ...]


@dataclass
class _Flat:
    """What a schema says about objects wherever it applies, before any choice is made."""

    names: set[str] = field(default_factory=set)
    children: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    extra: list[dict[str, Any]] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    choices: list[tuple[Any, ...]] = field(default_factory=list)
    """("some", branches) for anyOf/oneOf; ("if", if, then, else); ("cases", ((if, then), ...))
    for an `allOf` of several `{if, then}` items (a rewritten discriminated union)."""
    declares: bool = False
    free: bool = False


@dataclass(frozen=True)
class _View:
    """The flattened schemas applying at one place, together."""

    checked: bool
    """True when they name properties and neither leave other members to a schema nor
    forbid them: a member they do not name is reported."""
    names: frozenset[str]
    children: dict[str, list[dict[str, Any]]]
    extra: list[dict[str, Any]]
    items: list[dict[str, Any]]


@dataclass(frozen=True)
class _Cases:
    """An `allOf` of `{if, then}` cases (a rewritten discriminated union), sorted by tag."""

    every: tuple[tuple[Any, Any], ...]
    prop: str | None
    tagged: dict[str, Any]
    """`then` by tag, for each `if` that is `{properties: {prop: {const: tag}}}`."""
    others: tuple[tuple[frozenset[str], Any], ...]
    """(tags, then) for each `if` that is `{not: {properties: {prop: {enum: tags}}}}`:
    an open union's fallback, which every other tag takes."""
    rest: tuple[tuple[Any, Any], ...]

    @classmethod
    def of(cls, every: list[tuple[Any, Any]]) -> _Cases:
        tagged: dict[str, Any] = {}
        others = []
        rest = []
        props = set()
        for condition, then in every:
            negated = condition.get("not") if condition.keys() == {"not"} else None
            test = _only_property(negated if negated is not None else condition)
            constant = test[1].get("const") if test is not None and negated is None else None
            if test is not None and test[1].keys() == {"const"} and isinstance(constant, str):
                props.add(test[0])
                tagged.setdefault(constant, then)
                continue
            if test is not None and negated is not None and test[1].keys() == {"enum"}:
                tags = test[1]["enum"]
                if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
                    props.add(test[0])
                    others.append((frozenset(tags), then))
                    continue
            rest.append((condition, then))
        if len(props) != 1:
            return cls(tuple(every), None, {}, (), tuple(every))
        return cls(tuple(every), props.pop(), tagged, tuple(others), tuple(rest))


@dataclass(frozen=True)
class Unknown:
    """A member no applying schema names: its path, its name, the names that are known."""

    path: Path
    name: str
    known: frozenset[str]

    def message(self) -> str:
        """`no property 'name' here; did you mean 'title'?`."""
        best = closest(self.name, self.known)
        if best is not None:
            return f"no property {self.name!r} here; did you mean {best!r}?"
        names = sorted(n for n in self.known if n != META)
        listed = ", ".join(names[:SHOWN_NAMES]) + (", ..." if len(names) > SHOWN_NAMES else "")
        return f"no property {self.name!r} here (known: {listed})"


def closest(name: str, known: frozenset[str] | set[str]) -> str | None:
    """The known name `name` most likely meant, or None."""
    names = sorted(n for n in known if n != META)
    lowered = {n.lower(): n for n in names}
    if name.lower() in lowered:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if close:
        return close[0]
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def _only_property(schema: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, schema) when `schema` is `{properties: {name: schema}}` and nothing else."""
    if not isinstance(schema, dict) or schema.keys() != {"properties"}:
        return None
    members = schema["properties"]
    if not isinstance(members, dict) or len(members) != 1:
        return None
    name, sub = next(iter(members.items()))
    return (name, sub) if isinstance(sub, dict) else None


class Finder:
    """Finds unknown members of payloads of one schema document (its `$defs`)."""

    def __init__(self, defs: dict[str, Any], valid: Valid, free_titles: frozenset[str]) -> None:
        self.defs = defs
        self.valid = valid
        self.free_titles = free_titles
        """Titles of the open unions' fallback branches, which hold anything."""
        self._flats: dict[int, tuple[Any, _Flat]] = {}
        self._views: dict[tuple[int, ...], _View] = {}
        self._named: dict[int, tuple[Any, _Flat]] = {}
        """For each untagged union's branches (by their list's id): every name they give."""

    def find(self, schema: dict[str, Any], instance: Any) -> list[Unknown]:
        """Every unknown member of `instance`, a value of `schema`, in document order."""
        out: list[Unknown] = []
        stack: list[tuple[Path, list[dict[str, Any]], Any]] = [((), [schema], instance)]
        while stack:
            path, schemas, value = stack.pop()
            if len(path) > MAX_DEPTH:
                continue
            later: list[tuple[Path, list[dict[str, Any]], Any]] = []
            if isinstance(value, dict):
                view = self._view(self._gather(schemas, value))
                for key, member in value.items():
                    if key == META:
                        continue
                    kids = view.children.get(key)
                    if kids is None:
                        if key in view.names:
                            continue
                        if view.checked:
                            out.append(Unknown((*path, key), key, view.names))
                        kids = view.extra
                    if kids and isinstance(member, dict | list):
                        later.append(((*path, key), kids, member))
            elif isinstance(value, list):
                items = self._view(self._gather(schemas, value)).items
                if items:
                    later = [
                        ((*path, index), items, element)
                        for index, element in enumerate(value)
                        if isinstance(element, dict | list)
                    ]
            stack.extend(reversed(later))
        return out

    def _view(self, flats: list[_Flat]) -> _View:
        """What the flattened schemas applying at one place say together (kept by their ids)."""
        key = tuple(id(flat) for flat in flats)
        view = self._views.get(key)
        if view is None:
            children: dict[str, list[dict[str, Any]]] = {}
            names: set[str] = set()
            for flat in flats:
                names |= flat.names
                for name, subs in flat.children.items():
                    children.setdefault(name, []).extend(subs)
            view = _View(
                checked=any(f.declares for f in flats) and not any(f.free for f in flats),
                names=frozenset(names),
                children=children,
                extra=[e for f in flats for e in f.extra],
                items=[i for f in flats for i in f.items],
            )
            self._views[key] = view
        return view

    def _gather(self, schemas: list[dict[str, Any]], value: Any) -> list[_Flat]:
        """The flattened schemas that apply to `value`, its choices made."""
        out: list[_Flat] = []
        stack = list(schemas)
        seen: set[int] = set()
        while stack:
            schema = stack.pop()
            if not isinstance(schema, dict) or id(schema) in seen:
                continue
            seen.add(id(schema))
            flat = self._flat(schema)
            out.append(flat)
            for choice in flat.choices:
                if choice[0] == "some":
                    branches = choice[1]
                    matching = [b for b in branches if self.valid(b, value)]
                    stack.extend(matching or branches)
                    if matching:
                        out.append(self._siblings(branches))
                elif choice[0] == "cases":
                    stack.extend(self._cases(choice[1], value))
                else:
                    _kind, condition, then, otherwise = choice
                    taken = then if self.valid(condition, value) else otherwise
                    if isinstance(taken, dict):
                        stack.append(taken)
        return out

    def _siblings(self, branches: Any) -> _Flat:
        """The names every branch of an untagged union gives (none for a tagged union), as a
        flat that only names: kept by the branches' identity, so views stay cached."""
        kept = self._named.get(id(branches))
        if kept is not None and kept[0] is branches:
            return kept[1]
        flats = [self._flat(b) for b in branches if isinstance(b, dict)]
        fixed = [
            {name for name, subs in f.children.items() if any("const" in x for x in subs)}
            for f in flats
        ]
        tagged = bool(flats) and bool(set.intersection(*fixed))
        flat = _Flat(names=set() if tagged else {n for f in flats for n in f.names})
        self._named[id(branches)] = (branches, flat)
        return flat

    def _cases(self, cases: _Cases, value: Any) -> list[Any]:
        """The `then` of each case whose `if` holds; every `then` when none does."""
        tag = value.get(cases.prop) if isinstance(value, dict) and cases.prop else None
        if isinstance(tag, str):
            # Each tagged `if` is `{properties: {prop: {const: tag}}}`: one holds at most.
            taken = [cases.tagged[tag]] if tag in cases.tagged else []
            taken += [then for tags, then in cases.others if tag not in tags]
            taken += [then for condition, then in cases.rest if self.valid(condition, value)]
        else:
            taken = [then for condition, then in cases.every if self.valid(condition, value)]
        return taken or [then for _condition, then in cases.every]

    def _flat(self, schema: dict[str, Any]) -> _Flat:
        kept = self._flats.get(id(schema))
        if kept is not None and kept[0] is schema:
            return kept[1]
        flat = _Flat()
        self._flats[id(schema)] = (schema, flat)
        parts = [schema]
        seen: set[int] = set()
        while parts:
            part = parts.pop()
            if not isinstance(part, dict) or id(part) in seen:
                continue
            seen.add(id(part))
            if part.get("title") in self.free_titles:
                flat.free = True
            props = part.get("properties")
            if isinstance(props, dict) and props:
                flat.declares = True
                for name, sub in props.items():
                    flat.names.add(name)
                    if isinstance(sub, dict):
                        flat.children.setdefault(name, []).append(sub)
            for key in ("additionalProperties", "unevaluatedProperties"):
                extra = part.get(key)
                if extra is False:
                    flat.free = True
                elif isinstance(extra, dict) and extra:
                    flat.free = True
                    flat.extra.append(extra)
            if part.get("patternProperties"):
                flat.free = True
            if isinstance(part.get("items"), dict):
                flat.items.append(part["items"])
            ref = part.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                names = ptr.parse(ptr.from_fragment(ref))
                named = self.defs.get(names[1]) if len(names) == 2 else None
                if isinstance(named, dict):
                    parts.append(named)
            every = [item for item in part.get("allOf") or [] if isinstance(item, dict)]
            cases = [i for i in every if i.keys() == {"if", "then"} and isinstance(i["if"], dict)]
            if len(cases) > 1:
                flat.choices.append(("cases", _Cases.of([(i["if"], i["then"]) for i in cases])))
                every = [item for item in every if not any(item is case for case in cases)]
            parts.extend(every)
            for key in ("anyOf", "oneOf"):
                branches = tuple(b for b in part.get(key) or [] if isinstance(b, dict))
                if branches:
                    flat.choices.append(("some", branches))
            if isinstance(part.get("if"), dict):
                flat.choices.append(("if", part["if"], part.get("then"), part.get("else")))
        return flat
