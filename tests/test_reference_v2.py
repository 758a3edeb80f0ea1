"""The reference Agent and Client in ACP v2: idle ends the work, and the Client keeps offers honest.

The recorded session is checked by `acp-docs trace --protocol v2` and read
message by message; the Client's and the Agent's rules that a correct peer
never makes happen on the wire (a stale or replayed update, a malformed list)
are driven directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import io
import json
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acp_docs.core import protocols

from conftest import ROOT, acp, no_traceback

REFERENCE = ROOT / "scripts" / "reference"
SESSION = "sess_reference_1"


def load(name: str) -> ModuleType:
    """Import a reference script by path (scripts/reference is no package)."""
    spec = importlib.util.spec_from_file_location(f"reference_{name}", REFERENCE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


session_py, agent_py = load("session"), load("agent")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A v2 session the reference pair recorded."""
    out = tmp_path_factory.mktemp("v2") / "v2.jsonl"
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        # As `session.py` runs it (the Agent is a process of its own), in a thread with its loop.
        assert in_thread(session_py.main, ["--protocol", "v2", "--out", str(out)]) == 0
    assert "offers withdrawn when work started: 1" in said.getvalue()
    return out


def steps(path: Path) -> list[tuple[str, Any, dict[str, Any]]]:
    """Each message as (what, id, update or result): a method, `update:<kind>`, or `response`."""
    out = []
    for line in path.read_text().splitlines():
        message = json.loads(line)["message"]
        method = message.get("method")
        if method == "session/update":
            update = message["params"]["update"]
            out.append((f"update:{update['sessionUpdate']}", None, update))
        elif method:
            out.append((method, message["id"], message["params"]))
        else:
            out.append(("response", message["id"], message.get("result") or {}))
    return out


def test_the_v2_session_passes_the_trace(recorded: Path) -> None:
    result = acp(["trace", "--protocol", "v2", str(recorded), "--format", "json"])
    no_traceback(result)
    assert (result.returncode, json.loads(result.stdout)["findings"]) == (0, [])


def test_suggestions_come_only_after_the_idle_that_ends_the_work(recorded: Path) -> None:
    busy, replaying, offered = False, False, 0
    last = None
    for what, _id, body in steps(recorded):
        if what == "session/prompt" or (what == "update:state_update" and body["state"] != "idle"):
            busy = True
        elif what == "update:state_update":
            busy = False
            assert replaying or body.get("stopReason") == "end_turn"
        elif what == "session/resume":
            replaying = True
        elif what == "response" and replaying:
            replaying = False
        elif what == "update:prompt_suggestions":
            assert not busy and not replaying
            assert last == "idle", "sent right after the idle that ends the work"
            offered += 1
        last = body.get("state") if what == "update:state_update" else what
    assert offered == 3


def test_the_accepted_suggestion_is_sent_by_the_user_as_the_next_prompt(recorded: Path) -> None:
    trail = steps(recorded)
    first = next(body for what, _id, body in trail if what == "update:prompt_suggestions")
    prompts = [body for what, _id, body in trail if what == "session/prompt"]
    assert prompts[1]["prompt"][0]["text"] == first["suggestions"][0]["text"]


def test_the_prompt_response_only_acknowledges_the_inserted_message(recorded: Path) -> None:
    trail = steps(recorded)
    prompt_ids = {id_ for what, id_, _body in trail if what == "session/prompt"}
    answers = [body for what, id_, body in trail if what == "response" and id_ in prompt_ids]
    inserted = {body["messageId"] for what, _id, body in trail if what == "update:user_message"}
    assert answers and all(set(a) == {"messageId"} and a["messageId"] in inserted for a in answers)


def test_the_agent_follows_up_on_its_own_and_the_offer_is_withdrawn(recorded: Path) -> None:
    kinds = [
        body.get("state", what) if what == "update:state_update" else what
        for what, _id, body in steps(recorded)
    ]
    # After the second turn's suggestions: work with no prompt before it.
    second = [i for i, k in enumerate(kinds) if k == "update:prompt_suggestions"][1]
    assert kinds[second + 1 : second + 5] == [
        "running",
        "update:agent_message_chunk",
        "idle",
        "update:prompt_suggestions",
    ]


def test_resume_replays_history_then_the_snapshot_then_answers(recorded: Path) -> None:
    trail = steps(recorded)
    start = next(i for i, (what, _id, _body) in enumerate(trail) if what == "session/resume")
    assert trail[start][2]["replayFrom"] == {"type": "start"}
    kinds = [what for what, _id, _body in trail[start + 1 :]]
    assert kinds[-2:] == ["update:state_update", "response"]
    assert set(kinds[:-2]) == {"update:user_message", "update:agent_message"}
    live = [b["messageId"] for w, _i, b in trail[:start] if w.startswith("update:user_message")]
    replayed = [b["messageId"] for w, _i, b in trail[start:] if w == "update:user_message"]
    assert replayed == live, "replayed messages keep their ids"


