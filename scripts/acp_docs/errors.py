"""Errors that mean bad usage or unreadable input (exit status 2), never a traceback."""

from __future__ import annotations


class UsageError(Exception):
    """The command cannot run: bad arguments, a missing file, unreadable input.

    The message is shown to the user as it is, so it names the file (and line)
    and says what to do.
    """
