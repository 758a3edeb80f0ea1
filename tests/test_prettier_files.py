"""The format check asks Prettier only about files it has not seen formatted, as Prettier would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from acp_docs.checks import prettier, prettier_files
from acp_docs.config.repo import Repo
from acp_docs.core import runner

from conftest import ROOT, require_tool

UNFORMATTED = {
    "page.md": "*  a list item\n",
    ".github/workflows/ci.yml": "on:   push\n",
    ".hidden/data.json": '{"a":1}\n',
    "package.json": '{"name":"x"}\n',
    "deep/er/code.mjs": "export  const a  =  1\n",
    "bin/tool": "#!/usr/bin/env node\nconst a  =  1\n",
    "bin/shell": "#!/bin/bash\necho   hi\n",
    "notes.txt": "free   text\n",
    "left-out.md": "*  ignored by .prettierignore\n",
    "build/out.js": "const a  =  1\n",
    "vendor/node_modules/lib.js": "const a  =  1\n",
    "skip.css": "a{color:red}\n",
}


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    require_tool("node", "Node")
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "repo"
    for rel, text in UNFORMATTED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".prettierignore").write_text("left-out.md\n")
    (root / ".gitignore").write_text("build/\n*.css\n")
    (root / "node_modules").symlink_to(ROOT / "node_modules")
    (root / "mkdocs.yml").write_text("site_name: x\n")
    return Repo.load(root)


def test_the_files_it_sends_are_the_files_prettier_check_dot_checks(scratch: Repo) -> None:
    script = ROOT / "node_modules" / "prettier" / "bin" / "prettier.cjs"
    done = subprocess.run(
        ["node", str(script), *prettier.NO_CONFIG, "--check", "."],
        cwd=scratch.root,
        env={**os.environ, **runner.PLAIN_ENV},  # under CI=true Prettier colours its output
        capture_output=True,
        text=True,
    )
    warned = {
        line.removeprefix("[warn] ")
        for line in (done.stdout + done.stderr).splitlines()
        if line.startswith("[warn] ") and "Code style issues" not in line
    }
    files = prettier.checkout_files(scratch)
    known = prettier_files.languages(scratch.root, "node")
    chosen = {rel for rel, _path in prettier_files.candidates(scratch, files, known)}
    assert "bin/tool" in chosen and "page.md" in chosen
    assert chosen - {".prettierignore", ".gitignore", "mkdocs.yml"} == warned


def test_a_file_seen_formatted_is_not_sent_again_and_an_edit_is(
    scratch: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    for rel in UNFORMATTED:
        (scratch.root / rel).unlink()
    (scratch.root / "page.md").write_text("- a list item\n")
    assert prettier.check(scratch) == []
    monkeypatch.setenv("PATH", "/nonexistent")  # a warm run needs no Node at all
    assert prettier.check(scratch) == []
    (scratch.root / "page.md").write_text("- a list item\n\n\n*  another\n")
    with pytest.raises(Exception, match="node"):
        prettier.check(scratch)
    monkeypatch.undo()
    monkeypatch.setenv("ACP_DOCS_CACHE_DIR", str(scratch.root.parent / "cache"))
    [finding] = prettier.check(scratch)
    assert (finding.path, finding.line) == ("page.md", 3)  # the second blank line goes
