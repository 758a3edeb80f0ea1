"""The sentences of an RFD's sections, each at its line, and which of them state a rule.

A section runs from its heading to the next heading of the same or a higher
level, so it holds its subsections. Its prose is read block by block: a
paragraph, a list item, a quoted line or a table row; fenced code, headings
and acp-docs markers are not prose. Each block is cut into sentences after a
`.`, `!` or `?` followed by a space and a capital, a backtick or a bracket.
A sentence is normative when it holds a keyword of RFC 2119 in capitals:
MUST, SHALL, SHOULD, REQUIRED or RECOMMENDED (MAY states no obligation).

Text is compared in its plain form (`plain`): code spans, emphasis and link
targets taken off, spaces collapsed, so a quote of a requirement matches the
sentence however the RFD marks it up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acp_docs.markdown.blocks import Heading, headings
from acp_docs.markdown.fences import code_lines

NORMATIVE = re.compile(r"\b(?:MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED)\b")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_MARKUP = re.compile(r"[`*]+|(?<!\w)_+|_+(?!\w)")
_SPACE = re.compile(r"\s+")
_CUT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\[*(])")
_MARKER = re.compile(r"^\s*<!--.*-->\s*$")


@dataclass(frozen=True)
class Sentence:
    """One sentence of prose: its plain text and the line of the file it starts on."""

    text: str
    line: int

    @property
    def normative(self) -> bool:
        """True when the sentence states a rule (an RFC 2119 keyword in capitals)."""
        return NORMATIVE.search(self.text) is not None


def plain(text: str) -> str:
    """`text` as compared: link text without its target, no code or emphasis marks, single
    spaces."""
    text = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    return _SPACE.sub(" ", _MARKUP.sub("", text)).strip()


def section_lines(heads: list[Heading], start: Heading, total: int) -> range:
    """The lines of the section `start` opens, its subsections included (1-based)."""
    later = [h.line for h in heads if h.line > start.line and h.level <= start.level]
    return range(start.line + 1, (later[0] if later else total + 1))


def _blocks(lines: list[str], numbers: range, skip: set[int]) -> list[list[tuple[int, str]]]:
    """The prose blocks of `numbers`: each a list of (line, text) pieces."""
    found: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    for number in numbers:
        raw = lines[number - 1] if number <= len(lines) else ""
        if number in skip or not raw.strip() or _MARKER.match(raw):
            if current:
                found.append(current)
            current = []
            continue
        text = _QUOTE.sub("", raw)
        item = _ITEM.match(text)
        starts = item is not None or text.lstrip().startswith("|") or text != raw
        if starts and current:
            found.append(current)
            current = []
        current.append((number, text[item.end() :] if item else text.strip(" |")))
    if current:
        found.append(current)
    return found


def sentences(text: str, heading: Heading) -> list[Sentence]:
    """Every sentence of the section `heading` opens in the Markdown `text`, in order."""
    lines = text.split("\n")
    heads = headings(text)
    skip = code_lines(text) | {h.line for h in heads}
    out: list[Sentence] = []
    for block in _blocks(lines, section_lines(heads, heading, len(lines)), skip):
        joined = ""
        starts: list[tuple[int, int]] = []
        for number, piece in block:
            starts.append((len(joined), number))
            joined += piece.strip() + " "
        offset = 0
        for part in _CUT.split(joined):
            at = joined.find(part, offset)
            offset = at + len(part)
            line = max((n for start, n in starts if start <= at), default=block[0][0])
            said = plain(part)
            if said:
                out.append(Sentence(said, line))
    return out
