"""The words of a page's prose, and where each first stands in its Markdown source."""

from __future__ import annotations

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


def test_code_and_generated_sections_are_not_prose() -> None:
    html = (
        "<p>Alpha <code>beta</code></p><pre><code>gamma</code></pre>"
        f"{prose.GENERATED_OPEN}<p>delta</p>{prose.GENERATED_CLOSE}<p>epsilon</p>"
    )
    assert prose.words(html) == {"Alpha", "epsilon"}
