"""A conformance run for people and machines: the table by tier, the JSON report, findings.

Only formats: `acp_docs.conform.run` decides every outcome. Whatever the
Agent wrote is data: the table escapes it (`printable`), the JSON report keeps
it as JSON strings, and a transcript keeps each message whole only up to
`MESSAGE_KEPT` characters of JSON and the first `TRANSCRIPT_KEPT` messages,
once per requirement and scenario.

A scenario's transcript is a trace: its messages are numbered as the lines of
the JSON Lines `acp-docs trace` reads, and a failure names its line, as the
checks' own messages do.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from acp_docs import __version__
from acp_docs.conform.run import (
    FAIL,
    NOT_TESTED,
    PASS,
    SESSION,
    SKIPPED,
    Outcome,
    Result,
    ScenarioRun,
)
from acp_docs.core.escaping import printable, unicode_data
from acp_docs.core.findings import Finding
from acp_docs.requirements.model import TIERS, RequirementSet

STATUSES = (PASS, FAIL, SKIPPED, NOT_TESTED)
MESSAGE_KEPT = 16 * 1024
TRANSCRIPT_KEPT = 2000
LINE_KEPT = 400
"""The longest line of the table, in characters (what the Agent wrote can be any length)."""
WHY_KEPT = 2000
"""The most characters of one failure's reason a report keeps."""
LINES_KEPT = 20
"""The most failing lines a report lists per requirement and scenario (it counts the rest)."""
SHOWN = {NOT_TESTED: "NOT TESTED"}


def table(result: Result) -> list[str]:
    """The terminal report: the scenarios, each requirement by tier, every failure, the
    verdict. Every line is printable (the Agent's words escaped)."""
    version = result.version.name
    agent = " ".join(result.argv)
    lines = [f"acp-docs conform: ACP {version}, Agent: {agent}"]
    info = result.agent_info
    if isinstance(info, dict):
        lines.append(f"  the Agent says it is {info.get('name')} {info.get('version')}")
    lines.append("Scenarios:")
    for run in result.runs:
        said = f" ({run.reason})" if run.reason else ""
        lines.append(f"  {run.status:<9} {run.rfd}: {run.scenario.name}{said}")
    width = max((len(o.requirement.id) for o in result.outcomes), default=10)
    for tier in TIERS:
        chosen = [o for o in result.outcomes if o.requirement.tier == tier]
        if not chosen:
            continue
        lines.append(tier)
        for outcome in chosen:
            status = SHOWN.get(outcome.status, outcome.status)
            why = f"  {outcome.reason}" if outcome.reason else ""
            lines.append(f"  {status:<10} {outcome.requirement.id:<{width}}{why}")
            for run, number, message in outcome.failures[:5]:
                lines.append(f"             {run.scenario.name}, line {number}: {message}")
            if len(outcome.failures) > 5:
                lines.append(f"             ... and {len(outcome.failures) - 5} more")
    lines.append(verdict(result))
    return [_cut(printable(line.rstrip()), LINE_KEPT) for line in lines]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def counts(result: Result) -> dict[str, dict[str, int]]:
    """Per tier, how many requirements had each outcome."""
    return {
        tier: {
            status: sum(
                1 for o in result.outcomes if o.requirement.tier == tier and o.status == status
            )
            for status in STATUSES
        }
        for tier in TIERS
    }


def verdict(result: Result) -> str:
    """The verdict line."""
    total = {s: sum(1 for o in result.outcomes if o.status == s) for s in STATUSES}
    said = ", ".join(f"{n} {SHOWN.get(s, s)}" for s, n in total.items() if n)
    if result.conformant:
        advisory = [o.requirement.id for o in result.outcomes if o.status == FAIL]
        noted = f"; advisory, not counted: {', '.join(advisory)}" if advisory else ""
        return f"VERDICT: CONFORMANT ({said}{noted})"
    failed = [o.requirement.id for o in result.outcomes if o.status == FAIL]
    return f"VERDICT: NOT CONFORMANT ({said}; failed: {', '.join(failed)})"


def _data(value: Any) -> Any:
    """A JSON value with every string (keys too) encodable: lone surrogates as `\\udcXX`."""
    if isinstance(value, str):
        return unicode_data(value)
    if isinstance(value, dict):
        return {unicode_data(str(k)): _data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_data(v) for v in value]
    return value


