"""The Content-Security-Policy of every published page: the second wall behind the allowlist.

Each page the build writes gets the policy as a `<meta http-equiv>` at the top
of its `<head>` (the site is served as static files, often from hosts that set
no headers). Scripts, styles, images, fonts and requests may come from the
site itself only; the only inline scripts that run are the theme's own, each
allowed by the SHA-256 of its text (page content has passed the allowlist
sanitizer before the theme wraps it, so every inline script left is the
theme's). No plugins (`object`), no `<base>`, no frames, and forms may send
nowhere but the site. `data:` images are allowed because the theme's style
sheet draws its icons as `data:` SVG masks; an SVG loaded as an image cannot
run script.

The dev server (`mkdocs serve`) injects its own inline live-reload script
into every page, so pages are served without the policy; `mkdocs build` and
`acp-docs check` always add it.
"""

from __future__ import annotations

import base64
import hashlib
import re

from selectolax.lexbor import LexborHTMLParser

DIRECTIVES = (
    ("default-src", "'self'"),
    ("style-src", "'self'"),
    ("img-src", "'self' data:"),
    ("font-src", "'self'"),
    ("connect-src", "'self'"),
    ("worker-src", "'self'"),
    ("manifest-src", "'self'"),
    ("media-src", "'self'"),
    ("object-src", "'none'"),
    ("frame-src", "'none'"),
    ("base-uri", "'none'"),
    ("form-action", "'self'"),
)
SCRIPT_TYPES = frozenset({"", "text/javascript", "module", "application/javascript"})
_HEAD = re.compile(r"<head\b[^>]*>\s*(?:<meta charset=[^>]*>)?", re.IGNORECASE)


def inline_script_hashes(page: str, content: str = "") -> list[str]:
    """`'sha256-...'` of each inline script a browser would run in `page`, in order.

    `content` is the page's content as the sanitizer published it: when `page` holds
    it once, it is left out of the parse. It holds no script and is balanced (each
    element it opens, it closes), so the theme's scripts read the same without it;
    a long page is then never parsed whole a second time, and content can never add
    a hash.
    """
    at = page.find(content) if content else -1
    if at >= 0 and page.find(content, at + 1) < 0:
        page = page[:at] + page[at + len(content) :]
    hashes: list[str] = []
    for node in LexborHTMLParser(page).css("script"):
        attributes = node.attributes
        kind = (attributes.get("type") or "").strip().lower()
        if "src" in attributes or kind not in SCRIPT_TYPES:
            continue
        digest = hashlib.sha256((node.text(deep=True) or "").encode("utf-8")).digest()
        source = f"'sha256-{base64.b64encode(digest).decode('ascii')}'"
        if source not in hashes:
            hashes.append(source)
    return hashes


def policy(script_hashes: list[str]) -> str:
    """The policy's text, with the inline scripts allowed by hash."""
    scripts = " ".join(["'self'", *script_hashes])
    return "; ".join(f"{name} {value}" for name, value in (*DIRECTIVES, ("script-src", scripts)))


def apply(page: str, content: str = "") -> str | None:
    """`page` with its policy first in `<head>`, or None if the page has no `<head>`;
    `content` as `inline_script_hashes` takes it."""
    head = _HEAD.search(page)
    if head is None:
        return None
    text = policy(inline_script_hashes(page, content))
    meta = f'<meta http-equiv="Content-Security-Policy" content="{text}">'
    return page[: head.end()] + meta + page[head.end() :]
