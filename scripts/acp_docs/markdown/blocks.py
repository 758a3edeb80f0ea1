"""Code blocks as the site renders them, placed at their lines in the Markdown source.

Which blocks exist, their language, title and text come from the HTML that the
site's own Markdown engine and extensions produce (`rendered_blocks`), so a
block the reader sees is checked, wherever it sits (a tab, an admonition, a
blockquote), and a block the reader does not see (inside an HTML comment, an
indented code block) is not. The fence scanner (`acp_docs.markdown.fences`)
only finds the line and column of each rendered block in the source (`locate`).
Headings outside code and the site's Markdown engine (`renderer`) are here too.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from acp_docs.core.errors import LocatedError
from acp_docs.markdown.fences import (
    CodeBlock,
    code_blocks,
    code_lines,
    fence_title,
    fenced_blocks,
    front_matter_end,
)
from acp_docs.markdown.htmlscan import Attrs, ElementParser

__all__ = [  # what other packages import from here, the fence scanner's names included
    "PLAIN_MARK",
    "CodeBlock",
    "Heading",
    "RenderedBlock",
    "Renderer",
    "code_blocks",
    "code_lines",
    "extension_entries",
    "extensions_of",
    "front_matter_end",
    "headings",
    "locate",
    "plain_blocks",
    "rendered_blocks",
    "renderer",
]


def _heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line, in linear time; None for other lines."""
    level = len(line) - len(line.lstrip("#"))
    if not 1 <= level <= 6 or (len(line) > level and line[level] not in " \t"):
        return None
    text = line[level:].strip(" \t")
    bare = text.rstrip("#")
    if bare != text and (not bare or bare[-1] in " \t"):
        text = bare.rstrip(" \t")
    return level, text


@dataclass(frozen=True)
class Heading:
    """An ATX heading outside code blocks: level, text and line."""

    level: int
    text: str
    line: int


def headings(text: str) -> list[Heading]:
    """Every `#` heading of `text` that is not inside a fenced code block."""
    lines = text.split("\n")
    in_code = code_lines(text)
    found = []
    for number in range(front_matter_end(lines) + 1, len(lines) + 1):
        if number in in_code:
            continue
        heading = _heading(lines[number - 1])
        if heading:
            found.append(Heading(heading[0], heading[1], number))
    return found


@dataclass(frozen=True)
class RenderedBlock:
    """A code block of the rendered page: its language, title and text."""

    lang: str
    title: str | None
    text: str


class _BlockParser(ElementParser):
    """Collects `<pre>` blocks with the language class and filename title around them."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[RenderedBlock] = []
        self._container: dict[str, Any] | None = None
        self._pre: int | None = None
        self._filename: int | None = None
        self._skip: int | None = None

    def opened(self, tag: str, attrs: Attrs) -> None:
        classes = (dict(attrs).get("class") or "").split()
        lang = next((c[len("language-") :] for c in classes if c.startswith("language-")), "")
        if self._container is None and tag == "div" and "highlight" in classes:
            self._container = {"depth": self.depth, "lang": lang, "title": None, "text": []}
            return
        box = self._container
        if box is not None and self._skip is None and {"linenos", "linenodiv"} & set(classes):
            self._skip = self.depth  # line numbers, in a table cell or a span: not the text
            return
        if box is None:
            if tag == "pre":
                self._container = {"depth": self.depth, "lang": lang, "title": None, "text": []}
                self._pre = self.depth
            return
        if lang and not box["lang"]:
            box["lang"] = lang
        if tag == "span" and "filename" in classes and self._pre is None:
            self._filename = self.depth
            box["title"] = ""
        elif tag == "pre" and self._pre is None and self._skip is None:
            self._pre = self.depth

    def closed(self, tag: str) -> None:
        box = self._container
        if box is not None and self.depth == box["depth"]:
            text = "".join(box["text"])
            self.blocks.append(RenderedBlock(box["lang"].lower(), box["title"], text))
            self._container = None
            self._pre = None
        if self._filename == self.depth:
            self._filename = None
        if self._skip == self.depth:
            self._skip = None

    def handle_data(self, data: str) -> None:
        box = self._container
        if box is None or self._skip is not None:
            return
        if self._filename is not None:
            box["title"] += data
        elif self._pre is not None:
            box["text"].append(data)


def rendered_blocks(html: str) -> list[RenderedBlock]:
    """Every code block of a rendered page, in order (HTML comments hold none)."""
    parser = _BlockParser()
    parser.feed(html)
    parser.close()
    return parser.blocks


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def locate(text: str, rendered: list[RenderedBlock]) -> list[CodeBlock]:
    """Each rendered block as a CodeBlock at its place in the Markdown source `text`.

    A rendered block is matched with the first unused fence of the same language,
    title and content; then of the same title; else it is placed at the first
    line that holds its title (line 1 when it has none).
    """
    scanned = fenced_blocks(text)
    exact: dict[tuple[str, str | None, str], deque[int]] = {}
    titled: dict[tuple[str, str | None], deque[int]] = {}
    for index, fence in enumerate(scanned):
        exact.setdefault((fence.lang, fence.title, _normal(fence.content)), deque()).append(index)
        titled.setdefault((fence.lang, fence.title), deque()).append(index)
    used: set[int] = set()

    def take(queue: deque[int] | None) -> int | None:
        while queue:
            index = queue.popleft()
            if index not in used:
                used.add(index)
                return index
        return None

    title_lines: dict[str, int] | None = None
    out = []
    for block in rendered:
        match = take(exact.get((block.lang, block.title, _normal(block.text))))
        if match is None:
            match = take(titled.get((block.lang, block.title)))
        if match is not None:
            found = scanned[match]
            out.append(replace(found, lang=block.lang, title=block.title, content=block.text))
            continue
        if title_lines is None:
            title_lines = {}
            for number, source_line in enumerate(text.split("\n"), 1):
                title = fence_title(source_line) if "title" in source_line else None
                if title is not None:
                    title_lines.setdefault(title, number)
        line = title_lines.get(block.title, 1) if block.title else 1
        out.append(CodeBlock(block.lang, block.title, line, 1, block.text, True, line))
    return out


Renderer = Callable[[str], str]


def extension_entries(items: Any) -> list[tuple[Any, Any]]:
    """Each entry of a `markdown_extensions` list as (name, options), in order: the one reader.

    A bare name has the options `{}`, as has a name given empty options; a
    mapping gives each of its names. Entries of any other kind are kept as
    their text, so that lists from different files can be compared as written.
    """
    out: list[tuple[Any, Any]] = []
    for item in items or []:
        if isinstance(item, dict):
            out.extend((name, options or {}) for name, options in item.items())
        else:
            out.append((str(item), {}))
    return out


def extensions_of(config: dict[str, Any]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The Markdown extensions of a mkdocs.yml and their options, as Python-Markdown takes them."""
    items = config.get("markdown_extensions") or []
    for item in items:
        if not (isinstance(item, str) or (isinstance(item, dict) and len(item) == 1)):
            raise ValueError(f"markdown_extensions entry {item!r} is neither a name nor a mapping")
    names: list[str] = []
    options: dict[str, dict[str, Any]] = {}
    for name, value in extension_entries(items):
        names.append(str(name))
        options[str(name)] = value if isinstance(value, dict) else {}
    return names, options


