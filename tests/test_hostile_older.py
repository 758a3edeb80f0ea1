"""The older hostile cases of issue #28, and input that would make the work grow faster than it.

Each test plants one case in its own copy of the checkout and asserts what a
user sees: the exit status, the file (and line) named, no traceback, and no
file of the checkout changed. The bounded-work tests assert the finding, not a
time: they finish because the hazard is found before the engine is given it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from test_hostile import snapshot

from conftest import acp, no_traceback, replace_in, sample

SAMPLE = sample()
CHECKS_ENTRY = "      - Checks: tooling/checks.md\n"
DECLARE = f'title="{SAMPLE.entry} (v1)"'
"""A declaration of the sample RFD's entry: an object whose `text` is a non-empty string."""


def _line(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().split("\n"), 1) if needle in line)


def _page(repo: Path, body: str) -> Path:
    page = repo / "docs" / "hostile.md"
    page.write_text(f"# Hostile\n\n{body}", encoding="utf-8")
    return page


def test_nav_entries_to_a_missing_page_and_a_folder(repo_copy: Path) -> None:
    # An entry out of the checkout is refused with mkdocs.yml itself (test_many_rfds).
    (repo_copy / "docs" / "tooling" / "folder.md").mkdir()
    config = repo_copy / "mkdocs.yml"
    replace_in(
        config,
        CHECKS_ENTRY,
        CHECKS_ENTRY + "      - Gone: tooling/gone.md\n" + "      - Folder: tooling/folder.md\n",
    )
    before = snapshot(repo_copy)
    result = acp(["rfds"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    for needle, says in (
        ("tooling/gone.md", "points at a missing file"),
        ("tooling/folder.md", "points at a folder, not a page"),
    ):
        where = f"mkdocs.yml:{_line(config, needle)}:1: error: navigation entry {needle!r} {says}"
        assert where in result.stdout, result.stdout
    assert snapshot(repo_copy) == before


def test_an_rfd_file_name_that_is_not_utf8_is_named_once(repo_copy: Path) -> None:
    name = os.fsdecode(b"caf\xe9.md")
    (repo_copy / "rfds" / name).write_text((repo_copy / "rfds" / "TEMPLATE.md").read_text())
    before = snapshot(repo_copy)
    checked = acp(["check"], cwd=repo_copy)
    no_traceback(checked)
    assert checked.returncode == 2
    errors = [line for line in checked.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, checked.stderr
    assert "rfds/caf\\xe9.md: the file name is not UTF-8" in errors[0]
    assert "all checks passed" not in checked.stderr
    for command in (["examples"], ["format", "--check"]):
        alone = acp(command, cwd=repo_copy)
        assert alone.returncode == 2 and "rfds/caf\\xe9.md" in alone.stderr, alone.stderr
    linted = acp(["rfds"], cwd=repo_copy)
    assert linted.returncode == 1
    assert "rfds/caf\\xe9.md:1:1: error: the file name is not UTF-8: rename it" in linted.stdout
    assert snapshot(repo_copy) == before


def _examples_both_ways(repo: Path, target: str) -> tuple[set[str], set[str]]:
    """The findings' `path:line:col` of `acp-docs examples` and of the build's examples check."""
    alone = acp(["examples", target], cwd=repo)
    built = acp(["check", "--only", "examples"], cwd=repo)
    for result in (alone, built):
        no_traceback(result)

    def places(out: str) -> set[str]:
        return {":".join(line.split(":")[:3]) for line in out.splitlines() if ":" in line}

    return places(alone.stdout), places(built.stdout)


@pytest.mark.build
def test_json_blocks_in_list_items_are_checked_at_their_lines(sample_copy: Path) -> None:
    bad = '{"text": ""}'
    page = _page(
        sample_copy,
        f"1. First step:\n\n    ```json {DECLARE}\n    {bad}\n    ```\n\n"
        f"- Two spaces:\n\n  ```json {DECLARE}\n  {bad}\n  ```\n\n"
        f"- Tab:\n\n\t```json {DECLARE}\n\t{bad}\n\t```\n\n"
        f"- ```json {DECLARE}\n  {bad}\n  ```\n\n"
        f"* Nested\n    * deeper\n\n        ```json {DECLARE}\n        {bad}\n        ```\n",
    )
    lines = [n for n, line in enumerate(page.read_text().split("\n"), 1) if "```json" in line]
    marker_line = lines.pop(3)  # `- ```json` is inline code for Markdown: not a block
    before = snapshot(sample_copy)
    alone, built = _examples_both_ways(sample_copy, "docs/hostile.md")
    expected = {f"docs/hostile.md:{n + 1}" for n in lines}  # the member, after each fence
    assert {":".join(p.split(":")[:2]) for p in alone} == expected
    assert {":".join(p.split(":")[:2]) for p in built if p.startswith("docs/")} == expected
    assert f"docs/hostile.md:{marker_line}" not in {":".join(p.split(":")[:2]) for p in alone}
    assert snapshot(sample_copy) == before


@pytest.mark.build
def test_fence_attributes_are_read_as_the_renderer_reads_them(sample_copy: Path) -> None:
    page = _page(
        sample_copy,
        f'```{{ .json {DECLARE} }}\n{{"text": 5}}\n```\n\n'
        f'```json linenums="1" {DECLARE}\n{{"text": "fine"}}\n```\n\n'
        f'```json {DECLARE} hl_lines="1"\n{{"text": 6}}\n```\n\n'
        f'```{{.json data-{DECLARE}}}\n{{"text": "x"}}\n```\n\n'
        # Last: superfences leaves this line as text, and its closing fence opens a block.
        f'```json data-{DECLARE}\n{{"text": 7}}\n```\n',
    )
    text = page.read_text()
    braces = _line(page, "{ .json")
    ordered = _line(page, 'hl_lines="1"')
    undeclared = _line(page, "{.json data-title")
    alone, built = _examples_both_ways(sample_copy, "docs/hostile.md")
    lines = {int(p.split(":")[1]) for p in alone}
    # linenums: the line number is not part of the JSON; data-title in options: not a block.
    # A problem of a payload is at its member (the line after the fence); "undeclared" at it.
    assert lines == {braces + 1, ordered + 1, undeclared}, alone
    assert {p for p in built if p.startswith("docs/")} == alone
    result = acp(["examples", "docs/hostile.md"], cwd=sample_copy)
    assert f"docs/hostile.md:{undeclared}:1: error: undeclared JSON block" in result.stdout
    assert "7" not in [line.split(":")[-1].strip() for line in result.stdout.splitlines()]
    assert text == page.read_text()


def test_paths_on_the_command_line_are_relative_to_the_current_folder(sample_copy: Path) -> None:
    _page(sample_copy, f'```json {DECLARE}\n{{"text": ""}}\n```\n')
    (sample_copy.parent / "outside.md").write_text("# Outside\n")
    (sample_copy / "payload.json").write_text('{"text": ""}\n')
    before = snapshot(sample_copy)
    rfds = sample_copy / "rfds"
    up = acp(["examples", "../docs/hostile.md"], cwd=rfds)
    assert up.returncode == 1 and up.stdout.startswith("docs/hostile.md:4:2:"), up.stdout
    here = acp(["examples", "./hostile.md"], cwd=sample_copy / "docs")
    assert here.returncode == 1 and "docs/hostile.md:4:2:" in here.stdout, here.stderr
    out = acp(["examples", "../../outside.md"], cwd=rfds)
    no_traceback(out)
    assert out.returncode == 2 and "../../outside.md: outside the checkout" in out.stderr
    payload = acp(["validate", "--protocol", "v1", "--def", SAMPLE.entry, "../payload.json"], rfds)
    no_traceback(payload)
    assert payload.returncode == 1 and payload.stdout.startswith("../payload.json:1:1:")
    assert snapshot(sample_copy) == before


def test_wrong_shapes_in_pyspelling_yml_are_located_errors(repo_copy: Path, aspell: None) -> None:
    config = repo_copy / ".pyspelling.yml"
    original = config.read_text()
    cases = [
        ("  - name: markdown\n", "  - name: 5\n", "  - name: 5", "needs a `name` that is a string"),
        ("matrix:\n", "matrix: {}\nx:\n", "matrix:", "`matrix` must be a non-empty list"),
        ("    sources:\n", "    ignored:\n", "  - name: markdown", "has no `sources`"),
        ("    aspell:\n", "    aspell: [en]\n    x:\n", "aspell:", "`aspell` must be a mapping"),
        ("    pipeline:\n", "    pipeline: 7\n    x:\n", "pipeline:", "must be a list of filters"),
        ("      wordlists:\n", "      wordlists: 3\n      x:\n", "wordlists:", "list of paths"),
    ]
    for old, new, at, says in cases:
        config.write_text(original.replace(old, new, 1))
        before = snapshot(repo_copy)
        result = acp(["check", "--only", "spell"], cwd=repo_copy)
        no_traceback(result)
        assert result.returncode == 2, (new, result.stderr)
        assert f".pyspelling.yml:{_line(config, at)}:1: " in result.stderr, (new, result.stderr)
        assert says in result.stderr, (new, result.stderr)
        assert snapshot(repo_copy) == before


def test_schema_merge_output_into_a_special_place_is_a_clear_error(
    repo_copy: Path, tmp_path: Path
) -> None:
    before = snapshot(repo_copy)
    for output, says in (
        ("/proc/merged.json", "/proc/merged.json: cannot write here"),
        ("/dev/null", "/dev/null: refusing to write: not a regular file"),
        (str(tmp_path / "no" / "such" / "x.json"), "is not an existing folder"),
    ):
        result = acp(["schema", "merge", "--protocol", "v1", "--output", output], repo_copy)
        no_traceback(result)
        assert result.returncode == 2 and says in result.stderr, result.stderr
    written = tmp_path / "merged.json"
    result = acp(["schema", "merge", "--protocol", "v1", "--output", str(written)], repo_copy)
    assert result.returncode == 0 and written.read_text().startswith("{")
    assert snapshot(repo_copy) == before


def test_check_that_skips_every_check_is_not_a_pass(repo_copy: Path) -> None:
    from acp_docs.checks import registry

    result = acp(["check", "--skip", *registry.load_checks(repo_copy)], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "nothing would be checked" in result.stderr
    assert "passed" not in result.stderr


def test_an_rfd_path_that_is_a_folder_is_a_finding(repo_copy: Path) -> None:
    folder = repo_copy / "rfds" / "folder-rfd.md"
    folder.mkdir()
    (folder / "index.md").write_text("# Hidden\n")
    result = acp(["rfds"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    assert "rfds/folder-rfd.md:1:1: error: is a folder, not an RFD" in result.stdout


def test_deep_list_nesting_is_a_finding(repo_copy: Path) -> None:
    _page(repo_copy, "".join("    " * depth + "- x\n" for depth in range(500)))
    result = acp(["examples", "docs/hostile.md"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    assert (
        "docs/hostile.md:27:1: error: lists or quotes nested deeper than 24 levels" in result.stdout
    )


def test_markup_openers_that_never_close_are_a_finding(repo_copy: Path) -> None:
    page = _page(repo_copy, "Text.\n\nx " + "<a " * 300_000 + "\n\n" + "<![CDATA[" * 50_000)
    result = acp(["examples", "docs/hostile.md"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    assert (
        f"docs/hostile.md:{_line(page, '<a <a')}:3: error: more than 64 HTML openers"
        in result.stdout
    )


def test_a_ref_cycle_in_a_schema_source_is_located(sample_copy: Path) -> None:
    source = sample_copy / SAMPLE.source
    replace_in(
        source,
        "definitions:\n",
        'definitions:\n  LoopA:\n    description: a\n    $ref: "#/$defs/LoopB"\n'
        '  LoopB:\n    description: b\n    allOf: [{ $ref: "#/$defs/LoopA" }]\n',
    )
    (sample_copy / "payload.json").write_text("{}\n")
    before = snapshot(sample_copy)
    line = _line(source, "LoopA:")
    for command in (
        ["validate", "--protocol", "v1", "--def", "LoopA", "payload.json"],
        ["schema", "merge", "--protocol", "v1"],
    ):
        result = acp(command, cwd=sample_copy)
        no_traceback(result)
        assert result.returncode == 2, result.stderr
        assert f"{SAMPLE.source}:{line}:1: definition `LoopA` refers back to itself" in (
            result.stderr
        )
    assert snapshot(sample_copy) == before
