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

from acp_docs.markdown import code_lines, front_matter_end

MAX_DEPTH = 24
"""The deepest nesting of lists and quotes a line may have."""

MAX_UNCLOSED = 64
"""How many markup openers of one kind may follow each other without the end of that kind."""

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
    return None
