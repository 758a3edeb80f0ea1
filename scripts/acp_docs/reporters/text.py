"""`path:line:col: message`, one finding a line, safe to print whatever the input."""

from __future__ import annotations

import re

from acp_docs.findings import Finding
from acp_docs.reporters import Report

_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def printable(text: str) -> str:
    """`text` on one line: control characters escaped, undecodable bytes shown as escapes."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def line(finding: Finding) -> str:
    """One finding as a line editors and people read."""
    return printable(f"{finding.location()}: {finding.message}")


def render(report: Report) -> str:
    """Every finding, sorted, one per line."""
    return "".join(line(f) + "\n" for f in sorted(report.findings))
