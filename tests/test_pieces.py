"""A long page is parsed a piece at a time and read exactly as a browser reads it whole;
its policy's script hashes never come from its content."""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from acp_docs.policy import csp, pieces, sanitize

BLOCK = (
    '<h2 id="part-{n}">Part {n}</h2>\n<p>Text with <a href="https://example.com/{n}">a link</a>'
    " and <code>code</code>.</p>\n"
    '<div class="language-json highlight"><span class="filename">Example {n}</span><pre>'
    '<span></span><code><span class="p">{{</span>\n<span class="w">  </span>'
    '<span class="nt">"text"</span><span class="p">:</span>\n<span class="p">}}</span>\n'
    "</code></pre></div>\n"
    '<div class="admonition note">\n<p class="admonition-title">Note</p>\n<p>Kept.</p>\n</div>\n'
    "<table>\n<thead>\n<tr>\n<th>Field</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>a</td>\n</tr>\n"
    "</tbody>\n</table>\n<ul>\n<li>one</li>\n<li>two\n<ul>\n<li>three</li>\n</ul>\n</li>\n</ul>\n"
)
PAGE = "".join(BLOCK.format(n=n) for n in range(60))

NOT_BACK_AT_THE_START = {
    "a formatting element left open": "<b>open\n<p>one</p>\n<div>two</div>\n",
    "a table left open": "<table>\n<tr>\n<td>a</td>\n</tr>\n<p>fostered</p>\n",
    "a comment left open": "<!--\n<div>\n-->\n<p>a</p>\n<img src=x onerror=alert(1)>\n",
    "a script": "<script>\n<div>\n</script>\n<p>a</p>\n",
    "foreign content": "<svg>\n<style>\n<img src=x onerror=alert(1)>\n</style>\n</svg>\n",
    "noscript": '<noscript>\n<p title="</noscript><img src=x onerror=alert(1)>">\n</noscript>\n',
    "a select": "<select>\n<div>a</div>\n<option>b\n<img src=x onerror=1>\n",
    "a template": "<template>\n<div>a</div>\n<img src=x onerror=1>\n</template>\n",
    "a textarea": "<textarea>\n<div>a</div>\n<img src=x onerror=1>\n</textarea>\n",
    "plaintext": "<plaintext>\n<div>a</div>\n<img src=x onerror=1>\n",
    "a frameset": "<p>a</p>\n<frameset onload=alert(1)>\n<frame src=x>\n</frameset>\n",
    "a form closed by its parent": "<div><form>\n</div>\n<form>\n<input name=x>\n</form>\n",
    "an attribute across lines": '<a href="\n<div>">x</a>\n<p>b</p>\n',
    "an unquoted attribute": "<a title=\n<div onclick=1>x</div>\n<p>b</p>\n",
    "a title": "<title>\n<div>a</div>\n<img src=x onerror=1>\n</title>\n",
    "MathML": "<math><mi>\n<div>a</div>\n<mglyph>\n<style>\n<img src=x onerror=1>\n</style>\n"
    "</math>\n",
    "a paragraph a table closes": "<p>a\n<table>\n<tr><td>x</td></tr>\n</table>\n<p>b</p>\n",
    "stray end tags": "</p>\n<p>a</p>\n</p>\n<div>b</div>\n",
    "attributes on body later": "<p>a</p>\n<body onload=alert(1)>\n<p>b</p>\n<html onclick=1>\n",
    "head elements later": "<p>a</p>\n<style>\n<p>x</p>\n</style>\n<meta http-equiv=refresh>\n",
    "a lone <": "<p>a</p>\n<\n<p>b</p>\n<img src=x onerror=1>\n",
    "a tag left open": "<p>a</p>\n<div\n<p>b</p>\n<img src=x onerror=1>\n",
    "CDATA": "<svg><![CDATA[\n<img src=x onerror=1>\n]]></svg>\n<p>b</p>\n",
    "the marker itself": "<p>a</p>\n<acp-docs-piece-end>\n<p>b</p>\n<acp-docs-piece-end>\n",
    "a link around blocks": "<a href=x>\n<div>a</div>\n<p>b</p>\n</a>\n<p>c</p>\n",
    "misnested formatting": "<b><i>\n</b>\n<p>x</p>\n</i>\n<p>y</p>\n",
    "an object": "<object>\n<p>a</p>\n</object>\n<p>b</p>\n",
    "CR LF and NUL": "<p>\x00a</p>\r\n<p>b</p>\r\n<img src=x onerror=1>\r\n",
}


