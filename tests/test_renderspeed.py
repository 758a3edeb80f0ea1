"""The faster reassembly and style sheets give the HTML the original engine gives."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pygments.formatters.html import HtmlFormatter
from pymdownx.superfences import SuperFencesBlockPreprocessor

from acp_docs.patches import renderspeed

from conftest import ROOT

SAMPLE = """\
# Many kinds of code block

```json title="PromptSuggestion (v1)"
{ "text": "Run the tests" }
```

> A quote with a fence:
>
> ```python
> print("hi")
> ```

- A list item

    ```yaml
    key: value
    ```

=== "Tab one"

    ```json
    { "a": 1 }
    ```

=== "Tab two"

    ```ts hl_lines="2"
    const a = 1;
    const b = 2;
    ```

!!! note

    ```bash
    make test
    ```

```text
plain
```

    an indented code block

```unknown-language
kept as text
```

```diff
- old
+ new
```
"""


def _pages() -> list[str]:
    files = sorted([*ROOT.glob("rfds/*.md"), *ROOT.glob("docs/**/*.md")])
    return [SAMPLE, SAMPLE * 30, *(p.read_text(encoding="utf-8") for p in files)]


def test_every_page_renders_exactly_as_with_the_original_engine(
    render, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.markdown.blocks import renderer

    seen = []
    original = SuperFencesBlockPreprocessor.reassemble
    monkeypatch.setattr(
        SuperFencesBlockPreprocessor,
        "run",
        lambda self, lines, _run=SuperFencesBlockPreprocessor.run: (
            seen.append(type(self).reassemble is renderspeed._reassemble) or _run(self, lines)
        ),
    )
    pages = _pages()
    fast = [render(text) for text in pages]
    assert fast[0].count(' highlight"') >= 9
    assert seen and all(seen), "the renderer renders with the patch applied"
    assert SuperFencesBlockPreprocessor.reassemble is original, "and only while it renders"
    monkeypatch.setattr(renderspeed, "fits", lambda: False)
    seen.clear()
    plain = renderer(Repo.load(ROOT).config)
    slow = [plain(text) for text in pages]
    assert seen and not any(seen), "a renderer made while the patch does not fit renders without"
    for text, one, other in zip(pages, fast, slow, strict=True):
        assert one == other, text[:80]


@pytest.mark.parametrize(
    "stack",
    [
        [("A", 0, 2), ("B", 3, 4)],
        [("A", 1, 1), ("B", 1, 3)],
        [("B", 3, 4), ("A", 0, 2)],
        [("A", 0, 3), ("B", 2, 4)],
        [],
    ],
    ids=["in order", "touching", "out of order", "overlapping", "none"],
)
def test_reassembly_gives_what_the_original_gives(stack: list[tuple[str, int, int]]) -> None:
    lines = ["l0", "l1", "l2", "l3", "l4"]
    fast = SimpleNamespace(stack=list(stack))
    slow = SimpleNamespace(stack=list(stack))
    expected = renderspeed.ORIGINALS["reassemble"](slow, list(lines))
    assert renderspeed._reassemble(fast, list(lines)) == expected
    assert fast.stack == slow.stack == []


def test_each_formatter_gets_its_own_copy_of_the_shared_style_sheet() -> None:
    first, second = HtmlFormatter(style="default"), HtmlFormatter(style="default")
    assert first.class2style == second.class2style and first.class2style is not second.class2style
    other = HtmlFormatter(style="monokai")
    assert other.class2style != first.class2style
    prefixed = HtmlFormatter(style="default", classprefix="x-")
    assert all(name.startswith("x-") for name in prefixed.class2style)
