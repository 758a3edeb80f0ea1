"""The one type every check reports: a problem at a place in a file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """A problem found by a check, at a 1-based line and column of a file.

    `path` is relative to the repository root, with forward slashes. `rule`
    names the kind of problem (`examples/invalid-payload`); it defaults to the
    check's name.
    """

    path: str
    line: int
    col: int
    check: str
    message: str
    rule: str = ""

    @property
    def rule_id(self) -> str:
        """The kind of problem, as SARIF and the JSON report name it."""
        return self.rule or self.check

    def location(self) -> str:
        """The `path:line:col` prefix of the finding."""
        return f"{self.path}:{self.line}:{self.col}"


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
