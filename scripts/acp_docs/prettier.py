"""Prettier, pinned in package.json and run with Node; files it would rewrite as findings."""

from __future__ import annotations

import difflib
import hashlib

from acp_docs import cachedir, runner
from acp_docs.findings import Finding
from acp_docs.repo import Repo

CHECK = "format"
FIX = "run `make setup` (it runs `npm ci`; Prettier needs Node 20 or newer)"
TIMEOUT = 300.0


def _command(repo: Repo) -> list[str]:
    node = runner.require("node", "prettier", FIX)
    script = repo.root / "node_modules" / "prettier" / "bin" / "prettier.cjs"
    if not script.is_file():
        raise runner.ToolFailure("prettier", "Prettier is not installed", FIX)
    return [node, str(script)]


def _first_difference(repo: Repo, command: list[str], rel: str) -> int:
    original = (repo.root / rel).read_text(encoding="utf-8", errors="replace")
    try:
        result = runner.run(
            "prettier",
            [*command, "--stdin-filepath", rel],
            cwd=repo.root,
            fix=FIX,
            timeout=TIMEOUT,
            stdin=original,
        )
    except runner.ToolFailure:
        return 1
    matcher = difflib.SequenceMatcher(None, original.split("\n"), result.stdout.split("\n"))
    for tag, i1, _i2, _j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return i1 + 1
    return 1


def _cache_options(repo: Repo) -> list[str]:
    """Prettier's cache for this checkout, in the cache folder (never in the tracked tree).

    Keyed by file content, so an edit is always seen again; a checkout per file.
    """
    folder = cachedir.cache_dir("prettier")
    if folder is None:
        return []
    key = hashlib.sha256(str(repo.root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return ["--cache", "--cache-strategy", "content", "--cache-location", str(folder / key)]


def check(repo: Repo) -> list[Finding]:
    """`prettier --check .`; each file Prettier would change, at its first changed line."""
    command = _command(repo)
    result = runner.run(
        "prettier",
        [*command, "--check", *_cache_options(repo), "."],
        cwd=repo.root,
        fix=FIX,
        timeout=TIMEOUT,
        ok=(0, 1, 2),
    )
    findings = []
    for line in (result.stdout + result.stderr).splitlines():
        if not line.startswith("[warn] ") or line.startswith("[warn] Code style issues"):
            continue
        rel = line.removeprefix("[warn] ").strip()
        if not (repo.root / rel).is_file():
            continue
        findings.append(
            Finding(
                rel,
                _first_difference(repo, command, rel),
                1,
                CHECK,
                "Prettier would reformat this file: run `npm run format`",
                "format/prettier",
            )
        )
    if result.returncode != 0 and not findings:
        tail = " ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
        raise runner.ToolFailure("prettier", f"could not check the files: {tail}", FIX)
    return findings


def write(repo: Repo) -> int:
    """`prettier --write .`, rewriting files in place; return its exit status."""
    done = runner.run(
        "prettier", [*_command(repo), "--write", "."], cwd=repo.root, fix=FIX, timeout=TIMEOUT
    )
    return done.returncode
