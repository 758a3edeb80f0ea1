"""Time budgets for the steps that read contributor data, and for the whole build.

Every step that reads what a pull request holds (a fixture, a schema source,
a page) runs under its own budget, inside the build's: a step past its time
is stopped with an `OutOfTime` that names the file it was reading, and the
caller turns it into a finding at that file. One timer (the main thread's
`SIGALRM`) serves them all: it is set to the nearest deadline of the steps
under way. Where there is no such timer (the server builds in another thread,
a platform without `setitimer`) steps are bounded by size only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

FILE_SECONDS = 20.0
"""Seconds reading and checking one contributed file (a fixture, a schema source) may take;
`ACP_DOCS_FILE_SECONDS` sets another."""
BUILD_SECONDS = 420.0
"""Seconds one build may take in all (the check's build child is stopped at 600);
`ACP_DOCS_BUILD_SECONDS` sets another."""


def seconds(variable: str, default: float) -> float:
    """The budget the environment variable `variable` sets (a positive number), or `default`."""
    try:
        value = float(os.environ.get(variable, ""))
    except ValueError:
        return default
    return value if 0 < value < 86_400 else default


def file_seconds() -> float:
    """The budget of one contributed file."""
    return seconds("ACP_DOCS_FILE_SECONDS", FILE_SECONDS)


def build_seconds() -> float:
    """The budget of a whole build."""
    return seconds("ACP_DOCS_BUILD_SECONDS", BUILD_SECONDS)


class OutOfTime(BaseException):
    """A step ran past its budget; `what` is the step that ran out, `within` the one under way.

    Not an `Exception`, as `KeyboardInterrupt` is not: code that catches every error
    of a step does not catch the end of its time.
    """

    def __init__(self, what: str, seconds: float, within: str) -> None:
        super().__init__(f"{within}: took more than {seconds:g} s")
        self.what = what
        self.seconds = seconds
        self.within = within


@dataclass(eq=False)
class Step:
    """A step under way: what it reads, its deadline and its budget in seconds (each step is
    itself: two with the same fields are still two)."""

    what: str
    deadline: float
    seconds: float
    error: Callable[[OutOfTime], BaseException] | None = None
    """What to raise instead of the `OutOfTime` (MkDocs reports only its own errors)."""


_steps: list[Step] = []


def usable() -> bool:
    """True where a step can be stopped on time (the main thread, with `setitimer`)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _expired(signum: int, frame: Any) -> None:
    if not _steps:
        return
    due = min(_steps, key=lambda s: s.deadline)
    if due.deadline > time.monotonic():
        _arm()  # a wake-up before its time (the timer was set for a step that ended)
        return
    out = OutOfTime(due.what, due.seconds, _steps[-1].what)
    # Until the step ends, it is stopped again every second: should what it runs catch
    # the error, it cannot go on past its time.
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    raise due.error(out) if due.error is not None else out


def _arm() -> None:
    if not _steps:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    left = min(s.deadline for s in _steps) - time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))


def start(
    what: str, seconds: float, error: Callable[[OutOfTime], BaseException] | None = None
) -> Step | None:
    """Start a step reading `what` with `seconds` to run (None where none can be timed)."""
    if not usable():
        return None
    step = Step(what, time.monotonic() + seconds, seconds, error)
    if not _steps:
        signal.signal(signal.SIGALRM, _expired)
    _steps.append(step)
    _arm()
    return step


def stop(step: Step | None) -> None:
    """End `step` (and any step started within it and not ended)."""
    if step is None or step not in _steps:
        return
    del _steps[_steps.index(step) :]
    _arm()


@contextlib.contextmanager
def limited(what: str, budget: float | None = None) -> Iterator[None]:
    """Run the block as a step reading `what`, stopped with `OutOfTime` past `budget` seconds
    (by default, a contributed file's)."""
    step = start(what, file_seconds() if budget is None else budget)
    try:
        yield
    finally:
        stop(step)
