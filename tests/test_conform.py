"""`acp-docs conform` drives a live Agent through the RFDs' requirements and gives a verdict.

The fixture Agent (`tests/data/conform_agent.py`) writes everything a message
calls for before it reads the next one, so each scenario's transcript is the
same however busy the machine is; `--break` breaks one requirement, or
misbehaves as a process (hangs, crashes, writes garbage, floods its output,
ignores its closed input and SIGTERM).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, acp, no_traceback

AGENT = ROOT / "tests" / "data" / "conform_agent.py"
REFERENCE = ROOT / "scripts" / "reference" / "agent.py"
PASSING = {"PASS", "SKIPPED", "NOT_TESTED"}


def conform(
    tmp_path: Path, version: str, *agent: str, options: tuple[str, ...] = ()
) -> tuple[int, dict[str, Any], str, str]:
    """Run conform against `agent` in `version`: status, JSON report, stdout, stderr."""
    report = tmp_path / f"report-{version}.json"
    result = acp(
        [
            "conform",
            "--protocol",
            version,
            "--report-json",
            str(report),
            "--settle",
            "0.05",
            *options,
            "--",
            *agent,
        ]
    )
    no_traceback(result)
    data = json.loads(report.read_text()) if report.exists() else {}
    return result.returncode, data, result.stdout, result.stderr


def fixture(version: str, *flags: str) -> tuple[str, ...]:
    return (sys.executable, str(AGENT), "--protocol", version, *flags)


def outcomes(report: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["status"] for r in report["requirements"]}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_reference_agent_is_conformant(tmp_path: Path, version: str) -> None:
    status, report, out, _ = conform(
        tmp_path, version, sys.executable, str(REFERENCE), "--protocol", version
    )
    assert status == 0, out
    assert report["verdict"]["conformant"] is True
    for requirement in report["requirements"]:
        assert requirement["status"] in PASSING, requirement
        if requirement["status"] != "PASS":
            assert requirement["reason"], requirement
    assert "VERDICT: CONFORMANT" in out


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_an_agent_that_keeps_every_rule_passes_each_requirement_on_the_wire(
    tmp_path: Path, version: str
) -> None:
    status, report, out, _ = conform(tmp_path, version, *fixture(version))
    assert status == 0, out
    judged = [r for r in report["requirements"] if not r["reason"].startswith("not on the wire")]
    assert judged and {r["status"] for r in judged} == {"PASS"}, judged
    assert all(s["status"] == "completed" for s in report["scenarios"])


BROKEN = [
    ("v1", "capability", "prompt-suggestions/capability"),
    ("v1", "empty-text", "prompt-suggestions/empty-text"),
    ("v2", "empty-text", "prompt-suggestions/empty-text"),
    ("v1", "replay", "prompt-suggestions/replay"),
    ("v2", "replay", "prompt-suggestions/replay"),
    ("v1", "after-response", "prompt-suggestions/after-response"),
    ("v2", "while-idle", "prompt-suggestions/while-idle"),
    ("v1", "invalid-update", "conform/session"),
    ("v2", "invalid-update", "conform/session"),
]


@pytest.mark.parametrize(("version", "rule", "requirement"), BROKEN)
def test_an_agent_that_breaks_one_rule_fails_exactly_that_requirement(
    tmp_path: Path, version: str, rule: str, requirement: str
) -> None:
    status, report, out, _ = conform(tmp_path, version, *fixture(version, "--break", rule))
    assert status == 1, out
    failed = {i for i, s in outcomes(report).items() if s == "FAIL"}
    assert failed == {requirement}, out
    assert report["verdict"]["conformant"] is False
    assert f"FAIL       {requirement}" in out and "VERDICT: NOT CONFORMANT" in out
    entry = next(r for r in report["requirements"] if r["id"] == requirement)
    for failure in entry["failures"]:
        # The report alone shows the message that broke the rule, in its scenario.
        for where in failure["lines"]:
            said = failure["transcript"][where["line"] - 1]
            assert said["line"] == where["line"] and said["direction"] == "agent-to-client"
        assert failure["scenario"] in {s["name"] for s in report["scenarios"]}


def test_an_advisory_failure_is_reported_but_does_not_decide_the_verdict(
    tmp_path: Path,
) -> None:
    status, report, out, _ = conform(tmp_path, "v1", *fixture("v1", "--break", "one-form"))
    assert status == 0, out
    assert outcomes(report)["prompt-suggestions/one-form"] == "FAIL"
    assert "advisory, not counted: prompt-suggestions/one-form" in out


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_an_agent_that_never_offers_is_conformant_and_its_offer_rules_are_skipped(
    tmp_path: Path, version: str
) -> None:
    status, report, out, _ = conform(tmp_path, version, *fixture(version, "--break", "silent"))
    assert status == 0, out
    offer = {r["id"]: r for r in report["requirements"]}
    skipped = [r for r in offer.values() if r["status"] == "SKIPPED"]
    assert skipped and all(r["reason"].startswith("never offered") for r in skipped)
    assert "PASS" not in {
        r["status"] for r in skipped
    }  # about the content and timing of an offer: never PASS
    if version == "v1":  # the prohibition the scenarios exercised passes
        assert offer["prompt-suggestions/capability"]["status"] == "PASS"


@pytest.mark.parametrize(
    ("misbehavior", "said"),
    [
        ("hang", "no answer to session/prompt"),
        ("crash", "the Agent closed its standard output (it exited with status 3)"),
        ("garbage", "the Agent wrote a line that is not JSON"),
        ("flood-stderr", "no answer to session/prompt"),
        ("flood-stdout", "the Agent wrote more than"),
    ],
)
def test_an_agent_that_misbehaves_as_a_process_fails_and_never_hangs_conform(
    tmp_path: Path, misbehavior: str, said: str
) -> None:
    status, report, out, _ = conform(
        tmp_path,
        "v2",
        *fixture("v2", "--break", misbehavior),
        options=("--timeout", "3", "--scenario-timeout", "30"),
    )
    assert status == 1, out
    assert outcomes(report)["conform/session"] == "FAIL"
    assert {s["status"] for s in report["scenarios"]} == {"broken"}
    assert said in out
    assert "\x1b" not in out and "\u202e" not in out  # the Agent's bytes are escaped
    session = report["requirements"][0]
    assert session["id"] == "conform/session"
    for failure in session["failures"]:
        assert len(failure["stderr"].encode()) <= 16 * 1024
        assert failure["transcript"], failure
    if misbehavior == "flood-stderr":
        assert session["failures"][0]["stderr_bytes"] > 16 * 1024
    if misbehavior == "crash":
        assert "fixture agent: giving up" in session["failures"][0]["stderr"]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_nothing_the_agent_started_outlives_the_run(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    status, report, out, _ = conform(
        tmp_path, "v2", *fixture("v2", "--break", "stubborn", "--pid-file", str(pids))
    )
    assert status == 0, out  # it keeps every rule; it only will not end
    ended = {s["ended"] for s in report["scenarios"]}
    assert ended == {"killed (SIGKILL): it ignored its closed input and SIGTERM"}
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == len(report["scenarios"])
    assert all(_gone(pid) for pid in started)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "give the Agent's command after `--`"),
        (["--"], "give the Agent's command after `--`"),
        (["--", "/nonexistent/agent"], "is not installed"),
        (["--rfd", "no-such-rfd", "--", "true"], "--rfd no-such-rfd: no RFD of that slug"),
        (["--timeout", "0", "--", "true"], "give a number of seconds above 0"),
        (["--timeout", "nan", "--", "true"], "give a number of seconds above 0"),
    ],
)
def test_bad_usage_exits_2_with_a_clear_error(args: list[str], said: str) -> None:
    result = acp(["conform", *args])
    no_traceback(result)
    assert result.returncode == 2
    assert said in result.stderr


def test_failures_are_sarif_results_at_their_requirement(tmp_path: Path) -> None:
    result = acp(
        [
            "conform",
            "--settle",
            "0.05",
            "--format",
            "sarif",
            "--",
            *fixture("v1", "--break", "after-response"),
        ]
    )
    no_traceback(result)
    assert result.returncode == 1
    results = json.loads(result.stdout)["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"prompt-suggestions/after-response"}
    where = results[0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"].endswith("/requirements.yaml")
    assert "VERDICT: NOT CONFORMANT" in result.stderr


def test_the_agent_runs_in_its_own_process_group(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    seen = tmp_path / "seen"
    probe.write_text(
        "import os, runpy, sys\n"
        f"open({str(seen)!r}, 'a').write(f'{{os.getpgrp()}} {{os.getpid()}}\\n')\n"
        f"sys.argv = [{str(AGENT)!r}, '--protocol', 'v1']\n"
        f"runpy.run_path({str(AGENT)!r}, run_name='__main__')\n"
    )
    status, _report, out, _ = conform(tmp_path, "v1", sys.executable, str(probe))
    assert status == 0, out
    for line in seen.read_text().split("\n"):
        if line:
            group, pid = line.split()
            assert group == pid and int(group) != os.getpgrp()


def test_a_process_the_agent_started_in_a_session_of_its_own_is_ended_too(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    status, report, out, _ = conform(
        tmp_path, "v2", *fixture("v2", "--break", "escape", "--pid-file", str(pids))
    )
    assert status == 0, out  # it keeps every rule; what it started keeps its output open
    assert all("outside its group were killed" in s["ended"] for s in report["scenarios"])
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == len(report["scenarios"])
    assert all(_gone(pid) for pid in started)


def test_an_agent_that_stops_reading_its_input_ends_the_scenario(tmp_path: Path) -> None:
    status, report, out, _ = conform(
        tmp_path, "v2", *fixture("v2", "--break", "no-read"), options=("--timeout", "3")
    )
    assert status == 1, out
    # Whichever comes first: its input full for the answer's time limit, or its output over
    # the scenario's bound; never a hang.
    reasons = {s["reason"] for s in report["scenarios"]}
    assert {s["status"] for s in report["scenarios"]} == {"broken"}
    assert all(
        r == "the Agent did not read its standard input for 3 s" or "wrote more than" in r
        for r in reasons
    ), reasons
