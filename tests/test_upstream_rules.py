"""Upstream's own rules on its tree: its Prettier configuration, its typos.toml, its template."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from acp_docs.upstream import check as upstream
from acp_docs.upstream import prettierconfig

from conftest import BIN, ROOT, acp, no_traceback, require_network_namespace


@pytest.fixture
def tree(upstream_sample: Path) -> Path:
    """The sample upstream tree; answers cached with the worker's other upstream tests."""
    return upstream_sample


def _run(root: Path, only: str) -> tuple[int, list[dict]]:
    result = acp(["check", "--format", "json", "--upstream", str(root), "--only", only])
    no_traceback(result)
    return result.returncode, json.loads(result.stdout)["findings"]


def _at(findings: list[dict], path: str) -> list[tuple[int, str, str]]:
    return [(f["line"], f["level"], f["rule"]) for f in findings if f["path"] == path]


OVERVIEW = "docs/protocol/v1/overview.mdx"
LONG_LINE = "A sentence long enough that a print width of forty wraps it at least once."


def test_prettier_takes_the_options_and_overrides_of_the_trees_configuration(tree: Path) -> None:
    for page in ("docs/rfds/about.mdx", "docs/rfds/orphan.mdx"):
        (tree / page).write_text(f'---\ntitle: "T"\n---\n\n{LONG_LINE}\n')
    _status, before = _run(tree, "upstream-prettier")
    assert _at(before, "docs/rfds/about.mdx") == []
    (tree / ".prettierrc").write_text(
        "proseWrap: always\nprintWidth: 40\n"
        "overrides:\n  - files: docs/rfds/orphan.mdx\n    options:\n      proseWrap: preserve\n"
    )
    status, after = _run(tree, "upstream-prettier")
    assert status == 1
    assert _at(after, "docs/rfds/about.mdx") == [(5, "error", "upstream/prettier")]
    assert _at(after, "docs/rfds/orphan.mdx") == []


def test_files_the_trees_prettierignore_names_are_not_checked(tree: Path) -> None:
    _status, found = _run(tree, "upstream-prettier")
    assert _at(found, OVERVIEW) == [(12, "error", "upstream/prettier")]
    assert _at(found, "docs/snippets/generated.mdx") == []
    (tree / ".prettierignore").write_text("")
    _status, found = _run(tree, "upstream-prettier")
    assert _at(found, "docs/snippets/generated.mdx") == [(1, "error", "upstream/prettier")]


SIDE_EFFECT = "require('fs').writeFileSync({marker}, 'ran');\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("prettier.config.js", SIDE_EFFECT + "module.exports = {{}};\n"),
        (".prettierrc.cjs", SIDE_EFFECT + "module.exports = {{}};\n"),
        (".prettierrc", '"./shared.cjs"\n'),
        (".prettierrc.json", '{{\n  "semi": false,\n  "plugins": ["./shared.cjs"]\n}}\n'),
        ("package.json", '{{\n  "name": "x",\n  "prettier": "./shared.cjs"\n}}\n'),
    ],
)
def test_a_configuration_that_is_code_is_never_run(tree: Path, name: str, text: str) -> None:
    marker = json.dumps(str(tree.parent / "ran"))
    (tree / ".prettierrc").unlink()
    (tree / "shared.cjs").write_text(SIDE_EFFECT.format(marker=marker) + "module.exports = {};\n")
    (tree / name).write_text(text.format(marker=marker))
    status, found = _run(tree, "upstream-prettier")
    assert not (tree.parent / "ran").exists()
    assert status == 0, found
    [warning] = [f for f in found if f["level"] != "note"]
    assert (warning["path"], warning["level"]) == (name, "warning")
    assert "not" in warning["message"] and warning["rule"] == "upstream/prettier-code"


