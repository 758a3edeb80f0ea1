"""One MkDocs build whose findings come back as data: `python -m acp_docs.mkdocs.sitebuild`.

`acp-docs check` runs this through the tool runner (so a hang has a timeout)
and reads one JSON document from its standard output: the plugin's findings,
plus any other MkDocs warning, kept word for word at `mkdocs.yml`. Nothing
parses a log. The site goes to a temporary folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from acp_docs.checks import registry
from acp_docs.config.repo import Repo
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.reporters.mkdocs_log import LOGGER as PLUGIN_LOGGER

PLUGIN = "acp-docs"


class _Collector(logging.Handler):
    """Keeps every MkDocs warning that the plugin did not already report as a finding."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name != PLUGIN_LOGGER:
            self.messages.append(record.getMessage())


def build(root: Path, names: Sequence[str] | None = None) -> dict[str, Any]:
    """Build the site of `root` once; its findings, or the error that stopped the build.

    With `names`, only those checks' `page` and `site` hooks run (their
    `sources` hooks are the caller's), and `check_errors` says, by check, why
    one could not run; without, every check runs as under `mkdocs build`.
    """
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    collector = _Collector()
    mkdocs_logger = logging.getLogger("mkdocs")
    mkdocs_logger.addHandler(collector)
    mkdocs_logger.setLevel(logging.INFO)
    try:
        Repo.load(root)  # mkdocs.yml read safely first: no aliases, a size limit
        with tempfile.TemporaryDirectory(prefix="acp-docs-site-") as site_dir:
            config = load_config(config_file=str(root / "mkdocs.yml"), site_dir=site_dir)
            plugin = config.plugins.get(PLUGIN)
            if plugin is None:
                return {"error": f"mkdocs.yml does not enable the `{PLUGIN}` plugin (plugins:)"}
            if names is not None:
                plugin.select(names, sources=False)
            mkdocs_build(config)
            findings: list[Finding] = list(plugin.findings)
            check_errors = dict(plugin.state.check_errors)
            checks = plugin.state.checks
            for name in names or ():
                if name not in checks:
                    check_errors[name] = f"{name}: no such check is registered"
    except (MkDocsException, UsageError) as exc:
        said = "; ".join(collector.messages[-3:])
        return {
            "error": f"mkdocs could not build the site: {exc}{' (' + said + ')' if said else ''}"
        }
    finally:
        mkdocs_logger.removeHandler(collector)
    rule = "build/mkdocs-warning"
    findings += [
        replace(
            registry.build_problem("mkdocs.yml", 1, 1, message, rule),
            check=registry.owner(checks, rule),
        )
        for message in collector.messages
    ]
    result: dict[str, Any] = {"findings": [asdict(f) for f in findings]}
    if check_errors:
        result["check_errors"] = check_errors
    return result


def main(argv: list[str] | None = None) -> int:
    """Print the build's findings as JSON on standard output."""
    parser = argparse.ArgumentParser(prog="python -m acp_docs.mkdocs.sitebuild")
    parser.add_argument("root", type=Path)
    parser.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this check's page and site hooks (repeatable; default: every check's"
        " hooks, as `mkdocs build` runs them)",
    )
    args = parser.parse_args(argv)
    # A build allocates many short-lived objects and few cycles: collect rarely.
    gc.set_threshold(50_000, 20, 20)
    # MkDocs prints its own log lines to stderr; the JSON alone goes to stdout. (Forked
    # from a process that set up logging, the child drops what that process set up.)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(message)s", force=True)
    names = args.check if args.check else None
    sys.stdout.write(json.dumps(build(args.root.resolve(), names)) + "\n")
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Everything is written and the site folder removed; skipping the interpreter's
    # teardown (freeing every object of the build, about 0.25 s) ends the child sooner.
    os._exit(status)
