"""What the pages for agents may hold: `llms.txt`, `llms-full.txt` and each page's Markdown.

They are read as a CommonMark renderer reads them (markdown-it, the parser
mdformat writes them with), and allowed only what the HTML pages are: text,
code, and links to a relative address or an address of `LINK_SCHEMES`. Raw
HTML, in a block or inline, is refused wherever it stands; so is a link of
another scheme. In `llms.txt`, each link must also lead to a file of the site.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

from acp_docs.policy.sanitize import LINK_SCHEMES

INDEX = "llms.txt"
FULL = "llms-full.txt"


@dataclass(frozen=True)
class Problem:
    """Something an agent page may not hold, at a 1-based line of the output file."""

    line: int
    message: str
    link: bool = False
    """True for a link of `llms.txt` that leads to no file of the site."""


class _KeepingLinks(MarkdownIt):
    """markdown-it that keeps every link a link, whatever its scheme."""

    def validateLink(self, url: str) -> bool:
        # markdown-it drops a link of some schemes (javascript:, vbscript:, file:) to text;
        # other renderers do not, so every link is kept as a link, to be judged by its scheme.
        return True


def _parser() -> MarkdownIt:
    return _KeepingLinks("commonmark")


def _walk(tokens: list[Token], line: int = 1) -> Iterator[tuple[Token, int]]:
    for token in tokens:
        here = token.map[0] + 1 if token.map else line
        yield token, here
        if token.children:
            yield from _walk(token.children, here)


def review(text: str, site: Path | None = None, site_url: str = "") -> list[Problem]:
    """The problems of one agent page; with `site`, links must lead to files in it too."""
    problems: list[Problem] = []
    for token, line in _walk(_parser().parse(text)):
        if token.type in ("html_block", "html_inline"):
            shown = " ".join(token.content.split())[:60]
            problems.append(Problem(line, f"raw HTML in a page for agents: {shown!r}"))
        elif token.type in ("link_open", "image"):
            target = str(token.attrGet("href") or token.attrGet("src") or "")
            problems += _link(target, line, site, site_url)
    return problems


def _link(target: str, line: int, site: Path | None, site_url: str) -> list[Problem]:
    parts = urlsplit(target)
    scheme = parts.scheme.lower()
    if scheme and scheme not in LINK_SCHEMES:
        return [Problem(line, f"a link of the scheme {scheme!r} in a page for agents: {target!r}")]
    if site is None:
        return []
    local = _local_path(target, site_url)
    if local is None:
        if scheme:
            return [Problem(line, f"{target!r} leads outside the site", link=True)]
        return []
    if not _is_file(site, local):
        return [Problem(line, f"{target!r} leads to no file of the site", link=True)]
    return []


def _local_path(target: str, site_url: str) -> str | None:
    """The path of a link inside the site, or None for an address elsewhere."""
    if site_url and target.startswith(site_url):
        target = target[len(site_url) :]
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return None
    return unquote(parts.path).lstrip("/")


def _is_file(site: Path, local: str) -> bool:
    relative = PurePosixPath(local)
    if not local or ".." in relative.parts:
        return False
    path = site.joinpath(*relative.parts)
    return path.is_file() and not path.is_symlink()


def outputs(site: Path, pages: list[Path]) -> list[tuple[Path, bool]]:
    """The agent files of a built site to review: (path, whether its links must lead to files)."""
    listed = [(site / INDEX, True), (site / FULL, False)]
    return [(p, index) for p, index in [*listed, *((page, False) for page in pages)] if p.exists()]
