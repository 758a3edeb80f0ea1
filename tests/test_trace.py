"""`acp-docs trace` and the reference Agent and Client on the real Python SDK."""

from __future__ import annotations

import importlib.util
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

from conftest import ROOT, acp, no_traceback

SESSION = ROOT / "scripts" / "reference" / "session.py"
CAPABLE = ()
NO_CAPABILITY = ("--legacy-client", "--no-migration", "--wait", "0.25")
LEGACY = ("--legacy-client",)


def _load_session() -> ModuleType:
    """Import the reference Client's script by path (scripts/reference is no package)."""
    spec = importlib.util.spec_from_file_location("reference_session", SESSION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


session_py = _load_session()


def record(out: Path, *flags: str) -> Path:
    """Run the reference pair as `session.py` does (the Agent is a process of its own).

    Run in a thread: `main` starts an event loop of its own.
    """
    assert session_py.main(["--out", str(out), *flags]) == 0
    return out


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Path]:
    """The sessions this module reads, recorded at once: the pairs mostly wait on each other."""
    folder = tmp_path_factory.mktemp("trace")
    with ThreadPoolExecutor(3) as pool:
        started = {
            flags: pool.submit(record, folder / f"session{n}.jsonl", *flags)
            for n, flags in enumerate((CAPABLE, NO_CAPABILITY, LEGACY))
        }
        return {flags: future.result(timeout=60) for flags, future in started.items()}


@pytest.fixture(scope="module")
def recorded(recordings: dict[tuple[str, ...], Path]) -> list[str]:
    """The lines of a session the reference pair recorded, capability advertised."""
    return recordings[CAPABLE].read_text().splitlines()


def trace(path: Path, *extra: str):
    result = acp(["trace", "--protocol", "v1", str(path), *extra])
    no_traceback(result)
    return result


def found(result) -> list[tuple[int, str]]:
    """(line, rule) of each finding in the JSON report."""
    return [(f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]]


def _lines_with(lines: list[str], needle: str) -> list[int]:
    return [n for n, line in enumerate(lines, start=1) if needle in line]


def test_the_reference_session_passes(recorded: list[str], tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(recorded) + "\n")
    result = trace(path)
    assert result.returncode == 0, result.stdout
    kinds = [json.loads(line)["message"].get("method") for line in recorded]
    assert kinds[:3] == ["initialize", None, "session/new"]
    suggestions = _lines_with(recorded, '"prompt_suggestions"')
    assert len(suggestions) == 2, "one update after each turn"
    prompts = [json.loads(recorded[n - 1]) for n in _lines_with(recorded, '"session/prompt"')]
    offered = json.loads(recorded[suggestions[0] - 1])["message"]["params"]["update"]
    sent_next = prompts[1]["message"]["params"]["prompt"][0]["text"]
    assert sent_next == offered["suggestions"][0]["text"], "accepted, then sent by the user"


def test_without_the_capability_the_agent_sends_no_suggestion(
    recordings: dict[tuple[str, ...], Path],
) -> None:
    path = recordings[NO_CAPABILITY]
    text = path.read_text()
    assert "prompt_suggestions" not in text and "promptSuggestions" not in text
    assert trace(path).returncode == 0


def test_the_migration_sends_the_legacy_form_only_to_a_legacy_client(
    recordings: dict[tuple[str, ...], Path],
) -> None:
    path = recordings[LEGACY]
    lines = path.read_text().splitlines()
    assert len(_lines_with(lines, '"promptSuggestions": {"suggestions": [')) == 2
    assert not _lines_with(lines, '"prompt_suggestions"')
    assert trace(path).returncode == 0


def _without_capability(lines: list[str]) -> tuple[list[str], list[int]]:
    first = json.loads(lines[0])
    first["message"]["params"]["clientCapabilities"]["session"] = {}
    return [json.dumps(first), *lines[1:]], _lines_with(lines, '"prompt_suggestions"')


def _empty_text(lines: list[str]) -> tuple[list[str], list[int]]:
    line = _lines_with(lines, '"prompt_suggestions"')[0]
    changed = list(lines)
    changed[line - 1] = changed[line - 1].replace('"Run the test suite"', '""', 1)
    return changed, [line]


