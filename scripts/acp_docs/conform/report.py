"""A conformance run for people and machines: the table by tier, the JSON report, findings.

Only formats: `acp_docs.conform.run` decides every outcome. Whatever the
Agent wrote is data: the table escapes it (`printable`), the JSON report keeps
it as JSON strings, and a transcript keeps each message whole only up to
`MESSAGE_KEPT` characters of JSON and the first `TRANSCRIPT_KEPT` messages,
once per requirement and scenario.

A scenario's transcript is a trace: its messages are numbered as the lines of
the JSON Lines `acp-docs trace` reads, and a failure names its line, as the
checks' own messages do.

The JSON report has the keys of acp-tck's report (`tck_version`,
`protocol_version` as a number, `schema_revision`, `agent_command`,
`agent_info`, `agent_capabilities`, per-requirement `tests` with `nodeid`,
`status` and `duration_s`, and `verdict` with `conformant`, `tier_counts`,
`blocked_by_auth` and `blocked_by_version_mismatch`), so the tools that read
acp-tck's reports read it unchanged; `verdict.outcome` says CONFORMANT, NOT
CONFORMANT or INCONCLUSIVE, and `verdict.reason` why. Findings (`--format`)
name the requirement and the Agent's command, at the Agent's own file where the
command names one (its repository has no `requirements.yaml`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp_docs import __version__
from acp_docs.conform.client import AUTH, VERSION
from acp_docs.conform.run import (
    FAIL,
    INCONCLUSIVE,
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
from acp_docs.requirements.model import TIERS

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
    if result.requested is not None:
        lines.append(
            f"  asked for ACP {result.requested.name}, the Agent answered ACP {version}:"
            f" judged as ACP {version}"
        )
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
            expected = "  (expected to fail)" if outcome.expected else ""
            lines.append(f"  {status:<10} {outcome.requirement.id:<{width}}{why}{expected}")
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


def reason(result: Result) -> str:
    """Why the verdict is what it is, in a clause."""
    if result.failed:
        first = [
            f"{o.requirement.id} ({_cut(o.failures[0][2], 160)})"
            if o.failures
            else o.requirement.id
            for o in result.failed
        ]
        return "failed: " + ", ".join(first)
    if result.stale:
        return "expected to fail, but passed (remove from the expected failures): " + ", ".join(
            result.stale
        )
    if result.verdict == INCONCLUSIVE:
        blocked = [r for r in result.runs if r.status == "blocked"]
        if blocked:
            kinds = ", ".join(BLOCKED.get(k, k) for k in result.blocked_by)
            return f"not testable, {kinds}: {blocked[0].reason}"
        return "no scenario ran to its end"
    return ""


BLOCKED = {AUTH: "blocked by authentication", VERSION: "blocked by a version mismatch"}


def verdict(result: Result) -> str:
    """The verdict line."""
    total = {s: sum(1 for o in result.outcomes if o.status == s) for s in STATUSES}
    said = ", ".join(f"{n} {SHOWN.get(s, s)}" for s, n in total.items() if n)
    failed = [o for o in result.outcomes if o.status == FAIL and o not in result.failed]
    advisory = [o.requirement.id for o in failed if not o.expected]
    expected = [o.requirement.id for o in failed if o.expected]
    noted = f"; advisory, not counted: {', '.join(advisory)}" if advisory else ""
    noted += f"; expected, not counted: {', '.join(expected)}" if expected else ""
    why = reason(result)
    return f"VERDICT: {result.verdict.upper()} ({said}{noted}{'; ' + why if why else ''})"


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


def _tests(outcome: Outcome, runs: Sequence[ScenarioRun]) -> list[dict[str, Any]]:
    """acp-tck's per-test entries: each scenario of the requirement's RFD, its status for
    the requirement, and on a FAIL the transcript (acp-tck's `dir`, `t`, `raw`) and stderr."""
    req = outcome.requirement
    failing = {id(run): found for run, found in _by_scenario(outcome)}
    tests = []
    for run in runs:
        if req is not SESSION and not req.id.startswith(f"{run.rfd}/"):
            continue
        found = failing.get(id(run))
        judged = outcome.status in (PASS, FAIL) and run.status == "completed"
        status = FAIL if found else (PASS if judged else SKIPPED)
        message = "; ".join(f"line {n}: {m}" for n, m in (found or [])[:3]) or run.reason
        test: dict[str, Any] = {
            "nodeid": f"{run.rfd}::{run.scenario.name}",
            "status": status,
            "message": unicode_data(_cut(message, WHY_KEPT)),
            "duration_s": round(run.duration, 3),
            "properties": {"scenario_status": run.status},
            "transcript": None,
            "stderr": None,
        }
        if found:
            test["transcript"] = [
                {
                    "dir": "sent" if e.direction == "client-to-agent" else "received",
                    "t": round(e.time, 3),
                    "raw": json.dumps(_kept(e.message), ensure_ascii=False),
                }
                for e in run.transcript[:TRANSCRIPT_KEPT]
            ]
            test["stderr"] = unicode_data(run.ended.stderr) if run.ended else ""
        tests.append(test)
    return tests


def _requirement(outcome: Outcome, result: Result) -> dict[str, Any]:
    req = outcome.requirement
    return {
        "id": req.id,
        "tier": req.tier,
        "party": req.party,
        "versions": list(req.versions),
        "capability": req.gate(result.version.name),
        "text": req.text,
        "citation": req.citation,
        "status": outcome.status,
        "expected_failure": outcome.expected,
        "reason": unicode_data(outcome.reason),
        "tests": _tests(outcome, result.runs),
        "failures": [_failure(run, found) for run, found in _by_scenario(outcome)],
    }


def document(
    result: Result, started: dt.datetime, finished: dt.datetime, schema_revision: str
) -> dict[str, Any]:
    """The JSON report: acp-tck's keys, and enough to diagnose every FAIL from the file."""
    return {
        "tck_version": f"acp-docs conform {__version__}",
        "tool": f"acp-docs conform {__version__}",
        "protocol_version": result.version.handshake.number if result.version.handshake else 0,
        "protocol": result.version.name,
        "requested_protocol": (result.requested or result.version).name,
        "schema_revision": schema_revision,
        "agent_command": [unicode_data(a) for a in result.argv],
        "agent_info": _data(result.agent_info),
        "agent_capabilities": _data(result.agent_capabilities),
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
        "requirements": [_requirement(o, result) for o in result.outcomes],
        "verdict": verdict_data(result),
    }


def verdict_data(result: Result) -> dict[str, Any]:
    """The verdict as the JSON report and `--format json` carry it."""
    return {
        "conformant": result.conformant,
        "outcome": result.verdict.upper(),
        "reason": unicode_data(reason(result)),
        "tier_counts": counts(result),
        "blocked_by_auth": AUTH in result.blocked_by,
        "blocked_by_version_mismatch": VERSION in result.blocked_by,
        "judged_protocol": result.version.name,
        "requested_protocol": (result.requested or result.version).name,
        "stale_expected_failures": list(result.stale),
    }


def agent_file(argv: Sequence[str]) -> str:
    """Where a finding about the Agent is placed: the first argument of its command that is a
    file of the current folder (its own script, in its repository), else the command."""
    here = Path.cwd()
    for arg in argv:
        with contextlib.suppress(OSError, ValueError):
            path = Path(arg).resolve()
            if path.is_relative_to(here) and path.is_file():
                return path.relative_to(here).as_posix()
    return argv[0] if argv else "agent"


def findings(result: Result) -> list[Finding]:
    """Every FAIL as a finding that names its requirement and the Agent's command, at the
    Agent's own file (`agent_file`), for `--format`; a stale expected failure too."""
    path = agent_file(result.argv)
    agent = " ".join(result.argv)
    out = []
    for outcome in result.outcomes:
        req = outcome.requirement
        counted = req.tier in ("MANDATORY", "CAPABILITY") and not outcome.expected
        level = "error" if counted else "warning"
        for run, found in _by_scenario(outcome):
            for number, message in found[:LINES_KEPT]:
                said = _cut(message, WHY_KEPT)
                text = (
                    f"{req.id} ({req.tier}) failed in scenario {run.scenario.name}, message"
                    f" {number}: {said} [Agent: {agent}; see {req.citation}]"
                )
                out.append(Finding(path, 1, 1, "conform", text, req.id, level))
            if len(found) > LINES_KEPT:
                text = f"{req.id}: {len(found) - LINES_KEPT} more message(s) of {run.scenario.name}"
                out.append(Finding(path, 1, 1, "conform", text, req.id, level))
    for stale in result.stale:
        text = f"{stale} was expected to fail and passed: remove it from the expected failures"
        out.append(Finding(path, 1, 1, "conform", text, stale, "error"))
    return out
