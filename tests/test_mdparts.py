"""Long Markdown files are checked by Prettier in parts, with the verdict of the whole file."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from acp_docs.checks import prettier, prettier_files
from acp_docs.config.repo import Repo
from acp_docs.core import cachedir
from acp_docs.markdown import parts as mdparts

from conftest import ROOT, require_tool

FORMATTED = """\
---
title: "A sample: every kind of block"
status: draft
---

# Title

Some _prose_ and `code`, then a list:

- one
- two

  ```json
  { "nested": true }
  ```

## A heading after a list

1. first
2. second

```json
{ "text": "a fence right after a list" }
```

> A quote
> on two lines.

### Third level

<!-- a comment with a blank line

# not a heading

``` not a fence either
-->

<pre>
keep

# this
</pre>

````text
```

# inside a longer fence
````

=== "Tab"

    ```json title="PromptSuggestion (v1)"
    { "text": "Run the tests" }
    ```

!!! note

    An admonition.

| a   | b   |
| --- | --- |
| 1   | 2   |

- list before an indented code block

<!-- -->

    indented code

#### Fourth

<details>
<summary>More</summary>

## A heading inside details

</details>

Setext heading
--------------

Last paragraph.
"""

UNFORMATTED = """\
#   Title

* star bullet
* another

## Second
Text with *stars* and __bold__.


```json
{"text":   "unformatted"}
```

|a|b|
|-|-|
|1|2|

### Third
+ plus bullet

```
plain fence
```

~~~text
```

# inside a tilde fence
~~~

# Last\x20\x20\x20
"""


def _format(samples: list[tuple[str, list[mdparts.Part]]]) -> list[str]:
    """What Prettier makes of each sample, formatting the given parts, joined."""
    require_tool("node", "Node")
    entry = ROOT / "node_modules" / "prettier" / "index.mjs"
    request = {
        "files": [
            {"path": path, "parts": [{"line": p.line, "text": p.text} for p in parts]}
            for path, parts in samples
        ]
    }
    done = subprocess.run(
        ["node", str(prettier.PARTS_SCRIPT), str(entry), str(ROOT)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out = []
    for (_path, parts), line in zip(samples, done.stdout.splitlines(), strict=True):
        changed = {c["line"]: c["formatted"] for c in json.loads(line)["changed"]}
        out.append("\n".join(changed.get(p.line, p.text) for p in parts))
    return out


def _sources() -> dict[str, str]:
    texts = {"sample-formatted.md": FORMATTED, "sample-unformatted.md": UNFORMATTED}
    for path in sorted([*ROOT.glob("rfds/*.md"), *ROOT.glob("docs/**/*.md"), ROOT / "README.md"]):
        if not path.is_symlink():
            texts[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    return texts


def _long(repo: Repo) -> dict[str, list[mdparts.Part]]:
    """The long Markdown files of `repo` the format check cuts, with their parts."""
    only_md = prettier_files.Languages((), frozenset(), frozenset())  # `.md` files are cut
    return prettier._long_markdown(prettier._markdown(prettier.checkout_files(repo), only_md))


def test_every_file_formats_in_parts_exactly_as_it_formats_whole() -> None:
    texts = _sources()
    whole = [(f"docs/{name}", [mdparts.Part(1, text)]) for name, text in texts.items()]
    cut = [(f"docs/{name}", mdparts.parts(text, size=1)) for name, text in texts.items()]
    assert sum(len(parts) for _p, parts in cut) > 5 * len(cut), "the samples are hardly cut"
    # One Node, warmed up by the whole files for the parts. A file with no place to
    # cut is one part, the whole file: the same request, so its answer is the same.
    split = [index for index, (_p, parts) in enumerate(cut) if len(parts) > 1]
    both = _format(whole + [cut[index] for index in split])
    formatted, cut_formatted = both[: len(whole)], list(both[: len(whole)])
    for index, parted in zip(split, both[len(whole) :], strict=True):
        cut_formatted[index] = parted
    for (_p, one_part), (_q, parts) in zip(whole, cut, strict=True):
        assert len(parts) > 1 or parts == one_part
    for name, one, parted in zip(texts, formatted, cut_formatted, strict=True):
        assert parted == one, f"{name}: cut at every safe place, Prettier formats it differently"
    assert formatted[0] == FORMATTED, "the formatted sample is not Prettier-clean"
    assert formatted[1] != UNFORMATTED, "the unformatted sample is Prettier-clean"


def _points(text: str) -> list[str]:
    lines = text.split("\n")
    return [lines[i] for i in mdparts.cut_points(text)]


def test_cuts_are_only_before_top_level_headings_and_fences() -> None:
    points = _points(FORMATTED)
    assert "## A heading after a list" in points
    assert "```json" in points and "````text" in points
    inside = ["# not a heading", "# this", "# inside a longer fence", "``` not a fence either"]
    assert not set(inside) & set(points)
    assert "~~~text" in _points(UNFORMATTED)
    assert "# inside a tilde fence" not in _points(UNFORMATTED)
    assert all(not p.startswith(("title:", "  ```", "    ```")) for p in points)
    assert "Setext heading" not in points


