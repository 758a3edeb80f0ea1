"""`acp-docs report FILE`: a saved `--format json` report, shown again through the reporters.

The pull-request workflow runs `acp-docs check --format json` once and hands
the report here. By default standard output gets what `--format github`
prints (each finding as a text line and an annotation) and the job summary
(`$GITHUB_STEP_SUMMARY`, else standard output) gets `--format summary`; with
`--format NAME`, standard output gets that format alone. A report that is
empty or cannot be read never passes: the summary says the check stopped, and
the exit status is 1 unless `--status` already says the check failed; a FILE
that does not exist is a usage error (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp_docs.core.errors import UsageError
from acp_docs.core.findings import LEVELS, CheckResult, Finding
from acp_docs.reporters import Report, registry, summary

MAX_REPORT = 50 * 1024 * 1024
"""Bytes of a report read at most."""


def _level(row: dict[str, Any]) -> str:
    level = row.get("level", "error")
    return level if level in LEVELS else "error"


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def from_json(doc: dict[str, Any]) -> Report:
    """The report a `--format json` document holds."""
    findings = [
        Finding(
            _text(f.get("path", "")),
            int(f.get("line", 1)),
            int(f.get("col", 1)),
            _text(f.get("check", "")),
            _text(f.get("message", "")),
            _text(f.get("rule", "")),
            _level(f),
        )
        for f in doc["findings"]
        if isinstance(f, dict)
    ]
    by_check: dict[str, list[Finding]] = {}
    for finding in findings:
        by_check.setdefault(finding.check, []).append(finding)
    results = []
    for row in doc.get("checks", []):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            continue
        name, error = row["name"], row.get("error")
        mine = tuple(by_check.get(name, ()))
        seconds = row.get("seconds", 0.0)
        results.append(
            CheckResult(
                name,
                mine,
                float(seconds) if isinstance(seconds, int | float) else 0.0,
                None if error is None else _text(error),
            )
        )
    errors = [_text(e) for e in doc.get("errors", [])]
    return Report(_text(doc.get("command", "check")), findings, results, errors)


def load(path: Path) -> Report | None:
    """The report at `path`, or None when the check wrote none (it stopped early) or what is
    there is no report. Only a regular file is read (a FIFO is never waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_REPORT + 1)
        except OSError:
            return None
    try:
        doc = json.loads(data.decode("utf-8")) if len(data) <= MAX_REPORT else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("findings"), list):
        return None
    try:
        return from_json(doc)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return None


def cmd_report(args: argparse.Namespace) -> int:
    """Show a saved report as annotations and a job summary (or in one `--format`)."""
    if not args.report.exists():
        raise UsageError(f"{args.report}: no such file (what `acp-docs check --format json` wrote)")
    report = load(args.report)
    if args.format is not None:
        if report is None:
            sys.stdout.write(summary.stopped(args.status))
            return 0 if args.status not in (None, 0) else 1
        sys.stdout.write(registry.render(replace(report, annotate=args.min_level), args.format))
        return 0
    if report is not None:
        shown = replace(report, annotate=args.min_level)
        sys.stdout.write(registry.render(shown, "github"))
    text = summary.render(report) if report is not None else summary.stopped(args.status)
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0 if report is not None or args.status not in (None, 0) else 1


def add_parser(command: Any) -> None:
    """The `report` subcommand's arguments."""
    report = command(
        "report",
        cmd_report,
        "show a saved `acp-docs check --format json` report as annotations and a job summary",
    )
    report.add_argument("report", type=Path, help="what `acp-docs check --format json` printed")
    report.add_argument("--status", type=int, help="its exit status, for the summary")
    report.add_argument(
        "--format",
        choices=registry.formats(),
        help="print the report in this format only (default: github annotations, and the"
        " summary to $GITHUB_STEP_SUMMARY)",
    )
    report.add_argument(
        "--min-level",
        choices=LEVELS,
        default="warning",
        help="the least level annotated and listed in the summary (default: warning; notes"
        " stay in the JSON report)",
    )
