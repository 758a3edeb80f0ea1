"""The source folders of a checkout, walked without following links: hazards as findings.

A pull request may plant a symlink that leaves the checkout (to a system file,
a sibling folder, `/proc/self/environ`), one that loops or dangles, a FIFO or
device, or a file name with control characters. Each is a finding naming it,
and nothing behind such a link is read or published.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from acp_docs.core.findings import Finding

CHECK = "files"


@dataclass(frozen=True)
class Scan:
    """What a walk of the source folders found."""

    findings: list[Finding]
    excluded: frozenset[str]
    """Paths, relative to the root, whose content must never be read or published."""
    undecodable: tuple[str, ...] = ()
    """Paths whose names are not UTF-8 (shown with escapes): no site can be built with them."""

    def allows(self, root: Path, path: str | Path) -> bool:
        """True when `path` is neither excluded nor behind an excluded path."""
        rel = os.path.relpath(os.path.abspath(path), root)
        return not any(rel == bad or rel.startswith(bad + os.sep) for bad in self.excluded)


def within(root: Path, path: str | Path) -> bool:
    """True when `path`, links resolved, is `root` or lies under it."""
    real_root = os.path.realpath(root)
    return os.path.commonpath([os.path.realpath(path), real_root]) == real_root


def inside(root: Path, path: str | Path) -> bool:
    """True when `path`, links resolved, is a regular file inside `root`."""
    try:
        real = os.path.realpath(path, strict=True)
        info = os.stat(real)
    except (OSError, RuntimeError):
        return False
    real_root = os.path.realpath(root)
    return stat.S_ISREG(info.st_mode) and os.path.commonpath([real, real_root]) == real_root


def _control(name: str) -> bool:
    return any(ord(c) < 32 or ord(c) == 127 for c in name)


def decodable(name: str) -> bool:
    """True when the file name `name` (as the file system gave it) is UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def plain(name: str) -> bool:
    """True when the name is UTF-8 and holds no control character (a newline, a tab)."""
    return decodable(name) and not _control(name)


def _undecodable(name: str) -> bool:
    return not decodable(name)


def shown(rel: str) -> str:
    """A path for messages: each byte that is not UTF-8, and each control character, as `\\xNN`."""
    text = os.fsencode(rel).decode("utf-8", "backslashreplace")
    return "".join(f"\\x{ord(c):02x}" if _control(c) else c for c in text)


SKIPPED = frozenset({".git", ".venv", "node_modules", "site", ".cache", "__pycache__"})
"""Folders of a checkout that hold tools, caches and output, not its content."""


def undecodable_names(root: Path) -> list[str]:
    """Every path of the checkout (SKIPPED folders aside) whose name is not UTF-8, escaped.

    No site can be built and no tool can be given such a name, so a check
    refuses to start while one is there.
    """
    found = []
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED or current != str(root))
        for name in sorted([*dirs, *files]):
            if not decodable(name):
                found.append(shown(os.path.relpath(os.path.join(current, name), root)))
        dirs[:] = [d for d in dirs if decodable(d)]
    return found


def _link_problem(root: str, full: str) -> str:
    try:
        target = os.path.realpath(full, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symlink loop"
        return "is a symlink to nothing (dangling)"
    except RuntimeError:
        return "is a symlink loop"
    if os.path.commonpath([target, root]) != root:
        return "is a symlink that leaves the checkout"
    if os.path.isdir(target):
        parent = os.path.realpath(os.path.dirname(full))
        if os.path.commonpath([parent, target]) == target:
            return "is a symlink loop (it points at a folder that holds it)"
        return "is a symlink to a folder, which the site build would follow"
    return "is a symlink, and links are not followed even inside the checkout"


def scan(root: Path, folders: Iterable[Path]) -> Scan:
    """Walk `folders` (inside `root`) without following links."""
    real_root = os.path.realpath(root)
    findings: list[Finding] = []
    excluded: set[str] = set()
    undecodable: list[str] = []

    def flag(full: str, reason: str, rule: str) -> None:
        rel = os.path.relpath(full, root)
        excluded.add(rel)
        message = f"{reason}: {rule_help[rule]}"
        findings.append(Finding(Path(rel).as_posix(), 1, 1, CHECK, message, f"{CHECK}/{rule}"))

    rule_help = {
        "symlink": "remove it; nothing behind it is read or published",
        "special": "remove it; only regular files are read",
        "name": "rename it",
        "outside": "point it inside the repository",
    }
    for folder in folders:
        top = os.path.abspath(folder)
        if not os.path.lexists(top):
            continue
        real_top = os.path.realpath(top)
        if os.path.islink(top) or os.path.commonpath([real_top, real_root]) != real_root:
            problem = _link_problem(real_root, top) if os.path.islink(top) else None
            flag(top, problem or "leaves the checkout", "outside")
            continue
        for current, dirs, files in os.walk(top, followlinks=False):
            for name in sorted([*dirs, *files]):
                full = os.path.join(current, name)
                if _undecodable(name):
                    flag(full, "the file name is not UTF-8", "name")
                    undecodable.append(shown(os.path.relpath(full, root)))
                    continue
                if _control(name):
                    flag(full, "the file name holds control characters", "name")
                    continue
                try:
                    info = os.lstat(full)
                except OSError:
                    continue
                if stat.S_ISLNK(info.st_mode):
                    problem = _link_problem(real_root, full)
                    if problem:
                        flag(full, problem, "symlink")
                elif not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                    flag(full, "is not a regular file (a FIFO, device or socket)", "special")
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(current, d))]
    return Scan(sorted(findings), frozenset(excluded), tuple(undecodable))
