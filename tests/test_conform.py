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
    # The broken-stale Agent: the last turn's suggestions again, the moment a prompt arrives.
    ("v1", "stale-resend", "prompt-suggestions/after-response"),
    ("v2", "stale-resend", "prompt-suggestions/while-idle"),
    # Suggestions right after the replay's answer are replayed history too.
    ("v1", "replay-after", "prompt-suggestions/replay"),
    ("v2", "replay-after", "prompt-suggestions/replay"),
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
    assert len(started) == len(report["scenarios"]) + 1  # and the one asked for its version
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


def test_failures_are_sarif_results_that_name_the_requirement_at_the_agents_file(
    tmp_path: Path,
) -> None:
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
    # The Agent's repository has no requirements.yaml: the finding is at the Agent's own file.
    assert where["artifactLocation"]["uri"] == "tests/data/conform_agent.py"
    said = results[0]["message"]["text"]
    assert "prompt-suggestions/after-response (CAPABILITY)" in said and "conform_agent.py" in said
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
    assert len(started) == len(report["scenarios"]) + 1  # and the one asked for its version
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


INCONCLUSIVE = 3


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_an_agent_that_needs_a_login_is_inconclusive_never_a_rule_failure(
    tmp_path: Path, version: str
) -> None:
    status, report, out, _ = conform(tmp_path, version, *fixture(version, "--act", "auth-gated"))
    assert status == INCONCLUSIVE, out
    assert report["verdict"]["blocked_by_auth"] is True
    assert report["verdict"]["conformant"] is False
    assert report["verdict"]["outcome"] == "INCONCLUSIVE"
    assert "FAIL" not in outcomes(report).values(), out
    assert "VERDICT: INCONCLUSIVE" in out and "blocked by authentication" in out
    # Given the login, the same Agent is judged, and keeps every rule.
    status, report, out, _ = conform(
        tmp_path,
        version,
        *fixture(version, "--act", "auth-gated"),
        options=("--auth-method", "fixture-login"),
    )
    assert status == 0, out


def test_the_agents_answer_decides_the_version_judged(tmp_path: Path) -> None:
    status, report, out, _ = conform(tmp_path, "v2", *fixture("v2", "--act", "v1-only"))
    assert status == 0, out
    assert report["protocol_version"] == 1 and report["requested_protocol"] == "v2"
    assert "asked for ACP v2, the Agent answered ACP v1: judged as ACP v1" in out
    assert "prompt-suggestions/capability" in outcomes(report)  # a v1 requirement


def test_a_version_no_one_knows_is_inconclusive(tmp_path: Path) -> None:
    status, report, out, _ = conform(tmp_path, "v1", *fixture("v1", "--act", "unknown-version"))
    assert status == INCONCLUSIVE, out
    assert report["verdict"]["blocked_by_version_mismatch"] is True
    assert "FAIL" not in outcomes(report).values()


@pytest.mark.parametrize(
    ("version", "act"),
    [
        ("v1", "extensions"),
        ("v2", "extensions"),
        ("v1", "cancel-first"),
        ("v2", "cancel-first"),
        ("v1", "permission"),
        ("v2", "permission"),
    ],
)
def test_what_real_agents_do_within_acp_is_conformant(
    tmp_path: Path, version: str, act: str
) -> None:
    """Extension traffic both ways, a prompt cancelled before insertion (an error in v2),
    and permission requests (answered, `cancelled` in a cancelled turn) break nothing."""
    status, report, out, _ = conform(tmp_path, version, *fixture(version, "--act", act))
    assert status == 0, out
    assert outcomes(report)["conform/session"] == "PASS", out


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_turns_that_end_in_an_error_are_inconclusive_not_completed(
    tmp_path: Path, version: str
) -> None:
    status, report, out, _ = conform(tmp_path, version, *fixture(version, "--act", "error-turns"))
    assert status == INCONCLUSIVE, out
    turns = [s for s in report["scenarios"] if s["name"] != "without-capability"]
    assert turns and all(s["status"] == "blocked" for s in turns), report["scenarios"]
    assert "FAIL" not in outcomes(report).values()


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_slow_but_correct_suggester_is_conformant(tmp_path: Path, version: str) -> None:
    status, report, out, _ = conform(
        tmp_path, version, *fixture(version, "--act", "slow"), options=("--settle", "1")
    )
    assert status == 0, out
    assert outcomes(report)["prompt-suggestions/empty-text"] == "PASS", out