def test_v2_refuses_the_v1_only_legacy_client(tmp_path: Path) -> None:
    said = io.StringIO()
    with contextlib.redirect_stderr(said), pytest.raises(SystemExit) as exited:
        session_py.main(["--protocol", "v2", "--legacy-client", "--out", str(tmp_path / "x.jsonl")])
    assert exited.value.code == 2 and "v1 only" in said.getvalue()


# The Client, driven directly.


def in_thread(function: Any, *args: Any) -> Any:
    """Call `function` in a thread of its own, where it may run an event loop of its own.

    The browser tests' Playwright keeps an event loop running in the worker's
    main thread, where `asyncio.run` would refuse to start another.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "it did not finish in 60 s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def run_async(coroutine: Any) -> Any:
    """Run a coroutine to its end on a loop of its own, in a thread of its own."""
    return in_thread(asyncio.run, coroutine)


def deliver(client: Any, update: dict[str, Any]) -> None:
    """One session/update from the Agent."""
    params = {"sessionId": SESSION, "update": update}
    run_async(client.handle("session/update", params, True))


def state(name: str) -> dict[str, Any]:
    return {"sessionUpdate": "state_update", "state": name}


def suggest(*texts: str) -> dict[str, Any]:
    return {"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": t} for t in texts]}


def client(protocol: str = "v2") -> Any:
    return session_py.ReferenceClient(legacy=False, protocol=protocol)


def test_an_idle_session_offers_and_accepting_only_fills_the_composer() -> None:
    c = client()
    deliver(c, suggest("Run the tests", "Explain"))
    assert c.offer == ["Run the tests", "Explain"]
    c.accept()
    assert (c.composer, c.offer) == ("Run the tests", [])


class Peer:
    """Stands in for the Client's Connection: the Agent sends `during` before it answers."""

    def __init__(self, c: Any, during: list[dict[str, Any]], result: dict[str, Any]) -> None:
        self.client, self.during, self.result = c, during, result

    async def send_request(self, method: str, params: Any) -> Any:
        for update in self.during:
            await self.client.handle(
                "session/update", {"sessionId": SESSION, "update": update}, True
            )
        return self.result


@pytest.mark.parametrize("protocol", protocols.NAMES)
def test_a_suggestion_before_the_prompt_is_answered_is_dropped(protocol: str) -> None:
    c = client(protocol)
    deliver(c, suggest("Offered"))
    run_async(c.prompt(Peer(c, [suggest("Stale")], {}), SESSION, "Next"))
    assert (c.offer, c.dropped) == ([], 1), "sending ends the offer; the stale one is dropped"


def test_v1_offers_after_the_answer_but_v2_only_after_idle() -> None:
    v1, v2 = client("v1"), client("v2")
    run_async(v1.prompt(Peer(v1, [], {"stopReason": "end_turn"}), SESSION, "Go"))
    run_async(v2.prompt(Peer(v2, [state("running")], {"messageId": "m1"}), SESSION, "Go"))
    for c in (v1, v2):
        deliver(c, suggest("After the answer"))
    assert (v1.offer, v2.offer, v2.dropped) == (["After the answer"], [], 1)
    deliver(v2, {**state("idle"), "stopReason": "end_turn"})
    deliver(v2, suggest("After idle"))
    assert v2.offer == ["After idle"]


@pytest.mark.parametrize(("protocol", "request_"), [("v1", "load"), ("v2", "resume")])
def test_a_suggestion_during_a_replay_is_dropped_even_when_idle(
    protocol: str, request_: str
) -> None:
    c = client(protocol)
    peer = Peer(c, [state("idle"), suggest("Replayed")], {})
    run_async(getattr(c, request_)(peer, SESSION))
    assert (c.offer, c.dropped, c.replaying) == ([], 1, 0)
    deliver(c, suggest("Live"))
    assert c.offer == ["Live"]


@pytest.mark.parametrize("busy", ["running", "requires_action", "_vendor_busy"])
def test_work_started_by_the_agent_withdraws_the_offer_and_drops_new_ones(busy: str) -> None:
    c = client()
    deliver(c, suggest("Offered"))
    deliver(c, state(busy))
    assert (c.offer, c.withdrawn) == ([], 1)
    deliver(c, suggest("During the work"))
    assert (c.offer, c.dropped) == ([], 1)


