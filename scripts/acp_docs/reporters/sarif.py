"""Findings as SARIF 2.1.0, with one rule per kind of problem, for code-scanning tools.

As in the JSON report, strings keep their real characters and only a lone
surrogate becomes the text `\\udcXX`; a file's URI percent-encodes the bytes
of its name, so a name that is not UTF-8 still names the file.
"""

from __future__ import annotations

import json
from importlib import metadata
from urllib.parse import quote

from acp_docs import __version__
from acp_docs.core.escaping import unicode_data
from acp_docs.reporters import Report, Reporter

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _information_uri() -> str:
    try:
        urls = metadata.metadata("acp-docs").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return ""
    return next((u.split(",", 1)[1].strip() for u in urls if "," in u), "")


def _uri(path: str) -> str:
    return quote(path.encode("utf-8", "surrogateescape"), safe="/")


def render(report: Report) -> str:
    """One SARIF log with a run of `acp-docs`; check errors are execution notifications."""
    findings = report.in_order()
    rule_ids = sorted({unicode_data(f.rule_id) for f in findings})
    index = {rule: i for i, rule in enumerate(rule_ids)}
    rules = [
        {
            "id": rule,
            "name": rule.replace("/", "-"),
            "shortDescription": {"text": f"acp-docs {rule}"},
            "properties": {"check": rule.split("/", 1)[0]},
        }
        for rule in rule_ids
    ]
    results = [
        {
            "ruleId": unicode_data(f.rule_id),
            "ruleIndex": index[unicode_data(f.rule_id)],
            "level": f.level,
            "message": {"text": unicode_data(f.message)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": max(1, f.line), "startColumn": max(1, f.col)},
                    }
                }
            ],
        }
        for f in findings
    ]
    notifications = [
        {"level": "error", "message": {"text": unicode_data(error)}} for error in report.errors
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "acp-docs",
                        "version": __version__,
                        "informationUri": _information_uri(),
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "commandLine": unicode_data(f"acp-docs {report.command}"),
                        "executionSuccessful": not report.errors,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


REPORTER = Reporter(summary="SARIF 2.1.0, for code-scanning tools", render=render)
"""This format, as the `acp_docs.reporters` entry point names it."""
