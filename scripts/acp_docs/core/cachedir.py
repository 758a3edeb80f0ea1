"""Where the tools keep caches between runs: outside the checkout, never in the tracked tree.

`ACP_DOCS_CACHE_DIR`, else `$XDG_CACHE_HOME/acp-docs`, else `~/.cache/acp-docs`.
A cache only saves time: when the folder cannot be made, the run goes on
without it, and a cold run gives the same findings as a warm one.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(kind: str) -> Path | None:
    """The cache folder for `kind` (made if missing), or None when there can be none."""
    base = os.environ.get("ACP_DOCS_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = str(Path(xdg) / "acp-docs") if xdg else str(Path.home() / ".cache" / "acp-docs")
    path = Path(base) / kind
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    return path if os.access(path, os.W_OK) else None
