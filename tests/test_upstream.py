"""`acp-docs check --upstream DIR`: an upstream-layout tree checked in place, read-only."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import upstream_tree
from acp_docs.sources import jsonfmt
from acp_docs.upstream import anchors

from conftest import acp, no_traceback, require_tool


@pytest.fixture
def tree(upstream_sample: Path) -> Path:
    """The sample upstream tree; answers cached with the worker's other upstream tests."""
    return upstream_sample


def _snapshot(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for current, _dirs, names in os.walk(root):
        for name in names:
            path = Path(current, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = "-> " + os.readlink(path)
            elif path.is_file():
                out[rel] = path.read_bytes()
            else:
                out[rel] = "special"
    return out


def _line_of(root: Path, rel: str, needle: str) -> int:
    text = (root / rel).read_text(encoding="utf-8")
    assert needle in text, (rel, needle)
    return text[: text.index(needle)].count("\n") + 1


def _findings(root: Path, *extra: str) -> tuple[int, list[dict]]:
    result = acp(["check", "--format", "json", "--upstream", str(root), *extra])
    no_traceback(result)
    return result.returncode, json.loads(result.stdout)["findings"]


def test_each_planted_problem_is_found_at_its_line_with_its_level(tree: Path) -> None:
    status, findings = _findings(tree)
    assert status == 1
    for rule, (rel, needle, level) in upstream_tree.PLANTED.items():
        line = _line_of(tree, rel, needle)
        at = [(f["line"], f["level"]) for f in findings if f["path"] == rel and f["rule"] == rule]
        assert (line, level) in at, (rule, line, at)


def test_valid_blocks_of_every_kind_pass_and_a_draft_may_lead_the_schema(tree: Path) -> None:
    _status, findings = _findings(tree)
    done = "docs/rfds/finished-feature.mdx"
    # The request, its paired response, the JSONC block and both CodeGroup tabs are valid.
    quiet = {
        _line_of(tree, done, '"method": "initialize"'),
        _line_of(tree, done, '"result": {'),
        _line_of(tree, done, "// the session"),
        _line_of(tree, done, "```json v1"),
        _line_of(tree, done, "```json v2"),
    }
    said = {f["line"] for f in findings if f["path"] == done}
    assert not quiet & {line - 1 for line in said} and not quiet & said, findings
    draft = [f for f in findings if f["path"] == "docs/rfds/proposed-feature.mdx"]
    refused = [f for f in draft if f["rule"] == "upstream/invalid-payload"]
    assert refused and all(f["level"] == "warning" for f in refused), draft
    assert "unstable" in refused[0]["message"]


def test_unknown_member_names_the_closest_known_one(tree: Path) -> None:
    _status, findings = _findings(tree)
    (found,) = [
        f
        for f in findings
        if f["rule"] == "upstream/unknown-property" and "sesionId" in f["message"]
    ]
    assert "did you mean 'sessionId'?" in found["message"]


def test_a_block_declared_in_an_mdx_comment_is_checked_as_declared(tree: Path) -> None:
    _status, findings = _findings(tree, "--only", "upstream-examples")
    rel = "docs/rfds/finished-feature.mdx"
    found = {(f["line"], f["rule"], f["level"]): f["message"] for f in findings if f["path"] == rel}
    declared = _line_of(tree, rel, "acp-docs: ToolCallContent")
    assert not [at for at in found if declared <= at[0] <= declared + 5]
    assert (
        "[v1 ContentBlock] /type: 'txt'"
        in found[(_line_of(tree, rel, '"type": "txt"'), "upstream/invalid-payload", "error")]
    )
    assert (
        "declares 'Plan', which no published schema defines"
        in found[(_line_of(tree, rel, "acp-docs: Plan v2"), "upstream/declaration", "error")]
    )
    assert (
        "right before the fence"
        in found[(_line_of(tree, rel, "{/* acp-docs: Plan */}"), "upstream/declaration", "error")]
    )


def test_a_groups_root_page_is_in_that_group_and_is_no_rfd(tree: Path) -> None:
    _status, findings = _findings(tree, "--only", "upstream-nav", "upstream-template")
    assert [f for f in findings if f["path"] == "docs/rfds/v2/overview.mdx"] == []
    assert any(f["path"] == "docs/rfds/orphan.mdx" for f in findings)


def test_the_exit_status_counts_errors_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answers_cache: Path
) -> None:
    require_tool("node", "Node")
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(answers_cache))
    root = tmp_path / "quiet"
    (root / "docs" / "rfds").mkdir(parents=True)
    (root / "docs" / "rfds" / "idea.mdx").write_text(
        '---\ntitle: Idea\n---\n\n```json\n{\n  "method": "x/y",\n  ...\n}\n```\n'
    )
    nav = {
        "navigation": {
            "tabs": [{"tab": "RFDs", "groups": [{"group": "Draft", "pages": ["rfds/idea"]}]}]
        }
    }
    (root / "docs" / "docs.json").write_text(jsonfmt.dumps(nav))
    result = acp(["check", "--upstream", str(root), "--min-level", "note"])
    no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "docs/rfds/idea.mdx:5:1: note: abridged" in result.stdout
    assert "all checks passed" in result.stderr