@pytest.mark.parametrize(
    ("text", "line", "level", "says"),
    [
        ('{\n  "semi": false,\n  "printWidth": "wide"\n}\n', 3, "error", "whole number"),
        ('{\n  "proseWrap": "sometimes"\n}\n', 2, "error", "always, never, preserve"),
        ('{\n  "tabWidth": 2,\n  "colour": "blue"\n}\n', 3, "warning", "no Prettier option"),
        ('{\n  "semi": false,\n  "semi" true\n}\n', 3, "error", "cannot read"),
    ],
)
def test_a_configuration_out_of_bounds_is_a_finding_at_its_line(
    tree: Path, text: str, line: int, level: str, says: str
) -> None:
    (tree / ".prettierrc").write_text(text)
    _status, found = _run(tree, "upstream-prettier")
    [config] = [f for f in found if f["path"] == ".prettierrc"]
    assert (config["line"], config["level"]) == (line, level)
    assert says in config["message"]


def test_the_allowed_options_and_names_are_prettiers_own(tree: Path) -> None:
    script = (
        "const p = await import(process.argv[1]);"
        "const i = await p.getSupportInfo();"
        "console.log(JSON.stringify(i));"
    )
    entry = ROOT / "node_modules" / "prettier" / "index.mjs"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, entry.as_uri()],
        capture_output=True,
        text=True,
        check=True,
    )
    info = json.loads(done.stdout)
    options = {o["name"]: o for o in info["options"]}
    for name, kind in prettierconfig.OPTIONS.items():
        known = options[name]
        if isinstance(kind, tuple):
            assert set(kind) == {c["value"] for c in known["choices"]}, name
        else:
            assert known["type"] == {bool: "boolean", int: "int"}[kind], name


def test_typos_reads_the_trees_typos_toml(tree: Path) -> None:
    status, found = _run(tree, "upstream-typos")
    assert status == 1
    assert (10, "error", "upstream/typo") in _at(found, OVERVIEW)
    (tree / "typos.toml").write_text('[default.extend-words]\nteh = "teh"\nsesion = "sesion"\n')
    status, found = _run(tree, "upstream-typos")
    assert (status, found) == (0, [])


def test_a_typos_toml_typos_cannot_read_is_an_error_at_its_line(tree: Path) -> None:
    (tree / "typos.toml").write_text('[default.extend-words]\nteh = "teh"\n[default\n')
    status, found = _run(tree, "upstream-typos")
    assert status == 1
    assert _at(found, "typos.toml") == [(3, "error", "upstream/typos-config")]


def test_the_trees_practice_decides_whether_rfds_keep_the_templates_prompt_lines(
    tree: Path,
) -> None:
    # No RFD of this tree keeps a `>` prompt line: that is its practice, not a defect.
    _status, found = _run(tree, "upstream-template")
    assert "upstream/template-prompt" not in {f["rule"] for f in found}
    (note,) = [f for f in found if f["rule"] == "upstream/template-practice"]
    assert note["level"] == "note" and "0 of the tree's" in note["message"]
    # Where most RFDs keep them, one that drops them is told.
    for name in ("proposed-feature", "finished-feature"):
        page = tree / "docs" / "rfds" / f"{name}.mdx"
        text = page.read_text()
        page.write_text(text.replace("## Elevator pitch\n", "## Elevator pitch\n\n> What?\n", 1))
    _status, found = _run(tree, "upstream-template")
    assert (7, "warning", "upstream/template-prompt") in _at(found, "docs/rfds/untitled.mdx")


def test_rfds_are_held_to_the_trees_own_template(tree: Path) -> None:
    _status, found = _run(tree, "upstream-template")
    untitled = _at(found, "docs/rfds/untitled.mdx")
    assert (2, "error", "upstream/template-title") in untitled
    missing = {f["message"] for f in found if f["path"] == "docs/rfds/untitled.mdx"}
    assert "no `## Status quo` section" in missing
    # Optional sections may wait while an RFD is a Draft, not once it is Completed.
    assert not any("Shiny future" in m for m in missing)
    # A Completed RFD is a record: the template of today does not judge it.
    assert [f for f in found if f["path"] == "docs/rfds/finished-feature.mdx"] == []
    (tree / "docs" / "rfds" / "TEMPLATE").write_text('---\ntitle: "X"\n---\n\n## Elevator pitch\n')
    _status, found = _run(tree, "upstream-template")
    assert _at(found, "docs/rfds/untitled.mdx") == []


