"""Raw HTML that would run in the reader's browser is found, and put at its source line."""

from __future__ import annotations

from acp_docs.activehtml import locate, problems, scheme_of


def _messages(html: str, elements: bool = True) -> list[str]:
    return [p.message for p in problems(html, elements)]


def test_plain_content_and_code_are_not_active() -> None:
    html = (
        '<p>See <a href="https://example.org/a:b">this</a> and <a href="../x/">that</a>.</p>'
        '<div class="grid cards"><img alt="" src="img/a.png"></div>'
        "<pre><code>&lt;script&gt;alert(1)&lt;/script&gt; onerror=x javascript:y</code></pre>"
    )
    assert _messages(html) == []


def test_scripts_handlers_and_script_links_are_named_however_written() -> None:
    html = (
        "<SCRIPT>alert(1)</SCRIPT>"
        '<img src=x OnError="alert(2)"/>'
        '<a href="  java&#x09;script&colon;alert(3)">x</a>'
        '<iframe src="data:text/html,x"></iframe>'
        "<p>A <img/onload=x> and a <span\nonclick=y>.</p>"
    )
    assert _messages(html) == [
        "a <script> element",
        "an event handler (onerror=) on <img>",
        "a javascript: URL in href= of <a>",
        "a <iframe> element",
        "a data: URL in src= of <iframe>",
        "an event handler (onload=) on <img>",
        "an event handler (onclick=) on <span>",
    ]


def test_a_handler_after_a_slash_alone_is_found() -> None:
    assert _messages("<p>x</p><img/onerror=alert(1)>") == ["an event handler (onerror=) on <img>"]


def test_without_elements_only_attributes_are_checked() -> None:
    html = '<script>x</script><details ontoggle="y"><summary>s</summary></details>'
    assert _messages(html, elements=False) == ["an event handler (ontoggle=) on <details>"]


def test_each_problem_is_put_at_its_own_place_in_the_source() -> None:
    text = "# T\n\n<img src=a onerror=x>\n\nText.\n\n  <img src=b ONERROR=y>\n"
    found = problems(text)
    assert locate(text, found) == [
        (3, 12, "an event handler (onerror=) on <img>"),
        (7, 14, "an event handler (onerror=) on <img>"),
    ]
    assert locate("# nothing\n", found)[0][:2] == (1, 1)


def test_a_scheme_is_read_as_a_browser_reads_it() -> None:
    assert scheme_of("  java&#x09;script&colon;alert(1)") == "javascript"
    assert scheme_of("\x01JaVa\nScRiPt:alert(1)") == "javascript"
    assert scheme_of("java script:alert(1)") == ""  # a space is no tab: a relative link
    assert scheme_of("&#x64;ata:text/html,x") == "data"
    assert scheme_of("&#x64;ata:text/html,x", decode=False) == ""
    assert scheme_of("guide/page.md#a:b") == ""


def test_a_script_link_is_put_at_its_value_in_the_source() -> None:
    text = "# T\n\nText <a title='x' HREF = 'java&#x09;script:go()'>a</a>.\n"
    found = problems(text)
    assert [p.message for p in found] == ["a javascript: URL in href= of <a>"]
    assert locate(text, found) == [(3, 27, "a javascript: URL in href= of <a>")]


def test_a_scheme_broken_over_lines_is_still_looked_at() -> None:
    html = '<p>Plain text.</p><a href="javascr\nipt:go()">x</a>'
    assert _messages(html) == ["a javascript: URL in href= of <a>"]
