"""Prettier, pinned in package.json, run through npm; files it would rewrite as findings."""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from pathlib import Path

from acp_docs.errors import UsageError
from acp_docs.findings import Finding
from acp_docs.repo import Repo
from acp_docs.textfile import strip_ansi

CHECK = "format"
_PLAIN = {"NO_COLOR": "1", "FORCE_COLOR": "0"}


def _env() -> dict[str, str]:
    return {**os.environ, **_PLAIN}


def _prettier(repo: Repo) -> Path:
    binary = repo.root / "node_modules" / ".bin" / "prettier"
    if not binary.exists() or shutil.which("node") is None:
        raise UsageError("Prettier is not installed: run `make setup` (it runs `npm ci`)")
    return binary


def _first_difference(repo: Repo, binary: Path, rel: str) -> int:
    original = (repo.root / rel).read_text(encoding="utf-8", errors="replace")
    result = subprocess.run(
        [str(binary), "--stdin-filepath", rel],
        cwd=repo.root,
        env=_env(),
        input=original,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        return 1
    matcher = difflib.SequenceMatcher(None, original.split("\n"), result.stdout.split("\n"))
    for tag, i1, _i2, _j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return i1 + 1
    return 1


def check(repo: Repo) -> list[Finding]:
    """Run `npm run format:check`; each file Prettier would change, at its first changed line."""
    binary = _prettier(repo)
    result = subprocess.run(
        ["npm", "run", "--silent", "format:check"],
        cwd=repo.root,
        env=_env(),
        capture_output=True,
        text=True,
    )
    findings = []
    for line in strip_ansi(result.stdout + result.stderr).splitlines():
        if not line.startswith("[warn] ") or line.startswith("[warn] Code style issues"):
            continue
        rel = line.removeprefix("[warn] ").strip()
        if not (repo.root / rel).is_file():
            continue
        findings.append(
            Finding(
                rel,
                _first_difference(repo, binary, rel),
                1,
                CHECK,
                "Prettier would reformat this file: run `npm run format`",
            )
        )
    if result.returncode not in (0, 1) or (result.returncode == 1 and not findings):
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise UsageError(f"Prettier could not run: {' '.join(tail)}")
    return findings


def write(repo: Repo) -> int:
    """Run `npm run format`, rewriting files in place; return its exit status."""
    _prettier(repo)
    return subprocess.run(["npm", "run", "--silent", "format"], cwd=repo.root).returncode
