"""The `files` check: what the build may read and publish (links, odd files, names, static files).

Its findings are causes: a file left out of the build makes findings
elsewhere, so they are read first.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from acp_docs.checks.checkout import Checkout
from acp_docs.checks.registry import Check
from acp_docs.core.findings import Finding
from acp_docs.policy import staticfiles
from acp_docs.sources import filetree


def _static_files(checkout: Checkout) -> Iterator[Path]:
    """The files of docs/ MkDocs would publish as they are (not pages, not hidden, no
    `templates/` folder), that the scan allows."""
    root, docs = checkout.root, checkout.repo.docs_dir
    for current, dirs, files in os.walk(docs, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if Path(current) == docs and "templates" in dirs:
            dirs.remove("templates")
        for name in sorted(files):
            path = Path(current, name)
            if name.startswith(".") or name.endswith(".md"):
                continue
            if checkout.tree.allows(root, path) and filetree.inside(root, path):
                yield path


def _sources(checkout: Checkout) -> list[Finding]:
    found = list(checkout.tree.findings)
    refs = staticfiles.StaticRefs.from_config(checkout.repo.config)
    docs = checkout.repo.docs_dir
    for path in _static_files(checkout):
        problems = staticfiles.review(path.relative_to(docs).as_posix(), path, refs)
        found += staticfiles.as_findings(checkout.repo.relative(path), problems)
    return found


CHECK = Check(
    name="files",
    summary="Symlinks that leave the checkout, loop or point at a folder; special files;"
    " file names that are not UTF-8 or hold control characters; static files of docs/ that"
    " are not a known-good kind.",
    rules={
        "files": "Replace the link or special file with a regular file inside the checkout,"
        " and rename files to plain UTF-8 names.",
        "files/outside": "Keep the file inside the checkout: copy it in instead of linking out.",
        "files/symlink": "Replace the symlink with the file it points at, or remove it.",
        "files/special": "Remove the FIFO, device or socket: only regular files are read.",
        "files/name": "Rename the file: UTF-8, no control characters.",
    },
    docs="files",
    first=True,
    order=10,
    sources=_sources,
)
