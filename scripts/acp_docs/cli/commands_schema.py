"""Commands on schemas and payloads: `schema` (generate, check, merge), `validate`,
`examples` and `trace`.
"""

from __future__ import annotations

import argparse
import json
import sys

from acp_docs.cli.common import (
    FOUND,
    OK,
    check_output,
    emit,
    in_checkout,
    refuse_undecodable_names,
    say,
    schema_sources,
)
from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.reporters.text import printable


def cmd_schema_generate(args: argparse.Namespace) -> int:
    """Rewrite every RFD's fragments from its source; nothing when the merge refuses one."""
    from acp_docs.schema import fragments, merge

    repo = Repo.load()
    sources = schema_sources(repo)
    problems = merge.assemble(repo.root, [s for s in sources if s.usable]).problems
    refused = [p for p in problems if p.rule_id in ("schema/merge", "schema/source")]
    if refused:
        emit(args, refused)
        say(f"{len(refused)} problem(s) the merge refuses: no fragment written")
        return FOUND
    changed = fragments.generate(sources)
    for path in changed:
        say(f"wrote {repo.relative(path)}" if path.exists() else f"removed {repo.relative(path)}")
    if not changed:
        say("fragments are up to date")
    return OK


def cmd_schema_check(args: argparse.Namespace) -> int:
    """Exit 1 when a committed fragment differs from what its source generates."""
    from acp_docs.schema import drift

    repo = Repo.load()
    drifts = drift.check(repo.root, schema_sources(repo))
    emit(args, [d.finding() for d in drifts])
    for problem in drifts:
        if problem.diff:
            say(problem.diff.rstrip("\n"))
    say(
        f"{len(drifts)} problem(s) in the schema sources and their fragments"
        if drifts
        else "fragments match their sources"
    )
    return FOUND if drifts else OK


def cmd_schema_merge(args: argparse.Namespace) -> int:
    """Print or write a published schema with every RFD's change applied."""
    from acp_docs.schema import fragments, merge
    from acp_docs.sources.textfile import write_atomic

    repo = Repo.load()
    version = protocols.get(args.protocol)
    made = [
        fragments.contribution(s, version.name)
        for s in schema_sources(repo)
        if version.name in s.versions
    ]
    channel = args.channel or merge.default_channel(made)
    merged = merge.merged(repo.root, version, made, channel, base=args.base)
    text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
        return OK
    if args.base is not None and args.output.resolve() == args.base.resolve():
        raise UsageError(f"{args.output}: refusing to overwrite the base schema")
    check_output(args.output)
    write_atomic(args.output, text)
    say(f"wrote {args.output}")
    return OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate standalone JSON files as a receiver reads them: each a payload of --def or a
    JSON-RPC message.

    A payload a receiver rejects is an error. One it keeps, ignoring a member it
    does not know or dropping a value marked lenient, is accepted with a warning
    naming that member or value; `--strict` makes such warnings fail too.
    """
    from acp_docs.validation.payloads import validate_files
    from acp_docs.validation.schemaset import SchemaSet

    repo = Repo.load()
    schemas = SchemaSet.from_repo(repo.root)
    results = validate_files(schemas, args.protocol, args.definition, args.files)
    findings = []
    valid = warned = invalid = 0
    for shown, outcome in results:
        kind = outcome.verdict.say() if outcome.verdict else ""
        rule, level = (
            ("validate/lenient", "warning") if outcome.kept else ("validate/invalid", "error")
        )
        for problem in outcome.problems:
            message = f"{outcome.label()} {problem} ({kind})"
            findings.append(Finding(shown, 1, 1, "validate", message, rule, level))
        for problem in outcome.unknown:
            message = f"{outcome.label()} {problem} (a receiver ignores it and keeps the message)"
            findings.append(
                Finding(shown, 1, 1, "validate", message, "validate/unknown-member", "warning")
            )
        if not outcome.kept:
            invalid += 1
        elif outcome.problems or outcome.unknown:
            warned += 1
            say(printable(f"{shown}: accepted with warnings {outcome.label()}"))
        else:
            valid += 1
            say(printable(f"{shown}: valid {outcome.label()}"))
    emit(args, findings)
    say(f"{valid} valid, {warned} accepted with warnings, {invalid} invalid")
    return FOUND if invalid or (args.strict and warned) else OK


def cmd_examples(args: argparse.Namespace) -> int:
    """Check every declared JSON block of the docs and the RFDs."""
    from acp_docs.markdown.blocks import renderer
    from acp_docs.validation.examples import check_files, markdown_files
    from acp_docs.validation.schemaset import SchemaSet

    repo = Repo.load()
    refuse_undecodable_names(repo)
    targets = [in_checkout(repo, p) for p in args.paths] or [repo.rfds_dir, repo.docs_dir]
    files = markdown_files(repo.root, targets)
    schemas = SchemaSet.from_repo(repo.root)
    report = check_files(repo.root, files, schemas, renderer(repo.config, plain_code=True))
    emit(args, report.findings)
    per_version = ", ".join(f"{v}: {report.checked[v]}" for v in schemas.versions)
    say(
        f"{report.blocks} JSON block(s) in {len(files)} file(s); payload checks {per_version};"
        f" {report.counter_examples} counter-example(s), {report.not_payloads} not a payload;"
        f" {len(report.findings)} problem(s)"
    )
    return FOUND if report.findings else OK


def cmd_trace(args: argparse.Namespace) -> int:
    """Check recorded sessions against the merged schema and every RFD's requirements."""
    from acp_docs.requirements import rules as wire
    from acp_docs.rfds.files import requirement_sets
    from acp_docs.trace import session as trace
    from acp_docs.validation.schemaset import SchemaSet

    repo = Repo.load()
    rules = wire.rules(requirement_sets(repo))
    schemas = SchemaSet.from_repo(repo.root)
    findings: list[Finding] = []
    for path in args.files:
        shown = path.as_posix()
        findings += trace.check(path, shown, schemas, args.protocol, rules, args.settle)
    emit(args, findings)
    version = protocols.get(args.protocol)
    held = [rule for rule in rules if rule.applies(version)]
    errors = sum(f.fails for f in findings)
    say(
        f"{len(args.files)} trace(s) checked against the {len(held)} requirement(s) judged on"
        f" the wire in ACP {version.name}: {errors} problem(s),"
        f" {len(findings) - errors} warning(s)"
    )
    return FOUND if errors or (args.strict and findings) else OK
