"""What the theme prints of a rendered page outside its content: text, never markup.

Material prints each page's title and table of contents into every page (the
`<title>`, the header, the navigation, the footer links) as they are. The
content is reviewed by the allowlist (`sanitize`); these values are not part
of it, and an author reaches them: a heading is the title of a page that
sets none, and `attr_list` lets a heading set its table-of-contents label
(`data-toc-label`), markup included. So, once a page is rendered:

- each table-of-contents title is what `nh3` keeps of it under a policy of
  text and mkdocstrings' symbol badges (`<code class="doc-symbol ...">`);
  markup beyond that is a finding (`markup_in`);
- the page's title is its text, escaped, and is its `meta.title` too when
  it has none (front matter's is escaped already): without one, the theme
  would print the title through Jinja's `striptags`, which decodes entities
  again (`&lt;/title&gt;` would end the `<title>` element), while it prints
  `meta.title` as it is. The home page keeps none: its `<title>` is the
  site's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import nh3

_BADGE_CLASS = re.compile(r"doc-symbol(?:-[a-z]{1,20})?")
_BADGE_TAG = re.compile(r'</?code(?: class="[a-z -]{0,80}")?>')


def _badge_class(tag: str, name: str, value: str) -> str | None:
    if tag == "code" and name == "class":
        return " ".join(t for t in value.split() if _BADGE_CLASS.fullmatch(t)) or None
    return None


def text(value: str) -> str:
    """`value` (HTML) as escaped text: its tags dropped, its characters kept."""
    return nh3.clean(value, tags=set(), attributes={}, strip_comments=True, link_rel=None)


def toc_title(value: str) -> str:
    """A table-of-contents title as published: text and mkdocstrings' symbol badges."""
    return nh3.clean(
        value,
        tags={"code"},
        attributes={"code": {"class"}},
        attribute_filter=_badge_class,
        strip_comments=True,
        link_rel=None,
    )


def markup_in(value: str) -> bool:
    """True when a table-of-contents title holds markup other than a symbol badge."""
    return "<" in _BADGE_TAG.sub("", value)


def _items(toc: Any) -> Iterator[Any]:
    stack = list(toc or ())
    while stack:
        item = stack.pop()
        yield item
        stack.extend(getattr(item, "children", None) or ())


def publish(page: Any) -> list[str]:
    """Make `page`'s title and table of contents text (see above); each label that held
    markup, as written, for a finding."""
    refused = []
    for item in _items(page.toc):
        title = str(item.title)
        if markup_in(title):
            refused.append(title)
        item.title = toc_title(title)
    if page.title is not None:
        title = text(str(page.title))
        page.title = title
        if isinstance(page.meta, dict) and not getattr(page, "is_homepage", False):
            page.meta.setdefault("title", title)  # the home page's `<title>` is the site's name
    return refused
