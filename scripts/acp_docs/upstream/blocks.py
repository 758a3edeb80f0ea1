"""A fenced `json` or `jsonc` block read as Mintlify's readers would: JSON, JSONC, or abridged.

Strict JSON first; then JSON with comments and trailing commas (JSONC); a
block that is neither but shortens a payload (`...`, `…`, a `<placeholder>`)
is abridged: reported as a note, never checked, never silently skipped. A
block that is none of these is not JSON, at the line where reading stopped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from acp_docs.sources import jsonparse

LANGS = ("json", "jsonc", "json5")
"""Fence languages whose blocks are read as JSON."""

STRING = r'"(?:[^"\\\n]|\\.)*+(?:"|\\?(?=\n)|\\?\Z)'
"""A JSON string; an unclosed one runs to its line's end. It always matches, and never
backtracks, so no text makes a scan start again at every quote."""
_STRING_OR_COMMENT = re.compile(STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
_ABRIDGED = re.compile(r"\.\.|…|<[A-Za-z][^<>\n]{0,60}>|\[[A-Za-z][A-Za-z ]{0,40}\]|\{\s*\.\.\.")


@dataclass(frozen=True)
class Read:
    """The block's value (`kind` "json" or "jsonc"), or why it has none.

    `kind` is "abridged" (shortened by `...` or a placeholder: not checked) or
    "invalid" (`line`, `col` and `message` say where reading stopped).
    """

    kind: str
    value: Any = None
    line: int = 1
    col: int = 1
    message: str = ""


def strip_jsonc(text: str) -> str:
    """`text` with comments blanked (lines kept) and trailing commas removed, strings untouched."""

    def blank(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"'):
            return token
        return re.sub(r"[^\n]", " ", token)

    without = _STRING_OR_COMMENT.sub(blank, text)
    return _TRAILING_COMMA.sub(r" \1", without)


def _outside_strings(text: str) -> str:
    return _STRING_OR_COMMENT.sub(lambda m: "" if m.group(0).startswith('"') else m.group(0), text)


def read(text: str) -> Read:
    """Read one block's text (see the module docstring)."""
    try:
        return Read("json", jsonparse.loads(text))
    except jsonparse.JsonProblem:
        pass
    try:
        return Read("jsonc", jsonparse.loads(strip_jsonc(text)))
    except jsonparse.JsonProblem as problem:
        # Comments are blanked and commas replaced in place: the place is the text's own.
        first = problem
    if _ABRIDGED.search(_outside_strings(text)):
        return Read("abridged")
    line, col = first.line, first.col
    if "Expecting ',' delimiter" in first.message:
        line, col = _after_previous_token(text, line, col)
    return Read("invalid", line=line, col=col, message=first.message)


def _after_previous_token(text: str, line: int, col: int) -> tuple[int, int]:
    """Where a missing comma belongs: just after the token before (`line`, `col`)."""
    rows = text.split("\n")
    before = "\n".join([*rows[: line - 1], rows[line - 1][: col - 1]]).rstrip()
    if not before:
        return line, col
    last = before.split("\n")
    return len(last), len(last[-1]) + 1
