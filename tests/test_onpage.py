"""Where a finding's note goes in the rendered page, and what the note and banner say."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_docs.core import memo
from acp_docs.core.findings import Finding
from acp_docs.markdown import blockmap
from acp_docs.reporters import page

SOURCE = """---
title: T
status: draft
---

# Title

Some *words* here and a [link](x.md#nope).

- first item is long
- second item has a wrod

```json title="SessionUpdate (v1)"
{
  "text": 42
}
```

| Name | Meaning |
| ---- | ------- |
| `abc` | cell words |

!!! note "Careful"

    Inside an admonition.
"""

HTML = """<h1 id="title">Title</h1>
<p>Some <em>words</em> here and a <a href="x/#nope">link</a>.</p>
<ul>
<li>first item is long</li>
<li>second item has a wrod</li>
</ul>
<div class="highlight"><span class="filename">SessionUpdate (v1)</span><pre><code>{
  <span class="nt">&quot;text&quot;</span>: 42
}
</code></pre></div>
<table><thead><tr><th>Name</th><th>Meaning</th></tr></thead>
<tbody><tr><td><code>abc</code></td><td>cell words</td></tr></tbody></table>
<div class="admonition note"><p class="admonition-title">Careful</p>
<p>Inside an admonition.</p></div>
"""


def _before(line: int, col: int = 0) -> str:
    at = blockmap.place(HTML, SOURCE, line, col)
    assert at is not None
    return HTML[:at]


@pytest.mark.parametrize(
    ("line", "ends_with"),
    [
        (6, '<h1 id="title">Title</h1>'),
        (8, 'a <a href="x/#nope">link</a>.</p>'),
        (11, "<li>second item has a wrod"),
        (13, "</code></pre></div>"),
        (15, "</code></pre></div>"),
        (21, "<td>cell words"),
        (25, "<p>Inside an admonition.</p>"),
    ],
)
def test_a_note_goes_after_the_block_of_its_line(line: int, ends_with: str) -> None:
    assert _before(line).endswith(ends_with)


def test_a_blank_line_borrows_the_block_above_and_front_matter_is_not_placed() -> None:
    assert _before(9).endswith("</p>")
    assert blockmap.place(HTML, SOURCE, 3) is None


def test_a_repeated_text_is_found_at_the_same_occurrence() -> None:
    source = "Repeat me please.\n\nOther.\n\nRepeat me please.\n"
    html = "<p>Repeat me please.</p>\n<p>Other.</p>\n<p>Repeat me please.</p>\n"
    assert blockmap.place(html, source, 5) == len(html) - 1
    assert blockmap.place(html, source, 1) == len("<p>Repeat me please.</p>")


def test_fragments_drop_markdown_syntax_and_put_the_word_at_a_column_first() -> None:
    pieces = blockmap.fragments("See [the page](a.md#b) and `code`.")
    assert "a.md#b" not in " ".join(pieces) and "the page" in pieces
    assert blockmap.fragments("- a wrod here", col=5)[0] == "wrod"
    assert blockmap.fragments('```json title="Invalid X (v1): why"') == ["Invalid X (v1): why"]
    assert blockmap.fragments("```") == []


def _finding(line: int, message: str = "bad", path: str = "rfds/x.md") -> Finding:
    return Finding(path, line, 1, "examples", message, "examples/invalid-payload")


def test_annotate_numbers_notes_links_the_summary_and_escapes_every_message() -> None:
    hostile = '<script>alert("x")</script>'
    out = page.annotate(HTML, SOURCE, [_finding(15, hostile), _finding(3, "front")], [], {})
    assert "<script>" not in out
    assert "&lt;script&gt;" in out
    # Ordered by line: the front-matter one is 1 and is shown at the top with the summary.
    summary_end = out.index("</ol></div>")
    assert out.index('id="acp-problem-1"') > summary_end
    assert out.index('id="acp-problem-1"') < out.index("<h1")
    assert out.index('id="acp-problem-2"') > out.index("</code></pre></div>")
    assert 'href="#acp-problem-1"' in out and 'href="#acp-problem-2"' in out
    assert "(1 shown here only)" in out


def test_a_page_without_problems_is_left_as_it_is() -> None:
    assert page.annotate(HTML, SOURCE, [], [], {}) == HTML


def test_the_banner_links_other_pages_notes_and_folds_a_long_list() -> None:
    others = [_finding(8, path="docs/other.md"), Finding("mkdocs.yml", 3, 1, "rfds", "nav", "r")]
    out = page.annotate(HTML, SOURCE, [], others, {"docs/other.md": "../other/"})
    assert 'href="../other/#acp-problem-1"' in out
    assert "<code>mkdocs.yml:3:1</code>" in out
    assert "<details" in out and " open>" in out
    many = [_finding(n, path="docs/other.md") for n in range(1, page.BANNER_OPEN_UP_TO + 2)]
    folded = page.annotate(HTML, SOURCE, [], many, {})
    assert " open>" not in folded


def test_memo_recomputes_only_when_the_key_changes(tmp_path: Path) -> None:
    memo.forget()
    calls: list[int] = []
    file = tmp_path / "a.txt"
    file.write_text("one")
    for _ in range(2):
        memo.remembered("step", memo.digest_of([file]), lambda: calls.append(1))
    file.write_text("two")
    memo.remembered("step", memo.digest_of([file]), lambda: calls.append(1))
    assert len(calls) == 2


def test_memo_digest_never_reads_through_a_link(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("one")
    link = tmp_path / "link.txt"
    link.symlink_to(secret)
    before = memo.digest_of([link])
    secret.write_text("two")
    assert memo.digest_of([link]) == before


def test_past_the_cap_problems_are_listed_at_the_top_without_notes() -> None:
    many = [_finding(15, f"problem {n}") for n in range(page.MAX_PLACED + 5)]
    out = page.annotate(HTML, SOURCE, many, [], {})
    assert out.count('<aside class="acp-problem"') == page.MAX_PLACED
    summary = out[out.index('id="acp-problems"') : out.index("</ol>")]
    assert summary.count("<li>") == page.MAX_PLACED + 5
    assert f'href="#acp-problem-{page.MAX_PLACED + 1}"' not in out
    assert "(5 shown here only)" in out


def test_a_note_says_how_to_fix_and_links_the_docs_section() -> None:
    urls = {"docs/tooling/writing.md": "../tooling/writing/"}
    out = page.annotate(HTML, SOURCE, [_finding(15, "bad")], [], urls)
    note = out[out.index('<aside class="acp-problem"') : out.index("</aside>")]
    assert "How to fix: Fix the JSON" in note
    assert 'href="../tooling/writing/#declaring-json-examples"' in note


def test_a_code_block_without_a_title_is_found_by_its_first_lines() -> None:
    source = 'Before it.\n\n```json\n{ "a": 1 }\n```\n'
    html = '<p>Before it.</p>\n<div class="highlight"><pre><code>{ "a": 1 }\n</code></pre></div>\n'
    at = blockmap.place(html, source, 3)
    assert at is not None and html[:at].endswith("</code></pre></div>")


def test_the_banner_links_only_notes_that_exist() -> None:
    many = [_finding(15, f"problem {n}", path="docs/other.md") for n in range(page.MAX_PLACED + 1)]
    out = page.annotate(HTML, SOURCE, [], many, {"docs/other.md": "../other/"})
    assert f'href="../other/#acp-problem-{page.MAX_PLACED}"' in out
    assert f'href="../other/#acp-problem-{page.MAX_PLACED + 1}"' not in out


SERVED = (
    '<html><body class="x"><header>Site</header><main><div class="md-content">'
    '<article class="md-content__inner md-typeset"><h1>Title</h1></article></div></main>'
    "</body></html>"
)


def test_a_failed_build_is_noted_on_top_of_the_content_once_and_escaped() -> None:
    once = page.with_build_failed(SERVED, "mkdocs.yml: line 3: <script>alert(1)</script>")
    article = once.index('md-typeset">')
    notice = once.index('id="acp-build-failed"')
    assert article < notice < once.index("<h1>Title</h1>")
    assert "<script>alert" not in once and "&lt;script&gt;alert(1)" in once
    assert 'role="alert"' in once
    twice = page.with_build_failed(once, "a later error")
    assert twice.count('id="acp-build-failed"') == 1
    assert "a later error" in twice and "alert(1)" not in twice
    assert twice.endswith("<h1>Title</h1></article></div></main></body></html>")


def test_a_page_own_comment_cannot_pose_as_the_notice_bounds() -> None:
    own = SERVED.replace("<h1>Title</h1>", "<!-- acp-docs: build failed --><h1>Title</h1>")
    again = page.with_build_failed(page.with_build_failed(own, "first"), "second")
    assert "<h1>Title</h1>" in again and "first" not in again


def test_without_an_article_the_notice_follows_the_body_tag() -> None:
    plain = page.with_build_failed("<html><body><p>404</p></body></html>", "broken")
    assert plain.index("<body>") < plain.index("acp-build-failed") < plain.index("<p>404")
    assert "broken" in page.build_failed_page("broken")
