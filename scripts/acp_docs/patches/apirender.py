"""API pages rendered once for the bytes of their sources, kept in the cache folder.

mkdocstrings renders the API reference (`acp_docs.mkdocs.apipages`) from the
package's source on every build; that is most of a build's time. A page's
rendering depends only on its Markdown (one `:::` instruction), its address,
the Markdown configuration, the mkdocstrings options, the installed versions
of what renders it, and the package's Python files. With that as the key,
each API page is rendered once and kept (in the cache folder, and in memory
while serving); a later build, `acp-docs check` or save under `mkdocs serve`
restores the page's HTML, table of contents, title, anchors and recorded
links, and registers again with autorefs every anchor the rendering had
registered, so cross-references resolve as after a rendering.

The keeping is `acp_docs.patches.pagerender`'s, with the package's sources
added to the build's key (`pagerender.context_key`), in the cache folder `api-pages` (the 64
most recently used). This relies on MkDocs's `Page.render` and on mkdocstrings
registering its anchors through autorefs' `register_anchor`, hence the pinned
targets: if one changes, the cache stands down (each page is rendered, as
without it) and the build says so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp_docs.core import memo
from acp_docs.patches import pagerender
from acp_docs.patches.pin import Patch, Target

PINNED = {"mkdocs": "1.6.1", "mkdocstrings": "1.0.8", "mkdocs-autorefs": "1.4.5"}


def _mkdocstrings() -> Any:
    import mkdocstrings

    return mkdocstrings


PATCH = Patch(
    "apirender",
    __name__,
    PINNED,
    (
        *pagerender.PATCH.targets,  # MkDocs's Page.render: the fields it sets, its lookups
        pagerender.REGISTER_ANCHOR,
        Target(
            "mkdocstrings.AutoDocProcessor._process_headings",
            lambda: _mkdocstrings().AutoDocProcessor._process_headings,
            "ca9375960a643f42cbba4e4962a57ff008206b7cf89477727d62005a7144fa7f",
        ),
    ),
)

FORMAT = 2
"""The layout of the sources' key; a change makes every kept API page a miss."""


def sources_key(package: Path, root: Path) -> str:
    """A digest of the package's Python files (names and bytes); what renders them is in the
    build's `pagerender.context_key`."""
    files = sorted(
        path
        for path in package.rglob("*.py")
        if not any(part.startswith(".") for part in path.relative_to(package).parts)
    )
    return f"{memo.digest_of(files, root)}:{FORMAT}"


class ApiRenders(pagerender.RenderCache):
    """Kept renderings of the API pages: in memory (serving) and in the cache folder."""

    def __init__(self) -> None:
        super().__init__("api-pages", kept=64)

    def install_api(
        self,
        page: Any,
        sources: str,
        context: str,
        links: list[Any],
        link_type: Callable[..., Any],
        autorefs: Any,
        seen: Callable[[], Any],
    ) -> None:
        """Make `page.render` restore the kept rendering of `page` for these `sources`.

        `context` is the build's `pagerender.context_key` (settings, the plugins'
        options, mkdocstrings' among them, versions, engine); `links` is the
        plugin's link recorder (`link_type` rebuilds one), `autorefs` the build's
        autorefs plugin, `seen` tells mkdocstrings its handler is in use (its
        stylesheet is written only for handlers that rendered something).
        """
        key = hashlib.sha256(f"{sources}:{context}".encode()).hexdigest()
        self.install(page, key, links, link_type, autorefs, seen)
