"""Reporters: text, GitHub annotations, JSON and SARIF, safe for any file name or message."""

from __future__ import annotations

import json
from pathlib import Path

from acp_docs.findings import CheckResult, Finding
from acp_docs.reporters import Report, render

from conftest import acp, new_rfd, no_traceback, replace_in

PLAIN = Finding("rfds/a.md", 3, 5, "examples", "bad payload", "examples/invalid-payload")
FORGED = Finding(
    "rfds/x\n::error file=mkdocs.yml,line=1::forged.md", 1, 1, "rfds", "50% done\r\nnext", ""
)
UNDECODABLE = Finding("rfds/caf\udce9.md", 2, 1, "rfds", "name is not UTF-8", "rfds/file-name")


def test_text_is_one_line_per_finding_whatever_the_name() -> None:
    out = render(Report("check", [PLAIN, FORGED, UNDECODABLE]), "text")
    lines = out.splitlines()
    assert len(lines) == 3
    assert "rfds/a.md:3:5: bad payload" in lines
    assert not any(line.startswith("::") for line in lines)
    assert "rfds/caf\\udce9.md:2:1: name is not UTF-8" in lines
    out.encode("utf-8")


def test_github_annotations_cannot_be_forged_by_a_file_name() -> None:
    out = render(Report("check", [PLAIN, FORGED]), "github")
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert len(commands) == 2
    assert (
        "::error file=rfds/a.md,line=3,col=5,title=acp-docs examples/invalid-payload::bad payload"
        in commands
    )
    forged = next(c for c in commands if "forged" in c)
    assert forged.startswith("::error file=rfds/x%0A%3A%3Aerror file=mkdocs.yml%2Cline=1%3A%3A")
    assert forged.endswith("::50%25 done%0D%0Anext")


def test_json_report_lists_findings_checks_and_errors() -> None:
    result = CheckResult("examples", (PLAIN,), 0.5)
    doc = json.loads(render(Report("check", [PLAIN], [result], ["spell: aspell missing"]), "json"))
    assert doc["findings"] == [
        {
            "path": "rfds/a.md",
            "line": 3,
            "col": 5,
            "check": "examples",
            "rule": "examples/invalid-payload",
            "message": "bad payload",
        }
    ]
    assert doc["checks"][0]["status"] == "failed"
    assert doc["errors"] == ["spell: aspell missing"]


def test_sarif_has_a_rule_per_kind_and_locations() -> None:
    log = json.loads(render(Report("check", [PLAIN, UNDECODABLE], (), ["x: y"]), "sarif"))
    assert log["version"] == "2.1.0"
    run_ = log["runs"][0]
    rules = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    assert rules == ["examples/invalid-payload", "rfds/file-name"]
    first = run_["results"][0]
    assert first["ruleId"] == rules[first["ruleIndex"]]
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "rfds/a.md", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 3, "startColumn": 5}
    assert run_["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "rfds/caf%E9.md"
    )
    assert run_["invocations"][0]["executionSuccessful"] is False
    assert run_["tool"]["driver"]["informationUri"].startswith("https://")


def test_every_reporting_command_takes_format_and_keeps_summaries_off_stdout(
    repo_copy: Path,
) -> None:
    made = new_rfd(repo_copy, "session-labels", "Session labels")
    replace_in(repo_copy / made.shown, "## Elevator pitch\n", "## Later\n")
    fixture = repo_copy / "SessionUpdate.meta-not-an-object.json"
    fixture.write_text(
        '{"sessionUpdate": "agent_message_chunk",'
        ' "content": {"type": "text", "text": "Hi"}, "_meta": 5}\n'
    )
    commands = [
        ["rfds"],
        ["examples", "rfds"],
        ["schema", "check"],
        ["validate", "--protocol", "v1", "--def", "SessionUpdate", str(fixture)],
    ]
    for command in commands:
        result = acp([*command, "--format", "sarif"], cwd=repo_copy)
        no_traceback(result)
        log = json.loads(result.stdout)
        assert log["version"] == "2.1.0", command
        assert result.stderr.strip(), command
    validate = acp([*commands[3], "--format", "github"], cwd=repo_copy)
    assert validate.returncode == 1
    assert (
        "::error file=" in validate.stdout
        and "SessionUpdate.meta-not-an-object.json" in validate.stdout
    )
    assert "0 valid, 1 invalid" in validate.stderr
    assert "valid," not in validate.stdout
