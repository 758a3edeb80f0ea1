"""One fence scanner and one HTML reader: every reader of a page sees the same blocks."""

from __future__ import annotations

from acp_docs.markdown import blockmap, fences, parts
from acp_docs.markdown.blocks import rendered_blocks
from acp_docs.markdown.htmlscan import VOID


def test_superfences_blocks_keep_their_title_and_place() -> None:
    text = (
        "---\ntitle: x\n---\n"
        '```{ title="A" .json }\n{}\n```\n'
        "!!! note\n\n"
        '    ```json title="B"\n    [1]\n    ```\n'
        "> ```yaml\n> a: 1\n> ```\n"
        "```python foo=bar\nnot code\n```\n"
    )
    found = fences.fenced_blocks(text)
    assert [(b.lang, b.title, b.line, b.col, b.content) for b in found[:3]] == [
        ("json", "A", 4, 1, "{}"),
        ("json", "B", 9, 5, "[1]"),
        ("yaml", None, 12, 3, "a: 1"),
    ]
    assert fences.fence_title('    ```json title="B"') == "B"
    assert fences.fence_title("```python foo=bar") is None


def test_commonmark_fences_close_on_a_longer_run_and_stop_at_three_spaces() -> None:
    run = fences.open_run("~~~~ js", 3)
    assert run == fences.Run(0, "~", 4, " js")
    assert fences.closes("~~~~~~  ", run, 3)
    assert not fences.closes("~~~", run, 3)
    assert not fences.closes("    ~~~~", run, 3)
    assert fences.open_run("    ```", 3) is None
    assert fences.open_run("```a`b") is None
    blocks = fences.code_blocks("```\n    ````\nx\n```\nafter\n")
    assert [(b.line, b.end_line, b.content) for b in blocks] == [(1, 2, ""), (4, 6, "after\n")]


def test_prettier_parts_never_cut_inside_a_fence_that_a_longer_run_closes() -> None:
    text = "a\n\n````\nb\n\n# not a heading\n`````\nc\n\n# heading\n"
    assert parts.cut_points(text) == [2, 9]


def test_every_html_reader_knows_the_same_void_elements() -> None:
    assert {"br", "img", "track", "param", "base", "wbr"} <= VOID
    page = (
        '<div class="highlight"><pre><code>a<track src="t">b</code></pre></div>'
        '<p>after <img alt="Picture"> words<track></p>'
    )
    assert [b.text for b in rendered_blocks(page)] == ["ab"]
    assert [b.tag for b in blockmap.blocks(page)] == ["div", "p"]
    assert blockmap.blocks(page)[1].text == "after words"
