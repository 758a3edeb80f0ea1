"""The tree's own Prettier: the version its lock file pins, and the files its scripts format.

A tree's CI runs the Prettier its `package-lock.json` locks, on the files its
`package.json` scripts name (`prettier --check "**/*.{md,mdx}"` formats those
alone; `prettier --check .` everything). So the check does the same:

- Version: the locked version, fetched once from the npm registry into the
  user's cache folder (`tools/prettier-<version>`), its integrity held to the
  lock's; the pinned Prettier of this project when the tree locks none, or the
  same one. When the locked one cannot be had (no network, a bad lock), a note
  says so and the pinned one checks instead.
- Scope: the patterns of every `prettier --check` (or `--write`) of the
  scripts, braces expanded, matched as Prettier's globs are from the tree's
  root; every file when no script names Prettier.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pathspec

from acp_docs.core import cachedir, runner
from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import Finding
from acp_docs.sources.textfile import UnreadableFile, load_json
from acp_docs.upstream import nodejobs, prettierconfig

CHECK = prettierconfig.CHECK
LOCK = "package-lock.json"
MANIFEST = "package.json"
VERSION = re.compile(r"^\d{1,4}\.\d{1,4}\.\d{1,4}(?:-[0-9A-Za-z.]{1,40})?$")
"""A version the check will ask the registry for: plain semver, nothing npm could read as
a path, a URL or an option."""
FETCH_TIMEOUT = 180.0
WITH_VALUE = frozenset(
    {
        "--ignore-path",
        "--config",
        "--log-level",
        "--loglevel",
        "--plugin",
        "--parser",
        "--cache-location",
        "--cache-strategy",
        "--stdin-filepath",
        "--config-precedence",
        "--end-of-line",
        "--trailing-comma",
        "--print-width",
        "--tab-width",
    }
)
"""Options of Prettier's command line whose value is the next word, not a pattern."""
FORMATS = frozenset({"--check", "-c", "--write", "-w", "--list-different", "-l"})
MAX_PATTERNS = 64


@dataclass(frozen=True)
class Chosen:
    """The Prettier to run (its package folder), the files it formats, and what was said."""

    package: Path
    scope: pathspec.PathSpec | None
    """None: every file Prettier has a parser for."""
    said: str
    findings: tuple[Finding, ...] = ()


def _json(root: Path, name: str) -> object | None:
    """The JSON of the tree's file `name`, read as every file of the tree is; None when it has
    none that reads."""
    try:
        return load_json(root / name, name)
    except (UnreadableFile, LocatedError):
        return None


def locked(root: Path) -> tuple[str, str | None] | None:
    """The Prettier version (and its integrity) the tree's lock file pins, or None."""
    lock = _json(root, LOCK)
    if not isinstance(lock, dict):
        return None
    packages = lock.get("packages")
    entry = packages.get("node_modules/prettier") if isinstance(packages, dict) else None
    if entry is None and isinstance(lock.get("dependencies"), dict):
        entry = lock["dependencies"].get("prettier")  # lock files of npm 6
    if not isinstance(entry, dict) or not isinstance(entry.get("version"), str):
        return None
    integrity = entry.get("integrity")
    return entry["version"], integrity if isinstance(integrity, str) else None


def _braces(pattern: str) -> list[str]:
    """`**/*.{md,mdx}` as `**/*.md` and `**/*.mdx` (one level, as Prettier's globs read)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [f"{head}{each}{tail}" for each in match.group(1).split(",")[:MAX_PATTERNS]]


def patterns(root: Path) -> list[str] | None:
    """The patterns the tree's scripts hand Prettier to check, or None when none does."""
    manifest = _json(root, MANIFEST)
    scripts = manifest.get("scripts") if isinstance(manifest, dict) else None
    if not isinstance(scripts, dict):
        return None
    found: list[str] = []
    named = False
    for command in scripts.values():
        if not isinstance(command, str) or "prettier" not in command:
            continue
        for part in re.split(r"&&|\|\||;", command[:4000]):
            try:
                words = shlex.split(part)
            except ValueError:
                continue
            if "prettier" not in words or not FORMATS & set(words):
                continue
            named = True
            rest = words[words.index("prettier") + 1 :]
            skip = False
            for word in rest:
                if skip:
                    skip = False
                elif word.startswith("-"):
                    skip = word in WITH_VALUE
                else:
                    found += _braces(word)
    return list(dict.fromkeys(found))[:MAX_PATTERNS] if named else None


