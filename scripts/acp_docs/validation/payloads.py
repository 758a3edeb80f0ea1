"""Standalone JSON payload files, each checked as a definition or as a JSON-RPC message."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp_docs.core import budget
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, load_json
from acp_docs.validation.schemaset import (
    DispatchError,
    Outcome,
    SchemaSet,
    define_method_hint,
)


def _dispatch_text(error: DispatchError) -> str:
    if error.method is None or error.kind is None:
        return str(error)
    return f"{error}: {define_method_hint(error.method, error.kind, None, False)}"


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def validate_files(
    schemas: SchemaSet, protocol: str, definition: str | None, files: Sequence[Path]
) -> list[tuple[str, Outcome]]:
    """Check each file; any unreadable or undeclarable file is a UsageError, before any check.

    Members no schema names are each outcome's `unknown`, apart from its problems.
    """
    if definition is not None and not schemas.has(protocol, definition):
        raise UsageError(
            f"unknown definition {definition!r}: no $defs/{definition} in ACP {protocol}"
        )
    loaded: list[tuple[str, Any, str]] = []
    for path in files:
        shown = _shown(path)
        payload = load_json(path, shown)
        if definition is not None:
            loaded.append((shown, payload, definition))
            continue
        try:
            loaded.append((shown, payload, schemas.dispatch(protocol, payload)))
        except DispatchError as exc:
            raise UsageError(
                f"{shown}: {_dispatch_text(exc)}; or pass --def NAME to validate a payload of a"
                " definition"
            ) from None
    results = []
    for shown, payload, name in loaded:
        try:
            with budget.limited(shown):
                if definition is None:
                    outcome = schemas.check_message(protocol, payload)
                else:
                    outcome = schemas.check(protocol, name, payload)
        except budget.OutOfTime as out:
            raise UsageError(
                f"{shown}: checking this payload took more than {out.seconds:g} s, and was"
                " stopped (ACP_DOCS_FILE_SECONDS sets another budget)"
            ) from None
        results.append((shown, outcome))
    return results


FIXTURE_KINDS = ("valid", "lenient", "invalid")
"""`valid`: the schema accepts it. `lenient`: the schema rejects it, but a receiver only
drops values annotated `x-deserialize-default-on-error` or list items annotated
`x-deserialize-skip-invalid-items`, and keeps the message. `invalid`: a receiver
rejects the message."""
MESSAGE_PREFIX = "message"


def fixture_definition(path: Path) -> str | None:
    """The definition a fixture file is a payload of; None for a whole JSON-RPC message.

    The first dot-separated part of the name says it: `SessionUpdate.empty-list.json`
    is a `SessionUpdate`, `message.session-update.json` a JSON-RPC message.
    """
    head = path.name.split(".", 1)[0]
    return None if head == MESSAGE_PREFIX else head


def fixture_files(root: Path, protocol: str) -> dict[str, list[Path]]:
    """The conformance fixtures of a version, by kind (`valid`, `lenient`, `invalid`)."""
    base = root / "schema" / "examples" / protocol
    return {
        kind: sorted(p for p in (base / kind).glob("*.json") if filetree.inside(root, p))
        for kind in FIXTURE_KINDS
    }


def check_fixtures(root: Path, schemas: SchemaSet) -> list[Finding]:
    """Each fixture in `schema/examples/<version>/<kind>/` must be classified as its folder says."""
    findings: list[Finding] = []
    for protocol in schemas.versions:
        for kind, paths in fixture_files(root, protocol).items():
            for path in paths:
                shown = path.relative_to(root).as_posix()
                findings.extend(_bounded(path, shown, protocol, kind, schemas))
    return findings


FIXTURE_BYTES = 256 * 1024
"""The size of one fixture: an ACP payload worth showing is far smaller."""


def _bounded(path: Path, shown: str, protocol: str, kind: str, schemas: SchemaSet) -> list[Finding]:
    """`_check_fixture` within the fixture's budget of size and time (`core.budget`)."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    if size > FIXTURE_BYTES:
        message = (
            f"the fixture holds {size:,} bytes, more than the {FIXTURE_BYTES:,} one may hold:"
            " it is not checked; keep a fixture to the payload it shows"
        )
        return [Finding(shown, 1, 1, CHECK, message, _rule("too-large"))]
    try:
        with budget.limited(shown):
            return _check_fixture(path, shown, protocol, kind, schemas)
    except budget.OutOfTime as out:
        if out.what != shown:
            raise  # the build's own budget ran out: not this fixture's finding alone
        message = (
            f"checking the fixture took more than {out.seconds:g} s, and was stopped: a list"
            " that must hold unique items, or a payload this large, is not worth a fixture"
        )
        return [Finding(shown, 1, 1, CHECK, message, _rule("too-slow"))]


CHECK = "examples"
"""Fixtures are examples too: their findings are the `examples` check's."""


def _rule(kind: str) -> str:
    """`examples/fixture-misfiled`: the rule id of a kind of fixture problem."""
    return f"{CHECK}/fixture-{kind}"


def _check_fixture(
    path: Path, shown: str, protocol: str, kind: str, schemas: SchemaSet
) -> list[Finding]:
    def finding(message: str, rule: str, line: int = 1, col: int = 1) -> list[Finding]:
        return [Finding(shown, line, col, CHECK, message, _rule(rule))]

    try:
        payload = load_json(path, shown)
    except UnreadableFile as exc:
        return finding(exc.reason, "unreadable", exc.line)
    except LocatedError as exc:
        return finding(exc.reason, "malformed", exc.line, exc.col)
    definition = fixture_definition(path)
    try:
        if definition is None:
            outcome = schemas.check_message(protocol, payload)
        elif not schemas.has(protocol, definition):
            return finding(
                f"unknown definition {definition!r} in ACP {protocol}", "unknown-definition"
            )
        else:
            outcome = schemas.check(protocol, definition, payload)
    except DispatchError as exc:
        return finding(f"[{protocol} JSON-RPC] {_dispatch_text(exc)}", "dispatch")
    unknown = [
        Finding(shown, 1, 1, CHECK, f"{outcome.label()} {problem}", _rule("unknown-property"))
        for problem in outcome.unknown
    ]
    return unknown + _classified(shown, kind, outcome)


def _classified(shown: str, kind: str, outcome: Outcome) -> list[Finding]:
    def finding(message: str, rule: str) -> list[Finding]:
        return [Finding(shown, 1, 1, CHECK, message, _rule(rule))]

    if kind == "valid" and not outcome.valid:
        return [
            Finding(shown, 1, 1, CHECK, f"{outcome.label()} {problem}", _rule("invalid"))
            for problem in outcome.problems
        ]
    if kind != "valid" and outcome.valid:
        return finding(f"{outcome.label()} is in {kind}/ but validates", "passes")
    if kind == "lenient" and not outcome.kept:
        return finding(
            f"{outcome.label()} is in lenient/, but a receiver rejects the message:"
            f" {outcome.problems[0]}; move it to invalid/",
            "misfiled",
        )
    if kind == "invalid" and outcome.kept and outcome.verdict is not None:
        return finding(
            f"{outcome.label()} is in invalid/, but {outcome.verdict.say()}; move it to lenient/",
            "misfiled",
        )
    return []