def test_levels_reach_github_annotations_and_sarif(tree: Path) -> None:
    def annotations(*extra: str) -> set[str]:
        run = acp(["check", "--upstream", str(tree), *extra], env={"GITHUB_ACTIONS": "true"})
        return {line.split(" ", 1)[0] for line in run.stdout.splitlines() if line.startswith("::")}

    # Notes are listed, but annotate the diff only when asked for.
    assert annotations() == {"::error", "::warning"}
    assert annotations("--min-level", "note") == {"::error", "::warning", "::notice"}
    assert annotations("--min-level", "error") == {"::error"}
    sarif = json.loads(acp(["check", "--format", "sarif", "--upstream", str(tree)]).stdout)
    levels = {r["level"] for r in sarif["runs"][0]["results"]}
    assert levels == {"error", "warning", "note"}


def test_a_baseline_keeps_old_problems_quiet_and_reports_a_new_one(
    tree: Path, tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    first = acp(["check", "--upstream", str(tree), "--write-baseline", str(baseline)])
    assert first.returncode == 0, first.stdout + first.stderr
    assert "wrote the baseline" in first.stderr
    held = json.loads(baseline.read_text())["findings"]
    assert held and all(row["level"] != "note" for row in held)  # notes stay out by default
    again = acp(["check", "--upstream", str(tree), "--baseline", str(baseline)])
    assert again.returncode == 0, again.stdout
    assert "stale" not in again.stderr
    assert all(": note:" in line for line in again.stdout.splitlines()), again.stdout
    page = tree / "docs" / "rfds" / "finished-feature.mdx"
    front, rest = page.read_text().split("---\n\n", 1)
    page.write_text(f"{front}---\n\nAdded above.\n\n{rest}\n[new](/nowhere)\n")
    later = acp(["check", "--upstream", str(tree), "--baseline", str(baseline)])
    assert later.returncode == 1
    last = len(page.read_text().splitlines())
    assert [line for line in later.stdout.splitlines() if ": note:" not in line] == [
        f"docs/rfds/finished-feature.mdx:{last}:1: error: link '/nowhere':"
        " no page 'nowhere' (docs/nowhere.mdx) and no file of that name [upstream/broken-link]"
    ]


def test_a_second_identical_finding_in_the_same_file_is_new(tree: Path, tmp_path: Path) -> None:
    page = tree / "docs" / "rfds" / "finished-feature.mdx"
    page.write_text(page.read_text() + "\n[gone](/nowhere)\n")
    baseline = tmp_path / "baseline.json"
    assert (
        acp(["check", "--upstream", str(tree), "--write-baseline", str(baseline)]).returncode == 0
    )
    page.write_text(page.read_text() + "\n[gone](/nowhere)\n")
    later = acp(["check", "--upstream", str(tree), "--baseline", str(baseline)])
    assert later.returncode == 1
    new = [line for line in later.stdout.splitlines() if "/nowhere" in line]
    assert len(new) == 1 and new[0].startswith(
        f"docs/rfds/finished-feature.mdx:{len(page.read_text().splitlines())}:"
    ), later.stdout


def test_a_missing_baseline_is_a_usage_error_never_a_pass(tree: Path, tmp_path: Path) -> None:
    missing = tmp_path / "not-committed.json"
    result = acp(["check", "--upstream", str(tree), "--baseline", str(missing)])
    no_traceback(result)
    assert result.returncode == 2
    assert f"{missing}: no such baseline; write one with --write-baseline" in result.stderr
    assert not missing.exists()


def test_baseline_entries_that_no_longer_occur_are_listed_as_stale(
    tree: Path, tmp_path: Path
) -> None:
    page = tree / "docs" / "rfds" / "finished-feature.mdx"
    original = page.read_text()
    page.write_text(original + "\n[gone](/nowhere)\n")
    baseline = tmp_path / "baseline.json"
    assert (
        acp(["check", "--upstream", str(tree), "--write-baseline", str(baseline)]).returncode == 0
    )
    page.write_text(original)  # fixed
    result = acp(["check", "--upstream", str(tree), "--baseline", str(baseline)])
    assert result.returncode == 0, result.stdout
    assert "1 baseline entry of" in result.stderr
    # The entry is what the problem is (the missing target), not how the link was written.
    assert "stale: docs/rfds/finished-feature.mdx: upstream/broken-link: nowhere" in result.stderr


def test_a_baseline_is_never_written_through_a_linked_folder_of_the_tree(
    tree: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / ".github").symlink_to(outside)  # as a pull request could make it
    target = str(tree / ".github" / "b.json")
    result = acp(["check", "--upstream", str(tree), "--write-baseline", target])
    assert result.returncode == 2, result.stdout + result.stderr
    assert "refusing to write through the linked folder" in result.stderr
    assert list(outside.iterdir()) == []


def test_a_file_that_is_no_baseline_is_a_usage_error_naming_it(tree: Path, tmp_path: Path) -> None:
    bad = tmp_path / "baseline.json"
    bad.write_text('{"findings": [1, 2]}')
    result = acp(["check", "--upstream", str(tree), "--baseline", str(bad)])
    no_traceback(result)
    assert result.returncode == 2
    assert str(bad) in result.stderr


def test_the_tree_is_only_read_and_links_out_of_it_are_not_followed(
    tree: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.mdx"
    outside.write_text('# SECRET-TEXT\n\n```json\n{"jsonrpc": "2.0"}\n```\n')
    os.symlink(outside, tree / "docs" / "rfds" / "leak.mdx")
    os.symlink(tmp_path, tree / "docs" / "everything")
    os.mkfifo(tree / "docs" / "pipe.mdx")
    before = _snapshot(tree)
    result = acp(["check", "--upstream", str(tree)])
    no_traceback(result)
    assert "SECRET-TEXT" not in result.stdout + result.stderr
    assert "docs/rfds/leak.mdx:1:1: error: a symbolic link out of the checkout" in result.stdout
    assert "docs/everything:1:1: error: a symbolic link out of the checkout" in result.stdout
    assert "docs/pipe.mdx:1:1: error: not a regular file" in result.stdout
    assert _snapshot(tree) == before


def test_a_folder_that_is_no_upstream_tree_is_a_usage_error(tmp_path: Path) -> None:
    result = acp(["check", "--upstream", str(tmp_path)])
    no_traceback(result)
    assert result.returncode == 2
    assert "no docs/ folder" in result.stderr


def test_upstream_checks_need_upstream(tmp_path: Path) -> None:
    result = acp(["check", "--only", "upstream-links"], cwd=tmp_path)
    assert result.returncode == 2
    assert "add --upstream DIR" in result.stderr


def test_a_warm_run_reads_every_page_from_the_cache_without_node(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _status, cold = _findings(tree)
    monkeypatch.setenv("PATH", "/nonexistent")
    _status, warm = _findings(tree)
    assert warm == cold


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        # The examples of Mintlify's documentation ("Automatic anchor IDs").
        ("Getting started", "getting-started"),
        ("Config.json options", "config-json-options"),
        ("What's new", "what\u2019s-new"),
        ("Rate limits (per minute)", "rate-limits-per-minute"),
        ("Read/write access", "read/write-access"),
        ("Fees & billing", "fees-&-billing"),
        ("OAuth", "oauth"),
        # What its renderer does beyond the prose.
        ("Message flow", "message-flow"),
        ("The `id` field", "the-id-field"),
        ("What's next?", "what\u2019s-next"),
        ("Step 1. Install", "step-1-install"),
        ("Step 1: Install", "step-1-install"),
        ("3. Agent Reports Output", "3-agent-reports-output"),
        ("`session/prompt` (v2)", "session/prompt-v2"),
        ("The _meta Field", "the-_meta-field"),
        ("Caf\u00e9 na\u00efve", "caf\u00e9-na\u00efve"),
        ("A : B", "a--b"),
        ("Emoji \U0001f680 rocket", "emoji--rocket"),
    ],
)
def test_heading_anchors_are_mintlify_ids(heading: str, anchor: str) -> None:
    assert anchors.heading_id(heading) == anchor


def test_repeated_headings_are_numbered_across_the_whole_page_tabs_included() -> None:
    ids = anchors.heading_ids([(2, "Overview", None), (3, "Overview", None), (4, "Overview", None)])
    assert ids == ["overview", "overview-2", "overview-3"]
    assert anchors.heading_ids([(5, "Deep", None), (5, "Deep", "deep-one")]) == ["deep-one"]


def test_blocks_made_to_be_slow_are_read_in_one_pass(tree: Path) -> None:
    # Each would take hours if a scan started again at every quote or comment opener.
    hostile = ['"\\' * 50_000, "/*" * 50_000, '["\\' * 50_000, "{" + '"a":1,' * 25_000]
    page = tree / "docs" / "rfds" / "finished-feature.mdx"
    page.write_text(page.read_text() + "".join(f"\n```jsonc\n{text}\n```\n" for text in hostile))
    # A comment like a declaration, that is none: minutes for a backtracking pattern.
    page.write_text(page.read_text() + "\n{/* acp-docs:" + " " * 50_000 + "x * y */}\n")
    nav = tree / "docs" / "docs.json"
    nav.write_text(nav.read_text()[:-2] + ', "x": "' + '\\"' * 50_000 + '"}\n')
    # The scanners of this project are the point here, not Prettier's: it is left out.
    status, findings = _findings(tree, "--only", "upstream-examples", "upstream-nav")
    assert status == 1
    last = [f for f in findings if f["path"] == "docs/rfds/finished-feature.mdx"]
    assert sum(f["rule"] == "upstream/not-json" for f in last) >= len(hostile)


@pytest.mark.parametrize(
    ("tail", "says"),
    [
        ("{" * 200_000 + "}" * 200_000, "braces nested deeper than 64 levels"),
        ("[" * 200_000, "brackets that Markdown's link reader would scan"),
    ],
    ids=["nested braces", "open brackets"],
)
def test_a_page_the_node_steps_would_take_minutes_on_is_a_finding_and_not_read(
    tree: Path, tail: str, says: str
) -> None:
    page = tree / "docs" / "rfds" / "about.mdx"
    page.write_text(page.read_text() + "\n" + tail + "\n")
    line = page.read_text().count("\n")
    result = acp(["check", "--upstream", str(tree)])
    no_traceback(result)
    assert result.returncode == 1
    found = [ln for ln in result.stdout.splitlines() if ln.startswith("docs/rfds/about.mdx:")]
    assert any(ln.startswith(f"docs/rfds/about.mdx:{line}:") and says in ln for ln in found), found


def test_a_prettier_configuration_that_is_no_regular_file_is_named(tree: Path) -> None:
    config = tree / ".prettierrc"
    config.unlink(missing_ok=True)
    os.mkfifo(config)
    result = acp(["check", "--upstream", str(tree), "--only", "upstream-prettier"])
    no_traceback(result)
    assert ".prettierrc:1:1: error: .prettierrc is not a regular file" in result.stdout, (
        result.stdout
    )


def test_a_cache_entry_that_is_not_an_answer_is_read_as_missing_and_made_again(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache is input: the CI's cache is restored from GitHub, which scopes it to the ref
    # that wrote it. Whatever is in it, an entry that is not an answer for its page is
    # never taken as one.
    cache = tmp_path / "cache"
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(cache))
    _status, cold = _findings(tree)
    entries = [p for p in cache.rglob("*.json") if p.is_file()]
    assert entries
    for number, entry in enumerate(entries):
        poison = ["{not json", "[]", '{"path": "docs/elsewhere.mdx", "blocks": []}'][number % 3]
        entry.write_text(poison)
    _status, again = _findings(tree)
    assert again == cold


def test_a_run_on_an_unchanged_tree_is_the_last_one_and_any_change_runs_again(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_docs.upstream import check as upstream_check

    monkeypatch.delenv("ACP_DOCS_RUN_CACHE")
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    first = acp(["check", "--upstream", str(tree), "--format", "json"])
    ran: list[str] = []
    real = upstream_check._run

    def counted(*args, **kwargs):
        ran.append("ran")
        return real(*args, **kwargs)

    monkeypatch.setattr(upstream_check, "_run", counted)
    again = acp(["check", "--upstream", str(tree), "--format", "json"])
    findings = json.loads(first.stdout)["findings"]
    assert ran == [] and json.loads(again.stdout)["findings"] == findings
    assert again.returncode == first.returncode
    # One byte of one page, or of a root configuration file, is a new run.
    page = tree / "docs" / "rfds" / "finished-feature.mdx"
    page.write_text(page.read_text() + "\n[gone](/nowhere)\n")
    changed = acp(["check", "--upstream", str(tree), "--format", "json"])
    assert ran == ["ran"] and "/nowhere" in changed.stdout
    (tree / "typos.toml").write_text('[default.extend-words]\nteh = "teh"\n')
    acp(["check", "--upstream", str(tree), "--format", "json"])
    assert ran == ["ran", "ran"]


def test_the_terminal_shows_errors_first_each_with_its_level_and_rule_notes_on_request(
    tree: Path,
) -> None:
    default = acp(["check", "--upstream", str(tree)])
    lines = default.stdout.splitlines()
    levels = [line.split(": ", 2)[1] for line in lines]
    assert levels == sorted(levels, key=["error", "warning", "note"].index), levels
    assert "error" in levels and "note" not in levels
    assert all(re.search(r" \[upstream/[a-z-]+\]$", line) for line in lines), lines
    assert "below warning not shown (--min-level)" in default.stderr
    errors = acp(["check", "--upstream", str(tree), "--min-level", "error"])
    assert errors.stdout and all(": error: " in line for line in errors.stdout.splitlines())
    notes = acp(["check", "--upstream", str(tree), "--min-level", "note"])
    assert ": note: " in notes.stdout
