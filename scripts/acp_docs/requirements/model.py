"""An RFD's requirements as data: `schema/<slug>/requirements.yaml`, read and checked.

Each requirement has a stable id, a tier, whose rule it is, the protocol
versions it holds in, the capability that gates it (CAPABILITY tier), its
words, the heading of the RFD it cites and the RFD's sentences it binds. A
requirement is either judged on the wire (`judged`: by `acp-docs trace` over
a recorded session and by `acp-docs conform` against a live Agent, with the
check the RFD's wire module registers under its id) or says why it is not
(`untested`). The format is `acp_docs/config/requirements.schema.json`.

A file that breaks the format is a LocatedError at its line; the `rfds`
check reports it as a finding, every other reader stops with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

from jsonschema.protocols import Validator

from acp_docs.config.repo import Repo
from acp_docs.core import protocols
from acp_docs.core.errors import LocatedError
from acp_docs.schemalib import schemacheck
from acp_docs.sources import pointer as ptr
from acp_docs.sources.textfile import read_text
from acp_docs.sources.yamlfile import load_with_lines

FILE_NAME = "requirements.yaml"
TIERS = ("MANDATORY", "CAPABILITY", "ADVISORY", "INFORMATIONAL")
"""In the order reports list them. A FAIL of the first two makes an Agent not conformant."""
VERDICT_TIERS = ("MANDATORY", "CAPABILITY")


@dataclass(frozen=True)
class Requirement:
    """One rule of an RFD, as an implementer runs it."""

    id: str
    tier: str
    party: str
    versions: tuple[str, ...]
    capability: dict[str, str]
    """Per version: the capability's path in `initialize` (`clientCapabilities.…` in its
    request, `agentCapabilities.…` or `capabilities.…` in its result)."""
    cite: str
    text: str
    binds: tuple[str, ...]
    judged: str | None
    untested: str | None
    line: int
    """The line of the requirement in its file, for findings."""
    rfd: str
    """The RFD's file in the checkout (`rfds/<slug>.md`): `rfd#cite` is the citation."""

    @property
    def citation(self) -> str:
        """Where the RFD states it: `rfds/<slug>.md#anchor`."""
        return f"{self.rfd}#{self.cite}"

    def gate(self, version: str) -> str | None:
        """The capability that gates the requirement in `version`, if any."""
        return self.capability.get(version)


@dataclass(frozen=True)
class RequirementSet:
    """The requirements of one RFD, and where they are written."""

    slug: str
    shown: str
    rfd: str
    requirements: tuple[Requirement, ...]
    lines: dict[str, int]
    """Each JSON pointer of the file, mapped to its line."""

    def line_of(self, pointer: str) -> int:
        """The line of `pointer` in the file, or 1."""
        return self.lines.get(pointer, 1)


@cache
def _validator() -> Validator:
    text = files("acp_docs.config").joinpath("requirements.schema.json").read_text("utf-8")
    return schemacheck.validator(json.loads(text))


def parse(text: str, shown: str, slug: str, rfd: str) -> RequirementSet:
    """Read one requirements file: a LocatedError at the first line that breaks the format."""
    data, lines = load_with_lines(text, shown)
    errors = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.path])
    if errors:
        error = errors[0]
        at = ptr.format(list(error.path))
        raise LocatedError(shown, lines.get(at, 1), None, f"at {at or '/'}: {error.message}")
    found: list[Requirement] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(data["requirements"]):
        at = f"/requirements/{index}"
        line = lines.get(at, 1)

        def refuse(key: str, reason: str, at: str = at, line: int = line) -> None:
            raise LocatedError(shown, lines.get(f"{at}/{key}", line), None, reason)

        if not entry["id"].startswith(f"{slug}/"):
            refuse("id", f"requirement id {entry['id']!r} must start with the RFD's slug: {slug}/")
        if entry["id"] in seen:
            refuse("id", f"requirement id {entry['id']!r} is also at line {seen[entry['id']]}")
        seen[entry["id"]] = line
        for version in [*entry["versions"], *entry.get("capability", {})]:
            if version not in protocols.NAMES:
                refuse("versions", protocols.unknown(version))
        for version in entry.get("capability", {}):
            if version not in entry["versions"]:
                refuse("capability", f"capability of {version}, a version it does not hold in")
        if entry["party"] == "client" and "judged" in entry:
            refuse("judged", "a Client's rule is not judged: acp-docs conform drives Agents")
        found.append(
            Requirement(
                id=entry["id"],
                tier=entry["tier"],
                party=entry["party"],
                versions=tuple(entry["versions"]),
                capability=dict(entry.get("capability", {})),
                cite=entry["cite"],
                text=" ".join(entry["text"].split()),
                binds=tuple(entry["binds"]),
                judged=entry.get("judged"),
                untested=entry.get("untested"),
                line=line,
                rfd=rfd,
            )
        )
    return RequirementSet(slug, shown, rfd, tuple(found), lines)


def files_of(repo: Repo) -> list[tuple[str, Path, str]]:
    """(slug, path, shown) of every `schema/<slug>/requirements.yaml` of the checkout."""
    if not repo.schema_dir.is_dir() or repo.schema_dir.is_symlink():
        return []
    found = []
    for folder in sorted(repo.schema_dir.iterdir()):
        path = folder / FILE_NAME
        if folder.is_dir() and not folder.is_symlink() and (path.exists() or path.is_symlink()):
            found.append((folder.name, path, path.relative_to(repo.root).as_posix()))
    return found


def load_all(repo: Repo, rfd_paths: dict[str, str]) -> list[RequirementSet]:
    """Every RFD's requirements (`rfd_paths`: each RFD's file by slug); a LocatedError for
    a file that breaks the format or belongs to no RFD."""
    found = []
    for slug, path, shown in files_of(repo):
        if slug not in rfd_paths:
            raise LocatedError(shown, 1, None, f"no RFD has the slug {slug!r}: rfds/{slug}.md")
        found.append(parse(read_text(path, shown), shown, slug, rfd_paths[slug]))
    return found
