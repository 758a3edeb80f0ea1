"""A bound on the work Python-Markdown does on a page, found before it renders the page.

Python-Markdown reads raw HTML with Python's `html.parser`, and its link
pattern looks for the bracket that closes each `[`. On most text both are
linear, but some input makes them scan to the end of the text from each of
thousands of places: a few kilobytes of `<a ` or `<![CDATA[` without a
closing `>` or `]]>`, or thousands of `[` without their `]`, cost minutes
of CPU. This reads the source once and adds up, for each such place, how far
those scans can go (the distance to the `>`, `]]>` or `]` that ends it, or
to the end of the block). A page whose total is over `BUDGET` is not given
to Markdown: it is a finding at the line of its costliest place.
"""

from __future__ import annotations

import re
import signal
import threading
from dataclasses import dataclass
from typing import Any

from mkdocs.exceptions import PluginError

BUDGET = 4_000_000
"""Characters of scanning allowed for a page (about half a second of Markdown's time)."""
CDATA_WEIGHT = 8
"""A `<![` that does not end scans the text several times over (measured)."""
BRACKET_WEIGHT = 2
MAX_NESTING = 32
"""Levels of list, quote or block nesting a page may have: Markdown recurses into each."""
PAGE_SECONDS = 20.0
"""Rendering one page takes longer than this only on input made to be slow."""
_TAG_OPEN = re.compile(r"<[A-Za-z/?!]")
_BRACKET_OR_BLOCK_END = re.compile(r"[\[\]]|\n[ \t]*\n")


@dataclass(frozen=True)
class Cost:
    """The total scanning a page may cause, and the place that causes the most."""

    total: int
    worst_offset: int
    worst_kind: str


def _starts(text: str, literal: str) -> list[int]:
    """Where each `literal` in `text` starts, in order."""
    return [m.start() for m in re.finditer(re.escape(literal), text)]


def cost(text: str) -> Cost:
    """How far Markdown's scans can reach on `text`, in characters, in one linear pass."""
    size = len(text)
    total = 0
    worst = (0, 0, "")

    def add(offset: int, reach: int, kind: str) -> None:
        nonlocal total, worst
        total += reach
        if reach > worst[0]:
            worst = (reach, offset, kind)

    closers = _starts(text, ">")
    cdata_ends = _starts(text, "]]>")
    index = 0
    cdata_index = 0
    for match in _TAG_OPEN.finditer(text):
        start = match.start()
        while index < len(closers) and closers[index] < start:
            index += 1
        end = closers[index] if index < len(closers) else size
        add(start, end - start, "an HTML tag without its closing >")
        if text.startswith("<![", start):
            while cdata_index < len(cdata_ends) and cdata_ends[cdata_index] < start:
                cdata_index += 1
            end = cdata_ends[cdata_index] if cdata_index < len(cdata_ends) else size
            add(start, (end - start) * CDATA_WEIGHT, "a <![ section without its ]]>")
    open_brackets: list[int] = []
    for match in _BRACKET_OR_BLOCK_END.finditer(text):
        position = match.start()
        if match.group() == "[":
            open_brackets.append(position)
        elif match.group() == "]":
            if open_brackets:
                start = open_brackets.pop()
                add(start, (position - start) * BRACKET_WEIGHT, "a [ without its ]")
        else:
            for start in open_brackets:
                add(start, (position - start) * BRACKET_WEIGHT, "a [ without its ]")
            open_brackets.clear()
    for start in open_brackets:
        add(start, (size - start) * BRACKET_WEIGHT, "a [ without its ]")
    return Cost(total, worst[1], worst[2])


_NESTING = re.compile(r"^((?:[ \t]*>)*)([ \t]*)", re.MULTILINE)


def deepest(text: str) -> tuple[int, int]:
    """The deepest nesting of a line (quote markers plus four-space indents) and its line."""
    deepest_level, deepest_line = 0, 1
    for line, match in enumerate(_NESTING.finditer(text), start=1):
        quotes = match.group(1).count(">")
        indent = len(match.group(2).expandtabs(4)) // 4
        if quotes + indent > deepest_level:
            deepest_level, deepest_line = quotes + indent, line
    return deepest_level, deepest_line


def problem(text: str) -> tuple[int, int, str] | None:
    """(line, column, message) when `text` nests too deep or is over the budget, else None."""
    level, line = deepest(text)
    if level > MAX_NESTING:
        return (
            line,
            1,
            f"this line nests {level} levels deep (lists, quotes, indented blocks); at most"
            f" {MAX_NESTING} are rendered. The page is not rendered.",
        )
    found = cost(text)
    if found.total <= BUDGET:
        return None
    offset = found.worst_offset
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return (
        line,
        column,
        f"this page would make the Markdown parser scan {found.total:,} characters (more than"
        f" {BUDGET:,}): {found.worst_kind}, here and elsewhere; close what is open, or put it in"
        " a code block. The page is not rendered.",
    )


class RenderClock:
    """Stops a build whose rendering of one page runs past `PAGE_SECONDS`.

    The budget above covers the slow input that is known; this covers the
    rest, with an error that names the page instead of a build that never
    ends. It needs the main thread's timer signal, so it is off while serving
    (the server builds in another thread) and where there is no SIGALRM.
    """

    def __init__(self, seconds: float = PAGE_SECONDS) -> None:
        self.seconds = seconds
        self.page = ""

    def _usable(self) -> bool:
        return (
            hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        )

    def _expired(self, signum: int, frame: Any) -> None:
        raise PluginError(
            f"{self.page}: rendering this page took more than {self.seconds:g} s; it holds input"
            " made to be slow for Markdown (deep nesting, thousands of unclosed tags or"
            " brackets): remove it"
        )

    def start(self, page: str) -> None:
        """Start timing the rendering of `page` (its path as shown)."""
        if self._usable():
            self.page = page
            signal.signal(signal.SIGALRM, self._expired)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def stop(self) -> None:
        """The page is rendered: stop the timer."""
        if self._usable():
            signal.setitimer(signal.ITIMER_REAL, 0)
