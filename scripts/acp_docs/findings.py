"""The one type every check reports: a problem at a place in a file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """A problem found by a check, at a 1-based line and column of a file.

    `path` is relative to the repository root, with forward slashes.
    """

    path: str
    line: int
    col: int
    check: str
    message: str

    def location(self) -> str:
        """The `path:line:col` prefix of the finding."""
        return f"{self.path}:{self.line}:{self.col}"
