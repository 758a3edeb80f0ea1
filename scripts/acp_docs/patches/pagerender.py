"""Pages rendered once for what they are rendered from, kept in memory and in the cache folder.

Rendering a page's Markdown is most of what a build does with it, and most
pages are the same from one build to the next: a save under `mkdocs serve`,
the next `acp-docs check`, the test suite's many builds of similar checkouts.
A page's rendering depends on:

- its final Markdown (after the plugin expanded its markers), its address and
  whether it is excluded from the site;
- the Markdown configuration, the plugins and their options, the validation settings, the
  installed versions of what renders and the engine's own code (`context_key`);
- the site's files it links to. MkDocs looks each one up while it renders; the
  lookups are noted (`_Lookups`) with what each found (address, exclusion),
  and a kept rendering is taken again only when every one finds the same
  today. A page does not depend on the files it never names.

With the first two as the key, the page's HTML, table of contents, title,
anchors, the links it recorded (`acp_docs.mkdocs.links`), MkDocs's links to
anchors and the anchors it registered with autorefs are restored instead of
rendered: from memory while serving, else from the cache folder (`pages`,
the 400 most recently used). A rendering that logged anything (a MkDocs
link message, a warning) is not kept, so every message of a build is said
again by the next one. A damaged cache file is rendered again.

This relies on MkDocs's `Page.render` (the fields it sets, the lookups it
makes through `Files.get_file_from_path`) and, where autorefs runs, on its
`register_anchor`: hence the pinned targets (`PATCH`, `ANCHORS`); if one
changes, pages are rendered as without this and the build says so. It is
installed on each page object by the plugin; no class is changed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict
from importlib import metadata
from typing import Any

from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents

from acp_docs.core import cachedir
from acp_docs.patches.pin import Patch, Target

PINNED = {"mkdocs": "1.6.1"}

PAGE_RENDER = Target(
    "mkdocs.structure.pages.Page.render",
    lambda: Page.render,
    "320529348f7a8af152073d0a3ab02960ccce91f9204716144e51b20931983cc6",
)
LOOKUPS = Target(
    "mkdocs.structure.pages._RelativePathTreeprocessor.path_to_url",
    lambda: sys.modules["mkdocs.structure.pages"]._RelativePathTreeprocessor.path_to_url,
    "e70ebc9605514fabbcc58a1fb2c5bcf7059ef2a15911cf91cbe465587ccf73e7",
)
PATCH = Patch("pagerender", __name__, PINNED, (PAGE_RENDER, LOOKUPS))


def _autorefs() -> Any:
    """autorefs' plugin class, imported only when a site runs it."""
    from mkdocs_autorefs import AutorefsPlugin

    return AutorefsPlugin


REGISTER_ANCHOR = Target(
    "mkdocs_autorefs.AutorefsPlugin.register_anchor",
    lambda: _autorefs().register_anchor,
    "54fb9acd7d62b6c17a9c233989b7eaec1beda3236e1ab81eed8b13bc6b77b958",
)
ANCHORS = Patch("pagerender-autorefs", __name__, {"mkdocs-autorefs": "1.4.5"}, (REGISTER_ANCHOR,))
"""Checked only for a site that runs autorefs: the anchors a rendering registers are replayed."""

FORMAT = 2
"""The layout of a kept page; a change makes every kept page a miss."""
RENDERERS = (
    "mkdocs",
    "mkdocstrings",
    "mkdocstrings-python",
    "griffelib",
    "mkdocs-autorefs",
    "markdown",
    "pymdown-extensions",
    "pygments",
)
SLOT = "\x00"
"""Stands for the volatile word in a kept page; a page whose Markdown holds it is never kept."""
_MKDOCS_PAGES = logging.getLogger("mkdocs.structure.pages")


@functools.cache
def renderer_versions() -> str:
    """The installed version of each distribution that renders a page, and Python's."""
    versions = []
    for name in RENDERERS:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=none")
    return ",".join(versions) + ":py{}.{}".format(*sys.version_info[:2])


