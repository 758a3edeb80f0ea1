"""The theme's static files, listed without walking the folders MkDocs would skip anyway.

On every build MkDocs adds each file of the theme to the site unless its name
matches one of its patterns, and a name with a hidden part (`.icons/...`)
never passes. Material keeps about 14,000 icons under `.icons`, so MkDocs
listed and tested each of them on every build: about 0.09 s of a 1.9 s check,
and again on each rebuild while serving. `install` makes
`Files.add_files_from_theme` list the theme's folders without descending into
hidden ones; every other name still goes through MkDocs's own filter, so the
same files are added. When the theme's loader is not Jinja's plain
`FileSystemLoader`, MkDocs's own listing runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from typing import Any

import jinja2
from mkdocs.structure.files import Files

ORIGINAL: Callable[..., None] = Files.add_files_from_theme


class _VisibleListing:
    """Stands in for the theme's Jinja environment: its loader's listing, minus hidden folders."""

    def __init__(self, loader: jinja2.FileSystemLoader) -> None:
        self._loader = loader

    def list_templates(
        self,
        extensions: Collection[str] | None = None,
        filter_func: Callable[[str], bool] | None = None,
    ) -> list[str]:
        if extensions is not None:
            raise TypeError("only filter_func is supported")
        found: set[str] = set()
        for searchpath in self._loader.searchpath:
            walk = os.walk(searchpath, followlinks=self._loader.followlinks)
            for dirpath, dirnames, filenames in walk:
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for filename in filenames:
                    name = os.path.join(dirpath, filename)[len(searchpath) :]
                    name = name.strip(os.path.sep).replace(os.path.sep, "/")
                    found.add(name.removeprefix("./"))
        names = sorted(found)
        return [n for n in names if filter_func(n)] if filter_func is not None else names


def _add_files_from_theme(self: Files, env: jinja2.Environment, config: Any) -> None:
    if type(env.loader) is not jinja2.FileSystemLoader:
        return ORIGINAL(self, env, config)
    return ORIGINAL(self, _VisibleListing(env.loader), config)


def install() -> None:
    """List the theme's files without its hidden folders from now on in this process."""
    Files.add_files_from_theme = _add_files_from_theme  # type: ignore[method-assign]
