"""Fenced code blocks of a Markdown file with their lines, indented ones included.

Material content tabs (`=== "v1"`) and admonitions (`!!! note`) indent their
content, so a fence may start after any amount of white space; its content is
de-indented by the fence's own indentation. Front matter is skipped, line
numbers stay those of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_TITLE = re.compile(r"""\btitle=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')""")


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


def _lang(info: str) -> str:
    info = info.strip().lstrip("{").strip()
    first = info.split(None, 1)[0] if info else ""
    return first.lstrip(".").rstrip("}").lower()


def _title(info: str) -> str | None:
    match = _TITLE.search(info)
    if not match:
        return None
    return match.group("dq") if match.group("dq") is not None else match.group("sq")


def front_matter_end(lines: list[str]) -> int:
    """The number of lines the YAML front matter takes (0 when there is none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return index + 1
    return 0


def code_blocks(text: str) -> list[CodeBlock]:
    """Every fenced code block of `text` (already decoded, `\\n` line ends)."""
    lines = [line.expandtabs(4) for line in text.split("\n")]
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


_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*$")


@dataclass(frozen=True)
class Heading:
    """An ATX heading outside code blocks: level, text and line."""

    level: int
    text: str
    line: int


def code_lines(text: str) -> set[int]:
    """The 1-based line numbers that fenced code blocks take, fences included."""
    lines: set[int] = set()
    for block in code_blocks(text):
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
        match = _HEADING.match(lines[number - 1])
        if match:
            found.append(Heading(len(match["hashes"]), match["text"].strip(), number))
    return found
