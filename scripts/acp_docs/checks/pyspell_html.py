"""A pyspelling filter of this project: the prose of an HTML page, read in one streaming pass.

`.pyspelling.yml` names it (`acp_docs.checks.pyspell_html`) where pyspelling's
own `pyspelling.filters.html` would stand, with the same options, so a hand
run of `pyspelling -c .pyspelling.yml` and `acp-docs check` read the words
with the same code. pyspelling's filter builds a whole BeautifulSoup tree: on
an RFD of 80,000 lines that is half a minute and hundreds of megabytes. This
one keeps no tree (Python's `HTMLParser`, linear in the page):

- `ignores`: elements whose whole content is not prose, as selectors of the
  forms `tag`, `.class`, `tag.class`, or a list of them in `:is(...)`;
- `attributes`: attributes whose values are prose (`title`, `alt`);
- `comments`: whether the text of comments is prose (default true, as
  pyspelling's).

`script` and `style` are never prose. Any other option or selector form is
refused (`options_problem`), never guessed.
"""

from __future__ import annotations

import re
from typing import Any

from pyspelling import filters

from acp_docs.markdown.htmlscan import Attrs, ElementParser

_SIMPLE = re.compile(r"([a-z][a-z0-9-]*)?(?:\.([A-Za-z_][A-Za-z0-9_-]*))?")
_INLINE = frozenset(
    {"a", "abbr", "b", "cite", "code", "del", "em", "i", "ins", "kbd", "mark", "q", "s"}
    | {"samp", "small", "span", "strong", "sub", "sup", "u", "var"}
)
"""Elements inside a line of text: a word may run on across their edges."""
OPTIONS: dict[str, type] = {"comments": bool, "attributes": list, "ignores": list}


def selectors(text: str) -> list[tuple[str | None, str | None]] | None:
    """(tag, class) pairs of one `ignores` entry, or None for a form this filter does not read."""
    inner = text.strip()
    listed = inner.startswith(":is(") and inner.endswith(")")
    parts = inner[4:-1].split(",") if listed else [inner]
    out = []
    for part in parts:
        match = _SIMPLE.fullmatch(part.strip())
        if match is None or not (match.group(1) or match.group(2)):
            return None
        out.append((match.group(1), match.group(2)))
    return out


def options_problem(options: dict[str, Any]) -> str | None:
    """Why these options cannot be used, or None."""
    for key, value in options.items():
        kind = OPTIONS.get(key)
        if kind is None:
            return f"option {key!r} is not one this filter takes ({', '.join(OPTIONS)})"
        if not isinstance(value, kind) or (
            isinstance(value, list)
            and not all(isinstance(v, str) and 0 < len(v) <= 200 for v in value)
        ):
            return f"option {key!r} must be {'a boolean' if kind is bool else 'a list of text'}"
    for entry in options.get("ignores", []):
        if selectors(entry) is None:
            return f"selector {entry!r}: only tag, .class, tag.class and :is(...) of them are read"
    return None


class _Prose(ElementParser):
    def __init__(self, ignored: list[tuple[str | None, str | None]], attributes: set[str]) -> None:
        super().__init__()
        self.text: list[str] = []
        self.comments = True
        self._ignored = ignored
        self._attributes = attributes
        self._skip: int | None = None

    def _matches(self, tag: str, attrs: Attrs) -> bool:
        if tag in ("script", "style"):
            return True
        classes = set((dict(attrs).get("class") or "").split())
        return any(
            (name is None or name == tag) and (cls is None or cls in classes)
            for name, cls in self._ignored
        )

    def _attribute_text(self, attrs: Attrs) -> None:
        if self._skip is None:
            for name, value in attrs:
                if name in self._attributes and value:
                    self.text.append(f" {value} ")

    def void(self, tag: str, attrs: Attrs) -> None:
        if not self._matches(tag, attrs):
            self._attribute_text(attrs)
        if tag not in _INLINE:
            self.text.append(" ")

    def opened(self, tag: str, attrs: Attrs) -> None:
        if self._skip is None and self._matches(tag, attrs):
            self._skip = self.depth
        self._attribute_text(attrs)
        if tag not in _INLINE:
            self.text.append(" ")

    def closed(self, tag: str) -> None:
        if self._skip == self.depth:
            self._skip = None
        if tag not in _INLINE:
            self.text.append(" ")

    def handle_data(self, data: str) -> None:
        if self._skip is None:
            self.text.append(data)

    def handle_comment(self, data: str) -> None:
        if self._skip is None and self.comments:
            self.text.append(f" {data} ")


def prose(html: str, options: dict[str, Any]) -> str:
    """The prose of `html` under these options (see the module's docstring)."""
    ignored = [pair for entry in options.get("ignores", []) for pair in selectors(entry) or []]
    parser = _Prose(ignored, set(options.get("attributes", [])))
    parser.comments = bool(options.get("comments", True))
    parser.feed(html)
    parser.close()
    return "".join(parser.text)


class ProseFilter(filters.Filter):
    """pyspelling's side: each HTML source becomes the text of its prose."""

    def get_default_config(self) -> dict[str, Any]:
        """The options and their defaults."""
        return {"comments": True, "attributes": [], "ignores": []}

    def validate_options(self, k: str, v: Any) -> None:
        """Refuse what `options_problem` refuses, as pyspelling reports a bad option."""
        problem = options_problem({k: v})
        if problem is not None:
            raise ValueError(problem)

    def filter(self, source_file: str, encoding: str) -> list[Any]:
        """A file of HTML, as pyspelling hands one to the first step of a pipeline."""
        with open(source_file, encoding=encoding) as handle:
            text = handle.read()
        return [filters.SourceText(prose(text, self.config), source_file, encoding, "html")]

    def sfilter(self, source: Any) -> list[Any]:
        """HTML from the step before (pyspelling's Markdown filter)."""
        text = prose(source.text, self.config)
        return [filters.SourceText(text, source.context, source.encoding, "html")]


def get_plugin() -> type[ProseFilter]:
    """What pyspelling asks a filter module for."""
    return ProseFilter
