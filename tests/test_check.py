"""`acp-docs check`: each planted problem fails it with the file named; a clean checkout passes.

The problems are planted in a checkout with the sample RFD (see conftest), so
they never depend on which RFDs the repository holds.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import (
    BIN,
    acp,
    copy_sample,
    free_name,
    new_rfd,
    no_traceback,
    replace_in,
    run,
    sample,
)

SAMPLE = sample()
RFD = SAMPLE.rfd
PAGE = SAMPLE.protocol


def _check(repo: Path, *args: str, env: dict[str, str] | None = None):
    result = acp(["check", *args], cwd=repo, env=env)  # in this process: no interpreter start-up
    no_traceback(result)
    return result


CODE_ONLY_TYPO = "## Status quo\n\n```text\nrecieve\n```\n"
"""A misspelling inside code, placed before the same word in prose: it must not count."""


@dataclass
class Planted:
    """One copy of the repository with a problem planted in each check, checked once."""

    repo: Path
    result: subprocess.CompletedProcess[str]
    before: dict[str, bytes]
    after: dict[str, bytes]
    other: str
    """The RFD planted outside the navigation."""

    def lines(self, text: str) -> list[str]:
        """The reported lines that contain `text`."""
        return [ln for ln in self.result.stdout.splitlines() if text in ln]

    def line_of(self, reported: str, path: str) -> str:
        """The source line a reported `path:line:col: ...` points at."""
        number = int(reported.split(":")[1])
        return (self.repo / path).read_text().splitlines()[number - 1]


def _snapshot(repo: Path) -> dict[str, bytes]:
    return {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if "node_modules" not in p.parts and p.is_file() and not p.is_symlink()
    }


@pytest.fixture(scope="module")
def planted(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Planted:
    repo = copy_sample(sample_template, tmp_path_factory.mktemp("planted"))
    rfd = repo / RFD
    other, other_title = free_name(repo, "other-idea", "Another idea")
    (repo / "rfds" / f"{other}.md").write_text(
        rfd.read_text().replace(f'title: "{SAMPLE.title}"', f'title: "{other_title}"')
    )
    replace_in(rfd, "## Status quo\n", CODE_ONLY_TYPO)
    replace_in(rfd, "A user finishes reading", "A user recieve finishes reading")
    replace_in(rfd, '"maxBadges": 3,', '"maxBadges": "3",')
    replace_in(rfd, "## Elevator pitch\n", "## A brighter tomorrow\n")
    replace_in(rfd, "status: draft", "status: active")
    page = repo / PAGE
    replace_in(page, "There is nothing to negotiate.", "There is nothing to negotaite.")
    replace_in(page, f"# {SAMPLE.title}\n", f"# {SAMPLE.title}\n\n\n\n")
    replace_in(page, "md#frequently-asked-questions", "md#frequently-asked-question")
    replace_in(repo / SAMPLE.fragment, "Never empty.", "Empty.")
    replace_in(repo / "mkdocs.yml", "rfds/preview/index.md", "rfds/previews/index.md")
    before = _snapshot(repo)
    result = _check(repo)
    return Planted(repo, result, before, _snapshot(repo), f"rfds/{other}.md")


@pytest.mark.build
def test_a_clean_checkout_with_a_new_rfd_passes(sample_copy: Path, aspell: None) -> None:
    """The sample RFD, and the RFD an author just started with `acp-docs new`, pass every check."""
    new_rfd(sample_copy, "session-labels", "Session labels")
    result = _check(sample_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stderr
    # What the author has yet to write is said, as warnings at its lines; nothing else.
    said = result.stdout.splitlines()
    assert said and all(": warning: placeholder text of the template" in ln for ln in said), said
    for name in ("files", "schema", "examples", "rfds", "links", "build", "spell", "format"):
        assert re.search(rf"^  {name} +ok ", result.stderr, re.M), result.stderr


@pytest.mark.build
def test_a_planted_problem_fails_each_check_and_the_summary_says_which(
    planted: Planted, aspell: None
) -> None:
    assert planted.result.returncode == 1, planted.result.stderr
    for name in ("schema", "examples", "rfds", "links", "spell", "format"):
        assert re.search(rf"^  {name} +failed ", planted.result.stderr, re.M), name
    assert re.search(r"^  files +ok ", planted.result.stderr, re.M)


@pytest.mark.build
def test_checks_write_nothing_in_the_repository(planted: Planted, aspell: None) -> None:
    assert planted.after == planted.before


@pytest.mark.build
def test_misspelt_prose_fails_but_the_same_word_in_code_does_not(
    planted: Planted, aspell: None
) -> None:
    (line,) = planted.lines("'recieve'")
    assert line.startswith(f"{RFD}:")
    assert "A user recieve" in planted.line_of(line, RFD)


@pytest.mark.build
def test_misspelling_inside_a_content_tab_is_found(planted: Planted, aspell: None) -> None:
    (line,) = planted.lines("'negotaite'")
    assert line.startswith(f"{PAGE}:")
    assert "negotaite" in planted.line_of(line, PAGE)


@pytest.mark.build
def test_prettier_violation_fails(planted: Planted) -> None:
    lines = (planted.repo / PAGE).read_text().splitlines()
    blank = lines.index(f"# {SAMPLE.title}") + 2
    assert f"{PAGE}:{blank}:1: error: Prettier would reformat this file" in planted.result.stdout


@pytest.mark.build
def test_rfd_missing_from_the_navigation_fails(planted: Planted) -> None:
    message = f"{planted.other}:1:1: error: RFD is missing from the mkdocs.yml navigation"
    assert message in planted.result.stdout


@pytest.mark.build
def test_status_that_disagrees_with_the_navigation_group_fails(planted: Planted) -> None:
    (line,) = planted.lines("has status 'active' but sits under RFDs > Draft")
    assert line.startswith("mkdocs.yml:")
    assert RFD in planted.line_of(line, "mkdocs.yml")


@pytest.mark.build
def test_navigation_entry_to_a_missing_file_fails(planted: Planted) -> None:
    (line,) = planted.lines("navigation entry 'rfds/previews/index.md' points at a missing file")
    assert "rfds/previews/index.md" in planted.line_of(line, "mkdocs.yml")


@pytest.mark.build
def test_missing_template_section_fails(planted: Planted) -> None:
    assert (
        f"{RFD}:1:1: error: missing template section '## Elevator pitch'" in planted.result.stdout
    )


@pytest.mark.build
def test_broken_anchor_link_fails(planted: Planted) -> None:
    (line,) = planted.lines("frequently-asked-question'")
    assert line.startswith(f"{PAGE}:")
    assert "#frequently-asked-question)" in planted.line_of(line, PAGE)


@pytest.mark.build
def test_planted_invalid_example_fails_once_at_its_line(planted: Planted) -> None:
    problem = (
        f"[v1 ClientSessionCapabilities] /{SAMPLE.prop}/maxBadges: '3' is not of type 'integer'"
    )
    (line,) = planted.lines(problem)
    assert line.startswith(f"{RFD}:")
    number, col = int(line.split(":")[1]), int(line.split(":")[2])
    payload = (planted.repo / RFD).read_text().splitlines()[number - 1]
    assert payload[col - 1 :].startswith('"maxBadges": "3"')  # the member, not the fence


@pytest.mark.build
def test_drifted_fragment_fails(planted: Planted) -> None:
    assert planted.lines(f"{SAMPLE.fragment}:")


@pytest.mark.build
def test_github_actions_gets_annotations(planted: Planted) -> None:
    result = _check(planted.repo, "--only", "rfds", env={"GITHUB_ACTIONS": "true"})
    assert result.returncode == 1
    assert (
        f"::error file={RFD},line=1,col=1,title=acp-docs rfds/missing-section::missing template"
        in result.stdout
    )


def test_a_check_that_cannot_run_exits_2(repo_copy: Path) -> None:
    (repo_copy / "node_modules").unlink()
    result = acp(["check", "--only", "format"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "make setup" in result.stderr


def test_spell_without_aspell_says_how_to_install_it_before_building(repo_copy: Path) -> None:
    result = acp(["check", "--only", "spell"], cwd=repo_copy, env={"PATH": str(BIN)})
    assert result.returncode == 2
    assert "apt-get install aspell aspell-en" in result.stderr
    assert re.search(r"^  spell +error +0\.00s", result.stderr, re.M), result.stderr
    no_traceback(result)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("status: draft", "status: drafty", "front matter `status`"),
        ("created: 2026-12-02", "created: yesterday", "front matter `created`"),
        (f'title: "{SAMPLE.title}"\n', "", "'title' is a required property"),
        (
            "### Why a list and not a single badge?\n",
            "**Why a list and not a single badge?**\n",
            "make it a '###' heading",
        ),
        ("## Status quo\n", "## Status quo\n\n## Elevator pitch\n", "out of order"),
        ("> What are you proposing to change?\n", "", "add the line '> What are you proposing"),
    ],
)
def test_rfd_lint_rules(sample_copy: Path, old: str, new: str, message: str) -> None:
    replace_in(sample_copy / RFD, old, new)
    result = acp(["rfds"], cwd=sample_copy)
    assert result.returncode == 1, result.stdout
    assert message in result.stdout
    assert RFD in result.stdout


def test_a_revision_history_without_a_dated_entry_is_a_finding(sample_copy: Path) -> None:
    rfd = sample_copy / RFD
    body, history = rfd.read_text().split("## Revision history\n")
    rfd.write_text(body + "## Revision history\n" + re.sub(r"- \d{4}-\d{2}-\d{2}:", "-", history))
    result = acp(["rfds"], cwd=sample_copy)
    assert result.returncode == 1
    assert f"{RFD}:" in result.stdout and "no dated entry" in result.stdout


def _minimal_draft(repo: Path, *flags: str) -> tuple[Path, str]:
    """A new RFD (under a name no RFD has), its path and its path as findings name it."""
    made = new_rfd(repo, "session-labels", "Session labels", *flags)
    return repo / made.shown, made.shown


def test_a_draft_may_start_minimal_as_upstream_allows(repo_copy: Path) -> None:
    rfd, _shown = _minimal_draft(repo_copy, "--minimal")
    headings = [line for line in rfd.read_text().splitlines() if line.startswith("## ")]
    assert headings == ["## Elevator pitch", "## Status quo", "## Revision history"]
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 0, result.stdout


def test_an_rfd_past_draft_needs_the_sections_its_status_requires(repo_copy: Path) -> None:
    rfd, path = _minimal_draft(repo_copy, "--minimal")
    replace_in(rfd, "status: draft", "status: active")
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 1
    shown = f"{path}:1:1: error: missing template section"
    for section in ("What we propose to do about it", "Shiny future", "Frequently asked questions"):
        assert f"{shown} '## {section}' (required from Active on" in result.stdout
    assert "Implementation details and plan" not in result.stdout


def test_past_draft_the_faq_answers_the_alternatives_question(repo_copy: Path) -> None:
    rfd, _shown = _minimal_draft(repo_copy)
    question = (
        "### What alternative approaches did you consider, and why did you settle on this one?"
    )
    replace_in(rfd, question, "### Which alternatives were there?")
    assert acp(["rfds"], cwd=repo_copy).returncode == 0, "optional in a Draft"
    replace_in(rfd, "status: draft", "status: active")
    result = acp(["rfds"], cwd=repo_copy)
    assert "the FAQ answers '### What alternative approaches" in result.stdout
    assert "every upstream RFD" not in result.stdout


def test_rfd_lint_cross_file_rules(sample_copy: Path) -> None:
    text = (sample_copy / RFD).read_text()
    (sample_copy / "rfds" / "Other_RFD.md").write_text(text)
    result = acp(["rfds"], cwd=sample_copy)
    assert result.returncode == 1
    assert "'Other_RFD.md' is not kebab-case" in result.stdout
    assert f"another RFD has the same title '{SAMPLE.title}'" in result.stdout
    assert (
        "rfds/Other_RFD.md:1:1: error: RFD is missing from the mkdocs.yml navigation"
        in result.stdout
    )


def test_rfd_without_front_matter_or_with_bad_bytes(sample_copy: Path) -> None:
    rfd = sample_copy / RFD
    rfd.write_text(rfd.read_text().split("---\n", 2)[2])
    result = acp(["rfds"], cwd=sample_copy)
    assert result.returncode == 1
    assert f"{RFD}:1:1: error: missing YAML front matter" in result.stdout
    rfd.write_bytes(b"---\ntitle: x\n---\n\n\xff\n")
    result = acp(["rfds"], cwd=sample_copy)
    assert result.returncode == 1
    assert f"{RFD}:5:1: error: not valid UTF-8" in result.stdout
    no_traceback(result)


def test_malformed_mkdocs_yml_exits_2(repo_copy: Path) -> None:
    (repo_copy / "mkdocs.yml").write_text("nav: [\n")
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 2
    assert "mkdocs.yml:" in result.stderr and "malformed YAML" in result.stderr
    no_traceback(result)


@pytest.mark.build
def test_pyspelling_extensions_must_match_mkdocs(repo_copy: Path, aspell: None) -> None:
    replace_in(
        repo_copy / ".pyspelling.yml",
        "            - pymdownx.tabbed:\n                alternate_style: true\n",
        "",
    )
    result = run(["acp-docs", "spell"], cwd=repo_copy)
    assert result.returncode == 1
    assert ".pyspelling.yml:" in result.stdout and "differ from mkdocs.yml" in result.stdout


def test_an_aspell_option_that_could_smuggle_a_flag_is_refused(repo_copy: Path) -> None:
    replace_in(repo_copy / ".pyspelling.yml", "lang: en", 'lang: "en --personal=/etc/passwd"')
    result = acp(["check", "--only", "spell"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    config = (repo_copy / ".pyspelling.yml").read_text().split("\n")
    line = next(n for n, text in enumerate(config, 1) if "lang:" in text)
    assert f".pyspelling.yml:{line}:1: aspell option 'lang'" in result.stderr
    assert "is not supported" in result.stderr


def test_format_rewrites_what_it_can_and_names_each_file_it_cannot(node_repo: Path) -> None:
    root = node_repo
    (root / "docs" / "a.md").write_text("# A\n\n*  x\n", encoding="utf-8")
    (root / "docs" / "b.json").write_text('{"a": }\n', encoding="utf-8")
    result = acp(["format"], cwd=root)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "acp-docs format: docs/b.json: SyntaxError: Unexpected token (1:7)"
    ]
    assert (root / "docs" / "a.md").read_text(encoding="utf-8") == "# A\n\n- x\n"
    assert (root / "docs" / "b.json").read_text(encoding="utf-8") == '{"a": }\n'


def test_format_never_names_a_file_from_a_name_prettier_printed_over_two_lines(
    node_repo: Path,
) -> None:
    (node_repo / "docs" / "odd\nb.json").write_text('{"a": }\n', encoding="utf-8")
    result = acp(["format"], cwd=node_repo)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "acp-docs format: Prettier could not format a file; `npm run format:check` names it"
    ]