def test_names_that_are_not_utf8_or_hold_a_newline_are_findings_not_crashes(tree: Path) -> None:
    rfds = bytes(tree / "docs" / "rfds")
    for name in (b"bad\xff.mdx", b"two\nlines.mdx"):
        Path((rfds + b"/" + name).decode("utf-8", "surrogateescape")).write_text("# Hi\n")
    status, found = _run(tree, "upstream-files")
    assert status == 1
    assert {(f["path"], f["rule"]) for f in found} == {
        ("docs/rfds/bad\\xff.mdx", "upstream/file-name"),
        ("docs/rfds/two\\x0alines.mdx", "upstream/file-name"),
    }
    result = acp(["check", "--upstream", str(tree)])
    no_traceback(result)
    assert result.returncode == 1


@pytest.mark.build  # a whole `acp-docs check` in a child process, as the build tier runs them
def test_the_upstream_check_needs_no_network(tree: Path, tmp_path: Path) -> None:
    """In a fresh network namespace every upstream check runs, Node and typos included."""
    require_network_namespace()
    env = {**os.environ, "ACP_DOCS_CACHE_DIR": str(tmp_path / "cold-cache")}
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run(
        ["unshare", "--net", str(BIN / "acp-docs"), "check", "--upstream", str(tree)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    for name in upstream.names():  # each ran: none is `error` (could not run)
        assert re.search(rf"^  {name} +(ok|failed) ", done.stderr, re.M), done.stderr


def test_images_and_media_are_links_to_files_the_tree_must_have(tree: Path) -> None:
    (tree / "docs" / "images").mkdir()
    (tree / "docs" / "images" / "kept.png").write_bytes(b"\x89PNG\r\n")
    page = tree / "docs" / "protocol" / "v1" / "overview.mdx"
    page.write_text(
        page.read_text()
        + "\n![kept](/images/kept.png)\n\n![gone](/images/gone.png)\n\n"
        + '<img src="../../images/missing.svg" alt="x" />\n\n'
        + '<video src="https://example.invalid/clip.mp4" />\n'
    )
    _status, found = _run(tree, "upstream-links")
    missing = [f for f in found if f["rule"] == "upstream/missing-media"]
    assert sorted(f["message"].split("'")[1] for f in missing) == [
        "../../images/missing.svg",
        "/images/gone.png",
    ], found
    assert all(f["level"] == "error" for f in missing)


def test_a_tree_that_configures_no_spell_checker_is_not_spell_checked(tree: Path) -> None:
    (tree / "typos.toml").unlink()
    status, found = _run(tree, "upstream-typos")
    assert status == 0
    assert [(f["rule"], f["level"]) for f in found] == [("upstream/typos-unconfigured", "note")]
    (tree / "_typos.toml").write_text("[default.extend-words]\n")
    _status, found = _run(tree, "upstream-typos")
    assert (10, "error", "upstream/typo") in _at(found, OVERVIEW)


def _prettier_version() -> str:
    return json.loads((ROOT / "node_modules" / "prettier" / "package.json").read_text())["version"]


def test_prettier_formats_only_the_files_the_trees_scripts_hand_it(tree: Path) -> None:
    (tree / "docs" / "extra.json").write_text('{"a":1}\n')
    _status, found = _run(tree, "upstream-prettier")
    assert (1, "error", "upstream/prettier") in _at(found, "docs/extra.json")
    # As MCP does: its CI runs `prettier --check "**/*.{md,mdx}"`, so JSON is not its concern.
    scripts = {
        "check:docs:format": 'prettier --check "**/*.{md,mdx}" --ignore-path .prettierignore'
    }
    (tree / "package.json").write_text(json.dumps({"name": "x", "scripts": scripts}))
    _status, found = _run(tree, "upstream-prettier")
    assert _at(found, "docs/extra.json") == []
    assert _at(found, OVERVIEW) == [(12, "error", "upstream/prettier")]
    (note,) = [f for f in found if f["rule"] == "upstream/prettier-run"]
    assert "'**/*.md', '**/*.mdx'" in note["message"]


def test_prettier_is_the_version_the_tree_locks_or_a_note_says_why_not(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def lock(version: str) -> None:
        entry = {"version": version, "integrity": "sha512-x"}
        lock = {"lockfileVersion": 3, "packages": {"node_modules/prettier": entry}}
        (tree / "package-lock.json").write_text(json.dumps(lock))

    lock(_prettier_version())
    _status, found = _run(tree, "upstream-prettier")
    (run,) = [f for f in found if f["rule"] == "upstream/prettier-run"]
    assert f"Prettier {_prettier_version()} (as the tree locks)" in run["message"]
    # A version that cannot be fetched (here the registry is a closed port of this machine):
    # a note says so, and the project's own Prettier checks the tree all the same.
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    lock("3.0.1")
    _status, found = _run(tree, "upstream-prettier")
    (note,) = [f for f in found if f["rule"] == "upstream/prettier-version"]
    assert (
        "locks Prettier '3.0.1'" in note["message"] and "npm could not fetch it" in note["message"]
    )
    assert _at(found, OVERVIEW) == [(12, "error", "upstream/prettier")]
    # A lock that names no version npm could read as one is never handed to npm.
    lock("file:../evil")
    _status, found = _run(tree, "upstream-prettier")
    (note,) = [f for f in found if f["rule"] == "upstream/prettier-version"]
    assert "is not a version the check asks a registry for" in note["message"]


def test_a_baseline_follows_a_page_renamed_in_git_and_a_link_written_another_way(
    tree: Path, tmp_path: Path
) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tree), *args], check=True, capture_output=True)

    page = tree / "docs" / "rfds" / "finished-feature.mdx"
    page.write_text(page.read_text() + "\n[gone](/nowhere)\n")
    git("init", "-q")
    git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "add", "-A")
    git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "old")
    baseline = tmp_path / "baseline.json"
    written = acp(["check", "--upstream", str(tree), "--write-baseline", str(baseline)])
    assert written.returncode == 0
    assert len(json.loads(baseline.read_text())["commit"]) == 40
    # The page moves (as upstream moved protocol pages into protocol/v1/), and its link to
    # the same missing page is written another way.
    moved = tree / "docs" / "rfds" / "done" / "finished-feature.mdx"
    moved.parent.mkdir()
    git("mv", "docs/rfds/finished-feature.mdx", "docs/rfds/done/finished-feature.mdx")
    moved.write_text(moved.read_text().replace("[gone](/nowhere)", "[gone](../../nowhere)"))
    nav = (tree / "docs" / "docs.json").read_text()
    (tree / "docs" / "docs.json").write_text(
        nav.replace('"rfds/finished-feature"', '"rfds/done/finished-feature"')
    )
    later = acp(["check", "--upstream", str(tree), "--baseline", str(baseline), "--format", "json"])
    new = [f for f in json.loads(later.stdout)["findings"] if f["rule"] == "upstream/broken-link"]
    assert [f["message"] for f in new if "nowhere" in f["message"]] == [], new


def test_an_rfd_may_name_a_template_section_by_its_initials(tree: Path) -> None:
    page = tree / "docs" / "rfds" / "untitled.mdx"
    page.write_text(page.read_text() + "\n## FAQ\n\nNone yet.\n")
    _status, found = _run(tree, "upstream-template")
    missing = {f["message"] for f in found if f["path"] == "docs/rfds/untitled.mdx"}
    assert not any("Frequently asked questions" in m for m in missing), missing
