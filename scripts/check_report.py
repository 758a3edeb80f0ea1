"""`acp-docs check --format json` as a pull request's annotations and job summary.

The pull-request workflow runs the check once, for its JSON report, and hands
the report here: standard output gets what `--format github` prints (each
finding as a text line and an `::error` annotation, through the same
reporter), and the job summary (`$GITHUB_STEP_SUMMARY`, else standard output)
gets a Markdown table of every finding, or "All checks passed".

A pull request chooses its file names and so part of every message: each cell
is escaped so that nothing in it is Markdown or HTML (every ASCII punctuation
character becomes a numeric character reference, a `|` cannot start a cell and
a line break cannot start a row), and the summary stays far below GitHub's
1 MiB limit however many or long the findings are.

    python -P scripts/check_report.py REPORT.json [--status N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import string
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from acp_docs.core.findings import LEVELS, Finding
from acp_docs.reporters import Report, github

MAX_CELL = 500
"""Characters of a cell kept before escaping (an escaped character takes up to 10)."""
MAX_SUMMARY = 200_000
"""Characters of findings and errors listed; the step's log holds every one."""

_ESCAPES = {ord(char): f"&#{ord(char)};" for char in string.punctuation} | {ord("\n"): "<br>"}
_NOT_PLAIN = re.compile(r"[^\x20-\x7e\n]")
"""Characters outside printable ASCII: each is looked up (most text has none)."""


def _unseen(match: re.Match[str]) -> str:
    char = match.group()
    # Control, format (bidi overrides), surrogate, private and unassigned
    # characters are shown as an escape, never passed on.
    if unicodedata.category(char)[0] == "C" or char in "\u2028\u2029\x85":
        return f"\\u{ord(char):04x}"
    return char


def cell(text: object, limit: int = MAX_CELL) -> str:
    """`text` as the inert content of one Markdown table cell."""
    text = str(text)
    if len(text) > limit:
        text = text[:limit] + "\N{HORIZONTAL ELLIPSIS}"
    shown = _NOT_PLAIN.sub(_unseen, text)
    return shown.translate(_ESCAPES).strip()


def findings(doc: dict[str, Any]) -> list[Finding]:
    """The report's findings, as the reporters take them."""
    return [
        Finding(f["path"], f["line"], f["col"], f["check"], f["message"], f["rule"], _level(f))
        for f in doc["findings"]
    ]


def _level(row: dict[str, Any]) -> str:
    level = row.get("level", "error")
    return level if level in LEVELS else "error"


def annotations(doc: dict[str, Any], least: str = "warning") -> str:
    """What `acp-docs check --format github` prints for the same run (notes listed, not
    annotated, unless `least` is `note`)."""
    return github.render(Report(doc.get("command", "check"), findings(doc), annotate=least))


def summary(doc: dict[str, Any] | None, status: int | None = None) -> str:
    """The job summary: a table of the findings, the checks that could not run, or a pass."""
    lines = ["### acp-docs check", ""]
    if doc is None:
        detail = f" (exit status {status})" if status is not None else ""
        lines.append(f"The check stopped before it reported{detail}: read the step's log.")
        return "\n".join(lines) + "\n"
    found = findings(doc)
    failed = [c["name"] for c in doc.get("checks", []) if c.get("status") == "failed"]
    errors = list(doc.get("errors", []))
    if not found and not errors:
        names = ", ".join(cell(c["name"]) for c in doc.get("checks", []))
        lines.append(f"All checks passed: {names}." if names else "All checks passed.")
        return "\n".join(lines) + "\n"
    if found:
        sources = ", ".join(cell(name) for name in failed) or "the checks"
        lines += [
            f"**{len(found)} finding(s)** from {sources}:",
            "",
            "| Where | Rule | Message |",
            "| --- | --- | --- |",
        ]
        rows = (
            f"| {cell(f.location())} | {cell(f.rule_id)} | {cell(f.message)} |"
            for f in sorted(found)
        )
        lines += _within_budget(rows, len(found), "finding(s)")
        _shown, left = github.annotated(sorted(found), "warning")
        if left:
            said = " and ".join(f"{n} {github.NOUNS[level]}" for level, n in left.items())
            lines += [
                "",
                f"{said} past the first {github.PER_LEVEL} of their level are not annotated on"
                " the diff (GitHub shows that many a step): this table lists every finding.",
            ]
    if errors:
        lines += ["", "**Could not run:**", ""]
        lines += _within_budget((f"- {cell(e)}" for e in errors), len(errors), "error(s)")
    return "\n".join(lines) + "\n"


def _within_budget(rows: Iterator[str], total: int, what: str) -> list[str]:
    """The first of `total` rows that fit in `MAX_SUMMARY` characters, and how many did not.

    Rows are made one at a time, so those past the budget are never made.
    """
    kept, size = [], 0
    for row in rows:
        size += len(row) + 1
        if size > MAX_SUMMARY:
            break
        kept.append(row)
    if len(kept) < total:
        kept += ["", f"{total - len(kept)} more {what}: the step's log lists every one."]
    return kept


def load(path: Path) -> dict[str, Any] | None:
    """The JSON report, or None when the check wrote none (it stopped early)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("findings"), list) else None


def main(argv: Sequence[str] | None = None) -> int:
    """Print the annotations, write the summary.

    1 when there is no report to read and `--status` does not already say the
    check failed: a check that reported nothing never passes.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="what `acp-docs check --format json` printed")
    parser.add_argument("--status", type=int, help="its exit status, for the summary")
    parser.add_argument(
        "--min-level",
        choices=LEVELS,
        default="warning",
        help="the least level annotated (default: warning; notes are listed, not annotated)",
    )
    args = parser.parse_args(argv)
    doc = load(args.report)
    if doc is not None:
        sys.stdout.write(annotations(doc, args.min_level))
    text = summary(doc, args.status)
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0 if doc is not None or args.status not in (None, 0) else 1


if __name__ == "__main__":
    sys.exit(main())
