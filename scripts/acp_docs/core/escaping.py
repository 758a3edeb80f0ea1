"""Values from contributors made safe to place in generated Markdown.

`literal` is for values shown as they are (an RFD's title, a handle): nothing
in them can become HTML, a link or emphasis. `prose` is for descriptions that
may use Markdown (code spans, links) but never raw HTML. `visible` is for
text shown to a person in a terminal or an annotation: what cannot be seen,
or would reorder what is seen, is shown as an escape. `unicode_data` is for
JSON and SARIF, which keep every real character but no lone surrogate.
`strip_ansi` takes the colour codes out of a tool's output.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable
from functools import partial

_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")

INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
"""Characters Python counts as printable that show nothing: fillers, variation selectors."""


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return repr(char)[1:-1]
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` as a person may be shown it: hidden and reordering characters as escapes.

    Control characters, line and paragraph separators, spaces other than
    U+0020, bidirectional and other format characters (U+200B-U+200F,
    U+202A-U+202E, U+2066-U+2069, U+061C, U+FEFF ...), unassigned and private
    code points, fillers and variation selectors become `\\n`, `\\x1b`,
    `\\u202e`; a lone surrogate (a byte of a name that is not UTF-8) becomes
    `\\udce9`. The result is one line, and the order of what it shows is the
    order of its characters.
    """
    return "".join(
        _escape(char) if not char.isprintable() or char in INVISIBLE else char for char in str(text)
    )


def printable(text: str) -> str:
    """`text` on one line, in the order it is read: hidden and reordering characters escaped.

    Control characters (a line break, a terminal escape), bidirectional and
    other invisible format characters, and the bytes of a name that is not
    UTF-8 are shown as escapes (`\\n`, `\\x1b`, `\\u202e`, `\\udce9`), so a file
    name or a message cannot forge another line or reorder what is read.
    """
    return visible(text)


def unicode_data(text: str) -> str:
    """`text` with every lone surrogate as `\\udcXX`, so it encodes as UTF-8 and as valid JSON."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def literal(text: str) -> str:
    """`text` as plain characters in Markdown: HTML escaped, Markdown punctuation escaped."""
    one_line = " ".join(str(text).split())
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(one_line, quote=True))


def _backtick_runs(line: str) -> list[tuple[int, int]]:
    """(start, length) of every maximal run of backticks of `line`."""
    runs = []
    index = line.find("`")
    while index >= 0:
        end = index
        while end < len(line) and line[end] == "`":
            end += 1
        runs.append((index, end - index))
        index = line.find("`", end)
    return runs


def code_spans(line: str) -> list[tuple[int, int]]:
    """The (start, end) of every inline code span of one line, as CommonMark reads them.

    A span opens at a run of backticks and closes at the next run of exactly
    the same length (a run is every backtick in a row: one inside a longer run
    closes nothing). A backslash before a run, outside a span, escapes its first
    backtick; inside a span a backslash is only a backslash. A run that nothing
    closes is text. A differential test holds this to markdown-it-py's CommonMark
    parse; decisions about safety are made on the renderers' own parse.
    """
    runs = _backtick_runs(line)
    later: dict[int, list[int]] = {}
    for number, (_start, length) in enumerate(runs):
        later.setdefault(length, []).append(number)
    spans: list[tuple[int, int]] = []
    walked = 0  # the end of the last span: backslashes before it are not escapes
    for number, (start, length) in enumerate(runs):
        if start < walked:
            continue
        slashes = start
        while slashes > walked and line[slashes - 1] == "\\":
            slashes -= 1
        opener, size = start, length
        if (start - slashes) % 2:
            opener, size = start + 1, length - 1  # the first backtick is escaped
            if not size:
                continue
        same = later.get(size, [])
        at = bisect.bisect_right(same, number)
        if at == len(same):
            continue
        close_start, close_length = runs[same[at]]
        spans.append((opener, close_start + close_length))
        walked = close_start + close_length
    return spans


def _outside_code(line: str, transform: Callable[[str], str]) -> str:
    """One line with `transform` applied to what lies outside its code spans."""
    pieces, last = [], 0
    for start, end in code_spans(line):
        pieces.append(transform(line[last:start]))
        pieces.append(line[start:end])
        last = end
    pieces.append(transform(line[last:]))
    return "".join(pieces)


def prose(text: str) -> str:
    """Markdown prose with any raw HTML shown as text (code spans are left alone)."""
    escape = partial(html.escape, quote=False)
    return "\n".join(_outside_code(line, escape) for line in str(text).split("\n"))


def text_with_code(text: str) -> str:
    """One line of plain text whose code spans stay code: everything else as `literal`."""

    def plain(piece: str) -> str:
        lead = " " if piece.startswith(" ") else ""
        trail = " " if piece.endswith(" ") and piece.strip() else ""
        return lead + literal(piece) + trail

    return _outside_code(" ".join(str(text).split()), plain)


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """`text` without terminal colour codes (tools colour their output under CI)."""
    return _ANSI.sub("", text)
