"""The message unions of the published schemas: where a request, response or notification sits.

Each side's requests, responses and notifications are members of one union
(`ClientRequest`, `AgentResponse`, ...), through which a JSON-RPC message with
an `x-method` dispatches to its definition. The `add-message` change
(`acp_docs.schema.changes`) adds a member; `acp_docs.schema.reachable` says
when a new message type is in none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MessageUnion:
    """A union of the messages one side sends, such as `ClientRequest`.

    `members` is where its list of `{title, allOf: [{$ref}]}` members sits in the
    definition; `kind` is the suffix of its members' names (`Request`, ...);
    `side` is the `x-side` of its members: the side that handles them.
    """

    definition: str
    members: tuple[str | int, ...]
    kind: str
    side: str

    def says(self) -> str:
        """What the union holds, for a reader: `the requests the Client sends to the Agent`."""
        sender = "Client" if self.definition.startswith("Client") else "Agent"
        other = "Agent" if sender == "Client" else "Client"
        if self.kind == "Response":
            return f"the {sender}'s responses, whose x-side is {self.side}"
        return (
            f"the {self.kind.lower()}s the {sender} sends to the {other}, whose x-side is"
            f" {self.side}"
        )


_PARAMS = ("properties", "params", "anyOf", 0, "anyOf")
_RESULT = ("anyOf", 0, "properties", "result", "anyOf")
MESSAGE_UNIONS: dict[str, MessageUnion] = {
    union.definition: union
    for union in (
        MessageUnion("ClientRequest", _PARAMS, "Request", "agent"),
        MessageUnion("AgentResponse", _RESULT, "Response", "agent"),
        MessageUnion("ClientNotification", _PARAMS, "Notification", "agent"),
        MessageUnion("AgentRequest", _PARAMS, "Request", "client"),
        MessageUnion("ClientResponse", _RESULT, "Response", "client"),
        MessageUnion("AgentNotification", _PARAMS, "Notification", "client"),
    )
}
"""The message unions of the published schemas, the same in every version (a test checks
each against the pinned schemas). `x-side` is the side that implements the method: a
request the Client sends (`ClientRequest`) is a method of the Agent, so its `x-side` is
`agent`, and so is that of the Agent's response to it (in `AgentResponse`)."""

MESSAGE_KINDS = ("Request", "Response", "Notification")


def message_kind(name: str) -> str | None:
    """`Request`, `Response` or `Notification` for a definition named like a message."""
    return next((kind for kind in MESSAGE_KINDS if name.endswith(kind) and name != kind), None)


def message_union(kind: str, side: str) -> MessageUnion | None:
    """The union a message of `kind` handled by `side` belongs in (None for other sides)."""
    return next((u for u in MESSAGE_UNIONS.values() if u.kind == kind and u.side == side), None)


def message_members(definition: Any, union: MessageUnion) -> list[Any] | None:
    """The list of members of a message union's definition (None when it is not there)."""
    node = definition
    for part in union.members:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and part < len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, list) else None


def member_refs(members: list[Any]) -> list[str]:
    """The definition each member of a message union refers to."""
    out = []
    for member in members:
        every = member.get("allOf") if isinstance(member, dict) else None
        if not (isinstance(every, list) and every):
            continue
        ref = every[0].get("$ref")
        if isinstance(ref, str) and isinstance(every[0], dict):
            out.append(ref.removeprefix("#/$defs/"))
    return out
