"""The schemas a tree's examples are judged by: the tree's own when it has them.

An upstream checkout keeps the schemas its pages were written against in
`schema/v1/schema.json`, `schema/v1/schema.unstable.json` and the same for v2
(before v2, the v1 schemas were `schema/schema.json` and
`schema/schema.unstable.json`: every layout upstream has had is known,
`protocols.tree_files`); the pull request that changes a page regenerates
them. So each version and channel is judged by the tree's file when it has
one, and by the pinned SDK's only when it has none. A tree's schema is read as any file of the tree
is (a regular file inside it, never through a link, within the size limit)
and vetted before use: a `$ref` that leaves the document or a pattern no
linear engine runs is a finding, and the SDK's schema stands in for it.
Which schemas judged which version is said in a note.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.core import memo, protocols
from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import Finding
from acp_docs.schema.merge import default_base, sdk_version
from acp_docs.schemalib import schemacheck
from acp_docs.sources.textfile import UnreadableFile, load_json
from acp_docs.upstream import messages, nodejobs
from acp_docs.upstream.tree import NAV_FILE
from acp_docs.validation.schemaset import SchemaSet

CHECK = "upstream-examples"


@dataclass
class Chosen:
    """The schemas of every version and channel, where each came from, what was refused."""

    schemas: messages.Schemas
    sources: dict[tuple[str, str], str] = field(default_factory=dict)
    """(version, channel) -> the file it was read from: the tree's, or the SDK's."""
    problems: list[Finding] = field(default_factory=list)

    def notes(self) -> list[Finding]:
        """One note, in one line, saying which schemas judged the examples of each version."""
        said = []
        for version in protocols.NAMES:
            stable, unstable = (self.sources[(version, c)] for c in protocols.CHANNELS)
            said.append(f"{version} by {stable} and {unstable}")
        message = "examples judged: " + "; ".join(said)
        return [Finding(NAV_FILE, 1, 1, CHECK, message, "upstream/schemas", "note")]

    def line(self) -> str:
        """The same, for the terminal: which schemas judged which version."""
        return self.notes()[0].message


def tree_file(root: Path, rel: str) -> Path | None:
    """The tree's file at `rel` when it is a regular file of the tree reached through no link."""
    path = root / rel
    try:
        info = path.lstat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if os.path.realpath(path) != os.path.join(os.path.realpath(root), *rel.split("/")):
        return None  # a linked folder on the way: never followed
    return path


def _read(path: Path, shown: str) -> tuple[Any, list[Finding]]:
    try:
        document = load_json(path, shown)
    except UnreadableFile as exc:
        return None, [Finding(shown, exc.line, 1, CHECK, exc.reason, "upstream/schema")]
    except LocatedError as exc:
        return None, [Finding(shown, exc.line, exc.col, CHECK, exc.reason, "upstream/schema")]
    refused = schemacheck.problems(document)
    if refused:
        where, reason = refused[0]
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        message = f"{where or '(root)'}: {reason}{more}; the pinned SDK's schema is used instead"
        return None, [Finding(shown, 1, 1, CHECK, message, "upstream/schema")]
    return document, []


def choose(root: Path) -> Chosen:
    """The schemas to judge the tree at `root` by, each the tree's own when it has it."""
    picks: dict[tuple[str, str], tuple[Path, str]] = {}
    sdk = f"{protocols.SDK_PACKAGE} {sdk_version(nodejobs.PROJECT)}"
    for channel in protocols.CHANNELS:
        for version in protocols.VERSIONS.values():
            kept = [(tree_file(root, rel), rel) for rel in protocols.tree_files(version, channel)]
            mine = next(((path, rel) for path, rel in kept if path is not None), None)
            if mine is not None:
                picks[(version.name, channel)] = mine
            else:
                rel = version.base_files[channel]
                base = default_base(nodejobs.PROJECT, version, channel)
                picks[(version.name, channel)] = (base, f"{sdk} {rel}")
    paths = [path for path, _shown in picks.values()]
    key = memo.digest_of(paths)
    return memo.remembered("upstream schemas", key, lambda: _load(picks, sdk))


def _load(picks: dict[tuple[str, str], tuple[Path, str]], sdk: str) -> Chosen:
    documents: dict[tuple[str, str], Any] = {}
    sources: dict[tuple[str, str], str] = {}
    problems: list[Finding] = []
    for (version, channel), (path, shown) in picks.items():
        document, refused = _read(path, shown)
        problems += refused
        if document is None and not shown.startswith(protocols.SDK_PACKAGE):
            fallback = default_base(nodejobs.PROJECT, protocols.get(version), channel)
            shown = f"{sdk} {protocols.get(version).base_files[channel]}"
            document, more = _read(fallback, shown)
            problems += more
        documents[(version, channel)] = document if document is not None else {}
        sources[(version, channel)] = shown
    sets = {
        channel: SchemaSet({v: documents[(v, channel)] for v in protocols.NAMES})
        for channel in protocols.CHANNELS
    }
    own = frozenset(
        v for v in protocols.NAMES if not sources[(v, "stable")].startswith(protocols.SDK_PACKAGE)
    )
    schemas = messages.Schemas(sets["stable"], sets["unstable"], own or frozenset(protocols.NAMES))
    return Chosen(schemas, sources, problems)
