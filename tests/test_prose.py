"""The words of a page's prose, and where each first stands in its Markdown source."""

from __future__ import annotations

from pathlib import Path

from acp_docs.checks import pyspelling_run as pyspell
from acp_docs.markdown import prose

SOURCE = """---
title: Zorp
---

# A page

Inline `zorp` code is not prose.

```markdown title="Quux the page"
zorp inside the block
```

Then zorp in prose.
"""


def test_a_word_is_placed_in_prose_before_anywhere_else() -> None:
    assert prose.places(SOURCE, {"zorp"}) == {"zorp": (13, 6)}


def test_a_word_only_a_block_title_shows_is_placed_on_that_title() -> None:
    assert prose.places(SOURCE, {"Quux"}) == {"Quux": (9, 20)}


HTML_OPTIONS = {
    "comments": False,
    "attributes": ["title", "alt"],
    "ignores": [":is(code, pre, kbd)", ".headerlink"],
}


def test_code_and_generated_sections_are_not_prose(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path))
    html = (
        '<p>Alpha <code>beta</code> <img alt="Zeta"></p><pre><code>gamma</code></pre>'
        f"{prose.GENERATED_OPEN}<p>delta</p>{prose.GENERATED_CLOSE}<p>epsilon</p>"
        '<a class="headerlink" href="#x">Theta</a> https://iota.example/kappa'
        f"{prose.GENERATED_OPEN}<p>lambda, never closed</p>"
    )
    reader = pyspell.PageWords(HTML_OPTIONS, urls=True)
    assert reader.words(prose.without_generated(html)) == {"Alpha", "Zeta", "epsilon"}
    again = pyspell.PageWords(HTML_OPTIONS, urls=True)
    assert again.words(prose.without_generated(html)) == {"Alpha", "Zeta", "epsilon"}
    assert len(list((tmp_path / "spell-words").glob("*.json"))) == 1, "kept by the page's bytes"


def test_many_unclosed_generated_marks_take_linear_time() -> None:
    html = prose.GENERATED_OPEN * 200_000 + "<p>x</p>"
    assert prose.without_generated("<p>a</p>" + html) == "<p>a</p>"
