"""Findings as MkDocs build messages: an error as a warning, so `mkdocs build --strict` fails
on it, as `acp-docs check` does; a warning or a note as an information line that says its
level, shown in the terminal and never failing the build.

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
    """Log one finding: `path:line:col: message`, escaped for the terminal; an error as a
    warning (strict builds fail on it), any other level as information."""
    if finding.fails:
        log.warning(line(finding))
    else:
        log.info(line(finding))
