"""Page content by allowlist: what a rendered page may hold, read as a browser reads it.

Every page's content, as Python-Markdown rendered it, is parsed by an HTML5
parser that follows the WHATWG tree-construction rules (Lexbor, through
selectolax), so comments, CDATA, raw-text elements (`noscript`, `xmp`, ...)
and foreign content (SVG, MathML) are read exactly as Chromium reads them.
Each element, attribute, class, id, URL and style outside `POLICY` is a
`Problem`. The content that is published is what the allowlist sanitizer
`nh3` (Ammonia, on html5ever) keeps under the same policy; if the sanitizer
drops something the walk did not name, that is a problem too, so the two can
never disagree silently. A long page is walked and cleaned a piece at a time,
cut only where the parser is provably back at the start (`pieces`).

What an author can write stays open: headings, paragraphs, lists, tables
(with column alignment), code blocks with titles and line numbers, tabs,
admonitions, details, footnotes, abbreviations, definition lists, images
from the site itself, links to any http(s) or mailto address, and Material's
buttons and grids. Scripts, handlers, frames, forms, styles, remote images,
inline SVG and any class of the theme's own layout are not.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import nh3
from selectolax.lexbor import LexborNode

from acp_docs.policy import crossrefs, pieces
from acp_docs.sources.lines import LineIndex

ELEMENTS = frozenset(
    {"a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd", "del"}
    | {"details", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4"}
    | {"h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "mark", "ol", "p"}
    | {"pre", "q", "s", "samp", "small", "span", "strong", "sub", "summary", "sup", "table"}
    | {"tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr"}
    | {"autoref"}
)
"""Elements of Markdown and of the configured extensions, and of the plugin's own sections.

`autoref` is mkdocs-autorefs' placeholder (its `[text][identifier]` syntax and
mkdocstrings' cross-references): once every page is rendered, autorefs makes
each a link to the page that documents the identifier, or leaves its text.
It reads them back without a parser: see `crossrefs` for what that asks of them.
"""
GLOBAL_ATTRIBUTES = frozenset({"class", "id", "title", "role", "aria-label", "aria-hidden"})
ELEMENT_ATTRIBUTES: dict[str, frozenset[str]] = {
    "a": frozenset({"href", "name"}),
    "autoref": frozenset({"identifier", "optional", "hover", "slug", "filepath", "lineno"})
    | frozenset({"origin", "backlink-type", "backlink-anchor"}),
    "col": frozenset({"span"}),
    "details": frozenset({"open"}),
    "div": frozenset({"data-tabs"}),
    "img": frozenset({"src", "alt", "width", "height", "loading"}),
    "input": frozenset({"type", "name", "checked"}),
    "label": frozenset({"for"}),
    "li": frozenset({"value"}),
    "ol": frozenset({"start", "type"}),
    "td": frozenset({"style", "colspan", "rowspan", "align"}),
    "th": frozenset({"style", "colspan", "rowspan", "align"}),
    "time": frozenset({"datetime"}),
}
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
CLASSES = frozenset(
    {"admonition", "admonition-title", "annotate", "inline", "end", "headerlink", "highlight"}
    | {"highlighttable", "linenos", "linenodiv", "normal", "special", "filename", "footnote"}
    | {"footnote-ref", "footnote-backref", "tabbed-set", "tabbed-alternate", "tabbed-labels"}
    | {"tabbed-content", "tabbed-block", "grid", "cards", "md-button", "md-button--primary"}
    | {"note", "abstract", "summary", "tldr", "info", "todo", "tip", "hint", "important"}
    | {"success", "check", "done", "question", "help", "faq", "warning", "caution"}
    | {"attention", "failure", "fail", "missing", "danger", "error", "bug", "example"}
    | {"quote", "cite", "doc", "first"}
)
"""Classes of Markdown's extensions and Material's content features, by name."""
CLASS_PATTERN = re.compile(
    r"acp-[a-z0-9_-]{1,64}"  # the plugin's and the site's own styles
    r"|language-[A-Za-z0-9_+#.-]{1,40}"  # a code block's language
    r"|[a-z]{1,3}[0-9]?(?:-[A-Z][A-Za-z]{0,30}){0,4}"  # Pygments token classes
    r"|doc(?:-[a-z0-9]{1,30}){1,3}"  # mkdocstrings' API pages (doc-heading, doc-symbol-class)
)
ID_PATTERN = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9_:.-]{0,127}|__codelineno-[0-9]{1,6}-[0-9]{1,6}|__tabbed_[0-9]{1,6}_[0-9]{1,6}"
)
"""Ids of headings, footnotes, code lines and tabs; `__`-names other than these are the theme's."""
STYLE_PATTERN = re.compile(r"\s*text-align:\s*(?:left|right|center)\s*;?\s*")
"""The only style a page may set: a table column's alignment (Markdown's `:---:`)."""
DIGITS = re.compile(r"[0-9]{1,5}")
ATTRIBUTE_VALUES: dict[tuple[str, str], frozenset[str]] = {
    ("input", "type"): frozenset({"radio", "checkbox"}),
    ("img", "loading"): frozenset({"lazy", "eager"}),
    ("ol", "type"): frozenset({"1", "a", "A", "i", "I"}),
    ("td", "align"): frozenset({"left", "right", "center"}),
    ("th", "align"): frozenset({"left", "right", "center"}),
    ("aria-hidden", ""): frozenset({"true", "false"}),
}
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_URL_TRIM = "".join(map(chr, range(0x21)))
_URL_DROPPED = {9: None, 10: None, 13: None}
_SYNTHETIC = frozenset({"html", "head", "body"})


