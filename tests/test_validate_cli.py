"""`acp-docs validate`: each exit status for the case it names, never a traceback.

The payloads are the tests' own, of definitions the published ACP schemas have,
so nothing here depends on the RFDs or fixtures the repository holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, acp, no_traceback

CHUNK = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi"}}
CHUNK_V2 = {**CHUNK, "messageId": "msg_1"}
PAYLOADS = {
    "v1/valid/SessionUpdate.chunk.json": CHUNK,
    "v1/valid/SessionUpdate.empty-plan.json": {"sessionUpdate": "plan", "entries": []},
    "v1/lenient/SessionUpdate.meta-not-an-object.json": {**CHUNK, "_meta": "turn 3"},
    "v1/invalid/SessionUpdate.missing-content.json": {"sessionUpdate": "agent_message_chunk"},
    "v2/valid/SessionUpdate.chunk.json": CHUNK_V2,
    "v2/valid/message.session-update.json": {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "sess_7f3a", "update": CHUNK_V2},
    },
}


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    """A folder of payload files, laid out as schema/examples is."""
    folder = tmp_path / "examples"
    for name, payload in PAYLOADS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(payload, indent=2) + "\n")
    return folder


def _validate(*args: str, cwd: Path = ROOT):
    result = acp(["validate", *args], cwd=cwd)
    no_traceback(result)
    return result


def test_valid_files_exit_0(fixtures: Path) -> None:
    result = _validate(
        "--protocol",
        "v1",
        "--def",
        "SessionUpdate",
        str(fixtures / "v1" / "valid" / "SessionUpdate.chunk.json"),
        str(fixtures / "v1" / "valid" / "SessionUpdate.empty-plan.json"),
    )
    assert result.returncode == 0
    assert "2 valid, 0 accepted with warnings, 0 invalid" in result.stderr


def test_a_json_rpc_message_is_dispatched_without_def(fixtures: Path) -> None:
    result = _validate(
        "--protocol", "v2", str(fixtures / "v2" / "valid" / "message.session-update.json")
    )
    assert result.returncode == 0
    assert "[v2 UpdateSessionNotification]" in result.stderr


def test_invalid_files_exit_1_naming_each(fixtures: Path) -> None:
    first = fixtures / "v1" / "lenient" / "SessionUpdate.meta-not-an-object.json"
    second = fixtures / "v1" / "invalid" / "SessionUpdate.missing-content.json"
    good = fixtures / "v1" / "valid" / "SessionUpdate.chunk.json"
    result = _validate(
        "--protocol", "v1", "--def", "SessionUpdate", str(first), str(second), str(good)
    )
    assert result.returncode == 1
    assert (
        "examples/v1/lenient/SessionUpdate.meta-not-an-object.json:1:1: warning: [v1 SessionUpdate]"
        " /_meta: 'turn 3' is not of type 'object', 'null'"
        " (a receiver drops /_meta and keeps the message)" in result.stdout
    ), result.stdout
    assert (
        "SessionUpdate.missing-content.json:1:1: error: [v1 SessionUpdate]"
        " (root): 'content' is a required property (a receiver rejects the message)"
        in result.stdout
    )
    assert "1 valid, 1 accepted with warnings, 1 invalid" in result.stderr


UNKNOWN_MEMBER = {
    "sessionUpdate": "agent_message_chunk",
    "content": {"type": "text", "text": "Hi", "futureField": 1},
}


@pytest.mark.parametrize("strict", [False, True])
def test_an_unknown_member_is_accepted_with_a_warning_naming_it(
    tmp_path: Path, strict: bool
) -> None:
    path = tmp_path / "future.json"
    path.write_text(json.dumps(UNKNOWN_MEMBER, indent=2) + "\n")
    flags = ["--strict"] if strict else []
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", *flags, str(path))
    assert result.returncode == (1 if strict else 0), result.stdout + result.stderr
    assert "futureField" in result.stdout
    assert "warning:" in result.stdout
    assert "0 valid, 1 accepted with warnings, 0 invalid" in result.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_the_warning_carries_its_rule_and_level(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "future.json"
    path.write_text(json.dumps(UNKNOWN_MEMBER) + "\n")
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", "--format", fmt, str(path))
    assert result.returncode == 0
    report = json.loads(result.stdout)
    if fmt == "json":
        (finding,) = report["findings"]
        assert (finding["rule"], finding["level"]) == ("validate/unknown-member", "warning")
        assert "futureField" in finding["message"]
    else:
        (sarif_result,) = report["runs"][0]["results"]
        assert sarif_result["ruleId"] == "validate/unknown-member"
        assert sarif_result["level"] == "warning"


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert "nope.json: no such file" in result.stderr


def test_bad_utf8_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{\n"text": "\xff"}\n')
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(path))
    assert result.returncode == 2
    assert "bad.json:2: not valid UTF-8" in result.stderr


def test_malformed_json_exits_2_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "sessionUpdate": "prompt_suggestions",\n  "suggestions": [,]\n}\n')
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(path))
    assert result.returncode == 2
    assert "broken.json:3:19: malformed JSON" in result.stderr


def test_unknown_definition_exits_2(fixtures: Path) -> None:
    path = fixtures / "v2" / "valid" / "SessionUpdate.chunk.json"
    result = _validate("--protocol", "v2", "--def", "ClientSessionCapabilities", str(path))
    assert result.returncode == 2
    assert "unknown definition 'ClientSessionCapabilities'" in result.stderr


def test_unknown_protocol_exits_2(fixtures: Path) -> None:
    path = fixtures / "v2" / "valid" / "SessionUpdate.chunk.json"
    result = _validate("--protocol", "v9", str(path))
    assert result.returncode == 2
    assert "invalid choice: 'v9'" in result.stderr


def test_neither_declared_nor_json_rpc_exits_2(fixtures: Path) -> None:
    path = fixtures / "v1" / "valid" / "SessionUpdate.chunk.json"
    result = _validate("--protocol", "v1", str(path))
    assert result.returncode == 2
    assert "not a JSON-RPC message" in result.stderr
    assert "--def" in result.stderr


def test_outside_a_checkout_exits_2(fixtures: Path, tmp_path: Path) -> None:
    path = fixtures / "v1" / "valid" / "SessionUpdate.chunk.json"
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(path), cwd=tmp_path)
    assert result.returncode == 2
    assert "no mkdocs.yml" in result.stderr


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_extension_methods_are_valid_messages_in_both_versions(
    tmp_path: Path, version: str
) -> None:
    notification = tmp_path / "status.json"
    notification.write_text(
        '{"jsonrpc": "2.0", "method": "_auth/status_update", "params": {"authStatus": {}}}'
    )
    request = tmp_path / "ask.json"
    request.write_text('{"jsonrpc": "2.0", "id": 3, "method": "_vendor/ask", "params": {}}')
    unknown = tmp_path / "unknown.json"
    unknown.write_text('{"jsonrpc": "2.0", "method": "vendor/ask", "params": {}}')
    result = _validate("--protocol", version, str(notification), str(request))
    assert result.returncode == 0, result.stdout + result.stderr
    assert _validate("--protocol", version, str(unknown)).returncode == 2
