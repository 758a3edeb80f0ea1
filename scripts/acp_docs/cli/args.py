"""The arguments of every `acp-docs` subcommand, and the function each one runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from acp_docs import __version__
from acp_docs.cli.commands_authoring import cmd_export_upstream, cmd_new
from acp_docs.cli.commands_checks import cmd_check, cmd_format, cmd_rfds, cmd_spell
from acp_docs.cli.commands_conform import add_parser as conform_parser
from acp_docs.cli.commands_conform import seconds
from acp_docs.cli.commands_report import add_parser as report_parser
from acp_docs.cli.commands_schema import (
    cmd_examples,
    cmd_schema_check,
    cmd_schema_generate,
    cmd_schema_merge,
    cmd_trace,
    cmd_validate,
)
from acp_docs.cli.common import missing_action
from acp_docs.core import protocols
from acp_docs.core.findings import LEVELS
from acp_docs.reporters import registry
from acp_docs.trace import SETTLE


def _new_protocol_help() -> str:
    """What `new --protocol` takes, from the version table."""
    alone = [
        f"{v.name}: an RFD of protocol {v.name} alone, in rfds/{v.rfds_folder}/ as upstream"
        " keeps them"
        for v in protocols.VERSIONS.values()
        if v.rfds_folder is not None
    ]
    return "; ".join([*alone, f"default: {protocols.NAMES[0]}, an RFD in rfds/"])


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""

    parser = argparse.ArgumentParser(
        prog="acp-docs",
        description="Build and check ACP RFDs: schema changes, examples, lint, spelling, format.",
        epilog="Exit status: 0 all is well, 1 a check found a problem, 2 bad usage or input.",
    )
    parser.add_argument("--version", action="version", version=f"acp-docs {__version__}")
    reporting = argparse.ArgumentParser(add_help=False)
    reporting.add_argument(
        "--format",
        choices=registry.formats(),
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
    schema.set_defaults(func=lambda _args: missing_action(schema), command_name="schema")

    validate = command(
        "validate", cmd_validate, "validate standalone JSON payload files", reporting
    )
    validate.add_argument("--protocol", required=True, choices=protocols.NAMES)
    validate.add_argument(
        "--def", dest="definition", metavar="NAME", help="definition (default: JSON-RPC message)"
    )
    validate.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on a payload a receiver keeps with a warning too: an unknown member"
        " it ignores, a lenient value it drops",
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
    # The checks are the registry's, with the checkout's own (`[tool.acp-docs.local-checks]`):
    # a name is checked once the checkout is known, and an unknown one lists them.
    every.add_argument(
        "--only", nargs="+", action="extend", metavar="CHECK", help="run only these checks"
    )
    every.add_argument(
        "--upstream",
        type=Path,
        metavar="DIR",
        help="check a checkout of the upstream ACP repository in place, read-only: its MDX"
        " pages, examples, docs.json, links, typos and format (the upstream checks)",
    )
    kept = every.add_mutually_exclusive_group()
    kept.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="report only findings FILE does not hold, and its stale entries; FILE must exist"
        " (a missing one is a usage error, exit 2)",
    )
    kept.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help="write every current finding of --min-level or above to FILE, for --baseline",
    )
    every.add_argument(
        "--min-level",
        choices=LEVELS,
        default="warning",
        help="the least level a baseline holds and --format github annotates (default:"
        " warning; notes stay out)",
    )
    every.add_argument(
        "--skip",
        nargs="+",
        action="extend",
        metavar="CHECK",
        help="leave these checks out; leaving every check out is a usage error (exit 2),"
        " never a pass",
    )

    conform_parser(command, reporting)
    report_parser(command)

    traced = command("trace", cmd_trace, "check recorded ACP sessions (JSON Lines)", reporting)
    traced.add_argument("--protocol", required=True, choices=protocols.NAMES)
    traced.add_argument(
        "--settle",
        type=seconds,
        default=SETTLE,
        metavar="S",
        help="where lines carry a `time`: a prompt sent after the Agent had been quiet this"
        f" long left nothing of its on the wire (default: {SETTLE:g})",
    )
    traced.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on a warning too, such as a suggestion that may have crossed a"
        " prompt on the wire",
    )
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
    exporting.set_defaults(func=lambda _args: missing_action(exporting), command_name="export")

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
        choices=protocols.NAMES,
        default=protocols.NAMES[0],
        help=_new_protocol_help(),
    )
    return parser
