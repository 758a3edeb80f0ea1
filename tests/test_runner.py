"""External tools: a missing, hanging or crashing tool is that check's error, never a crash."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from acp_docs.core import runner

from conftest import BIN, new_rfd, no_traceback, replace_in, run


def test_a_missing_tool_names_itself_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(runner.ToolFailure, match="`no-such-tool` is not installed; install it"):
        runner.run("thing", ["no-such-tool"], cwd=tmp_path, fix="install it")


def _running(pid: int) -> bool:
    """Whether process `pid` still runs: a zombie has ended, though no parent reaped it yet."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: a signal tells whether it is there at all
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def test_a_hanging_tool_is_stopped_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {shlex.quote(str(pid_file))}; wait"
    start = time.monotonic()
    with pytest.raises(runner.ToolFailure, match=r"did not finish within 0\.25 s"):
        runner.run("sleeper", ["sh", "-c", script], cwd=tmp_path, fix="x", timeout=0.25)
    assert time.monotonic() - start < 10
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not _running(pid):
            return
        time.sleep(0.01)
    pytest.fail("the tool's child outlived the timeout")


def test_a_crashing_tool_reports_its_status_and_last_words(tmp_path: Path) -> None:
    code = "import sys; print('first'); print('it broke', file=sys.stderr); sys.exit(3)"
    with pytest.raises(runner.ToolFailure, match="failed with exit status 3: it broke"):
        runner.run("crasher", [sys.executable, "-c", code], cwd=tmp_path, fix="x")
    done = runner.run(
        "ok", [sys.executable, "-c", "print('\\x1b[31mred\\x1b[0m')"], cwd=tmp_path, fix="x"
    )
    assert done.stdout == "red\n"


@pytest.mark.build
def test_without_node_the_format_check_errors_and_the_others_still_report(
    repo_copy: Path,
) -> None:
    made = new_rfd(repo_copy, "session-labels", "Session labels")
    replace_in(repo_copy / made.shown, "## Elevator pitch\n", "## Later\n")
    env = {"PATH": f"{BIN}:/nonexistent"}
    result = run(["acp-docs", "check", "--only", "rfds", "format"], cwd=repo_copy, env=env)
    no_traceback(result)
    assert result.returncode == 2
    assert f"{made.shown}:1:1: missing template section '## Elevator pitch'" in result.stdout
    assert "format: prettier: `node` is not installed; run `make setup`" in result.stderr
    assert "  rfds    failed" in result.stderr


@pytest.mark.build
def test_a_crashing_build_is_the_build_checks_error(repo_copy: Path) -> None:
    # A watched folder that does not exist stops MkDocs; the other checks still run.
    config = repo_copy / "mkdocs.yml"
    replace_in(config, "  - rfds\n", "  - no-such-path\n")
    result = run(["acp-docs", "check", "--only", "rfds", "links"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "no-such-path" in result.stderr
    assert "  rfds   error" in result.stderr or "  rfds  error" in result.stderr
    assert os.path.exists(config)
