"""Fenced code blocks in Markdown source: the one reader of fence lines.

Every reader of a page finds fences here. `fenced_blocks` follows
pymdownx.superfences, as the site renders (fences indented in tabs and
admonitions, quoted with `>`, the info string read with superfences' own
expressions). `Run`, `open_run` and `closes` read fences as CommonMark does,
for Markdown that superfences does not render: Prettier's (`parts`) and
exported MDX (`code_blocks`). `FENCE_RUN` is the one pattern of a fence line.
Front matter is skipped; line numbers stay those of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from markdown.extensions.attr_list import get_attrs
from mkdocs.utils.meta import YAML_RE
from pymdownx.superfences import RE_HL_LINES, RE_LINENUMS, RE_NESTED_FENCE_START, RE_OPTIONS

FENCE_RUN = re.compile(r"(?P<fence>`{3,}|~{3,})(?P<info>.*)")
"""A run of three or more ` or ~ and the rest of the line (the info string); match it at the
first character after the indent or quote."""

_QUOTE = re.compile(r"^(?:[ ]{0,3}>[ ]?)+")
_ANY_TITLE = re.compile(r"""\btitle=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')""")
_HL_OPTIONS = {"hl_lines": RE_HL_LINES, "linenums": RE_LINENUMS, "title": None, "title_mode": None}


def front_matter_end(lines: list[str]) -> int:
    """The number of lines the YAML front matter takes (0 when there is none), as MkDocs
    finds it (`mkdocs.utils.meta.YAML_RE`): a page and its check read the same block."""
    if not lines or not lines[0].startswith("---"):
        return 0
    found = YAML_RE.match("\n".join(lines))
    return found.group(0).count("\n") if found else 0


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
    return FENCE_RUN.match(line, len(line) - len(line.lstrip("> "))) is not None


def _prefix(line: str, width: int) -> tuple[str, str]:
    """`line` split after at most `width` characters of spaces and `>`, as superfences does."""
    head = line[:width]
    taken = len(head) - len(head.lstrip("> "))
    return line[:taken], line[taken:]


def fenced_blocks(text: str) -> list[CodeBlock]:
    """Every fenced block of `text` (decoded, `\\n` line ends) as pymdownx.superfences finds it.

    The last few texts' blocks are kept: a page is scanned by the examples
    check, its render limits and its block map in turn.
    """
    return list(_scanned(text))


@lru_cache(maxsize=8)
def _scanned(text: str) -> tuple[CodeBlock, ...]:
    """The blocks of `text`, found as `fenced_blocks` says.

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
    return tuple(blocks)


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


@dataclass(frozen=True)
class Run:
    """An opening fence as CommonMark reads it: its indent, character, length and info string."""

    indent: int
    char: str
    length: int
    info: str


def open_run(line: str, max_indent: int | None = None) -> Run | None:
    """The fence `line` opens for CommonMark, else None.

    At most `max_indent` spaces before it (any number when None); a backtick
    fence's info string may not hold a backtick.
    """
    indent = len(line) - len(line.lstrip(" "))
    if max_indent is not None and indent > max_indent:
        return None
    match = FENCE_RUN.match(line, indent)
    if match is None:
        return None
    fence, info = match["fence"], match["info"]
    if fence[0] == "`" and "`" in info:
        return None
    return Run(indent, fence[0], len(fence), info)


def closes(line: str, run: Run, max_indent: int | None = None) -> bool:
    """True when `line` closes `run`: the same character, as long or longer, nothing after."""
    indent = len(line) - len(line.lstrip(" "))
    if max_indent is not None and indent > max_indent:
        return False
    match = FENCE_RUN.match(line, indent)
    return (
        match is not None
        and match["fence"][0] == run.char
        and len(match["fence"]) >= run.length
        and match["info"].strip(" \t") == ""
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
        run = open_run(lines[index])
        if run is None:
            index += 1
            continue
        body: list[str] = []
        end = index + 1
        closed = False
        while end < len(lines):
            if closes(lines[end], run):
                closed = True
                break
            line = lines[end]
            strip = min(run.indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            end += 1
        blocks.append(
            CodeBlock(
                lang=_lang(run.info),
                title=_title(run.info),
                line=index + 1,
                col=run.indent + 1,
                content="\n".join(body),
                closed=closed,
                end_line=end + 1 if closed else end,
            )
        )
        index = end + 1
    return blocks


def code_lines(text: str) -> set[int]:
    """The 1-based line numbers that fenced code blocks take, fences included."""
    lines: set[int] = set()
    for block in fenced_blocks(text):
        lines.update(range(block.line, block.end_line + 1))
    return lines
