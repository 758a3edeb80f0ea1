"""One row per ACP protocol version: its unions, capabilities, methods, files and folders.

Everything the engine needs to know about how versions differ lives here, as
columns of a row, so no other module branches on a version's name: adding a
version is adding a row (and its data: the SDK's schema files, its RFD folder).
A version that is not in the table is a usage error, never treated like another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from acp_docs.core.errors import UsageError

SDK_PACKAGE = "@agentclientprotocol/sdk"
"""The npm package whose published schemas are the base every fragment merges into."""

CHANNELS = ("stable", "unstable")
"""`stable` is `schema.json`; `unstable` is `schema.unstable.json`, a superset holding
the types of features that are not final yet."""

UNSTABLE_NOTE = (
    "**UNSTABLE**\n\nThis capability is not part of the spec yet, and may be removed or"
    " changed at any point.\n\n"
)
"""What upstream puts before the description of every type, branch and field that is
only in `schema.unstable.json`."""


def channel_of(status: str | None) -> str:
    """The base an RFD's change merges into: `stable` once Completed, `unstable` before."""
    return "stable" if status == "completed" else "unstable"


@dataclass(frozen=True)
class Union:
    """A discriminated union of the published schema, such as `SessionUpdate`.

    `fallback` is the `title` of the open branch that takes any other tag (and
    excludes the known ones through `not: {anyOf: [...]}`); None for a closed union.
    """

    definition: str
    keyword: str
    discriminator: str
    fallback: str | None = None

    @property
    def is_open(self) -> bool:
        """True when a receiver keeps an unknown tag through the fallback branch."""
        return self.fallback is not None


@dataclass(frozen=True)
class Handshake:
    """How a Client opens a connection and a session in a version, and asks for a replay."""

    number: int
    """The `protocolVersion` of `initialize`."""
    client_capabilities: str
    """The key of `initialize`'s params holding the Client's capabilities."""
    client_info: str
    """The key of `initialize`'s params naming the Client."""
    new_session: Mapping[str, object]
    """What `session/new` takes besides `cwd`."""
    replay: Mapping[str, object]
    """What the replay method (`replay_methods[0]`) takes besides `sessionId` and `cwd`."""
    replay_gate: str
    """The capability in `initialize`'s result (a dotted path) that offers the replay."""
    login: str
    """The method that logs in with one of the Agent's advertised auth methods (`methodId`)."""


@dataclass(frozen=True)
class ProtocolVersion:
    """What one protocol version looks like in its published schema."""

    name: str
    unions: Mapping[str, Union]
    capabilities: Mapping[str, str]
    """Capability scopes of the Client: `""` for the top level, `"session"`, ... -> definition."""
    session_notification: str
    replay_methods: tuple[str, ...]
    """Requests during which an Agent replays conversation history."""
    base_files: Mapping[str, str] = field(default_factory=dict)
    """`stable` and `unstable` -> the schema file's path inside the SDK package (and in an
    upstream tree of today's layout)."""
    older_files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """`stable` and `unstable` -> where upstream trees of earlier layouts kept the version's
    schema, newest layout first (before v2, the v1 schema was `schema/schema.json`)."""
    state_update: str | None = None
    """The `SessionUpdate` tag by which an Agent reports the session's state (`idle` ends
    foreground work); None when the version has none: a turn ends with its response."""
    handshake: Handshake | None = None
    """How a Client opens a connection and a session (`acp-docs conform`)."""
    rfds_folder: str | None = None
    """The folder (`rfds/<folder>/` here, `docs/rfds/<folder>/` and a nav group of that
    name upstream) of the RFDs about this version alone; None when it has none."""

    def union(self, definition: str) -> Union:
        """The union named `definition`; a UsageError when this version has none."""
        try:
            return self.unions[definition]
        except KeyError:
            known = ", ".join(sorted(self.unions)) or "none"
            raise UsageError(
                f"ACP {self.name} has no discriminated union {definition!r} (known: {known})"
            ) from None

    def capability_definition(self, scope: str) -> str:
        """The definition holding the Client capabilities of `scope`."""
        try:
            return self.capabilities[scope]
        except KeyError:
            known = ", ".join(repr(s) for s in sorted(self.capabilities))
            raise UsageError(
                f"ACP {self.name} has no Client capabilities scope {scope!r} (known: {known})"
            ) from None

    @property
    def gates_unknown_updates(self) -> bool:
        """True when a Client rejects a `SessionUpdate` tag it does not know (a closed union):
        a new update is then sent only to a Client that advertised it."""
        update = self.unions.get("SessionUpdate")
        return update is not None and not update.is_open

    @property
    def fallback_titles(self) -> frozenset[str]:
        """The titles of every open union's fallback branch."""
        return frozenset(u.fallback for u in self.unions.values() if u.fallback)


def tree_files(version: ProtocolVersion, channel: str) -> tuple[str, ...]:
    """Every path an upstream tree of any age kept `version`'s `channel` schema at, newest
    layout first."""
    return (version.base_files[channel], *version.older_files.get(channel, ()))


def _base_files(name: str) -> dict[str, str]:
    return {
        "stable": f"schema/{name}/schema.json",
        "unstable": f"schema/{name}/schema.unstable.json",
    }


V1 = ProtocolVersion(
    name="v1",
    unions={
        "SessionUpdate": Union("SessionUpdate", "oneOf", "sessionUpdate"),
    },
    capabilities={"": "ClientCapabilities", "session": "ClientSessionCapabilities"},
    session_notification="SessionNotification",
    replay_methods=("session/load",),
    base_files=_base_files("v1"),
    older_files={"stable": ("schema/schema.json",), "unstable": ("schema/schema.unstable.json",)},
    handshake=Handshake(
        number=1,
        client_capabilities="clientCapabilities",
        client_info="clientInfo",
        new_session={"mcpServers": []},
        replay={"mcpServers": []},
        replay_gate="agentCapabilities.loadSession",
        login="authenticate",
    ),
)

V2 = ProtocolVersion(
    name="v2",
    unions={
        "SessionUpdate": Union("SessionUpdate", "anyOf", "sessionUpdate", fallback="other"),
    },
    capabilities={"": "ClientCapabilities"},
    session_notification="UpdateSessionNotification",
    replay_methods=("session/resume",),
    base_files=_base_files("v2"),
    state_update="state_update",
    handshake=Handshake(
        number=2,
        client_capabilities="capabilities",
        client_info="info",
        new_session={},
        replay={"replayFrom": {"type": "start"}},
        replay_gate="capabilities.session",
        login="auth/login",
    ),
    rfds_folder="v2",
)

VERSIONS: dict[str, ProtocolVersion] = {v.name: v for v in (V1, V2)}
"""Every protocol version the engine knows, by name, oldest first."""

NAMES: tuple[str, ...] = tuple(VERSIONS)


def folders() -> dict[str, str]:
    """The RFD folders of the versions that have one (`rfds_folder`) -> the version's name."""
    return {v.rfds_folder: v.name for v in VERSIONS.values() if v.rfds_folder}


def unknown(name: object) -> str:
    """The message for a version name the table does not hold."""
    return f"unknown ACP protocol version {name!r}: known versions are {', '.join(NAMES)}"


def get(name: str) -> ProtocolVersion:
    """The table of version `name`; a UsageError naming the known ones otherwise."""
    try:
        return VERSIONS[name]
    except (KeyError, TypeError):
        raise UsageError(unknown(name)) from None
