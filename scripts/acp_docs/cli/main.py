"""The `acp-docs` command line: arguments and wiring only.

Exit status 0 when all is well, 1 when a check finds a problem, 2 for bad usage
or unreadable input. Every command acts on the repository in the current
directory (the nearest directory holding mkdocs.yml). Findings go to standard
output in the format `--format` names; summaries and progress go to standard
error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from acp_docs import __version__, reporters
from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.core.repo import Repo
from acp_docs.reporters.text import printable

OK, FOUND, USAGE = 0, 1, 2


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _emit(args: argparse.Namespace, findings: Sequence[Finding], **extra: object) -> None:
    report = reporters.Report(args.command_name, findings, **extra)  # type: ignore[arg-type]
    sys.stdout.write(reporters.render(report, args.format))
    sys.stdout.flush()


def _refuse_undecodable_names(repo: Repo) -> None:
    """Stop before any check when a file name of the checkout is not UTF-8, naming each."""
    from acp_docs.sources import filetree

    names = filetree.undecodable_names(repo.root)
    if names:
        listed = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        raise UsageError(
            f"{listed}: the file name is not UTF-8, so no site can be built and no check can run"
            " while the checkout holds it: rename it"
        )


def _sources(repo: Repo):
    from acp_docs.rfds import model as rfds

    return rfds.schema_sources(repo)


def cmd_schema_generate(args: argparse.Namespace) -> int:
    """Rewrite every RFD's fragments from its source."""
    from acp_docs.schema import fragments

    repo = Repo.load()
    changed = fragments.generate(_sources(repo))
    for path in changed:
        _say(f"wrote {repo.relative(path)}" if path.exists() else f"removed {repo.relative(path)}")
    if not changed:
        _say("fragments are up to date")
    return OK


