"""mkdocs-llmstxt writes a page's text as Markdown text, never as markup, and keeps the text
alternative of each diagram.

The plugin converts each page's published HTML to Markdown with one
module-level markdownify converter (`_converter`), made without
`escape_misc`: the text `<img src=x onerror=...>`, which the HTML page shows
escaped, would come out as raw HTML in the page's Markdown and in
`llms-full.txt`, and `[x](javascript:...)` written as text would come out
as a link. For one build the plugin converts with the same options and
`escape_misc` on, so every character Markdown would read as markup is
escaped in text (code keeps its characters).

Its `autoclean` removes every SVG, and with it a diagram's text alternative
(the `<title>` and `<desc>` the diagrams package writes from `accTitle` and
`accDescr`). Before it runs, each diagram (`figure.acp-diagram`) is replaced
by a paragraph holding that text, so an agent reads what a screen reader
reads. `acp_docs.policy.agentfiles` then proves the output holds no raw HTML
and no link of another scheme.

The conversion of a page is kept in the cache folder (`remembering`), keyed by
everything it reads: a warm build converts only the pages whose HTML changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from acp_docs.core import cachedir, memo
from acp_docs.patches.pin import Patch, Target, swapped

PINNED = {"mkdocs-llmstxt": "0.5.1", "markdownify": "1.2.3"}
CACHE_KIND = "agent-pages"
"""The cache folder's entries of each page's Markdown for agents."""
KEPT = 2000
"""Entries kept after a build: those used last (a site has a few hundred pages)."""
DIAGRAM = "acp-diagram"
"""The class of the figure that holds a diagram (`acp_docs.diagrams.publish`)."""


def _module() -> Any:
    import mkdocs_llmstxt._internal.plugin as plugin

    return plugin


PATCH = Patch(
    "agentmarkdown",
    __name__,
    PINNED,
    (
        Target(
            "mkdocs_llmstxt._internal.plugin._generate_page_markdown",
            lambda: _module()._generate_page_markdown,
            "e8f4b6a5791196da1d12308352081c78110f6d88781087e618c1a636bbd562dc",
        ),
        Target(
            "mkdocs_llmstxt._internal.preprocess.autoclean",
            lambda: _module().autoclean,
            "b092053ec35ee4c3e7a4f7a08e901bc00925b434bf76845d965d2b40812b9e20",
        ),
    ),
)


def diagrams_as_text(soup: Any) -> None:
    """Replace each diagram's figure by a paragraph of its title and description."""
    for figure in soup.find_all("figure", class_=DIAGRAM):
        parts = [
            " ".join(node.get_text(" ").split())
            for node in (figure.find("title"), figure.find("desc"))
            if node is not None
        ]
        paragraph = soup.new_tag("p")
        paragraph.string = "Diagram: " + ". ".join(p.rstrip(".") for p in parts if p) + "."
        figure.replace_with(paragraph)


CONVERSION = (
    "mkdocs-llmstxt",
    "markdownify",
    "beautifulsoup4",
    "soupsieve",
    "mdformat",
    "mdformat-tables",
    "markdown-it-py",
    "wcwidth",
)
"""The packages whose code converts a page (with Python's own `html.parser`)."""


def versions(names: tuple[str, ...]) -> list[str]:
    """The versions of Python and of the packages `names` (a cached result is theirs)."""
    import sys
    from importlib import metadata

    found = [f"python {sys.version}"]
    for name in names:
        try:
            found.append(f"{name}=={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name}: none")
    return found


def remembering(generate: Callable[..., str]) -> Callable[..., str]:
    """`generate` (the plugin's HTML-to-Markdown conversion of a page), its result kept in the
    cache folder by the page's HTML, the options, the engine and the packages' versions.

    The conversion is most of a warm build's time, and its result depends on nothing else:
    `path` is handed only to a `preprocess` module, and with one the result is not kept.
    """
    folder = cachedir.cache_dir(CACHE_KIND)
    context = json.dumps([memo.engine_digest(), versions(CONVERSION)])

    def remembered(
        html: str,
        *,
        should_autoclean: bool,
        preprocess: str | None,
        path: str,
        base_uri: str,
        page_uri: str,
    ) -> str:
        def made() -> str:
            return generate(
                html,
                should_autoclean=should_autoclean,
                preprocess=preprocess,
                path=path,
                base_uri=base_uri,
                page_uri=page_uri,
            )

        if folder is None or preprocess is not None:
            return made()
        key = json.dumps([context, should_autoclean, base_uri, page_uri, html])
        name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest() + ".md"
        held = folder.read_text(name)
        if held is not None:
            return held
        text = made()
        folder.write_text(name, text)
        return text

    return remembered


@contextmanager
def applied() -> Iterator[None]:
    """Inside the block, the plugin escapes markup in text and keeps diagrams' text (when the
    patch fits), and each page's conversion is kept in the cache folder (`remembering`)."""
    if not PATCH.usable():
        yield
        return
    plugin = _module()
    current = plugin._converter
    original_clean = plugin.autoclean
    escaping = type(current)(**{**current.options, "escape_misc": True})

    def clean(soup: Any) -> None:
        diagrams_as_text(soup)
        original_clean(soup)

    with ExitStack() as stack:
        stack.enter_context(swapped(plugin, "_converter", escaping))
        stack.enter_context(swapped(plugin, "autoclean", clean))
        generate = plugin._generate_page_markdown
        stack.enter_context(swapped(plugin, "_generate_page_markdown", remembering(generate)))
        yield
    folder = cachedir.cache_dir(CACHE_KIND)
    if folder is not None:
        folder.keep_latest(KEPT, ".md")
