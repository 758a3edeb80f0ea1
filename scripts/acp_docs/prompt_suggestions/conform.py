"""The scenarios `acp-docs conform` drives an Agent through for the prompt_suggestions RFD.

Each tells one story where the RFD's rules can break, in the order a real
Client would: with and without the capability (where unknown updates are
rejected), two prompts in a row, a cancelled turn, and a replay of the
session's history. The Client sends each prompt once the Agent has been quiet,
so whatever the Agent sends after a prompt was sent after it read it. What
ends a turn differs between versions, and `Client.work_ends` knows how.
`CONFORMANCE` is registered under the entry-point group `acp_docs.conform`.
"""

from __future__ import annotations

from acp_docs.conform.client import Client
from acp_docs.conform.scenario import Conformance, Scenario, Skipped
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.prompt_suggestions.wire import TAG, update_of
from acp_docs.trace.session import Message

FIRST = "Say hello in one short sentence"
SECOND = "Now say goodbye in one short sentence"


def _opened(client: Client) -> str:
    client.open()
    return client.new_session()


def _without_capability(client: Client) -> None:
    """A Client that did not advertise the capability: one turn, and what follows it."""
    session = _opened(client)
    client.work_ends(session, client.prompt(session, FIRST))


def _two_turns(client: Client) -> None:
    """One turn, its suggestions, then the next prompt: an earlier offer must not follow it."""
    session = _opened(client)
    client.work_ends(session, client.prompt(session, FIRST))
    client.work_ends(session, client.prompt(session, SECOND))


def _cancelled(client: Client) -> None:
    """A turn cancelled as soon as it is sent, then one more turn."""
    session = _opened(client)
    first = client.prompt(session, FIRST)
    client.cancel(session)
    client.work_ends(session, first)
    client.work_ends(session, client.prompt(session, SECOND))


def _replayed(client: Client) -> None:
    """One turn and its suggestions, then the session's history replayed."""
    session = _opened(client)
    gate = client.handshake.replay_gate
    if not client.gate(f"result.{gate}"):
        raise Skipped(f"the Agent does not advertise {gate}, so no history is replayed")
    client.work_ends(session, client.prompt(session, FIRST))
    client.settle()
    client.replay(session)


def _rejects_unknown_updates(version: ProtocolVersion) -> bool:
    return version.gates_unknown_updates


def offered(messages: list[Message]) -> bool:
    """True when the Agent sent the `prompt_suggestions` update: the legacy `_meta` form
    alone offers nothing the RFD's rules are about."""
    for message in messages:
        update = update_of(message)
        if update is not None and update.get("sessionUpdate") == TAG:
            return True
    return False


CONFORMANCE = Conformance(
    scenarios=(
        Scenario(
            "without-capability",
            "A Client that did not advertise the capability: one turn",
            _without_capability,
            advertise=False,
            holds=_rejects_unknown_updates,
        ),
        Scenario(
            "two-turns",
            "One turn, then the next prompt once the Agent is quiet",
            _two_turns,
        ),
        Scenario("cancelled-turn", "A turn cancelled at once, then another turn", _cancelled),
        Scenario("replay", "One turn, then the session's history replayed", _replayed),
    ),
    offered=offered,
)
"""The prompt_suggestions RFD's scenarios."""