def context_key(config: Any, engine: str) -> str:
    """What every page's rendering depends on besides its Markdown and the files it names."""
    extensions = [
        item if isinstance(item, str) else type(item).__qualname__
        for item in config["markdown_extensions"]
    ]
    plugins = config["plugins"].items()  # their options: autorefs' change what it registers
    settings = (
        extensions,
        config["mdx_configs"],
        config["use_directory_urls"],
        config["validation"],
        [(name, repr(dict(getattr(plugin, "config", None) or {}))) for name, plugin in plugins],
        renderer_versions(),
        engine,
        FORMAT,
    )
    return hashlib.sha256(repr(settings).encode()).hexdigest()


def _found(file: Any) -> list[Any] | None:
    if file is None:
        return None
    inclusion = getattr(file, "inclusion", None)
    return [file.url, bool(inclusion.is_excluded()) if inclusion is not None else False]


class _Lookups:
    """The site's files as a rendering sees them: each file it looks up is noted."""

    def __init__(self, files: Any) -> None:
        self._files = files
        self.seen: dict[str, list[Any] | None] = {}

    def get_file_from_path(self, path: str) -> Any:
        found = self._files.get_file_from_path(path)
        self.seen[path] = _found(found)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._files, name)


class _Heard(logging.Handler):
    """Counts the messages logged while a page renders."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


@contextlib.contextmanager
def _listening() -> Iterator[_Heard]:
    heard = _Heard()
    loggers = (logging.getLogger(), logging.getLogger("mkdocs"))  # "mkdocs" does not propagate
    for logger in loggers:
        logger.addHandler(heard)
    try:
        yield heard
    finally:
        for logger in loggers:
            logger.removeHandler(heard)


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


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _well_formed(data: Any) -> bool:
    """True for a kept page as `RenderCache` writes it (a cache file may hold anything)."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("content"), str)
        and isinstance(data.get("toc"), list)
        and (data.get("title") is None or isinstance(data.get("title"), str))
        and _strings(data.get("anchors"))
        and isinstance(data.get("links"), list)
        and all(isinstance(x, dict) for x in data["links"])
        and isinstance(data.get("registered"), list)
        and all(isinstance(r, list) and len(r) == 4 for r in data["registered"])
        and isinstance(data.get("lookups"), dict)
        and all(found is None or isinstance(found, list) for found in data["lookups"].values())
        and (data.get("to_anchors") is None or isinstance(data.get("to_anchors"), dict))
    )


