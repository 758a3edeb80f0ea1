"""The installed `acp-docs` skips Python's shutdown: its output must still arrive whole."""

from __future__ import annotations

import json
import os
import subprocess

from acp_docs.config.repo import Repo
from acp_docs.rfds.model import rfd_files

from conftest import BIN, ROOT


def _env() -> dict[str, str]:
    """Standard output to a pipe block-buffered, as it is for most callers."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("PYTHONUNBUFFERED", None)
    return env


def _installed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "acp-docs"), *args],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_short_output_left_in_the_buffer_arrives_with_the_status() -> None:
    done = _installed("rfds", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["command"] == "rfds"
    count = len(rfd_files(Repo.load(ROOT)))
    assert f"{count} RFD(s) linted: 0 problem(s)" in done.stderr


def test_a_large_output_arrives_whole() -> None:
    done = _installed("schema", "merge", "--protocol", "v2")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) > 100_000
    assert "SessionUpdate" in json.loads(done.stdout)["$defs"]


def test_a_reader_that_goes_away_gets_a_failing_status_and_no_traceback() -> None:
    child = subprocess.Popen(
        [str(BIN / "acp-docs"), "schema", "merge", "--protocol", "v2"],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    error = child.stderr.read().decode()
    assert child.wait(timeout=120) == 1
    assert "Traceback" not in error and "BrokenPipeError" not in error, error
