"""External tools (MkDocs, pyspelling with Aspell, Prettier, Node) run with a timeout.

A tool that is missing, hangs or dies becomes a `ToolFailure` that says what
went wrong and how to fix it; the check that ran it reports that as its error
and the other checks go on. Output is decoded leniently and stripped of
colour codes, so no tool's bytes can crash the caller.

One of our own modules (the site build) runs in a child process the same way
(`start_module`): forked from this process when it runs a single thread, so the
child starts with what this process has already imported, or else as a new
interpreter.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
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
    deadline = time.monotonic() + timeout
    process = _spawn(tool, argv, cwd=cwd, fix=fix, env=env, piped_stdin=stdin is not None)
    data = stdin.encode("utf-8") if stdin is not None else None
    return _finish_spawned(process, tool, fix, deadline, timeout, ok, data)


def import_path_outside(folder: Path, entries: Sequence[str]) -> list[str]:
    """The import path `entries` less `folder` itself and every relative entry.

    A process run in `folder` reads an empty or relative entry as a folder of
    it: of a checkout, when it runs in one. (The engine's own folders may lie
    in the checkout it checks, this repository's own: they stay.)
    """
    here = folder.resolve()
    return [p for p in entries if os.path.isabs(p) and Path(p).resolve() != here]


def python_module(module: str, *args: str) -> list[str]:
    """The command of a new interpreter running `module` with `args`.

    It starts with `-P`: the folder it runs in is never on its import path, so a
    `json.py` at the root of a checkout is never imported in place of the real one.
    """
    return [sys.executable, "-P", "-m", module, *args]


def start_worker(
    tool: str,
    module: str,
    args: Sequence[str],
    *,
    cwd: Path,
    fix: str,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """A long-lived `python_module(module, *args)` in its own process group, fed on its
    standard input and read on its standard output (what it says on standard error is
    dropped). Its caller talks to it, and stops it with its group."""
    argv = python_module(module, *args)
    return _spawn(tool, argv, cwd=cwd, fix=fix, env=env, piped_stdin=True, stderr=False)


def start_conversation(
    tool: str, argv: Sequence[str], *, cwd: Path, fix: str, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A program the caller talks to on its standard input and output (an ACP Agent), in
    its own process group, its standard error piped too. End it with `end_conversation`."""
    return _spawn(tool, argv, cwd=cwd, fix=fix, env=env, piped_stdin=True)


def end_conversation(process: subprocess.Popen[bytes], grace: float) -> str:
    """End a program started by `start_conversation`, and everything it started: its input
    closed, then, after `grace` seconds each, SIGTERM and SIGKILL to its process group.
    Says how it ended: `exited with status N`, `ended by SIGTERM`, or `killed`.

    The group is killed once the program has exited, too, so nothing it left behind
    keeps running. Its output pipes are the caller's to drain and close.
    """
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    how = None
    try:
        process.wait(grace)
        how = f"exited with status {process.returncode}"
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(grace)
            how = "ended by SIGTERM after its input was closed"
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            process.wait()
            how = "killed (SIGKILL): it ignored its closed input and SIGTERM"
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        _LIVE.discard(process.pid)
    return how


def start_module(
    tool: str,
    module: str,
    args: Sequence[str],
    *,
    cwd: Path,
    fix: str,
    timeout: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    ok: Sequence[int] = (0,),
) -> Callable[[], Completed]:
    """Start `module.main(args)` in a child process; the returned call waits for it like `run`.

    The child is forked when this process runs one thread (forking beside other
    threads could copy a lock one of them holds) and can fork: it then starts
    with every module already imported here, its import path without the
    checkout, as `-P` gives a new interpreter. Otherwise a new interpreter
    (`python -P -m acp_docs.core.runner module args`) calls it. Either way a
    `SystemExit` is its status and an exception its traceback on standard
    error. The timeout counts from the start.
    """
    deadline = time.monotonic() + timeout
    if hasattr(os, "fork") and threading.active_count() == 1:
        try:
            pid, out_fd, err_fd = _fork_module(module, args, cwd, env or {})
        except OSError as exc:
            raise ToolFailure(tool, f"cannot start: {exc.strerror}", fix) from None
        return lambda: _finish_forked(pid, out_fd, err_fd, tool, fix, deadline, timeout, ok)
    argv = python_module(__name__, module, *args)
    process = _spawn(tool, argv, cwd=cwd, fix=fix, env=env)
    return lambda: _finish_spawned(process, tool, fix, deadline, timeout, ok, None)


def _spawn(
    tool: str,
    argv: Sequence[str],
    *,
    cwd: Path,
    fix: str,
    env: Mapping[str, str] | None,
    piped_stdin: bool = False,
    stderr: bool = True,
) -> subprocess.Popen[bytes]:
    full_env = {**os.environ, **PLAIN_ENV, **(env or {})}
    if "PYTHONPATH" in full_env:
        entries = full_env["PYTHONPATH"].split(os.pathsep)
        full_env["PYTHONPATH"] = os.pathsep.join(import_path_outside(cwd, entries))
    try:
        with _registering():
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=full_env,
                stdin=subprocess.PIPE if piped_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
                start_new_session=True,
            )
            _LIVE.add(process.pid)
        return process
    except FileNotFoundError:
        raise ToolFailure(tool, f"`{argv[0]}` is not installed", fix) from None
    except OSError as exc:
        raise ToolFailure(tool, f"cannot start `{argv[0]}`: {exc.strerror}", fix) from None


