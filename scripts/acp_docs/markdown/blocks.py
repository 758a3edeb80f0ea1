"""Code blocks as the site renders them, placed at their lines in the Markdown source.

Which blocks exist, their language, title and text come from the HTML that the
site's own Markdown engine and extensions produce (`rendered_blocks`), so a
block the reader sees is checked, wherever it sits (a tab, an admonition, a
blockquote), and a block the reader does not see (inside an HTML comment, an
indented code block) is not. The fence scanner (`code_blocks`) only finds the
line and column of each rendered block in the source: fences may be indented
(tabs, admonitions) or quoted (`>`). Front matter is skipped; line numbers stay
those of the file.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Any

from markdown.extensions.attr_list import get_attrs
from pymdownx.superfences import RE_HL_LINES, RE_LINENUMS, RE_NESTED_FENCE_START, RE_OPTIONS

from acp_docs.core.errors import LocatedError

_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_QUOTE = re.compile(r"^(?:[ ]{0,3}>[ ]?)+")
_ANY_TITLE = re.compile(r"""\btitle=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')""")


_HL_OPTIONS = {"hl_lines": RE_HL_LINES, "linenums": RE_LINENUMS, "title": None, "title_mode": None}


@dataclass(frozen=True)
class CodeBlock:
    """A fenced block: its language, title, position and de-indented content."""

    lang: str
    title: str | None
    line: int
    col: int
    content: str
    closed: bool
    end_line: int

    @property
    def content_line(self) -> int:
        """The file line of the block's first content line."""
        return self.line + 1


@dataclass(frozen=True)
class Fence:
    """An opening fence as pymdownx.superfences reads it: its marker, language and title."""

    fence: str
    lang: str
    title: str | None


def parse_fence(line: str) -> tuple[int, Fence] | None:
    """(prefix width, fence) when `line` opens a block for pymdownx.superfences, else None.

    `line` has its tabs expanded. The prefix is the run of spaces and `>` before
    the fence. The info string is read with superfences' own expressions, and
    kept to what the site's highlighter accepts: `{ ... }` attributes (the first
    class the language), or options among hl_lines, linenums, title and
    title_mode with valid values; any other option makes superfences leave the
    line as text, so it opens nothing here either.
    """
    width = len(line) - len(line.lstrip("> "))
    match = RE_NESTED_FENCE_START.match(line, width)
    if match is None or match.group("unrecognized"):
        return None
    lang = match.group("lang") or ""
    title: str | None = None
    if match.group("attrs"):
        classes = []
        for key, value in get_attrs(match.group("attrs")):
            if key == ".":
                classes.append(value)
            elif key == "title":
                title = value
        if not lang and classes:
            lang = classes[0]
    elif match.group("options"):
        for option in RE_OPTIONS.finditer(match.group("options")):
            key = option.group("key")
            value = option.group("value")
            value = key if value is None else value
            if key not in _HL_OPTIONS:
                return None
            check = _HL_OPTIONS[key]
            if check is not None and check.match(value) is None:
                return None
            if key == "title":
                title = value
    return width, Fence(match.group("fence"), lang.lower(), title)


def fence_title(line: str) -> str | None:
    """The title superfences gives the block a line opens (tabs expanded), else None."""
    parsed = parse_fence(line.expandtabs(4))
    return parsed[1].title if parsed else None


def is_fence(line: str) -> bool:
    """True when `line` opens or may close a fenced block (a run of three ` or ~)."""
    return bool(_FENCE_RUN.match(line))


_FENCE_RUN = re.compile(r"^[ >]*(?:`{3,}|~{3,})")


