"""`path:line:col: message`, one finding a line, safe to print whatever the input.

A warning or a note says so before its message (`path:1:1: warning: ...`); an
error, the usual finding, does not.
"""

from __future__ import annotations

from acp_docs.core.escaping import printable
from acp_docs.core.findings import Finding
from acp_docs.reporters import Report, Reporter


def line(finding: Finding) -> str:
    """One finding as a line editors and people read."""
    level = "" if finding.fails else f"{finding.level}: "
    return printable(f"{finding.location()}: {level}{finding.message}")


def render(report: Report) -> str:
    """Every finding, sorted, one per line."""
    return "".join(line(f) + "\n" for f in report.in_order())


REPORTER = Reporter(
    summary="`path:line:col: message`, one finding a line (the default)", render=render
)
"""This format, as the `acp_docs.reporters` entry point names it."""
