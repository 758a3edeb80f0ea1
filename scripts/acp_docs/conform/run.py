"""Drive a live Agent through every scenario of the chosen RFDs, and judge each requirement.

Each scenario gets a fresh Agent process (one crash spoils nothing else) and a
fresh, empty folder for its sessions. What was said is read back as a trace
(`acp_docs.trace.session`): every message validated against the merged
schema, and every requirement judged on the wire checked over it, with the
same checks `acp-docs trace` runs. Then each requirement of the version gets
one outcome:

- FAIL when a scenario that judges it holds a message that breaks it;
- SKIPPED when no scenario judged it: the capability it is gated on was not
  there, or (`judged: offer`) the Agent never offered what it is about;
- PASS when scenarios that ran to the end judged it and nothing broke it;
- NOT_TESTED when the requirement is not judged on the wire (`untested`), or
  the only scenarios that would have judged it did not run to the end.

`conform/session` is the engine's own requirement: every scenario runs to its
end, and every message the Agent sends is a JSON-RPC message the merged schema
accepts (a message that breaks an RFD's requirement counts there alone).

A scenario whose prerequisite failed (`Blocked`: a login is needed, the Agent
speaks another version, refused a session, or ran no turn) judges nothing and
blames nothing: the run is then INCONCLUSIVE, unless a rule was broken all the
same. Before the scenarios, one `initialize` asks for the version: the Agent's
answer decides which version is judged, as in ACP's negotiation.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.conform.agent import AgentProcess, Broken, Ended
from acp_docs.conform.client import Blocked, Client, Entry, Limits, has_capability
from acp_docs.conform.scenario import Conformance, Scenario, Skipped
from acp_docs.core import protocols
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.requirements.model import VERDICT_TIERS, Requirement, RequirementSet
from acp_docs.requirements.rules import Rule
from acp_docs.trace import session as trace
from acp_docs.trace.session import TO_AGENT
from acp_docs.validation.schemaset import SchemaSet

PASS, FAIL, SKIPPED, NOT_TESTED = "PASS", "FAIL", "SKIPPED", "NOT_TESTED"
CONFORMANT, NOT_CONFORMANT, INCONCLUSIVE = "conformant", "not conformant", "inconclusive"


@dataclass(frozen=True)
class AgentCommand:
    """How the Agent is started: its command, what is added to its environment, its folder
    (None: the current one), and the auth method a scenario logs in with (None: none)."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    auth_method: str | None = None


SESSION = Requirement(
    id="conform/session",
    tier="MANDATORY",
    party="agent",
    versions=protocols.NAMES,
    capability={},
    cite="what-every-scenario-requires",
    text=(
        "The Agent answers every request in time, runs until the Client closes its input,"
        " and writes only JSON-RPC messages the merged schema of the version accepts."
    ),
    binds=(),
    judged="always",
    untested=None,
    line=1,
    rfd="tooling/conformance.md",
)
"""The engine's own requirement, judged in every scenario."""


@dataclass
class ScenarioRun:
    """One scenario as it ran: how it ended, what was said, and what broke."""

    rfd: str
    scenario: Scenario
    status: str = "completed"
    """`completed`, `skipped`, `broken` (the Agent broke the session) or `blocked` (a
    prerequisite failed: `blocked_by` says which), the last three with `reason`."""
    reason: str = ""
    blocked_by: str | None = None
    duration: float = 0.0
    transcript: list[Entry] = field(default_factory=list)
    ended: Ended | None = None
    initialize: tuple[dict[str, Any], Any] | None = None
    """The `initialize` params sent and the result received, once the Agent answered."""
    violations: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    """Requirement id -> (message number, what broke it)."""
    offered: bool = False


@dataclass
class Outcome:
    """A requirement's outcome, why, and each place it failed (scenario, message, why)."""

    requirement: Requirement
    status: str
    reason: str = ""
    failures: list[tuple[ScenarioRun, int, str]] = field(default_factory=list)
    expected: bool = False
    """A FAIL the run was told to expect: named, not counted."""


