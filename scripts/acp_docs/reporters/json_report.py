"""Findings as one JSON document, for scripts and editors."""

from __future__ import annotations

import json

from acp_docs.reporters import Report


def render(report: Report) -> str:
    """`{"command", "findings": [...], "checks": [...], "errors": [...]}`."""
    doc = {
        "command": report.command,
        "findings": [
            {
                "path": f.path,
                "line": f.line,
                "col": f.col,
                "check": f.check,
                "rule": f.rule_id,
                "message": f.message,
            }
            for f in sorted(report.findings)
        ],
        "checks": [
            {
                "name": r.name,
                "status": r.status,
                "findings": len(r.findings),
                "seconds": round(r.seconds, 3),
                "error": r.error,
            }
            for r in report.results
        ],
        "errors": list(report.errors),
    }
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"
