"""`mkdocs serve` on a free loopback port, driven from outside: for the serve tests and benchmark.

`DevServer` starts the server in a folder (a copy of the repository), waits
until it answers, and waits for a served page to satisfy a condition after an
edit. It reads nothing but the pages it serves.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

START_TIMEOUT = 120.0


def free_port() -> int:
    """A loopback TCP port that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class DevServer:
    """A running `mkdocs serve` of `root`, its site served at the loopback root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = dict(os.environ, ACP_DOCS_SITE_URL=self.url, NO_MKDOCS_2_WARNING="1")
        self.log_path = root.parent / f"mkdocs-serve-{self.port}.log"
        self._log = self.log_path.open("w", encoding="utf-8")
        mkdocs = Path(sys.executable).parent / "mkdocs"
        self.process = subprocess.Popen(
            [str(mkdocs), "serve", "--dev-addr", f"127.0.0.1:{self.port}"],
            cwd=root,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def __enter__(self) -> DevServer:
        try:
            self.wait_for("", lambda page: page is not None, START_TIMEOUT)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the server and close its log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self._log.close()

    def log(self) -> str:
        """What the server printed so far (its terminal)."""
        self._log.flush()
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def get(self, path: str) -> str | None:
        """The served text of `path` (relative to the site), or None when it is not served."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return str(response.read().decode("utf-8"))
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None

    def wait_for(
        self, path: str, condition: Callable[[str | None], bool], timeout: float = 120.0
    ) -> str | None:
        """Poll `path` until `condition` holds for its text; that text (TimeoutError if never)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"mkdocs serve exited:\n{self.log()[-3000:]}")
            page = self.get(path)
            if condition(page):
                return page
            if time.monotonic() > deadline:
                raise TimeoutError(f"{path}: not as expected after {timeout:.0f} s")
            time.sleep(0.02)
