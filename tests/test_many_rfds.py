"""A home for many RFDs: v2 RFDs where upstream keeps them, the navigation, the home page.

Each test makes its own checkout and its own RFDs with `acp-docs new`, so
nothing here depends on which RFDs the repository holds.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import acp, no_traceback, replace_in, run

V2 = "rfds/v2/state-hints.md"


def new(repo: Path, slug: str, title: str, *flags: str) -> Path:
    """`acp-docs new` in `repo`; the RFD's path."""
    result = acp(["new", slug, "--title", title, "--author", "octocat", *flags], cwd=repo)
    assert result.returncode == 0, result.stderr
    return repo / result.stderr.split("wrote ", 1)[1].split("\n", 1)[0]


def check(repo: Path, *only: str):
    result = run(["acp-docs", "check", *(["--only", *only] if only else [])], cwd=repo)
    no_traceback(result)
    return result


def test_new_with_protocol_v2_writes_where_upstream_keeps_v2_rfds(repo_copy: Path) -> None:
    path = new(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    assert path == repo_copy / V2
    config = (repo_copy / "mkdocs.yml").read_text()
    assert re.search(
        r"- Draft:\n(?:\s+- .*\n)*?\s+- v2:\n\s+- \"State hints\": rfds/v2/state-hints.md", config
    )
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 0, result.stdout


def test_a_v2_rfd_is_built_linted_validated_spelt_and_listed(repo_copy: Path) -> None:
    path = new(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    text = path.read_text()
    planted = (
        "How do things wrok today?\n\n"
        '```json title="SessionUpdate (v2)"\n'
        '{ "sessionUpdate": "plan_update", "entries": "not a list" }\n'
        "```\n"
    )
    text = text.replace("How do things work today, and what goes wrong?", planted, 1)
    path.write_text(text)
    lines = text.splitlines()
    typo = next(n for n, line in enumerate(lines, 1) if "wrok" in line)
    fence = next(n for n, line in enumerate(lines, 1) if line.startswith("```json"))
    result = check(repo_copy, "examples", "spell")
    assert result.returncode == 1
    assert f"{V2}:{typo}:" in result.stdout and "'wrok'" in result.stdout
    assert f"{V2}:{fence}:1: [v2 SessionUpdate]" in result.stdout, result.stdout


def test_a_v2_rfd_in_the_wrong_group_or_out_of_the_nav_is_a_finding(repo_copy: Path) -> None:
    new(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    config = repo_copy / "mkdocs.yml"
    text = config.read_text()
    config.write_text(text.replace("  - v2:\n", "  - Other:\n", 1))
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 1
    assert "move it under RFDs > Draft > v2" in result.stdout


def test_a_nav_entry_to_a_missing_page_or_out_of_the_checkout_is_an_error_at_its_line(
    repo_copy: Path,
) -> None:
    config = repo_copy / "mkdocs.yml"
    replace_in(
        config,
        "      - Process: rfds/process.md\n",
        "      - Process: rfds/process.md\n      - Gone: rfds/gone.md\n"
        "      - Secrets: ../../etc/passwd\n",
    )
    lines = config.read_text().splitlines()
    gone = next(n for n, line in enumerate(lines, 1) if "rfds/gone.md" in line)
    out = next(n for n, line in enumerate(lines, 1) if "etc/passwd" in line)
    result = check(repo_copy, "rfds")
    assert result.returncode == 1
    assert f"mkdocs.yml:{gone}:1: navigation entry 'rfds/gone.md' points at a missing file" in (
        result.stdout
    )
    assert f"mkdocs.yml:{out}:1: navigation entry '../../etc/passwd' leads out of the checkout" in (
        result.stdout
    )


def test_the_home_page_lists_every_rfd_and_the_latest_revisions(repo_copy: Path, tmp_path) -> None:
    new(repo_copy, "session-labels", "Session labels")
    v2 = new(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    replace_in(v2, "First draft.", "First draft, with `state_update` hints.")
    site = tmp_path / "site"
    build = run(["mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=repo_copy)
    assert build.returncode == 0, build.stderr
    home = (site / "index.html").read_text()
    assert 'href="rfds/session-labels/"' in home and 'href="rfds/v2/state-hints/"' in home
    assert "<code>state_update</code> hints" in home
    assert (site / "rfds" / "v2" / "state-hints" / "index.html").is_file()


def test_a_drafts_protocol_page_says_it_is_a_proposal_and_a_wrong_owner_is_a_finding(
    repo_copy: Path, tmp_path
) -> None:
    new(repo_copy, "session-labels", "Session labels")
    page = repo_copy / "docs" / "protocol" / "session-labels.md"
    page.write_text("---\nrfd: session-labels\n---\n\n# Session labels\n\nLabels.\n")
    replace_in(
        repo_copy / "mkdocs.yml",
        "      - protocol/index.md\n",
        "      - protocol/index.md\n      - Session labels: protocol/session-labels.md\n",
    )
    site = tmp_path / "site"
    build = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo_copy)
    assert build.returncode == 0, build.stderr
    html = (site / "protocol" / "session-labels" / "index.html").read_text()
    assert "A proposal, not ACP" in html
    assert 'href="../../rfds/session-labels/">Session labels</a> (Draft)' in html
    replace_in(page, "rfd: session-labels", "rfd: no-such-rfd")
    result = check(repo_copy, "links")
    assert "docs/protocol/session-labels.md:1:1: front matter `rfd: no-such-rfd` names no RFD" in (
        result.stdout
    )


def test_export_writes_a_v2_rfd_where_upstream_keeps_them(repo_copy: Path, tmp_path) -> None:
    new(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    result = acp(
        ["export", "upstream", str(upstream), "--rfd", "state-hints"],
        cwd=repo_copy,
        env={"ACP_DOCS_SITE_URL": "https://example.org/rfds/"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (upstream / "docs" / "rfds" / "v2" / "state-hints.mdx").is_file()
