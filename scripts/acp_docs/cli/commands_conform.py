"""`acp-docs conform`: drive a live Agent through the RFDs' requirements, and give a verdict."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
from pathlib import Path

from acp_docs.cli.common import FOUND, OK, check_output, emit, say, write_output
from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.trace import SETTLE


def seconds(text: str) -> float:
    """A time limit of the command line: a number of seconds above 0, at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a number of seconds above 0, at most 3600"
        )
    return value


def _agent(args: argparse.Namespace) -> list[str]:
    argv = list(args.agent or [])
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise UsageError(
            "give the Agent's command after `--`: acp-docs conform -- my-agent --stdio"
        )
    return argv


INCONCLUSIVE_EXIT = 3
"""The exit status of a run that could not judge the Agent: a prerequisite failed (a login,
the version, a session refused, no turn ran), and no rule was broken."""


def _env(pairs: list[str] | None) -> dict[str, str]:
    env = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name or "\0" in pair:
            raise UsageError(f"--agent-env {pair!r}: give NAME=VALUE")
        env[name] = value
    return env


def _expected(path: Path | None, known: set[str]) -> list[str]:
    """The requirement ids of an --expected-failures file: YAML with an `agent:` list."""
    if path is None:
        return []
    from acp_docs.sources import yamlfile
    from acp_docs.sources.textfile import read_text

    shown = path.as_posix()
    data = yamlfile.load(read_text(path, shown), shown)
    listed = data.get("agent") if isinstance(data, dict) else None
    if not isinstance(listed, list) or not all(isinstance(i, str) for i in listed):
        raise UsageError(f"{shown}:1:1: give `agent:`, a list of requirement ids")
    unknown = sorted(set(listed) - known)
    if unknown:
        raise UsageError(f"{shown}: no requirement of the run is named {', '.join(unknown)}")
    return listed


