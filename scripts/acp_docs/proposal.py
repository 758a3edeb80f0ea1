"""The notice on a page that describes what an RFD proposes: until it is Completed, not ACP.

A docs page names the RFD it belongs to in its front matter (`rfd: <slug>`).
While that RFD is not Completed, the page opens with a notice that says so, in
words and with a link to the RFD; a slug that names no RFD is a finding.
"""

from __future__ import annotations

import html

from acp_docs.rfds import STATUSES, Rfd

KEY = "rfd"
"""The front-matter key of a docs page that names its RFD."""


def owner(meta: object, loaded: list[Rfd]) -> tuple[str | None, Rfd | None]:
    """The slug a page's front matter names (None when it names none) and that RFD, if any."""
    slug = meta.get(KEY) if isinstance(meta, dict) else None
    if slug is None:
        return None, None
    text = str(slug)
    return text, next((r for r in loaded if r.slug == text), None)


def notice(rfd: Rfd, link: str) -> str:
    """The HTML of the notice for a page of `rfd`, or "" once the RFD is Completed."""
    if rfd.status == "completed":
        return ""
    status = html.escape(STATUSES.get(rfd.status or "", rfd.status or "unknown"))
    title = html.escape(rfd.title)
    return (
        '<div class="admonition warning acp-proposal" role="note">'
        '<p class="admonition-title">A proposal, not ACP</p>'
        f"<p>This page describes what the RFD "
        f'<a href="{html.escape(link, quote=True)}">{title}</a> ({status}) proposes.'
        " None of it is part of the Agent Client Protocol until the RFD is Completed,"
        " and it may still change.</p></div>\n"
    )


def placed(content: str, notice_html: str) -> str:
    """The page's HTML with the notice right under its title (or on top, without one)."""
    if not notice_html:
        return content
    end = content.find("</h1>")
    if end < 0 or not content.lstrip().startswith("<h1"):
        return notice_html + content
    end += len("</h1>")
    return content[:end] + "\n" + notice_html + content[end:]