def _swapped(lines: list[str], a: int, b: int) -> list[str]:
    """The lines with the messages of lines `a` and `b` (1-based) swapped, each line keeping its
    time, so the times still go forward."""
    changed = list(lines)
    first, second = json.loads(lines[a - 1]), json.loads(lines[b - 1])
    moved = first["direction"], first["message"]
    first["direction"], first["message"] = second["direction"], second["message"]
    second["direction"], second["message"] = moved
    changed[a - 1], changed[b - 1] = json.dumps(first), json.dumps(second)
    return changed


def _early(lines: list[str]) -> tuple[list[str], list[int]]:
    suggestion = _lines_with(lines, '"prompt_suggestions"')[0]
    response = suggestion - 1
    return _swapped(lines, response, suggestion), [response]


def _replayed(lines: list[str]) -> tuple[list[str], list[int]]:
    suggestion = lines[_lines_with(lines, '"prompt_suggestions"')[0] - 1]
    suggestion = json.dumps({**json.loads(suggestion), "time": json.loads(lines[-1])["time"]})
    load = {
        "direction": "client-to-agent",
        "message": {
            "jsonrpc": "2.0",
            "id": 90,
            "method": "session/load",
            "params": {"sessionId": "sess_reference_1", "cwd": "/", "mcpServers": []},
        },
    }
    done = {"direction": "agent-to-client", "message": {"jsonrpc": "2.0", "id": 90, "result": {}}}
    changed = [*lines, json.dumps(load), suggestion, json.dumps(done)]
    return changed, [len(lines) + 2]


def _both_forms(lines: list[str]) -> tuple[list[str], list[int]]:
    legacy = {
        "direction": "agent-to-client",
        "message": {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": "sess_reference_1",
                "update": {
                    "sessionUpdate": "session_info_update",
                    "_meta": {"promptSuggestions": {"suggestions": [{"text": "Run it"}]}},
                },
            },
        },
    }
    return [*lines, json.dumps(legacy)], [len(lines) + 1]


PLANTS = {
    "prompt-suggestions/capability": _without_capability,
    "prompt-suggestions/empty-text": _empty_text,
    "prompt-suggestions/after-response": _early,
    "prompt-suggestions/replay": _replayed,
    "prompt-suggestions/one-form": _both_forms,
}


@pytest.mark.parametrize("rule", sorted(PLANTS))
def test_each_wire_rule_finds_its_planted_violation_at_its_line(
    recorded: list[str], tmp_path: Path, rule: str
) -> None:
    lines, expected = PLANTS[rule](recorded)
    path = tmp_path / "planted.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = trace(path, "--format", "json")
    assert result.returncode == 1
    assert sorted(line for line, r in found(result) if r == rule) == expected
    assert {r for _line, r in found(result)} <= {rule, "trace/schema"}


