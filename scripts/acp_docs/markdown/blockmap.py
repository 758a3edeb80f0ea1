"""Where a line of a page's Markdown source ended up in its rendered HTML.

Python-Markdown keeps no source positions, so a line is found by its text:
the blocks of the HTML (paragraphs, list items, headings, table cells, code
blocks) are listed with their visible text, and the line's plain fragments
(its words without Markdown syntax, a code line as written, a code block's
title) are looked up in them, innermost block first, the n-th occurrence for
the n-th occurrence in the source. A line that cannot be found is not placed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acp_docs.markdown.fences import code_lines, fence_title, front_matter_end, is_fence
from acp_docs.markdown.htmlscan import Attrs, ElementParser
from acp_docs.sources.lines import LineIndex

BLOCK_TAGS = frozenset(
    {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "summary", "dl"}
)
INSIDE_TAGS = frozenset({"li", "td", "th", "dt", "dd"})
"""Blocks that take a note inside them, before their closing tag (a list stays a list)."""

_SPACE = re.compile(r"\s+")
_LINK_TARGET = re.compile(r"\]\([^)]*\)|\]\[[^\]]*\]|\{[^}]*\}|<[^>]*>")
_SYNTAX = re.compile(r"[`*_\[\]#|>!]+|^\s*(?:[-+*]|\d+[.)])\s+|^\s*(?:!!!|\?\?\?\+?|===)\s*\S*")
_MIN_FRAGMENT = 3


def normal(text: str) -> str:
    """`text` with every run of white space one space, trimmed."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class Block:
    """A block element of the HTML: where it starts and ends, and its text."""

    tag: str
    start: int
    end: int
    text: str

    @property
    def insert_at(self) -> int:
        """Where a note about this block goes: inside a list item or cell, else after it."""
        if self.tag in INSIDE_TAGS:
            return self.end - len(f"</{self.tag}>")
        return self.end


class _Blocks(ElementParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.html = html
        self.lines = LineIndex(html)
        self.chunks: list[str] = []
        self.stack: list[tuple[str, int, int, bool]] = []
        self.blocks: list[Block] = []

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines.start(line) + col

    def opened(self, tag: str, attrs: Attrs) -> None:
        classes = (dict(attrs).get("class") or "").split()
        block = tag in BLOCK_TAGS or (tag == "div" and "highlight" in classes)
        self.stack.append((tag, self._offset(), len(self.chunks), block))

    def closed(self, tag: str) -> None:
        if not any(open_tag == tag for open_tag, *_ in self.stack):
            return
        here = self._offset()
        while self.stack:
            open_tag, start, text_start, block = self.stack.pop()
            if block:
                close = self.html.find(">", here)
                end = close + 1 if open_tag == tag and close >= 0 else here
                text = normal("".join(self.chunks[text_start:]))
                self.blocks.append(Block(open_tag, start, end, text))
            if open_tag == tag:
                return

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)


def blocks(html: str) -> list[Block]:
    """The block elements of `html` in document order, each with its visible text."""
    parser = _Blocks(html)
    parser.feed(html)
    parser.close()
    return sorted(parser.blocks, key=lambda b: b.start)


def fragments(line: str, col: int = 0) -> list[str]:
    """The plain pieces of a Markdown source line a reader sees, the most telling first.

    A code block's opening fence gives its title; a piece around column `col`
    (1-based; a misspelt word) comes first; the others follow, longest first.
    """
    if is_fence(line):
        title = fence_title(line)
        return [normal(title)] if title else []
    plain = _LINK_TARGET.sub(lambda m: "]" if m.group(0).startswith("]") else " ", line)
    pieces = [normal(p) for p in _SYNTAX.split(plain)]
    pieces = [p for p in pieces if len(p) >= _MIN_FRAGMENT]
    ordered = sorted(dict.fromkeys(pieces), key=len, reverse=True)
    if col > 0:
        word = re.match(r"\w+", line[col - 1 :])
        if word and len(word.group(0)) >= 2:
            ordered.insert(0, word.group(0))
    return ordered


@dataclass(frozen=True)
class Source:
    """A page's Markdown source, split once for many lookups."""

    lines: list[str]
    first: int
    """The first line after the front matter."""
    in_code: frozenset[int]
    plain: list[str]
    """Each line with its white space made single (`normal`)."""


def source_of(text: str) -> Source:
    """`text` ready for `place`."""
    lines = text.split("\n")
    plain = [normal(line) for line in lines]
    return Source(lines, front_matter_end(lines) + 1, frozenset(code_lines(text)), plain)


def place(
    html: str,
    source: str | Source,
    line: int,
    col: int = 0,
    found: list[Block] | None = None,
) -> int | None:
    """The offset in `html` where a note about source line `line` goes, or None.

    Tries the line itself; for the opening fence of a code block without a
    title, the block's first lines; then up to five lines before it (a line
    inside a paragraph whose first line carries the text). Innermost block first.
    """
    found = blocks(html) if found is None else found
    src = source_of(source) if isinstance(source, str) else source
    lines = src.lines
    if line < src.first or line > len(lines):
        return None  # front matter is not shown on the page
    tried = [line]
    if is_fence(lines[line - 1]) and fence_title(lines[line - 1]) is None:
        tried += [n for n in range(line + 1, min(line + 4, len(lines) + 1))]
    tried += [n for n in range(line - 1, line - 6, -1) if n >= src.first]
    for number in tried:
        text = lines[number - 1]
        if number in src.in_code and not is_fence(text):
            pieces = [normal(text)] if len(normal(text)) >= _MIN_FRAGMENT else []
        else:
            pieces = fragments(text, col if number == line else 0)
        for piece in pieces:
            target = _nth_block(found, src.plain, number, piece)
            if target is not None:
                return target.insert_at
    return None


def _nth_block(found: list[Block], plain: list[str], number: int, piece: str) -> Block | None:
    containing = [b for b in found if piece in b.text]
    if not containing:
        return None
    # The innermost block of each place: blocks nest, so in document order a block holds a
    # deeper match exactly when the next match starts before it ends.
    innermost = [
        b
        for b, after in zip(containing, [*containing[1:], None], strict=True)
        if after is None or after.start >= b.end
    ]
    if len(innermost) == 1:
        return innermost[0]
    before = sum(text.count(piece) for text in plain[: number - 1])
    return innermost[min(before, len(innermost) - 1)]
