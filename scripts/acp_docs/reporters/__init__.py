"""Findings formatted for people and machines: what a reporter takes and what it is.

A reporter only formats: it takes a `Report` and returns the text that goes
to standard output. Summaries and progress go to standard error, elsewhere.
Reporters are found by entry point (group `acp_docs.reporters`, see
`acp_docs.reporters.registry`); each entry names a `Reporter`.
"""

from __future__ import annotations

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
    annotate: str = "note"
    """The least level a format that annotates (GitHub) annotates; every level is listed."""


@dataclass(frozen=True)
class Reporter:
    """One output format: what it is for, and how it renders a report.

    A reporter with `cli=False` (the page reporter, which writes findings into
    the served page) is listed by the registry but is no `--format` choice.
    """

    summary: str
    render: Callable[[Report], str] | None = None
    """The report as the text that goes to standard output (required when `cli`)."""
    cli: bool = True
    """True when `--format` takes it."""
