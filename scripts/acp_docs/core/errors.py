"""Errors that mean bad usage or unreadable input (exit status 2), never a traceback."""

from __future__ import annotations

from typing import overload


class UsageError(Exception):
    """The command cannot run: bad arguments, a missing file, unreadable input.

    The message is shown to the user as it is, so it names the file (and line)
    and says what to do.
    """


class LocatedError(UsageError):
    """A UsageError about one place in a file, shown as `path:line:col: message`.

    The column is left out when it is not known (`path:line: message`), and the
    line too when the error is about the file as a whole (`path: message`); the
    `line` attribute is then 1, where a finding about the file would stand.
    Every error that says where it happened is one of these, so all say it alike.
    """

    @overload
    def __init__(self, path: str, line: int | None, col: str) -> None: ...

    @overload
    def __init__(self, path: str, line: int | None, col: int | None, reason: str) -> None: ...

    def __init__(
        self, path: str, line: int | None, col: int | str | None, reason: str | None = None
    ) -> None:
        if reason is None:  # the three-argument form: path, line, message
            reason = str(col)
        column = col if isinstance(col, int) else None
        where = path
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.line = line if line is not None else 1
        self.col = column if column is not None else 1
        self.reason = reason

    @property
    def message(self) -> str:
        """What is wrong, without the place."""
        return self.reason
