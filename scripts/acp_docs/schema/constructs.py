"""A schema source's constructs, applied for one protocol version: `$versions`, `$shared`, `$join`.

- `{$versions: {v1: X, v2: Y}}` is X in v1 and Y in v2. It names every version
  its source targets: a version it leaves out is an error at its line, and
  `v2: $omit` leaves the member or list item holding it out of v2;
- `{$shared: name}` is the value of `shared.name`;
- `{$join: [a, b, ...]}` is the strings joined, after the two above.

Anything else is kept as it is. A problem is raised through the `error`
callback, which locates a pointer of the source at its line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_docs.core import protocols
from acp_docs.sources import pointer as ptr

MAX_DEPTH = 64
MAX_VALUES = 200_000
"""How many values one source may expand to: `$shared` values that use each other
many times over would otherwise double at every level."""
OMIT = "$omit"
"""The value of a version in `$versions` that leaves the member out of that version."""
DROP = object()
"""What a member left out of the version resolves to (its parent drops it)."""
CONSTRUCTS = ("$versions", "$shared", "$join")


class Resolver:
    """Applies the constructs of one source for `version`."""

    def __init__(
        self,
        version: str,
        targets: tuple[str, ...],
        shared: Any,
        error: Callable[[str, str], Exception],
    ) -> None:
        self.version = version
        self.targets = targets
        """The versions the source targets: each `$versions` map names all of them."""
        self.shared = shared
        self.error = error
        self.values = 0

    def value(self, value: Any, pointer: str, depth: int = 0) -> Any:
        """`value` (found at `pointer`) for the version; DROP when it is left out."""
        if depth > MAX_DEPTH:
            raise self.error(pointer, f"nested deeper than {MAX_DEPTH} levels (a $shared cycle?)")
        self.values += 1
        if self.values > MAX_VALUES:
            raise self.error(
                pointer,
                f"expands to more than {MAX_VALUES:,} values (a $shared used over and over?)",
            )
        if isinstance(value, list):
            items = (
                self.value(item, ptr.child(pointer, i), depth + 1) for i, item in enumerate(value)
            )
            return [item for item in items if item is not DROP]
        if not isinstance(value, dict):
            if value == OMIT:
                raise self.error(
                    pointer, f"`{OMIT}` is only the value of a version in a `$versions` map"
                )
            if value is None or isinstance(value, str | bool | int | float):
                return value
            kind = type(value).__name__
            raise self.error(pointer, f"{kind} values are not JSON: quote it as a string")
        constructs = [key for key in value if key in CONSTRUCTS]
        if constructs:
            if len(value) != 1:
                raise self.error(pointer, f"`{constructs[0]}` must be the only key of its mapping")
            return self._construct(constructs[0], value[constructs[0]], pointer, depth)
        out = {}
        for key, item in value.items():
            resolved = self.value(item, ptr.child(pointer, str(key)), depth + 1)
            if resolved is not DROP:
                out[str(key)] = resolved
        return out

    def _construct(self, kind: str, arg: Any, pointer: str, depth: int) -> Any:
        here = ptr.child(pointer, kind)
        if kind == "$versions":
            return self._versions(arg, here, depth)
        if kind == "$shared":
            shared = self.shared
            if not isinstance(arg, str) or not isinstance(shared, dict) or arg not in shared:
                known = ", ".join(sorted(shared)) if isinstance(shared, dict) and shared else "none"
                raise self.error(here, f"no shared value {arg!r} (shared: {known})")
            return self.value(shared[arg], ptr.child("/shared", arg), depth + 1)
        if not isinstance(arg, list):
            raise self.error(here, "`$join` takes a list of strings")
        parts = self.value(arg, here, depth + 1)
        if not all(isinstance(part, str) for part in parts):
            raise self.error(here, "`$join` takes a list of strings")
        return "".join(parts)

    def _versions(self, arg: Any, here: str, depth: int) -> Any:
        if not isinstance(arg, dict) or not arg:
            raise self.error(here, "`$versions` maps version names to values")
        for name in arg:
            if not isinstance(name, str) or name not in protocols.VERSIONS:
                raise self.error(ptr.child(here, str(name)), protocols.unknown(name))
        if self.version not in arg:
            if self.version not in self.targets:
                return DROP
            raise self.error(
                here,
                f"`$versions` gives no value for ACP {self.version}, which the source targets:"
                f" add one, or `{OMIT}` to leave this member out there",
            )
        if arg[self.version] == OMIT:
            return DROP
        return self.value(arg[self.version], ptr.child(here, self.version), depth + 1)
