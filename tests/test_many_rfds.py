"""A home for many RFDs: v2 RFDs where upstream keeps them, the navigation, the home page.

Each test makes its own checkout and its own RFDs with `acp-docs new`, under
names no RFD of the repository has (`new_rfd`), so nothing here depends on
which RFDs the repository holds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_docs.core import protocols

from conftest import acp, new_rfd, no_traceback, replace_in, run


def check(repo: Path, *only: str):
    result = acp(["check", *(["--only", *only] if only else [])], cwd=repo)
    no_traceback(result)
    return result


def test_new_with_protocol_v2_writes_where_upstream_keeps_v2_rfds(repo_copy: Path) -> None:
    made = new_rfd(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    assert made.shown == f"rfds/v2/{made.slug}.md"
    config = (repo_copy / "mkdocs.yml").read_text()
    entry = re.escape(f'- "{made.title}": {made.shown}')
    assert re.search(rf"- Draft:\n(?:\s+- .*\n)*?\s+- v2:\n(?:\s+- .*\n)*?\s+{entry}\n", config)
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 0, result.stdout


@pytest.mark.build
def test_a_v2_rfd_is_built_linted_validated_spelt_and_listed(repo_copy: Path) -> None:
    made = new_rfd(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    path, shown = repo_copy / made.shown, made.shown
    text = path.read_text()
    planted = (
        "How do things wrok today?\n\n"
        '```json title="SessionUpdate"\n'
        '{ "sessionUpdate": "plan_update", "entries": "not a list" }\n'
        "```\n\n"
        '```json title="SessionUpdate (v1, v2)"\n'
        '{ "sessionUpdate": "plan", "entries": [] }\n'
        "```\n"
    )
    text = text.replace("How do things work today, and what goes wrong?", planted, 1)
    path.write_text(text)
    lines = text.splitlines()
    typo = next(n for n, line in enumerate(lines, 1) if "wrok" in line)
    fence, v1_fence = [n for n, line in enumerate(lines, 1) if line.startswith("```json")]
    result = check(repo_copy, "examples", "spell")
    assert result.returncode == 1
    assert f"{shown}:{typo}:" in result.stdout and "'wrok'" in result.stdout
    # A v2 RFD's examples are v2 when they name no version, and never v1.
    assert f"{shown}:{fence + 1}:1: error: [v2 SessionUpdate]" in result.stdout, result.stdout
    assert f"{shown}:{v1_fence}:1: error: this RFD changes v2 alone" in result.stdout


def test_a_v2_rfd_in_the_wrong_group_or_out_of_the_nav_is_a_finding(repo_copy: Path) -> None:
    made = new_rfd(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    config = repo_copy / "mkdocs.yml"
    text = config.read_text()
    config.write_text(text.replace("  - v2:\n", "  - Other:\n", 1))
    result = acp(["rfds"], cwd=repo_copy)
    assert result.returncode == 1
    (line,) = [ln for ln in result.stdout.splitlines() if made.shown in ln and "move it" in ln]
    assert "move it under RFDs > Draft > v2" in line


@pytest.mark.build
def test_a_nav_entry_to_a_missing_page_is_a_finding_and_one_out_of_the_checkout_an_error(
    repo_copy: Path,
) -> None:
    config = repo_copy / "mkdocs.yml"
    original = config.read_text()
    replace_in(
        config,
        "      - Process: rfds/process.md\n",
        "      - Process: rfds/process.md\n      - Gone: rfds/gone.md\n",
    )
    gone = next(n for n, line in enumerate(config.read_text().splitlines(), 1) if "gone" in line)
    result = check(repo_copy, "rfds")
    assert result.returncode == 1
    assert (
        f"mkdocs.yml:{gone}:1: error: navigation entry 'rfds/gone.md' points at a missing file"
        in (result.stdout)
    )
    config.write_text(original)
    replace_in(
        config,
        "      - Process: rfds/process.md\n",
        "      - Process: rfds/process.md\n      - Secrets: ../../etc/passwd\n",
    )
    out = next(n for n, line in enumerate(config.read_text().splitlines(), 1) if "passwd" in line)
    result = check(repo_copy, "rfds")
    assert result.returncode == 2
    assert f"mkdocs.yml:{out}:" in result.stderr and "must be a relative path" in result.stderr


@pytest.mark.build
def test_the_home_page_lists_every_rfd_and_the_latest_revisions(repo_copy: Path, tmp_path) -> None:
    v1 = new_rfd(repo_copy, "session-labels", "Session labels")
    v2 = new_rfd(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    replace_in(repo_copy / v2.shown, "First draft.", "First draft, with `state_update` hints.")
    # A revision entry is shown on the home page as text: nothing in it becomes markup.
    replace_in(
        repo_copy / v1.shown,
        "First draft.",
        "First draft <img src=x onerror=alert(1)> [x](javascript:alert(2)).",
    )
    site = tmp_path / "site"
    # Not --strict: the planted markup is a finding on the RFD's own page, as it should be.
    build = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo_copy)
    assert build.returncode == 0, build.stderr
    assert f"{v1.shown}:" in build.stderr and "javascript:" in build.stderr
    home = (site / "index.html").read_text()
    assert f'href="{v1.page}"' in home and f'href="{v2.page}"' in home
    assert "<code>state_update</code> hints" in home
    assert "<img" not in home and 'href="javascript:' not in home
    assert "&lt;img src=x onerror=alert(1)&gt;" in home
    assert (site / v2.page / "index.html").is_file()


@pytest.mark.build
def test_a_drafts_protocol_page_says_it_is_a_proposal_and_a_wrong_owner_is_a_finding(
    repo_copy: Path, tmp_path
) -> None:
    made = new_rfd(repo_copy, "session-labels", "Session labels")
    shown = f"docs/protocol/{made.slug}.md"
    page = repo_copy / shown
    page.write_text(f"---\nrfd: {made.slug}\n---\n\n# {made.title}\n\nLabels.\n")
    replace_in(
        repo_copy / "mkdocs.yml",
        "      - protocol/index.md\n",
        f'      - protocol/index.md\n      - "{made.title}": protocol/{made.slug}.md\n',
    )
    site = tmp_path / "site"
    build = run(["mkdocs", "build", "--site-dir", str(site)], cwd=repo_copy)
    assert build.returncode == 0, build.stderr
    html = (site / "protocol" / made.slug / "index.html").read_text()
    assert "A proposal, not ACP" in html
    assert f'href="../../{made.page}">{made.title}</a> (Draft)' in html
    replace_in(page, f"rfd: {made.slug}", "rfd: no-such-rfd")
    result = check(repo_copy, "links")
    assert f"{shown}:2:1: error: front matter `rfd: no-such-rfd` names no RFD" in result.stdout


def test_export_writes_a_v2_rfd_where_upstream_keeps_them(repo_copy: Path, tmp_path) -> None:
    made = new_rfd(repo_copy, "state-hints", "State hints", "--protocol", "v2")
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    result = acp(
        ["export", "upstream", str(upstream), "--rfd", made.slug],
        cwd=repo_copy,
        env={"ACP_DOCS_SITE_URL": "https://example.org/rfds/"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (upstream / "docs" / "rfds" / "v2" / f"{made.slug}.mdx").is_file()


@pytest.mark.build
def test_two_new_rfds_one_v1_with_a_schema_change_one_v2_pass_every_check(
    repo_copy: Path,
) -> None:
    """An author's pull request: `acp-docs new --schema` and `--protocol v2`, then CI's check."""
    v1 = new_rfd(repo_copy, "session-labels", "Session labels", "--schema")
    v2 = new_rfd(repo_copy, "state-hints", "State hints", "--protocol", "v2", "--schema")
    for made, versions in ((v1, protocols.NAMES), (v2, ("v2",))):
        folder = repo_copy / "schema" / made.slug
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            ["source.yaml", *(f"{v}.json" for v in versions)]
        )
    result = check(repo_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all checks passed" in result.stderr


def test_new_with_a_schema_it_cannot_write_leaves_nothing_behind(repo_copy: Path) -> None:
    before = (repo_copy / "mkdocs.yml").read_bytes()
    taken = repo_copy / "schema" / "other-labels" / "source.yaml"
    taken.parent.mkdir()
    taken.write_text("# someone else's source\n")
    result = acp(
        ["new", "other-labels", "--title", "Other labels", "--author", "octocat", "--schema"],
        cwd=repo_copy,
    )
    no_traceback(result)
    assert result.returncode == 2
    assert (repo_copy / "mkdocs.yml").read_bytes() == before
    assert not (repo_copy / "rfds" / "other-labels.md").exists()
    assert [p.name for p in taken.parent.iterdir()] == ["source.yaml"]
    assert taken.read_text() == "# someone else's source\n"


def test_new_with_a_schema_never_writes_through_a_link_out_of_the_checkout(
    repo_copy: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo_copy / "schema" / "evil-labels").symlink_to(outside)
    before = (repo_copy / "mkdocs.yml").read_bytes()
    result = acp(
        ["new", "evil-labels", "--title", "Evil labels", "--author", "octocat", "--schema"],
        cwd=repo_copy,
    )
    no_traceback(result)
    assert result.returncode == 2
    assert "schema/evil-labels is a link or leads out of the checkout" in result.stderr
    assert list(outside.iterdir()) == []
    assert (repo_copy / "mkdocs.yml").read_bytes() == before
    assert not (repo_copy / "rfds" / "evil-labels.md").exists()


def test_a_folder_of_rfds_that_is_no_version_s_is_reported_not_skipped(repo_copy: Path) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.rfds.model import odd_entries

    stray = repo_copy / "rfds" / "v99"
    stray.mkdir()
    (stray / "early.md").write_text((repo_copy / "rfds" / "TEMPLATE.md").read_text())
    (repo_copy / "rfds" / "pictures").mkdir()  # a folder without Markdown is left alone
    found = odd_entries(Repo.load(repo_copy))
    assert [(f.path, f.rule) for f in found] == [("rfds/v99", "rfds/unknown-folder")]
    known = [f"rfds/{folder}/" for folder in protocols.folders()]
    assert all(name in found[0].message for name in known), found[0].message


def test_an_rfd_that_is_a_link_is_reported_under_its_own_name_and_not_read(
    repo_copy: Path,
) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.rfds.model import load_all, odd_entries

    folder = next(iter(protocols.folders()))
    (repo_copy / "rfds" / folder).mkdir(exist_ok=True)
    existing = next(p for p in (repo_copy / "rfds").glob("*.md") if p.name != "TEMPLATE.md")
    (repo_copy / "rfds" / folder / "linked.md").symlink_to(existing)
    repo = Repo.load(repo_copy)
    found = [(f.path, f.rule) for f in odd_entries(repo)]
    assert found == [(f"rfds/{folder}/linked.md", "rfds/link")]
    assert all(rfd.slug != "linked" for rfd in load_all(repo))
    assert len({rfd.shown for rfd in load_all(repo)}) == len(load_all(repo))