def _kept(message: Any) -> Any:
    text = json.dumps(_data(message), ensure_ascii=False)
    if len(text) <= MESSAGE_KEPT:
        return _data(message)
    cut = f"a message of {len(text)} characters, cut"
    return {"acp-docs": cut, "start": text[:MESSAGE_KEPT]}


def _transcript(run: ScenarioRun) -> list[dict[str, Any]]:
    return [
        {"line": n, "direction": e.direction, "message": _kept(e.message)}
        for n, e in enumerate(run.transcript[:TRANSCRIPT_KEPT], start=1)
    ]


def _by_scenario(outcome: Outcome) -> list[tuple[ScenarioRun, list[tuple[int, str]]]]:
    """The outcome's failures, grouped by the scenario they happened in, in order."""
    grouped: dict[int, tuple[ScenarioRun, list[tuple[int, str]]]] = {}
    for run, number, message in outcome.failures:
        grouped.setdefault(id(run), (run, []))[1].append((number, message))
    return list(grouped.values())


def _failure(run: ScenarioRun, found: list[tuple[int, str]]) -> dict[str, Any]:
    """One scenario's failures of a requirement: where and why (the first `LINES_KEPT`),
    and once, the scenario's transcript and the end of the Agent's standard error."""
    ended = run.ended
    return {
        "scenario": run.scenario.name,
        "rfd": run.rfd,
        "lines": [
            {"line": n, "why": unicode_data(_cut(m, WHY_KEPT))} for n, m in found[:LINES_KEPT]
        ],
        "more_lines": max(0, len(found) - LINES_KEPT),
        "scenario_status": run.status,
        "scenario_reason": unicode_data(_cut(run.reason, WHY_KEPT)),
        "ended": unicode_data(ended.how) if ended else None,
        "stderr": unicode_data(ended.stderr) if ended else "",
        "stderr_bytes": ended.stderr_bytes if ended else 0,
        "transcript": _transcript(run),
        "transcript_messages": len(run.transcript),
    }


def _requirement(outcome: Outcome) -> dict[str, Any]:
    req = outcome.requirement
    return {
        "id": req.id,
        "tier": req.tier,
        "party": req.party,
        "versions": list(req.versions),
        "capability": req.capability or None,
        "text": req.text,
        "citation": req.citation,
        "status": outcome.status,
        "reason": unicode_data(outcome.reason),
        "failures": [_failure(run, found) for run, found in _by_scenario(outcome)],
    }


def document(result: Result, started: dt.datetime, finished: dt.datetime) -> dict[str, Any]:
    """The JSON report: enough to diagnose every FAIL from the file alone."""
    return {
        "tool": f"acp-docs conform {__version__}",
        "protocol_version": result.version.name,
        "agent_command": [unicode_data(a) for a in result.argv],
        "agent_info": _data(result.agent_info),
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": finished.isoformat(timespec="seconds"),
        "scenarios": [
            {
                "rfd": run.rfd,
                "name": run.scenario.name,
                "title": run.scenario.title,
                "status": run.status,
                "reason": unicode_data(run.reason),
                "messages": len(run.transcript),
                "ended": unicode_data(run.ended.how) if run.ended else None,
            }
            for run in result.runs
        ],
        "requirements": [_requirement(o) for o in result.outcomes],
        "verdict": {"conformant": result.conformant, "tier_counts": counts(result)},
    }


def findings(result: Result, sets: Sequence[RequirementSet]) -> list[Finding]:
    """Every FAIL as a finding at its requirement in its RFD's `requirements.yaml` (the
    engine's own requirement at the top of the file), for `--format`."""
    by_slug = {s.slug: s for s in sets}
    out = []
    for outcome in result.outcomes:
        req = outcome.requirement
        level = "error" if req.tier in ("MANDATORY", "CAPABILITY") else "warning"
        for run, found in _by_scenario(outcome):
            reqs = by_slug.get(run.rfd)
            path = reqs.shown if reqs else "requirements.yaml"
            line = req.line if req.rfd != SESSION.rfd else 1
            for number, message in found[:LINES_KEPT]:
                said = _cut(message, WHY_KEPT)
                text = f"{run.scenario.name}, line {number} of its transcript: {said}"
                out.append(Finding(path, line, 1, "conform", text, req.id, level))
            if len(found) > LINES_KEPT:
                text = f"{run.scenario.name}: {len(found) - LINES_KEPT} more line(s) break it"
                out.append(Finding(path, line, 1, "conform", text, req.id, level))
    return out