@dataclass
class Result:
    """The whole run: the version, the Agent, every scenario and every outcome."""

    version: ProtocolVersion
    argv: list[str]
    runs: list[ScenarioRun]
    outcomes: list[Outcome]
    requested: ProtocolVersion | None = None
    """The version asked for, when the Agent's answer chose another."""
    stale: list[str] = field(default_factory=list)
    """Requirements expected to fail that passed."""

    @property
    def failed(self) -> list[Outcome]:
        """The FAILs of a MANDATORY or CAPABILITY requirement not expected to fail."""
        return [
            o
            for o in self.outcomes
            if o.status == FAIL and o.requirement.tier in VERDICT_TIERS and not o.expected
        ]

    @property
    def blocked_by(self) -> list[str]:
        """What kept scenarios from being judged (`auth`, `version`, ...), each once."""
        return list(dict.fromkeys(r.blocked_by for r in self.runs if r.blocked_by))

    @property
    def verdict(self) -> str:
        """NOT_CONFORMANT on a counted FAIL (or a stale expected failure), INCONCLUSIVE when a
        prerequisite failed or no scenario ran to its end, CONFORMANT otherwise."""
        if self.failed or self.stale:
            return NOT_CONFORMANT
        if self.blocked_by or not any(r.status == "completed" for r in self.runs):
            return INCONCLUSIVE
        return CONFORMANT

    @property
    def conformant(self) -> bool:
        """The verdict is CONFORMANT."""
        return self.verdict == CONFORMANT

    @property
    def agent_capabilities(self) -> Any:
        """What the Agent advertised in its first `initialize` answer, if anything."""
        for run in self.runs:
            if run.initialize is not None and isinstance(run.initialize[1], dict):
                result = run.initialize[1]
                return result.get("agentCapabilities", result.get("capabilities"))
        return None

    @property
    def agent_info(self) -> Any:
        """What the Agent said of itself in its first `initialize` answer, if anything."""
        for run in self.runs:
            for entry in run.transcript:
                body = entry.message
                if entry.direction != TO_AGENT and isinstance(body, dict):
                    result = body.get("result")
                    if isinstance(result, dict) and ("agentInfo" in result or "info" in result):
                        return result.get("agentInfo", result.get("info"))
        return None


def _advertised(sets: Sequence[RequirementSet], version: ProtocolVersion) -> dict[str, Any]:
    """The Client capabilities the requirements of `version` are gated on, as `initialize`
    carries them."""
    assert version.handshake is not None
    top = version.handshake.client_capabilities
    made: dict[str, Any] = {}
    for reqs in sets:
        for req in reqs.requirements:
            path = req.gate(version.name) or ""
            parts = path.split(".")
            if len(parts) < 3 or parts[:2] != ["params", top]:
                continue
            node = made
            for key in parts[2:-1]:
                node = node.setdefault(key, {})
            node.setdefault(parts[-1], {})
    return made


def _scenario(
    command: AgentCommand,
    version: ProtocolVersion,
    limits: Limits,
    scenario: Scenario,
    advertise: dict[str, Any],
    rfd: str,
) -> ScenarioRun:
    run = ScenarioRun(rfd, scenario)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(
        prefix="acp-docs-conform-", ignore_cleanup_errors=True
    ) as folder:
        agent = AgentProcess(command.argv, command.cwd or Path.cwd(), limits.grace, command.env)
        client = Client(agent, version, limits, Path(folder))
        client.advertise = advertise if scenario.advertise else {}
        client.auth_method = command.auth_method
        try:
            scenario.run(client)
            client.settle()
        except Skipped as skipped:
            run.status, run.reason = "skipped", str(skipped)
        except Blocked as blocked:
            run.status, run.reason, run.blocked_by = "blocked", str(blocked), blocked.kind
        except Broken as broken:
            run.status, run.reason = "broken", str(broken)
        finally:
            run.ended, rest = agent.close()
            seen = time.monotonic() - started
            client.transcript.extend(Entry(trace.TO_CLIENT, m, seen) for m in rest)
    run.transcript = client.transcript
    run.initialize = client.initialize
    run.duration = time.monotonic() - started
    return run


def negotiate(command: AgentCommand, asked: ProtocolVersion, limits: Limits) -> ProtocolVersion:
    """The version to judge: the one the Agent answers an `initialize` for `asked` with, when
    the engine knows it, as ACP's negotiation decides; `asked` otherwise (its scenarios are
    then blocked by the mismatch) or when the Agent does not answer at all (they say so)."""
    with tempfile.TemporaryDirectory(
        prefix="acp-docs-conform-", ignore_cleanup_errors=True
    ) as folder:
        agent = AgentProcess(command.argv, command.cwd or Path.cwd(), limits.grace, command.env)
        client = Client(agent, asked, limits, Path(folder))
        try:
            client.open()
        except (Blocked, Broken):
            pass
        finally:
            agent.close()
    answer = client.initialize[1] if client.initialize is not None else None
    number = answer.get("protocolVersion") if isinstance(answer, dict) else None
    for version in protocols.VERSIONS.values():
        if version.handshake is not None and version.handshake.number == number:
            return version
    return asked


