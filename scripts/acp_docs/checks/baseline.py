"""`--baseline FILE`: adopt a check on a tree with old problems, and report only new ones.

`--write-baseline FILE` writes every current finding at or above the minimum
level (`--min-level`, warnings by default: notes stay out) to FILE, as its own
explicit act. `--baseline FILE` then leaves out each finding the file holds,
matched by file, rule and message (not by line, so an edit above a known
problem does not bring it back), as many times as the file holds it: a second,
identical finding in the same file is new. An entry that no current finding
matches is stale, and said so. A baseline that does not exist is a usage
error, never a pass: CI that names a wrong or uncommitted path fails.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import LEVELS, CheckResult, Finding
from acp_docs.sources import jsonparse
from acp_docs.sources.textfile import read_text, write_atomic

FORMAT = "acp-docs baseline 1"

Key = tuple[str, str, str]


def _key(finding: Finding) -> Key:
    return (finding.path, finding.rule_id, finding.message)


def at_least(findings: Iterable[Finding], level: str) -> list[Finding]:
    """The findings of `level` or a level that matters more (`LEVELS` lists them, most first)."""
    rank = LEVELS.index(level)
    return [f for f in findings if LEVELS.index(f.level) <= rank]


def write(path: Path, findings: Iterable[Finding], within: Path | None = None) -> int:
    """Write `findings` as the baseline at `path` (not through a linked folder below
    `within`); how many it holds."""
    rows = [
        {"path": f.path, "rule": f.rule_id, "message": f.message, "level": f.level}
        for f in sorted(findings)
    ]
    write_atomic(
        path, json.dumps({"format": FORMAT, "findings": rows}, indent=2) + "\n", within=within
    )
    return len(rows)


def read(path: Path) -> Counter[Key]:
    """The findings a baseline file holds; a LocatedError for a file that is not one."""
    shown = str(path)
    try:
        data = jsonparse.loads(read_text(path, shown))
    except jsonparse.JsonProblem as exc:
        raise LocatedError(shown, exc.line, exc.col, exc.message) from None
    rows = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(rows, list):
        raise LocatedError(shown, 1, 1, f"not a baseline written by acp-docs ({FORMAT!r})")
    held: Counter[Key] = Counter()
    for number, row in enumerate(rows):
        if not isinstance(row, dict) or not all(
            isinstance(row.get(k), str) for k in ("path", "rule", "message")
        ):
            raise LocatedError(shown, 1, 1, f"finding {number} needs string path, rule and message")
        held[(row["path"], row["rule"], row["message"])] += 1
    return held


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
