"""The new types of the prompt_suggestions RFD, written once for both protocol versions.

Everything the fragments under `schema/` say comes from here; `acp-docs schema
generate` writes them and `acp-docs schema check` proves they are current.
Descriptions are written for readers: they show in the schema reference and in
SDKs generated from the merged schema.
"""

from __future__ import annotations

from typing import Any, Literal

Protocol = Literal["v1", "v2"]
PROTOCOLS: tuple[Protocol, ...] = ("v1", "v2")

TAG = "prompt_suggestions"
"""The `sessionUpdate` discriminator value of the new variant."""

SUGGESTION = "PromptSuggestion"
UPDATE = "PromptSuggestionsUpdate"
CAPABILITY = "PromptSuggestionsCapabilities"
CAPABILITY_FIELD = "promptSuggestions"

RFD_URL = "https://agentclientprotocol.com/rfds/prompt-suggestions"

_META_NOTE: dict[Protocol, str] = {
    "v1": (
        "Reserved by ACP for implementation-specific metadata. Implementations MUST NOT"
        " make assumptions about values at these keys.\n\n"
        "See protocol docs: [Extensibility]"
        "(https://agentclientprotocol.com/protocol/v1/extensibility)"
    ),
    "v2": (
        "Reserved by ACP for implementation-specific metadata. Omitted and `null` are"
        " equivalent and mean no metadata. Implementations MUST NOT assign meaning to keys"
        " they do not recognize.\n\n"
        "See protocol docs: [Extensibility]"
        "(https://agentclientprotocol.com/protocol/v2/extensibility)"
    ),
}


def _meta(protocol: Protocol, scope: str) -> dict[str, Any]:
    return {
        "description": f"Metadata scoped to {scope}. {_META_NOTE[protocol]}",
        "type": ["object", "null"],
        "x-deserialize-default-on-error": True,
        "additionalProperties": True,
    }


def _gate(protocol: Protocol) -> str:
    if protocol == "v1":
        return (
            "Agents MUST only send this update when the Client advertised the"
            " `session.promptSuggestions` Client capability."
        )
    return (
        "No capability gates this update: a Client that does not know it keeps it"
        " through the unknown-update fallback and may ignore it."
    )


def suggestion(protocol: Protocol) -> dict[str, Any]:
    """`PromptSuggestion`: one predicted next prompt."""
    return {
        "description": (
            "One predicted next prompt, offered to the user in the empty composer.\n\n"
            "Accepting a suggestion fills the composer; the Client MUST NOT send it on the"
            " user's behalf."
        ),
        "type": "object",
        "properties": {
            "text": {
                "description": (
                    "The suggested prompt as plain text, shown as the user would type it."
                    " Never empty. Clients MUST insert it as text, not as markup."
                ),
                "type": "string",
                "minLength": 1,
            },
            "_meta": _meta(protocol, "this suggestion"),
        },
        "required": ["text"],
    }


def update(protocol: Protocol) -> dict[str, Any]:
    """`PromptSuggestionsUpdate`: the fields of the `prompt_suggestions` session update."""
    return {
        "description": (
            "The prompts the Agent predicts the user may send next, offered at the end of"
            " a turn.\n\n"
            "Each update replaces the whole offered set; an empty list withdraws it. A"
            " Client MUST NOT offer a suggestion that arrived before the most recent prompt"
            " it sent, and MUST NOT wait for one: a turn may end without any. Suggestions"
            " are not conversation history and are not replayed by `session/load`.\n\n"
            f"{_gate(protocol)}\n\n"
            f"See RFD: [Prompt suggestions]({RFD_URL})"
        ),
        "type": "object",
        "properties": {
            "suggestions": {
                "description": (
                    "The suggestions in order, most likely first. An empty list withdraws"
                    " the suggestions offered before."
                ),
                "type": "array",
                "items": {"$ref": f"#/$defs/{SUGGESTION}"},
            },
            "_meta": _meta(protocol, "this update"),
        },
        "required": ["suggestions"],
    }


def capability() -> dict[str, Any]:
    """`PromptSuggestionsCapabilities` (v1 only): the Client can offer suggestions."""
    return {
        "description": (
            "Client support for offering prompt suggestions in its composer.\n\n"
            "Supplying `{}` advertises support. There is no fallback channel: without it the"
            " Agent sends no suggestions and need not ask its model for a prediction."
        ),
        "type": "object",
        "properties": {"_meta": _meta("v1", "this capability")},
    }


def capability_property() -> dict[str, Any]:
    """The `promptSuggestions` property added to v1 `ClientSessionCapabilities`."""
    return {
        "description": (
            "Support for `prompt_suggestions` session updates.\n\n"
            "Optional. Omitted or `null` both mean the client does not advertise support."
            " Supplying `{}` means the client can offer suggestions in its composer."
        ),
        "anyOf": [{"$ref": f"#/$defs/{CAPABILITY}"}, {"type": "null"}],
        "x-deserialize-default-on-error": True,
    }


def tag_match() -> dict[str, Any]:
    """The object that matches the new tag, as the published variants spell it."""
    return {
        "type": "object",
        "properties": {"sessionUpdate": {"type": "string", "const": TAG}},
        "required": ["sessionUpdate"],
    }


def variant(protocol: Protocol) -> dict[str, Any]:
    """The `SessionUpdate` branch for the new tag, shaped like the published branches."""
    match = tag_match()
    return {
        "description": (
            "Prompts the Agent predicts the user may send next, replacing any offered"
            f" before.\n\n{_gate(protocol)}"
        ),
        "type": match["type"],
        "properties": match["properties"],
        "required": match["required"],
        "allOf": [{"$ref": f"#/$defs/{UPDATE}"}],
    }


def new_defs(protocol: Protocol) -> dict[str, dict[str, Any]]:
    """The definitions a version gains, by name."""
    defs = {SUGGESTION: suggestion(protocol), UPDATE: update(protocol)}
    if protocol == "v1":
        defs[CAPABILITY] = capability()
    return defs
