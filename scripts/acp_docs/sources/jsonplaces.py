"""Where each value of a JSON text is, by JSON Pointer: the place to report a problem at.

Reads text that already parsed (strict JSON, or JSONC with comments blanked),
so it only needs to follow the structure, not to judge it. A member is placed
at its name (`"sesionId": ...` is where a reader looks), an item of a list and
the whole text at their first character.
"""

from __future__ import annotations

import json
import re

from acp_docs.sources import pointer as ptr

_SPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r"[^,\]}\s]+")


def lines(text: str) -> dict[str, int]:
    """Each value's 1-based line, by pointer (`""` for the whole text)."""
    return {pointer: line for pointer, (line, _col) in positions(text).items()}


def positions(text: str) -> dict[str, tuple[int, int]]:
    """Each value's 1-based line and column, by pointer: a member's at its name."""

    found: dict[str, tuple[int, int]] = {}
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def line_at(index: int) -> int:
        low, high = 0, len(starts)
        while high - low > 1:
            mid = (low + high) // 2
            if starts[mid] <= index:
                low = mid
            else:
                high = mid
        return low + 1

    def place(index: int) -> tuple[int, int]:
        line = line_at(index)
        return line, index - starts[line - 1] + 1

    def skip(i: int) -> int:
        return _SPACE.match(text, i).end()  # type: ignore[union-attr]

    def value(i: int, at: tuple[str, ...], depth: int, named: int | None = None) -> int:
        i = skip(i)
        found[ptr.format(at)] = place(named if named is not None else i)
        if depth > 200 or i >= len(text):
            return len(text)
        char = text[i]
        if char == "{":
            i = skip(i + 1)
            while i < len(text) and text[i] != "}":
                key = _STRING.match(text, i)
                if key is None:
                    return len(text)
                name = json.loads(key.group(0))
                start = key.start()
                i = skip(key.end())
                i = value(i + 1, (*at, name), depth + 1, start)  # past the colon
                i = skip(i)
                if i < len(text) and text[i] == ",":
                    i = skip(i + 1)
            return i + 1
        if char == "[":
            i, index = skip(i + 1), 0
            while i < len(text) and text[i] != "]":
                i = skip(value(i, (*at, str(index)), depth + 1))
                index += 1
                if i < len(text) and text[i] == ",":
                    i = skip(i + 1)
            return i + 1
        if char == '"':
            match = _STRING.match(text, i)
            return match.end() if match else len(text)
        match = _SCALAR.match(text, i)
        return match.end() if match else i + 1

    value(0, (), 0)
    return found


def line_of(places: dict[str, int], pointer: str) -> int:
    """The line of `pointer`, or of its nearest ancestor that has one (1 when none)."""
    return position_of({k: (v, 1) for k, v in places.items()}, pointer)[0]


def position_of(places: dict[str, tuple[int, int]], pointer: str) -> tuple[int, int]:
    """The place of `pointer`, or of its nearest ancestor that has one ((1, 1) when none).

    A member that is not there (a required one missing) is reported at the object
    that lacks it.
    """
    while True:
        if pointer in places:
            return places[pointer]
        if not pointer:
            return 1, 1
        pointer = pointer.rsplit("/", 1)[0]
