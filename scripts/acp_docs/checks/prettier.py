"""Prettier, pinned in package.json and run with Node; files it would rewrite as findings.

Markdown files longer than `LONG_LINES` are checked in parts
(`mdparts`), which keeps Prettier's memory to a part's worth; every other file
Prettier would check (`prettier_files`) and has not seen formatted as it is
goes through `prettier --check`.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.checks import prettier_files
from acp_docs.config.repo import Repo
from acp_docs.core import cachedir, runner
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown import parts as mdparts
from acp_docs.sources import filetree, jsonparse
from acp_docs.sources.textfile import read_text, write_atomic

CHECK = "format"
FIX = "run `make setup` (it runs `npm ci`; Prettier needs Node 20 or newer)"
TIMEOUT = 300.0
MAX_NAMED = 1000
"""Past this many files to check, Prettier is given `.` rather than each name."""
LONG_LINES = 4000
"""Markdown files with more lines than this are checked in parts."""
PARTS_SCRIPT = Path(__file__).with_name("prettier_parts.mjs")
REFORMAT = "Prettier would reformat this file: run `make format`"
# Only names that are plain as a glob can be left out of `prettier --check .` with `!name`.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_./-]+")
_ERROR_LINE = re.compile(r"^\[error\] (?P<path>[^\s>|][^:\n]*): (?P<reason>.*)$", re.MULTILINE)


NO_CONFIG = ("--no-config", "--no-editorconfig")
"""Prettier's defaults: a configuration file from a pull request is never read (it can be code)."""
CONFIG_FILES = frozenset(
    {".prettierrc", ".editorconfig", ".prettierrc.toml"}
    | {f".prettierrc.{ext}" for ext in ("json", "json5", "yml", "yaml")}
    | {f"{stem}.{ext}" for stem in (".prettierrc", "prettier.config") for ext in ("js", "cjs")}
    | {f"{stem}.{ext}" for stem in (".prettierrc", "prettier.config") for ext in ("mjs", "ts")}
    | {f"{stem}.{ext}" for stem in (".prettierrc", "prettier.config") for ext in ("cts", "mts")}
)
"""The files Prettier would take its options from, were it allowed to look."""
CONFIG_IGNORED = (
    "Prettier configuration is not read: the checks format with Prettier's defaults, and a"
    " configuration file can run code; remove this file"
)
_NOT_WALKED = frozenset({".git", "node_modules", ".venv", "site", ".pytest_cache", ".ruff_cache"})


def _command(repo: Repo) -> list[str]:
    node = runner.require("node", "prettier", FIX)
    script = repo.root / "node_modules" / "prettier" / "bin" / "prettier.cjs"
    if not script.is_file():
        raise runner.ToolFailure("prettier", "Prettier is not installed", FIX)
    return [node, str(script), *NO_CONFIG]


def checkout_files(repo: Repo) -> list[tuple[str, Path]]:
    """Every file name of the checkout, (relative path, path), in a stable order.

    One walk serves the format check: `.git`, `node_modules`, `.venv`, `site`
    and the tool caches are not entered, nor are links to folders.
    """
    out = []
    for current, dirs, names in os.walk(repo.root):
        dirs[:] = sorted(d for d in dirs if d not in _NOT_WALKED)
        for name in sorted(names):
            path = Path(current, name)
            out.append((path.relative_to(repo.root).as_posix(), path))
    return out


def config_findings(files: list[tuple[str, Path]]) -> list[Finding]:
    """A finding for each Prettier configuration file in the checkout, which is not read."""
    return [
        Finding(rel, 1, 1, CHECK, CONFIG_IGNORED, "format/config-file")
        for rel, path in files
        if path.name in CONFIG_FILES or (path.name == "package.json" and _has_prettier_key(path))
    ]