def front_matter_end(lines: list[str]) -> int:
    """The number of lines the YAML front matter takes (0 when there is none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1
    return 0


def _prefix(line: str, width: int) -> tuple[str, str]:
    """`line` split after at most `width` characters of spaces and `>`, as superfences does."""
    head = line[:width]
    taken = len(head) - len(head.lstrip("> "))
    return line[:taken], line[taken:]


def fenced_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block of `text` (decoded, `\\n` line ends) as pymdownx.superfences finds it.

    One pass over the lines, following pymdownx.superfences' own rules: a fence
    after spaces and `>` only (never after a list marker), each content line
    indented (or quoted) like the fence, the closing fence the same run of
    characters. A fence those rules abandon is not code; one still open at the
    end of the file is kept, unclosed, to the end.
    """
    lines = [line.rstrip("\r").expandtabs(4) for line in text.split("\n")]
    blocks: list[CodeBlock] = []
    index = front_matter_end(lines)
    opened: tuple[int, int, Fence, int] | None = None  # line index, width, fence, quote level
    body: list[str] = []
    empty = 0
    while index < len(lines):
        line = lines[index]
        if opened is None:
            parsed = parse_fence(line)
            if parsed is not None:
                width, fence = parsed
                opened, body, empty = (index, width, fence, line[:width].count(">")), [], 0
            index += 1
            continue
        start, width, fence, quotes = opened
        ws, content = _prefix(line, width)
        level = ws.count(">")
        closes = content.startswith(fence.fence) and not content[len(fence.fence) :].strip(" \t")
        if quotes:
            if level > quotes:
                opened = None
            elif content == "":
                body.append("")
                empty += 1
            elif len(ws) < width or (empty and level < quotes):
                opened = None
            elif closes:
                blocks.append(_block(fence, start, width, body, index, True))
                opened = None
            else:
                body.append(content)
                empty = 0
        elif level:
            opened = None
        elif (ws + content).strip() == "":
            body.append(content)
        elif len(ws) != width and content != "":
            opened = None
        elif closes and not content.startswith((" ", "\t")):
            blocks.append(_block(fence, start, width, body, index, True))
            opened = None
        else:
            body.append(content)
        index += 1
    if opened is not None:
        start, width, fence, _quotes = opened
        blocks.append(_block(fence, start, width, body, len(lines) - 1, False))
    return blocks


def _block(
    fence: Fence, start: int, width: int, body: list[str], end: int, closed: bool
) -> CodeBlock:
    return CodeBlock(
        lang=fence.lang,
        title=fence.title,
        line=start + 1,
        col=width + 1,
        content="\n".join(body),
        closed=closed,
        end_line=end + 1,
    )


def _lang(info: str) -> str:
    info = info.strip().lstrip("{").strip()
    first = info.split(None, 1)[0] if info else ""
    return first.lstrip(".").rstrip("}").lower()


def _title(info: str) -> str | None:
    match = _ANY_TITLE.search(info)
    if not match:
        return None
    return match.group("dq") if match.group("dq") is not None else match.group("sq")


def _unquote(line: str) -> str:
    """A line with its blockquote markers replaced by spaces, so columns stay the file's."""
    quote = _QUOTE.match(line)
    return " " * quote.end() + line[quote.end() :] if quote else line


def code_blocks(text: str) -> list[CodeBlock]:
    """Every run between fences of `text`, whatever its info string (`fenced_blocks`: as the site).

    For Markdown that superfences does not read (an exported MDX file, whose
    titles follow the language without `title=`).
    """
    lines = [_unquote(line.expandtabs(4)) for line in text.split("\n")]
    blocks: list[CodeBlock] = []
    index = front_matter_end(lines)
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match or (match["fence"][0] == "`" and "`" in match["info"]):
            index += 1
            continue
        indent = len(match["indent"])
        fence = match["fence"]
        closing = re.compile(rf"^[ ]*{re.escape(fence[0])}{{{len(fence)},}}[ ]*$")
        body: list[str] = []
        end = index + 1
        closed = False
        while end < len(lines):
            if closing.match(lines[end]):
                closed = True
                break
            line = lines[end]
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            end += 1
        blocks.append(
            CodeBlock(
                lang=_lang(match["info"]),
                title=_title(match["info"]),
                line=index + 1,
                col=indent + 1,
                content="\n".join(body),
                closed=closed,
                end_line=end + 1 if closed else end,
            )
        )
        index = end + 1
    return blocks


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


def code_lines(text: str) -> set[int]:
    """The 1-based line numbers that fenced code blocks take, fences included."""
    lines: set[int] = set()
    for block in fenced_blocks(text):
        lines.update(range(block.line, block.end_line + 1))
    return lines


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