def _finish_spawned(
    process: subprocess.Popen[bytes],
    tool: str,
    fix: str,
    deadline: float,
    timeout: float,
    ok: Sequence[int],
    stdin: bytes | None,
) -> Completed:
    try:
        out, err = process.communicate(stdin, timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        process.communicate()  # reaps it, and the pipes reach their end
        raise _timed_out(tool, fix, timeout) from None
    finally:
        _LIVE.discard(process.pid)
    return _completed(tool, fix, process.returncode, out, err, ok)


def _timed_out(tool: str, fix: str, timeout: float) -> ToolFailure:
    return ToolFailure(tool, f"did not finish within {timeout:g} s and was stopped", fix)


def _completed(
    tool: str, fix: str, returncode: int, out: bytes, err: bytes, ok: Sequence[int]
) -> Completed:
    stdout = strip_ansi(out.decode("utf-8", errors="replace"))
    stderr = strip_ansi(err.decode("utf-8", errors="replace"))
    if returncode not in ok:
        tail = " ".join((stderr or stdout).strip().splitlines()[-3:])
        if returncode < 0:
            reason = f"was killed by signal {-returncode}"
        else:
            reason = f"failed with exit status {returncode}"
        raise ToolFailure(tool, f"{reason}{': ' + tail if tail else ''}", fix)
    return Completed(returncode, stdout, stderr)


def _fork_module(
    module: str, args: Sequence[str], cwd: Path, env: Mapping[str, str]
) -> tuple[int, int, int]:
    """Fork a child that runs `module.main(args)` in `cwd` and never returns; its pid and pipes."""
    for stream in (sys.stdout, sys.stderr):  # or the child would write them out again
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    with _registering():
        try:
            pid = os.fork()
        except OSError:
            for fd in (out_read, out_write, err_read, err_write):
                os.close(fd)
            raise
        if pid != 0:
            with contextlib.suppress(OSError):
                os.setpgid(pid, pid)  # also here, so a timeout never finds the group missing
            _LIVE.add(pid)
    if pid == 0:  # the child: from here on it only ever leaves through os._exit
        global _starting
        _starting, _deferred[:] = 0, []  # the parent's bookkeeping, not the child's
        status = 70
        try:
            os.setpgid(0, 0)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(out_write, 1)
            os.dup2(err_write, 2)
            for fd in (null, out_read, out_write, err_read, err_write):
                os.close(fd)
            status = _child_main(module, args, cwd, env)
        finally:
            os._exit(status & 0xFF if isinstance(status, int) else 1)
    for fd in (out_write, err_write):
        os.close(fd)
    return pid, out_read, err_read


def _child_main(module: str, args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> int:
    gc.freeze()  # what the parent holds is never garbage here: the collector skips it
    for name in ("SIGINT", "SIGTERM", "SIGPIPE"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    status = 1
    try:
        os.chdir(cwd)
        os.environ.update({**PLAIN_ENV, **env})
        sys.path[:] = import_path_outside(Path.cwd(), sys.path)
        returned = importlib.import_module(module).main(list(args))
        status = returned if isinstance(returned, int) else 0
    except SystemExit as exc:
        if isinstance(exc.code, int):
            status = exc.code
        else:
            status = 0 if exc.code is None else 1
            if exc.code is not None:
                print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError):
                stream.flush()
    return status


def _finish_forked(
    pid: int,
    out_fd: int,
    err_fd: int,
    tool: str,
    fix: str,
    deadline: float,
    timeout: float,
    ok: Sequence[int],
) -> Completed:
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    try:
        with selectors.DefaultSelector() as selector:
            for fd in chunks:
                selector.register(fd, selectors.EVENT_READ)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _timed_out(tool, fix, timeout)
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 65536)
                    if data:
                        chunks[key.fd].append(data)
                    else:
                        selector.unregister(key.fd)
        _, status = os.waitpid(pid, 0)
    except BaseException:  # a timeout, or this process is interrupted: the child goes too
        _kill_group(pid)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise
    finally:
        _LIVE.discard(pid)
        os.close(out_fd)
        os.close(err_fd)
    out, err = (b"".join(chunks[fd]) for fd in (out_fd, err_fd))
    return _completed(tool, fix, os.waitstatus_to_exitcode(status), out, err, ok)


_LIVE: set[int] = set()
"""The process groups of the children started and not yet waited for (`stop_all`)."""
_starting = 0
"""Children being started and not yet in `_LIVE`: a signal that would end us now waits."""
_deferred: list[int] = []


@contextlib.contextmanager
def _registering() -> Iterator[None]:
    """Start a child and put it in `_LIVE` as one step, as far as an ending signal sees:
    a signal that comes in between is raised again once the child is registered, so
    `stop_all` never misses a child that was already running."""
    global _starting
    _starting += 1
    try:
        yield
    finally:
        _starting -= 1
        if not _starting and _deferred:
            os.kill(os.getpid(), _deferred.pop())


def defer(signum: int) -> bool:
    """For a signal handler about to end the process: True (and the signal held until the
    child is registered) while a child is being started."""
    if _starting:
        _deferred.append(signum)
        return True
    return False


def stop_all() -> None:
    """End every child still running, with everything it started: for a signal that ends
    this process, which would otherwise leave them running in their own sessions."""
    for pid in list(_LIVE):
        _kill_group(pid)


def _kill_group(pid: int) -> None:
    """End a child and everything it started: its process group, else the child alone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":  # the new interpreter of `start_module` when it cannot fork
    # Output is flushed; skipping the interpreter's teardown (freeing every object) ends sooner.
    os._exit(_child_main(sys.argv[1], sys.argv[2:], Path.cwd(), {}) & 0xFF)