def cmd_conform(args: argparse.Namespace) -> int:
    """Run every scenario of the chosen RFDs against the Agent; exit 0 only when conformant,
    1 when not, 3 when inconclusive."""
    from acp_docs.conform import report
    from acp_docs.conform.client import Limits
    from acp_docs.conform.run import INCONCLUSIVE, SESSION, AgentCommand, conform
    from acp_docs.conform.scenario import registered
    from acp_docs.requirements import rules as wire
    from acp_docs.rfds.files import requirement_sets
    from acp_docs.schema.merge import sdk_version
    from acp_docs.validation.schemaset import SchemaSet

    argv = _agent(args)
    version = protocols.get(args.protocol)
    if version.handshake is None:
        raise UsageError(
            f"ACP {version.name} has no handshake in the version table: conform cannot open it"
        )
    if args.report_json is not None:
        check_output(args.report_json)
    if args.agent_cwd is not None and not args.agent_cwd.is_dir():
        raise UsageError(f"--agent-cwd {args.agent_cwd}: not a folder")
    repo = Repo.load()
    sets = requirement_sets(repo)
    scenarios = registered()
    runnable = {s.slug: s for s in sets if s.slug in scenarios}
    for slug in args.rfd or []:
        if slug not in runnable:
            known = ", ".join(sorted(runnable)) or "none"
            raise UsageError(
                f"--rfd {slug}: no RFD of that slug has requirements and scenarios (known: {known})"
            )
    chosen_sets = [runnable[slug] for slug in (args.rfd or sorted(runnable))]
    chosen_sets = [
        s for s in chosen_sets if any(version.name in r.versions for r in s.requirements)
    ]
    if not chosen_sets:
        raise UsageError(f"no RFD has requirements of ACP {version.name}: nothing to run")
    names = {sc.name for s in chosen_sets for sc in scenarios[s.slug].scenarios}
    for name in args.scenario or []:
        if name not in names:
            listed = ", ".join(sorted(names))
            raise UsageError(f"--scenario {name}: no such scenario (known: {listed})")
    ids = {r.id for s in chosen_sets for r in s.requirements} | {SESSION.id}
    expected = _expected(args.expected_failures, ids)
    all_rules = wire.rules(chosen_sets)
    chosen = [
        (s, scenarios[s.slug], [r for r in all_rules if r.requirement.rfd == s.rfd])
        for s in chosen_sets
    ]
    limits = Limits(
        timeout=args.timeout,
        scenario=args.scenario_timeout,
        settle=args.settle,
        startup=args.startup_timeout,
    )
    command = AgentCommand(tuple(argv), _env(args.agent_env), args.agent_cwd, args.auth_method)
    schemas = SchemaSet.from_repo(repo.root)
    started = dt.datetime.now(dt.UTC)
    result = conform(command, version, limits, chosen, schemas, args.scenario or (), expected)
    finished = dt.datetime.now(dt.UTC)
    if args.report_json is not None:
        revision = f"{protocols.SDK_PACKAGE}@{sdk_version(repo.root)}" + "".join(
            f" + {s.slug}" for s in chosen_sets
        )
        doc = report.document(result, started, finished, revision)
        write_output(args.report_json, json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    lines = report.table(result)
    if args.format in (None, "text"):
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    else:
        emit(args, report.findings(result), verdict=report.verdict_data(result))
        for line in lines:
            say(line)
    if args.report_json is not None:
        say(f"acp-docs conform: wrote the report {args.report_json}")
    if result.conformant:
        return OK
    return INCONCLUSIVE_EXIT if result.verdict == INCONCLUSIVE else FOUND


def add_parser(command, reporting: argparse.ArgumentParser) -> None:
    """The `conform` subcommand's arguments."""
    conform = command(
        "conform",
        cmd_conform,
        "drive a live Agent through the RFDs' requirements and give a verdict",
        reporting,
        description=(
            "Start the Agent's command (after --) once per scenario, talk ACP to it on standard"
            " input and output as a Client, and judge every requirement of the chosen RFDs:"
            " PASS, FAIL, SKIPPED or NOT TESTED, by tier. The Agent's answer to initialize"
            " decides the version judged. Exit status: 0 conformant, 1 not conformant (or an"
            " expected failure that passed), 2 bad usage, 3 inconclusive (a login needed, a"
            " version mismatch, a session refused, no turn ran)."
        ),
    )
    conform.add_argument(
        "--protocol",
        choices=protocols.NAMES,
        default=protocols.NAMES[0],
        help=f"the ACP version to speak (default: {protocols.NAMES[0]})",
    )
    conform.add_argument(
        "--rfd",
        action="append",
        metavar="SLUG",
        help="judge only this RFD's requirements (repeatable; default: every RFD that has them)",
    )
    conform.add_argument(
        "--report-json",
        type=Path,
        metavar="FILE",
        help="also write the whole report here: every outcome, and for each FAIL the"
        " scenario's transcript and the end of the Agent's standard error",
    )
    conform.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="S",
        help="how long one answer of the Agent may take (default: 10)",
    )
    conform.add_argument(
        "--scenario-timeout",
        type=seconds,
        default=60.0,
        metavar="S",
        help="how long one scenario may take, from the Agent's start (default: 60)",
    )
    conform.add_argument(
        "--settle",
        type=seconds,
        default=SETTLE,
        metavar="S",
        help="how long the Agent must stay quiet before a scenario ends; what it sends"
        " meanwhile (suggestions after a turn) is judged (default: 0.5)",
    )
    conform.add_argument(
        "--startup-timeout",
        type=seconds,
        default=30.0,
        metavar="S",
        help="how long the Agent's first answer (to initialize) may take (default: 30)",
    )
    conform.add_argument(
        "--auth-method",
        metavar="ID",
        help="log in with this of the Agent's advertised auth methods after initialize"
        " (authenticate in v1, auth/login in v2)",
    )
    conform.add_argument(
        "--agent-env",
        action="append",
        metavar="NAME=VALUE",
        help="add to the Agent's environment (repeatable)",
    )
    conform.add_argument(
        "--agent-cwd", type=Path, metavar="DIR", help="start the Agent in this folder"
    )
    conform.add_argument(
        "--scenario",
        action="append",
        metavar="NAME",
        help="run only this scenario (repeatable; default: every scenario)",
    )
    conform.add_argument(
        "--expected-failures",
        type=Path,
        metavar="FILE",
        help="YAML with `agent:`, a list of requirement ids the Agent is known to fail: their"
        " FAILs do not count, and one that passes fails the run (remove it)",
    )
    conform.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- AGENT_CMD ARGS")