_VOID = frozenset(
    {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


class _BlockParser(HTMLParser):
    """Collects `<pre>` blocks with the language class and filename title around them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[RenderedBlock] = []
        self._depth = 0
        self._container: dict[str, Any] | None = None
        self._pre: int | None = None
        self._filename: int | None = None
        self._skip: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        lang = next((c[len("language-") :] for c in classes if c.startswith("language-")), "")
        if tag in _VOID:
            return
        self._depth += 1
        if self._container is None and tag == "div" and "highlight" in classes:
            self._container = {"depth": self._depth, "lang": lang, "title": None, "text": []}
            return
        box = self._container
        if box is not None and self._skip is None and {"linenos", "linenodiv"} & set(classes):
            self._skip = self._depth  # line numbers, in a table cell or a span: not the text
            return
        if box is None:
            if tag == "pre":
                self._container = {"depth": self._depth, "lang": lang, "title": None, "text": []}
                self._pre = self._depth
            return
        if lang and not box["lang"]:
            box["lang"] = lang
        if tag == "span" and "filename" in classes and self._pre is None:
            self._filename = self._depth
            box["title"] = ""
        elif tag == "pre" and self._pre is None and self._skip is None:
            self._pre = self._depth

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        box = self._container
        if box is not None and self._depth == box["depth"]:
            text = "".join(box["text"])
            self.blocks.append(RenderedBlock(box["lang"].lower(), box["title"], text))
            self._container = None
            self._pre = None
        if self._filename == self._depth:
            self._filename = None
        if self._skip == self._depth:
            self._skip = None
        self._depth -= 1

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
    for index, block in enumerate(scanned):
        exact.setdefault((block.lang, block.title, _normal(block.content)), deque()).append(index)
        titled.setdefault((block.lang, block.title), deque()).append(index)
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
            for number, line in enumerate(text.split("\n"), 1):
                title = fence_title(line) if "title" in line else None
                if title is not None:
                    title_lines.setdefault(title, number)
        line = title_lines.get(block.title, 1) if block.title else 1
        out.append(CodeBlock(block.lang, block.title, line, 1, block.text, True, line))
    return out


Renderer = Callable[[str], str]


def extensions_of(config: dict[str, Any]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The Markdown extensions of a mkdocs.yml and their options, as Python-Markdown takes them."""
    names: list[str] = []
    options: dict[str, dict[str, Any]] = {}
    for item in config.get("markdown_extensions") or []:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict) and len(item) == 1:
            ((name, value),) = item.items()
            names.append(str(name))
            options[str(name)] = value if isinstance(value, dict) else {}
        else:
            raise ValueError(f"markdown_extensions entry {item!r} is neither a name nor a mapping")
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


def renderer(config: dict[str, Any], plain_code: bool = False) -> Renderer:
    """A function that renders Markdown with the site's extensions and their options.

    With `plain_code`, fenced blocks are written out plainly (language, title,
    text) instead of being highlighted: the same engine finds the same blocks,
    at a fifth of the cost, for `acp-docs examples`, which only reads them.
    """
    import markdown

    from acp_docs.patches import renderspeed

    renderspeed.install()
    try:
        names, options = extensions_of(config)
        if plain_code:
            fences = dict(options.get("pymdownx.superfences") or {})
            fence = {"name": "*", "class": "", "format": _plain_fence, "validator": _take_options}
            fences["custom_fences"] = [fence]
            options = {**options, "pymdownx.superfences": fences}
        engine = markdown.Markdown(extensions=names, extension_configs=options)
    except Exception as exc:  # an extension that cannot load is bad configuration
        raise LocatedError(
            "mkdocs.yml", None, None, f"markdown_extensions cannot be loaded: {exc}"
        ) from None

    def render(text: str) -> str:
        engine.reset()
        out = engine.convert(_without_front_matter(text))
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


def _without_front_matter(text: str) -> str:
    lines = text.split("\n")
    end = front_matter_end(lines)
    return "\n".join([""] * end + lines[end:])
