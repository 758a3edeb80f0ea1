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
    [warning] = found
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


def test_rfds_are_held_to_the_trees_own_template(tree: Path) -> None:
    _status, found = _run(tree, "upstream-template")
    untitled = _at(found, "docs/rfds/untitled.mdx")
    assert (2, "error", "upstream/template-title") in untitled
    assert (7, "warning", "upstream/template-prompt") in untitled
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
