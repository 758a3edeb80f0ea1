"""Findings as one JSON document, for scripts and editors.

Strings are data: every real character is kept as it is (a bidirectional
override in a file name stays one), only a lone surrogate (a byte of a name
that is not UTF-8) becomes the text `\\udcXX`, so the document is valid JSON
of valid Unicode that any parser reads.
"""

from __future__ import annotations

import json

from acp_docs.core.escaping import unicode_data
from acp_docs.reporters import Report, Reporter


def render(report: Report) -> str:
    """`{"command", "findings": [...], "checks": [...], "errors": [...]}`, and `"verdict"` for
    a command that gives one."""
    doc: dict[str, object] = {
        "command": unicode_data(report.command),
        "findings": [
            {
                "path": unicode_data(f.path),
                "line": f.line,
                "col": f.col,
                "check": unicode_data(f.check),
                "rule": unicode_data(f.rule_id),
                "level": f.level,
                "message": unicode_data(f.message),
            }
            for f in report.in_order()
        ],
        "checks": [
            {
                "name": unicode_data(r.name),
                "status": r.status,
                "findings": len(r.findings),
                "seconds": round(r.seconds, 3),
                "error": None if r.error is None else unicode_data(r.error),
            }
            for r in report.results
        ],
        "errors": [unicode_data(error) for error in report.errors],
    }
    if report.verdict is not None:
        doc["verdict"] = dict(report.verdict)
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


REPORTER = Reporter(
    summary="one JSON document of findings, check results and errors, for scripts and editors",
    render=render,
)
"""This format, as the `acp_docs.reporters` entry point names it."""
