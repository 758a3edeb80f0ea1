"""Values from contributors made safe to place in generated Markdown.

`literal` is for values shown as they are (an RFD's title, a handle): nothing
in them can become HTML, a link or emphasis. `prose` is for descriptions that
may use Markdown (code spans, links) but never raw HTML.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import partial

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def literal(text: str) -> str:
    """`text` as plain characters in Markdown: HTML escaped, Markdown punctuation escaped."""
    one_line = " ".join(str(text).split())
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(one_line, quote=True))


def code_spans(line: str) -> list[tuple[int, int]]:
    """The (start, end) of every inline code span of one line, in linear-ish time."""
    spans: list[tuple[int, int]] = []
    index = 0
    length = len(line)
    while index < length:
        start = line.find("`", index)
        if start < 0:
            break
        end = start
        while end < length and line[end] == "`":
            end += 1
        fence = line[start:end]
        close = line.find(fence, end)
        while close >= 0 and close + len(fence) < length and line[close + len(fence)] == "`":
            close = line.find(fence, close + len(fence) + 1)
        if close < 0:
            index = end
            continue
        spans.append((start, close + len(fence)))
        index = close + len(fence)
    return spans


def _outside_code(line: str, transform: Callable[[str], str]) -> str:
    """One line with `transform` applied to what lies outside its code spans."""
    pieces, last = [], 0
    for start, end in code_spans(line):
        pieces.append(transform(line[last:start]))
        pieces.append(line[start:end])
        last = end
    pieces.append(transform(line[last:]))
    return "".join(pieces)


def prose(text: str) -> str:
    """Markdown prose with any raw HTML shown as text (code spans are left alone)."""
    escape = partial(html.escape, quote=False)
    return "\n".join(_outside_code(line, escape) for line in str(text).split("\n"))


def text_with_code(text: str) -> str:
    """One line of plain text whose code spans stay code: everything else as `literal`."""

    def plain(piece: str) -> str:
        lead = " " if piece.startswith(" ") else ""
        trail = " " if piece.endswith(" ") and piece.strip() else ""
        return lead + literal(piece) + trail

    return _outside_code(" ".join(str(text).split()), plain)
