"""While serving, a build that fails says so on every page instead of leaving the browser stale.

MkDocs keeps serving the last site when a rebuild raises (an unreadable
mkdocs.yml, a `docs_dir` outside the checkout, `--strict` warnings) and prints
the error in the terminal only; the browser waits for a reload that never
comes. `guard` wraps the server's builder: a failed build puts a notice with
the error on top of every page of the last site (a page of its own where
there is none), logs one line, and returns, so MkDocs tells the browsers to
reload. The next build that works replaces every page.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.exceptions import Abort, MkDocsException

from acp_docs.reporters import page

log = logging.getLogger("mkdocs.plugins.acp_docs")


def _said(exc: BaseException) -> str:
    if isinstance(exc, MkDocsException):
        return exc.format_message().strip()
    return f"{type(exc).__name__}: {exc}".strip()


def show(site_dir: Path, message: str) -> None:
    """Put the notice on every HTML page of `site_dir`; write a home and a 404 page if missing."""
    for current, _dirs, names in os.walk(site_dir):
        for name in names:
            if not name.endswith(".html"):
                continue
            path = Path(current, name)
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
                path.write_text(page.with_build_failed(text, message), encoding="utf-8")
            except OSError:
                continue
    for name in ("index.html", "404.html"):
        path = site_dir / name
        if not path.exists():
            site_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(page.build_failed_page(message), encoding="utf-8")


def guard(builder: Callable[..., Any], site_dir: Path) -> Callable[..., Any]:
    """`builder`, but a failure is shown on the served pages rather than raised."""

    def build(*args: Any, **kwargs: Any) -> Any:
        try:
            return builder(*args, **kwargs)
        except (Exception, Abort) as exc:
            message = _said(exc)
            log.error("acp-docs: the site could not be built: %s", message)
            try:
                show(site_dir, message)
            except OSError as error:
                log.error("acp-docs: the pages could not say so: %s", error)
            return None

    return build
