"""The raw HTML of a Markdown text, as the site's own Markdown engine takes it.

Whether a piece of a page is raw HTML (passed to the page as written) or text
(code, escaped characters, an autolink) is decided by Python-Markdown with the
site's extensions, the engine that renders the page: never by a second scanner
that could read a code span or an escape differently. `Reader` renders the
text once with fenced blocks left plain (the same blocks, without
highlighting) and records what the engine's two raw-HTML steps take: the
block step (`html_block`, `md_in_html`'s too) and the inline step (`html`).
Each piece is placed at its line of the source.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mkdocs.utils.meta import get_data

from acp_docs.markdown.blocks import engine


@dataclass(frozen=True)
class Anchor:
    """A heading's id as the site's engine gives it (`toc`), its level and its plain name."""

    id: str
    level: int
    name: str


@dataclass(frozen=True)
class Reading:
    """What the engine made of a text: its raw HTML, and its headings' anchors in order."""

    html: list[RawHtml]
    anchors: list[Anchor]


@dataclass(frozen=True)
class RawHtml:
    """A piece of raw HTML the engine passes to the page: its text and the source's line."""

    text: str
    line: int


class Reader:
    """Reads the raw HTML of Markdown texts with one engine made from a mkdocs.yml."""

    def __init__(self, config: dict[str, Any]) -> None:
        self._engine = engine(config, plain_code=True)
        self._taken: list[str] | None = None
        self._wrap()

    def _wrap(self) -> None:
        md = self._engine
        taken = self._record

        if "html_block" in md.preprocessors:  # a Registry: no `get`
            block = md.preprocessors["html_block"]
            run = block.run

            def block_run(lines: list[str]) -> list[str]:
                with self._stash_recorded():
                    return run(lines)

            block.run = block_run
        if "html" in md.inlinePatterns:
            inline = md.inlinePatterns["html"]
            handle = inline.handleMatch

            def inline_match(match: Any, data: str) -> Any:
                taken(match.group(1))
                return handle(match, data)

            inline.handleMatch = inline_match

    def _record(self, text: Any) -> None:
        if self._taken is not None:
            self._taken.append(str(text))

    @contextlib.contextmanager
    def _stash_recorded(self) -> Iterator[None]:
        """Every piece the stash keeps while the block step runs is raw HTML of the text."""
        stash = self._engine.htmlStash
        store, store_tag = stash.store, stash.store_tag

        def kept(html: Any) -> Any:
            if isinstance(html, str):
                self._record(html)
            else:  # `md_in_html` keeps an element whose content is Markdown
                for element in html.iter():
                    self._record(_start_tag(str(element.tag), dict(element.attrib)))
            return store(html)

        def kept_tag(tag: str, attrs: Any, left: int, right: int) -> Any:
            self._record(_start_tag(tag, dict(attrs)))
            return store_tag(tag, attrs, left, right)

        stash.store, stash.store_tag = kept, kept_tag
        try:
            yield
        finally:
            del stash.store, stash.store_tag  # the class's methods again

    def __call__(self, text: str) -> list[RawHtml]:
        """The raw HTML the engine takes from `text` as MkDocs hands it over (its front
        matter taken off only when MkDocs takes it off), in order."""
        return self.read(text).html

    def read(self, text: str) -> Reading:
        """The raw HTML of `text` (as `__call__`) and the anchors of its headings."""
        from acp_docs.patches import renderspeed

        self._taken = []
        md = self._engine
        md.reset()
        body, _meta = get_data(text)  # what MkDocs renders, front matter or not
        try:
            with renderspeed.applied(renderspeed.fits()):
                md.convert(body)
            taken = self._taken
        finally:
            self._taken = None
        return Reading(_placed(text, taken), list(_anchors(getattr(md, "toc_tokens", []))))


def _anchors(tokens: Any) -> Iterator[Anchor]:
    for token in tokens if isinstance(tokens, list) else []:
        if isinstance(token, dict):
            yield Anchor(
                str(token.get("id", "")), int(token.get("level", 0)), str(token.get("name", ""))
            )
            yield from _anchors(token.get("children"))


def _start_tag(tag: str, attrs: dict[str, Any]) -> str:
    shown = "".join(f' {name}="{value}"' for name, value in attrs.items())
    return f"<{tag}{shown}>"


def _placed(text: str, taken: list[str]) -> list[RawHtml]:
    """Each piece at the line where it is written: its first line looked for from the last
    piece found, then anywhere, then its tag's name (the engine may rewrite attributes)."""
    out = []
    cursor = 0
    for piece in taken:
        first = next((line.strip() for line in piece.split("\n") if line.strip()), "")
        name = _NAME.match(first)
        at = -1
        for needle in (first, name.group(0) if name else ""):
            if needle and (at := text.find(needle, cursor)) < 0:
                at = text.find(needle)
            if at >= 0:
                break
        if at >= 0:
            cursor = at + 1
        out.append(RawHtml(piece, text.count("\n", 0, at) + 1 if at >= 0 else 1))
    return out


_NAME = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*")
