"""`--baseline FILE`: adopt a check on a tree with old problems, and report only new ones.

The first run writes every current finding to FILE; later runs leave out each
finding the file holds, matched by file, rule and message (not by line, so an
edit above a known problem does not bring it back), as many times as the file
holds it. Commit FILE; delete it (or a line of it) to see the old problems again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.sources import jsonparse
from acp_docs.sources.textfile import read_text, write_atomic

FORMAT = "acp-docs baseline 1"

Key = tuple[str, str, str]


def _key(finding: Finding) -> Key:
    return (finding.path, finding.rule_id, finding.message)


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


def new_only(results: list[CheckResult], held: Counter[Key]) -> list[CheckResult]:
    """The results without the findings the baseline holds (each as often as it holds it)."""
    left = Counter(held)
    out = []
    for result in results:
        kept = []
        for finding in result.findings:
            key = _key(finding)
            if left[key] > 0:
                left[key] -= 1
            else:
                kept.append(finding)
        out.append(CheckResult(result.name, tuple(kept), result.seconds, result.error))
    return out
