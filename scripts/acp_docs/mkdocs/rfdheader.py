"""The header of an RFD page: its front matter (status, people, date, discussion) for readers."""

from __future__ import annotations

import datetime
import html
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, urlsplit

from acp_docs.rfds.model import STATUSES, Rfd


def _people(names: Any) -> str:
    handles = [str(n) for n in names] if isinstance(names, list) else []
    if not handles:
        return "none yet"
    return ", ".join(
        f'<a href="https://github.com/{quote(h, safe="")}">@{html.escape(h)}</a>' for h in handles
    )


def _discussion(url: Any) -> str:
    if not isinstance(url, str) or urlsplit(url).scheme not in {"http", "https"}:
        return "none yet"
    shown = html.escape(url.split("://", 1)[1].rstrip("/"))
    return f'<a href="{html.escape(url, quote=True)}">{shown}</a>'


def _created(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = datetime.date.fromisoformat(value)
        except ValueError:
            return html.escape(value) or "not given"
    if isinstance(value, datetime.date):
        return f'<time datetime="{value.isoformat()}">{value.day} {value:%B %Y}</time>'
    return "not given"


def after_title(content: str, block: str) -> str:
    """A page's HTML with `block` right under the title it opens with (on top, without one)."""
    if not block:
        return content
    end = content.find("</h1>")
    if end < 0 or not content.lstrip().startswith("<h1"):
        return block + content
    end += len("</h1>")
    return content[:end] + "\n" + block + content[end:]


def render(rfd: Rfd, status_url: str | None, related: Sequence[tuple[str, str]] = ()) -> str:
    """The header as HTML: a description list under the page's title.

    `status_url` links the status to its page (relative to the RFD page);
    `related` lists the RFD's other pages, (title, relative URL): its protocol
    pages and schema reference. Every value is escaped; only http(s) discussion
    links become links.
    """
    meta = rfd.meta or {}
    status = rfd.status or ""
    label = html.escape(STATUSES.get(status, status or "unknown"))
    if status_url:
        label = f'<a href="{html.escape(status_url, quote=True)}">{label}</a>'
    authors = meta.get("authors")
    several = isinstance(authors, list) and len(authors) > 1
    rows = [
        ("Status", label),
        ("Authors" if several else "Author", _people(authors)),
        ("Champion", _people([meta["champion"]] if meta.get("champion") else [])),
        ("Created", _created(meta.get("created"))),
        ("Discussion", _discussion(meta.get("discussion"))),
    ]
    if related:
        links = ", ".join(
            f'<a href="{html.escape(url, quote=True)}">{html.escape(title)}</a>'
            for title, url in related
        )
        rows.append(("Pages", links))
    items = "".join(f"<div><dt>{name}</dt><dd>{value}</dd></div>" for name, value in rows)
    return f'<dl class="acp-rfd-header" aria-label="About this RFD">{items}</dl>'
