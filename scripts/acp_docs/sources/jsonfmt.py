"""JSON written the way Prettier prints it, so generated files pass `format:check` as written.

Objects are always expanded, one member per line; an array of scalars stays
on one line when it fits in the print width, and is expanded otherwise. A
character a reader cannot see (white space other than the space, a control or
format character) is written as its escape, so no generated file hides one.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

PRINT_WIDTH = 80


def _shown(char: str) -> str:
    if char == " " or unicodedata.category(char)[0] not in "ZC":
        return char
    return json.dumps(char)[1:-1]


def _scalar(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return "".join(_shown(c) for c in text) if isinstance(value, str) else text


def _dump(value: Any, indent: int, column: int) -> str:
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        members = []
        for key, item in value.items():
            head = f"{pad}{_scalar(str(key))}: "
            members.append(head + _dump(item, indent + 1, len(head)))
        return "{\n" + ",\n".join(members) + "\n" + end + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if not any(isinstance(item, dict | list) for item in value):
            inline = "[" + ", ".join(_scalar(item) for item in value) + "]"
            if column + len(inline) + 1 <= PRINT_WIDTH:
                return inline
        items = [pad + _dump(item, indent + 1, len(pad)) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + end + "]"
    return _scalar(value)


def dumps(value: Any) -> str:
    """`value` as Prettier-formatted JSON text, with a final newline."""
    return _dump(value, 0, 0) + "\n"
