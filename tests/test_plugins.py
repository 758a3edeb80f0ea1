"""Reporters and wire checks come from entry points; one that fails to load is an error.

Each test installs a small distribution of its own (a module and its
`.dist-info` with `entry_points.txt`) on `sys.path`, as `pip install` would,
and runs `acp-docs` as a user does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from acp_docs.core import protocols

from conftest import ROOT, acp, copy_repo, new_rfd, no_traceback

DIST = "fake_acp_plugin"
OLDEST = protocols.NAMES[0]


def install(folder: Path, monkeypatch: pytest.MonkeyPatch, module: str, entries: str) -> Path:
    """A distribution in `folder` with `module` as `fake_acp_plugin.py`, put on sys.path."""
    folder.mkdir(exist_ok=True)
    (folder / f"{DIST}.py").write_text(module)
    info = folder / f"{DIST}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entries)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, DIST, raising=False)
    return info / "entry_points.txt"


FAKE_REPORTER = """
from acp_docs.reporters import Reporter


def render(report):
    return "".join(f"FAKE {f.rule_id} {f.path}:{f.line}\\n" for f in sorted(report.findings))


REPORTER = Reporter(summary="one FAKE line a finding", render=render)
"""


@pytest.mark.build
def test_a_reporter_installed_by_entry_point_is_a_format_of_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_copy: Path
) -> None:
    install(
        tmp_path / "plugin",
        monkeypatch,
        FAKE_REPORTER,
        "[acp_docs.reporters]\nfake = fake_acp_plugin:REPORTER\n",
    )
    from acp_docs.reporters import registry

    assert "fake" in registry.formats()
    assert "page" in registry.load_reporters() and "page" not in registry.formats()
    assert "fake" in acp(["check", "--help"], cwd=repo_copy).stdout

    (repo_copy / "rfds" / "no-front-matter.md").write_text("# No front matter\n")
    result = acp(["check", "--only", "rfds", "--format", "fake"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith("FAKE rfds/") for line in lines), result.stdout
    assert any("rfds/no-front-matter.md:1" in line for line in lines), result.stdout


def test_the_installed_reporter_formats_the_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(
        tmp_path / "plugin",
        monkeypatch,
        FAKE_REPORTER,
        "[acp_docs.reporters]\nfake = fake_acp_plugin:REPORTER\n",
    )
    bad = tmp_path / "bad.json"
    bad.write_text('{"jsonrpc": "2.0", "method": "session/update", "params": {}}\n')
    result = acp(["validate", "--protocol", OLDEST, str(bad), "--format", "fake"], cwd=ROOT)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stdout.startswith("FAKE validate/invalid "), result.stdout


@pytest.mark.parametrize(
    ("module", "reason"),
    [
        ("raise RuntimeError('broken on import')\n", "RuntimeError: broken on import"),
        ("import a_module_that_is_not_there\n", "ModuleNotFoundError"),
        ("REPORTER = 'text'\n", "is of type str, not a Reporter"),
        (
            "from acp_docs.reporters import Reporter\nREPORTER = Reporter(summary='no render')\n",
            "must have a `render(report) -> str`",
        ),
    ],
)
def test_a_reporter_that_fails_to_load_stops_every_command_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, reason: str
) -> None:
    entries = install(
        tmp_path / "plugin",
        monkeypatch,
        module,
        "[acp_docs.reporters]\n\nbroken = fake_acp_plugin:REPORTER\n",
    )
    result = acp(["rfds"], cwd=ROOT)
    no_traceback(result)
    assert result.returncode == 2
    named = f"{entries}:3:1: entry point acp_docs.reporters `broken = fake_acp_plugin:REPORTER`"
    assert named in result.stderr and reason in result.stderr


def test_two_entry_points_of_one_name_are_an_error_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(
        tmp_path / "plugin",
        monkeypatch,
        FAKE_REPORTER,
        "[acp_docs.reporters]\ntext = fake_acp_plugin:REPORTER\n",
    )
    result = acp(["rfds"], cwd=ROOT)
    no_traceback(result)
    assert result.returncode == 2
    assert "already has the name 'text'" in result.stderr, result.stderr
    assert "fake_acp_plugin:REPORTER" in result.stderr
    assert "acp_docs.reporters.text:REPORTER" in result.stderr


FAKE_CHECKS = """
def every_update(messages, version):
    for message in messages:
        if message.body.get("method") == "session/update":
            yield message.line, f"an update in ACP {version.name}"