def test_a_heading_after_two_blank_lines_is_no_cut_so_the_extra_line_is_still_found() -> None:
    text = "Para one.\n\n\n# Heading\n\nPara two.\n"
    assert mdparts.cut_points(text) == []


@pytest.mark.parametrize(
    "construct",
    [
        "[ref]: https://example.com",
        "[^note]: A footnote.",
        "<!-- prettier-ignore -->",
        "<!-- prettier-ignore-start -->",
        "$$",
        "a line ending in a carriage return\r",
    ],
)
def test_a_file_with_a_whole_file_construct_is_never_cut(construct: str) -> None:
    text = f"Intro.\n\n# One\n\n{construct}\n\n# Two\n\nEnd.\n"
    assert mdparts.parts(text, size=1) == [mdparts.Part(1, text)]


def test_parts_join_back_to_the_file_and_start_at_their_lines() -> None:
    parts = mdparts.parts(FORMATTED, size=20)
    assert len(parts) > 2
    assert "\n".join(p.text for p in parts) == FORMATTED
    lines = FORMATTED.split("\n")
    for part in parts:
        assert lines[part.line - 1] == part.text.split("\n")[0]
        assert len(part.text.split("\n")) >= 20 or part is parts[-1]


STEPS = 40
"""Sections of the long page of the Prettier tests: 241 lines, over `SHORT_LONG_LINES`."""
PLANTED = 25
"""The section a test plants a change in."""
SHORT_LONG_LINES = 150
SHORT_PART_LINES = 40