def _judge_messages(
    run: ScenarioRun,
    schemas: SchemaSet,
    version: ProtocolVersion,
    rules: Sequence[Rule],
    conformance: Conformance,
    settle: float,
) -> list[tuple[int, str]]:
    """Read the run's transcript as a trace: each rule's violations into the run, and the
    engine's own problems (schema, ids) returned."""
    lines = [
        json.dumps(
            {"direction": e.direction, "time": e.time, "message": e.message}, ensure_ascii=False
        )
        for e in run.transcript
    ]
    shown = f"scenario {run.scenario.name}"
    read = trace.parse("\n".join(lines), shown, schemas, version.name, settle)
    trace.validate(read, shown, schemas, version.name)
    for rule in rules:
        if rule.applies(version):
            # The Client waits for quiet before each prompt, so a suggestion that may have
            # crossed one is a breach that is not certain only when that wait ran out.
            breaches = rule.breaches(read.messages, version)
            found = [(b.line, b.message) for b in breaches if b.certain]
            if found:
                run.violations[rule.id] = found
    run.offered = conformance.offered(read.messages)
    counted = {r.id for r in rules if r.requirement.tier in VERDICT_TIERS}
    broken_lines = {
        line for rule, found in run.violations.items() if rule in counted for line, _ in found
    }
    problems = []
    for finding in read.findings:
        if finding.line in broken_lines:
            continue  # the requirement it breaks, which decides the verdict too, says so
        if finding.rule == "trace/unanswered" and run.status != "completed":
            continue  # the scenario ended before its answer
        problems.append((finding.line, finding.message))
    return problems


def conform(
    command: AgentCommand,
    asked: ProtocolVersion,
    limits: Limits,
    chosen: Sequence[tuple[RequirementSet, Conformance, list[Rule]]],
    schemas: SchemaSet,
    only: Sequence[str] = (),
    expected: Sequence[str] = (),
) -> Result:
    """Run every scenario of every chosen RFD (those named in `only`, when given) against
    the Agent, in the version it answers `asked` with, and judge; the ids in `expected`
    are failures the run expects."""
    version = negotiate(command, asked, limits)
    runs: list[ScenarioRun] = []
    session_failures: list[tuple[ScenarioRun, int, str]] = []
    outcomes: list[Outcome] = []
    per_rfd: list[tuple[RequirementSet, list[ScenarioRun]]] = []
    for reqs, conformance, rules in chosen:
        advertise = _advertised([reqs], version)
        mine = []
        for scenario in conformance.scenarios:
            if not scenario.holds(version) or (only and scenario.name not in only):
                continue
            run = _scenario(command, version, limits, scenario, advertise, reqs.slug)
            problems = _judge_messages(run, schemas, version, rules, conformance, limits.settle)
            if run.status == "broken":
                session_failures.append((run, len(run.transcript), f"after it: {run.reason}"))
            session_failures.extend((run, line, message) for line, message in problems)
            mine.append(run)
        runs.extend(mine)
        per_rfd.append((reqs, mine))
    session = Outcome(SESSION, FAIL if session_failures else PASS, failures=session_failures)
    if not session_failures and not any(r.status == "completed" for r in runs):
        blocked = [r for r in runs if r.status == "blocked"]
        why = f"not testable: {blocked[0].reason}" if blocked else "no scenario ran to its end"
        session.status, session.reason = NOT_TESTED if blocked else SKIPPED, why
    outcomes.append(session)
    for reqs, mine in per_rfd:
        for req in reqs.requirements:
            if req.party == "agent" and version.name in req.versions:
                outcomes.append(_outcome(req, version, mine))
    stale = []
    for outcome in outcomes:
        if outcome.requirement.id in expected:
            outcome.expected = outcome.status == FAIL
            if outcome.status == PASS:
                stale.append(outcome.requirement.id)
    requested = asked if asked is not version else None
    return Result(version, list(command.argv), runs, outcomes, requested, stale)


def _outcome(req: Requirement, version: ProtocolVersion, runs: list[ScenarioRun]) -> Outcome:
    if req.judged is None:
        return Outcome(req, NOT_TESTED, f"not on the wire: {req.untested}")
    gate = req.gate(version.name)
    gated = [r for r in runs if r.status != "skipped" and (gate is None or _gated(r, gate))]
    failures = [(r, line, why) for r in gated for line, why in r.violations.get(req.id, [])]
    if failures:
        return Outcome(req, FAIL, failures=failures)
    done = [r for r in gated if r.status == "completed"]
    if not gated:
        if gate is not None and not any(r.initialize for r in runs):
            return Outcome(req, NOT_TESTED, "the Agent never answered initialize")
        why = f"the Agent did not advertise {gate}" if gate else "no scenario judged it"
        return Outcome(req, SKIPPED, why)
    if not done:
        blocked = [r for r in gated if r.status == "blocked"]
        why = "no scenario judged it to its end"
        why = f"not testable: {blocked[0].reason}" if blocked else why
        return Outcome(req, NOT_TESTED, why)
    if req.judged == "offer" and not any(r.offered for r in done):
        return Outcome(req, SKIPPED, "never offered: the Agent sent nothing this is about")
    return Outcome(req, PASS)


def _gated(run: ScenarioRun, gate: str) -> bool:
    return has_capability(run.initialize, gate)