CHECKS = {"SLUG/every-update": every_update}
"""

REQUIREMENTS = """\
requirements:
  - id: SLUG/every-update
    tier: MANDATORY
    party: agent
    versions: [VERSION]
    cite: elevator-pitch
    text: No update, ever.
    binds: []
    judged: always
"""


def _trace(tmp_path: Path) -> Path:
    update = {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": []}}
    path = tmp_path / "session.jsonl"
    message = {"jsonrpc": "2.0", "method": "session/update", "params": update}
    path.write_text(json.dumps({"direction": "agent-to-client", "message": message}) + "\n")
    return path


def test_wire_checks_installed_by_entry_point_judge_their_requirements_in_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = copy_repo(tmp_path / "repo")
    slug = new_rfd(checkout, "fake-rule", "Fake rule").slug
    (checkout / "schema" / slug).mkdir(exist_ok=True)
    (checkout / "schema" / slug / "requirements.yaml").write_text(
        REQUIREMENTS.replace("SLUG", slug).replace("VERSION", OLDEST)
    )
    install(
        tmp_path / "plugin",
        monkeypatch,
        FAKE_CHECKS.replace("SLUG", slug),
        f"[acp_docs.wire_checks]\n{slug} = fake_acp_plugin:CHECKS\n",
    )
    result = acp(
        ["trace", "--protocol", OLDEST, str(_trace(tmp_path)), "--format", "json"], cwd=checkout
    )
    no_traceback(result)
    assert result.returncode == 1, result.stderr
    found = [(f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [(1, f"{slug}/every-update")]
    assert f"an update in ACP {OLDEST} (rfds/{slug}.md#elevator-pitch)" in result.stdout


@pytest.mark.parametrize(
    ("module", "reason"),
    [
        ("raise ImportError('no such helper')\n", "ImportError: no such helper"),
        ("CHECKS = 'not checks'\n", "is of type str, not a Mapping"),
        ("CHECKS = {'other-rfd/x': print}\n", "name each check by its requirement's id"),
        ("CHECKS = {'broken/x': 1}\n", "check 'broken/x' is not callable"),
    ],
)
def test_wire_checks_that_fail_to_load_are_an_error_not_silence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, reason: str
) -> None:
    entries = install(
        tmp_path / "plugin",
        monkeypatch,
        module,
        "[acp_docs.wire_checks]\nbroken = fake_acp_plugin:CHECKS\n",
    )
    result = acp(["trace", "--protocol", OLDEST, str(_trace(tmp_path))])
    no_traceback(result)
    assert result.returncode == 2, result.stdout + result.stderr
    named = f"{entries}:2:1: entry point acp_docs.wire_checks `broken = fake_acp_plugin:CHECKS`"
    assert named in result.stderr
    assert reason in result.stderr


def test_no_reporter_at_all_says_the_installed_metadata_is_stale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_docs.core import plugins

    every = plugins.entries
    monkeypatch.setattr(
        plugins, "entries", lambda group: [] if group == "acp_docs.reporters" else every(group)
    )
    result = acp(["rfds"], cwd=ROOT)
    no_traceback(result)
    assert result.returncode == 2
    assert "no reporter is registered" in result.stderr and "make setup" in result.stderr


def test_a_distribution_installed_into_a_folder_already_searched_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_docs.core import plugins

    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    group = "acp_docs.reporters"
    before = [entry.name for entry in plugins.entries(group)]
    assert "fake" not in before
    # The same sys.path, a new .dist-info in one of its folders: as `pip install` leaves it.
    info = folder / f"{DIST}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\nfake = fake_acp_plugin:REPORTER\n")
    assert [entry.name for entry in plugins.entries(group)] == sorted([*before, "fake"])
