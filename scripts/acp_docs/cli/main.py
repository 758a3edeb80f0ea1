"""The `acp-docs` command line: parse the arguments, run the command, give its exit status.

Exit status 0 when all is well, 1 when a check finds a problem, 2 for bad usage
or unreadable input. Every command acts on the repository in the current
directory (the nearest directory holding mkdocs.yml). Findings go to standard
output in the format `--format` names; summaries and progress go to standard
error. The arguments are in `acp_docs.cli.args`, the commands in
`acp_docs.cli.commands_*`.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from acp_docs.cli.args import build_parser
from acp_docs.cli.common import USAGE, say
from acp_docs.core import runner
from acp_docs.core.errors import UsageError
from acp_docs.reporters.text import printable


def main(argv: Sequence[str] | None = None) -> int:
    """Run `acp-docs`; return the exit status."""
    try:
        # Building the parser loads the reporters (`--format` choices): a plugin that
        # fails to load is a usage error like any other.
        parser = build_parser()
        args = parser.parse_args(argv)
        if not hasattr(args, "func"):
            parser.print_help(sys.stderr)
            return USAGE
        if not hasattr(args, "format"):
            args.format = None
        return int(args.func(args))
    except UsageError as exc:
        say(f"acp-docs: error: {printable(str(exc))}")
        return USAGE
    except KeyboardInterrupt:
        runner.stop_all()  # its children run in sessions of their own, which Ctrl-C misses
        return 130


def _ended(signum: int, _frame: FrameType | None) -> None:
    """Told to end (`timeout`, a CI job cancelled): end the tools running too, then exit.

    A tool being started is registered first: the signal is raised again right after."""
    if runner.defer(signum):
        return
    runner.stop_all()
    os._exit(128 + signum)


def run() -> None:
    """The `acp-docs` command: `main`, then a normal exit (cleanups registered to run at exit,
    such as temporary folders, do run).

    Ended by SIGTERM or SIGHUP, it ends the tools it started (each runs in a
    session of its own, which the signal does not reach) before it exits.
    """
    for name in ("SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), _ended)
    try:
        status = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`acp-docs ... | head`): output cut short
        # What is left in the buffer goes nowhere, instead of failing again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)


if __name__ == "__main__":
    run()
