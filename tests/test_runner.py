"""External tools: a missing, hanging or crashing tool is that check's error, never a crash."""

from __future__ import annotations

import ast
import os
import re
import select
import shlex
import sys
import threading
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


def _gone_soon(pid: int, cap: float = 120) -> bool:
    """Whether process `pid` ends: waits for the event itself (a pidfd turns readable when
    the process ends), `cap` being only a safety net against a hang, never a measure."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):  # no pidfd here: look until the cap
        deadline = time.monotonic() + cap
        while _running(pid):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
        return True
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(cap * 1000)) or not _running(pid)
    finally:
        os.close(fd)


def test_a_hanging_tool_is_stopped_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {shlex.quote(str(pid_file))}; wait"
    start = time.monotonic()
    with pytest.raises(runner.ToolFailure, match=r"did not finish within 0\.25 s"):
        runner.run("sleeper", ["sh", "-c", script], cwd=tmp_path, fix="x", timeout=0.25)
    assert time.monotonic() - start < 120  # stopped, not waited for: sleep 60 never ended it
    assert _gone_soon(int(pid_file.read_text())), "the tool's child outlived the timeout"


ENDED = """
import signal, sys
from pathlib import Path
from acp_docs.cli import main
from acp_docs.core import runner
for name in ("SIGTERM", "SIGHUP"):
    signal.signal(getattr(signal, name), main._ended)  # as `acp-docs` does
script = "sleep 60 & echo $! > " + sys.argv[1] + "; wait"
runner.run("sleeper", ["sh", "-c", script], cwd=Path("."), fix="x", timeout=60)
"""


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_acp_docs_ended_by_a_signal_ends_the_tools_it_started(tmp_path: Path, name: str) -> None:
    import signal
    import subprocess

    pid_file = tmp_path / "child.pid"
    driver = subprocess.Popen([sys.executable, "-P", "-c", ENDED, shlex.quote(str(pid_file))])
    deadline = time.monotonic() + 120  # a safety net: the wait is for the file
    while not (pid_file.exists() and pid_file.read_text().endswith("\n")):
        assert time.monotonic() < deadline and driver.poll() is None, "the tool never started"
        time.sleep(0.02)
    driver.send_signal(getattr(signal, name))
    assert driver.wait(timeout=120) == 128 + getattr(signal, name)
    assert _gone_soon(int(pid_file.read_text())), "the tool's child outlived acp-docs"


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
    assert f"{made.shown}:1:1: error: missing template section '## Elevator pitch'" in result.stdout
    assert "format: prettier: `node` is not installed; run `make setup`" in result.stderr
    assert "  rfds    failed" in result.stderr


@pytest.mark.build
def test_a_crashing_build_is_the_error_of_the_checks_that_need_it(repo_copy: Path) -> None:
    # A watched folder that does not exist stops MkDocs: the checks of rendered pages
    # cannot run; a check of the sources alone needs no build and still reports.
    config = repo_copy / "mkdocs.yml"
    replace_in(config, "  - rfds\n", "  - no-such-path\n")
    result = run(["acp-docs", "check", "--only", "rfds", "links"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 2
    assert "no-such-path" in result.stderr
    assert re.search(r"^  links\s+error\s.*no-such-path", result.stderr, re.M), result.stderr
    assert re.search(r"^  rfds\s+ok\s", result.stderr, re.M), result.stderr
    assert os.path.exists(config)


PROBE = """
import os, sys, time

def main(argv):
    if argv[0] == "report":
        loaded = "parent_only_marker" in sys.modules
        print(f"args={argv[1:]} cwd={os.getcwd()} env={os.environ.get('PROBE_WORD')}")
        print(f"no-color={os.environ.get('NO_COLOR')} inherited={loaded}")
        return 0
    if argv[0] == "status":
        raise SystemExit(int(argv[1]) if argv[1].isdigit() else argv[1])
    if argv[0] == "none":
        return None
    if argv[0] == "raise":
        print("half done")
        raise RuntimeError("it broke")
    if argv[0] == "planted":
        import planted_here  # only in the checkout the child runs in
        return 0
    if argv[0] == "hang":
        os.system(f"sleep 60 & echo $! > {argv[1]}; wait")
    return 9
