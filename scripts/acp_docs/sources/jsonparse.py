"""JSON from contributors, parsed strictly: what every parser would read the same way.

Refused, each with its line and column: malformed text, duplicate keys (parsers
disagree on which one wins), `NaN` and `Infinity`, numbers too long to convert,
lone UTF-16 surrogates, and nesting deeper than `MAX_DEPTH`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from acp_docs.sources.lines import LineIndex

MAX_DEPTH = 64


@dataclass
class JsonProblem(Exception):
    """Why a JSON text is refused, and where (1-based line and column)."""

    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.line}:{self.col}: {self.message}"


_TOKEN = re.compile(r'"(?:[^"\\]+|\\.)*"?|[\[\]{}]', re.S)
"""A string (to its end, or the text's, when unclosed) or one bracket: always matches."""


_STRING = re.compile(r'"(?:[^"\\]+|\\.)*"?', re.S)
_INNERMOST = re.compile(r"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")


def _shallow(text: str) -> bool:
    """True when every bracket pairs up within MAX_DEPTH levels (innermost pairs go a level a pass).

    False may still be shallow (unpaired brackets): the exact scan decides then.
    """
    rest = _STRING.sub("", text)
    for _level in range(MAX_DEPTH):
        rest, removed = _INNERMOST.subn("", rest)
        if not removed:
            break
    return not any(char in rest for char in "[]{}")


def _too_deep(text: str) -> int | None:
    """The index where nesting passes MAX_DEPTH, found without recursion, in linear time."""
    if _shallow(text):
        return None
    depth = 0
    for token in _TOKEN.finditer(text):
        char = token.group(0)[0]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif char in "]}":
            depth -= 1
    return None


class _Pairs:
    """An object_pairs_hook that refuses duplicate keys."""

    def __init__(self) -> None:
        self.duplicate: str | None = None

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out and self.duplicate is None:
                self.duplicate = key
            out[key] = value
        return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _surrogate(value: Any, text: str) -> bool:
    """True when a string of `value` holds a lone surrogate (only a `\\uD8..` escape makes one)."""
    if not _SURROGATE_ESCAPE.search(text):
        try:
            text.encode("utf-8")
            return False
        except UnicodeEncodeError:
            pass
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _duplicate(text: str) -> tuple[str, int] | None:
    """The first key, in text order, that its object already has, and where that copy is.

    Linear: one pass over strings and brackets, a set of keys per open object.
    Only called on text `json` parsed, so every string is closed.
    """
    keys: list[set[str] | None] = []
    for token in _TOKEN.finditer(text):
        char = token.group(0)[0]
        if char == "{":
            keys.append(set())
        elif char == "[":
            keys.append(None)
        elif char in "]}":
            keys.pop()
        elif keys and keys[-1] is not None:
            rest = text[token.end() : token.end() + 64].lstrip()
            if rest.startswith(":"):
                key = json.loads(token.group(0))
                if key in keys[-1]:
                    return key, token.start()
                keys[-1].add(key)
    return None


def _find(text: str, needle: str) -> tuple[int, int]:
    index = text.find(needle)
    return LineIndex(text).at(index) if index >= 0 else (1, 1)


def loads(text: str) -> Any:
    """Parse `text`; a JsonProblem for anything the module docstring refuses."""
    deep = _too_deep(text)
    if deep is not None:
        line, col = LineIndex(text).at(deep)
        raise JsonProblem(line, col, f"nested deeper than {MAX_DEPTH} levels")
    pairs = _Pairs()
    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise JsonProblem(exc.lineno, exc.colno, f"malformed JSON: {exc.msg}") from None
    except ValueError as exc:
        message = str(exc)
        if "is not JSON" in message:
            line, col = _find(text, message.split(" ", 1)[0])
            raise JsonProblem(line, col, f"malformed JSON: {message}") from None
        raise JsonProblem(1, 1, "malformed JSON: a number is too long to convert") from None
    except RecursionError:
        raise JsonProblem(1, 1, f"nested deeper than {MAX_DEPTH} levels") from None
    if pairs.duplicate is not None:
        key, (line, col) = pairs.duplicate, _find(text, json.dumps(pairs.duplicate))
        found = _duplicate(text)
        if found is not None:
            key, (line, col) = found[0], LineIndex(text).at(found[1])
        raise JsonProblem(line, col, f"duplicate key {key!r}: parsers disagree on which one wins")
    if _surrogate(value, text):
        line, col = _find(text, "\\u")
        raise JsonProblem(line, col, "a string holds a lone UTF-16 surrogate, which is not text")
    return value
