"""A CSS tokenizer that reads as a browser does, enough to see what a style sheet loads.

It follows CSS Syntax Level 3 where loading is decided: comments, strings,
escapes (`\\75rl(` is `url(`), identifiers, functions, at-keywords and the
unquoted `url(...)` token. Everything else is a one-character `delim` token.
Each pattern is possessive, so the work is linear in the input: one pass, no
backtracking. Names and string values are returned with escapes decoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_ESCAPE = r"\\(?:[0-9a-fA-F]{1,6}[ \t\n]?|[^\n0-9a-fA-F])"
_NAME_START = rf"(?:[A-Za-z_]|[^\x00-\x7f]|{_ESCAPE})"
_NAME_CHAR = rf"(?:[A-Za-z0-9_\-]|[^\x00-\x7f]|{_ESCAPE})"
_IDENT = rf"(?:--|-?{_NAME_START}){_NAME_CHAR}*+"

_TOKEN = re.compile(
    r"(?P<comment>/\*.*?(?:\*/|\Z))"
    r"|(?P<string>\"(?:[^\"\\\n]|\\.)*+\"?|'(?:[^'\\\n]|\\.)*+'?)"
    rf"|(?P<at>@{_IDENT})"
    rf"|(?P<ident>{_IDENT})(?P<open>\()?"
    r"|(?P<ws>[ \t\n]++)"
    r"|(?P<delim>.)",
    re.DOTALL,
)
_QUOTE_AHEAD = re.compile(r"[ \t\n]*+[\"']")
_URL_BODY = re.compile(
    rf"[ \t\n]*+(?P<body>(?:[^\"'()\\ \t\n\x00-\x08\x0b\x0e-\x1f\x7f]|{_ESCAPE})*+)"
    r"[ \t\n]*+(?:\)|\Z)"
)
_BAD_URL_REST = re.compile(r"(?:[^)\\]|\\.)*+\)?", re.DOTALL)
_DECODE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n]?|(\n)|(.))", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind, its value with escapes decoded, and where it starts and ends.

    Kinds: `ident`, `function` (value: the name), `at` (the name without `@`),
    `url` (the unquoted URL), `bad-url`, `string` (without quotes), `bad-string`
    (a string cut by a line end), `ws`, `delim` (one character).
    """

    kind: str
    value: str
    start: int
    end: int


def _code_point(hex_digits: str) -> str:
    value = int(hex_digits, 16)
    if value == 0 or 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
        return "\ufffd"
    return chr(value)


def _replace(match: re.Match[str]) -> str:
    hex_digits, newline, other = match.groups()
    if hex_digits is not None:
        return _code_point(hex_digits)
    if newline is not None:
        return ""
    return other


def decode(text: str) -> str:
    """`text` with CSS escapes decoded (a backslash before a line end joins the lines)."""
    return _DECODE.sub(_replace, text) if "\\" in text else text


def preprocess(text: str) -> str:
    """The text as a CSS parser sees it: `\\r\\n`, `\\r` and `\\f` are line ends, NUL is U+FFFD.

    Line numbers are unchanged.
    """
    if "\r" in text or "\f" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")
    return text.replace("\x00", "\ufffd")


def tokens(text: str) -> Iterator[Token]:
    """The tokens of preprocessed CSS `text` (see `preprocess`), comments left out."""
    pos = 0
    end = len(text)
    while pos < end:
        match = _TOKEN.match(text, pos)
        assert match is not None  # `delim` matches any character
        kind = match.lastgroup or "delim"
        start = pos
        pos = match.end()
        if kind == "comment":
            continue
        if kind == "string":
            raw = match.group("string")
            closed = len(raw) > 1 and raw[-1] == raw[0]
            if not closed and pos < end:
                yield Token("bad-string", decode(raw[1:]), start, pos)
            else:
                yield Token("string", decode(raw[1:-1] if closed else raw[1:]), start, pos)
        elif kind == "at":
            yield Token("at", decode(match.group("at")[1:]), start, pos)
        elif kind == "ident" or match.group("open") is not None:
            name = decode(match.group("ident"))
            if match.group("open") is None:
                yield Token("ident", name, start, pos)
            elif name.lower() == "url" and not _QUOTE_AHEAD.match(text, pos):
                body = _URL_BODY.match(text, pos)
                if body is not None:
                    pos = body.end()
                    yield Token("url", decode(body.group("body")), start, pos)
                else:
                    rest = _BAD_URL_REST.match(text, pos)
                    pos = rest.end() if rest is not None else end
                    yield Token("bad-url", "", start, pos)
            else:
                yield Token("function", name, start, pos)
        else:
            yield Token(kind, match.group(0), start, pos)
