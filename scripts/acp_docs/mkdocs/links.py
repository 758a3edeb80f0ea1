"""The `links` check in the build: each link as the author wrote it, its target and its anchor.

A tree processor records every `href` and `src` of the page being rendered
before MkDocs rewrites them; `check_page` then judges each against the site's
files, and `check_anchors`, once every page is rendered, each anchor against
the ids its target page has.
"""

from __future__ import annotations

import html
import posixpath
from typing import Any
from urllib.parse import unquote, urlsplit

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.structure.files import Files

from acp_docs.core.findings import Finding
from acp_docs.mkdocs.state import Anchor, BuildState, Link
from acp_docs.policy import sanitize
from acp_docs.sources.lines import LineIndex

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
"""The only schemes a link may use; anything else (javascript:, data:, file:) is a finding."""


class _LinkRecorder(Treeprocessor):
    """Records every `href` and `src` of the page being rendered, as the author wrote it."""

    def __init__(self, md: Markdown, sink: list[Link]) -> None:
        super().__init__(md)
        self.sink = sink

    def run(self, root: Any) -> None:
        seen: dict[str, int] = {}
        for element in root.iter():
            key = "href" if element.tag == "a" else "src" if element.tag == "img" else None
            url = element.get(key) if key else None
            if url:
                seen[url] = seen.get(url, 0) + 1
                self.sink.append(Link(url, seen[url]))


class LinkExtension(Extension):
    """The Markdown extension that records a page's links into `sink`."""

    def __init__(self, sink: list[Link]) -> None:
        super().__init__()
        self.sink = sink

    def extendMarkdown(self, md: Markdown) -> None:
        # Above MkDocs's "relpath" (priority 0), which rewrites the links.
        md.treeprocessors.register(_LinkRecorder(md, self.sink), "acp_docs_links", 0.5)


class _Places:
    """Where each URL occurs in one page's source, found once per URL (linear in the page)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = LineIndex(text)
        self.of: dict[str, list[int]] = {}

    def position(self, url: str, occurrence: int) -> tuple[int, int]:
        """Line and column of the `occurrence`-th `url` in the page ((1, 1) if none)."""
        places = self.of.get(url)
        if places is None:
            places = self.of[url] = _starts(self.text, url)
        if not 0 < occurrence <= len(places):
            return 1, 1
        return self.lines.at(places[occurrence - 1])


def _starts(text: str, needle: str) -> list[int]:
    """Where `needle` starts in `text`, left to right, without overlaps (none when empty)."""
    found: list[int] = []
    at = text.find(needle) if needle else -1
    while at != -1:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def check_page(state: BuildState, page: Any, files: Files, shown: str, text: str) -> None:
    """Judge every link the page's rendering recorded; anchors wait for `check_anchors`."""
    places = _Places(text)
    for link in list(state.links):
        _check_link(state, page, files, shown, places, link)
    state.links.clear()


def _check_link(
    state: BuildState, page: Any, files: Files, shown: str, places: _Places, link: Link
) -> None:
    url = link.url
    scheme, netloc, path, _query, anchor = urlsplit(url)
    line, col = places.position(url, link.occurrence)

    def find(message: str, rule: str) -> None:
        state.report(Finding(shown, line, col, "links", message, f"links/{rule}"))

    if "\x02" in url:
        return
    read = sanitize.scheme_of(html.unescape(url))  # java&#x09;script: is javascript:
    if read and read not in SAFE_SCHEMES:
        find(
            f"link {url[:80]!r}: the {read}: scheme is not allowed; use https:, http:,"
            " mailto: or a relative link",
            "scheme",
        )
        return
    if scheme or netloc:
        return
    if url.startswith(("/", "\\")):
        find(f"absolute link {url!r}: link to the page's Markdown file relatively", "absolute")
        return
    if not path:
        if anchor:
            state.anchors.append(Anchor(page, page.file, anchor, url, line, col))
        return
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), unquote(path)))
    if target.startswith("../") or target == "..":
        find(f"link {url!r} leaves the site", "outside")
        return
    found = files.get_file_from_path(target)
    if found is None:
        kind = "not a file" if not posixpath.splitext(path)[1] else "not found"
        find(f"link {url!r}: {target!r} is {kind} among the site's files", "not-found")
    elif anchor and found.page is not None:
        state.anchors.append(Anchor(page, found, anchor, url, line, col))


def check_anchors(state: BuildState) -> None:
    """Every page is rendered: each anchor a link points at must be an id of its target page."""
    for item in state.anchors:
        ids = getattr(item.target.page, "present_anchor_ids", None)
        if ids is None or item.anchor in ids:
            continue
        where = "this page" if item.target is item.page.file else item.target.src_uri
        state.report(
            Finding(
                state.shown(item.page.file),
                item.line,
                item.col,
                "links",
                f"link {item.url!r}: {where} has no anchor #{item.anchor}",
                "links/anchor",
            )
        )
