"""The authoring commands: `new` (scaffold an RFD) and `export upstream` (its pull request)."""

from __future__ import annotations

import argparse

from acp_docs.cli.common import FOUND, OK, emit, say
from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.errors import UsageError
from acp_docs.reporters.text import printable


def cmd_new(args: argparse.Namespace) -> int:
    """Scaffold an RFD from the template and add it to the navigation under Draft."""
    from acp_docs.authoring import scaffold

    repo = Repo.load()
    version = protocols.get(args.protocol)
    alone = version.rfds_folder is not None
    config_before = repo.config_text
    written = scaffold.new_rfd(
        repo, args.slug, args.title, args.author, args.minimal, version.rfds_folder
    )
    if args.schema:
        from acp_docs.authoring.schema_example import write_example_source
        from acp_docs.config.repo import CONFIG_NAME
        from acp_docs.sources.textfile import write_atomic

        versions = [version.name] if alone else list(protocols.NAMES)
        try:
            written += write_example_source(repo.root, args.slug, args.title, versions)
        except BaseException:
            # All or nothing: the RFD and its nav entry go when its schema cannot be written.
            written[0].unlink(missing_ok=True)
            write_atomic(repo.root / CONFIG_NAME, config_before)
            raise
    for path in written:
        say(f"wrote {repo.relative(path)}")
    say(f"next: edit {repo.relative(written[0])}, then run `acp-docs check`")
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
    # An RFD about one version alone goes to that version's folder upstream, if it has one.
    about = rfd.versions or (sources[0].versions if sources else ())
    folder = protocols.get(about[0]).rfds_folder if len(about) == 1 else None
    result = export.export(repo, rfd, args.directory, force=args.force, folder=folder)
    if result.findings:
        emit(args, result.findings)
        say(f"nothing written: {len(result.findings)} problem(s) in {rfd.shown}")
        return FOUND
    for path in result.written:
        say(f"wrote {path}")
    for path in result.unchanged:
        say(f"unchanged {path}")
    for note in result.notes:
        say(f"note: {note}")
    found, notes = export.check_written(args.directory, result.page)
    for note in notes:
        say(f"note: {note}")
    emit(args, found)
    errors = sum(f.fails for f in found)
    say(
        f"the upstream check of {result.page}: "
        + (f"{len(found)} finding(s), {errors} error(s)" if found else "no findings")
    )
    title, body = export.pull_request(rfd, str(repo.config.get("site_url") or ""))
    body = "\n".join(printable(line) for line in body.split("\n"))
    say(f"\nsuggested pull request title:\n  {printable(title)}\nsuggested body:\n{body}")
    return FOUND if errors else OK
