"""The prose a reader sees on a rendered page, and where each of its words stands in the source.

`words` reads a page's HTML as the site renders it (tabs, admonitions and
tables included) and keeps its visible text and `title`/`alt` attributes, but
not code, keyboard keys, permalink signs, URLs or what the build generated
(between `<!-- acp-docs:generated -->` and `<!-- acp-docs:end -->`). `places`
finds the first line and column of each word in the Markdown source, outside
front matter and code, in one pass.
"""

from __future__ import annotations

import re

from acp_docs.core.escaping import code_spans
from acp_docs.markdown import markers
from acp_docs.markdown.fences import code_lines, fence_title, front_matter_end
from acp_docs.markdown.htmlscan import Attrs, ElementParser

_GENERATED, _END = "generated", "end"
GENERATED_OPEN = f"<!-- acp-docs:{_GENERATED} -->"
GENERATED_CLOSE = f"<!-- acp-docs:{_END} -->"

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
_URL = re.compile(r"(?:https?://|mailto:|www\.)\S+|\S+@\S+\.\w+")
_CODE = re.compile(r"<(pre|code|kbd)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_SKIP_CLASSES = frozenset({"headerlink", "md-annotation__index"})
_INLINE = frozenset(
    {"a", "abbr", "b", "cite", "del", "em", "i", "ins", "mark", "q", "small", "span", "strong"}
    | {"sub", "sup", "u"}
)


def tokens(text: str) -> list[str]:
    """The words of a text, URLs and e-mail addresses left out."""
    return _WORD.findall(_URL.sub(" ", text))


class _Prose(ElementParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self._skip: int | None = None
        self._generated = False

    def _shown_attributes(self, attrs: Attrs) -> None:
        values = dict(attrs)
        if self._skip is None and not self._generated:
            for name in ("title", "alt"):
                if values.get(name):
                    self.text.append(" " + str(values[name]) + " ")

    def void(self, tag: str, attrs: Attrs) -> None:
        self._shown_attributes(attrs)

    def opened(self, tag: str, attrs: Attrs) -> None:
        self._shown_attributes(attrs)
        classes = set((dict(attrs).get("class") or "").split())
        if self._skip is None and (tag in ("script", "style") or classes & _SKIP_CLASSES):
            self._skip = self.depth

    def closed(self, tag: str) -> None:
        if self._skip == self.depth:
            self._skip = None
        if tag not in _INLINE:
            self.text.append(" ")

    def handle_comment(self, data: str) -> None:
        marker = markers.match_line(f"<!--{data}-->")
        if marker is not None and marker.closed and not marker.args:
            if marker.name == _GENERATED:
                self._generated = True
            elif marker.name == _END:
                self._generated = False

    def handle_data(self, data: str) -> None:
        if self._skip is None and not self._generated:
            self.text.append(data)


def visible_text(html: str) -> str:
    """The prose of a rendered page: what a reader reads, code and generated parts left out."""
    parser = _Prose()
    parser.feed(_CODE.sub(" ", html))
    parser.close()
    return "".join(parser.text)


def words(html: str) -> set[str]:
    """The distinct words of a rendered page's prose."""
    return set(tokens(visible_text(html)))


def places(source: str, wanted: set[str]) -> dict[str, tuple[int, int]]:
    """The first (line, column) of each wanted word in the Markdown prose of `source`.

    Front matter, fenced code, inline code and URLs are passed over first; a
    word seen nowhere else is then looked for in the titles of fenced blocks,
    which the page shows. A word that only the rendering shows is not placed.
    """
    lines = source.split("\n")
    hidden = set(range(1, front_matter_end(lines) + 1)) | code_lines(source)
    found: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(lines, start=1):
        if number in hidden or len(found) == len(wanted):
            continue
        visible = list(line)
        for start, end in code_spans(line):
            visible[start:end] = " " * (end - start)
        masked = _URL.sub(lambda m: " " * len(m.group(0)), "".join(visible))
        for match in _WORD.finditer(masked):
            word = match.group(0)
            if word in wanted and word not in found:
                found[word] = (number, match.start() + 1)
    for number, line in enumerate(lines, start=1):
        if len(found) == len(wanted):
            break
        if "title" not in line or fence_title(line) is None:
            continue  # only the opening line of a titled block shows prose
        for match in _WORD.finditer(line):
            word = match.group(0)
            if word in wanted and word not in found:
                found[word] = (number, match.start() + 1)
    return found
