"""The one registry of reporters: entry-point group `acp_docs.reporters`.

Each entry point names a `Reporter` (`text = "acp_docs.reporters.text:REPORTER"`);
its name is the `--format` value. A package installed beside this one adds a
format by declaring an entry point of the group; one that fails to import is an
error naming it (exit status 2), never a format silently missing.
"""

from __future__ import annotations

import os

from acp_docs.core.errors import UsageError
from acp_docs.core.plugins import load_group
from acp_docs.reporters import Annotate, Report, Reporter

GROUP = "acp_docs.reporters"


def _refuse(reporter: Reporter, _name: str) -> str | None:
    if reporter.cli and not callable(reporter.render):
        return "a reporter `--format` takes must have a `render(report) -> str`"
    return None


def load_reporters() -> dict[str, Reporter]:
    """Every reporter, by name; a PluginLoadError names an entry point that fails.

    None at all means the installed metadata predates the group (the package's
    own reporters are entry points too): a UsageError says how to reinstall.
    """
    found = load_group(GROUP, Reporter, _refuse)
    if not found:
        raise UsageError(
            f"no reporter is registered under the entry-point group {GROUP!r}: the installed"
            " metadata of acp-docs is older than its code; run `make setup` to reinstall it"
        )
    return found


def formats() -> tuple[str, ...]:
    """The names `--format` takes: every reporter for the command line, by name."""
    return tuple(name for name, reporter in load_reporters().items() if reporter.cli)


def annotators() -> list[Annotate]:
    """The `annotate` of every reporter that writes findings into the served pages."""
    return [r.annotate for r in load_reporters().values() if r.annotate is not None]


def under_github_actions() -> bool:
    """True when running as a GitHub Actions step."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def default_format() -> str:
    """`github` (text plus annotations) under GitHub Actions, else `text`."""
    return "github" if under_github_actions() else "text"


def render(report: Report, fmt: str | None = None) -> str:
    """The report in format `fmt` (default: `default_format()`), ready for stdout."""
    name = fmt or default_format()
    reporter = load_reporters().get(name)
    if reporter is None or not reporter.cli or reporter.render is None:
        known = ", ".join(formats())
        raise UsageError(f"no output format {name!r} (known: {known})")
    return reporter.render(report)