@dataclass(frozen=True)
class Problem:
    """Something in a page outside the allowlist: what to look for in the source, and what."""

    needle: str
    message: str
    fallback: str = ""
    """Looked for when the needle is not in the source (a value spelt with entities)."""


def unsafe_link(url: str) -> bool:
    """True for a link as written whose scheme, read as a browser reads it (entities
    decoded: `java&#x09;script:` is `javascript:`), is not one of `LINK_SCHEMES`."""
    read = scheme_of(html.unescape(url))
    return bool(read) and read not in LINK_SCHEMES


def scheme_of(url: str) -> str:
    """The scheme, lower-case, that a browser's URL parser reads in `url` ('' if relative).

    As the URL parser does, C0 controls and spaces are trimmed from both ends and
    tabs and newlines dropped anywhere, so `java\\tscript:` is `javascript`.
    """
    match = _SCHEME.match(url.strip(_URL_TRIM).translate(_URL_DROPPED))
    return match.group(1).lower() if match else ""


def _same_site(url: str) -> bool:
    """A relative URL within this site: no scheme, no other host, not from the root."""
    cleaned = url.strip(_URL_TRIM).translate(_URL_DROPPED).replace("\\", "/")
    return not scheme_of(cleaned) and not cleaned.startswith("/")


def value_problem(tag: str, name: str, value: str) -> str | None:
    """Why the allowed attribute `name` of `<tag>` may not have `value` (None: it may)."""
    if tag == "autoref" and not crossrefs.VALUE.fullmatch(value):
        return f"a quote, <, > or & (or more than 300 characters) in a cross-reference's {name}"
    if name == "class":
        bad = _foreign_classes(value)
        return f"the class {bad[0][:60]!r} is not one of the site's" if bad else None
    if name in {"id", "name", "for"}:
        if tag == "input" and name == "name" and re.fullmatch(r"__tabbed_[0-9]{1,6}", value):
            return None
        return None if ID_PATTERN.fullmatch(value) else f"the {name} {value[:60]!r} is not allowed"
    if name == "href":
        scheme = scheme_of(value)
        if scheme and scheme not in LINK_SCHEMES:
            return f"a {scheme}: link"
        return None
    if name == "src":
        return None if _same_site(value) else f"an image from elsewhere ({value[:60]!r})"
    if name == "style":
        return None if STYLE_PATTERN.fullmatch(value) else f"the style {value[:60]!r}"
    if name in {"width", "height", "span", "colspan", "rowspan", "start", "value"}:
        return None if DIGITS.fullmatch(value) else f"{name}={value[:30]!r} is not a number"
    if name == "datetime":
        return None if re.fullmatch(r"[0-9T:.+Z-]{4,40}", value) else "a malformed datetime"
    if name == "data-tabs":
        return None if re.fullmatch(r"[0-9:]{1,20}", value) else "a malformed data-tabs"
    allowed = ATTRIBUTE_VALUES.get((tag, name)) or ATTRIBUTE_VALUES.get((name, ""))
    if allowed is not None and value not in allowed:
        return f"{name}={value[:30]!r} on <{tag}>"
    return None


