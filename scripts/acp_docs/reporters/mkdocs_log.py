"""Findings as MkDocs build warnings, so `mkdocs build --strict` fails on any of them.

The plugin's logger is the one `acp_docs.mkdocs.sitebuild` leaves out of its
`build/mkdocs-warning` findings: what is logged here is already a finding.
"""

from __future__ import annotations

import logging

from acp_docs.core.findings import Finding
from acp_docs.reporters.text import line

LOGGER = "mkdocs.plugins.acp_docs"
log = logging.getLogger(LOGGER)


def warn(finding: Finding) -> None:
    """Log one finding as a warning line: `path:line:col: message`, escaped for the terminal."""
    log.warning(line(finding))
