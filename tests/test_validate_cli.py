"""`acp-docs validate`: each exit status for the case it names, never a traceback."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, acp, no_traceback

FIXTURES = ROOT / "schema" / "examples"


def _validate(*args: str, cwd: Path = ROOT):
    result = acp(["validate", *args], cwd=cwd)
    no_traceback(result)
    return result


def test_valid_files_exit_0() -> None:
    result = _validate(
        "--protocol",
        "v1",
        "--def",
        "SessionUpdate",
        str(FIXTURES / "v1" / "valid" / "SessionUpdate.empty-list.json"),
        str(FIXTURES / "v1" / "valid" / "SessionUpdate.several-suggestions.json"),
    )
    assert result.returncode == 0
    assert "2 valid, 0 invalid" in result.stderr


def test_a_json_rpc_message_is_dispatched_without_def() -> None:
    result = _validate(
        "--protocol", "v2", str(FIXTURES / "v2" / "valid" / "message.session-update.json")
    )
    assert result.returncode == 0
    assert "[v2 UpdateSessionNotification]" in result.stderr


def test_invalid_files_exit_1_naming_each() -> None:
    first = FIXTURES / "v1" / "lenient" / "SessionUpdate.meta-not-an-object.json"
    second = FIXTURES / "v1" / "invalid" / "SessionUpdate.missing-suggestions.json"
    good = FIXTURES / "v1" / "valid" / "SessionUpdate.empty-list.json"
    result = _validate(
        "--protocol", "v1", "--def", "SessionUpdate", str(first), str(second), str(good)
    )
    assert result.returncode == 1
    assert (
        "schema/examples/v1/lenient/SessionUpdate.meta-not-an-object.json:1:1: [v1 SessionUpdate]"
        " /_meta: 'turn 3' is not of type 'object', 'null'"
        " (a receiver drops /_meta and keeps the message)" in result.stdout
    )
    assert (
        "SessionUpdate.missing-suggestions.json:1:1: [v1 SessionUpdate]"
        " (root): 'suggestions' is a required property (a receiver rejects the message)"
        in result.stdout
    )
    assert "1 valid, 2 invalid" in result.stderr


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(tmp_path / "nope.json"))
    assert result.returncode == 2
    assert "nope.json: no such file" in result.stderr


def test_bad_utf8_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{\n"text": "\xff"}\n')
    result = _validate("--protocol", "v1", "--def", "PromptSuggestion", str(path))
    assert result.returncode == 2
    assert "bad.json:2: not valid UTF-8" in result.stderr


def test_malformed_json_exits_2_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "sessionUpdate": "prompt_suggestions",\n  "suggestions": [,]\n}\n')
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(path))
    assert result.returncode == 2
    assert "broken.json:3:19: malformed JSON" in result.stderr


def test_unknown_definition_exits_2() -> None:
    path = FIXTURES / "v2" / "valid" / "SessionUpdate.empty-list.json"
    result = _validate("--protocol", "v2", "--def", "ClientSessionCapabilities", str(path))
    assert result.returncode == 2
    assert "unknown definition 'ClientSessionCapabilities'" in result.stderr


def test_unknown_protocol_exits_2() -> None:
    path = FIXTURES / "v2" / "valid" / "SessionUpdate.empty-list.json"
    result = _validate("--protocol", "v3", str(path))
    assert result.returncode == 2
    assert "invalid choice: 'v3'" in result.stderr


def test_neither_declared_nor_json_rpc_exits_2() -> None:
    path = FIXTURES / "v1" / "valid" / "SessionUpdate.empty-list.json"
    result = _validate("--protocol", "v1", str(path))
    assert result.returncode == 2
    assert "not a JSON-RPC message" in result.stderr
    assert "--def" in result.stderr


def test_outside_a_checkout_exits_2(tmp_path: Path) -> None:
    path = FIXTURES / "v1" / "valid" / "SessionUpdate.empty-list.json"
    result = _validate("--protocol", "v1", "--def", "SessionUpdate", str(path), cwd=tmp_path)
    assert result.returncode == 2
    assert "no mkdocs.yml" in result.stderr
