"""`acp-docs check`: each planted problem fails it with the file named; the clean repo passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import BIN, ROOT, no_traceback, replace_in, run

RFD = "rfds/prompt-suggestions.md"


def _check(repo: Path, *args: str, env: dict[str, str] | None = None):
    result = run(["acp-docs", "check", *args], cwd=repo, env=env)
    no_traceback(result)
    return result


def test_the_clean_repository_passes(aspell: None) -> None:
    result = _check(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stderr
    assert result.stdout == ""
    for name in ("schema", "examples", "rfds", "links", "build", "spell", "format"):
        assert f"  {name} " in result.stderr


def test_misspelt_prose_fails_but_the_same_word_in_code_does_not(
    repo_copy: Path, aspell: None
) -> None:
    rfd = repo_copy / RFD
    replace_in(rfd, "## Shiny future\n", "## Shiny future\n\n```text\nrecieve\n```\n")
    clean = _check(repo_copy, "--only", "spell")
    assert clean.returncode == 0, clean.stdout
    replace_in(rfd, "A user finishes reading", "A user recieve finishes reading")
    result = _check(repo_copy, "--only", "spell")
    assert result.returncode == 1
    line = next(ln for ln in result.stdout.splitlines() if "recieve" in ln)
    assert line.startswith(f"{RFD}:")
    number = int(line.split(":")[1])
    assert "A user recieve" in rfd.read_text().splitlines()[number - 1]


def test_misspelling_inside_a_content_tab_is_found(repo_copy: Path, aspell: None) -> None:
    replace_in(
        repo_copy / "docs" / "protocol" / "prompt-suggestions.md",
        "There is nothing to negotiate.",
        "There is nothing to negotaite.",
    )
    result = _check(repo_copy, "--only", "spell")
    assert result.returncode == 1
    assert "docs/protocol/prompt-suggestions.md:" in result.stdout
    assert "'negotaite'" in result.stdout


def test_prettier_violation_fails(repo_copy: Path) -> None:
    replace_in(
        repo_copy / "docs" / "index.md",
        "# ACP prompt suggestions\n",
        "# ACP prompt suggestions\n\n\n\n",
    )
    result = _check(repo_copy, "--only", "format")
    assert result.returncode == 1
    assert "docs/index.md:2:1: Prettier would reformat this file" in result.stdout


def test_rfd_dropped_from_the_navigation_fails(repo_copy: Path) -> None:
    replace_in(
        repo_copy / "mkdocs.yml", "          - Prompt suggestions: rfds/prompt-suggestions.md\n", ""
    )
    result = _check(repo_copy, "--only", "rfds", "build")
    assert result.returncode == 1
    assert f"{RFD}:1:1: RFD is missing from the mkdocs.yml navigation" in result.stdout


def test_status_that_disagrees_with_the_navigation_group_fails(repo_copy: Path) -> None:
    replace_in(repo_copy / RFD, "status: draft", "status: active")
    result = _check(repo_copy, "--only", "rfds")
    assert result.returncode == 1
    assert "has status 'active' but sits under RFDs > Draft" in result.stdout
    assert "mkdocs.yml:" in result.stdout


def test_navigation_entry_to_a_missing_file_fails(repo_copy: Path) -> None:
    replace_in(repo_copy / "mkdocs.yml", "rfds/preview.md", "rfds/previews.md")
    result = _check(repo_copy, "--only", "rfds", "build")
    assert result.returncode == 1
    assert "navigation entry 'rfds/previews.md' points at a missing file" in result.stdout
    lines = (repo_copy / "mkdocs.yml").read_text().splitlines()
    reported = next(ln for ln in result.stdout.splitlines() if "previews.md' points" in ln)
    assert "rfds/previews.md" in lines[int(reported.split(":")[1]) - 1]


def test_missing_template_section_fails(repo_copy: Path) -> None:
    replace_in(repo_copy / RFD, "## Shiny future\n", "## A brighter tomorrow\n")
    result = _check(repo_copy, "--only", "rfds")
    assert result.returncode == 1
    assert f"{RFD}:1:1: missing template section '## Shiny future'" in result.stdout


def test_broken_anchor_link_fails(repo_copy: Path) -> None:
    replace_in(
        repo_copy / "docs" / "index.md",
        "rfds/prompt-suggestions.md#frequently-asked-questions",
        "rfds/prompt-suggestions.md#frequently-asked-question",
    )
    result = _check(repo_copy, "--only", "links")
    assert result.returncode == 1
    line = next(ln for ln in result.stdout.splitlines() if "frequently-asked-question'" in ln)
    assert line.startswith("docs/index.md:")
    assert int(line.split(":")[1]) > 1


def test_planted_invalid_example_fails_examples_and_build(repo_copy: Path) -> None:
    replace_in(repo_copy / RFD, '"suggestions": [] }', '"suggestions": [""] }')
    result = _check(repo_copy, "--only", "examples", "build")
    assert result.returncode == 1
    problem = "[v1 SessionUpdate] /suggestions/0: '' is not of type 'object'"
    assert result.stdout.count(problem) == 1, "the example was checked twice"
    assert "  examples  failed" in result.stderr
    assert "  build     ok" in result.stderr


def test_drifted_fragment_fails(repo_copy: Path) -> None:
    replace_in(repo_copy / "schema" / "prompt-suggestions" / "v1.json", "Never empty.", "Empty.")
    result = _check(repo_copy, "--only", "schema")
    assert result.returncode == 1
    assert "schema/prompt-suggestions/v1.json:" in result.stdout


def test_github_actions_gets_annotations(repo_copy: Path) -> None:
    replace_in(repo_copy / RFD, "## Shiny future\n", "## A brighter tomorrow\n")
    result = _check(repo_copy, "--only", "rfds", env={"GITHUB_ACTIONS": "true"})
    assert result.returncode == 1
    assert (
        f"::error file={RFD},line=1,col=1,title=acp-docs rfds/missing-section::missing template"
        in result.stdout
    )


def test_a_check_that_cannot_run_exits_2(repo_copy: Path) -> None:
    (repo_copy / "node_modules").unlink()
    result = _check(repo_copy, "--only", "format")
    assert result.returncode == 2
    assert "make setup" in result.stderr


def test_spell_without_aspell_says_how_to_install_it(repo_copy: Path) -> None:
    env = {"PATH": str(BIN)}
    result = run(["acp-docs", "spell"], cwd=repo_copy, env=env)
    assert result.returncode == 2
    assert "apt-get install aspell aspell-en" in result.stderr
    no_traceback(result)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("status: draft", "status: drafty", "front matter `status`"),
        ("created: 2026-12-02", "created: yesterday", "front matter `created`"),
        ("title: Prompt suggestions\n", "", "'title' is a required property"),
        (
            "### Why a list and not a single suggestion?\n",
            "**Why a list and not a single suggestion?**\n",
            "make it a '###' heading",
        ),
        (
            "- 2026-12-02: First draft, for v1 and v2.\n- 2026-12-02:",
            "- First draft.\n-",
            "no dated entry",
        ),
        ("## Status quo\n", "## Status quo\n\n## Elevator pitch\n", "out of order"),
        ("> What are you proposing to change?\n", "", "add the line '> What are you proposing"),
        (
            "### What alternative approaches did you consider, and why did you settle on this one?",
            "### Which alternatives were there?",
            "the FAQ must answer '### What alternative approaches",
        ),
    ],
)
def test_rfd_lint_rules(repo_copy: Path, old: str, new: str, message: str) -> None:
    replace_in(repo_copy / RFD, old, new)
    result = run(["acp-docs", "rfds"], cwd=repo_copy)
    assert result.returncode == 1, result.stdout
    assert message in result.stdout
    assert RFD in result.stdout


def test_rfd_lint_cross_file_rules(repo_copy: Path) -> None:
    text = (repo_copy / RFD).read_text()
    (repo_copy / "rfds" / "Other_RFD.md").write_text(text)
    result = run(["acp-docs", "rfds"], cwd=repo_copy)
    assert result.returncode == 1
    assert "'Other_RFD.md' is not kebab-case" in result.stdout
    assert "another RFD has the same title 'Prompt suggestions'" in result.stdout
    assert "rfds/Other_RFD.md:1:1: RFD is missing from the mkdocs.yml navigation" in result.stdout


def test_rfd_without_front_matter_or_with_bad_bytes(repo_copy: Path) -> None:
    rfd = repo_copy / RFD
    rfd.write_text(rfd.read_text().split("---\n", 2)[2])
    result = run(["acp-docs", "rfds"], cwd=repo_copy)
    assert result.returncode == 1
    assert f"{RFD}:1:1: missing YAML front matter" in result.stdout
    rfd.write_bytes(b"---\ntitle: x\n---\n\n\xff\n")
    result = run(["acp-docs", "rfds"], cwd=repo_copy)
    assert result.returncode == 1
    assert f"{RFD}:5:1: not valid UTF-8" in result.stdout
    no_traceback(result)


def test_malformed_mkdocs_yml_exits_2(repo_copy: Path) -> None:
    (repo_copy / "mkdocs.yml").write_text("nav: [\n")
    result = run(["acp-docs", "rfds"], cwd=repo_copy)
    assert result.returncode == 2
    assert "mkdocs.yml:" in result.stderr and "malformed YAML" in result.stderr
    no_traceback(result)


def test_pyspelling_extensions_must_match_mkdocs(repo_copy: Path, aspell: None) -> None:
    replace_in(
        repo_copy / ".pyspelling.yml",
        "            - pymdownx.tabbed:\n                alternate_style: true\n",
        "",
    )
    result = run(["acp-docs", "spell"], cwd=repo_copy)
    assert result.returncode == 1
    assert ".pyspelling.yml:" in result.stdout and "differ from mkdocs.yml" in result.stdout


def test_checks_write_nothing_in_the_repository(repo_copy: Path, aspell: None) -> None:
    def snapshot() -> dict[str, bytes]:
        return {
            p.relative_to(repo_copy).as_posix(): p.read_bytes()
            for p in sorted(repo_copy.rglob("*"))
            if "node_modules" not in p.parts and p.is_file()
        }

    before = snapshot()
    result = _check(repo_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert snapshot() == before
