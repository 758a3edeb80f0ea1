"""Markdown the engine would take super-linear time or stack depth over: found first, in one pass.

Python-Markdown nests a list or a quote by recursion, and its time grows faster
than the page with the depth (400 nested list levels end in a RecursionError
after seconds). Its raw-HTML reader is the standard `html.parser`, which
rescans the rest of the page from each markup opener that is never closed
(`<a <a <a ...`, `<![CDATA[` repeated): minutes for a few kilobytes. No page
needs either, so a page that holds one is refused with a finding at the line,
before it is rendered; everything here is linear in the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mkdocs.exceptions import PluginError

from acp_docs.core import budget
from acp_docs.markdown.fences import code_lines, front_matter_end
from acp_docs.markdown.htmlscan import VOID
from acp_docs.sources.lines import LineIndex

MAX_DEPTH = 24
"""The deepest nesting of lists and quotes a line may have."""

MAX_UNCLOSED = 64
"""How many markup openers of one kind may follow each other without the end of that kind."""

MAX_HTML_DEPTH = 256
"""How deep raw HTML elements may nest: HTML5 tree building costs the depth at each tag."""
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,40})\b[^<>]*?(/?)>")

MAX_BRACKET_REACH = 2_000_000
"""Characters the link reader may scan in all for the `]` of each `[` (about half a second)."""

PAGE_SECONDS = 20.0
"""Rendering one page takes longer than this only on input made to be slow."""

_BRACKET_OR_BLOCK_END = re.compile(r"[\[\]]|\n[ \t]*\n")
_NESTING = re.compile(r"(?:[ ]{0,3}(?:[-+*]|\d{1,9}[.)])[ \t]+|[ ]{0,3}>[ ]?)")
_OPENERS = re.compile(r"<!--|-->|<!\[CDATA\[|\]\]>|<\?|<!|</?[A-Za-z]|>")
_ENDS = {"<!--": "-->", "<![CDATA[": "]]>", "<?": ">", "<!": ">", "<": ">"}


@dataclass(frozen=True)
class Hazard:
    """Where a page is too deep or too unclosed to render, and why."""

    line: int
    col: int
    message: str


def _depth(line: str) -> int:
    """Indentation levels (4 columns each) and list or quote markers at the start of `line`."""
    expanded = line.expandtabs(4)
    bare = expanded.lstrip(" ")
    indent = (len(expanded) - len(bare)) // 4
    markers = 0
    at = 0
    while indent + markers <= MAX_DEPTH:
        match = _NESTING.match(bare, at)
        if match is None or match.end() == at:
            break
        markers += 1
        at = match.end()
    return indent + markers if markers else 0


def _bracket_reach(text: str) -> tuple[int, int]:
    """How far Markdown's link pattern scans in all from the `[`s of `text` (to each one's `]`,
    or to the end of its block), and the offset of the `[` that scans farthest."""
    total, worst, worst_at = 0, 0, 0
    open_brackets: list[int] = []

    def add(start: int, end: int) -> None:
        nonlocal total, worst, worst_at
        total += end - start
        if end - start > worst:
            worst, worst_at = end - start, start

    for match in _BRACKET_OR_BLOCK_END.finditer(text):
        if match.group() == "[":
            open_brackets.append(match.start())
        elif match.group() == "]":
            if open_brackets:
                add(open_brackets.pop(), match.start())
        else:
            for start in open_brackets:
                add(start, match.start())
            open_brackets.clear()
    for start in open_brackets:
        add(start, len(text))
    return total, worst_at


def hazard(text: str) -> Hazard | None:
    """The first place in the Markdown `text` that would make rendering super-linear, or None."""
    lines = text.split("\n")
    in_code = code_lines(text)
    first = front_matter_end(lines)
    runs = dict.fromkeys(_ENDS.values(), 0)
    opened_at: dict[str, tuple[int, int]] = {}  # where each run began
    for number in range(first + 1, len(lines) + 1):
        if number in in_code:
            continue
        line = lines[number - 1]
        if _depth(line) > MAX_DEPTH:
            return Hazard(
                number,
                1,
                f"lists or quotes nested deeper than {MAX_DEPTH} levels: the site's Markdown"
                " engine would take minutes or fail on it; flatten them",
            )
        for match in _OPENERS.finditer(line):
            token = match.group(0)
            if token in runs:  # an end: `-->` and `]]>` end a tag too
                runs[token] = 0
                runs[">"] = 0
                continue
            kind = token if token in _ENDS else "<"
            end = _ENDS[kind]
            runs[end] += 1
            if runs[end] == 1:
                opened_at[end] = (number, match.start() + 1)
            if runs[end] > MAX_UNCLOSED:
                where_line, where_col = opened_at[end]
                return Hazard(
                    where_line,
                    where_col,
                    f"more than {MAX_UNCLOSED} HTML openers ({kind!r}...) without a closing"
                    f" {end!r}: the site's HTML reader would rescan the page from each; close"
                    " them or write them as `&lt;`",
                )
    depth = 0
    for match in _TAG.finditer(text):
        closing, name, self_closing = match.groups()
        if closing:
            depth = max(depth - 1, 0)
        elif not self_closing and name.lower() not in VOID:
            depth += 1
            if depth > MAX_HTML_DEPTH:
                return Hazard(
                    *LineIndex(text).at(match.start()),
                    f"HTML elements nested deeper than {MAX_HTML_DEPTH} levels: the page would take"
                    " minutes to read as a browser does; close them, or write them in Markdown",
                )
    reach, offset = _bracket_reach(text)
    if reach > MAX_BRACKET_REACH:
        return Hazard(
            *LineIndex(text).at(offset),
            f"brackets that Markdown's link reader would scan {reach:,} characters for (more"
            f" than {MAX_BRACKET_REACH:,}): close each [ with its ], or write it as \\[",
        )
    return None


class RenderClock:
    """Stops a build whose rendering of one page runs past `PAGE_SECONDS`.

    The budget above covers the slow input that is known; this covers the
    rest, with an error that names the page instead of a build that never
    ends. It is one step of `acp_docs.core.budget`, inside the build's own.
    """

    def __init__(self, seconds: float = PAGE_SECONDS) -> None:
        self.seconds = seconds
        self.page = ""
        self._step: budget.Step | None = None

    def _expired(self, out: budget.OutOfTime) -> PluginError:
        return PluginError(
            f"{out.within}: rendering this page took more than {out.seconds:g} s; it holds input"
            " made to be slow for Markdown (deep nesting, thousands of unclosed tags or"
            " brackets): remove it"
        )

    def start(self, page: str) -> None:
        """Start timing the rendering of `page` (its path as shown)."""
        self.stop()
        self.page = page
        self._step = budget.start(page, self.seconds, self._expired)

    def stop(self) -> None:
        """The page is rendered: stop the timer."""
        budget.stop(self._step)
        self._step = None
