"""Published content as mkdocs-autorefs reads it again, after the allowlist.

Once every page is rendered, autorefs finds its `<autoref ...>...</autoref>`
placeholders in each page's published content with a regular expression,
not a parser, and writes their attribute values back into the page without
escaping them (an unresolved optional reference becomes
`<span title="IDENTIFIER">`, an attribute it does not know is copied onto
the link). So two things the allowlist keeps would turn into markup there:

- a quote, `<`, `>` or `&` in an attribute of a real `<autoref>`: its values
  may hold none of them (`VALUE`, a rule of the allowlist);
- a `<autoref` inside another element's attribute value, which an HTML
  serializer may leave as it is (the HTML standard escaped neither `<` nor `>`
  there until 2025): `guard` writes every `<` and `>` in an attribute value as
  `&lt;` and `&gt;`, which a browser reads as the same characters.

`guard` also gives an `<autoref>` without an identifier an empty one, which
autorefs reports as unresolved instead of failing the build.
"""

from __future__ import annotations

import re

VALUE = re.compile(r"[^\"'<>&\x00-\x1f\x7f]{0,300}")
"""What an attribute of `<autoref>` may hold."""
_MAYBE = re.compile(r'="[^"<>]*[<>]|<autoref(?![^>]*\sidentifier=")')
"""Cheap test for content `guard` may have to change; a match is read again exactly."""
_START_TAG = re.compile(r'<([A-Za-z][^\s/>]*)((?:[^<>"]|"[^"]*")*)>')
"""A start tag as an HTML serializer writes it: every attribute value in double quotes."""
_QUOTED = re.compile(r'"[^"]*"')


def _angles(quoted: re.Match[str]) -> str:
    return quoted.group(0).replace("<", "&lt;").replace(">", "&gt;")


def _tag(found: re.Match[str]) -> str:
    name, attributes = found.group(1), found.group(2)
    if "<" in attributes or ">" in attributes:
        attributes = _QUOTED.sub(_angles, attributes)
    if name.lower() == "autoref" and not re.search(r'\sidentifier="', attributes):
        attributes = ' identifier=""' + attributes
    return f"<{name}{attributes}>"


def guard(published: str) -> str:
    """`published` (serialized HTML: no raw `<` in text) with nothing autorefs would read as
    a placeholder but its own: angle brackets in attribute values escaped, identifiers set."""
    if _MAYBE.search(published) is None:
        return published
    return _START_TAG.sub(_tag, published)
