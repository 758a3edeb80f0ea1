"""What an RFD gives `acp-docs conform`: its scenarios, and what counts as an offer.

An RFD registers one `Conformance` under the entry-point group
`acp_docs.conform`, named after its slug. Each scenario drives a fresh Agent
through one story (`run(client)`), in the versions where it holds; it may end
early with `Skipped` when the Agent does not offer what the story needs.
`offered(messages)` says whether the Agent did what the RFD's `judged: offer`
requirements are about, so that they are SKIPPED, never PASS, when it did not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acp_docs.core.plugins import load_group
from acp_docs.core.protocols import ProtocolVersion

if TYPE_CHECKING:
    from acp_docs.conform.client import Client
    from acp_docs.trace.session import Message

GROUP = "acp_docs.conform"


class Skipped(Exception):
    """The scenario cannot run with this Agent; the message says why (what it lacks)."""


def every_version(_version: ProtocolVersion) -> bool:
    """A scenario's `holds` when it runs in every version."""
    return True


@dataclass(frozen=True)
class Scenario:
    """One story a fresh Agent is driven through.

    `advertise`: whether the Client advertises the capabilities the RFD's
    requirements are gated on (`params.…` gates of the version).
    """

    name: str
    title: str
    run: Callable[[Client], None]
    advertise: bool = True
    holds: Callable[[ProtocolVersion], bool] = every_version


@dataclass(frozen=True)
class Conformance:
    """An RFD's scenarios, and what counts as an offer in a session's messages."""

    scenarios: Sequence[Scenario]
    offered: Callable[[list[Message]], bool]


def _refuse(value: Conformance, _name: str) -> str | None:
    if not value.scenarios or not all(isinstance(s, Scenario) for s in value.scenarios):
        return "must name a Conformance with at least one Scenario"
    names = [s.name for s in value.scenarios]
    if len(set(names)) != len(names):
        return "two scenarios share a name"
    return None


def registered() -> dict[str, Conformance]:
    """Every RFD's `Conformance`, by slug (a PluginLoadError for a bad entry)."""
    return load_group(GROUP, Conformance, _refuse)