def _whole(html: str) -> list[tuple[str, dict[str, str | None]]]:
    tree = LexborHTMLParser(html)
    return [
        (node.tag or "", node.attributes)
        for node in tree.root.traverse(include_text=False)
        if node.tag not in ("html", "head", "body")
    ]


def _pieced(html: str, size: int) -> list[tuple[str, dict[str, str | None]]]:
    return [
        (node.tag or "", node.attributes)
        for node in pieces.elements(html, size)
        if node.tag not in ("html", "head", "body")
    ]


def test_a_long_page_is_cut_into_pieces_that_join_to_it() -> None:
    read = [piece for piece, _tree in pieces.read(PAGE, 2000)]
    assert len(read) > 10
    assert "".join(read) == PAGE
    assert [piece for piece, _tree in pieces.read(PAGE)] == [PAGE]  # shorter than PIECE


@pytest.mark.parametrize("size", [1, 700, 5000])
def test_the_pieces_hold_every_element_the_whole_page_holds(size: int) -> None:
    assert _pieced(PAGE, size) == _whole(PAGE)


@pytest.mark.parametrize("html", NOT_BACK_AT_THE_START.values(), ids=NOT_BACK_AT_THE_START)
def test_a_page_is_reviewed_the_same_in_pieces_wherever_the_parser_stands(
    html: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = "<p>before</p>\n" * 5 + html * 3 + "<p>after</p>\n" * 5
    whole = sanitize.review(page)
    monkeypatch.setattr(pieces, "PIECE", 1)
    assert sanitize.review(page) == whole
    if "onerror" in html:
        assert whole[1], "the hostile part is found"


def test_a_cut_the_parser_is_not_back_at_the_start_of_is_refused_and_the_rest_read_whole() -> None:
    # Every tag looks closed at the third line, but the table is still open there.
    html = "<p>a</p>\n<table>\n</div>\n<p>moved before the table</p>\n<p>b</p>\n"
    read = [piece for piece, _tree in pieces.read(html, 1)]
    assert read == ["<p>a</p>\n", "<table>\n</div>\n<p>moved before the table</p>\n<p>b</p>\n"]
    assert _pieced(html, 1) == _whole(html)


def test_a_problem_far_into_a_long_page_is_found_at_its_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pieces, "PIECE", 3000)
    page = PAGE + '<p>late <img src="x.png" onerror="alert(1)"></p>\n' + PAGE
    published, found = sanitize.review(page)
    assert [p.message for p in found] == ["the attribute onerror= on <img>"]
    assert "onerror" not in published and published.count("<h2") == 120


THEME = (
    "<!doctype html><html><head><meta charset=utf-8><script>var theme = 1;</script></head>"
    '<body><div class="md-content"><article>{content}</article></div>'
    '<script>var after = "</div>";</script><script src="/app.js"></script></body></html>'
)


def test_the_policy_hashes_the_theme_s_scripts_with_or_without_reading_the_content() -> None:
    content = PAGE
    page = THEME.format(content=content)
    hashes = csp.inline_script_hashes(page)
    assert len(hashes) == 2
    assert csp.inline_script_hashes(page, content) == hashes


def test_content_never_adds_a_hash_to_the_policy() -> None:
    content = "<p>a</p><script>alert(1)</script>"  # had it got past the sanitizer
    page = THEME.format(content=content)
    assert len(csp.inline_script_hashes(page)) == 3
    assert csp.inline_script_hashes(page, content) == csp.inline_script_hashes(THEME)
