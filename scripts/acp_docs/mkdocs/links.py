"""Each link of a page as its author wrote it, and the site's files, for the checks' hooks.

A tree processor records every `href` and `src` of the page being rendered
before MkDocs rewrites them; `record` places each in the page's Markdown, and
`site_files` tells, once every page is rendered, what the site holds and the
ids each page has. The judging is a check's (`acp_docs.checks.links`).
"""

from __future__ import annotations

from typing import Any

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.structure.files import Files

from acp_docs.checks.registry import SiteFile, WrittenLink
from acp_docs.mkdocs.state import BuildState, Link
from acp_docs.sources.lines import LineIndex


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


def record(state: BuildState, page: Any, shown: str, text: str) -> tuple[WrittenLink, ...]:
    """The links the page's rendering recorded, each at its place in the page's Markdown;
    kept for the checks' `site` hooks (`BuildState.links_of`)."""
    places = _Places(text)
    written = tuple(
        WrittenLink(link.url, *places.position(link.url, link.occurrence)) for link in state.links
    )
    state.links.clear()
    state.links_of[page.file.src_uri] = (shown, written)
    return written


def site_files(state: BuildState, files: Files) -> dict[str, SiteFile]:
    """Every file of the site, as the checks' `site` hooks see it."""
    out = {}
    for file in files:
        page = file.page if file.is_documentation_page() else None
        ids = getattr(page, "present_anchor_ids", None) if page is not None else None
        path = state.shown(file) if page is not None else file.src_uri
        anchors = frozenset(ids) if ids is not None else None
        out[file.src_uri] = SiteFile(path, file.is_documentation_page(), anchors)
    return out
