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
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.conform.agent import AgentProcess, Broken, Ended
from acp_docs.conform.client import Client, Entry, Limits, has_capability
from acp_docs.conform.scenario import Conformance, Scenario, Skipped
from acp_docs.core import protocols
from acp_docs.core.protocols import ProtocolVersion
from acp_docs.requirements.model import VERDICT_TIERS, Requirement, RequirementSet
from acp_docs.requirements.rules import Rule
from acp_docs.trace import session as trace
from acp_docs.trace.session import TO_AGENT
from acp_docs.validation.schemaset import SchemaSet

PASS, FAIL, SKIPPED, NOT_TESTED = "PASS", "FAIL", "SKIPPED", "NOT_TESTED"
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
    """`completed`, `skipped` (with `reason`) or `broken` (with `reason`)."""
    reason: str = ""
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


@dataclass
class Result:
    """The whole run: the version, the Agent, every scenario and every outcome."""

    version: ProtocolVersion
    argv: list[str]
    runs: list[ScenarioRun]
    outcomes: list[Outcome]

    @property
    def conformant(self) -> bool:
        """No FAIL of a MANDATORY or CAPABILITY requirement."""
        return not any(
            o.status == FAIL and o.requirement.tier in VERDICT_TIERS for o in self.outcomes
        )

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
    argv: Sequence[str],
    version: ProtocolVersion,
    limits: Limits,
    scenario: Scenario,
    advertise: dict[str, Any],
    rfd: str,
) -> ScenarioRun:
    run = ScenarioRun(rfd, scenario)
    with tempfile.TemporaryDirectory(
        prefix="acp-docs-conform-", ignore_cleanup_errors=True
    ) as folder:
        agent = AgentProcess(argv, Path.cwd(), limits.grace)
        client = Client(agent, version, limits, Path(folder))
        client.advertise = advertise if scenario.advertise else {}
        try:
            scenario.run(client)
            client.settle()
        except Skipped as skipped:
            run.status, run.reason = "skipped", str(skipped)
        except Broken as broken:
            run.status, run.reason = "broken", str(broken)
        finally:
            run.ended, rest = agent.close()
            client.transcript.extend(Entry(trace.TO_CLIENT, m) for m in rest)
    run.transcript = client.transcript
    run.initialize = client.initialize
    return run


def _judge_messages(
    run: ScenarioRun,
    schemas: SchemaSet,
    version: ProtocolVersion,
    rules: Sequence[Rule],
    conformance: Conformance,
) -> list[tuple[int, str]]:
    """Read the run's transcript as a trace: each rule's violations into the run, and the
    engine's own problems (schema, ids) returned."""
    lines = [
        json.dumps({"direction": e.direction, "message": e.message}, ensure_ascii=False)
        for e in run.transcript
    ]
    shown = f"scenario {run.scenario.name}"
    read = trace.parse("\n".join(lines), shown, schemas, version.name)
    trace.validate(read, shown, schemas, version.name)
    for rule in rules:
        if rule.applies(version):
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
    argv: Sequence[str],
    version: ProtocolVersion,
    limits: Limits,
    chosen: Sequence[tuple[RequirementSet, Conformance, list[Rule]]],
    schemas: SchemaSet,
) -> Result:
    """Run every scenario of every chosen RFD against the Agent `argv`, and judge."""
    runs: list[ScenarioRun] = []
    session_failures: list[tuple[ScenarioRun, int, str]] = []
    outcomes: list[Outcome] = []
    per_rfd: list[tuple[RequirementSet, list[ScenarioRun]]] = []
    for reqs, conformance, rules in chosen:
        advertise = _advertised([reqs], version)
        mine = []
        for scenario in conformance.scenarios:
            if not scenario.holds(version):
                continue
            run = _scenario(argv, version, limits, scenario, advertise, reqs.slug)
            problems = _judge_messages(run, schemas, version, rules, conformance)
            if run.status == "broken":
                session_failures.append((run, len(run.transcript), f"after it: {run.reason}"))
            session_failures.extend((run, line, message) for line, message in problems)
            mine.append(run)
        runs.extend(mine)
        per_rfd.append((reqs, mine))
    session = Outcome(SESSION, FAIL if session_failures else PASS, failures=session_failures)
    if not session_failures and not any(r.status == "completed" for r in runs):
        session.status, session.reason = SKIPPED, "no scenario ran to its end"
    outcomes.append(session)
    for reqs, mine in per_rfd:
        for req in reqs.requirements:
            if req.party == "agent" and version.name in req.versions:
                outcomes.append(_outcome(req, version, mine))
    return Result(version, list(argv), runs, outcomes)


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
        why = f"the Agent did not advertise {gate}" if gate else "no scenario judged it"
        return Outcome(req, SKIPPED, why)
    if not done:
        return Outcome(req, NOT_TESTED, "no scenario that judges it ran to its end")
    if req.judged == "offer" and not any(r.offered for r in done):
        return Outcome(req, SKIPPED, "never offered: the Agent sent nothing this is about")
    return Outcome(req, PASS)


def _gated(run: ScenarioRun, gate: str) -> bool:
    return has_capability(run.initialize, gate)
