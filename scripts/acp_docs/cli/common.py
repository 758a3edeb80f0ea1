"""What every `acp-docs` command shares: exit statuses, output, and checks of its arguments."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from acp_docs.config.repo import Repo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.reporters import Report
from acp_docs.reporters import registry as reporters

OK, FOUND, USAGE = 0, 1, 2


def say(message: str) -> None:
    """Tell the user `message` on standard error (summaries, progress)."""
    print(message, file=sys.stderr)


def emit(args: argparse.Namespace, findings: Sequence[Finding], **extra: object) -> None:
    """Print the findings to standard output in the format `--format` names."""
    report = Report(args.command_name, findings, **extra)  # type: ignore[arg-type]
    sys.stdout.write(reporters.render(report, args.format))
    sys.stdout.flush()


def refuse_undecodable_names(repo: Repo) -> None:
    """Stop before any check when a file name of the checkout is not UTF-8, naming each."""
    from acp_docs.sources import filetree

    names = filetree.undecodable_names(repo.root)
    if names:
        listed = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        raise UsageError(
            f"{listed}: the file name is not UTF-8, so no site can be built and no check can run"
            " while the checkout holds it: rename it"
        )


def schema_sources(repo: Repo):
    """Every RFD's schema source of the checkout."""
    from acp_docs.rfds import model as rfds

    return rfds.schema_sources(repo)


def check_output(path: Path) -> None:
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


def write_output(path: Path, text: str) -> None:
    """Write `text` to an --output file at the moment of writing, safely: never through a
    link, never into what is not a regular file (whatever the path became meanwhile)."""
    import errno
    import os
    import stat

    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        why = "it is a symlink" if exc.errno == errno.ELOOP else exc.strerror
        raise UsageError(f"{path}: refusing to write: {why}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"{path}: refusing to write: not a regular file")
        os.ftruncate(fd, 0)
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


def findings_command(args: argparse.Namespace, findings: list[Finding], what: str) -> int:
    """Print `findings`, say how many `what` found; the exit status they give."""
    emit(args, findings)
    failing = sum(1 for f in findings if f.fails)
    others = len(findings) - failing
    said = f", {others} warning(s) or note(s)" if others else ""
    say(f"{what}: {failing} problem(s){said}")
    return FOUND if failing else OK


def in_checkout(repo: Repo, path: Path) -> Path:
    """A PATH argument as the user means it (relative to the current folder), in the checkout."""
    from acp_docs.sources import filetree

    full = Path(os.path.abspath(path))
    if not filetree.within(repo.root, full):
        raise UsageError(f"{path}: outside the checkout ({repo.root}); name a file or folder in it")
    if not full.exists():
        raise UsageError(f"{path}: no such file or directory")
    return full


def missing_action(parser: argparse.ArgumentParser) -> int:
    """A command group called without its action: its help, and a usage error."""
    parser.print_help(sys.stderr)
    return USAGE
