"""Findings formatted for people and machines: one registry of reporters.

A reporter only formats: it takes a `Report` and returns the text that goes
to standard output. Summaries and progress go to standard error, elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from acp_docs.core.findings import CheckResult, Finding


@dataclass(frozen=True)
class Report:
    """What a command found: its findings, and per check results when it ran several."""

    command: str
    findings: Sequence[Finding]
    results: Sequence[CheckResult] = field(default_factory=tuple)
    errors: Sequence[str] = field(default_factory=tuple)
    """Why a check or the command could not run (exit status 2)."""


def _registry() -> dict[str, Callable[[Report], str]]:
    from acp_docs.reporters import github, json_report, sarif, text

    return {
        "text": text.render,
        "github": github.render,
        "json": json_report.render,
        "sarif": sarif.render,
    }


FORMATS: tuple[str, ...] = ("text", "github", "json", "sarif")
"""Every output format, as `--format` takes it."""


def under_github_actions() -> bool:
    """True when running as a GitHub Actions step."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def default_format() -> str:
    """`github` (text plus annotations) under GitHub Actions, else `text`."""
    return "github" if under_github_actions() else "text"


def render(report: Report, fmt: str | None = None) -> str:
    """The report in format `fmt` (default: `default_format()`), ready for stdout."""
    return _registry()[fmt or default_format()](report)
