"""Rendered HTML read element by element: the one HTMLParser base and the one void-element set.

Every reader of a rendered page (its code blocks, its block map, its prose)
subclasses `ElementParser`, so all of them agree on which elements have no end
tag: one that did not would count an `<img>` or a `<track>` as still open and
misplace everything after it.
"""

from __future__ import annotations

from html.parser import HTMLParser

VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    | {"track", "wbr", "param"}
)
"""The elements HTML never closes (HTML's void elements, and `param` of older pages)."""

Attrs = list[tuple[str, str | None]]


class ElementParser(HTMLParser):
    """Character references decoded; `depth` is the number of open elements (void ones never open).

    Subclasses override `opened` (called with `depth` counting the new
    element), `closed` (called while `depth` still counts it) and `void`, and
    `handle_data` or `handle_comment` as they need.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: Attrs) -> None:
        """Dispatch to `void`, or count the element open and call `opened`."""
        if tag in VOID:
            self.void(tag, attrs)
            return
        self.depth += 1
        self.opened(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        """Call `closed` and count the element closed (a void element's end tag is ignored)."""
        if tag in VOID:
            return
        self.closed(tag)
        self.depth -= 1

    def opened(self, tag: str, attrs: Attrs) -> None:
        """An element that has an end opens; `depth` counts it."""

    def closed(self, tag: str) -> None:
        """An element ends; `depth` still counts it."""

    def void(self, tag: str, attrs: Attrs) -> None:
        """A void element (`<br>`, `<img>`): it has no content and no end."""
