"""Raw HTML in a page that would run in the reader's browser: scripts, handlers, script links.

Python-Markdown passes raw HTML through to the page, so a pull request could
publish a `<script>`, an `onerror=` handler on an image, or a
`javascript:` link written as HTML. This reads the HTML a page's Markdown
became (code blocks are escaped by then, so they are not tags) and names each:

- an element that runs or loads active content (`ACTIVE_ELEMENTS`);
- an event-handler attribute (`on...`) on any element;
- a URL attribute whose scheme runs code or embeds a document
  (`javascript:`, `vbscript:`, `data:`), after the browser's own clean-up
  (entities decoded, tabs and newlines dropped).

RFD bodies allow only a few elements (`acp_docs.rfds`), so for them only the
attributes are checked here.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

ACTIVE_ELEMENTS = frozenset(
    {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "base"}
    | {"meta", "link", "style"}
)
"""Elements that run code, load a document or a style, or change where links go.

An inline `<svg>` is not one of them: its scripts, handlers and links are
found like any other element's."""
URL_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "data", "poster", "background", "xlink:href"}
)
UNSAFE_SCHEMES = frozenset({"javascript", "vbscript", "data"})
"""Schemes whose URL runs code or is a document of its own, wherever it is followed."""
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_URL_ENDS = "".join(map(chr, range(0x21)))
_URL_DROPPED = {9: None, 10: None, 13: None}


def _spelt_apart(word: str) -> str:
    """`word` with the tabs and newlines a browser drops allowed between its letters."""
    return "[\t\n\r]*".join(re.escape(c) for c in word)


_WORTH_PARSING = re.compile(
    r"(?i)<(?:" + "|".join(sorted(ACTIVE_ELEMENTS)) + r")\b|[\s/]on[a-z]+\s*="
    f"|{_spelt_apart('script:')}|{_spelt_apart('data:')}|&(?:#|tab;|newline;|colon;)"
)
"""A quick look that every page this module could flag passes; most pages do not."""


def scheme_of(url: str, decode: bool = True) -> str:
    """The scheme, lower-case, that a browser reads in the attribute value `url` ('' if none).

    Entities are decoded first (unless `decode` is False: already done); then,
    as the URL parser does, C0 controls and spaces are trimmed from both ends
    and tabs and newlines dropped anywhere, so `java&#x09;script:` is `javascript`.
    """
    if decode:
        url = html.unescape(url)
    match = _SCHEME.match(url.strip(_URL_ENDS).translate(_URL_DROPPED))
    return match.group(1).lower() if match else ""


def _raw_value(tag_text: str, name: str) -> str | None:
    """The value of attribute `name` as the start tag `tag_text` spells it (entities kept)."""
    found = re.search(
        r"[\s/]" + re.escape(name) + r"\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", tag_text, re.I
    )
    return found.group(1).strip("\"'") if found else None


@dataclass(frozen=True)
class Problem:
    """One piece of active HTML: what to look for in the source, and what it is."""

    needle: str
    message: str


class _Scanner(HTMLParser):
    def __init__(self, elements: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.elements = elements
        self.problems: list[Problem] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.elements and tag in ACTIVE_ELEMENTS:
            self.problems.append(Problem(f"<{tag}", f"a <{tag}> element"))
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(Problem(name, f"an event handler ({name}=) on <{tag}>"))
            elif name in URL_ATTRIBUTES and value is not None:
                scheme = scheme_of(value, decode=False)
                if scheme in UNSAFE_SCHEMES:
                    raw = _raw_value(self.get_starttag_text() or "", name) or value
                    self.problems.append(Problem(raw, f"a {scheme}: URL in {name}= of <{tag}>"))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def locate(text: str, found: list[Problem]) -> list[tuple[int, int, str]]:
    """(line, column, message) of each problem in the Markdown source `text`.

    The n-th problem with a needle is put at the n-th place that needle appears
    in the source, in any case; one the source does not show is put at line 1.
    """
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    places: dict[str, Iterator[re.Match[str]]] = {}
    out = []
    for problem in found:
        if problem.needle not in places:
            places[problem.needle] = re.finditer(re.escape(problem.needle), text, re.IGNORECASE)
        match = next(places[problem.needle], None)
        if match is None:
            out.append((1, 1, problem.message))
            continue
        line = bisect.bisect_right(line_starts, match.start())
        out.append((line, match.start() - line_starts[line - 1] + 1, problem.message))
    return out


def problems(content: str, elements: bool = True) -> list[Problem]:
    """The active HTML of a page's content; with `elements` False, only attributes."""
    if not _WORTH_PARSING.search(content):
        return []
    scanner = _Scanner(elements)
    scanner.feed(content)
    scanner.close()
    return scanner.problems
