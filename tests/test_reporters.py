"""Reporters: text, GitHub annotations, JSON and SARIF, safe for any file name or message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_docs.core.findings import CheckResult, Finding
from acp_docs.reporters import Report
from acp_docs.reporters.registry import render
from acp_docs.reporters.text import printable

from conftest import acp, new_rfd, no_traceback, replace_in

PLAIN = Finding("rfds/a.md", 3, 5, "examples", "bad payload", "examples/invalid-payload")
FORGED = Finding(
    "rfds/x\n::error file=mkdocs.yml,line=1::forged.md", 1, 1, "rfds", "50% done\r\nnext", ""
)
UNDECODABLE = Finding("rfds/caf\udce9.md", 2, 1, "rfds", "name is not UTF-8", "rfds/file-name")


BIDI = Finding(
    "rfds/\u202eevil\u2066\u200b\x1b[2J.md",
    4,
    2,
    "rfds",
    "title 'abc\u202edef' has \u061c\ufeff\u3164 hidden\x07",
    "rfds/title: x,y",
)


def _unescape(value: str, prop: bool) -> str:
    """A workflow command's value as the runner reads it back (`%25` last)."""
    codes = {"%0D": "\r", "%0A": "\n", **({"%3A": ":", "%2C": ","} if prop else {})}
    for code, char in codes.items():
        value = value.replace(code, char)
    return value.replace("%25", "%")


def _read_command(line: str) -> tuple[dict[str, str], str]:
    """The properties and message of an `::error` command, parsed as the runner parses it."""
    assert line.startswith("::error ")
    props, _, message = line[len("::error ") :].partition("::")
    fields = dict(p.split("=", 1) for p in props.split(","))
    return (
        {k: _unescape(v, prop=True) for k, v in fields.items()},
        _unescape(message, prop=False),
    )


def test_text_is_one_line_per_finding_whatever_the_name() -> None:
    out = render(Report("check", [PLAIN, FORGED, UNDECODABLE]), "text")
    lines = out.splitlines()
    assert len(lines) == 3
    assert "rfds/a.md:3:5: error: bad payload [examples/invalid-payload]" in lines
    assert not any(line.startswith("::") for line in lines)
    assert "rfds/caf\\udce9.md:2:1: error: name is not UTF-8 [rfds/file-name]" in lines
    out.encode("utf-8")


def test_text_shows_bidirectional_and_invisible_characters_as_escapes() -> None:
    out = render(Report("check", [BIDI]), "text")
    assert out == (
        "rfds/\\u202eevil\\u2066\\u200b\\x1b[2J.md:4:2: error: title 'abc\\u202edef' has"
        " \\u061c\\ufeff\\u3164 hidden\\x07 [rfds/title: x,y]\n"
    )
    # The CLI's own messages go through the same function.
    assert printable("a\u2067b\u2028c\u00a0d\ufe0f") == "a\\u2067b\\u2028c\\xa0d\\ufe0f"
    assert (
        printable("caf\u00e9 \u2014 \u201cq\u201d \u0430")
        == "caf\u00e9 \u2014 \u201cq\u201d \u0430"
    )


def test_github_annotations_cannot_be_forged_by_a_file_name() -> None:
    out = render(Report("check", [PLAIN, FORGED]), "github")
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert len(commands) == 2
    assert (
        "::error file=rfds/a.md,line=3,col=5,title=acp-docs examples/invalid-payload::bad payload"
        in commands
    )
    forged = next(c for c in commands if "forged" in c)
    assert forged.startswith("::error file=rfds/x\\n%3A%3Aerror file=mkdocs.yml%2Cline=1%3A%3A")
    assert forged.endswith("::50%25 done\\r%0Anext")
    props, message = _read_command(forged)
    assert props["file"] == "rfds/x\\n::error file=mkdocs.yml,line=1::forged.md"
    assert (props["line"], props["col"]) == ("1", "1")
    assert message == "50% done\\r\nnext", "a message's own line break stays one"


