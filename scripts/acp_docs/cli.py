"""The `acp-docs` command line: arguments and wiring only.

Exit status 0 when all is well, 1 when a check finds a problem, 2 for bad usage
or unreadable input. Every command acts on the repository in the current
directory (the nearest directory holding mkdocs.yml).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from acp_docs import __version__
from acp_docs.errors import UsageError
from acp_docs.findings import Finding
from acp_docs.repo import Repo
from acp_docs.report import render
from acp_docs.schema.source import PROTOCOLS

OK, FOUND, USAGE = 0, 1, 2


def _print_findings(findings: Sequence[Finding]) -> None:
    for line in render(findings):
        print(line)


def cmd_schema_generate(args: argparse.Namespace) -> int:
    """Rewrite the fragments from the source."""
    from acp_docs.schema import fragments

    repo = Repo.load()
    changed = fragments.generate(repo.schema_dir)
    for path in changed:
        print(f"wrote {repo.relative(path)}")
    if not changed:
        print("fragments are up to date")
    return OK


def cmd_schema_check(args: argparse.Namespace) -> int:
    """Exit 1 when a committed fragment differs from what the source generates."""
    from acp_docs.schema import fragments

    repo = Repo.load()
    drifts = fragments.check(repo.schema_dir, repo.root)
    for drift in drifts:
        _print_findings([drift.finding(repo.root)])
        print(drift.diff.rstrip("\n"))
    if not drifts:
        print("fragments match the source")
    return FOUND if drifts else OK


def cmd_schema_merge(args: argparse.Namespace) -> int:
    """Print or write the published schema with the fragment applied."""
    from acp_docs.schema import fragments, merge
    from acp_docs.textfile import write_atomic

    repo = Repo.load()
    base = merge.load_base(repo.root, args.protocol, args.base)
    fragment = fragments.load(repo.schema_dir, args.protocol, repo.root)
    merged = merge.merge(base, fragment, args.protocol)
    text = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        if args.base is not None and args.output.resolve() == args.base.resolve():
            raise UsageError(f"{args.output}: refusing to overwrite the base schema")
        write_atomic(args.output, text)
        print(f"wrote {args.output}", file=sys.stderr)
    return OK


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate standalone JSON files, each a payload of --def or a JSON-RPC message."""
    from acp_docs.payloads import validate_files
    from acp_docs.validate import SchemaSet

    repo = Repo.load()
    schemas = SchemaSet.from_repo(repo.root)
    results = validate_files(schemas, args.protocol, args.definition, args.files)
    invalid = 0
    for shown, outcome in results:
        if outcome.valid:
            print(f"{shown}: valid {outcome.label()}")
        else:
            invalid += 1
            for problem in outcome.problems:
                print(f"{shown}:1:1: {outcome.label()} {problem}")
    print(f"{len(results) - invalid} valid, {invalid} invalid")
    return FOUND if invalid else OK


def cmd_examples(args: argparse.Namespace) -> int:
    """Check every declared JSON block of the docs."""
    from acp_docs.examples import check_files, markdown_files
    from acp_docs.validate import SchemaSet

    repo = Repo.load()
    targets = args.paths or [repo.rfds_dir, repo.docs_dir]
    files = markdown_files(repo.root, targets)
    schemas = SchemaSet.from_repo(repo.root)
    report = check_files(repo.root, files, schemas)
    _print_findings(report.findings)
    per_version = ", ".join(f"{p}: {report.checked[p]}" for p in PROTOCOLS)
    print(
        f"{report.blocks} JSON block(s) in {len(files)} file(s); payload checks {per_version};"
        f" {report.counter_examples} counter-example(s), {report.not_payloads} not a payload;"
        f" {len(report.findings)} problem(s)"
    )
    return FOUND if report.findings else OK


def _report_findings(findings: Sequence[Finding], what: str) -> int:
    _print_findings(findings)
    print(f"{what}: {len(findings)} problem(s)")
    return FOUND if findings else OK


def cmd_rfds(args: argparse.Namespace) -> int:
    """Lint every RFD: front matter, sections, FAQ, history, navigation."""
    from acp_docs import rfds

    repo = Repo.load()
    count = len(rfds.rfd_files(repo))
    return _report_findings(rfds.lint(repo), f"{count} RFD(s) linted")