def _foreign_classes(value: str) -> list[str]:
    return [t for t in value.split() if t not in CLASSES and not CLASS_PATTERN.fullmatch(t)]


def _allowed_name(tag: str, name: str) -> bool:
    return name in GLOBAL_ATTRIBUTES or name in ELEMENT_ATTRIBUTES.get(tag, ())


class _Record:
    """The elements of a page as shapes (`_shape`), held compactly: a digest of them all and
    a hash of each, so a long page's elements are never all held as objects at once."""

    def __init__(self) -> None:
        self.hashes: array[int] = array("q")
        self._digest = hashlib.blake2b(digest_size=16)

    def add(self, shape: _Shape) -> None:
        """Note the next element."""
        text = repr(shape)
        self.hashes.append(hash(text))
        self._digest.update(text.encode("utf-8", "surrogatepass") + b"\n")

    def digest(self) -> bytes:
        """The digest of every element noted, in order."""
        return self._digest.digest()


def _walk(nodes: Iterator[LexborNode], record: _Record) -> list[Problem]:
    found: list[Problem] = []
    for node in nodes:
        tag = node.tag or ""
        if tag == "-comment":
            continue  # a comment, as the browser reads it: never shown, dropped when published
        attributes = node.attributes
        if tag in _SYNTHETIC:
            # The parser's own html/head/body: attributes on them came from the content.
            for name in attributes:
                found.append(Problem(name, f"an attribute {name}= on <{tag}>"))
            continue
        record.add(_shape(tag, attributes))
        if tag.startswith("-") or tag not in ELEMENTS:
            found.append(Problem(f"<{tag}", f"a <{tag}> element"))
            continue
        if tag == "autoref" and "identifier" not in attributes:
            found.append(Problem("<autoref", "a cross-reference <autoref> without an identifier"))
        for name, value in attributes.items():
            if not _allowed_name(tag, name):
                found.append(Problem(name, f"the attribute {name}= on <{tag}>"))
                continue
            why = value_problem(tag, name, value or "")
            if why is not None:
                needle = _foreign_classes(value or "")[0] if name == "class" else value or name
                found.append(Problem(needle, f"{why} in {name}= of <{tag}>", name))
    return found


def _filter(tag: str, name: str, value: str) -> str | None:
    """The sanitizer's view of one allowed attribute: kept only when its value is allowed."""
    if name == "class":
        foreign = _foreign_classes(value)
        return " ".join(t for t in value.split() if t not in foreign) or None
    return value if value_problem(tag, name, value) is None else None


_CLEANER: Callable[[str], str] | None = None


def _cleaner() -> Callable[[str], str]:
    global _CLEANER
    if _CLEANER is None:
        attributes: dict[str, set[str]] = {"*": set(GLOBAL_ATTRIBUTES)}
        for tag, names in ELEMENT_ATTRIBUTES.items():
            attributes[tag] = set(names)
        cleaner: Any = nh3.Cleaner(
            tags=set(ELEMENTS),
            clean_content_tags={"script", "style"},
            attributes=attributes,
            attribute_filter=_filter,
            generic_attribute_prefixes=set(),
            link_rel=None,
            url_schemes=set(LINK_SCHEMES),
            strip_comments=True,
        )
        _CLEANER = cleaner.clean
    return _CLEANER


