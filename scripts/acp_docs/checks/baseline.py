"""`--baseline FILE`: adopt a check on a tree with old problems, and report only new ones.

`--write-baseline FILE` writes every current finding at or above the minimum
level (`--min-level`, warnings by default: notes stay out) to FILE, as its own
explicit act. `--baseline FILE` then leaves out each finding the file holds,
matched by what the problem is: its rule, its page, and the problem's own
content (`Finding.identity`: a link's target, not the link as written; the
message otherwise), not by line, so an edit above a known problem does not
bring it back, as many times as the file holds it: a second, identical
finding in the same file is new. A page renamed since the baseline was written
keeps its entries: where the checked tree is a git repository, the baseline
records its commit, and git's rename detection maps each old path to its new
one (`renames`). An entry that no current finding
matches is stale, and said so. A baseline that does not exist is a usage
error, never a pass: CI that names a wrong or uncommitted path fails.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from acp_docs.core import runner
from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import LEVELS, CheckResult, Finding
from acp_docs.sources import jsonparse
from acp_docs.sources.textfile import read_text, write_atomic

FORMAT = "acp-docs baseline 2"
FORMATS = ("acp-docs baseline 1", FORMAT)
"""The formats read: the first matched by message, the second by the problem's identity."""
COMMIT = re.compile(r"^[0-9a-f]{40}$")

Key = tuple[str, str, str]


def _key(finding: Finding) -> Key:
    return (finding.path, finding.rule_id, finding.identity)


def _git(tree: Path, *args: str) -> str | None:
    """git's answer in `tree`, with nothing of the tree's configuration run; None when git
    is missing, the tree is no repository, or git fails."""
    safe = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external="]
    try:
        done = runner.run(
            "git",
            [runner.require("git", "git", "install git"), "-C", str(tree), *safe, *args],
            cwd=tree,
            fix="install git",
            timeout=30.0,
            env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"},
        )
    except runner.ToolFailure:
        return None
    return done.stdout


def commit_of(tree: Path) -> str | None:
    """The commit the tree's checkout is at, when it is a git repository."""
    said = _git(tree, "rev-parse", "HEAD")
    head = said.strip() if said else ""
    return head if COMMIT.match(head) else None


def renames(tree: Path, since: str | None) -> dict[str, str]:
    """Each path renamed in the tree since commit `since` (git's rename detection, the
    working tree included): old path -> new path. Empty when it cannot tell."""
    if since is None or not COMMIT.match(since):
        return {}
    said = _git(tree, "diff", "--no-ext-diff", "--no-textconv", "-M", "--name-status", "-z", since)
    if said is None:
        return {}
    parts = said.split("\0")
    moved: dict[str, str] = {}
    index = 0
    while index < len(parts):
        status = parts[index]
        if status.startswith("R") and index + 2 < len(parts):
            moved[parts[index + 1]] = parts[index + 2]
            index += 3
        elif status.startswith("C") and index + 2 < len(parts):
            index += 3
        else:
            index += 2
    return moved


def at_least(findings: Iterable[Finding], level: str) -> list[Finding]:
    """The findings of `level` or a level that matters more (`LEVELS` lists them, most first)."""
    rank = LEVELS.index(level)
    return [f for f in findings if LEVELS.index(f.level) <= rank]


def write(
    path: Path, findings: Iterable[Finding], within: Path | None = None, commit: str | None = None
) -> int:
    """Write `findings` as the baseline at `path` (not through a linked folder below
    `within`), with the commit the tree is at; how many it holds."""
    rows = [
        {
            "path": f.path,
            "rule": f.rule_id,
            "key": f.identity,
            "message": f.message,
            "level": f.level,
        }
        for f in sorted(findings)
    ]
    doc = {"format": FORMAT, "commit": commit, "findings": rows}
    write_atomic(path, json.dumps(doc, indent=2) + "\n", within=within)
    return len(rows)


def read(path: Path) -> tuple[list[dict[str, str]], str | None]:
    """A baseline file's entries and the commit its tree was at (None when it says none); a
    LocatedError for a file that is not one."""
    shown = str(path)
    try:
        data = jsonparse.loads(read_text(path, shown))
    except jsonparse.JsonProblem as exc:
        raise LocatedError(shown, exc.line, exc.col, exc.message) from None
    rows = data.get("findings") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("format") not in FORMATS
        or not isinstance(rows, list)
    ):
        raise LocatedError(shown, 1, 1, f"not a baseline written by acp-docs ({FORMAT!r})")
    entries = []
    for number, row in enumerate(rows):
        if not isinstance(row, dict) or not all(
            isinstance(row.get(k), str) for k in ("path", "rule", "message")
        ):
            raise LocatedError(shown, 1, 1, f"finding {number} needs string path, rule and message")
        key = row["key"] if isinstance(row.get("key"), str) else row["message"]
        entries.append({"path": row["path"], "rule": row["rule"], "key": key})
    commit = data.get("commit")
    return entries, commit if isinstance(commit, str) and COMMIT.match(commit) else None


def held(entries: list[dict[str, str]], moved: Mapping[str, str] | None = None) -> Counter[Key]:
    """The findings `entries` hold, each path renamed as `moved` says."""
    out: Counter[Key] = Counter()
    for row in entries:
        out[((moved or {}).get(row["path"], row["path"]), row["rule"], row["key"])] += 1
    return out


def new_only(
    results: list[CheckResult], held: Counter[Key], level: str = "warning"
) -> tuple[list[CheckResult], list[Key]]:
    """The results without the findings the baseline holds (each as often as it holds it),
    and the baseline's stale entries: those no current finding matched.

    Findings below `level` are not compared (a baseline does not hold them) and stay.
    """
    left = Counter(held)
    out = []
    for result in results:
        kept = []
        compared = set(map(id, at_least(result.findings, level)))
        for finding in result.findings:
            key = _key(finding)
            if id(finding) in compared and left[key] > 0:
                left[key] -= 1
            else:
                kept.append(finding)
        out.append(CheckResult(result.name, tuple(kept), result.seconds, result.error))
    stale = sorted(key for key, count in left.items() for _ in range(count))
    return out, stale
