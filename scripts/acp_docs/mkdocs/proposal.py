"""The notice on a page that describes what an RFD proposes: until it is Completed, not ACP.

A docs page names the RFD it belongs to in its front matter (`rfd: <slug>`).
While that RFD is not Completed, the page opens with a notice that says so, in
words and with a link to the RFD; a slug that names no RFD is a finding.
"""

from __future__ import annotations

import html
from pathlib import Path

from acp_docs.core.errors import LocatedError
from acp_docs.markdown.blocks import front_matter_end
from acp_docs.rfds.model import STATUSES, Rfd
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.sources.yamlfile import load as load_yaml

KEY = "rfd"
"""The front-matter key of a docs page that names its RFD."""


def owner(meta: object, loaded: list[Rfd]) -> tuple[str | None, Rfd | None]:
    """The slug a page's front matter names (None when it names none) and that RFD, if any."""
    slug = meta.get(KEY) if isinstance(meta, dict) else None
    if slug is None:
        return None, None
    text = str(slug)
    return text, next((r for r in loaded if r.slug == text), None)


def key_line(text: str) -> int:
    """The line of the `rfd:` key in a page's front matter (1 when it is not found)."""
    lines = text.split("\n")
    end = front_matter_end(lines)
    return next((n for n in range(2, end) if lines[n - 1].startswith(f"{KEY}:")), 1)


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


def owner_of_file(path: Path, shown: str) -> tuple[str | None, str]:
    """The RFD a docs page names in its front matter (or None), and the page's title.

    The title is the front matter's, else the first `# ` heading, else the file's
    path. A page that cannot be read or whose front matter is not YAML names no
    RFD here: the build reports it.
    """
    try:
        text = read_text(path, shown)
    except (UnreadableFile, LocatedError):
        return None, shown
    lines = text.split("\n")
    end = front_matter_end(lines)
    meta: object = None
    if end:
        try:
            meta = load_yaml("\n".join(lines[1 : end - 1]), shown, 2)
        except LocatedError:
            meta = None
    slug = meta.get(KEY) if isinstance(meta, dict) else None
    title = meta.get("title") if isinstance(meta, dict) else None
    if not isinstance(title, str):
        title = next((ln[2:].strip() for ln in lines[end:] if ln.startswith("# ")), shown)
    return (str(slug) if slug is not None else None), title


def owned_pages(root: Path, pages: list[tuple[str, str]]) -> dict[str, list[tuple[str, str]]]:
    """For each RFD slug, the (title, docs path) of the docs pages that name it, by path.

    `pages` holds each docs page's docs path and its file; files outside the
    checkout are left out.
    """
    owned: dict[str, list[tuple[str, str]]] = {}
    for src_uri, abs_path in sorted(pages):
        if not filetree.inside(root, abs_path):
            continue
        slug, title = owner_of_file(Path(abs_path), f"docs/{src_uri}")
        if slug is not None:
            owned.setdefault(slug, []).append((title, src_uri))
    return owned
