"""`path:line:col: level: message [rule]`, one finding a line, safe to print whatever the input.

Every line says its level (`error`, `warning`, `note`) before its message, as
compilers do, and names its rule after it, so a line can be looked up and
baselined. Errors come first, then warnings, then notes; findings below the
report's level (`--min-level` of `acp-docs check`: warnings and errors by
default) are left out, and the command says how many.
"""

from __future__ import annotations

from acp_docs.core.escaping import printable
from acp_docs.core.findings import Finding
from acp_docs.reporters import Report, Reporter


def line(finding: Finding) -> str:
    """One finding as a line editors and people read."""
    return printable(
        f"{finding.location()}: {finding.level}: {finding.message} [{finding.rule_id}]"
    )


def render(report: Report) -> str:
    """Every finding of the report's level or above, errors first, one per line."""
    return "".join(line(f) + "\n" for f in report.for_people())


REPORTER = Reporter(
    summary="`path:line:col: level: message [rule]`, one finding a line (the default)",
    render=render,
)
"""This format, as the `acp_docs.reporters` entry point names it."""
