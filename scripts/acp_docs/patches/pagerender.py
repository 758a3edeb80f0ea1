"""Pages rendered while serving, reused while everything they were rendered from is unchanged.

`mkdocs serve` renders every page's Markdown again after each save; most of
them did not change. A page's HTML depends only on its final Markdown (after
the plugin expanded its markers), its own address, the site's files and
their addresses, and the Markdown configuration, so that is the key: a page
whose key is unchanged gets its last HTML, table of contents, anchors and
recorded links back without rendering. Only the latest rendering of each page
is kept. The plugin installs this only while serving, on each page object (no
class is changed), and only when MkDocs's `Page.render` is the one whose
fields (`content`, `toc`, `_title_from_render`, `present_anchor_ids`,
`links_to_anchors`) this restores (`PATCH`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from mkdocs.structure.pages import Page

from acp_docs.patches.pin import Patch, Target

PINNED = {"mkdocs": "1.6.1"}

PATCH = Patch(
    "pagerender",
    __name__,
    PINNED,
    (
        Target(
            "mkdocs.structure.pages.Page.render",
            lambda: Page.render,
            "320529348f7a8af152073d0a3ab02960ccce91f9204716144e51b20931983cc6",
        ),
    ),
)


@dataclass(frozen=True)
class Rendered:
    """One page's rendering and what it was rendered from."""

    key: Hashable
    content: str | None
    toc: Any
    title: str | None
    anchors: frozenset[str]
    links: tuple[Any, ...]


def context_key(config: Any, files: Any) -> Hashable:
    """What every page's rendering depends on besides its own Markdown: files and settings."""
    extensions = tuple(
        item if isinstance(item, str) else type(item).__qualname__
        for item in config["markdown_extensions"]
    )
    settings = repr((extensions, config["mdx_configs"], config["use_directory_urls"]))
    return settings, tuple(sorted((f.src_uri, f.url) for f in files))


class RenderCache:
    """The latest rendering of each page, by source path."""

    def __init__(self) -> None:
        self._held: dict[str, Rendered] = {}

    def install(self, page: Any, context: Hashable, links: list[Any]) -> None:
        """Make `page.render` reuse the last rendering when nothing it depends on changed.

        `links` is the list the plugin's link recorder appends to while a page
        renders; a reused rendering appends the links it recorded then.
        """
        original = page.render
        source = page.file.src_uri

        def render(config: Any, files: Any) -> None:
            key = (page.file.url, page.markdown, context)
            held = self._held.get(source)
            if held is not None and held.key == key:
                page.content = held.content
                page.toc = held.toc
                page._title_from_render = held.title
                page.present_anchor_ids = set(held.anchors)
                page.links_to_anchors = {}
                links.extend(held.links)
                return
            first = len(links)
            original(config, files)
            self._held[source] = Rendered(
                key,
                page.content,
                page.toc,
                getattr(page, "_title_from_render", None),
                frozenset(page.present_anchor_ids or ()),
                tuple(links[first:]),
            )

        page.render = render
