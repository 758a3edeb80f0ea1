"""Text lines, each followed by a GitHub Actions `::error` (`::warning`, `::notice`) command.

Every value is first made visible (control, bidirectional and invisible
format characters as escapes, see `acp_docs.core.escaping.visible`), so what a
reviewer reads on the diff is in the order of its characters, then escaped
the way the runner unescapes it, so a file name or a message cannot end the
command early or start another one. A message's own line breaks stay line
breaks of the annotation (`%0A`); a file name or title is always one line.
"""

from __future__ import annotations

from dataclasses import replace

from acp_docs.core.escaping import visible
from acp_docs.core.findings import LEVELS, Finding
from acp_docs.reporters import Report, Reporter, text


def escape_data(value: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A workflow command's property value: also `:` and `,`."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}
"""The workflow command of each finding level."""


def annotation(finding: Finding) -> str:
    """The `::error` (`::warning`, `::notice`) command GitHub shows on the pull request's diff."""
    message = "\n".join(visible(part) for part in finding.message.split("\n"))
    props = ",".join(
        [
            f"file={escape_property(visible(finding.path))}",
            f"line={finding.line}",
            f"col={finding.col}",
            f"title={escape_property(visible('acp-docs ' + finding.rule_id))}",
        ]
    )
    return f"::{COMMANDS[finding.level]} {props}::{escape_data(message)}"


PER_LEVEL = 10
"""Annotations GitHub shows of one level in one step; it drops the rest without a word."""
NOUNS = {"error": "errors", "warning": "warnings", "note": "notes"}


def annotated(findings: list[Finding], least: str = "note") -> tuple[set[int], dict[str, int]]:
    """Which findings (by position in `findings`, in report order: causes first) are
    annotated, and how many of each level are left out past `PER_LEVEL`."""
    rank = LEVELS.index(least)
    shown: set[int] = set()
    counts: dict[str, int] = {}
    left: dict[str, int] = {}
    for index, finding in enumerate(findings):
        if LEVELS.index(finding.level) > rank:
            continue
        counts[finding.level] = counts.get(finding.level, 0) + 1
        if counts[finding.level] <= PER_LEVEL:
            shown.add(index)
        else:
            left[finding.level] = left.get(finding.level, 0) + 1
    return shown, left


def render(report: Report) -> str:
    """Each finding as a text line, and the first `PER_LEVEL` of each level from
    `report.annotate` up as annotations; the last annotation of a level says how many more
    there are (the job summary lists them all)."""
    ordered = report.in_order()
    shown, left = annotated(ordered, report.annotate)
    last = {ordered[i].level: i for i in sorted(shown)}
    out = []
    for index, finding in enumerate(ordered):
        out.append(text.line(finding))
        if index not in shown:
            continue
        more = left.get(finding.level, 0)
        if more and last[finding.level] == index:
            noun = NOUNS[finding.level]
            finding = replace(
                finding,
                message=f"{finding.message}\n(and {more} more {noun} not annotated: GitHub shows"
                f" {PER_LEVEL} {noun} a step; the job summary and the log list every one)",
            )
        out.append(annotation(finding))
    return "".join(line + "\n" for line in out)


REPORTER = Reporter(
    summary="text lines, each with a GitHub Actions `::error` annotation (default under Actions)",
    render=render,
)
"""This format, as the `acp_docs.reporters` entry point names it."""
