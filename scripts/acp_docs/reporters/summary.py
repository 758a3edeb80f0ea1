"""A job summary in Markdown: `--format summary`, and what `acp-docs report` writes for CI.

A table of every finding of the report's level or above (`--min-level`),
errors first, with a level column; the checks that could not run; or "All
checks passed". A pull request chooses its file names and so part of every message:
each cell is escaped so that nothing in it is Markdown or HTML (every ASCII
punctuation character becomes a numeric character reference, a `|` cannot
start a cell and a line break cannot start a row), and the summary stays far
below GitHub's 1 MiB limit however many or long the findings are.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterable, Iterator

from acp_docs.reporters import Report, Reporter, github

TITLE = "### acp-docs check"

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


def stopped(status: int | None) -> str:
    """The job summary of a check that stopped before it reported."""
    detail = f" (exit status {status})" if status is not None else ""
    return f"{TITLE}\n\nThe check stopped before it reported{detail}: read the step's log.\n"


def render(report: Report) -> str:
    """The job summary: a table of the findings, the checks that could not run, or a pass."""
    lines = [TITLE, ""]
    found = report.for_people()
    found_by = [r.name for r in report.results if r.findings]
    errors = list(report.errors)
    if not found and not errors:
        names = _names(r.name for r in report.results)
        lines.append(f"All checks passed: {names}." if names else "All checks passed.")
        return "\n".join(lines) + "\n"
    if found:
        sources = _names(found_by) or "the checks"
        lines += [
            f"**{len(found)} finding(s)** from {sources}:",
            "",
            "| Level | Where | Rule | Message |",
            "| --- | --- | --- | --- |",
        ]
        rows = (
            f"| {f.level} | {cell(f.location())} | {cell(f.rule_id)} | {cell(f.message)} |"
            for f in found
        )
        lines += _within_budget(rows, len(found), "finding(s)")
        _shown, left = github.annotated(found, "warning")
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


MAX_NAMES = 40
"""Check names listed in a sentence at most (each cut to a cell's worth by `cell`)."""


def _names(names: Iterable[str]) -> str:
    """The checks' names, escaped, the first `MAX_NAMES` of them, with how many more."""
    listed = list(names)
    shown = ", ".join(cell(name, 80) for name in listed[:MAX_NAMES])
    more = len(listed) - MAX_NAMES
    return f"{shown} and {more} more" if more > 0 else shown


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


REPORTER = Reporter(
    summary="a Markdown summary of every finding, for a CI job's summary page",
    render=render,
)
"""This format, as the `acp_docs.reporters` entry point names it."""