class RenderCache:
    """Kept renderings: the latest of each page in memory, and in the cache folder `kind`."""

    def __init__(self, kind: str = "pages", kept: int = 400) -> None:
        self.kind = kind
        self.kept = kept
        self._held: dict[str, tuple[str, dict[str, Any]]] = {}

    def install(
        self,
        page: Any,
        context: str,
        links: list[Any],
        link_type: Callable[..., Any],
        autorefs: Any = None,
        seen: Callable[[], Any] | None = None,
        volatile: str = "",
    ) -> None:
        """Make `page.render` restore the kept rendering of `page` when there is one.

        `context` is what the page's rendering depends on besides its Markdown,
        address and files (`context_key`); `links` is the plugin's link recorder
        (`link_type` rebuilds one), `autorefs` the build's autorefs plugin (or
        None), `seen` is called when a rendering is restored. `volatile` is a
        word made anew by each process (the diagrams' placeholders hold one): it
        is kept as `SLOT` and put back on restoring, so it does not change the key.
        """
        original = page.render
        source = page.file.src_uri

        def render(config: Any, files: Any) -> None:
            markdown = page.markdown or ""
            if SLOT in markdown:  # a page cannot have its text read as the volatile word
                original(config, files)
                return
            inclusion = getattr(page.file, "inclusion", None)
            excluded = bool(inclusion.is_excluded()) if inclusion is not None else False
            key = hashlib.sha256(
                repr(
                    (
                        context,
                        page.file.url,
                        excluded,
                        _MKDOCS_PAGES.getEffectiveLevel(),  # which messages a rendering says
                        markdown.replace(volatile, SLOT) if volatile else markdown,
                    )
                ).encode()
            ).hexdigest()
            data = self._find(source, key, files)
            first = len(links)
            if data is not None:
                try:
                    _restore(page, data, files, links, link_type, autorefs, volatile)
                except (KeyError, TypeError, ValueError):
                    del links[first:]  # a kept page that does not restore whole: rendered
                else:
                    if seen is not None:
                        seen()
                    return
            registered: list[list[Any]] = []
            lookups = _Lookups(files)
            if autorefs is not None:
                register = autorefs.register_anchor

                def record(on: Any, identifier: str, anchor: str | None = None, **kw: Any) -> None:
                    registered.append(
                        [identifier, anchor, kw.get("title"), kw.get("primary", True)]
                    )
                    register(on, identifier, anchor, **kw)

                autorefs.register_anchor = record
            try:
                with _listening() as heard:
                    original(config, lookups if files is not None else files)
            finally:
                if autorefs is not None:
                    del autorefs.register_anchor  # the class's method again
            if heard.count:
                self._held.pop(source, None)
                return
            to_anchors = getattr(page, "links_to_anchors", None)
            content = page.content or ""
            kept = {
                "content": content.replace(volatile, SLOT) if volatile else content,
                "toc": _toc_out(list(page.toc.items)) if page.toc is not None else [],
                "title": getattr(page, "_title_from_render", None),
                "anchors": sorted(page.present_anchor_ids or ()),
                "links": [asdict(link) for link in links[first:]],
                "registered": registered,
                "lookups": lookups.seen,
                "to_anchors": None
                if to_anchors is None
                else {file.src_uri: dict(named) for file, named in to_anchors.items()},
            }
            self._keep(source, key, kept)

        page.render = render

    def _find(self, source: str, key: str, files: Any) -> dict[str, Any] | None:
        held = self._held.get(source)
        data = held[1] if held is not None and held[0] == key else self._read(key)
        if data is None:
            return None
        for path, found in data["lookups"].items():
            if files is None or _found(files.get_file_from_path(path)) != found:
                return None
        self._held[source] = (key, data)
        return data

    def _read(self, key: str) -> dict[str, Any] | None:
        folder = cachedir.cache_dir(self.kind)
        data = folder.read_json(f"{key}.json") if folder else None
        return data if _well_formed(data) else None

    def _keep(self, source: str, key: str, data: dict[str, Any]) -> None:
        self._held[source] = (key, data)
        folder = cachedir.cache_dir(self.kind)
        if folder is None:
            return
        folder.write_json(f"{key}.json", data)
        with contextlib.suppress(OSError):
            if len(os.listdir(folder.path)) > self.kept + self.kept // 4:  # now and then
                folder.keep_latest(self.kept, ".json")


def _restore(
    page: Any,
    data: dict[str, Any],
    files: Any,
    links: list[Any],
    link_type: Callable[..., Any],
    autorefs: Any,
    volatile: str,
) -> None:
    page.content = data["content"].replace(SLOT, volatile) if volatile else data["content"]
    page.toc = TableOfContents(_toc_in(data["toc"]))
    page._title_from_render = data["title"]
    page.present_anchor_ids = set(data["anchors"])
    to_anchors = data["to_anchors"]
    if to_anchors is not None and _MKDOCS_PAGES.getEffectiveLevel() > logging.DEBUG:
        targets = ((files.get_file_from_path(path), named) for path, named in to_anchors.items())
        page.links_to_anchors = {file: dict(named) for file, named in targets if file is not None}
    links.extend(link_type(**item) for item in data["links"])
    if autorefs is not None:
        for identifier, anchor, title, primary in data["registered"]:
            autorefs.register_anchor(page, identifier, anchor, title=title, primary=primary)
