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

import re
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
_UNSAFE_SCHEME = re.compile(r"(?i)(?:javascript|vbscript|data):")
_IGNORED_IN_SCHEME = re.compile(r"[\x00-\x20\x7f]")
_WORTH_PARSING = re.compile(
    r"(?i)<(?:" + "|".join(sorted(ACTIVE_ELEMENTS)) + r")\b|[\s/]on[a-z]+\s*=|script:|data:"
    r"|&(?:#|tab;|newline;|colon;)"
)
"""A quick look that every page this module could flag passes; most pages do not."""


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
                cleaned = _IGNORED_IN_SCHEME.sub("", value)
                scheme = _UNSAFE_SCHEME.match(cleaned)
                if scheme:
                    self.problems.append(
                        Problem(name, f"a {scheme.group(0).lower()} URL in {name}= of <{tag}>")
                    )

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def locate(text: str, found: list[Problem]) -> list[tuple[int, int, str]]:
    """(line, column, message) of each problem in the Markdown source `text`.

    The n-th problem with a needle is put at the n-th place that needle appears
    in the source, in any case; one the source does not show is put at line 1.
    """
    seen: dict[str, int] = {}
    out = []
    for problem in found:
        index = seen.get(problem.needle, 0)
        seen[problem.needle] = index + 1
        places = re.finditer(re.escape(problem.needle), text, re.IGNORECASE)
        place = next((m.start() for n, m in enumerate(places) if n == index), None)
        if place is None:
            out.append((1, 1, problem.message))
            continue
        line = text.count("\n", 0, place) + 1
        out.append((line, place - text.rfind("\n", 0, place), problem.message))
    return out


def problems(html: str, elements: bool = True) -> list[Problem]:
    """The active HTML of a page's content; with `elements` False, only attributes."""
    if not _WORTH_PARSING.search(html):
        return []
    scanner = _Scanner(elements)
    scanner.feed(html)
    scanner.close()
    return scanner.problems
