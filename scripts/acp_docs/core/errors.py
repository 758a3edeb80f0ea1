"""Errors that mean bad usage or unreadable input (exit status 2), never a traceback."""

from __future__ import annotations


class UsageError(Exception):
    """The command cannot run: bad arguments, a missing file, unreadable input.

    The message is shown to the user as it is, so it names the file (and line)
    and says what to do.
    """


class LocatedError(UsageError):
    """A UsageError about one place in a file: `path:line:col: reason`."""

    def __init__(self, path: str, line: int, col: int, reason: str) -> None:
        super().__init__(f"{path}:{line}:{col}: {reason}")
        self.path = path
        self.line = line
        self.col = col
        self.reason = reason