@pytest.mark.parametrize("protocol", protocols.NAMES)
@pytest.mark.parametrize(
    "suggestions",
    [
        None,
        {"text": "not a list"},
        [{"text": "Good"}, {"text": ""}],
        [{"text": "Good"}, "Bare string"],
        [{"text": "Good"}, {"text": 3}],
        [{"text": "Good"}, {"label": "no text"}],
    ],
)
def test_a_malformed_update_is_rejected_whole_and_the_offer_stays(
    protocol: str, suggestions: Any
) -> None:
    c = client(protocol)
    deliver(c, suggest("Offered"))
    deliver(c, {"sessionUpdate": "prompt_suggestions", "suggestions": suggestions})
    assert (c.offer, c.rejected) == (["Offered"], 1)


def test_an_empty_list_withdraws_the_offer() -> None:
    c = client()
    deliver(c, suggest("Offered"))
    deliver(c, suggest())
    assert (c.offer, c.rejected) == ([], 0)


def test_v1_drops_while_a_prompt_is_unanswered_and_ignores_state() -> None:
    c = client("v1")
    c.in_flight = 1
    deliver(c, suggest("Stale"))
    c.in_flight = 0
    deliver(c, state("running"))  # no such update in v1: not read
    deliver(c, suggest("Fresh"))
    assert (c.offer, c.dropped) == (["Fresh"], 1)


# The Agent, driven directly.


class Wire:
    """Stands in for the Agent's Connection: keeps what it sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_notification(self, method: str, params: Any) -> None:
        self.sent.append(params["update"])


def agent() -> tuple[Any, Wire]:
    a = agent_py.ReferenceAgent(migration=False, protocol="v2")
    wire = Wire()
    a.connection = wire
    return a, wire


def test_the_agent_discards_a_prediction_once_newer_work_started() -> None:
    a, wire = agent()
    a.turn = 2  # a newer prompt arrived after turn 1 ended
    run_async(a.suggest(1))
    assert wire.sent == []
    run_async(a.suggest(2))
    assert [u["sessionUpdate"] for u in wire.sent] == ["prompt_suggestions"]


def test_the_agent_sends_no_suggestion_during_work_or_a_replay() -> None:
    a, wire = agent()
    a.state = "running"
    run_async(a.suggest(0))
    a.state, a.replays = "idle", {"7"}
    run_async(a.suggest(0))
    assert wire.sent == []


def test_the_agent_rejects_an_unsupported_replay_cursor_and_a_v1_initialize() -> None:
    a, _wire = agent()
    params = {"sessionId": SESSION, "cwd": "/", "replayFrom": {"type": "_at_message"}}
    with pytest.raises(agent_py.RequestError) as resume:
        run_async(a.handle("session/resume", params, False))
    assert resume.value.code == -32602
    with pytest.raises(agent_py.RequestError) as init:
        run_async(a.handle("initialize", {"protocolVersion": 1}, False))
    assert init.value.code == agent_py.UNSUPPORTED_VERSION


def test_the_agent_answers_the_baseline_session_methods_it_advertises() -> None:
    a, _wire = agent()
    listed = run_async(a.handle("session/list", {}, False))
    assert listed == {"sessions": [{"sessionId": SESSION, "cwd": "/"}]}
    assert run_async(a.handle("session/close", {"sessionId": SESSION}, False)) == {}


def test_an_idle_still_on_its_way_when_the_user_prompts_does_not_end_the_new_work() -> None:
    """The earlier work's idle and suggestions may cross the prompt: only an idle after the
    prompt's answer ends the new work, so those suggestions are dropped."""
    from acp.connection import StreamDirection, StreamEvent

    c = client()

    def notification(update: dict[str, Any]) -> dict[str, Any]:
        params = {"sessionId": SESSION, "update": update}
        return {"jsonrpc": "2.0", "method": "session/update", "params": params}

    async def arrive(message: dict[str, Any]) -> None:
        # As the Connection does: observers at once, the handler in a task, in order.
        c.record(StreamEvent(StreamDirection.INCOMING, message))
        if "method" in message:
            asyncio.get_running_loop().create_task(
                c.handle(message["method"], message["params"], True)
            )
        await asyncio.sleep(0)

    async def scenario() -> None:
        prompt = {"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {}}
        c.record(StreamEvent(StreamDirection.OUTGOING, prompt))
        c.prompted = True
        await arrive(notification({**state("idle"), "stopReason": "end_turn"}))
        await arrive(notification(suggest("Made for the earlier work")))
        assert (c.offer, c.dropped) == ([], 1)
        await arrive(notification(state("running")))
        await arrive({"jsonrpc": "2.0", "id": 7, "result": {"messageId": "m7"}})
        await arrive(notification({**state("idle"), "stopReason": "end_turn"}))
        await arrive(notification(suggest("Made for the new work")))
        assert c.offer == ["Made for the new work"]

    run_async(scenario())
