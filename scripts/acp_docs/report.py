"""Findings as text lines, as GitHub annotations, and as a summary table."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from acp_docs.findings import Finding


def as_text(finding: Finding) -> str:
    """`path:line:col: message`, the form editors and humans read."""
    return f"{finding.location()}: {finding.message}"


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def as_github(finding: Finding) -> str:
    """A `::error` workflow command, which GitHub shows inline on the pull request."""
    props = ",".join(
        [
            f"file={_escape_property(finding.path)}",
            f"line={finding.line}",
            f"col={finding.col}",
            f"title={_escape_property('acp-docs ' + finding.check)}",
        ]
    )
    return f"::error {props}::{_escape_data(finding.message)}"


def under_github_actions() -> bool:
    """True when running as a GitHub Actions step."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def render(findings: Iterable[Finding], github: bool | None = None) -> list[str]:
    """Every finding as a text line, each followed by its annotation under GitHub Actions."""
    github = under_github_actions() if github is None else github
    lines: list[str] = []
    for finding in sorted(findings):
        lines.append(as_text(finding))
        if github:
            lines.append(as_github(finding))
    return lines


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: its findings, or the reason it could not run."""

    name: str
    findings: tuple[Finding, ...]
    seconds: float
    error: str | None = None

    @property
    def status(self) -> str:
        """`ok`, `failed` (findings) or `error` (could not run)."""
        if self.error is not None:
            return "error"
        return "failed" if self.findings else "ok"


def summary(results: Iterable[CheckResult]) -> list[str]:
    """One line per check: name, status, number of findings, time."""
    rows = list(results)
    width = max((len(r.name) for r in rows), default=5)
    lines = []
    for r in rows:
        detail = r.error if r.error is not None else f"{len(r.findings)} finding(s)"
        lines.append(f"  {r.name:<{width}}  {r.status:<6}  {r.seconds:6.2f}s  {detail}")
    return lines
