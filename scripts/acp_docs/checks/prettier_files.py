"""Which files `prettier --check .` would check, and which of them it already found formatted.

Prettier 3 expands `.` to every file under it (dot files too, links not
followed), leaves out `.git`, `.sl`, `.svn`, `.hg` and `node_modules`, and of
the rest checks those it infers a language for (by extension, file name or a
`#!` line) and its ignore files (`.gitignore`, `.prettierignore`) do not name.
`candidates` does the same from Prettier's own list of languages, asked once
per Prettier version and cached.

A file Prettier found formatted is remembered under the digest of its name,
its text and Prettier's version (`Verdicts`), so the check only runs Prettier
on files it has not seen as they are, and starts no Node when there are none.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pathspec

from acp_docs.config.repo import Repo
from acp_docs.core import cachedir, runner
from acp_docs.core.errors import UsageError
from acp_docs.sources.textfile import UnreadableFile, read_bytes, read_text

SKIPPED_FOLDERS = frozenset({".git", ".sl", ".svn", ".hg", "node_modules"})
"""Folders Prettier never expands into."""
IGNORE_FILES = (".gitignore", ".prettierignore")
_LANGUAGES_SCRIPT = (
    "const p = await import(process.argv[1]);"
    "const info = await p.getSupportInfo();"
    "console.log(JSON.stringify(info.languages.map((l) => ({"
    " extensions: l.extensions ?? [], filenames: l.filenames ?? [],"
    " interpreters: l.interpreters ?? [], parsers: l.parsers ?? [] }))));"
)
_SHEBANG = re.compile(rb"^#!/(?:usr/)?(?:local/)?bin/(?:env\s+(\S+)|(\S+))")


@dataclass(frozen=True)
class Languages:
    """The names Prettier infers a language from."""

    extensions: tuple[str, ...]
    filenames: frozenset[str]
    interpreters: frozenset[str]
    markdown: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
    """The extensions and file names Prettier reads as Markdown (or MDX)."""

    def by_name(self, name: str) -> bool:
        """True when Prettier infers a language from the file name `name` alone."""
        return name in self.filenames or name.endswith(self.extensions)

    def is_markdown(self, name: str) -> bool:
        """True when Prettier formats the file `name` with its Markdown or MDX parser."""
        extensions, names = self.markdown
        return name.rsplit("/", 1)[-1] in names or name.endswith(extensions)


def version(project: Path) -> str:
    """The version of the Prettier installed in `project`; a ToolFailure when there is none."""
    try:
        data = json.loads(
            read_text(project / "node_modules" / "prettier" / "package.json", installed=True)
        )
        return str(data["version"])
    except (UsageError, ValueError, KeyError, TypeError):
        raise runner.ToolFailure(
            "prettier", "Prettier is not installed", "run `make setup` (it runs `npm ci`)"
        ) from None


def _well_formed(data: Any) -> bool:
    """True for a list of languages, each with lists of names (a cache file may be anything)."""
    return isinstance(data, list) and all(
        isinstance(lang, dict)
        and all(
            isinstance(lang.get(key), list) and all(isinstance(v, str) for v in lang[key])
            for key in ("extensions", "filenames", "interpreters", "parsers")
        )
        for lang in data
    )


_KNOWN: dict[str, Languages] = {}
"""Languages by Prettier version, once per process: a version's languages never change."""


def languages(project: Path, node: str | None) -> Languages:
    """The languages of the Prettier installed in `project`, from the cache or asked of it."""
    release = version(project)
    if release not in _KNOWN:
        _KNOWN[release] = _languages(project, release, node)
    return _KNOWN[release]


