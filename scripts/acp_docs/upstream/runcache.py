"""Whole runs of the upstream checks kept in the user's cache, keyed by everything they read.

A warm run on an unchanged tree (a maintainer running the check again, a
pre-commit hook on a commit that touches no page) gives the findings of the
last run without reading a page twice. The key is one digest of:

- every entry under `docs/` (the walk's rules: links and special files by
  kind, never followed), each regular file by its bytes;
- every regular file at the tree's root (configuration, lock files) and under
  `schema/`, by its bytes;
- the engine's own code, the versions of the packages and tools it runs
  (Python packages, the pinned Node packages, Node, typos), the size limit,
  and the checks asked for.

Nothing else decides an upstream check's findings. A run whose checks did not
all run, or that could not have a tool it wanted (the tree's own Prettier),
is not kept, so the next run tries again. Entries are sealed by the cache
folder (`cachedir`): a damaged or foreign one is a miss, never a result.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

from acp_docs.core import cachedir, memo
from acp_docs.core.findings import LEVELS, CheckResult, Finding
from acp_docs.sources import textfile
from acp_docs.upstream import nodejobs
from acp_docs.upstream.layout import DOCS, MAX_FILES, NOT_WALKED

KIND = "upstream-runs"
OFF = "ACP_DOCS_RUN_CACHE"
"""Set to `off`, no run is kept or taken (the test suite sets it, so each test exercises the
checks it is about)."""
KEEP = 8
UNKEPT = frozenset({"upstream/prettier-version"})
"""Rules that say a tool could not be had: a run holding one is not kept."""


def _files(hasher: Any, folder: Path, root: Path, recursive: bool) -> bool:
    """Feed every entry of `folder` to `hasher`; False past `MAX_FILES` entries."""
    count = 0
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in NOT_WALKED) if recursive else []
        for name in sorted(
            [*names, *(d for d in dirs if os.path.islink(os.path.join(current, d)))]
        ):
            count += 1
            if count > MAX_FILES:
                return False
            path = Path(current, name)
            rel = os.path.relpath(path, root).encode("utf-8", "surrogateescape")
            try:
                info = path.lstat()
            except OSError:
                hasher.update(b"gone\0" + rel + b"\0")
                continue
            if stat.S_ISLNK(info.st_mode):
                hasher.update(
                    b"link\0"
                    + rel
                    + b"\0"
                    + os.readlink(path).encode("utf-8", "surrogateescape")
                    + b"\0"
                )
            elif not stat.S_ISREG(info.st_mode):
                hasher.update(b"special\0" + rel + b"\0")
            elif info.st_size > textfile.max_bytes():
                hasher.update(b"large\0" + rel + b"\0" + str(info.st_size).encode() + b"\0")
            else:
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                    with os.fdopen(fd, "rb") as opened:
                        data = opened.read(textfile.max_bytes() + 1)
                except OSError:
                    data = b"\0unreadable"
                hasher.update(b"file\0" + rel + b"\0" + hashlib.blake2b(data).digest())
        if not recursive:
            break
    return True


def _versions() -> bytes:
    """The engine and every package and tool it runs: its code, the Python, the locks that pin
    the Python and Node packages, and the Node it finds."""
    locks = [
        nodejobs.PROJECT / "scripts" / "requirements.lock",
        nodejobs.PROJECT / "package-lock.json",
    ]
    node = shutil.which("node")
    try:
        seen = os.stat(node) if node else None
        runtime = f"{node} {seen.st_size} {seen.st_mtime_ns}" if seen else "no node"
    except OSError:
        runtime = "no node"  # the machine's Node, told by its place and stamp, not its bytes
    tools = memo.digest_of(locks)
    said = [sys.version, memo.engine_digest(), tools, runtime, str(textfile.max_bytes())]
    return "\0".join(said).encode("utf-8", "surrogateescape")


def key(root: Path, names: tuple[str, ...], only: frozenset[str] | None) -> str | None:
    """The run's key, or None when the tree cannot be fingerprinted (no `docs/` folder, too
    many files): the run then happens as if nothing were kept."""
    root = root.resolve()
    docs = root / DOCS
    if os.environ.get(OFF) == "off" or not docs.is_dir() or docs.is_symlink():
        return None
    hasher = hashlib.blake2b(digest_size=20)
    hasher.update(_versions())
    hasher.update("\0".join(names).encode() + b"\1" + "\0".join(sorted(only or ())).encode())
    hasher.update(b"\2only" if only is not None else b"\2all")
    if not _files(hasher, docs, root, True) or not _files(hasher, root, root, False):
        return None
    schema = root / "schema"
    if schema.is_dir() and not schema.is_symlink() and not _files(hasher, schema, root, True):
        return None
    return hasher.hexdigest()


def read(run_key: str | None) -> list[CheckResult] | None:
    """The results kept under `run_key` (each taking no time now), or None."""
    folder = cachedir.cache_dir(KIND) if run_key else None
    data = folder.read_json(f"{run_key}.json") if folder else None
    if not isinstance(data, list):
        return None
    try:
        return [
            CheckResult(
                str(r["name"]),
                tuple(
                    Finding(
                        str(f[0]),
                        int(f[1]),
                        int(f[2]),
                        str(f[3]),
                        str(f[4]),
                        str(f[5]),
                        str(f[6]) if f[6] in LEVELS else "error",
                        str(f[7]),
                    )
                    for f in r["findings"]
                ),
                0.0,  # a kept run took no time of this one
            )
            for r in data
        ]
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def write(run_key: str | None, results: list[CheckResult]) -> None:
    """Keep `results` under `run_key`, when every check ran and had every tool it wanted."""
    folder = cachedir.cache_dir(KIND) if run_key else None
    if folder is None or any(r.error is not None for r in results):
        return
    if any(f.rule in UNKEPT for r in results for f in r.findings):
        return
    rows = [
        {
            "name": r.name,
            "seconds": r.seconds,
            "findings": [
                [f.path, f.line, f.col, f.check, f.message, f.rule, f.level, f.key]
                for f in r.findings
            ],
        }
        for r in results
    ]
    folder.write_json(f"{run_key}.json", rows)
    folder.keep_latest(KEEP, ".json")
