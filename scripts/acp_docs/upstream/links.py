"""Links of upstream pages resolved as Mintlify resolves them: routes, files and anchors.

A link to `/protocol/v1/overview` is the page `docs/protocol/v1/overview.mdx`;
a relative link is resolved from the page's route; an `.mdx` or `.md` suffix
and a trailing slash are dropped. A file under `docs/` (an image) or a redirect
source is a target too. An anchor must be a heading's slug of the target page
(Mintlify's: `acp_docs.upstream.anchors`), a component's or an element's `id`.
A redirect source may hold `:name` (one segment) or `:name*` (any rest).
Images and media (`![](...)`, `<img src>`, `<video src>`, ...) are links too,
to files, resolved as Mintlify's link checker resolves them (`./` and `../`
from the page's folder, anything else from the root of `docs/`): one the tree
does not have is `upstream/missing-media`. Links with a scheme (`https:`, `mailto:`,
`data:`) are not followed: the check makes no network request.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from acp_docs.core.findings import Finding
from acp_docs.upstream.anchors import page_anchors
from acp_docs.upstream.nav import Nav
from acp_docs.upstream.scan import Scanned
from acp_docs.upstream.tree import Tree

CHECK = "upstream-links"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _target(route: str, href: str) -> str:
    path = unquote(href)
    joined = path if path.startswith("/") else posixpath.join("/" + posixpath.dirname(route), path)
    target = posixpath.normpath(joined).strip("/")
    if target == ".":
        target = ""
    for suffix in (".mdx", ".md"):
        if target.endswith(suffix):
            target = target[: -len(suffix)]
    if target == "index" or target.endswith("/index"):
        target = target[: -len("index")].rstrip("/")  # `x/index` is served as `x`
    return target


def _found(path: str, line: int, col: int, message: str, rule: str, key: str) -> Finding:
    """A finding whose identity (for a baseline) is `key`: what is missing, however written."""
    return Finding(path, line, col, CHECK, message, f"upstream/{rule}", key=key)


def check(tree: Tree, nav: Nav, scanned: dict[str, Scanned]) -> list[Finding]:
    """A finding for each link to a route, file or anchor the tree does not have."""
    found = []
    by_path = {page.path: route for route, page in tree.pages.items()}
    anchors = {by_path[path]: page_anchors(s) for path, s in scanned.items() if s.error is None}
    for path, page_scan in sorted(scanned.items()):
        route = by_path[path]
        for line, col, src in page_scan.media:
            if not src or _SCHEME.match(src) or src.startswith("//"):
                continue
            where = unquote(src.split("#", 1)[0].split("?", 1)[0])
            # As Mintlify's link checker resolves them: `./` and `../` from the page's
            # folder, anything else from the root of docs/.
            near = where.startswith(("./", "../"))
            base = "/" + posixpath.dirname(path.split("/", 1)[-1]) if near else "/"
            rel = posixpath.normpath(posixpath.join(base, where)).lstrip("/")
            if rel not in tree.files:
                said = f"{src!r}: no file docs/{rel}, so the page shows a broken image"
                found.append(
                    _found(path, line, col, f"image or media {said}", "missing-media", rel)
                )
        for line, col, href in page_scan.links:
            if not href or _SCHEME.match(href) or href.startswith("//"):
                continue
            where, _, anchor = href.partition("#")
            where = where.split("?", 1)[0]
            target = route if not where else _target(route, where)
            if where and target not in tree.pages:
                if (
                    unquote(where).lstrip("/") in tree.files
                    or target in tree.files
                    or nav.redirected(target)
                ):
                    continue
                if any(p.startswith(f"{target}/") for p in tree.files) and target:
                    said = (
                        f"link {href!r}: a folder with no page of its own; Mintlify's link"
                        " checker accepts it, as the tree's CI does (the site may show its 404)"
                    )
                    found.append(
                        Finding(path, line, col, CHECK, said, "upstream/folder-link", "note")
                    )
                    continue
                said = f"no page {target!r} (docs/{target}.mdx) and no file of that name"
                found.append(
                    _found(path, line, col, f"link {href!r}: {said}", "broken-link", target)
                )
                continue
            known = anchors.get(target)
            if (
                anchor
                and known is not None
                and anchor not in known
                and unquote(anchor) not in known
            ):
                shown = "this page" if target == route else repr(target)
                said = f"{shown} has no heading or element with the anchor #{anchor}"
                found.append(
                    _found(
                        path,
                        line,
                        col,
                        f"link {href!r}: {said}",
                        "broken-anchor",
                        f"{target}#{anchor}",
                    )
                )
    return found
