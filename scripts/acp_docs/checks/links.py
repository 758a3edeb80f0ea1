"""The `links` check: every link and anchor of every page, and every page's place in the nav.

Reported by the plugin while it renders each page (`acp_docs.mkdocs.links`).
"""

from __future__ import annotations

from acp_docs.checks.registry import Check, Guide

CHECK = Check(
    name="links",
    summary="A link to a missing page or anchor, an unsafe or absolute link, a page missing"
    " from the nav.",
    rules={
        "links": "Link the Markdown file relatively, with an anchor its headings have.",
        "links/scheme": "Use an https:, http: or mailto: address, or a relative link.",
        "links/not-in-nav": "Add the page to `nav` in mkdocs.yml.",
        "links/unknown-rfd": "Name an RFD of rfds/ in the page's front matter.",
        "links/agent-link": "Give the page a title that is plain text: llms.txt links to it.",
    },
    docs="links",
    order=50,
    guide=Guide("docs/tooling/writing.md", "where-things-go", "Where things go"),
)