def cmd_spell(args: argparse.Namespace) -> int:
    """Spell-check the prose with pyspelling and Aspell."""
    from acp_docs import spell

    return _report_findings(spell.check(Repo.load()), "spelling")


def cmd_format(args: argparse.Namespace) -> int:
    """Check (--check) or apply Prettier formatting."""
    from acp_docs import prettier

    repo = Repo.load()
    if not args.check:
        return OK if prettier.write(repo) == 0 else FOUND
    return _report_findings(prettier.check(repo), "formatting")


def cmd_check(args: argparse.Namespace) -> int:
    """Run every check side by side and print one summary."""
    from acp_docs import check
    from acp_docs.report import summary

    repo = Repo.load()
    names = [n for n in (args.only or check.CHECKS) if n not in (args.skip or [])]
    start = time.perf_counter()
    results = check.run(repo, names)
    _print_findings(check.unique_findings(results))
    print(f"acp-docs check: {len(results)} check(s) in {time.perf_counter() - start:.2f}s")
    for line in summary(results):
        print(line)
    for result in results:
        if result.error is not None:
            print(f"acp-docs: error: {result.name}: {result.error}", file=sys.stderr)
    if any(r.status == "error" for r in results):
        return USAGE
    failed = [r.name for r in results if r.status == "failed"]
    print(f"failed: {', '.join(failed)}" if failed else "all checks passed")
    return FOUND if failed else OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="acp-docs",
        description="Generate and check the prompt_suggestions schema, examples and RFDs.",
        epilog="Exit status: 0 all is well, 1 a check found a problem, 2 bad usage or input.",
    )
    parser.add_argument("--version", action="version", version=f"acp-docs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    schema = sub.add_parser("schema", help="generate, check and merge the schema fragments")
    schema_sub = schema.add_subparsers(dest="schema_command", metavar="ACTION")
    schema_sub.add_parser("generate", help="rewrite the fragments from the source").set_defaults(
        func=cmd_schema_generate
    )
    schema_sub.add_parser(
        "check", help="fail when a committed fragment differs from the source (never writes)"
    ).set_defaults(func=cmd_schema_check)
    merge = schema_sub.add_parser("merge", help="print a published schema with the fragment")
    merge.add_argument("--protocol", required=True, choices=PROTOCOLS)
    merge.add_argument("--base", type=Path, help="base schema (default: the pinned SDK's)")
    merge.add_argument("--output", type=Path, help="write here instead of standard output")
    merge.set_defaults(func=cmd_schema_merge)
    schema.set_defaults(func=lambda _args: _missing_action(schema))

    validate = sub.add_parser("validate", help="validate standalone JSON payload files")
    validate.add_argument("--protocol", required=True, choices=PROTOCOLS)
    validate.add_argument(
        "--def", dest="definition", metavar="NAME", help="definition (default: JSON-RPC message)"
    )
    validate.add_argument("files", nargs="+", type=Path, metavar="FILE")
    validate.set_defaults(func=cmd_validate)

    examples = sub.add_parser("examples", help="check every declared JSON block of the docs")
    examples.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    examples.set_defaults(func=cmd_examples)

    sub.add_parser("rfds", help="lint every RFD and the navigation").set_defaults(func=cmd_rfds)
    sub.add_parser("spell", help="spell-check the prose (pyspelling, Aspell)").set_defaults(
        func=cmd_spell
    )
    fmt = sub.add_parser("format", help="format with Prettier (--check: only check)")
    fmt.add_argument("--check", action="store_true", help="report, do not rewrite")
    fmt.set_defaults(func=cmd_format)

    from acp_docs.check import CHECKS

    every = sub.add_parser("check", help="run every check CI runs, side by side")
    every.add_argument("--only", nargs="+", choices=list(CHECKS), metavar="CHECK")
    every.add_argument("--skip", nargs="+", choices=list(CHECKS), metavar="CHECK")
    every.set_defaults(func=cmd_check)
    return parser


def _missing_action(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run `acp-docs`; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return USAGE
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"acp-docs: error: {exc}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
