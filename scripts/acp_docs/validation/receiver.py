"""What a receiver does with a payload the schema rejects: drop a value, or reject the message.

The ACP SDKs, generated from the schema, follow two annotations:

- `x-deserialize-default-on-error` on a field: a bad value is dropped (reset to
  its default) and the message is kept;
- `x-deserialize-skip-invalid-items` on a list: a bad item is dropped and the
  others are kept, in order.

So "invalid for JSON Schema" and "rejected by a receiver" differ. `classify`
finds, for each problem, the place a receiver would drop, drops them all, and
validates again: the message is kept only when what is left is valid.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from acp_docs.sources import pointer as ptr

Path = tuple[Any, ...]
DEFAULT_ON_ERROR = "x-deserialize-default-on-error"
SKIP_INVALID_ITEMS = "x-deserialize-skip-invalid-items"


@dataclass(frozen=True)
class Verdict:
    """`drops` are the places a receiver drops; `kept` is True when it keeps the message."""

    kept: bool
    drops: tuple[Path, ...]

    def say(self) -> str:
        """A receiver's reaction, for a reader."""
        if not self.kept:
            return "a receiver rejects the message"
        places = ", ".join(pointer(p) for p in self.drops)
        return f"a receiver drops {places} and keeps the message"


def pointer(path: Iterable[Any]) -> str:
    """The JSON pointer of a place in a payload, for a reader: `/` for the whole payload."""
    return ptr.format(path) or "/"


def _definition(defs: dict[str, Any], ref: Any) -> Any:
    """The definition a `#/$defs/NAME` reference names, or None."""
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return None
    parts = ptr.parse(ptr.from_fragment(ref))
    return defs.get(parts[1]) if len(parts) == 2 else None


class _Walker:
    """Which subschemas apply to which places of one instance, `$ref`s followed.

    Only the places in `wanted` are walked (the problems' places and the places
    holding them): what applies elsewhere can decide no drop.
    """

    def __init__(
        self,
        defs: dict[str, Any],
        valid: Callable[[dict[str, Any], Any], bool],
        wanted: set[Path],
    ) -> None:
        self.defs = defs
        self.valid = valid
        self.wanted = wanted
        self.applied: dict[Path, list[dict[str, Any]]] = {}

    def walk(self, schema: Any, instance: Any, path: Path, depth: int = 0) -> None:
        if not isinstance(schema, dict) or depth > 200:
            return
        self.applied.setdefault(path, []).append(schema)
        self.walk(_definition(self.defs, schema.get("$ref")), instance, path, depth + 1)
        for sub in schema.get("allOf") or []:
            self.walk(sub, instance, path, depth + 1)
        for key in ("anyOf", "oneOf"):
            branches = [b for b in schema.get(key) or [] if isinstance(b, dict)]
            matching = [b for b in branches if self.valid(b, instance)]
            # With no branch valid, a receiver could have meant any of them.
            for sub in matching or branches:
                self.walk(sub, instance, path, depth + 1)
        if "if" in schema:
            branch = "then" if self.valid(schema["if"], instance) else "else"
            self.walk(schema.get(branch), instance, path, depth + 1)
        if isinstance(instance, dict):
            props = schema.get("properties") or {}
            for key, value in instance.items():
                place = (*path, key)
                if place not in self.wanted:
                    continue
                if key in props:
                    self.walk(props[key], value, place, depth + 1)
                elif isinstance(schema.get("additionalProperties"), dict):
                    self.walk(schema["additionalProperties"], value, place, depth + 1)
        if isinstance(instance, list) and isinstance(schema.get("items"), dict):
            for index, value in enumerate(instance):
                if (*path, index) in self.wanted:
                    self.walk(schema["items"], value, (*path, index), depth + 1)

    def flagged(self, path: Path, flag: str) -> bool:
        return any(s.get(flag) is True for s in self.applied.get(path, []))


def _drop_for(walker: _Walker, path: Path) -> Path | None:
    for size in range(len(path), 0, -1):
        place = path[:size]
        if walker.flagged(place, DEFAULT_ON_ERROR):
            return place
        if isinstance(place[-1], int) and walker.flagged(place[:-1], SKIP_INVALID_ITEMS):
            return place
    return None


def _remove(instance: Any, places: Iterable[Path]) -> Any:
    result = copy.deepcopy(instance)
    for place in sorted(places, key=lambda p: [str(x).zfill(12) for x in p], reverse=True):
        parent = result
        for part in place[:-1]:
            parent = parent[part]
        del parent[place[-1]]
    return result


def classify(
    schema: dict[str, Any],
    defs: dict[str, Any],
    instance: Any,
    problem_paths: Iterable[Path],
    valid: Callable[[dict[str, Any], Any], bool],
) -> Verdict:
    """What a receiver does with `instance`, which fails `schema` at `problem_paths`."""
    paths = [tuple(p) for p in problem_paths]
    wanted = {path[:size] for path in paths for size in range(len(path) + 1)}
    walker = _Walker(defs, valid, wanted)
    walker.walk(schema, instance, ())
    drops: set[Path] = set()
    for path in paths:
        place = _drop_for(walker, path)
        if place is None:
            return Verdict(False, ())
        drops.add(place)
    outer = {p for p in drops if not any(p[: len(q)] == q and p != q for q in drops)}
    if not valid(schema, _remove(instance, outer)):
        return Verdict(False, ())
    return Verdict(True, tuple(sorted(outer, key=lambda p: [str(x) for x in p])))
