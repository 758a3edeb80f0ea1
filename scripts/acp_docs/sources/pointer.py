"""JSON Pointer (RFC 6901): the one place pointers are escaped, built, parsed and resolved.

A pointer is `""` (the whole document) or `/`-prefixed reference tokens, in
which `~` is written `~0` and `/` is written `~1`: the member `a/b~c` is
`/a~1b~0c`. A URI fragment (`#/$defs/X`) is a pointer after its `#`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any


class PointerError(ValueError):
    """A pointer that is malformed, or names nothing in the document it is resolved in."""


def escape(token: Any) -> str:
    """One reference token: `a/b~c` -> `a~1b~0c` (`~` first, so `~1` stays two characters)."""
    text = str(token)
    if "~" not in text and "/" not in text:
        return text
    return text.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The member name a reference token stands for: `a~1b~0c` -> `a/b~c`."""
    if "~" in token and any(part[:1] not in ("0", "1") for part in token.split("~")[1:]):
        raise PointerError(f"{token!r}: `~` must be followed by 0 or 1")
    return token.replace("~1", "/").replace("~0", "~")


def format(parts: Iterable[Any]) -> str:
    """The pointer of a path: `("a/b", 0)` -> `/a~1b/0`; `()` -> `""` (the whole document)."""
    return "".join("/" + escape(part) for part in parts)


def child(pointer: str, token: Any) -> str:
    """The pointer one step below `pointer`: `child("/$defs", "a/b")` -> `/$defs/a~1b`."""
    return f"{pointer}/{escape(token)}"


def parse(pointer: str) -> list[str]:
    """The member names (unescaped) of a pointer: `/a~1b/0` -> `["a/b", "0"]`."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PointerError(f"{pointer!r} is not a JSON pointer: it must be empty or start with /")
    return [unescape(token) for token in pointer[1:].split("/")]


_INDEX = re.compile(r"0|[1-9][0-9]*")


def list_index(token: str) -> int | None:
    """The array index a pointer token names (RFC 6901: ASCII digits, no leading zero), or None."""
    return int(token) if _INDEX.fullmatch(token) else None


def resolve(document: Any, pointer: str) -> Any:
    """The value `pointer` names in `document`; PointerError when it names nothing."""
    node = document
    for name in parse(pointer):
        if isinstance(node, dict) and name in node:
            node = node[name]
        elif isinstance(node, list) and (index := list_index(name)) is not None:
            if index >= len(node):
                raise PointerError(f"{pointer!r}: no item {index} (the list has {len(node)})")
            node = node[index]
        else:
            raise PointerError(f"{pointer!r}: no member {name!r}")
    return node


def fragment(pointer: str) -> str:
    """The URI fragment of a pointer, as `$ref` writes it: `/$defs/X` -> `#/$defs/X`."""
    return "#" + pointer


def from_fragment(ref: str) -> str:
    """The pointer of a same-document `$ref` (`#/$defs/X` -> `/$defs/X`); PointerError if none."""
    if not ref.startswith("#"):
        raise PointerError(f"{ref!r} is not a same-document reference")
    return ref[1:]


def nodes(document: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object in `document` with its pointer, depth first, without recursion."""
    stack = [(where, document)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, dict):
            yield at, item
            members: Iterable[tuple[Any, Any]] = item.items()
        elif isinstance(item, list):
            members = enumerate(item)
        else:
            continue
        # Only containers are visited: a pointer is built for nothing that is not.
        stack.extend(
            (child(at, key), value) for key, value in members if isinstance(value, dict | list)
        )
