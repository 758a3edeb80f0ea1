"""The `files` check: what the build may read and publish (links, odd files, names, static files).

Reported by the plugin from the scan of the source folders
(`acp_docs.sources.filetree`) and the review of docs/ files
(`acp_docs.policy.staticfiles`). Its findings are causes: a file left out of
the build makes findings elsewhere, so they are read first.
"""

from __future__ import annotations

from acp_docs.checks.registry import Check

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
)