def test_the_legacy_form_alone_offers_nothing_the_offer_rules_judge(tmp_path: Path) -> None:
    status, report, out, _ = conform(tmp_path, "v1", *fixture("v1", "--act", "legacy-only"))
    assert status == 0, out
    offer = outcomes(report)
    assert offer["prompt-suggestions/empty-text"] == "SKIPPED"
    assert offer["prompt-suggestions/after-response"] == "SKIPPED"


def test_expected_failures_gate_on_regressions_and_stale_entries_fail(tmp_path: Path) -> None:
    expected = tmp_path / "expected.yaml"
    expected.write_text("agent:\n  - prompt-suggestions/after-response\n")
    status, report, out, _ = conform(
        tmp_path,
        "v1",
        *fixture("v1", "--break", "stale-resend"),
        options=("--expected-failures", str(expected)),
    )
    assert status == 0, out
    assert "expected, not counted: prompt-suggestions/after-response" in out
    status, report, out, _ = conform(
        tmp_path, "v1", *fixture("v1"), options=("--expected-failures", str(expected))
    )
    assert status == 1, out
    assert report["verdict"]["stale_expected_failures"] == ["prompt-suggestions/after-response"]
    expected.write_text("agent:\n  - prompt-suggestions/no-such-rule\n")
    result = acp(["conform", "--expected-failures", str(expected), "--", *fixture("v1")])
    assert result.returncode == 2 and "no-such-rule" in result.stderr


def test_the_json_report_reads_as_acp_tcks_and_the_json_format_has_the_verdict(
    tmp_path: Path,
) -> None:
    status, report, _out, _ = conform(tmp_path, "v2", *fixture("v2", "--break", "while-idle"))
    assert status == 1
    # What acp-tck's cross-check-summary.py reads, with the types it needs.
    assert isinstance(report["protocol_version"], int) and report["protocol_version"] == 2
    for requirement in report["requirements"]:
        assert isinstance(requirement["id"], str) and isinstance(requirement["status"], str)
        for test in requirement["tests"]:
            assert {"nodeid", "status", "duration_s"} <= set(test)
    verdict = report["verdict"]
    assert verdict["conformant"] is False and verdict["blocked_by_auth"] is False
    assert set(verdict["tier_counts"]["MANDATORY"]) == {"PASS", "FAIL", "SKIPPED", "NOT_TESTED"}
    for key in ("tck_version", "schema_revision", "agent_capabilities", "agent_command"):
        assert key in report
    failing = next(r for r in report["requirements"] if r["status"] == "FAIL")
    test = next(t for t in failing["tests"] if t["status"] == "FAIL")
    assert test["transcript"] and {"dir", "t", "raw"} <= set(test["transcript"][0])
    result = acp(["conform", "--settle", "0.05", "--format", "json", "--", *fixture("v1")])
    assert json.loads(result.stdout)["verdict"]["outcome"] == "CONFORMANT"


def test_an_agent_that_never_answers_initialize_is_not_said_to_lack_a_capability(
    tmp_path: Path,
) -> None:
    silent = (sys.executable, "-c", "import time; time.sleep(600)")
    status, report, out, _ = conform(
        tmp_path, "v1", *silent, options=("--startup-timeout", "0.5", "--scenario", "two-turns")
    )
    assert status == 1, out  # it hangs: the session is broken
    gated = next(r for r in report["requirements"] if r["id"] == "prompt-suggestions/empty-text")
    assert "never answered initialize" in gated["reason"], gated


def test_the_report_is_never_written_through_a_link_made_during_the_run(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    report = tmp_path / "report.json"
    # The Agent turns the report path into a link while it runs.
    code = (
        "import os, sys, json\n"
        f"os.symlink({str(target)!r}, {str(report)!r})\n"
        "for line in sys.stdin: pass\n"
    )
    result = acp(
        [
            "conform",
            "--startup-timeout",
            "0.5",
            "--scenario",
            "two-turns",
            "--report-json",
            str(report),
            "--",
            sys.executable,
            "-c",
            code,
        ]
    )
    no_traceback(result)
    assert result.returncode == 2 and "symlink" in result.stderr
    assert target.read_text() == "keep me\n"
