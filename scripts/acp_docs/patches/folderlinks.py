"""MkDocs lists docs_dir without following a link to a folder.

MkDocs walks docs_dir with `os.walk(..., followlinks=True)` (in
`mkdocs.structure.files.get_files`); a link back up the tree
(`docs/loop -> ..`) then makes it walk until paths grow too long, and two such
links make the walk exponential: a pull request could hang the build. No
plugin event comes before that walk, so for one build the module's `os` is
one whose `walk` never follows links. Links to folders are findings of the
`files` check instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import mkdocs.structure.files as mkdocs_files

from acp_docs.patches.pin import Patch, Target, swapped

PINNED = {"mkdocs": "1.6.1"}

PATCH = Patch(
    "folderlinks",
    __name__,
    PINNED,
    (
        Target(
            "mkdocs.structure.files.get_files",
            lambda: mkdocs_files.get_files,
            "8d8cc69e4d7dc5be70fd6fa89fe2bbde741e067ab92e4ed17fd49629fb76148e",
        ),
    ),
)


class WalkWithoutLinks:
    """`os` for MkDocs's file listing, with `walk` never following a link to a folder."""

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    @staticmethod
    def walk(top: Any, topdown: bool = True, onerror: Any = None, followlinks: bool = False) -> Any:
        """`os.walk`, with `followlinks` always False."""
        return os.walk(top, topdown=topdown, onerror=onerror, followlinks=False)


@contextmanager
def applied() -> Iterator[None]:
    """Inside the block, MkDocs's listing of docs_dir follows no link (when the patch fits)."""
    if not PATCH.usable():
        yield
        return
    with swapped(mkdocs_files, "os", WalkWithoutLinks()):
        yield