@pytest.fixture
def short_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lower the long-file threshold and the part size, so a short page is cut in parts.

    The page then takes the path a page of over 4000 lines takes (found long,
    cut in parts, formatted part by part), for a fraction of Prettier's work.
    """
    monkeypatch.setattr(prettier, "LONG_LINES", SHORT_LONG_LINES)
    monkeypatch.setattr(mdparts, "parts", functools.partial(mdparts.parts, size=SHORT_PART_LINES))


def _long_rfd(planted: str | None = None, steps: int = 1100, at: int = 700) -> str:
    blocks = []
    for index in range(steps):
        payload = f'{{ "text": "Run the tests of part {index}" }}'
        if planted is not None and index == at:
            payload = planted
        blocks.append(f'## Step {index}\n\n```json title="PromptSuggestion (v1)"\n{payload}\n```\n')
    return "# A long page\n\n" + "\n".join(blocks)


def _short_long_rfd(planted: str | None = None) -> str:
    return _long_rfd(planted, steps=STEPS, at=PLANTED)


def test_a_long_page_is_checked_in_parts_and_a_change_found_at_its_line(
    node_repo: Path, tmp_path: Path, short_parts: None
) -> None:
    root = node_repo
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    page = root / "docs" / "long.md"
    page.write_text(_short_long_rfd(), encoding="utf-8")
    assert page.read_text(encoding="utf-8").count("\n") > prettier.LONG_LINES
    repo = Repo.load(root)
    parts = _long(repo)["docs/long.md"]
    assert len(parts) > 3
    assert prettier.check(repo) == []
    (cache,) = (tmp_path / "cache" / "prettier").glob("*-parts.json")
    assert len(cachedir.cache_dir("prettier").read_json(cache.name)) == len(parts)
    assert prettier.check(repo) == [], "a warm run sees the same"

    planted = f'{{"text":"Run the tests of part {PLANTED}"}}'
    page.write_text(_short_long_rfd(planted), encoding="utf-8")
    (finding,) = prettier.check(repo)
    assert len(cachedir.cache_dir("prettier").read_json(cache.name)) == len(parts) - 1
    line = page.read_text(encoding="utf-8").split("\n")[finding.line - 1]
    assert (finding.path, line) == ("docs/long.md", planted)
    assert "Prettier would reformat this file" in finding.message


def test_make_format_writes_a_long_page_as_prettier_formats_it_whole(
    node_repo: Path, short_parts: None
) -> None:
    root = node_repo
    (root / "docs" / "short.md").write_text("# Short\n\n*  one\n*  two\n", encoding="utf-8")
    page = root / "docs" / "long.md"
    planted = _short_long_rfd(f'{{"text":"Run the tests of part {PLANTED}"}}').replace(
        "## Step 3\n", "##   Step 3\n"
    )
    page.write_text(planted, encoding="utf-8")
    repo = Repo.load(root)
    assert len(_long(repo)["docs/long.md"]) > 3
    cli = str(ROOT / "node_modules" / "prettier" / "bin" / "prettier.cjs")
    whole = subprocess.run(
        ["node", cli, "--stdin-filepath", "docs/long.md"],
        input=planted,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert whole != planted

    assert prettier.write(repo) == []
    assert page.read_text(encoding="utf-8") == whole
    assert (root / "docs" / "short.md").read_text(encoding="utf-8") == "# Short\n\n- one\n- two\n"
    assert prettier.check(repo) == []


def test_only_plain_regular_utf8_files_are_cut_and_a_fifo_is_never_opened(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    docs = root / "docs"
    docs.mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    long = _long_rfd()
    (docs / "long.md").write_text(long, encoding="utf-8")
    (docs / "short.md").write_text("# Short\n", encoding="utf-8")
    (docs / "odd[1].md").write_text(long, encoding="utf-8")
    (docs / "latin.md").write_bytes(long.encode("utf-8") + b"\xff\n")
    (docs / "link.md").symlink_to(docs / "long.md")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.md").write_text(long, encoding="utf-8")
    (docs / "far").symlink_to(outside)
    for folder in ("notes", ".hidden", "node_modules"):
        (root / folder).mkdir()
        (root / folder / "long.md").write_text(long, encoding="utf-8")
    os.mkfifo(docs / "waiting.md")

    class Hung(Exception):
        """The listing opened the FIFO and waits for a writer."""

    def hung(*_args: object) -> None:
        raise Hung

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        assert list(_long(Repo.load(root))) == [
            "docs/long.md",
            "notes/long.md",
        ]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_why_a_file_with_prettier_ignore_is_never_cut() -> None:
    text = "Intro.\n\n<!-- prettier-ignore -->\n\n# Kept   as   written\n"
    cut = [mdparts.Part(1, "Intro.\n\n<!-- prettier-ignore -->\n"), mdparts.Part(5, text[34:])]
    assert "\n".join(p.text for p in cut) == text
    whole, parted = _format([("docs/a.md", [mdparts.Part(1, text)]), ("docs/a.md", cut)])
    assert "# Kept   as   written" in whole and "# Kept   as   written" not in parted
    assert mdparts.parts(text, size=1) == [mdparts.Part(1, text)]
