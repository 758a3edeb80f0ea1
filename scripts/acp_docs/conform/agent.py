"""A live Agent on standard input and output: its lines in, its messages out, all bounded.

The Agent runs through the runner (`start_conversation`): its own process
group, ended by the shutdown ladder; then every process that still carries the
run's mark in its environment (one the Agent started in a session of its own)
is killed. Two threads read it: one turns standard
output into JSON values, one keeps the last bytes of standard error. Nothing
the Agent writes can grow without bound: a line longer than `MAX_LINE`, or
more than `MAX_MESSAGES` messages in one scenario, ends the conversation with
a `Broken` that says so. Every value is parsed by the project's JSON reader,
so a hostile line is a problem, never a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import select
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.core import runner
from acp_docs.core.escaping import printable
from acp_docs.sources import jsonparse

MAX_LINE = 1024 * 1024
"""The longest line of standard output taken, in bytes."""
EXIT_WAIT = 2.0
"""Seconds an Agent whose output ended is given to be seen exiting (`AgentProcess._status`)."""
MAX_MESSAGES = 5000
"""The most lines (messages, blank lines) one scenario takes from the Agent."""
MAX_BYTES = 4 * 1024 * 1024
"""The most bytes of standard output one scenario takes from the Agent (parsed, JSON takes
many times its size in memory, and every scenario's transcript is kept for the report)."""
MARK = "ACP_DOCS_CONFORM_RUN"
"""The environment variable that marks every process of one Agent's run, its descendants
included, so that none outlives the scenario (`_sweep`)."""
STDERR_KEPT = 16 * 1024
"""How much of the end of standard error a report keeps, in bytes."""
TOOL = "the Agent"
FIX = "check the Agent's command after `--` (it must speak ACP on standard input and output)"


class Broken(Exception):
    """The conversation cannot go on: the Agent exited, wrote what is not a message, or
    went past a bound. The message says which, with what it wrote (escaped)."""


@dataclass(frozen=True)
class Ended:
    """How the Agent's process ended, and the end of what it wrote on standard error."""

    how: str
    stderr: str
    stderr_bytes: int


class _Stderr:
    """The last `STDERR_KEPT` bytes of a stream, and how many it carried in all."""

    def __init__(self) -> None:
        self.kept = bytearray()
        self.total = 0
        self.lock = threading.Lock()

    def take(self, chunk: bytes) -> None:
        with self.lock:
            self.total += len(chunk)
            self.kept += chunk
            del self.kept[:-STDERR_KEPT]

    def text(self) -> str:
        with self.lock:
            return bytes(self.kept).decode("utf-8", errors="replace")


def _chunks(fd: int, stop: threading.Event) -> Iterator[bytes]:
    """What the Agent writes on `fd`, chunk by chunk, until its end or `stop`. The reader
    polls, so no close of the stream ever waits on a read a descendant keeps open."""
    try:
        while not stop.is_set():
            if not select.select([fd], [], [], 0.1)[0]:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            yield chunk
    except OSError:
        return
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


class AgentProcess:
    """One run of the Agent's command, for one scenario."""

    def __init__(
        self, argv: Sequence[str], cwd: Path, grace: float, env: Mapping[str, str] | None = None
    ) -> None:
        self.grace = grace
        self.mark = secrets.token_hex(16)
        env = {**(env or {}), MARK: self.mark}
        self.process = runner.start_conversation(TOOL, argv, cwd=cwd, fix=FIX, env=env)
        self.lines: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.stderr = _Stderr()
        self.received = 0
        self.ended: Ended | None = None
        self._stop = threading.Event()
        assert self.process.stdout is not None and self.process.stderr is not None
        out = os.dup(self.process.stdout.fileno())
        err = os.dup(self.process.stderr.fileno())
        self.process.stdout.close()
        self.process.stderr.close()
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(out,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(err,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_stderr(self, fd: int) -> None:
        for chunk in _chunks(fd, self._stop):
            self.stderr.take(chunk)

    def _read_stdout(self, fd: int) -> None:
        pending = b""
        total = 0
        for chunk in _chunks(fd, self._stop):
            total += len(chunk)
            if total > MAX_BYTES:
                self.lines.put(("broken", f"the Agent wrote more than {MAX_BYTES} bytes"))
                self._stop.wait()  # its output stays open, unread: the Agent waits, not fails
                return
            pending += chunk
            *whole, pending = pending.split(b"\n")
            for line in whole:
                self.lines.put(("line", line))
            if len(pending) > MAX_LINE:
                too_long = f"a line of standard output is longer than {MAX_LINE} bytes"
                self.lines.put(("broken", too_long))
                self._stop.wait()
                return
        if pending:
            self.lines.put(("line", pending))
        self.lines.put(("end", None))

    def send(self, message: dict[str, Any], timeout: float) -> None:
        """Write one message, a line of JSON, within `timeout` seconds; a `Broken` when the
        Agent no longer reads (its input closed, or full for that long)."""
        stdin = self.process.stdin
        assert stdin is not None
        data = json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"
        deadline = time.monotonic() + timeout
        try:
            fd = stdin.fileno()
            os.set_blocking(fd, False)
            while data:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    raise Broken(f"the Agent did not read its standard input for {timeout:g} s")
                try:
                    data = data[os.write(fd, data) :]
                except BlockingIOError:
                    continue
        except (BrokenPipeError, OSError, ValueError):
            raise Broken("the Agent stopped reading its standard input") from None

    def receive(self, timeout: float) -> Any | None:
        """The next message the Agent wrote, waiting at most `timeout` seconds (None then);
        a `Broken` at the end of its output or on a line that is not a JSON value."""
        deadline = time.monotonic() + max(0.0, timeout)
        text = ""
        while not text:  # blank lines carry nothing
            try:
                kind, value = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if kind == "end":
                self.lines.put((kind, value))  # every later read sees the end too
                raise Broken(f"the Agent closed its standard output ({self._status()})")
            if kind == "broken":
                self.lines.put((kind, value))
                raise Broken(value)
            self.received += 1
            if self.received > MAX_MESSAGES:
                raise Broken(f"the Agent wrote more than {MAX_MESSAGES} lines in one scenario")
            text = value.decode("utf-8", errors="replace").strip()
        try:
            return jsonparse.loads(text)
        except jsonparse.JsonProblem as exc:
            raise Broken(
                f"the Agent wrote a line that is not JSON ({exc.message}): {_shown(text)}"
            ) from None

    def _status(self) -> str:
        """How the Agent is, once its output ended: an Agent that closes its output as it
        exits is given up to `EXIT_WAIT` seconds to be seen exiting (a busy machine may run
        the reader before the exit is reaped)."""
        try:
            code = self.process.wait(timeout=EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return "it is still running"
        return f"it exited with status {code}" if code >= 0 else f"it was killed by signal {-code}"

    def close(self) -> tuple[Ended, list[Any]]:
        """End the Agent (the runner's ladder) and take what it wrote before it ended: the
        messages still on their way (for at most `grace` seconds), and how it ended."""
        how = runner.end_conversation(self.process, self.grace)
        rest: list[Any] = []
        deadline = time.monotonic() + self.grace
        while time.monotonic() < deadline:
            try:
                message = self.receive(max(0.0, deadline - time.monotonic()))
            except Broken:
                break
            if message is None:
                break
            rest.append(message)
        escaped = _sweep(self.mark)
        if escaped:
            how += f"; {escaped} process(es) it started outside its group were killed"
        self._stop.set()
        for thread in self._threads:
            thread.join(1.0)
        self.ended = Ended(how, self.stderr.text(), self.stderr.total)
        return self.ended, rest


def _sweep(mark: str) -> int:
    """Kill every process still running with the run's mark in its environment: what the
    Agent started in a session or group of its own, out of the ladder's reach. How many."""
    needle = f"{MARK}={mark}".encode()
    killed = 0
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as environ:
                found = needle in environ.read().split(b"\0")
            if found:
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
        except OSError:
            continue
    return killed


def _shown(text: str, limit: int = 200) -> str:
    """What the Agent wrote, escaped for a terminal and cut to `limit` characters."""
    cut = text if len(text) <= limit else text[:limit] + "…"
    return printable(cut)
