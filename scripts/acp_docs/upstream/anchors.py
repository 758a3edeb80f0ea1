"""The anchors of a page as Mintlify makes them: heading ids, custom ids, component ids.

Mintlify's documentation ("Automatic anchor IDs") gives the rules in prose;
its renderer (`@mintlify/common`) fixes the details, and this module follows
them. A heading of levels 1 to 4 gets an id from its text (prose and inline
code, typography applied to the prose: `'` becomes U+2019, `"` curly quotes,
`--` a dash, `...` an ellipsis):

1. lower case, trimmed, each run of white space a hyphen;
2. percent-encoded as `encodeURIComponent` does;
3. every character but ASCII letters and digits, `_` (and `%`, when the text
   needed encoding) becomes a hyphen; runs of hyphens become one, and none
   is left at either end;
4. the second of the same id on the page gets `-2`, the third `-3`;
5. decoded, so `/`, `&`, U+2019 and letters beyond ASCII come back; then
   `? , ; : ! ' " ( ) [ ] { }` and emoji are removed (after step 3, so
   `A : B` is `a--b`);
6. made unique over the whole page again (tabs included).

`## Title {#my-id}` sets the id (its case kept). A `<Tab>` without `id` is
anchored by its title, percent-encoded as in step 3; an `<Accordion>` by a
plain slug of its title (`&` as `and`), repeats numbered `-1`, `-2`; a field
(`<ParamField path="sessionId">`) as `param-session-id`. An element's own
`id` is an anchor as it is written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import quote, unquote

from acp_docs.upstream.scan import Scanned

_URI_SAFE = "-_.!~*'()"
"""What `encodeURIComponent` leaves as it is, besides ASCII letters and digits."""
_ENCODED = re.compile(r"%[0-9A-F]{2}")
_RUNS = re.compile(r"-{2,}")
_REMOVED = re.compile(
    "[?,;:!'\"()\\[\\]{}\u200d\ufe0e\ufe0f\U0001f000-\U0001faff\u2600-\u27bf\U0001f1e6-\U0001f1ff]"
)
_CONTRACTION = re.compile(r"([a-zA-Z\d]+)'([ts])(-|$)")
_CAMEL = re.compile(r"([a-z\d])([A-Z])")
_CUSTOM_STRIPPED = re.compile(r"[<>\"&?,;:!'()\[\]{}]")


def typography(text: str) -> str:
    """Mintlify's typography on prose: curly quotes, dashes, ellipses."""
    out = text.replace("...", "\u2026").replace("---", "\u2014").replace("--", "\u2014")
    out = re.sub(r"(^|[\s(\[{\u2014-])'", "\\1\u2018", out)
    out = out.replace("'", "\u2019")
    out = re.sub(r'(^|[\s(\[{\u2014-])"', "\\1\u201c", out)
    return out.replace('"', "\u201d")


def _separate(text: str, keep: str, lowercase: bool) -> str:
    """Every character but ASCII letters, digits and `keep` as a hyphen; runs as one; trimmed."""
    if lowercase:
        text = text.lower()
    text = _CONTRACTION.sub(r"\1\2\3", text)
    allowed = "a-zA-Z0-9" + re.escape(keep)
    text = re.sub(f"[^{allowed}]", "-", text)
    return _RUNS.sub("-", text).strip("-")


def _encoded_slug(title: str) -> str:
    """Steps 1 to 3: the id before it is numbered and decoded."""
    lowered = re.sub(r"\s+", "-", title.lower().strip())
    encoded = quote(lowered, safe=_URI_SAFE)
    if _ENCODED.search(encoded):
        return _separate(encoded, "%_", lowercase=False)
    return _separate(encoded, "_", lowercase=True)


def _clean(slug: str) -> str:
    """Step 5: decoded, then the removed characters and emoji taken out."""
    return _REMOVED.sub("", unquote(slug))


def _plain_slug(text: str) -> str:
    """A plain slug (accordions, fields): accents dropped, `&` as `and`."""
    text = text.replace("&", " and ")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _separate(text, "", lowercase=True)


class _Numbered:
    """The second of the same id is `id-2`, the third `id-3` (the page's first count)."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def __call__(self, slug: str) -> str:
        if not slug:
            return slug
        count = self.seen.get(slug.lower(), 0) + 1
        self.seen[slug.lower()] = count
        return slug if count == 1 else f"{slug}-{count}"


class _Unique:
    """Step 6: an id already on the page gets the first free `-2`, `-3` ..."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def __call__(self, slug: str) -> str:
        out, number = slug, 1
        while out in self.used:
            number += 1
            out = f"{slug}-{number}"
        self.used.add(out)
        return out


def heading_ids(headings: Iterable[tuple[int, str, str | None]]) -> list[str]:
    """The id of each heading: (depth, title with typography applied, custom id or None)."""
    numbered, unique = _Numbered(), _Unique()
    out = []
    for depth, title, custom in headings:
        if custom is not None:
            out.append(
                unique(_clean(re.sub(r"\s+", "-", _CUSTOM_STRIPPED.sub("", custom.strip()))))
            )
        elif depth <= 4:
            out.append(unique(_clean(numbered(_encoded_slug(title)))))
    return out


def heading_id(title: str) -> str:
    """The id of one heading alone on its page, from its Markdown (`code` spans in backticks)."""
    pieces = title.split("`")
    parts = tuple((index % 2 == 1, piece) for index, piece in enumerate(pieces) if piece)
    return heading_ids([(2, _title(parts, title), None)])[0]


def _title(parts: tuple[tuple[bool, str], ...], text: str) -> str:
    if not parts:
        return typography(text)
    return "".join(value if code else typography(value) for code, value in parts)


def page_anchors(scanned: Scanned) -> set[str]:
    """Every anchor of a scanned page: its headings', its components' and its elements' ids."""
    custom = dict(scanned.custom_ids)
    parts = scanned.heading_parts or tuple(() for _ in scanned.headings)
    out = set(scanned.ids)
    out.update(
        heading_ids(
            (depth, _title(pieces, text), custom.get(line))
            for (line, depth, text), pieces in zip(scanned.headings, parts, strict=False)
        )
    )
    tabs, accordions = _Numbered(), _Unique()
    accordion_count: dict[str, int] = {}
    for kind, value in scanned.components:
        if kind == "Tab":
            slug = tabs(_encoded_slug(value))
            out.update((slug, unquote(slug)))
        elif kind == "Accordion":
            base = _plain_slug(value.replace(":", "-"))
            seen = accordion_count.get(base, 0)
            accordion_count[base] = seen + 1
            out.add(accordions(base if seen == 0 else f"{base}-{seen}"))
        elif kind == "Field":
            out.add(_plain_slug("param-" + _CAMEL.sub(r"\1-\2", value)))
    return out
