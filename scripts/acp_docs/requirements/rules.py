"""The requirements judged on the wire, each with its check: one list for `trace` and `conform`.

An RFD whose rules can be judged from the messages of a session registers a
mapping of requirement id to check under the entry-point group
`acp_docs.wire_checks`, named after the RFD's slug. A check takes the
messages of a session and the version's row and yields (line, message), or a
`Breach`, for every message that breaks the requirement; a `Breach` that is
not `certain` is one the messages cannot settle (a suggestion that may have
crossed a prompt on the wire), which `trace` reports as a warning. What the requirement says, where
it holds and where the RFD states it come from `requirements.yaml`: the code
holds only what cannot be data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from acp_docs.core.errors import LocatedError
from acp_docs.core.plugins import load_group
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.requirements.model import Requirement, RequirementSet

GROUP = "acp_docs.wire_checks"


class Breach(NamedTuple):
    """A message that breaks a requirement: its line, what broke, and whether the messages
    prove it (`certain`) or only allow it (the order the Client saw may not be the Agent's)."""

    line: int
    message: str
    certain: bool = True


Check = Callable[[list[Any], ProtocolVersion], Iterable[tuple[int, str] | Breach]]
"""A check: the messages of a session (`acp_docs.trace.session.Message`s) and the version's
row in, (line, what broke) or a `Breach` out for each message that breaks its requirement."""


@dataclass(frozen=True)
class Rule:
    """A requirement judged on the wire, and the check that judges it."""

    requirement: Requirement
    check: Check

    @property
    def id(self) -> str:
        """The requirement's id."""
        return self.requirement.id

    @property
    def statement(self) -> str:
        """The requirement's words."""
        return self.requirement.text

    @property
    def link(self) -> str:
        """Where the RFD states it: `rfds/<slug>.md#anchor`."""
        return self.requirement.citation

    @property
    def versions(self) -> tuple[str, ...]:
        """The versions it holds in."""
        return self.requirement.versions

    def applies(self, version: ProtocolVersion) -> bool:
        """True when the requirement holds in `version`."""
        return version.name in self.requirement.versions

    def breaches(self, messages: list[Any], version: ProtocolVersion) -> list[Breach]:
        """Every `Breach` the check finds in `messages`, a plain (line, message) as certain."""
        return [Breach(*found) for found in self.check(messages, version)]


def _refuse(value: Mapping[Any, Any], name: str) -> str | None:
    for key, check in value.items():
        if not isinstance(key, str) or not key.startswith(f"{name}/"):
            return f"check {key!r}: name each check by its requirement's id, `{name}/<name>`"
        if not callable(check):
            return f"check {key!r} is not callable"
    return None


def checks() -> dict[str, Check]:
    """Every registered wire check, by requirement id (PluginLoadError for a bad entry)."""
    found: dict[str, Check] = {}
    # Any mapping class will do: load_group only tests isinstance(value, kind), but mypy
    # takes an abstract class for `type[T]` as an error (python/mypy#4717).
    for listed in load_group(GROUP, Mapping, _refuse).values():  # type: ignore[type-abstract]
        found.update(listed)
    return found


def rules(sets: Iterable[RequirementSet]) -> list[Rule]:
    """Every requirement judged on the wire, with its check, in the files' order; a
    LocatedError for one that has no check (the `rfds` check reports it too)."""
    registered = checks()
    found = []
    for reqs in sets:
        for req in reqs.requirements:
            if req.judged is None:
                continue
            if req.id not in registered:
                raise LocatedError(
                    reqs.shown, req.line, None, f"{req.id} is judged on the wire but has no check"
                )
            found.append(Rule(req, registered[req.id]))
    return found