"""


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module `runner_probe` with a `main(argv)`, importable here and by a new interpreter."""
    folder = tmp_path / "modules"
    folder.mkdir()
    (folder / "runner_probe.py").write_text(PROBE, encoding="utf-8")
    (folder / "parent_only_marker.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("PYTHONPATH", str(folder))
    import parent_only_marker  # noqa: F401

    monkeypatch.delitem(sys.modules, "parent_only_marker")
    return tmp_path


def _in_a_thread(call):
    """`call()` run while a second thread runs, so the child cannot be forked."""
    results: list = []
    gate = threading.Event()
    keeper = threading.Thread(target=gate.wait)
    keeper.start()
    try:
        try:
            results.append(call())
        except BaseException as exc:  # handed back to the test
            results.append(exc)
    finally:
        gate.set()
        keeper.join()
    if isinstance(results[0], BaseException):
        raise results[0]
    return results[0]


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "new interpreter"])
def test_a_module_runs_in_a_child_with_its_arguments_folder_and_environment(
    probe: Path, forked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import parent_only_marker  # noqa: F401  (this process has it; only a fork inherits it)

    monkeypatch.setenv("PROBE_WORD", "hello")
    checkout = probe / "checkout"
    checkout.mkdir()

    def start_and_wait():
        wait = runner.start_module(
            "probe", "runner_probe", ["report", "a b", "c"], cwd=checkout, fix="x", env={}
        )
        return wait()

    if forked:
        assert threading.active_count() == 1, "a thread another test left keeps this from forking"
    done = start_and_wait() if forked else _in_a_thread(start_and_wait)
    assert done.stdout.splitlines() == [
        f"args=['a b', 'c'] cwd={checkout} env=hello",
        f"no-color=1 inherited={forked}",
    ]


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "new interpreter"])
def test_a_module_child_ends_with_the_status_it_gives_and_its_last_words(
    probe: Path, forked: bool
) -> None:
    def outcome(*args: str) -> runner.Completed | str:
        def start_and_wait():
            return runner.start_module("probe", "runner_probe", args, cwd=probe, fix="fix it")()

        try:
            return start_and_wait() if forked else _in_a_thread(start_and_wait)
        except runner.ToolFailure as exc:
            return str(exc)

    assert outcome("none") == runner.Completed(0, "", "")
    assert outcome("status", "0") == runner.Completed(0, "", "")
    assert outcome("status", "3") == "probe: failed with exit status 3; fix it"
    assert outcome("status", "no way") == "probe: failed with exit status 1: no way; fix it"
    failed = outcome("raise")
    assert isinstance(failed, str)
    assert failed.startswith("probe: failed with exit status 1: ")
    assert failed.endswith("RuntimeError: it broke; fix it")


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "new interpreter"])
@pytest.mark.parametrize("entry", ["the checkout", "a relative folder"])
def test_a_module_child_never_imports_from_the_checkout_it_runs_in(
    probe: Path, forked: bool, entry: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = probe / "checkout"
    folder = checkout if entry == "the checkout" else checkout / "sub"
    folder.mkdir(parents=True)
    (folder / "planted_here.py").write_text("print('planted code ran')\n", encoding="utf-8")
    if entry == "the checkout":  # as `python script.py` run in it would have it
        monkeypatch.syspath_prepend(str(checkout))
    else:  # a relative entry, as `PYTHONPATH=sub` gives: it names a folder of the checkout
        monkeypatch.syspath_prepend("sub")
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["sub", os.environ["PYTHONPATH"]]))

    def start_and_wait():
        return runner.start_module("probe", "runner_probe", ["planted"], cwd=checkout, fix="x")()

    with pytest.raises(runner.ToolFailure, match="No module named 'planted_here'"):
        start_and_wait() if forked else _in_a_thread(start_and_wait)


def _interpreter_commands(source: str) -> list[int]:
    """The lines of list displays that hold `sys.executable`: a command for a new interpreter."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.List) and any(
            isinstance(e, ast.Attribute) and e.attr == "executable" for e in node.elts
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_runner_writes_the_command_of_a_new_interpreter() -> None:
    """Every new interpreter is `runner.python_module`'s, which never imports from its folder."""
    assert _interpreter_commands('argv = [sys.executable, "-m", "x"]\n') == [1]
    package = Path(runner.__file__).resolve().parent.parent
    texts = {path: path.read_text(encoding="utf-8") for path in sorted(package.rglob("*.py"))}
    written = {
        path.relative_to(package).as_posix(): found
        for path, text in texts.items()
        if "executable" in text and (found := _interpreter_commands(text))
    }
    assert written == {"core/runner.py": written.get("core/runner.py")}
    assert len(written["core/runner.py"]) == 1


def test_a_hanging_forked_module_is_stopped_with_its_children(probe: Path) -> None:
    pid_file = probe / "child.pid"
    wait = runner.start_module(
        "probe", "runner_probe", ["hang", str(pid_file)], cwd=probe, fix="x", timeout=0.5
    )
    with pytest.raises(runner.ToolFailure, match=r"did not finish within 0\.5 s"):
        wait()
    assert _gone_soon(int(pid_file.read_text())), "the module's child outlived the timeout"


def test_a_signal_that_comes_while_a_tool_starts_waits_until_it_is_registered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal
    import subprocess

    seen: list[set[int]] = []

    def handler(signum: int, _frame: object) -> None:
        if runner.defer(signum):
            return
        seen.append(set(runner._LIVE))

    real = subprocess.Popen
    started: list[int] = []

    def popen(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        process = real(*args, **kwargs)  # type: ignore[call-overload]
        started.append(process.pid)
        os.kill(os.getpid(), signal.SIGUSR1)  # between the start and the registration
        return process

    before = signal.signal(signal.SIGUSR1, handler)
    try:
        monkeypatch.setattr(runner.subprocess, "Popen", popen)
        runner.run("true", ["true"], cwd=tmp_path, fix="x")
    finally:
        signal.signal(signal.SIGUSR1, before)
    assert len(seen) == 1 and started[0] in seen[0], (seen, started)
