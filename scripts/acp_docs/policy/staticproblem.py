"""One reason a static file from `docs/` may not be published, at a place in the file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """Why a file is refused: a 1-based line and column, a message, a `static/...` rule id."""

    line: int
    col: int
    message: str
    rule_id: str
