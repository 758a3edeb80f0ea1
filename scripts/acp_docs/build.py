"""A strict MkDocs build into a temporary folder, its warnings turned into findings.

MkDocs validates links, anchors and the nav (`validation:` in mkdocs.yml); the
hooks add example, lint and drift warnings already in `path:line:col` form.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from acp_docs.errors import UsageError
from acp_docs.findings import Finding
from acp_docs.repo import Repo
from acp_docs.textfile import line_of, strip_ansi

CHECK = "build"
_LEVEL = re.compile(r"^(?:WARNING|ERROR)\s+-\s+(?P<message>.*)$")
_LOCATED = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<message>.*)$")
_DOC_LINK = re.compile(r"^Doc file '(?P<doc>[^']+)' contains a link '(?P<target>[^']+)'")
_NAV_REF = re.compile(r"^A reference to '(?P<target>[^']+)' is included in the 'nav'")


def finding_of(repo: Repo, message: str) -> Finding:
    """One MkDocs warning as a finding, located in the file it is about."""
    located = _LOCATED.match(message)
    if located:
        return Finding(
            located["path"], int(located["line"]), int(located["col"]), CHECK, located["message"]
        )
    link = _DOC_LINK.match(message)
    if link:
        source = repo.source_of(link["doc"])
        line, col = line_of(source, f"({link['target']})", link["target"])
        return Finding(repo.relative(source), line, col, CHECK, message)
    nav = _NAV_REF.match(message)
    if nav:
        line, col = line_of(repo.root / "mkdocs.yml", nav["target"])
        return Finding("mkdocs.yml", line, col, CHECK, message)
    return Finding("mkdocs.yml", 1, 1, CHECK, message)


def parse_log(repo: Repo, log: str) -> list[Finding]:
    """Every WARNING or ERROR line of a build log, as findings."""
    findings = []
    for line in strip_ansi(log).splitlines():
        match = _LEVEL.match(line.strip())
        if match and not match["message"].startswith("Aborted with"):
            findings.append(finding_of(repo, match["message"].strip()))
    return findings


def check(repo: Repo) -> list[Finding]:
    """Build strictly into a temporary folder; warnings are findings; nothing is written here."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    command = [str(mkdocs)] if mkdocs.exists() else [sys.executable, "-m", "mkdocs"]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    with tempfile.TemporaryDirectory(prefix="acp-docs-site-") as site:
        result = subprocess.run(
            [*command, "build", "--strict", "--site-dir", site],
            cwd=repo.root,
            env=env,
            capture_output=True,
            text=True,
        )
    findings = parse_log(repo, result.stderr + result.stdout)
    if result.returncode != 0 and not findings:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise UsageError(f"mkdocs build could not run: {' '.join(tail)}")
    return findings
