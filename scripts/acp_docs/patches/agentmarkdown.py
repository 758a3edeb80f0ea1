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
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from acp_docs.patches.pin import Patch, Target, swapped

PINNED = {"mkdocs-llmstxt": "0.5.1", "markdownify": "1.2.3"}
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


@contextmanager
def applied() -> Iterator[None]:
    """Inside the block, the plugin escapes markup in text and keeps diagrams' text (when the
    patch fits)."""
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
        yield
