"""Where a long Markdown file can be cut so that Prettier formats each part as it formats the whole.

Prettier holds a whole Markdown file's syntax tree in memory: about 1 GB for an
80,000-line RFD. Its Markdown printer formats each top-level block on its own
and puts one blank line between blocks, so a file cut between two top-level
blocks formats, part by part, to what the whole formats to. A block is printed
differently only because of what precedes it (adjacent lists alternate their
markers, an indented code block after a list, `<!-- prettier-ignore -->` keeps
the next block) or of what the whole file defines (link references,
footnotes, math, ignore ranges).

So a cut is made only before a heading or a fenced code block that starts at
column 0 after exactly one blank line, outside front matter, fenced code and
raw HTML blocks, and a file that holds any of the whole-file constructs above,
or a carriage return, is never cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acp_docs.markdown.fences import FENCE_RUN, Run, closes, front_matter_end, open_run

PART_LINES = 1000
"""The least number of lines in a part (the last one may be shorter)."""

_HEADING = re.compile(r"#{1,6}(\s|$)")
_INDENT = 3
"""The most spaces CommonMark allows before a fence."""
_WHOLE_FILE = re.compile(
    r"prettier-ignore|^ {0,3}\[[^\]\n]*\]:|^ {0,3}\$\$|\r", re.MULTILINE | re.IGNORECASE
)
# CommonMark's raw HTML blocks that may hold blank lines: (start, end).
_RAW_HTML = [
    (re.compile(r" {0,3}<!--"), "-->"),
    (re.compile(r" {0,3}<\?"), "?>"),
    (re.compile(r" {0,3}<![A-Za-z]"), ">"),
    (re.compile(r" {0,3}<!\[CDATA\["), "]]>"),
    *(
        (re.compile(rf" {{0,3}}<{tag}(\s|>|$)", re.IGNORECASE), f"</{tag}>")
        for tag in ("script", "pre", "style", "textarea")
    ),
]


@dataclass(frozen=True)
class Part:
    """One part of a file: its first line (1-based) and its text, ending with a newline."""

    line: int
    text: str


def cut_points(text: str) -> list[int]:
    """The 0-based indexes of the lines a new part may start at, in order."""
    if _WHOLE_FILE.search(text):
        return []
    lines = text.split("\n")
    points: list[int] = []
    fence: Run | None = None
    html_end: str | None = None
    for index in range(front_matter_end(lines), len(lines)):
        line = lines[index]
        if fence is not None:
            if closes(line, fence, _INDENT):
                fence = None
            continue
        if html_end is not None:
            if html_end.lower() in line.lower():
                html_end = None
            continue
        if (
            index >= 2
            and (_HEADING.match(line) or FENCE_RUN.match(line))
            and lines[index - 1] == ""
            and lines[index - 2].strip() != ""
        ):
            points.append(index)
        fence = open_run(line, _INDENT)
        if fence is not None:
            continue
        for start, end in _RAW_HTML:
            found = start.match(line)
            if found and end.lower() not in line[found.end() :].lower():
                html_end = end
                break
    return points


def parts(text: str, size: int = PART_LINES) -> list[Part]:
    """`text` cut into parts of at least `size` lines at safe places; one part if there is none.

    Every part but the last leaves out the blank line before the next part, so
    the whole is the parts joined by one blank line each.
    """
    lines = text.split("\n")
    out: list[Part] = []
    start = 0
    for point in cut_points(text):
        if point - start < size:
            continue
        out.append(Part(start + 1, "\n".join(lines[start : point - 1]) + "\n"))
        start = point
    out.append(Part(start + 1, "\n".join(lines[start:])))
    return out
