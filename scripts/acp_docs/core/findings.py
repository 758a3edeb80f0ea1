"""The one type every check reports: a problem at a place in a file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import total_ordering

LEVELS = ("error", "warning", "note")
"""How much a finding matters, most first; only an error fails a check."""


@total_ordering
@dataclass(frozen=True)
class Finding:
    """A problem found by a check, at a 1-based line and column of a file.

    `path` is relative to the repository root, with forward slashes. `rule`
    names the kind of problem (`examples/invalid-payload`); it defaults to the
    check's name. `level` is `error` (fails the check), `warning` or `note`
    (reported, never failing). Findings sort by their own fields: file, line,
    column, then the rest (`report_order` puts causes first).
    """

    path: str
    line: int
    col: int
    check: str
    message: str
    rule: str = ""
    level: str = "error"
    key: str = ""
    """What the problem is, apart from where and how it is said (a link's target, not the
    link as written): what a baseline matches; the message when empty."""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown finding level {self.level!r}: one of {', '.join(LEVELS)}")

    @property
    def identity(self) -> str:
        """The problem itself, for a baseline: `key`, or the message."""
        return self.key or self.message

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

    def sort_key(self) -> tuple[str, int, int, str, str, str, str]:
        """The order of findings: by place, then by check, message, rule and level."""
        return (
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
    cause: bool = False
    """Its findings are causes of findings of other checks (they are read first)."""

    @property
    def status(self) -> str:
        """`ok`, `failed` (an error-level finding) or `error` (could not run)."""
        if self.error is not None:
            return "error"
        return "failed" if any(f.fails for f in self.findings) else "ok"


def report_order(results: Iterable[CheckResult]) -> list[Finding]:
    """Every finding of `results` once: those of causes first, then by place."""
    ranked = {(0 if r.cause else 1, f) for r in results for f in r.findings}
    seen: set[Finding] = set()
    out = []
    for _rank, finding in sorted(ranked):
        if finding not in seen:
            seen.add(finding)
            out.append(finding)
    return out
