"""The `links` check: every link and anchor of every page, and every page's place in the nav.

The site build records each link as its author wrote it, before MkDocs
rewrites it (`PageView.links`); once every page is rendered this check judges
each against the site's files and the ids of its target page (`SiteView`).
"""

from __future__ import annotations

import html
import posixpath
from urllib.parse import unquote, urlsplit

from acp_docs.checks.registry import Check, Guide, SiteView, WrittenLink
from acp_docs.core.findings import Finding
from acp_docs.policy import sanitize
from acp_docs.rfds import model as rfds

NAME = "links"
NOT_IN_NAV = "page is not in the mkdocs.yml navigation: add it to `nav`"


def _judge(view: SiteView, src_uri: str, path: str, link: WrittenLink) -> Finding | None:
    url = link.url

    def finding(message: str, rule: str) -> Finding:
        return Finding(path, link.line, link.col, NAME, message, f"{NAME}/{rule}")

    if "\x02" in url:  # a placeholder of the Markdown engine, not a link
        return None
    if sanitize.unsafe_link(url):
        scheme = sanitize.scheme_of(html.unescape(url))
        message = (
            f"link {url[:80]!r}: the {scheme}: scheme is not allowed; use https:, http:,"
            " mailto: or a relative link"
        )
        return finding(message, "scheme")
    try:
        scheme, netloc, part, _query, anchor = urlsplit(url)
    except ValueError:
        return finding(f"link {url[:80]!r} is not a URL a browser can follow", "not-found")
    if scheme or netloc:
        return None
    if url.startswith(("/", "\\")):
        return finding(
            f"absolute link {url!r}: link to the page's Markdown file relatively", "absolute"
        )
    target = src_uri
    if part:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), unquote(part)))
        if target.startswith("../") or target == "..":
            return finding(f"link {url!r} leaves the site", "outside")
    found = view.files.get(target)
    if found is None:
        kind = "not a file" if not posixpath.splitext(part)[1] else "not found"
        return finding(f"link {url!r}: {target!r} is {kind} among the site's files", "not-found")
    if anchor and found.page and found.anchors is not None and anchor not in found.anchors:
        where = "this page" if target == src_uri else target
        return finding(f"link {url!r}: {where} has no anchor #{anchor}", "anchor")
    return None


def _site(view: SiteView) -> list[Finding]:
    found = []
    for src_uri, (path, links) in view.links.items():
        for link in links:
            judged = _judge(view, src_uri, path, link)
            if judged is not None:
                found.append(judged)
    template = f"rfds/{rfds.TEMPLATE_NAME}"
    for src_uri, file in view.files.items():
        if file.page and src_uri not in view.nav and src_uri != template:
            found.append(Finding(file.path, 1, 1, NAME, NOT_IN_NAV, f"{NAME}/not-in-nav"))
    return found


CHECK = Check(
    name=NAME,
    summary="A link to a missing page or anchor, an unsafe or absolute link, a page missing"
    " from the nav.",
    rules={
        NAME: "Link the Markdown file relatively, with an anchor its headings have.",
        "links/scheme": "Use an https:, http: or mailto: address, or a relative link.",
        "links/not-in-nav": "Add the page to `nav` in mkdocs.yml.",
        "links/unknown-rfd": "Name an RFD of rfds/ in the page's front matter.",
        "links/agent-link": "Give the page a title that is plain text: llms.txt links to it.",
    },
    docs=NAME,
    order=50,
    guide=Guide("docs/tooling/writing.md", "where-things-go", "Where things go"),
    site=_site,
)
