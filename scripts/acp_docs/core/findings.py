"""The one type every check reports: a problem at a place in a file."""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering
from typing import Any

_first: tuple[str, ...] | None = None


def first_checks() -> tuple[str, ...]:
    """The checks whose findings sort before every other (`Check.first`).

    A file left out of the build or a schema source that cannot be used causes
    findings elsewhere, so the cause is read first. The check registry says
    which checks they are as it loads them; before that, they are read from the
    `acp_docs.checks` entry points (this layer imports no check).
    """
    global _first
    if _first is None:
        from acp_docs.core import plugins

        checks = plugins.load_group("acp_docs.checks", object)
        ranked = sorted(checks.items(), key=lambda item: (getattr(item[1], "order", 0), item[0]))
        _first = tuple(name for name, check in ranked if getattr(check, "first", False))
    return _first


def set_first_checks(names: tuple[str, ...]) -> None:
    """Say which checks are causes (the check registry, as it loads the checks)."""
    global _first
    _first = tuple(names)


LEVELS = ("error", "warning", "note")
"""How much a finding matters, most first; only an error fails a check."""


@total_ordering
@dataclass(frozen=True)
class Finding:
    """A problem found by a check, at a 1-based line and column of a file.

    `path` is relative to the repository root, with forward slashes. `rule`
    names the kind of problem (`examples/invalid-payload`); it defaults to the
    check's name. `level` is `error` (fails the check), `warning` or `note`
    (reported, never failing). Findings sort by file and line, the checks of
    `first_checks()` first.
    """

    path: str
    line: int
    col: int
    check: str
    message: str
    rule: str = ""
    level: str = "error"

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown finding level {self.level!r}: one of {', '.join(LEVELS)}")

    @property
    def fails(self) -> bool:
        """True for an error: a finding that fails its check and the command."""
        return self.level == "error"

    @property
    def rule_id(self) -> str:
        """The kind of problem, as SARIF and the JSON report name it."""
        return self.rule or self.check

    def location(self) -> str:
        """The `path:line:col` prefix of the finding."""
        return f"{self.path}:{self.line}:{self.col}"

    def sort_key(self) -> tuple[Any, ...]:
        """The order findings are reported in: causes (`first_checks()`) first, then by place."""
        first = first_checks()
        rank = first.index(self.check) if self.check in first else len(first)
        return (
            rank,
            self.path,
            self.line,
            self.col,
            self.check,
            self.message,
            self.rule,
            self.level,
        )

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return self.sort_key() < other.sort_key()


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: its findings, or the reason it could not run."""

    name: str
    findings: tuple[Finding, ...]
    seconds: float
    error: str | None = None

    @property
    def status(self) -> str:
        """`ok`, `failed` (an error-level finding) or `error` (could not run)."""
        if self.error is not None:
            return "error"
        return "failed" if any(f.fails for f in self.findings) else "ok"
