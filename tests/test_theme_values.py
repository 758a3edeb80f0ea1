"""What mkdocs-autorefs and the theme read from a page after the allowlist stays text.

autorefs finds its placeholders in published content with a regular
expression and writes their values back unescaped; the theme prints a page's
title and table of contents as they are. Each case here is what a hostile
page could hand them, and what they get instead.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from mkdocs_autorefs import AUTOREF_RE
from selectolax.lexbor import LexborHTMLParser

from acp_docs.policy import crossrefs, sanitize, themetext

REFRESH = '"><meta http-equiv="refresh" content="0;url=https://example.invalid/">'


def _autorefs_output(published: str) -> str:
    """What autorefs makes of `published` (its own code, its own regex): `target` resolves."""
    from mkdocs_autorefs._internal.references import fix_refs

    def resolve(identifier: str) -> tuple[str, str | None]:
        if identifier == "target":
            return "../page/#target", None
        raise KeyError(identifier)

    return fix_refs(published, resolve)[0]


def _handlers_and_refreshes(page: str) -> list[str]:
    tree = LexborHTMLParser(page)
    found = [
        f"{node.tag} {name}"
        for node in tree.root.traverse()
        for name in (node.attributes or {})
        if name.lower().startswith("on")
    ]
    return found + [node.html for node in tree.css("meta")]


@pytest.mark.parametrize(
    "content",
    [
        # A real placeholder whose identifier breaks out of autorefs' `<span title="...">`.
        f'<p><autoref identifier="x{REFRESH.replace(chr(34), "&quot;")}" optional>t</autoref></p>',
        # A placeholder hidden in another element's attribute, which a serializer leaves raw.
        '<p><span title="<autoref identifier=target onmouseover=alert(1)>y</autoref>">z</span></p>',
        # A placeholder with no identifier: autorefs would fail the whole build.
        "<p><autoref optional>bare</autoref></p>",
    ],
    ids=["identifier", "inside an attribute", "no identifier"],
)
def test_autorefs_never_turns_published_content_into_markup(content: str) -> None:
    published, _problems = sanitize.review(content)
    after = _autorefs_output(published)
    assert _handlers_and_refreshes(after) == []
    assert LexborHTMLParser(after).css_first("span") is not None  # the text stays


def test_a_placeholder_in_an_attribute_value_is_never_read_as_one() -> None:
    # As an HTML serializer may write it (nh3 today escapes `<` there; the spec did not always).
    raw = (
        '<p><span title="<autoref identifier=target onmouseover=alert(1)>y</autoref>">z</span></p>'
    )
    assert _handlers_and_refreshes(_autorefs_output(raw)) == ["span onmouseover"]
    assert _handlers_and_refreshes(_autorefs_output(crossrefs.guard(raw))) == []


def test_an_unsafe_placeholder_is_a_problem_and_a_safe_one_is_kept_as_it_is() -> None:
    _published, problems = sanitize.review(
        f'<p><autoref identifier="a{REFRESH.replace(chr(34), "&quot;")}">x</autoref>'
        "<autoref optional>y</autoref></p>"
    )
    messages = " | ".join(p.message for p in problems)
    assert "cross-reference's identifier" in messages and "without an identifier" in messages
    safe = '<p><autoref identifier="acp_docs.core.findings.Finding" optional="">F</autoref></p>'
    published, problems = sanitize.review(safe)
    assert (published, problems) == (safe, [])
    assert AUTOREF_RE.search(published) is not None


def test_the_guard_leaves_content_without_angle_brackets_in_values_untouched() -> None:
    plain = '<p class="x">a &lt; b <a href="https://example.org/?q=1&amp;r=2">link</a></p>'
    assert crossrefs.guard(plain) is plain
    text_with_quotes = '<p>key="<code>value</code>"</p>'  # `="` in text, then a real tag
    assert crossrefs.guard(text_with_quotes) == text_with_quotes


def _page(title: str, toc: list[SimpleNamespace], meta: dict[str, str] | None = None):
    return SimpleNamespace(title=title, toc=toc, meta={} if meta is None else meta)


def test_a_heading_title_cannot_end_the_title_element() -> None:
    page = _page("Evil &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;", [])
    assert themetext.publish(page) == []
    assert "<" not in page.title and page.meta["title"] == page.title
    # What Material's `{{ page.meta.title }}` prints, read as a browser reads it.
    head = LexborHTMLParser(f"<title>{page.meta['title']}</title>")
    assert head.css_first("title").text() == "Evil </title><script>alert(1)</script>"
    assert head.css("script") == []


def test_front_matter_titles_stay_as_the_page_set_them() -> None:
    page = _page("Prompt suggestions", [], {"title": "RFD: Prompt suggestions"})
    themetext.publish(page)
    assert page.meta["title"] == "RFD: Prompt suggestions"


def test_table_of_contents_labels_keep_text_and_symbol_badges_only() -> None:
    badge = '<code class="doc-symbol doc-symbol-toc doc-symbol-class"></code>&nbsp;Finding'
    child = SimpleNamespace(title="<meta http-equiv=refresh content='0'>Label", children=[])
    parent = SimpleNamespace(title=badge, children=[child])
    page = _page("Page", [parent])
    assert themetext.publish(page) == ["<meta http-equiv=refresh content='0'>Label"]
    assert child.title == "Label"
    assert parent.title.startswith('<code class="doc-symbol doc-symbol-toc doc-symbol-class">')
    assert themetext.markup_in(parent.title) is False


def test_the_home_page_keeps_the_site_name_as_its_browser_title() -> None:
    page = _page("Home", [])
    page.is_homepage = True
    themetext.publish(page)
    assert "title" not in page.meta  # Material then names the home page by the site's name
