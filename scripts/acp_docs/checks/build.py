"""The `build` check: the front matter of docs pages, and every problem of the site build itself.

Its own hook reads the front matter of every page of docs/ (what a page may
set, `acp_docs.policy.frontmatter`). It is the `catch_all`: a problem the
build meets (markers, pages too complex to render, markup outside what a page
may hold, the theme's markup, MkDocs's own warnings) is reported under it.
"""

from __future__ import annotations

from acp_docs.checks.checkout import Checkout
from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding
from acp_docs.policy import frontmatter


def _sources(checkout: Checkout) -> list[Finding]:
    return frontmatter.check_pages(checkout.root, checkout.docs_pages)


CHECK = Check(
    name="build",
    summary="Any other MkDocs warning, a marker that cannot be expanded, a page too complex"
    " to render, markup a page may not hold, or a build that cannot finish.",
    rules={
        "build": "Fix what the message names; `mkdocs build --strict` shows it too.",
        "build/not-allowed": "Write it in Markdown: the page may hold only what"
        " docs/tooling/checks.md#what-a-page-may-hold lists.",
        "build/too-complex": "Flatten the nesting or close what is left open.",
        "build/marker": "Write the marker as the docs say, with the arguments it takes.",
        "build/theme": "The theme's markup changed: update acp_docs/patches/themefix.py.",
        "build/autodoc": "Link to the API reference instead: its pages are generated from"
        " the package (docs/tooling/api/index.md).",
        "build/api-source": "Make it a regular file of the package (no link, FIFO or giant file).",
        "build/agent-page": "Write the text as text: the page for agents may hold no markup.",
    },
    docs="build",
    order=60,
    catch_all=True,
    sources=_sources,
)