def cmd_schema_check(args: argparse.Namespace) -> int:
    """Exit 1 when a committed fragment differs from what its source generates."""
    from acp_docs.schema import fragments

    repo = Repo.load()
    drifts = fragments.check(repo.root, _sources(repo))
    _emit(args, [d.finding() for d in drifts])
    for drift in drifts:
        if drift.diff:
            _say(drift.diff.rstrip("\n"))
    _say(
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
        for s in _sources(repo)
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
    _check_output(args.output)
    write_atomic(args.output, text)
    _say(f"wrote {args.output}")
    return OK


def _check_output(path: Path) -> None:
    """Refuse an --output that is not, or cannot become, a regular file of a writable folder."""
    import stat

    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError(f"{path}: cannot write here: {exc.strerror}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise UsageError(f"{path}: refusing to write through a symlink")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path}: refusing to write: not a regular file")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise UsageError(f"{path}: refusing to write: {parent} is not an existing folder")


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate standalone JSON files, each a payload of --def or a JSON-RPC message."""
    from acp_docs.validation.payloads import validate_files
    from acp_docs.validation.schemaset import SchemaSet

    repo = Repo.load()
    schemas = SchemaSet.from_repo(repo.root)
    results = validate_files(schemas, args.protocol, args.definition, args.files)
    findings = []
    for shown, outcome in results:
        if outcome.valid:
            _say(printable(f"{shown}: valid {outcome.label()}"))
        kind = outcome.verdict.say() if outcome.verdict else ""
        rule = "validate/lenient" if outcome.kept else "validate/invalid"
        for problem in outcome.problems:
            findings.append(
                Finding(shown, 1, 1, "validate", f"{outcome.label()} {problem} ({kind})", rule)
            )
    _emit(args, findings)
    invalid = sum(1 for _shown, outcome in results if not outcome.valid)
    _say(f"{len(results) - invalid} valid, {invalid} invalid")
    return FOUND if invalid else OK


def _in_checkout(repo: Repo, path: Path) -> Path:
    """A PATH argument as the user means it (relative to the current folder), in the checkout."""
    from acp_docs.sources import filetree

    full = Path(os.path.abspath(path))
    if not filetree.within(repo.root, full):
        raise UsageError(f"{path}: outside the checkout ({repo.root}); name a file or folder in it")
    if not full.exists():
        raise UsageError(f"{path}: no such file or directory")
    return full


def cmd_examples(args: argparse.Namespace) -> int:
    """Check every declared JSON block of the docs and the RFDs."""
    from acp_docs.markdown.blocks import renderer
    from acp_docs.validation.examples import check_files, markdown_files
    from acp_docs.validation.schemaset import SchemaSet

    repo = Repo.load()
    _refuse_undecodable_names(repo)
    targets = [_in_checkout(repo, p) for p in args.paths] or [repo.rfds_dir, repo.docs_dir]
    files = markdown_files(repo.root, targets)
    schemas = SchemaSet.from_repo(repo.root)
    report = check_files(repo.root, files, schemas, renderer(repo.config, plain_code=True))
    _emit(args, report.findings)
    per_version = ", ".join(f"{v}: {report.checked[v]}" for v in schemas.versions)
    _say(
        f"{report.blocks} JSON block(s) in {len(files)} file(s); payload checks {per_version};"
        f" {report.counter_examples} counter-example(s), {report.not_payloads} not a payload;"
        f" {len(report.findings)} problem(s)"
    )
    return FOUND if report.findings else OK


def _findings_command(args: argparse.Namespace, findings: list[Finding], what: str) -> int:
    _emit(args, findings)
    _say(f"{what}: {len(findings)} problem(s)")
    return FOUND if findings else OK


def cmd_rfds(args: argparse.Namespace) -> int:
    """Lint every RFD: front matter, sections, FAQ, history, navigation."""
    from acp_docs.rfds import model as rfds

    repo = Repo.load()
    count = len(rfds.rfd_files(repo))
    return _findings_command(args, rfds.lint(repo), f"{count} RFD(s) linted")


def cmd_spell(args: argparse.Namespace) -> int:
    """Spell-check the prose of the pages the site renders (and README.md) with Aspell."""
    from acp_docs.checks import run as check

    repo = Repo.load()
    _refuse_undecodable_names(repo)
    (result,) = check.run(repo, ["spell"])
    if result.error is not None:
        raise UsageError(result.error)
    return _findings_command(args, list(result.findings), "spelling")


def cmd_format(args: argparse.Namespace) -> int:
    """Check (--check) or apply Prettier formatting."""
    from acp_docs.checks import prettier

    repo = Repo.load()
    _refuse_undecodable_names(repo)
    if not args.check:
        problems = prettier.write(repo)
        for problem in problems:
            _say(f"acp-docs format: {printable(problem)}")
        return FOUND if problems else OK
    return _findings_command(args, prettier.check(repo), "formatting")


def _summary(results: Sequence[CheckResult]) -> list[str]:
    width = max((len(r.name) for r in results), default=5)
    lines = []
    for r in results:
        detail = printable(r.error) if r.error is not None else f"{len(r.findings)} finding(s)"
        lines.append(f"  {r.name:<{width}}  {r.status:<6}  {r.seconds:6.2f}s  {detail}")
    return lines


def cmd_check(args: argparse.Namespace) -> int:
    """Run every check side by side and print one summary."""
    from acp_docs.checks import run as check

    names = [n for n in (args.only or check.CHECKS) if n not in (args.skip or [])]
    if not names:
        raise UsageError("--only and --skip leave no check to run: nothing would be checked")
    repo = Repo.load()
    _refuse_undecodable_names(repo)
    start = time.perf_counter()
    results = check.run(repo, names)
    findings = sorted({f for r in results for f in r.findings})
    failing: dict[str, list[str]] = {}
    for result in results:
        if result.error:
            failing.setdefault(result.error, []).append(result.name)
    errors = [f"{', '.join(names)}: {error}" for error, names in failing.items()]
    _emit(args, findings, results=results, errors=errors)
    _say(f"acp-docs check: {len(results)} check(s) in {time.perf_counter() - start:.2f}s")
    for line in _summary(results):
        _say(line)
    for error in errors:
        _say(f"acp-docs: error: {printable(error)}")
    if errors:
        return USAGE
    failed = [r.name for r in results if r.status == "failed"]
    _say(f"failed: {', '.join(failed)}" if failed else "all checks passed")
    return FOUND if failed else OK


def cmd_new(args: argparse.Namespace) -> int:
    """Scaffold an RFD from the template and add it to the navigation under Draft."""
    from acp_docs.authoring import scaffold

    repo = Repo.load()
    v2 = args.protocol == "v2"
    config_before = repo.config_text
    written = scaffold.new_rfd(repo, args.slug, args.title, args.author, args.minimal, v2)
    if args.schema:
        from acp_docs.core.repo import CONFIG_NAME
        from acp_docs.schema.scaffold import write_example_source
        from acp_docs.sources.textfile import write_atomic

        versions = ["v2"] if v2 else list(protocols.NAMES)
        try:
            written += write_example_source(repo.root, args.slug, args.title, versions)
        except BaseException:
            # All or nothing: the RFD and its nav entry go when its schema cannot be written.
            written[0].unlink(missing_ok=True)
            write_atomic(repo.root / CONFIG_NAME, config_before)
            raise
    for path in written:
        _say(f"wrote {repo.relative(path)}")
    _say(f"next: edit {repo.relative(written[0])}, then run `acp-docs check`")
    return OK


def cmd_export_upstream(args: argparse.Namespace) -> int:
    """Write an RFD as the upstream pull request into a checkout of the ACP repository."""
    from acp_docs.authoring import export
    from acp_docs.rfds import model as rfds

    repo = Repo.load()
    loaded = rfds.load_all(repo)
    chosen = [r for r in loaded if args.rfd in (None, r.slug)]
    if args.rfd is not None and not chosen:
        raise UsageError(f"no RFD rfds/{args.rfd}.md")
    if len(chosen) != 1:
        slugs = ", ".join(r.slug for r in loaded)
        raise UsageError(f"more than one RFD: pass --rfd SLUG (one of {slugs})")
    (rfd,) = chosen
    if not args.directory.is_dir():
        raise UsageError(f"{args.directory}: not a directory (a checkout of the ACP repository)")
    sources = [s for s in rfds.schema_sources(repo, loaded) if s.slug == rfd.slug]
    v2_only = rfd.v2_only or (bool(sources) and sources[0].versions == ("v2",))
    result = export.export(repo, rfd, args.directory, force=args.force, v2_only=v2_only)
    _emit(args, result.findings)
    if result.findings:
        _say(f"nothing written: {len(result.findings)} problem(s) in {rfd.shown}")
        return FOUND
    for path in result.written:
        _say(f"wrote {path}")
    for path in result.unchanged:
        _say(f"unchanged {path}")
    for note in result.notes:
        _say(f"note: {note}")
    title, body = export.pull_request(rfd, str(repo.config.get("site_url") or ""))
    body = "\n".join(printable(line) for line in body.split("\n"))
    _say(f"\nsuggested pull request title:\n  {printable(title)}\nsuggested body:\n{body}")
    return OK


def cmd_trace(args: argparse.Namespace) -> int:
    """Check recorded sessions against the merged schema and every RFD's wire rules."""
    from acp_docs.trace import session as trace
    from acp_docs.validation.schemaset import SchemaSet

    repo = Repo.load()
    schemas = SchemaSet.from_repo(repo.root)
    findings: list[Finding] = []
    for path in args.files:
        shown = path.as_posix()
        findings += trace.check(path, shown, schemas, args.protocol)
    _emit(args, findings)
    _say(
        f"{len(args.files)} trace(s) checked against {len(trace.rules())} wire rule(s):"
        f" {len(findings)} problem(s)"
    )
    return FOUND if findings else OK


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from acp_docs.checks.run import CHECKS

    parser = argparse.ArgumentParser(
        prog="acp-docs",
        description="Build and check ACP RFDs: schema changes, examples, lint, spelling, format.",
        epilog="Exit status: 0 all is well, 1 a check found a problem, 2 bad usage or input.",
    )
    parser.add_argument("--version", action="version", version=f"acp-docs {__version__}")
    reporting = argparse.ArgumentParser(add_help=False)
    reporting.add_argument(
        "--format",
        choices=reporters.FORMATS,
        default=None,
        help="how findings are printed (default: text, or github under GitHub Actions)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, func, help: str, *parents, **kwargs) -> argparse.ArgumentParser:
        made = sub.add_parser(name, help=help, parents=list(parents), **kwargs)
        made.set_defaults(func=func, command_name=name)
        return made

    schema = sub.add_parser("schema", help="generate, check and merge the schema fragments")
    schema_sub = schema.add_subparsers(dest="schema_command", metavar="ACTION")
    schema_sub.add_parser(
        "generate", help="rewrite every RFD's fragments from its source"
    ).set_defaults(func=cmd_schema_generate, command_name="schema generate")
    schema_sub.add_parser(
        "check",
        help="fail when a committed fragment differs from its source (never writes)",
        parents=[reporting],
    ).set_defaults(func=cmd_schema_check, command_name="schema check")
    merge = schema_sub.add_parser("merge", help="print a published schema with every RFD's change")
    merge.add_argument("--protocol", required=True, choices=protocols.NAMES)
    merge.add_argument(
        "--channel",
        choices=protocols.CHANNELS,
        help="stable (schema.json, Completed RFDs only) or unstable (schema.unstable.json, every"
        " RFD); default: unstable while any RFD is not Completed",
    )
    merge.add_argument("--base", type=Path, help="base schema file (default: the pinned SDK's)")
    merge.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="write here instead of standard output: a regular file (new or replaced whole,"
        " never through a link) in an existing folder the user may write to, relative to the"
        " current folder; anything else (a special file, a folder that takes no new files) is"
        " refused with exit status 2",
    )
    merge.set_defaults(func=cmd_schema_merge, command_name="schema merge")
    schema.set_defaults(func=lambda _args: _missing_action(schema), command_name="schema")

    validate = command(
        "validate", cmd_validate, "validate standalone JSON payload files", reporting
    )
    validate.add_argument("--protocol", required=True, choices=protocols.NAMES)
    validate.add_argument(
        "--def", dest="definition", metavar="NAME", help="definition (default: JSON-RPC message)"
    )
    validate.add_argument("files", nargs="+", type=Path, metavar="FILE")

    examples = command("examples", cmd_examples, "check every declared JSON block", reporting)
    examples.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="Markdown files or folders of the checkout, relative to the current folder"
        " (default: rfds/ and docs/)",
    )

    command("rfds", cmd_rfds, "lint every RFD and the navigation", reporting)
    command("spell", cmd_spell, "spell-check the rendered prose (Aspell)", reporting)
    fmt = command("format", cmd_format, "format with Prettier (--check: only check)", reporting)
    fmt.add_argument("--check", action="store_true", help="report, do not rewrite")

    every = command("check", cmd_check, "run every check CI runs, side by side", reporting)
    every.add_argument("--only", nargs="+", choices=list(CHECKS), metavar="CHECK")
    every.add_argument(
        "--skip",
        nargs="+",
        choices=list(CHECKS),
        metavar="CHECK",
        help="leave these checks out; leaving every check out is a usage error (exit 2),"
        " never a pass",
    )

    traced = command("trace", cmd_trace, "check recorded ACP sessions (JSON Lines)", reporting)
    traced.add_argument("--protocol", required=True, choices=protocols.NAMES)
    traced.add_argument("files", nargs="+", type=Path, metavar="FILE")

    exporting = sub.add_parser("export", help="export an RFD for another repository")
    export_sub = exporting.add_subparsers(dest="export_command", metavar="TARGET")
    upstream = export_sub.add_parser(
        "upstream",
        help="write the RFD as the upstream ACP pull request (MDX and its nav entry) into DIR",
        parents=[reporting],
    )
    upstream.add_argument("directory", type=Path, metavar="DIR")
    upstream.add_argument("--rfd", metavar="SLUG", help="which RFD (default: the only one)")
    upstream.add_argument("--force", action="store_true", help="replace an MDX file that differs")
    upstream.set_defaults(func=cmd_export_upstream, command_name="export upstream")
    exporting.set_defaults(func=lambda _args: _missing_action(exporting), command_name="export")

    new = command("new", cmd_new, "scaffold an RFD from the template, listed under Draft")
    new.add_argument("slug", metavar="SLUG", help="kebab-case name: rfds/SLUG.md")
    new.add_argument("--title", required=True, help="the RFD's title")
    new.add_argument(
        "--author",
        action="append",
        metavar="HANDLE",
        help="GitHub handle of an author (repeatable; default: git config github.user)",
    )
    new.add_argument(
        "--minimal",
        action="store_true",
        help="only the sections a Draft needs: elevator pitch, status quo, revision history",
    )
    new.add_argument(
        "--schema",
        action="store_true",
        help="also write schema/SLUG/source.yaml: a worked example (a request and its"
        " response, a session update) that generates, merges and passes, to edit",
    )
    new.add_argument(
        "--protocol",
        choices=("v1", "v2"),
        default="v1",
        help="v2: an RFD of protocol v2 alone, in rfds/v2/ as upstream keeps them (default: v1)",
    )
    return parser


def _missing_action(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run `acp-docs`; return the exit status."""
    try:
        parser = build_parser()  # the checks' names come from their entry points
    except UsageError as exc:
        _say(f"acp-docs: error: {printable(str(exc))}")
        return USAGE
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return USAGE
    if not hasattr(args, "format"):
        args.format = None
    try:
        return int(args.func(args))
    except UsageError as exc:
        _say(f"acp-docs: error: {printable(str(exc))}")
        return USAGE
    except KeyboardInterrupt:
        return 130


def run() -> None:
    """The `acp-docs` command: `main`, then an exit that skips the interpreter's shutdown.

    By then every file is written and closed; freeing each object of the run
    (merged schemas, compiled checks, the Markdown engine) took about 0.25 s.
    """
    try:
        status = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`acp-docs ... | head`): output cut short
        status = 1
    os._exit(status)


if __name__ == "__main__":
    run()
