"""Offsets in a text as 1-based lines and columns: the one place that counts lines."""

from __future__ import annotations

import bisect
import re


class LineIndex:
    """Where each line of a text starts, so an offset becomes a line and column in log time."""

    def __init__(self, text: str) -> None:
        self._starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def at(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of `offset`."""
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1

    def line(self, offset: int) -> int:
        """The 1-based line of `offset`."""
        return bisect.bisect_right(self._starts, offset)

    def start(self, line: int) -> int:
        """The offset where 1-based `line` starts (the end of the text past the last line)."""
        if line <= len(self._starts):
            return self._starts[max(line, 1) - 1]
        return self._starts[-1]