def _scope(root: Path) -> tuple[pathspec.PathSpec | None, str]:
    listed = patterns(root)
    if not listed or any(p in (".", "./", "**", "**/*") for p in listed):
        return None, "every file"
    shown = ", ".join(repr(p) for p in listed[:8])
    spec = pathspec.PathSpec.from_lines("gitignore", [p.removeprefix("./") for p in listed])
    return spec, f"the files its scripts name ({shown})"


def _fetched(version: str, integrity: str | None) -> tuple[Path | None, str]:
    """The folder of Prettier `version` in the cache, fetched once; or None and why."""
    folder = cachedir.cache_dir("tools")
    if folder is None:
        return None, "there is no writable cache folder to keep it in"
    home = folder.path / f"prettier-{version}"
    package = home / "node_modules" / "prettier"
    if not _verified(home, version, integrity):
        try:
            runner.run(
                "npm",
                [
                    runner.require("npm", "npm", nodejobs.FIX),
                    "install",
                    "--prefix",
                    str(home),
                    "--no-save",
                    "--ignore-scripts",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                    f"prettier@{version}",
                ],
                cwd=folder.path,
                fix=nodejobs.FIX,
                timeout=FETCH_TIMEOUT,
            )
        except runner.ToolFailure as exc:
            return None, f"npm could not fetch it ({exc.reason[:200]})"
        if not _verified(home, version, integrity):
            return None, "what npm fetched is not the version and integrity the lock names"
    return package, ""


def _verified(home: Path, version: str, integrity: str | None) -> bool:
    """True when `home` holds Prettier `version`, with the lock's integrity where it has one."""
    installed = _json(home / "node_modules" / "prettier", MANIFEST)
    if not isinstance(installed, dict) or installed.get("version") != version:
        return False
    if integrity is None:
        return True
    record = _json(home / "node_modules", ".package-lock.json")
    packages = record.get("packages") if isinstance(record, dict) else None
    entry = packages.get("node_modules/prettier") if isinstance(packages, dict) else None
    return isinstance(entry, dict) and entry.get("integrity") == integrity


def choose(root: Path) -> Chosen:
    """The Prettier and the files to check the tree at `root` with, as its own CI would."""
    ours = nodejobs.PROJECT / "node_modules" / "prettier"
    pinned = nodejobs.package_version(nodejobs.Script("prettier", Path(), ours, "", ""))
    scope, files = _scope(root)
    lock = locked(root)
    if lock is None:
        said = f"Prettier {pinned} (the tree locks none) on {files}"
        return Chosen(ours, scope, said)
    version, integrity = lock
    if version == pinned:
        return Chosen(ours, scope, f"Prettier {version} (as the tree locks) on {files}")
    if not VERSION.match(version):
        package, why = None, f"{version!r} is not a version the check asks a registry for"
    else:
        package, why = _fetched(version, integrity)
    if package is None:
        said = f"the tree locks Prettier {version[:40]!r}, but {why}: Prettier {pinned} checked it"
        note = Finding(LOCK, 1, 1, CHECK, said, "upstream/prettier-version", "note")
        return Chosen(ours, scope, f"Prettier {pinned} on {files}", (note,))
    return Chosen(package, scope, f"Prettier {version} (as the tree locks) on {files}")


def describe(chosen: Chosen) -> Finding:
    """A note of which Prettier checked which files."""
    said = f"formatted by {chosen.said}"
    return Finding(MANIFEST, 1, 1, CHECK, said, "upstream/prettier-run", "note")
