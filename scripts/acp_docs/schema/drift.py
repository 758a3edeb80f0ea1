"""The schema check: every problem of the sources, of their merge and of the committed fragments.

Never writes. A fragment differs from its source (`schema/drift`) when it is
missing, stale, or not what `fragments.render` makes of its source.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.schema import merge
from acp_docs.schema.fragments import CHECK, fragment_path, render, stale_paths
from acp_docs.schema.source import SchemaSource
from acp_docs.sources.textfile import read_text


@dataclass(frozen=True)
class Drift:
    """A problem of the schema check: a source that cannot be used, a change the merge
    refuses, a message type left unreachable, or a committed fragment that differs from
    what its source generates (`schema/drift`), each at its line."""

    shown: str
    line: int
    diff: str
    reason: str = "fragment differs from its source; run `acp-docs schema generate`"
    rule: str = "schema/drift"

    def finding(self) -> Finding:
        """The problem as a finding at its line."""
        return Finding(self.shown, self.line, 1, CHECK, self.reason, self.rule)


def _first_difference(old: list[str], new: list[str]) -> int:
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1


def check(root: Path, sources: list[SchemaSource]) -> list[Drift]:
    """Every problem of the schema sources and their fragments. Never writes.

    First what keeps a source from being used, then what the merge refuses and
    what leaves a message type unreachable (`merge.assemble`), then each
    fragment that is missing, stale or not what its source generates.
    """
    drifts = [
        Drift(problem.path, problem.line, "", problem.reason, "schema/source")
        for source in sources
        for problem in source.problems
    ]
    usable = [source for source in sources if source.usable]
    drifts += [
        Drift(found.path, found.line, "", found.message, found.rule_id)
        for found in merge.assemble(root, sources).problems
    ]
    for source in usable:
        drifts += _drift(root, source)
    return drifts


def _drift(root: Path, source: SchemaSource) -> list[Drift]:
    drifts = []
    for version in source.versions:
        path = fragment_path(source, version)
        shown = path.relative_to(root).as_posix()
        expected = render(source, version).splitlines(keepends=True)
        if not path.is_file() or path.is_symlink():
            drifts.append(
                Drift(shown, 1, "", f"{shown} is missing: run `acp-docs schema generate`")
            )
            continue
        try:
            actual = read_text(path, shown).splitlines(keepends=True)
        except UsageError as exc:
            drifts.append(Drift(shown, 1, "", str(exc)))
            continue
        if actual != expected:
            diff = "".join(
                difflib.unified_diff(
                    actual, expected, f"{shown} (committed)", f"{shown} (generated)", n=1
                )
            )
            drifts.append(Drift(shown, _first_difference(actual, expected), diff))
    for path in stale_paths(source):
        shown = path.relative_to(root).as_posix()
        drifts.append(
            Drift(
                shown,
                1,
                "",
                f"{shown}: {source.shown} does not target {path.stem}; remove it"
                " (`acp-docs schema generate` does)",
            )
        )
    return drifts
