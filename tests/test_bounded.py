"""Input made to be slow is a finding of the build, at its line, not minutes of CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import no_traceback, replace_in, run

pytestmark = pytest.mark.build

NAV_ENTRY = "      - Checks: tooling/checks.md\n"
CASES = {
    # name: (planted at line 5, what the finding says, the line it is at)
    "nested raw HTML": ("<div>" * 100_000, "HTML elements nested deeper than 256 levels", 5),
    "nested lists": (
        "".join("    " * depth + "- x\n" for depth in range(400)),
        "lists or quotes nested deeper than 24 levels",
        5 + 24,  # the first line past the limit
    ),
    "unclosed tags": ("x " + "<a " * 200_000, "more than 64 HTML openers", 5),
    "unclosed brackets": ("[" * 50_000, "brackets that Markdown's link reader would scan", 5),
    # Over 256 Ki characters of HTML: walked and sanitized in pieces (acp_docs.policy.pieces).
    "a long page": (
        "Words enough to make a long paragraph of a long page.\n\n" * 6000
        + '<img src="x.png" onerror="alert(1)">',
        "the attribute onerror= on <img>",
        5 + 2 * 6000,
    ),
}


def test_each_page_made_to_be_slow_is_a_finding_at_its_line(repo_copy: Path) -> None:
    # One build for every case: each is a page of its own, reported on its own.
    entries = ""
    for number, (body, _says, _line) in enumerate(CASES.values()):
        page = repo_copy / "docs" / "tooling" / f"slow{number}.md"
        page.write_text(f"# Slow {number}\n\nText.\n\n{body}\n", encoding="utf-8")
        entries += f"      - Slow {number}: tooling/slow{number}.md\n"
    replace_in(repo_copy / "mkdocs.yml", NAV_ENTRY, NAV_ENTRY + entries)
    result = run(["acp-docs", "check", "--only", "build"], cwd=repo_copy, timeout=120)
    no_traceback(result)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    for number, (case, (_body, says, line)) in enumerate(CASES.items()):
        page = f"docs/tooling/slow{number}.md"
        found = [x for x in lines if says in x and x.startswith(f"{page}:")]
        assert found and found[0].startswith(f"{page}:{line}:"), (case, result.stdout)


def test_many_identical_links_are_each_placed_at_their_line(repo_copy: Path) -> None:
    page = repo_copy / "docs" / "tooling" / "links.md"
    links = "\n".join("[gone](gone.md)" for _ in range(10_000))
    page.write_text(f"# Links\n\n{links}\n", encoding="utf-8")
    replace_in(repo_copy / "mkdocs.yml", NAV_ENTRY, NAV_ENTRY + "      - Links: tooling/links.md\n")
    result = run(["acp-docs", "check", "--only", "links"], cwd=repo_copy, timeout=120)
    no_traceback(result)
    assert result.returncode == 1
    placed = [line for line in result.stdout.splitlines() if "gone.md" in line]
    assert len(placed) == 10_000
    assert placed[0].startswith("docs/tooling/links.md:3:8:")
    assert placed[-1].startswith("docs/tooling/links.md:10002:8:")


def test_a_huge_mkdocs_yml_is_refused_before_it_is_parsed(repo_copy: Path) -> None:
    config = repo_copy / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "# padding\n" * 40_000, encoding="utf-8")
    result = run(["acp-docs", "check"], cwd=repo_copy, timeout=120)
    no_traceback(result)
    assert result.returncode == 2
    assert "mkdocs.yml:1:1:" in result.stderr and "holds at most 262,144" in result.stderr