def test_github_annotations_show_what_a_reviewer_reads_in_order() -> None:
    out = render(Report("check", [BIDI, UNDECODABLE]), "github")
    lines = out.splitlines()
    assert len(lines) == 4, "a text line and an annotation for each finding"
    for char in "\u202e\u2066\u200b\x1b\u061c\ufeff\u3164\x07\r":
        assert char not in out, repr(char)
    out.encode("utf-8")
    props, message = _read_command(
        next(line for line in lines if "evil" in line and line.startswith("::"))
    )
    assert props["file"] == "rfds/\\u202eevil\\u2066\\u200b\\x1b[2J.md"
    assert props["title"] == "acp-docs rfds/title: x,y"
    assert message == "title 'abc\\u202edef' has \\u061c\\ufeff\\u3164 hidden\\x07"
    props, _ = _read_command(
        next(line for line in lines if "caf" in line and line.startswith("::"))
    )
    assert props["file"] == "rfds/caf\\udce9.md"


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
            "level": "error",
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


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_keep_real_characters_and_stay_valid_unicode(fmt: str) -> None:
    result = CheckResult("rfds", (BIDI, UNDECODABLE), 0.1, None)
    out = render(Report("check", [BIDI, UNDECODABLE], [result], ["x\udcff: \u202e"]), fmt)
    out.encode("ascii")
    doc = json.loads(out)
    strings = _strings(doc)
    for text in strings:
        text.encode("utf-8")  # no lone surrogate: any JSON parser reads it
    assert any("title 'abc\u202edef' has \u061c\ufeff\u3164 hidden\x07" in t for t in strings)
    assert "x\\udcff: \u202e" in strings
    if fmt == "json":
        paths = [f["path"] for f in doc["findings"]]
        assert paths == ["rfds/caf\\udce9.md", "rfds/\u202eevil\u2066\u200b\x1b[2J.md"]
    else:
        uris = [
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]
        ]
        assert uris == ["rfds/caf%E9.md", "rfds/%E2%80%AEevil%E2%81%A6%E2%80%8B%1B%5B2J.md"]


def test_a_payload_file_named_to_reorder_the_terminal_is_shown_escaped(repo_copy: Path) -> None:
    name = "pay\u202enosj.\x1b[31m.json"
    payload = repo_copy / name
    payload.write_text('{"sessionUpdate": "agent_message_chunk"}\n')
    for fmt in ("text", "github"):
        result = acp(
            ["validate", "--protocol", "v1", "--def", "SessionUpdate", name, "--format", fmt],
            cwd=repo_copy,
        )
        no_traceback(result)
        assert result.returncode == 1, result.stderr
        for stream in (result.stdout, result.stderr):
            assert "\u202e" not in stream and "\x1b" not in stream
        assert "pay\\u202enosj.\\x1b[31m.json:" in result.stdout
        if fmt == "github":
            (command,) = [line for line in result.stdout.splitlines() if line.startswith("::")]
            assert _read_command(command)[0]["file"] == "pay\\u202enosj.\\x1b[31m.json"


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
    validate = acp([*commands[3], "--strict", "--format", "github"], cwd=repo_copy)
    assert validate.returncode == 1
    assert (
        "::warning file=" in validate.stdout
        and "SessionUpdate.meta-not-an-object.json" in validate.stdout
    )
    assert "0 valid, 1 accepted with warnings, 0 invalid" in validate.stderr
    assert "valid," not in validate.stdout


def test_a_warning_and_a_note_say_their_level_and_do_not_fail_their_check() -> None:
    warning = Finding("rfds/a.md", 1, 1, "examples", "odd", "examples/x", "warning")
    note = Finding("rfds/a.md", 2, 1, "examples", "fyi", "examples/y", "note")
    result = CheckResult("examples", (warning, note), 0.1)
    assert result.status == "ok"
    assert render(Report("check", [warning, note], [result]), "text") == (
        "rfds/a.md:1:1: warning: odd [examples/x]\nrfds/a.md:2:1: note: fyi [examples/y]\n"
    )
    github = render(Report("check", [warning, note]), "github").splitlines()
    assert github[1].startswith("::warning ") and github[3].startswith("::notice ")
    sarif = json.loads(render(Report("check", [warning, note]), "sarif"))
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["warning", "note"]


def test_a_finding_of_no_known_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown finding level"):
        Finding("rfds/a.md", 1, 1, "examples", "x", "examples/x", "fatal")