def _languages(project: Path, release: str, node: str | None) -> Languages:
    folder = cachedir.cache_dir("prettier-languages")
    data: Any = folder.read_json(f"{release}-parsers.json") if folder else None
    if not _well_formed(data):
        if node is None:
            node = runner.require("node", "prettier", "run `make setup` (Node 20 or newer)")
        entry = project / "node_modules" / "prettier" / "index.mjs"
        done = runner.run(
            "prettier",
            [node, "--input-type=module", "-e", _LANGUAGES_SCRIPT, entry.as_uri()],
            cwd=project,
            fix="run `make setup` (it runs `npm ci`)",
            timeout=60,
        )
        try:
            data = json.loads(done.stdout)
        except ValueError:
            data = None
        if not _well_formed(data):
            raise runner.ToolFailure("prettier", "no list of languages", "run `make setup`")
        if folder is not None:
            folder.write_json(f"{release}-parsers.json", data)
    markdown = [lang for lang in data if {"markdown", "mdx"} & set(lang["parsers"])]
    return Languages(
        tuple(sorted({e for lang in data for e in lang["extensions"]})),
        frozenset(f for lang in data for f in lang["filenames"]),
        frozenset(i for lang in data for i in lang["interpreters"]),
        (
            tuple(sorted({e for lang in markdown for e in lang["extensions"]})),
            frozenset(f for lang in markdown for f in lang["filenames"]),
        ),
    )


def ignored(root: Path) -> tuple[pathspec.GitIgnoreSpec, list[tuple[str, str, bool]]]:
    """What the ignore files of `root` leave out, and (name, why, a link?) for each not read.

    A link is not read (it may lead anywhere), nor a file past the size limit
    or not UTF-8; the patterns match in linear time (re2).
    """
    lines: list[str] = []
    unread = []
    for name in IGNORE_FILES:
        path = root / name
        if path.is_symlink():
            unread.append((name, "a symbolic link: not read, so nothing is left out by it", True))
        elif path.is_file():
            try:
                lines += read_text(path, name).splitlines()
            except UnreadableFile as exc:
                unread.append((name, exc.reason, False))
    return pathspec.GitIgnoreSpec.from_lines(lines, backend="re2"), unread


def _interpreter(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(256)
    except OSError:
        return None
    match = _SHEBANG.match(first)
    if match is None:
        return None
    return (match[1] or match[2]).decode("utf-8", "replace")


def candidates(
    repo: Repo, files: list[tuple[str, Path]], known: Languages
) -> list[tuple[str, Path]]:
    """The files of `files` (from `checkout_files`) that `prettier --check .` would check."""
    left_out, _unread = ignored(repo.root)  # the other checks report links and unreadable files
    out = []
    for rel, path in files:
        if SKIPPED_FOLDERS & set(rel.split("/")[:-1]) or path.is_symlink():
            continue
        if not path.is_file() or left_out.match_file(rel):
            continue
        name = rel.rsplit("/", 1)[-1]
        if known.by_name(name) or ("." not in name and _interpreter(path) in known.interpreters):
            out.append((rel, path))
    return out


_FORMATTED = b"formatted"


class Verdicts:
    """Files Prettier found formatted, remembered by name, text and Prettier's version."""

    def __init__(self, project: Path, options: tuple[str, ...]) -> None:
        self.folder = cachedir.cache_dir("prettier-formatted")
        self.salt = f"{version(project)}\0{' '.join(options)}\0"

    def _key(self, rel: str, data: bytes) -> str:
        named = self.salt.encode() + rel.encode("utf-8", "surrogateescape") + b"\0"
        return hashlib.sha256(named + data).hexdigest()

    def unseen(self, files: list[tuple[str, Path]]) -> tuple[list[str], dict[str, str]]:
        """The files not known to be formatted, and the keys of every file read."""
        keys: dict[str, str] = {}
        unseen = []
        for rel, path in files:
            try:
                keys[rel] = self._key(rel, read_bytes(path, rel))
            except UsageError:  # gone, or past the size limit: Prettier says what it makes of it
                unseen.append(rel)
                continue
            if self.folder is None or self.folder.read(keys[rel]) != _FORMATTED:
                unseen.append(rel)
        return unseen, keys

    def remember(self, keys: dict[str, str]) -> None:
        """Note the files of `keys` as formatted."""
        if self.folder is None:
            return
        for key in keys.values():
            self.folder.write(key, _FORMATTED)
