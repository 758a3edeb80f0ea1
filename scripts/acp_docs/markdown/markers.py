"""`<!-- acp-docs:name args -->` markers: the one pattern every reader of a page uses.

A marker is an HTML comment alone on its line (at most three spaces of indent)
whose name is lower-case letters and hyphens. The plugin expands it, the RFD
lint lets it pass where raw HTML is refused, and the export drops or converts
it; all three read it with `MARKER`, so they cannot disagree on what a marker is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

MARKER = re.compile(
    r"^[ ]{0,3}<!--[ \t]*acp-docs:(?P<name>[a-z](?:[a-z-]{0,38}[a-z])?)(?P<rest>[^\n]*)$", re.M
)
"""A marker line; `rest` holds the arguments and the closing `-->` (when there is one)."""

_CLOSE = re.compile(r"[ \t]*-->[ \t]*$")


@dataclass(frozen=True)
class Marker:
    """One marker: its name, its arguments, whether it closes on its line, and where it is."""

    name: str
    args: str
    closed: bool
    start: int
    end: int


def parse(match: re.Match[str]) -> Marker:
    """The marker a match of `MARKER` found."""
    rest = match.group("rest")
    close = _CLOSE.search(rest)
    args = rest[: close.start()] if close else rest
    return Marker(match.group("name"), args.strip(), close is not None, match.start(), match.end())


def match_line(line: str) -> Marker | None:
    """The marker that `line` (one line, no newline) is, or None."""
    found = MARKER.match(line)
    return parse(found) if found else None


def markers(text: str) -> Iterator[Marker]:
    """Every marker line of `text`, in order."""
    for found in MARKER.finditer(text):
        yield parse(found)
