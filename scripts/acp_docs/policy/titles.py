"""RFD titles a reader can trust: known characters only, and no two that look the same.

A title is shown in the navigation, on the RFD's page, on the home page and
in the export, where a reader tells one RFD from another by it. So a title
may hold printable ASCII and a few typographic marks (curly quotes, en and em
dashes, the ellipsis), and nothing else: a Cyrillic letter among Latin ones,
a zero-width space or a bidirectional override is a finding that names the
character (`U+0430 CYRILLIC SMALL LETTER A`), never printing it.

Two titles that differ as written but are the same once case is folded,
compatibility forms are unified (NFKC), invisible format characters are
dropped and runs of spaces and punctuation become one space are look-alikes:
the later one (by path, then line) is a finding naming the earlier. Titles
that are exactly equal are the RFD lint's `rfds/duplicate-title` already.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

from acp_docs.core.findings import Finding

CHECK = "rfds"
TYPOGRAPHIC = frozenset("\u2018\u2019\u201c\u201d\u2013\u2014\u2026")
"""Curly quotes, en and em dashes and the ellipsis: the marks a title may hold beyond ASCII."""
MAX_NAMED = 5
"""Characters named in one finding; the rest are counted."""


class TitleAt(NamedTuple):
    """An RFD's title and where it is written: the shown path and its 1-based line."""

    path: str
    line: int
    title: str


def allowed(char: str) -> bool:
    """True for a character a title may hold: printable ASCII or a typographic mark."""
    return " " <= char <= "~" or char in TYPOGRAPHIC


def describe(char: str) -> str:
    """`U+0430 CYRILLIC SMALL LETTER A`; a character without a name gets its category."""
    name = unicodedata.name(char, "")
    if not name:
        name = f"<{unicodedata.category(char)}>"
    return f"U+{ord(char):04X} {name}"


def fold(title: str) -> str:
    """The title as a reader takes it: case, width, format characters, punctuation set aside."""
    text = unicodedata.normalize("NFKC", title)
    text = unicodedata.normalize("NFKC", text.casefold())
    words: list[str] = []
    current: list[str] = []
    for char in text:
        kind = unicodedata.category(char)
        if kind == "Cf":
            continue
        if kind[0] in "PZC" or char.isspace():
            if current:
                words.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        words.append("".join(current))
    return " ".join(words)


def _characters(at: TitleAt) -> Finding | None:
    bad: dict[str, int] = {}
    for index, char in enumerate(at.title, start=1):
        if not allowed(char):
            bad.setdefault(char, index)
    if not bad:
        return None
    named = [f"{describe(c)} (character {i})" for c, i in list(bad.items())[:MAX_NAMED]]
    more = f" and {len(bad) - MAX_NAMED} more" if len(bad) > MAX_NAMED else ""
    return Finding(
        at.path,
        at.line,
        1,
        CHECK,
        f"the title holds {', '.join(named)}{more}; a title may use printable ASCII and"
        " the marks \u2018 \u2019 \u201c \u201d \u2013 \u2014 \u2026 only, so readers see"
        " what they read",
        f"{CHECK}/title-characters",
    )


def check(titles: Iterable[TitleAt]) -> list[Finding]:
    """Findings for titles with characters outside the allowlist, and for look-alike titles."""
    findings: list[Finding] = []
    first: dict[str, TitleAt] = {}
    for at in sorted(titles):
        found = _characters(at)
        if found is not None:
            findings.append(found)
        key = fold(at.title)
        earlier = first.setdefault(key, at)
        if earlier is not at and earlier.title != at.title:
            findings.append(
                Finding(
                    at.path,
                    at.line,
                    1,
                    CHECK,
                    f"the title looks the same as the title of {earlier.path} (line"
                    f" {earlier.line}) once case, spacing and punctuation are set aside;"
                    " give it a title readers can tell apart",
                    f"{CHECK}/title-lookalike",
                )
            )
    return findings
