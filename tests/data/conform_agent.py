"""A small ACP Agent for the tests of `acp-docs conform`: correct, or broken in one way.

It speaks ACP v1 or v2 (`--protocol`) on standard input and output, one
message a line, and does everything at once: each message it writes is
written before it reads the next, so what a scenario records never depends on
timing. `--break RULE` breaks one requirement (or misbehaves as a process)
and keeps every other rule. `--act WAY` behaves as real Agents do, within the
rules or short of a prerequisite: it needs a login, speaks v1 alone, sends
extension traffic, ends its turns in an error, answers a cancelled prompt with
an error, asks for permission, predicts slowly, or sends the legacy form alone.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import time

SESSION = "sess_fixture"
BREAKS = (
    "capability",
    "empty-text",
    "replay",
    "after-response",
    "while-idle",
    "one-form",
    "invalid-update",
    "silent",
    "hang",
    "crash",
    "garbage",
    "flood-stderr",
    "flood-stdout",
    "stubborn",
    "escape",
    "no-read",
    "stale-resend",
    "replay-after",
)
ACTS = (
    "auth-gated",
    "v1-only",
    "unknown-version",
    "extensions",
    "error-turns",
    "cancel-first",
    "permission",
    "slow",
    "legacy-only",
)
LOGIN = "fixture-login"


class Input:
    """Standard input, a message at a time, with a time limit on each wait."""

    def __init__(self) -> None:
        self.pending = b""

    def next(self, timeout: float | None = None) -> dict | None:
        """The next message; None when none came within `timeout`; SystemExit at the end."""
        while b"\n" not in self.pending:
            ready = select.select([0], [], [], timeout)[0]
            if not ready:
                return None
            chunk = os.read(0, 65536)
            if not chunk:
                raise SystemExit(0)
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line) if line.strip() else self.next(timeout)


def write(message: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(body: dict) -> None:
    write({"method": "session/update", "params": {"sessionId": SESSION, "update": body}})


def chunk(kind: str, text: str) -> dict:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}}


class Agent:
    def __init__(self, protocol: str, broken: str | None, act: str | None = None) -> None:
        self.v2 = protocol == "v2" and act != "v1-only"
        self.broken = broken
        self.act = act
        self.capable = False
        self.logged_in = False
        self.history: list[tuple[str, str]] = []
        self.offered: list[dict] | None = None
        self.input = Input()
        self.later: list[dict] = []
        """Messages read while waiting for something else, handled next."""
        self.next_id = 100

    def suggest(self) -> None:
        if self.broken == "silent" or (
            not self.v2 and not self.capable and self.broken != "capability"
        ):
            return
        if self.act == "slow":
            # A correct slow prediction: a message that comes meanwhile discards it.
            message = self.input.next(0.2)
            if message is not None:
                self.later.append(message)
                return
        if self.act == "legacy-only":
            legacy = {"promptSuggestions": {"suggestions": [{"text": "Run the tests"}]}}
            update({"sessionUpdate": "session_info_update", "_meta": legacy})
            return
        text = "" if self.broken == "empty-text" else "Run the tests"
        suggestions = None if self.broken == "invalid-update" else [{"text": text}]
        self.offered = suggestions
        update({"sessionUpdate": "prompt_suggestions", "suggestions": suggestions})
        if self.broken == "one-form":
            legacy = {"promptSuggestions": {"suggestions": [{"text": "Run the tests"}]}}
            update({"sessionUpdate": "session_info_update", "_meta": legacy})

    def misbehave(self) -> None:
        """The process-level breaks, on a prompt."""
        if self.broken == "hang":
            while True:
                time.sleep(3600)
        if self.broken == "crash":
            sys.stderr.write("fixture agent: giving up\n")
            sys.stderr.flush()
            os._exit(3)
        if self.broken == "garbage":
            sys.stdout.write("this is not JSON \x1b[31mred\x1b[0m \u202eevil\n")
            sys.stdout.flush()
        if self.broken == "flood-stderr":
            line = b"fixture agent: a line of noise on standard error\n" * 1000
            while True:
                os.write(2, line)
        if self.broken == "flood-stdout":
            while True:
                update(chunk("agent_message_chunk", "more"))

    def ask(self, method: str, params: dict) -> dict:
        """Send a request to the Client and wait for its answer (keeping what else comes)."""
        self.next_id += 1
        asked = self.next_id
        write({"id": asked, "method": method, "params": params})
        while True:
            message = self.input.next()
            if message is not None and message.get("id") == asked and "method" not in message:
                return message
            if message is not None:
                self.later.append(message)

    def cancelled(self) -> bool:
        return any(m.get("method") == "session/cancel" for m in self.later)

    def prompt(self, request: dict) -> None:
        self.misbehave()
        if self.act == "auth-gated" and not self.logged_in:
            error = {"code": -32000, "message": "Authentication required"}
            write({"id": request["id"], "error": error})
            return
        if self.broken == "stale-resend" and self.offered is not None:
            update({"sessionUpdate": "prompt_suggestions", "suggestions": self.offered})
        if self.act == "extensions":
            write({"method": "_fixture/status", "params": {"busy": True}})
            answer = self.ask("_fixture/ask", {"question": "anything?"})
            if answer.get("error", {}).get("code") != -32601:
                os._exit(4)  # a Client that does not offer an extension refuses it
        if self.act == "cancel-first":
            message = self.input.next(1.0)
            if message is not None:
                self.later.append(message)
            if self.cancelled():
                # Not inserted yet: v2 answers with an error; v1 with the cancelled stop reason.
                if self.v2:
                    error = {"code": -32800, "message": "Request cancelled"}
                    write({"id": request["id"], "error": error})
                else:
                    write({"id": request["id"], "result": {"stopReason": "cancelled"}})
                return
        stop = "end_turn"
        if self.act == "permission":
            if self.v2:
                update({"sessionUpdate": "state_update", "state": "requires_action"})
            options = [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
            ]
            tool = {"toolCallId": "t1", "title": "Run the tests"}
            params = {"sessionId": SESSION, "options": options}
            params.update({"title": "Run the tests"} if self.v2 else {"toolCall": tool})
            answer = self.ask("session/request_permission", params)
            outcome = (answer.get("result") or {}).get("outcome") or {}
            if self.cancelled():
                if outcome.get("outcome") != "cancelled":
                    os._exit(5)  # a Client answers cancelled in a cancelled turn
                stop = "cancelled"
            elif outcome != {"outcome": "selected", "optionId": "yes"}:
                os._exit(6)  # a Client must answer a permission request
        if self.act == "error-turns":
            error = {"code": -32603, "message": "rate limited"}
            if not self.v2:
                write({"id": request["id"], "error": error})
                return
            update({"sessionUpdate": "state_update", "state": "running"})
            write({"id": request["id"], "result": {"messageId": "m"}})
            idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "error"}
            update({**idle, "error": error})
            return
        blocks = request["params"].get("prompt") or [{}]
        text = blocks[0].get("text", "")
        if self.v2:
            update({"sessionUpdate": "state_update", "state": "running"})
            write({"id": request["id"], "result": {"messageId": f"m{len(self.history)}"}})
            update({**chunk("agent_message_chunk", f"Done: {text}"), "messageId": "a1"})
            if self.broken == "while-idle":
                self.suggest()
            update({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})
            if self.broken != "while-idle":
                self.suggest()
        else:
            update(chunk("agent_message_chunk", f"Done: {text}"))
            if self.broken == "after-response":
                self.suggest()
            write({"id": request["id"], "result": {"stopReason": stop}})
            if self.broken != "after-response":
                self.suggest()
        self.history += [("user", text), ("agent", f"Done: {text}")]

    def replay(self, request: dict) -> None:
        for who, text in self.history:
            if self.v2:
                update(
                    {
                        **chunk(f"{who}_message", text),
                        "content": [{"type": "text", "text": text}],
                        "messageId": "r",
                    }
                )
            else:
                update(chunk(f"{who}_message_chunk", text))
        if self.broken == "replay":
            self.suggest()
        if self.v2:
            update({"sessionUpdate": "state_update", "state": "idle"})
        write({"id": request["id"], "result": {}})
        if self.broken == "replay-after":
            self.suggest()

    def handle(self, message: dict) -> None:
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            if self.v2:
                result = {
                    "protocolVersion": 2,
                    "info": {"name": "fixture agent", "version": "1"},
                    "capabilities": {"session": {}},
                }
                methods = [{"type": "agent", "methodId": LOGIN, "name": "Log in"}]
            else:
                session = (params.get("clientCapabilities") or {}).get("session") or {}
                self.capable = isinstance(session.get("promptSuggestions"), dict)
                result = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
                methods = [{"id": LOGIN, "name": "Log in"}]
            if self.act == "unknown-version":
                result["protocolVersion"] = 99
            if self.act == "auth-gated":
                result["authMethods"] = methods
            write({"id": message["id"], "result": result})
            if self.act == "extensions":
                write({"method": "_fixture/status_update", "params": {"status": "ready"}})
        elif method in ("authenticate", "auth/login"):
            self.logged_in = params.get("methodId") == LOGIN
            answer = (
                {"result": {}}
                if self.logged_in
                else {"error": {"code": -32602, "message": "no such method"}}
            )
            write({"id": message["id"], **answer})
        elif method == "session/new":
            if self.act == "auth-gated" and not self.logged_in:
                error = {"code": -32000, "message": "Authentication required"}
                write({"id": message["id"], "error": error})
                return
            write({"id": message["id"], "result": {"sessionId": SESSION}})
        elif method == "session/prompt":
            self.prompt(message)
        elif method in ("session/load", "session/resume"):
            self.replay(message)
        elif "id" in message and method is not None:
            write({"id": message["id"], "error": {"code": -32601, "message": "no such method"}})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", choices=("v1", "v2"), default="v1")
    parser.add_argument("--break", dest="broken", choices=BREAKS)
    parser.add_argument("--act", choices=ACTS)
    parser.add_argument("--pid-file", help="stubborn: where its child writes its process id")
    args = parser.parse_args()
    agent = Agent(args.protocol, args.broken, args.act)
    # A grandchild in a session of its own keeps stdout open.
    if args.broken == "escape" and os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(args.pid_file, "a") as pids:
                pids.write(f"{os.getpid()} ")
            time.sleep(3600)
        os._exit(0)
    if args.broken == "no-read":  # answers initialize, then only writes requests
        agent.handle(json.loads(sys.stdin.readline()))
        for number in range(100000):
            path = "/" + "x" * 200
            params = {"sessionId": SESSION, "path": path}
            write({"id": 1000 + number, "method": "fs/read_text_file", "params": params})
        time.sleep(3600)
    if args.broken == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        code = (
            f"import os, time; open({args.pid_file!r}, 'a').write(f'{{os.getpid()}} ');"
            " time.sleep(3600)"
        )
        subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL)
    try:
        while True:
            message = agent.later.pop(0) if agent.later else agent.input.next()
            if message is not None:
                agent.handle(message)
    except SystemExit:
        pass
    if args.broken == "stubborn":
        while True:  # ignores its closed input, and SIGTERM
            time.sleep(3600)


if __name__ == "__main__":
    main()
