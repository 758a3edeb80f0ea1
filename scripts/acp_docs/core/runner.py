"""External tools (MkDocs, pyspelling with Aspell, Prettier, Node) run with a timeout.

A tool that is missing, hangs or dies becomes a `ToolFailure` that says what
went wrong and how to fix it; the check that ran it reports that as its error
and the other checks go on. Output is decoded leniently and stripped of
colour codes, so no tool's bytes can crash the caller.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_docs.core.errors import UsageError
from acp_docs.core.escaping import strip_ansi

DEFAULT_TIMEOUT = 300.0
PLAIN_ENV = {
    "NO_COLOR": "1",
    "FORCE_COLOR": "0",
    "NO_MKDOCS_2_WARNING": "1",
}


class ToolFailure(UsageError):
    """A tool could not do its job: missing, timed out, or crashed."""

    def __init__(self, tool: str, reason: str, fix: str) -> None:
        super().__init__(f"{tool}: {reason}; {fix}")
        self.tool = tool
        self.reason = reason
        self.fix = fix


@dataclass(frozen=True)
class Completed:
    """A tool that ran to the end: its exit status and decoded output."""

    returncode: int
    stdout: str
    stderr: str


def require(executable: str, tool: str, fix: str) -> str:
    """The full path of `executable`, or a ToolFailure saying how to install it."""
    if os.sep in executable:
        if Path(executable).is_file() and os.access(executable, os.X_OK):
            return executable
        found = None
    else:
        found = shutil.which(executable)
    if found is None:
        raise ToolFailure(tool, f"`{Path(executable).name}` is not installed", fix)
    return found


def run(
    tool: str,
    argv: Sequence[str],
    *,
    cwd: Path,
    fix: str,
    timeout: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    ok: Sequence[int] = (0,),
) -> Completed:
    """Run one tool and wait at most `timeout` seconds; exit codes outside `ok` fail.

    The tool runs in its own process group, so a timeout ends its children too.
    """
    full_env = {**os.environ, **PLAIN_ENV, **(env or {})}
    try:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise ToolFailure(tool, f"`{argv[0]}` is not installed", fix) from None
    except OSError as exc:
        raise ToolFailure(tool, f"cannot start `{argv[0]}`: {exc.strerror}", fix) from None
    try:
        out, err = process.communicate(
            stdin.encode("utf-8") if stdin is not None else None, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        _kill(process)
        raise ToolFailure(
            tool, f"did not finish within {timeout:g} s and was stopped", fix
        ) from None
    stdout = strip_ansi(out.decode("utf-8", errors="replace"))
    stderr = strip_ansi(err.decode("utf-8", errors="replace"))
    if process.returncode not in ok:
        tail = " ".join((stderr or stdout).strip().splitlines()[-3:])
        if process.returncode < 0:
            reason = f"was killed by signal {-process.returncode}"
        else:
            reason = f"failed with exit status {process.returncode}"
        raise ToolFailure(tool, f"{reason}{': ' + tail if tail else ''}", fix)
    return Completed(process.returncode, stdout, stderr)


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
    process.communicate()
