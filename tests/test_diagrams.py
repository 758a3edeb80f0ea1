"""Mermaid diagrams: drawn at build time, found at their lines, published without styles.

The unit tests need no browser; the build tests plant diagrams in a copy of
the repository and run `acp-docs check` and `mkdocs build` on it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_docs.diagrams import fences, publish, styles, theme

from conftest import acp, copy_repo, no_traceback, require_tool, run

GOOD = """sequenceDiagram
    accTitle: A planted timeline
    accDescr: The Client asks and the Agent answers, planted by a test.
    participant C as Client
    participant A as Agent
    C->>A: session/prompt {tag}
    A-->>C: response
"""
BROKEN = """sequenceDiagram
    accTitle: A broken timeline
    accDescr: Its fifth line is not a message.
    C->>A: session/prompt
    A-->>: nobody receives this
"""
NO_ALTERNATIVE = """sequenceDiagram
    C->>A: session/prompt {tag}
"""


def _fence(text: str) -> str:
    return f"```mermaid\n{text}```\n"


def test_a_placeholder_replaces_each_drawn_block_at_the_line_of_its_file() -> None:
    source = "---\ntitle: x\n---\n\n# Page\n\n" + _fence(GOOD) + "\ntext\n\n" + _fence(BROKEN)
    markdown = source.split("---\n", 2)[2]
    seen: list[fences.Diagram] = []

    def drawn(diagram: fences.Diagram) -> str | None:
        seen.append(diagram)
        return None if "broken" in diagram.text else "WORD"

    made = fences.replace(markdown, source, drawn)
    assert [d.line for d in seen] == [7, 7 + GOOD.count("\n") + 5]
    assert "WORD" in made and "accTitle: A planted" not in made
    assert "A-->>: nobody" in made  # not drawn: its text stays, as code


def test_a_diagram_too_large_or_of_another_kind_is_refused_without_drawing(tmp_path: Path) -> None:
    publisher = publish.Publisher(tmp_path)  # no Mermaid there: drawing would fail otherwise
    large = GOOD + "    C->>A: more\n" * (theme.MAX_TEXT // 10)
    outcome = publisher.publish(large, 12)
    assert outcome.figure is None
    assert [(p.line, p.rule) for p in outcome.problems] == [(12, "diagrams/too-large")]
    outcome = publisher.publish("pie\n    accTitle: x\n", 3)
    assert [(p.line, p.rule) for p in outcome.problems] == [(3, "diagrams/not-allowed")]
    assert publisher.renderer.started == 0


def test_styles_leave_the_drawing_for_rules_scoped_by_its_id() -> None:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" id="acp-d-1" style="max-width: 300px;">'
        "<style>#acp-d-1 .x{fill:#333;}</style>"
        '<g id="root-0" data-et="x" name="A"><text class="x" style="font-size: 16px;'
        ' font-family: &quot;a;b&quot;, sans-serif">hi</text>'
        '<line marker-end="url(#root-0)" /></g></svg>'
    )
    made = styles.extract(svg, "acp-d-1")
    assert "<style" not in made.svg and "style=" not in made.svg
    assert "data-et" not in made.svg and "name=" not in made.svg
    assert 'id="acp-d-1-root-0"' in made.svg and "url(#acp-d-1-root-0)" in made.svg
    assert "#acp-d-1 .x{fill:#333;}" in made.css
    assert "#acp-d-1{max-width:300px !important;" in made.css
    assert re.search(r'#acp-d-1 \.acp-s0\{font-size:16px !important;font-family:"a;b"', made.css)
    with pytest.raises(styles.Refused):
        styles.extract('<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg" id="a"/>', "a")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, int, str]:
    """A copy of the repository whose home page ends with a good, a broken and an unlabelled
    diagram; the lines of the broken one's bad line and of the unlabelled one's fence."""
    require_tool("chromium", "Chromium")
    repo = copy_repo(tmp_path_factory.mktemp("diagrams"))
    page = repo / "docs" / "index.md"
    text = page.read_text(encoding="utf-8")
    tag = tmp_path_factory.getbasetemp().name.replace("-", "")  # a text no cache has seen
    added = "\n" + _fence(GOOD.format(tag=tag)) + "\n" + _fence(BROKEN) + "\n"
    broken_fence = text.count("\n") + 1 + GOOD.count("\n") + 3 + 1
    alternative_fence = broken_fence + BROKEN.count("\n") + 3
    added += _fence(NO_ALTERNATIVE.format(tag=tag))
    page.write_text(text + added, encoding="utf-8")
    return repo, broken_fence + 5, alternative_fence, tag


@pytest.mark.build
def test_a_broken_diagram_is_a_finding_at_its_line_and_fails_the_strict_build(
    planted: tuple[Path, int, int, str],
) -> None:
    repo, bad_line, unlabelled, _ = planted
    result = acp(["check", "--only", "diagrams"], cwd=repo)
    no_traceback(result)
    assert result.returncode == 1, result.stderr
    assert (
        f"docs/index.md:{bad_line}:1: error: Mermaid cannot draw the diagram: Parse error on line 5"
        in result.stdout
    ), result.stdout
    said = f"docs/index.md:{unlabelled}:1: error: the diagram has no text alternative"
    assert said in result.stdout
    strict = run(["mkdocs", "build", "--strict", "--site-dir", str(repo / "strict")], cwd=repo)
    assert strict.returncode != 0
    assert f"docs/index.md:{bad_line}" in strict.stderr


@pytest.mark.build
def test_the_published_page_holds_plain_svg_and_no_mermaid_loader(
    planted: tuple[Path, int, int, str], tmp_path: Path
) -> None:
    repo, _, _, tag = planted
    site = tmp_path / "site"
    result = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo)
    assert result.returncode == 0, result.stderr
    page = (site / "index.html").read_text(encoding="utf-8")
    figures = re.findall(r'<figure class="acp-diagram"[^>]*>(.*?)</figure>', page, re.S)
    assert len(figures) == 2  # the good one and the unlabelled one; the broken one is code
    drawn = next(f for f in figures if "A planted timeline" in f)
    assert "<svg" in drawn and "<title" in drawn and "<desc" in drawn and tag in drawn
    assert "aria-labelledby=" in drawn and "aria-describedby=" in drawn
    for figure in figures:
        assert "<style" not in figure and " style=" not in figure and "foreignObject" not in figure
    assert 'class="mermaid"' not in page and "unpkg" not in page
    assert not re.search(r'<script[^>]+src="(?:https?:)?//', page)
    assert "nobody receives this" in page  # the broken diagram, shown as code
    sheet = (site / "assets" / "acp-diagrams.css").read_text(encoding="utf-8")
    ident = re.search(r'<svg[^>]* id="(acp-d-[0-9a-f]+)"', drawn)
    assert ident is not None and f"#{ident.group(1)} " in sheet
    assert "var(--md-default-fg-color)" in sheet
    assert 'href="../assets/acp-diagrams.css"' in page or 'href="assets/acp-diagrams.css"' in page


@pytest.mark.build
def test_unchanged_diagrams_start_no_browser_and_a_missing_one_is_a_finding(
    tmp_path: Path,
) -> None:
    require_tool("chromium", "Chromium")
    repo = copy_repo(tmp_path)
    page = repo / "docs" / "index.md"
    text = page.read_text(encoding="utf-8")
    fence = text.count("\n") + 2
    page.write_text(text + "\n" + _fence(GOOD.format(tag="cache")), encoding="utf-8")
    cache = {"ACP_DOCS_CACHE_DIR": str(tmp_path / "cache")}
    nowhere = {**cache, "ACP_DOCS_CHROMIUM": str(tmp_path / "no-chromium")}
    # No cache, no Chromium: the diagram's finding, at its fence, and its text as code.
    missing = acp(["check", "--only", "diagrams"], cwd=repo, env=nowhere)
    no_traceback(missing)
    assert missing.returncode == 1
    assert f"docs/index.md:{fence}:1: error: the diagram is not drawn: Chromium" in missing.stdout
    assert "make setup" in missing.stdout
    first = acp(["check", "--only", "diagrams"], cwd=repo, env=cache)
    assert first.returncode == 0, first.stdout + first.stderr
    assert list((tmp_path / "cache" / "diagrams").glob("*.json"))
    # Drawn once: the next check reads the cache and needs no Chromium.
    second = acp(["check", "--only", "diagrams"], cwd=repo, env=nowhere)
    assert second.returncode == 0, second.stdout + second.stderr


def test_past_the_builds_drawing_budget_a_diagram_is_a_finding_and_no_browser_starts(
    tmp_path: Path,
) -> None:
    from acp_docs.diagrams import render

    renderer = render.Renderer(tmp_path)
    renderer.spent = render.BUDGET  # the diagrams before it took the build's drawing time
    drawn = renderer.draw("acp-diagram-x", "flowchart LR\n  A --> B\n")
    assert isinstance(drawn, render.Failure) and not drawn.lasting  # drawn by a later build
    assert f"spent its {render.BUDGET:g} s of drawing" in drawn.message
    assert renderer.started == 0
