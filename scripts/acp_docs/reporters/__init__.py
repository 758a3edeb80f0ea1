"""Findings formatted for people and machines: what a reporter takes and what it is.

A reporter only formats: it takes a `Report` and returns the text that goes
to standard output. Summaries and progress go to standard error, elsewhere.
Reporters are found by entry point (group `acp_docs.reporters`, see
`acp_docs.reporters.registry`); each entry names a `Reporter`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from acp_docs.core.findings import LEVELS, CheckResult, Finding


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
    verdict: Mapping[str, Any] | None = None
    """The verdict of a command that gives one (`conform`), for the formats that carry it."""

    def in_order(self) -> list[Finding]:
        """The findings as every format lists them: those of checks that are causes
        (`CheckResult.cause`) first, then by place."""
        causes = {r.name for r in self.results if r.cause}
        return sorted(set(self.findings), key=lambda f: (f.check not in causes, f.sort_key()))

    def for_people(self) -> list[Finding]:
        """The findings a person reads (the terminal, a job summary): those of the `annotate`
        level or above, errors first, then warnings, then notes, each in `in_order`."""
        rank = LEVELS.index(self.annotate)
        shown = [f for f in self.in_order() if LEVELS.index(f.level) <= rank]
        return sorted(shown, key=lambda f: LEVELS.index(f.level))

    @property
    def hidden(self) -> int:
        """How many findings are below the `annotate` level (left out of `for_people`)."""
        rank = LEVELS.index(self.annotate)
        return sum(1 for f in set(self.findings) if LEVELS.index(f.level) > rank)


Annotate = Callable[
    [str, str, Sequence[Finding], Sequence[Finding], Mapping[str, str], Mapping[str, Any]], str
]
"""(content, source, the page's findings, the others', page URLs, the build's checks by name)
-> the page's HTML."""


@dataclass(frozen=True)
class Reporter:
    """One output format: what it is for, and how it renders a report.

    A reporter with `cli=False` (the page reporter, which writes findings into
    the served page through `annotate`) is listed by the registry but is no
    `--format` choice.
    """

    summary: str
    render: Callable[[Report], str] | None = None
    """The report as the text that goes to standard output (required when `cli`)."""
    cli: bool = True
    """True when `--format` takes it."""
    annotate: Annotate | None = None
    """While serving, the page's HTML with its findings written in: (content, source,
    the page's findings, the other pages' failing ones, each page's URL by path, the
    build's checks by name) -> HTML."""
