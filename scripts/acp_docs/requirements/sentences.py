"""The sentences of an RFD, each at its line, and which of them state a rule.

The body after the front matter is read block by block: a heading, a
paragraph, a list item, a quoted line or a table row; fenced code and
acp-docs markers are not prose. Each block is cut into sentences after a `.`,
`!` or `?` followed by a space and a capital, a backtick or a bracket.

A sentence is normative when it holds a keyword of BCP 14 in capitals: MUST,
SHALL, SHOULD, REQUIRED or RECOMMENDED (MAY states no obligation, and only
capitals carry the meaning, as RFC 8174 says). The keyword is looked for in
the sentence as a reader sees it (`seen`): character references decoded,
inline HTML tags and invisible characters taken out, compatibility forms
(full-width letters) folded, and capitals of other scripts that look Latin
read as Latin; text in code spans is not prose and does not count.

Text is compared in its plain form (`plain`): code spans kept without their
backticks, emphasis and link targets taken off, spaces collapsed, so a quote
of a requirement matches the sentence however the RFD marks it up.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from acp_docs.markdown.fences import code_lines, front_matter_end

NORMATIVE = re.compile(r"\b(?:MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED)\b")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_MARKUP = re.compile(r"[`*]+|(?<!\w)_+|_+(?!\w)")
_SPACE = re.compile(r"\s+")
_CUT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\[*(])")
_MARKER = re.compile(r"^\s*<!--.*-->\s*$")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_LOOKALIKE = str.maketrans(
    # Cyrillic and Greek capitals that look like Latin ones, and the Latin they look like.
    "\u0410\u0412\u0421\u0415\u041d\u0406\u0408\u041a\u041c\u041e\u0420\u0405\u0422\u0425\u0423\u051a\u051c"
    "\u0391\u0392\u0395\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u0396",
    "ABCEHIJKMOPSTXYQWABEHIKMNOPTYXZ",
)


@dataclass(frozen=True)
class Sentence:
    """One sentence of prose: its plain text, the line it starts on, and what a reader sees."""

    text: str
    line: int
    seen: str = ""

    @property
    def normative(self) -> bool:
        """True when the sentence states a rule (a BCP 14 keyword in capitals)."""
        return NORMATIVE.search(self.seen or self.text) is not None

    @property
    def keywords(self) -> frozenset[str]:
        """The BCP 14 keywords it states, as a reader sees them."""
        return frozenset(NORMATIVE.findall(self.seen or self.text))


def plain(text: str) -> str:
    """`text` as compared: link text without its target, no code or emphasis marks, single
    spaces."""
    text = _LINK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)
    return _SPACE.sub(" ", _MARKUP.sub("", text)).strip()


def seen(text: str) -> str:
    """`text` as a reader sees its words: no code spans, no tags, references decoded,
    invisible characters out, compatibility and look-alike capitals folded to Latin."""
    text = html.unescape(_TAG.sub("", _CODE.sub(" ", text)))
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return plain(text.translate(_LOOKALIKE))


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
        item = _ITEM.match(text) or _HEADING.match(text)
        starts = item is not None or text.lstrip().startswith("|") or text != raw
        if starts and current:
            found.append(current)
            current = []
        current.append((number, text[item.end() :] if item else text.strip(" |")))
        if _HEADING.match(text):  # a heading is a block of its own
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def _sentences(lines: list[str], numbers: range, skip: set[int]) -> list[Sentence]:
    out: list[Sentence] = []
    for block in _blocks(lines, numbers, skip):
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
                out.append(Sentence(said, line, seen(part)))
    return out


def every_sentence(text: str) -> list[Sentence]:
    """Every sentence of the Markdown `text` after its front matter, headings included."""
    lines = text.split("\n")
    body = range(front_matter_end(lines) + 1, len(lines) + 1)
    return _sentences(lines, body, code_lines(text))