_Shape = tuple[str, tuple[tuple[str, str], ...]]


def _shape(tag: str, attributes: dict[str, str | None]) -> _Shape:
    """An element as the comparison sees it: its tag and its attributes, sorted."""
    if not attributes:
        return tag, ()
    return tag, tuple(sorted((k, _value(k, v)) for k, v in attributes.items()))


def _shapes(html: str) -> Iterator[_Shape]:
    """Each element (below the parser's own html/head/body), in order."""
    for node in pieces.elements(html):
        if node.tag not in _SYNTHETIC and node.tag != "-comment":
            yield _shape(node.tag or "", node.attributes)


def _first_change(html: str, clean: str) -> str | None:
    """The tag of the first element the sanitizer changed ("" when it added one at the end),
    or None when `clean` holds the same elements with the same attributes.

    Both are read element by element, side by side, from two trees.
    """
    for before, after in itertools.zip_longest(_shapes(html), _shapes(clean)):
        if before != after:
            return before[0] if before is not None else ""
    return None


def _change_from(record: _Record, html: str, clean: str) -> str | None:
    """What `_first_change` says, with `html`'s elements read from `record`: one tree at a
    time. The digest decides whether anything changed; the hashes only find where."""
    again = _Record()
    first = None
    for index, shape in enumerate(_shapes(clean)):
        again.add(shape)
        if first is None and (
            index >= len(record.hashes) or again.hashes[index] != record.hashes[index]
        ):
            first = index
    if again.digest() == record.digest():
        return None
    if first is None:
        return _first_change(html, clean)  # a shorter page, or hashes alike: read both
    if first >= len(record.hashes):
        return ""
    return next(itertools.islice(_shapes(html), first, None))[0]


def _value(name: str, value: str | None) -> str:
    """An attribute's value as it counts: a class list's spacing does not (the sanitizer trims)."""
    return " ".join(value.split()) if name == "class" and value else value or ""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _characters_only(html: str) -> tuple[str, list[Problem]]:
    """`html` with each lone surrogate (a docstring's `"\\ud800"` makes one) as U+FFFD."""
    try:
        html.encode("utf-8")
    except UnicodeEncodeError:
        problem = Problem("\\u", "a lone surrogate, which is not a character (shown as U+FFFD)")
        return _SURROGATE.sub("\ufffd", html), [problem]
    return html, []


def review(html: str) -> tuple[str, list[Problem]]:
    """The content to publish (what the sanitizer keeps) and each thing outside the allowlist."""
    record = _Record()
    html, found = _characters_only(html)
    published: list[str] = []
    clean_piece = _cleaner()
    for piece, tree in pieces.read(html):
        found += _walk(pieces.elements_of(tree), record)
        del tree  # before the sanitizer builds its own tree of the piece
        published.append(clean_piece(piece))
    clean = crossrefs.guard("".join(published))
    del published
    if not found:
        changed = _change_from(record, html, clean)
        if changed is not None:
            tag = changed or "element"
            found.append(Problem(f"<{tag}", f"a <{tag}> the sanitizer changes"))
    return clean, found


def locate(text: str, found: list[Problem]) -> list[tuple[int, int, str]]:
    """(line, column, message) of each problem in the Markdown source `text`.

    The n-th problem with a needle is put at the n-th place that needle appears
    in the source, in any case; one the source does not show is put at line 1.
    Each needle's places are found once, so this is linear in the source.
    """
    lines = LineIndex(text)
    cursor: dict[str, int] = {}
    out = []
    for problem in found:
        match = None
        for needle in (problem.needle, problem.fallback):
            if needle and cursor.get(needle, 0) >= 0:
                pattern = re.compile(re.escape(needle), re.IGNORECASE)
                match = pattern.search(text, cursor.get(needle, 0))
                cursor[needle] = match.start() + 1 if match else -1
            if match is not None:
                break
        if match is None:
            out.append((1, 1, problem.message))
            continue
        out.append((*lines.at(match.start()), problem.message))
    return out
