"""The commands that lint: `rfds`, `spell`, `format`, and `check` (every check CI runs)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from acp_docs.checks.baseline import at_least
from acp_docs.cli.common import (
    FOUND,
    OK,
    USAGE,
    check_output,
    emit,
    findings_command,
    refuse_undecodable_names,
    say,
)
from acp_docs.config.repo import Repo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import CheckResult, report_order
from acp_docs.reporters.text import printable
from acp_docs.sources.textfile import linked_folder


def cmd_rfds(args: argparse.Namespace) -> int:
    """Lint every RFD: front matter, sections, FAQ, history, navigation."""
    from acp_docs.rfds import model as rfds

    repo = Repo.load()
    count = len(rfds.rfd_files(repo))
    return findings_command(args, rfds.lint(repo), f"{count} RFD(s) linted")


def cmd_spell(args: argparse.Namespace) -> int:
    """Spell-check the prose of the pages the site renders (and README.md) with Aspell."""
    from acp_docs.checks import run as check

    repo = Repo.load()
    refuse_undecodable_names(repo)
    (result,) = check.run(repo, ["spell"])
    if result.error is not None:
        raise UsageError(result.error)
    return findings_command(args, list(result.findings), "spelling")


def cmd_format(args: argparse.Namespace) -> int:
    """Check (--check) or apply Prettier formatting."""
    from acp_docs.checks import prettier

    repo = Repo.load()
    refuse_undecodable_names(repo)
    if not args.check:
        problems = prettier.write(repo)
        for problem in problems:
            say(f"acp-docs format: {printable(problem)}")
        return FOUND if problems else OK
    return findings_command(args, prettier.check(repo), "formatting")


def _summary(results: Sequence[CheckResult]) -> list[str]:
    width = max((len(r.name) for r in results), default=5)
    lines = []
    for r in results:
        detail = printable(r.error) if r.error is not None else f"{len(r.findings)} finding(s)"
        lines.append(f"  {r.name:<{width}}  {r.status:<6}  {r.seconds:6.2f}s  {detail}")
    return lines


def cmd_check(args: argparse.Namespace) -> int:
    """Run every check side by side and print one summary (`--upstream DIR`: upstream's)."""
    start = time.perf_counter()
    if args.upstream is not None:
        results = _upstream(args)
    else:
        from acp_docs.checks import registry
        from acp_docs.checks import run as check
        from acp_docs.upstream import registry as upstream_checks

        for name in [*(args.only or []), *(args.skip or [])]:
            if name in upstream_checks.entry_names():
                raise UsageError(f"--only/--skip {name}: an upstream check: add --upstream DIR")
        repo = Repo.load()
        names = _chosen(args, tuple(registry.load_checks(repo.root)))
        refuse_undecodable_names(repo)
        results = check.run(repo, names)
    tree = args.upstream if args.upstream is not None else Path.cwd()
    if args.write_baseline is not None:
        results = _write_baseline(args.write_baseline, results, tree, args.min_level)
    elif args.baseline is not None:
        results = _against_baseline(args.baseline, results, args.min_level, tree)
    findings = report_order(results)
    failing: dict[str, list[str]] = {}
    for result in results:
        if result.error:
            failing.setdefault(result.error, []).append(result.name)
    errors = [f"{', '.join(names)}: {error}" for error, names in failing.items()]
    emit(args, findings, results=results, errors=errors, annotate=args.min_level)
    hidden = len(findings) - len(at_least(findings, args.min_level))
    if hidden and args.format in (None, "text", "summary"):
        say(f"acp-docs check: {hidden} finding(s) below {args.min_level} not shown (--min-level)")
    say(f"acp-docs check: {len(results)} check(s) in {time.perf_counter() - start:.2f}s")
    said_kind = {f.message for r in results for f in r.findings if f.rule == "upstream/not-acp"}
    for kind in sorted(said_kind):  # which checks ran, said plainly
        say(printable(f"acp-docs check: {args.upstream} is {kind}"))
    for line in _summary(results):
        say(line)
    for error in errors:
        say(f"acp-docs: error: {printable(error)}")
    if errors:
        return USAGE
    failed = [r.name for r in results if r.status == "failed"]
    say(f"failed: {', '.join(failed)}" if failed else "all checks passed")
    return FOUND if failed else OK


def _chosen(args: argparse.Namespace, known: Sequence[str]) -> list[str]:
    """The checks `--only` and `--skip` leave of `known`; a usage error for any other."""
    for name in [*(args.only or []), *(args.skip or [])]:
        if name not in known:
            where = "not an upstream check" if args.upstream is not None else "no such check"
            raise UsageError(f"--only/--skip {name}: {where} (checks here: {', '.join(known)})")
    names = [n for n in (args.only or known) if n not in (args.skip or [])]
    if not names:
        raise UsageError("--only and --skip leave no check to run: nothing would be checked")
    return names


def _upstream(args: argparse.Namespace) -> list[CheckResult]:
    from acp_docs.upstream import check as upstream

    names = _chosen(args, upstream.names())
    return upstream.run(args.upstream, tuple(names))


def _write_baseline(
    path: Path, results: list[CheckResult], tree: Path, level: str
) -> list[CheckResult]:
    """Write the current findings of `level` and above to `path` (never through a linked
    folder of the `tree` checked); nothing is then reported as new."""
    from acp_docs.checks import baseline

    check_output(path)
    kept = baseline.at_least([f for r in results for f in r.findings], level)
    count = baseline.write(path, kept, within=tree, commit=baseline.commit_of(tree))
    say(
        f"acp-docs check: wrote the baseline {path} ({count} finding(s) of level {level} or"
        " above); `--baseline` reports only findings it does not hold"
    )
    return [
        CheckResult(r.name, tuple(f for f in r.findings if f not in kept), r.seconds, r.error)
        for r in results
    ]


def _against_baseline(
    path: Path, results: list[CheckResult], level: str, tree: Path
) -> list[CheckResult]:
    """Only the findings the baseline at `path` does not hold; a usage error when it is
    missing, so that a wrong or uncommitted path never passes. A baseline in the checked
    `tree` is read only as the file itself: never through a link, nor a linked folder."""
    from acp_docs.checks import baseline

    linked = linked_folder(path, tree)
    if linked is not None:
        raise UsageError(f"{path}: the folder {linked} on the way is a link; it is not followed")

    if not path.exists() and not path.is_symlink():
        raise UsageError(
            f"{path}: no such baseline; write one with --write-baseline {path} and commit it"
        )
    entries, commit = baseline.read(path)
    moved = baseline.renames(tree, commit)
    kept, stale = baseline.new_only(results, baseline.held(entries, moved), level)
    if stale:
        say(
            f"acp-docs check: {len(stale)} baseline entr{'y' if len(stale) == 1 else 'ies'} of"
            f" {path} no longer found (stale: remove them with --write-baseline {path}):"
        )
        for where, rule, message in stale[:20]:
            say(printable(f"  stale: {where}: {rule}: {message}"))
        if len(stale) > 20:
            say(f"  ... and {len(stale) - 20} more")
    return kept