def _has_prettier_key(path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False  # a link may lead out of the checkout, and a FIFO never ends: never read
    try:
        data = jsonparse.loads(read_text(path, path.name))
    except (UsageError, jsonparse.JsonProblem):
        return False  # npm reports a package.json it cannot read
    return isinstance(data, dict) and "prettier" in data


def _first_changed_line(original: str, formatted: str) -> int:
    """The 1-based line of `original` where `formatted` first differs from it."""
    matcher = difflib.SequenceMatcher(None, original.split("\n"), formatted.split("\n"))
    for tag, i1, _i2, _j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return i1 + 1
    return 1


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
    return _first_changed_line(original, result.stdout)


def _markdown(files: list[tuple[str, Path]], known: prettier_files.Languages) -> dict[str, str]:
    """The text of each file Prettier reads as Markdown (`.md`, `.markdown`, `.mkd`, ...)
    that is a regular UTF-8 file, by path: read once.

    Links, FIFOs and files that are not UTF-8 are left to the whole-file check,
    which reports on them as it always did.
    """
    texts = {}
    for rel, path in files:
        markdown = rel.endswith(".md") or known.is_markdown(rel)
        if not markdown or path.is_symlink() or not path.is_file():
            continue
        try:
            texts[rel] = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def _too_complex(texts: dict[str, str], checked: set[str]) -> list[Finding]:
    """A finding for each Markdown file of `checked` the site would not render
    (`markdown.limits`): Prettier would take minutes on it, so it is not sent."""
    found = []
    for rel in sorted(checked & texts.keys()):
        slow = mdlimits.hazard(texts[rel])
        if slow is not None:
            message = f"{slow.message}; not sent to Prettier, which would take minutes on it"
            found.append(Finding(rel, slow.line, slow.col, CHECK, message, "format/too-complex"))
    return found


def _long_markdown(texts: dict[str, str]) -> dict[str, list[mdparts.Part]]:
    """The long Markdown files of the checkout that can be cut, by path: their parts.

    Files in hidden folders and names that are not plain are left out.
    """
    found: dict[str, list[mdparts.Part]] = {}
    for rel, text in texts.items():
        if not rel.endswith(".md") or not _PLAIN_NAME.fullmatch(rel):
            continue
        if any(folder.startswith(".") for folder in rel.split("/")[:-1]):
            continue
        if text.count("\n") <= LONG_LINES:
            continue
        parts = mdparts.parts(text)
        if len(parts) > 1:
            found[rel] = parts
    return found


@dataclass(frozen=True)
class _Plan:
    """What `check` and `write` hand Prettier: every file it would format, the Markdown files
    too complex to send, and the long ones it gets part by part."""

    files: list[tuple[str, Path]]
    every: list[tuple[str, Path]]
    too_complex: list[Finding]
    long: dict[str, list[mdparts.Part]]

    @property
    def whole(self) -> list[tuple[str, Path]]:
        """The files sent whole."""
        skip = {f.path for f in self.too_complex}
        return [(rel, path) for rel, path in self.every if rel not in self.long and rel not in skip]


def _plan(repo: Repo) -> _Plan:
    files = checkout_files(repo)
    known = prettier_files.languages(repo.root, shutil.which("node"))
    every = prettier_files.candidates(repo, files, known)
    texts = _markdown(files, known)
    too_complex = _too_complex(texts, {rel for rel, _path in every})
    for finding in too_complex:
        del texts[finding.path]
    return _Plan(files, every, too_complex, _long_markdown(texts))


Answer = list[dict[str, Any]]
"""The parts of one file Prettier would change: {"line", "formatted"} or {"line", "error"}."""


def _format_parts(repo: Repo, node: str, long: dict[str, list[mdparts.Part]]) -> dict[str, Answer]:
    """Format each long file part by part (files Prettier ignores are left out), by path."""
    entry = repo.root / "node_modules" / "prettier" / "index.mjs"
    request = {
        "files": [
            {"path": rel, "parts": [{"line": p.line, "text": p.text} for p in parts]}
            for rel, parts in long.items()
        ]
    }
    folder = cachedir.cache_dir("prettier")
    name = hashlib.sha256(str(repo.root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    with contextlib.ExitStack() as stack:
        cache = stack.enter_context(folder.borrowed(f"{name}-parts.json")) if folder else None
        result = runner.run(
            "prettier",
            [node, str(PARTS_SCRIPT), str(entry), str(repo.root), *([str(cache)] if cache else [])],
            cwd=repo.root,
            fix=FIX,
            timeout=TIMEOUT,
            stdin=json.dumps(request),
        )
    answers: dict[str, Answer] = {}
    for line in result.stdout.splitlines():
        try:
            answer = json.loads(line)
            rel, changed = answer["path"], answer["changed"]
            if rel not in long or not isinstance(changed, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise runner.ToolFailure("prettier", f"unexpected output: {line[:200]}", FIX) from None
        answers[rel] = changed
    return answers


def _check_in_parts(repo: Repo, node: str, long: dict[str, list[mdparts.Part]]) -> list[Finding]:
    """Format each long file part by part; a file Prettier would change, at its first change."""
    findings = []
    for rel, changed in _format_parts(repo, node, long).items():
        if not changed:
            continue
        texts = {p.line: p.text for p in long[rel]}
        first = changed[0]
        if "error" in first:
            message = f"Prettier could not format this file: {first['error']}"
            at = first["line"]
        else:
            message = REFORMAT
            at = first["line"] - 1 + _first_changed_line(texts[first["line"]], first["formatted"])
        findings.append(Finding(rel, at, 1, CHECK, message, "format/prettier"))
    return findings


def _write_in_parts(repo: Repo, node: str, long: dict[str, list[mdparts.Part]]) -> list[str]:
    """Format each long file part by part and write back those that change; what could not be."""
    problems = []
    for rel, changed in _format_parts(repo, node, long).items():
        errors = [c for c in changed if "error" in c]
        if errors:
            problems.append(f"{rel}:{errors[0]['line']}: {errors[0]['error']}")
        elif changed:
            formatted = {c["line"]: c["formatted"] for c in changed}
            text = "\n".join(formatted.get(p.line, p.text) for p in long[rel])
            write_atomic(repo.root / rel, text)
    return problems


def _arguments(unseen: list[str], long: dict[str, list[mdparts.Part]]) -> list[str]:
    """The files to name to Prettier: each by name, or `.` when there are too many."""
    if len(unseen) > MAX_NAMED:
        return [".", *(f"!{rel}" for rel in long)]
    return [f"./{rel}" if rel.startswith("-") else rel for rel in unseen]


_PLACE = re.compile(r"\((?P<line>\d+):(?P<col>\d+)\)$")


def _unparsed(repo: Repo, said: str) -> list[Finding]:
    """Each file of the checkout Prettier could not read (a syntax error), at the place it
    names: the file's own problem, not the tool's."""
    found = []
    for match in _ERROR_LINE.finditer(said):
        rel, reason = match["path"].strip(), match["reason"].strip()
        if rel.startswith((">", "|")) or not (repo.root / rel).is_file():
            continue
        place = _PLACE.search(reason)
        line, col = (int(place["line"]), int(place["col"])) if place else (1, 1)
        message = f"Prettier cannot read the file: {reason[:300]}"
        found.append(Finding(rel, line, col, CHECK, message, "format/syntax"))
    return found


def check(repo: Repo) -> list[Finding]:
    """`prettier --check .`; each file Prettier would change, at its first changed line.

    Files Prettier found formatted before, as they are now, are not sent again
    (`prettier_files.Verdicts`); with none left, no Node starts.
    """
    plan = _plan(repo)
    files, long, whole = plan.files, plan.long, plan.whole
    verdicts = prettier_files.Verdicts(repo.root, NO_CONFIG)
    unseen, keys = verdicts.unseen(whole)
    findings = []
    if unseen:
        command = _command(repo)
        result = runner.run(
            "prettier",
            [*command, "--check", *_arguments(unseen, long)],
            cwd=repo.root,
            fix=FIX,
            timeout=TIMEOUT,
            ok=(0, 1, 2),
        )
        said = result.stdout + result.stderr
        for line in said.splitlines():
            if not line.startswith("[warn] ") or line.startswith("[warn] Code style issues"):
                continue
            rel = line.removeprefix("[warn] ").strip()
            if not (repo.root / rel).is_file():
                continue
            at = _first_difference(repo, command, rel)
            findings.append(Finding(rel, at, 1, CHECK, REFORMAT, "format/prettier"))
        findings += _unparsed(repo, said)
        if result.returncode != 0 and not findings:
            tail = " ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
            raise runner.ToolFailure("prettier", f"could not check the files: {tail}", FIX)
        if result.returncode == 0:
            verdicts.remember({rel: keys[rel] for rel in unseen if rel in keys})
        else:
            named = {f.path for f in findings} | {m["path"] for m in _ERROR_LINE.finditer(said)}
            verdicts.remember(
                {rel: keys[rel] for rel in unseen if rel in keys and rel not in named}
            )
    if long:
        findings += _check_in_parts(repo, _command(repo)[0], long)
    return config_findings(files) + plan.too_complex + findings


def write(repo: Repo) -> list[str]:
    """Rewrite files in place as Prettier formats them; what could not be formatted.

    `prettier --write .` formats every file but the long Markdown ones, which
    are formatted part by part (as `check` checks them) and written back whole.
    """
    command = _command(repo)
    plan = _plan(repo)
    long, skip = plan.long, [f.path for f in plan.too_complex]
    done = runner.run(
        "prettier",
        [*command, "--write", ".", *(f"!{rel}" for rel in [*long, *skip])],
        cwd=repo.root,
        fix=FIX,
        timeout=TIMEOUT,
        ok=(0, 2),
    )
    problems = [f"{f.path}:{f.line}: {f.message}" for f in plan.too_complex]
    if done.returncode != 0:
        # One line per file ("[error] path: reason"), not the code excerpt after it.
        # A name Prettier printed over two lines is no file of the checkout: not named.
        said = list(_ERROR_LINE.finditer(done.stderr))
        named = [m for m in said if filetree.inside(repo.root, repo.root / m["path"])]
        problems += [f"{m['path']}: {m['reason']}" for m in named[:20]]
        if not named or len(named) < len(said):
            problems.append("Prettier could not format a file; `npm run format:check` names it")
    if long:
        problems += _write_in_parts(repo, command[0], long)
    return problems
