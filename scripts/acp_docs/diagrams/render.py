"""The Chromium renderer, seen from the build: one worker process, each diagram with a deadline.

`Renderer` starts `acp_docs.diagrams.worker` on the first diagram it is asked
to draw (a build whose diagrams are all in the cache starts nothing) and keeps
it for the rest of the build. Each diagram gets `TIMEOUT` seconds: a diagram
that makes Mermaid loop, or a worker that dies, is that diagram's `Failure`,
and the worker is stopped (its whole process group, Chromium included) and
started again for the next one. One build draws for at most `BUDGET` seconds
(and the diagram under way). A missing Chromium or Mermaid is a `Failure`
saying how to fix it, never a traceback.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from acp_docs.core import runner

TIMEOUT = 20.0
"""Seconds one diagram may take to draw."""
BUDGET = 40.0
"""Seconds one build may spend drawing: past it, a diagram not in the cache is not drawn
(a finding), so many slow diagrams never hold a build for minutes. Each build draws more,
as what it drew is kept."""
START_TIMEOUT = 60.0
"""Seconds the worker may take to start Chromium and load Mermaid."""
MERMAID_JS = Path("node_modules") / "@mermaid-js" / "tiny" / "dist" / "mermaid.tiny.js"
"""The pinned Mermaid (package.json), relative to the checkout: what draws every diagram."""
CHROMIUM_ENV = "ACP_DOCS_CHROMIUM"
"""Names the Chromium to draw with; by default `chromium` (or `chromium-browser`) on PATH."""
MERMAID_KINDS = ("sequence", "flowchart", "flowchart-v2")
"""The kinds, as Mermaid's own parse names them, that are drawn (sequence diagrams and
flowcharts: those whose SVG the allowlist was written for)."""
LASTING_RULES = ("diagrams/syntax", "diagrams/config", "diagrams/not-allowed")
FIX = "run `make setup`, which installs Chromium and the pinned Mermaid (npm ci)"


@dataclass(frozen=True)
class Drawn:
    """Mermaid's SVG of one diagram, as XML."""

    svg: str


@dataclass(frozen=True)
class Failure:
    """Why one diagram was not drawn; `line` is the diagram's line Mermaid names (1-based)."""

    message: str
    line: int | None = None
    lasting: bool = False
    """True when the same text would fail again (Mermaid refused it): worth caching."""
    rule: str = "diagrams/syntax"
    """The finding's rule when the failure is lasting."""


def chromium() -> str:
    """The Chromium executable to draw with, or a ToolFailure saying how to install it."""
    named = os.environ.get(CHROMIUM_ENV)
    if named:
        return runner.require(named, "Chromium", FIX)
    for name in ("chromium", "chromium-browser"):
        try:
            return runner.require(name, "Chromium", FIX)
        except runner.ToolFailure:
            continue
    raise runner.ToolFailure("Chromium", "`chromium` is not installed", FIX)


class Renderer:
    """Draws diagrams with the pinned Mermaid in one headless Chromium, started when needed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self.started = 0
        """How many workers this renderer started (tests count them)."""
        self.spent = 0.0
        """Seconds spent drawing (and starting workers) in this build."""

    def draw(self, diagram_id: str, text: str) -> Drawn | Failure:
        """Mermaid's drawing of `text` with the id `diagram_id`, or why there is none."""
        if self.spent >= BUDGET:
            return Failure(
                f"the diagram is not drawn: this build spent its {BUDGET:g} s of drawing on the"
                " diagrams before it; build again, as what is drawn is kept"
            )
        start = time.monotonic()
        try:
            return self._draw(diagram_id, text)
        finally:
            self.spent += time.monotonic() - start

    def _draw(self, diagram_id: str, text: str) -> Drawn | Failure:
        try:
            process = self._worker()
        except runner.ToolFailure as exc:
            return Failure(f"the diagram is not drawn: {exc}")
        request = {"id": diagram_id, "text": text, "kinds": list(MERMAID_KINDS)}
        encoded = json.dumps(request).encode("utf-8") + b"\n"
        try:
            assert process.stdin is not None
            process.stdin.write(encoded)
            process.stdin.flush()
        except OSError:
            self.close()
            return Failure(f"the diagram is not drawn: the renderer stopped; {FIX}")
        answer = self._read_line(TIMEOUT)
        if answer is None:
            self.close()
            return Failure(
                f"Mermaid did not draw the diagram within {TIMEOUT:g} s and was stopped:"
                " simplify the diagram"
            )
        if "svg" in answer and isinstance(answer["svg"], str):
            return Drawn(answer["svg"])
        if answer.get("refused") == "config":
            settings = answer.get("settings")
            named = ", ".join(map(str, settings)) if isinstance(settings, list) else ""
            return Failure(
                f"the diagram sets Mermaid's configuration ({named}) in its text (an"
                " `%%{init}%%` directive or front matter `config:`): the site fixes how"
                " diagrams are drawn, so it is not drawn; remove the configuration",
                None,
                lasting=True,
                rule="diagrams/config",
            )
        if answer.get("refused") == "kind":
            return Failure(
                f"Mermaid reads this as a {str(answer.get('kind'))[:40]!r} diagram, which the"
                " site does not draw: only sequence diagrams and flowcharts are drawn",
                None,
                lasting=True,
                rule="diagrams/not-allowed",
            )
        line = answer.get("line")
        return Failure(
            f"Mermaid cannot draw the diagram: {answer.get('error', 'no reason given')}",
            line if isinstance(line, int) and line > 0 else None,
            lasting=True,
        )

    def _worker(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._process.poll() is None:
            return self._process
        script = self.root / MERMAID_JS
        if not script.is_file():
            raise runner.ToolFailure("Mermaid", f"{MERMAID_JS} is missing", FIX)
        self._process = runner.start_worker(
            "Chromium",
            "acp_docs.diagrams.worker",
            [str(script), chromium()],
            cwd=self.root,
            fix=FIX,
            env={"PYTHONPATH": os.pathsep.join(sys.path)},  # the runner keeps what is safe
        )
        self._buffer = b""
        self.started += 1
        ready = self._read_line(START_TIMEOUT)
        if ready is None or not ready.get("ready"):
            self.close()
            raise runner.ToolFailure("Chromium", "could not start to draw diagrams", FIX)
        return self._process

    def _read_line(self, timeout: float) -> dict[str, object] | None:
        """The worker's next answer, or None when it takes longer than `timeout` or dies."""
        process = self._process
        if process is None or process.stdout is None:
            return None
        deadline = time.monotonic() + timeout
        fd = process.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return None
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer = json.loads(line)
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    def close(self) -> None:
        """Stop the worker and its Chromium, if one runs."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()
        process.wait()