PLAIN_MARK = "<!-- acp-docs:plain-code -->\n"
"""How the output of `renderer(..., plain_code=True)` starts."""


def _take_options(
    language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md: Any
) -> bool:
    """The site highlighter's own validator, so a fence opens (and has a title) as it renders."""
    from pymdownx.superfences import _validator, highlight_validator

    return bool(_validator(language, inputs, options, attrs, md, validator=highlight_validator))


def _plain_fence(
    source: str, language: str, class_name: str, options: dict[str, Any], md: Any, **_: Any
) -> str:
    title = options.get("title")
    language = language or ""  # a fence without a language is a block too
    if not source.endswith("\n"):
        source += "\n"  # as the highlighter ends every block
    shown = f' data-acp-title="{html.escape(str(title))}"' if title is not None else ""
    return (
        f'<pre data-acp-lang="{html.escape(language)}"{shown}>'
        f"<code>{html.escape(source)}</code></pre>"
    )


def engine(config: dict[str, Any], plain_code: bool = False) -> Any:
    """A Python-Markdown engine with the site's extensions and their options.

    With `plain_code`, fenced blocks are written out plainly (language, title,
    text) instead of being highlighted: the same engine finds the same blocks,
    at a fifth of the cost. A LocatedError on mkdocs.yml when one cannot load.
    """
    import markdown

    try:
        names, options = extensions_of(config)
        if plain_code:
            fences = dict(options.get("pymdownx.superfences") or {})
            fence = {"name": "*", "class": "", "format": _plain_fence, "validator": _take_options}
            fences["custom_fences"] = [fence]
            options = {**options, "pymdownx.superfences": fences}
        return markdown.Markdown(extensions=names, extension_configs=options)
    except Exception as exc:  # an extension that cannot load is bad configuration
        raise LocatedError(
            "mkdocs.yml", None, None, f"markdown_extensions cannot be loaded: {exc}"
        ) from None


def renderer(config: dict[str, Any], plain_code: bool = False) -> Renderer:
    """A function that renders Markdown with the site's extensions and their options
    (`engine`); `acp-docs examples`, which only reads blocks, takes `plain_code`."""
    from acp_docs.patches import renderspeed

    fit = renderspeed.fits()
    made = engine(config, plain_code)

    def render(text: str) -> str:
        made.reset()
        with renderspeed.applied(fit):  # for this call only, never for the whole process
            out = made.convert(without_front_matter(text))
        return PLAIN_MARK + out if plain_code else out

    return render


_PLAIN_BLOCK = re.compile(
    r'<pre data-acp-lang="(?P<lang>[^"]*)"(?: data-acp-title="(?P<title>[^"]*)")?>'
    r"<code>(?P<text>[^<]*)</code></pre>"
)


def _without_comments(text: str) -> str:
    """`text` with every HTML comment cut out (an unclosed one runs to the end), in linear time."""
    pieces = []
    index = 0
    while True:
        start = text.find("<!--", index)
        if start < 0:
            pieces.append(text[index:])
            break
        pieces.append(text[index:start])
        end = text.find("-->", start + 4)
        if end < 0:
            break
        index = end + 3
    return "".join(pieces)


def plain_blocks(page: str) -> list[RenderedBlock]:
    """The code blocks of a page rendered with `plain_code`, in order (comments hold none)."""
    return [
        RenderedBlock(
            html.unescape(m["lang"]).lower(),
            html.unescape(m["title"]) if m["title"] is not None else None,
            html.unescape(m["text"]),
        )
        for m in _PLAIN_BLOCK.finditer(_without_comments(page.removeprefix(PLAIN_MARK)))
    ]


def without_front_matter(text: str) -> str:
    """`text` with its front matter as blank lines (every later line keeps its number)."""
    lines = text.split("\n")
    end = front_matter_end(lines)
    return "\n".join([""] * end + lines[end:])
