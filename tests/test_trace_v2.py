"""`acp-docs trace --protocol v2`: the v2 turn boundary is the `idle` state_update.

Each trace is written here, message by message, so every test reads the exact
order it judges: a v2 `PromptResponse` only acknowledges that the prompt was
inserted; foreground work runs from the prompt (or a `running` state) to the
next `idle`, and suggestions belong after it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import acp, no_traceback

SESSION = "sess_v2"
TO_AGENT, TO_CLIENT = "client-to-agent", "agent-to-client"


def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A Client's request to the Agent."""
    message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}
    return {"direction": TO_AGENT, "message": message}


def response(id_: int, result: dict[str, Any]) -> dict[str, Any]:
    """The Agent's answer to one of the Client's requests."""
    return {"direction": TO_CLIENT, "message": {"jsonrpc": "2.0", "id": id_, "result": result}}


def update(body: dict[str, Any]) -> dict[str, Any]:
    """A session/update notification from the Agent."""
    params = {"sessionId": SESSION, "update": body}
    return {
        "direction": TO_CLIENT,
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


def state(name: str) -> dict[str, Any]:
    """A state_update; an idle one ends the work with `end_turn`."""
    body: dict[str, Any] = {"sessionUpdate": "state_update", "state": name}
    if name == "idle":
        body["stopReason"] = "end_turn"
    return update(body)


def suggestions(*texts: str) -> dict[str, Any]:
    """A prompt_suggestions update."""
    entries = [{"text": t} for t in texts]
    return update({"sessionUpdate": "prompt_suggestions", "suggestions": entries})


def prompt(id_: int, text: str) -> dict[str, Any]:
    """The Client's session/prompt."""
    return request(
        id_, "session/prompt", {"sessionId": SESSION, "prompt": [{"type": "text", "text": text}]}
    )


def opening() -> list[dict[str, Any]]:
    """initialize and session/new."""
    info = {"name": "example", "version": "1.0.0"}
    return [
        request(0, "initialize", {"protocolVersion": 2, "info": info}),
        response(0, {"protocolVersion": 2, "info": info}),
        request(1, "session/new", {"cwd": "/work"}),
        response(1, {"sessionId": SESSION}),
    ]


def turn(id_: int, text: str, *, idle: bool = True) -> list[dict[str, Any]]:
    """A prompt, its work (running, the answer, the acknowledgement) and, if `idle`, its end."""
    message_id = f"msg_{id_}"
    out = [
        prompt(id_, text),
        state("running"),
        update(
            {
                "sessionUpdate": "user_message",
                "messageId": message_id,
                "content": [{"type": "text", "text": text}],
            }
        ),
        response(id_, {"messageId": message_id}),
        update(
            {
                "sessionUpdate": "agent_message",
                "messageId": f"reply_{id_}",
                "content": [{"type": "text", "text": "Done."}],
            }
        ),
    ]
    return [*out, state("idle")] if idle else out


def run(tmp_path: Path, messages: list[dict[str, Any]]) -> tuple[int, list[tuple[int, str]], str]:
    """Trace the messages as v2: exit status, (line, rule) of each finding, the text report."""
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    result = acp(["trace", "--protocol", "v2", str(path), "--format", "json"])
    no_traceback(result)
    findings = json.loads(result.stdout)["findings"]
    return result.returncode, [(f["line"], f["rule"]) for f in findings], result.stdout


def test_suggestions_after_the_idle_that_ends_the_work_pass(tmp_path: Path) -> None:
    messages = [*opening(), *turn(2, "Fix the parser"), suggestions("Run the tests")]
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (0, []), report


def test_a_suggestion_after_the_prompt_response_but_before_idle_is_found(tmp_path: Path) -> None:
    messages = [*opening(), *turn(2, "Fix the parser", idle=False), suggestions("Run the tests")]
    messages.append(state("idle"))
    status, found, _ = run(tmp_path, messages)
    assert status == 1
    assert found == [(len(opening()) + 6, "prompt-suggestions/while-idle")]


def test_a_late_suggestion_after_the_next_prompt_is_found_while_running(tmp_path: Path) -> None:
    messages = [*opening(), *turn(2, "Fix the parser"), prompt(3, "Now the lexer")]
    messages += [state("running"), suggestions("Run the tests")]
    late = len(messages)
    messages += [
        update({"sessionUpdate": "user_message", "messageId": "m3", "content": []}),
        response(3, {"messageId": "m3"}),
        state("idle"),
    ]
    status, found, _ = run(tmp_path, messages)
    assert status == 1
    assert found == [(late, "prompt-suggestions/while-idle")]


def _levels(report: str) -> list[tuple[int, str, str]]:
    return [(f["line"], f["rule"], f["level"]) for f in json.loads(report)["findings"]]


def test_a_suggestion_that_may_have_crossed_the_next_prompt_is_a_warning_at_its_line(
    tmp_path: Path,
) -> None:
    # The work had ended and an offer was allowed: the Agent may have sent this before it
    # read the prompt, or after; nothing it sent since shows it has the prompt. The trace
    # cannot tell, so it warns, and never passes in silence.
    messages = [*opening(), *turn(2, "Fix the parser"), prompt(3, "Now the lexer")]
    messages.append(suggestions("Run the tests"))
    crossed = len(messages)
    messages += [state("running"), response(3, {"messageId": "m3"}), state("idle")]
    status, _found, report = run(tmp_path, messages)
    assert status == 0, report
    assert _levels(report) == [(crossed, "prompt-suggestions/while-idle", "warning")]
    assert f"may have crossed the session/prompt at line {crossed - 1}" in report
    assert "record a `time` on each line" in report and "acp-docs conform" in report
    strict = acp(["trace", "--protocol", "v2", str(tmp_path / "session.jsonl"), "--strict"])
    assert strict.returncode == 1


def _timed(messages: list[dict[str, Any]], quiet_before: int, gap: float) -> None:
    """Give every message a time, 10 ms apart, and `gap` seconds before message `quiet_before`."""
    clock = 1000.0
    for number, message in enumerate(messages, start=1):
        clock += gap if number == quiet_before else 0.01
        message["time"] = clock


def test_times_that_show_the_agent_was_quiet_before_the_prompt_decide_the_crossing(
    tmp_path: Path,
) -> None:
    messages = [*opening(), *turn(2, "Fix the parser"), prompt(3, "Now the lexer")]
    sent = len(messages)
    messages.append(suggestions("Run the tests"))
    late = len(messages)
    messages += [state("running"), response(3, {"messageId": "m3"}), state("idle")]
    _timed(messages, sent, gap=2.0)
    status, _found, report = run(tmp_path, messages)
    assert (status, _levels(report)) == (1, [(late, "prompt-suggestions/while-idle", "error")])
    # The same trace with the prompt sent 10 ms after the Agent last spoke: a crossing is
    # possible, so it stays a warning.
    _timed(messages, sent, gap=0.01)
    status, _found, report = run(tmp_path, messages)
    assert (status, _levels(report)) == (0, [(late, "prompt-suggestions/while-idle", "warning")])


@pytest.mark.parametrize(
    ("times", "says"),
    [
        (["2026-12-07T10:00:00Z", "2026-12-07T09:59:59Z"], "`time` goes back"),
        (["2026-12-07T10:00:00Z", 5], "use one form"),
        (["2026-12-07 10:00:00", None], "RFC 3339 date and time with its offset"),
        ([True, None], "neither an RFC 3339 date and time nor a number"),
    ],
)
def test_a_bad_time_is_a_finding_at_its_line(tmp_path: Path, times: list, says: str) -> None:
    messages = opening()
    for message, when in zip(messages, times, strict=False):
        if when is not None:
            message["time"] = when
    bad = max(n for n, when in enumerate(times, start=1) if when is not None)
    status, found, report = run(tmp_path, messages)
    assert status == 1 and (bad, "trace/time") in found, report
    assert says in report


def test_a_suggestion_after_a_prompt_sent_while_no_offer_was_allowed_is_found(
    tmp_path: Path,
) -> None:
    messages = [*opening(), prompt(2, "Fix the parser"), suggestions("Run the tests")]
    early = len(messages)
    messages += [state("running"), response(2, {"messageId": "m2"}), state("idle")]
    status, found, _ = run(tmp_path, messages)
    assert found == [(early, "prompt-suggestions/while-idle")] and status == 1


def test_a_suggestion_between_the_idle_and_the_prompts_answer_is_found(tmp_path: Path) -> None:
    # [prompt, running, idle, prompt_suggestions, response]: a Client drops this offer,
    # since its prompt is unanswered, so the Agent may not send it.
    messages = [*opening(), prompt(2, "Fix the parser"), state("running"), state("idle")]
    messages.append(suggestions("Run the tests"))
    early = len(messages)
    messages.append(response(2, {"messageId": "m2"}))
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (1, [(early, "prompt-suggestions/while-idle")]), report
    assert f"before the answer to the session/prompt at line {len(opening()) + 1}" in report


def test_the_same_work_answered_before_its_idle_is_clean(tmp_path: Path) -> None:
    messages = [*opening(), prompt(2, "Fix the parser"), state("running")]
    messages += [response(2, {"messageId": "m2"}), state("idle"), suggestions("Run the tests")]
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (0, []), report


def test_an_idle_before_the_answer_does_not_end_the_work_for_the_client(tmp_path: Path) -> None:
    # The Client waits for the answer and an idle after it; so does the Agent's rule.
    messages = [*opening(), prompt(2, "Fix the parser"), state("running"), state("idle")]
    messages += [response(2, {"messageId": "m2"}), suggestions("Run the tests")]
    late = len(messages)
    messages += [state("idle"), suggestions("Run the tests")]
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (1, [(late, "prompt-suggestions/while-idle")]), report


def test_a_rejected_prompt_is_followed_by_an_idle_before_any_offer(tmp_path: Path) -> None:
    refused = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params"}}
    messages = [*opening(), *turn(2, "Fix the parser"), prompt(3, "")]
    messages += [{"direction": TO_CLIENT, "message": refused}, suggestions("Run the tests")]
    stuck = len(messages)
    messages += [state("idle"), suggestions("Run the tests")]
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (1, [(stuck, "prompt-suggestions/while-idle")]), report


@pytest.mark.parametrize("busy", ["running", "requires_action", "_vendor_busy"])
def test_agent_initiated_work_is_foreground_work_too(tmp_path: Path, busy: str) -> None:
    messages = [*opening(), *turn(2, "Fix the parser"), state(busy), suggestions("Run the tests")]
    during = len(messages)
    messages += [state("idle"), suggestions("Review the follow-up")]
    status, found, _ = run(tmp_path, messages)
    assert status == 1
    assert found == [(during, "prompt-suggestions/while-idle")]


def test_the_v1_rule_does_not_judge_v2_and_the_v2_rule_not_v1(tmp_path: Path) -> None:
    # After the response and before idle: only the v2 rule speaks, once.
    messages = [*opening(), *turn(2, "Fix the parser", idle=False), suggestions("Run the tests")]
    _, found, _ = run(tmp_path, messages)
    assert [rule for _line, rule in found] == ["prompt-suggestions/while-idle"]


def test_suggestions_during_a_replaying_resume_are_found(tmp_path: Path) -> None:
    resume = request(
        5, "session/resume", {"sessionId": SESSION, "cwd": "/work", "replayFrom": {"type": "start"}}
    )
    messages = [*opening(), *turn(2, "Fix the parser"), resume, suggestions("Run the tests")]
    replayed = len(messages)
    messages += [state("idle"), response(5, {})]
    status, found, _ = run(tmp_path, messages)
    assert status == 1
    assert (replayed, "prompt-suggestions/replay") in found


def test_an_update_whose_every_entry_is_invalid_is_a_schema_finding(tmp_path: Path) -> None:
    messages = [*opening(), *turn(2, "Fix the parser"), suggestions("")]
    status, found, report = run(tmp_path, messages)
    assert status == 1
    line = len(messages)
    assert (line, "prompt-suggestions/empty-text") in found
    assert (line, "trace/schema") in found, report


def test_a_session_id_that_is_not_a_string_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    odd = prompt(3, "Now the lexer")
    odd["message"]["params"]["sessionId"] = ["not", "a", "string"]
    messages = [*opening(), *turn(2, "Fix the parser"), odd, suggestions("Run the tests")]
    status, found, report = run(tmp_path, messages)
    assert status == 1, report
    assert (len(opening()) + 7, "trace/schema") in found, report
    assert {line for line, _ in found} == {len(opening()) + 7}, report


def test_background_work_while_idle_does_not_show_the_next_prompt_was_read(
    tmp_path: Path,
) -> None:
    # Background activity goes on while idle; only running, or the prompt inserted, shows
    # that the Agent has the new prompt, so the suggestion may still be in flight.
    background = update(
        {
            "sessionUpdate": "agent_message",
            "messageId": "background_1",
            "content": [{"type": "text", "text": "The tests passed."}],
        }
    )
    messages = [*opening(), *turn(2, "Fix the parser"), prompt(3, "Now the lexer")]
    messages += [background, suggestions("Run the tests")]
    crossed = len(messages)
    messages += [state("running"), response(3, {"messageId": "m3"}), state("idle")]
    status, _found, report = run(tmp_path, messages)
    assert (status, _levels(report)) == (
        0,
        [(crossed, "prompt-suggestions/while-idle", "warning")],
    ), report


def test_extension_and_protocol_methods_go_either_way_with_their_direction(
    tmp_path: Path,
) -> None:
    def notify(direction: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "method": method, "params": params}
        return {"direction": direction, "message": body}

    ask = {"jsonrpc": "2.0", "id": 50, "method": "_vendor/ask", "params": {}}
    refused = {"jsonrpc": "2.0", "id": 50, "error": {"code": -32601, "message": "no"}}
    messages = [
        *opening(),
        notify(TO_CLIENT, "_auth/status_update", {"authStatus": {"kind": "none"}}),
        {"direction": TO_CLIENT, "message": ask},
        {"direction": TO_AGENT, "message": refused},
        notify(TO_CLIENT, "$/cancel_request", {"requestId": 7}),
        *turn(2, "Fix the parser"),
    ]
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (0, []), report
    # A plain line cannot say which way an extension went.
    messages.append({"jsonrpc": "2.0", "method": "_vendor/ping", "params": {}})
    status, found, report = run(tmp_path, messages)
    assert (status, found) == (1, [(len(messages), "trace/direction")]), report
