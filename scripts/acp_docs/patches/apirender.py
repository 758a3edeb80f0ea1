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

This relies on MkDocs's `Page.render` (the fields it sets) and on
mkdocstrings registering its anchors through autorefs' `register_anchor`,
hence the pinned targets: if one changes, the cache stands down (each page is
rendered, as without it) and the build says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from mkdocs.structure.toc import AnchorLink, TableOfContents

from acp_docs.core import cachedir, memo
from acp_docs.core.errors import UsageError
from acp_docs.patches import pagerender
from acp_docs.patches.pin import Patch, Target
from acp_docs.sources.textfile import write_atomic

PINNED = {"mkdocs": "1.6.1", "mkdocstrings": "1.0.8", "mkdocs-autorefs": "1.4.5"}


def _autorefs() -> Any:
    """autorefs' plugin class, imported only when a pin is checked (a site may have no API)."""
    from mkdocs_autorefs import AutorefsPlugin

    return AutorefsPlugin


def _mkdocstrings() -> Any:
    import mkdocstrings

    return mkdocstrings


PATCH = Patch(
    "apirender",
    __name__,
    PINNED,
    (
        pagerender.PATCH.targets[0],  # MkDocs's Page.render, the fields it sets
        Target(
            "mkdocs_autorefs.AutorefsPlugin.register_anchor",
            lambda: _autorefs().register_anchor,
            "54fb9acd7d62b6c17a9c233989b7eaec1beda3236e1ab81eed8b13bc6b77b958",
        ),
        Target(
            "mkdocstrings.AutoDocProcessor._process_headings",
            lambda: _mkdocstrings().AutoDocProcessor._process_headings,
            "ca9375960a643f42cbba4e4962a57ff008206b7cf89477727d62005a7144fa7f",
        ),
    ),
)

FORMAT = 1
"""The layout of a kept page; a change makes every kept page a miss."""
_RENDERERS = (
    "mkdocs",
    "mkdocstrings",
    "mkdocstrings-python",
    "griffelib",
    "mkdocs-autorefs",
    "markdown",
    "pymdown-extensions",
    "pygments",
)
_KEPT = 64
"""Kept pages in the cache folder; the oldest go first."""


def sources_key(package: Path, root: Path) -> str:
    """A digest of the package's Python files (names and bytes) and of what renders them."""
    files = sorted(
        path
        for path in package.rglob("*.py")
        if not any(part.startswith(".") for part in path.relative_to(package).parts)
    )
    versions = []
    for name in _RENDERERS:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=none")
    python = "{}.{}".format(*sys.version_info[:2])
    return f"{memo.digest_of(files, root)}:{','.join(versions)}:py{python}:{FORMAT}"


def _settings(config: Any) -> str:
    """The Markdown configuration and mkdocstrings' options, as they count for a rendering."""
    extensions = [
        item if isinstance(item, str) else type(item).__qualname__
        for item in config["markdown_extensions"]
    ]
    plugin = config["plugins"].get("mkdocstrings")
    options = plugin.config if plugin is not None else None
    return repr((extensions, config["mdx_configs"], config["use_directory_urls"], options))


def _toc_out(items: list[Any]) -> list[dict[str, Any]]:
    return [
        {"title": i.title, "id": i.id, "level": i.level, "children": _toc_out(i.children)}
        for i in items
    ]


def _toc_in(items: list[dict[str, Any]]) -> list[AnchorLink]:
    out = []
    for item in items:
        link = AnchorLink(item["title"], item["id"], item["level"])
        link.children = _toc_in(item["children"])
        out.append(link)
    return out


def _well_formed(data: Any) -> bool:
    """True for a kept page as `_keep` writes it (a cache file may hold anything)."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("content"), str)
        and isinstance(data.get("toc"), list)
        and isinstance(data.get("anchors"), list)
        and all(isinstance(a, str) for a in data["anchors"])
        and isinstance(data.get("links"), list)
        and all(isinstance(x, dict) for x in data["links"])
        and isinstance(data.get("registered"), list)
        and all(isinstance(r, list) and len(r) == 4 for r in data["registered"])
        and (data.get("title") is None or isinstance(data.get("title"), str))
    )


class ApiRenders:
    """Kept renderings of the API pages: in memory (serving) and in the cache folder."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[str, dict[str, Any]]] = {}

    def install(
        self,
        page: Any,
        sources: str,
        links: list[Any],
        link_type: Callable[..., Any],
        autorefs: Any,
        seen: Callable[[], Any],
    ) -> None:
        """Make `page.render` restore the kept rendering of `page` when there is one.

        `links` is the plugin's link recorder (`link_type` rebuilds one), `autorefs`
        the build's autorefs plugin, `seen` tells mkdocstrings its handler is in use
        (its stylesheet is written only for handlers that rendered something).
        """
        original = page.render
        source = page.file.src_uri

        def render(config: Any, files: Any) -> None:
            key = hashlib.sha256(
                repr((sources, page.file.url, page.markdown, _settings(config))).encode()
            ).hexdigest()
            data = self._find(source, key)
            if data is not None:
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    _restore(page, data, links, link_type, autorefs)
                    seen()
                    return
            first = len(links)
            registered: list[list[Any]] = []
            register = autorefs.register_anchor

            def record(on: Any, identifier: str, anchor: str | None = None, **kw: Any) -> None:
                registered.append([identifier, anchor, kw.get("title"), kw.get("primary", True)])
                register(on, identifier, anchor, **kw)

            autorefs.register_anchor = record
            try:
                original(config, files)
            finally:
                del autorefs.register_anchor  # the class's method again
            kept = {
                "content": page.content,
                "toc": _toc_out(list(page.toc.items)),
                "title": getattr(page, "_title_from_render", None),
                "anchors": sorted(page.present_anchor_ids or ()),
                "links": [asdict(link) for link in links[first:]],
                "registered": registered,
            }
            self._keep(source, key, kept)

        page.render = render

    def _find(self, source: str, key: str) -> dict[str, Any] | None:
        held = self._held.get(source)
        if held is not None and held[0] == key:
            return held[1]
        folder = cachedir.cache_dir("api-pages")
        path = folder / f"{key}.json" if folder else None
        if path is None or path.is_symlink() or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not _well_formed(data):
            return None
        with contextlib.suppress(OSError):
            path.touch()  # in use: the last to be cleared away
        self._held[source] = (key, data)
        return data

    def _keep(self, source: str, key: str, data: dict[str, Any]) -> None:
        self._held[source] = (key, data)
        folder = cachedir.cache_dir("api-pages")
        if folder is None:
            return
        try:
            write_atomic(folder / f"{key}.json", json.dumps(data))
            kept = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
            for old in kept[:-_KEPT]:
                old.unlink(missing_ok=True)
        except (OSError, UsageError):
            pass  # a cache only saves time


def _restore(
    page: Any,
    data: dict[str, Any],
    links: list[Any],
    link_type: Callable[..., Any],
    autorefs: Any,
) -> None:
    page.content = data["content"]
    page.toc = TableOfContents(_toc_in(data["toc"]))
    page._title_from_render = data["title"]
    page.present_anchor_ids = set(data["anchors"])
    page.links_to_anchors = {}
    links.extend(link_type(**item) for item in data["links"])
    for identifier, anchor, title, primary in data["registered"]:
        autorefs.register_anchor(page, identifier, anchor, title=title, primary=primary)