@pytest.mark.build
def test_every_rule_is_listed_on_the_docs_page(built_site: Path) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.requirements.rules import rules
    from acp_docs.rfds.files import requirement_sets

    page = (built_site / "tooling" / "sessions" / "index.html").read_text()
    judged = rules(requirement_sets(Repo.load(ROOT)))
    assert set(PLANTS) <= {rule.id for rule in judged}
    for rule in judged:
        assert f"<code>{rule.id}</code>" in page


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json\n", "1:1: error: malformed JSON"),
        (
            '{"id": 1, "method": "initialize", "params": {}}\n',
            "1:1: error: not a JSON-RPC 2.0 message",
        ),
        (
            '{"jsonrpc": "2.0", "method": "session/nope", "params": {}}\n',
            "1:1: error: no ACP v1 method",
        ),
        (
            '{"jsonrpc": "2.0", "id": 7, "result": {}}\n',
            "1:1: error: response to unknown request id 7",
        ),
        (
            '{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpS',
            "1:1: error: malformed JSON",
        ),
        (
            '{"jsonrpc": "2.0", "id": 1, "method": "session/new",'
            ' "params": {"cwd": "/", "mcpServers": []}}\n',
            "1:1: error: session/new (id 1) is never answered",
        ),
    ],
)
def test_bad_traces_are_findings_never_a_traceback(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    result = trace(path)
    assert result.returncode == 1
    assert f"{path.as_posix()}:{says}" in result.stdout


def test_an_unreadable_trace_exits_2(tmp_path: Path) -> None:
    result = trace(tmp_path / "missing.jsonl")
    assert result.returncode == 2
    assert "missing.jsonl: no such file" in result.stderr


def test_a_second_prompt_while_one_is_open_leaves_nothing_in_flight(tmp_path: Path) -> None:
    def wrapped(direction: str, body: dict) -> str:
        return json.dumps({"direction": direction, "message": {"jsonrpc": "2.0", **body}})

    session = {"sessionId": "s1"}
    ask = {"prompt": [{"type": "text", "text": "go"}], **session}
    text = {"type": "text", "text": "…"}
    chunk = {"update": {"sessionUpdate": "agent_message_chunk", "content": text}}
    offer = {"update": {"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "Next"}]}}
    lines = [
        wrapped(
            "client-to-agent",
            {
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": 1,
                    "clientCapabilities": {"session": {"promptSuggestions": {}}},
                },
            },
        ),
        wrapped("agent-to-client", {"id": 0, "result": {"protocolVersion": 1}}),
        wrapped("client-to-agent", {"id": 1, "method": "session/prompt", "params": ask}),
        wrapped("agent-to-client", {"id": 1, "result": {"stopReason": "end_turn"}}),
        wrapped("client-to-agent", {"id": 2, "method": "session/prompt", "params": ask}),
        wrapped("agent-to-client", {"method": "session/update", "params": {**session, **chunk}}),
        wrapped("client-to-agent", {"id": 3, "method": "session/prompt", "params": ask}),
        wrapped("agent-to-client", {"method": "session/update", "params": {**session, **offer}}),
        wrapped("agent-to-client", {"id": 2, "result": {"stopReason": "end_turn"}}),
        wrapped("agent-to-client", {"id": 3, "result": {"stopReason": "end_turn"}}),
    ]
    path = tmp_path / "concurrent.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = trace(path, "--format", "json")
    assert (8, "prompt-suggestions/after-response") in found(result), result.stdout


def _white_space_text(lines: list[str]) -> tuple[list[str], list[int]]:
    line = _lines_with(lines, '"prompt_suggestions"')[0]
    changed = list(lines)
    changed[line - 1] = changed[line - 1].replace('"Run the test suite"', '" \\u00a0\\t"', 1)
    return changed, [line]


def test_a_suggestion_of_white_space_alone_breaks_the_empty_text_rule(
    recorded: list[str], tmp_path: Path
) -> None:
    lines, expected = _white_space_text(recorded)
    path = tmp_path / "blank.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = trace(path, "--format", "json")
    assert result.returncode == 1
    assert [n for n, r in found(result) if r == "prompt-suggestions/empty-text"] == expected
    assert "white space alone" in result.stdout


def test_a_v1_suggestion_after_the_next_prompt_with_no_sign_the_agent_had_it_is_a_warning(
    recorded: list[str], tmp_path: Path
) -> None:
    # The Agent re-sends the first turn's suggestions right after the next prompt, before any
    # work of the new turn: at the Client this looks like a crossing on the wire, so the trace
    # cannot convict, but it must not pass in silence either.
    untimed = [
        json.dumps({k: v for k, v in json.loads(x).items() if k != "time"}) for x in recorded
    ]
    offer = untimed[_lines_with(untimed, '"prompt_suggestions"')[0] - 1]
    second = _lines_with(untimed, '"session/prompt"')[1]
    lines = [*untimed[:second], offer, *untimed[second:]]
    path = tmp_path / "crossed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = trace(path, "--format", "json")
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)["findings"]
    assert [(f["line"], f["rule"], f["level"]) for f in report] == [
        (second + 1, "prompt-suggestions/after-response", "warning")
    ]
    text = trace(path)
    assert f"{path.as_posix()}:{second + 1}:1:" in text.stdout
    assert "0 problem(s), 1 warning(s)" in text.stderr + text.stdout
    # The same session as recorded, with its times: the Agent had been quiet before the
    # prompt only if the recording says so; either way the line is never silent.
    timed = [*recorded[:second], offer, *recorded[second:]]
    path.write_text("\n".join(timed) + "\n")
    result = trace(path, "--format", "json")
    rules = [(f["line"], f["rule"]) for f in json.loads(result.stdout)["findings"]]
    assert (second + 1, "prompt-suggestions/after-response") in rules, result.stdout


def test_the_reference_recording_carries_rfc_3339_times() -> None:
    from datetime import datetime

    client = session_py.ReferenceClient(legacy=False)

    class Event:
        def __init__(self) -> None:
            self.direction = next(iter(session_py.DIRECTION))
            self.message = {"jsonrpc": "2.0", "method": "session/cancel", "params": {}}

    client.record(Event())  # type: ignore[arg-type]
    when = json.loads(client.trace[0])["time"]
    assert datetime.fromisoformat(when).tzinfo is not None
