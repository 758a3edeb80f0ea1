"""The API reference: a page per package of the engine, written by mkdocstrings.

The pages are generated (`tooling/api/<package>.md`), each one mkdocstrings
instruction (`::: acp_docs.<package>`), and listed in the navigation under the
section whose index is `tooling/api/index.md`. mkdocstrings reads the source
with griffe, statically (`allow_inspection: false` is held by the config
schema): nothing of the package is imported or run.

mkdocstrings would read any module Python can find, from any page that asks
for it (`::: json` reads the standard library). So the `:::` instruction is
taken only on the pages this module wrote, and only for the identifier it
wrote there: on any other page, a block mkdocstrings would take is claimed
first by `AutodocGuard` (mkdocstrings' own pattern, a higher priority), shown
as text and reported at its line.
"""

from __future__ import annotations

import hashlib
import html
import inspect
import os
import re
import stat
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from markdown import Extension, Markdown
from markdown.blockprocessors import BlockProcessor
from markdown.util import AtomicString
from mkdocs.structure.files import File, Files

from acp_docs.checks.registry import build_problem
from acp_docs.core import cachedir
from acp_docs.core.findings import Finding
from acp_docs.patches import apirender
from acp_docs.policy import crossrefs, sanitize
from acp_docs.sources import filetree
from acp_docs.sources.textfile import max_bytes

PACKAGE = "acp_docs"
"""The engine's package, under `scripts/`."""
FOLDER = "tooling/api"
INDEX = f"{FOLDER}/index.md"

_AUTODOC = re.compile(r"^(?P<heading>#{1,6} *|)::: ?(?P<name>.+?) *$", re.MULTILINE)
"""mkdocstrings' pattern for its instruction (a test holds it equal to `AutoDocProcessor.regex`)."""
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def packages(root: Path) -> list[str]:
    """The engine's packages (`acp_docs`, then each sub-package), by dotted name.

    A folder counts when it holds an `__init__.py` and is no link; a name that
    is not a plain lower-case identifier is not a package Python would import.
    """
    base = root / "scripts" / PACKAGE
    if base.is_symlink() or not (base / "__init__.py").is_file():
        return []
    found = [PACKAGE]
    for child in sorted(base.iterdir()):
        init = child / "__init__.py"
        if (
            _NAME.fullmatch(child.name)
            and not child.is_symlink()
            and child.is_dir()
            and init.is_file()
            and not init.is_symlink()
        ):
            found.append(f"{PACKAGE}.{child.name}")
    return found


def top_modules(root: Path) -> list[str]:
    """The modules at the top of the package (`acp_docs.callout`), shown on its own page."""
    base = root / "scripts" / PACKAGE
    return [
        f"{PACKAGE}.{path.stem}"
        for path in sorted(base.glob("*.py"))
        if _NAME.fullmatch(path.stem) and not path.is_symlink() and path.is_file()
    ]


def page_path(package: str) -> str:
    """The generated page of `package`: `acp_docs.core` -> `tooling/api/core.md`."""
    name = package.split(".", 1)[1] if "." in package else "package"
    return f"{FOLDER}/{name}.md"


_FRONT_MATTER = "---\nsearch:\n  exclude: true\n---\n\n"
"""Left out of the search, as the API index page is (see docs/tooling/api/index.md)."""


def page_markdown(package: str, modules: list[str]) -> str:
    """The Markdown of a package's page: an mkdocstrings instruction for it, and one for each
    of `modules` (the top-level package's own modules: its sub-packages have their pages)."""
    if not modules:
        return f"{_FRONT_MATTER}# `{package}`\n\n{_about(package)}::: {package}\n"
    alone = "\n    options:\n      show_submodules: false\n"
    parts = [f"::: {package}{alone}", *(f"::: {module}\n" for module in modules)]
    return f"{_FRONT_MATTER}# `{package}`\n\n{_about(package)}" + "\n".join(parts)


def _about(package: str) -> str:
    """The page's first paragraph: what it documents (also its description in `llms.txt`)."""
    return f"The reference of the `{package}` package, written from its source.\n\n"


REFUSED = "acp-autodoc-refused"
"""The class of a paragraph that holds a refused instruction, shown as text."""
_REFUSED = re.compile(rf'<p class="{REFUSED}">(.*?)</p>', re.S)


@dataclass
class ApiPages:
    """The generated pages of one build, and the instruction each may hold."""

    allowed: dict[str, frozenset[str]] = field(default_factory=dict)
    """Source path of each generated page -> the identifiers it documents."""
    current: str | None = None
    """The source path of the page being rendered."""
    sources: str = ""
    """A digest of the package's sources (`apirender.sources_key`); what renders them is keyed
    by the build (`pagerender.context_key`)."""

    def add_to(self, files: Files, config: Any, root: Path) -> list[Finding]:
        """Generate a page per package (when the site has the API index page and mkdocstrings).

        None when the package's folder holds anything griffe must not read
        (`unreadable_sources`): each such entry is a finding instead.
        """
        self.allowed = {}
        if files.get_file_from_path(INDEX) is None or "mkdocstrings" not in config["plugins"]:
            return []  # a site without mkdocstrings has the index page only
        refused = unreadable_sources(root)
        if refused:
            return [
                build_problem(
                    shown,
                    1,
                    1,
                    f"{why}: griffe would read it for the API pages, so none is generated",
                    "build/api-source",
                )
                for shown, why in refused
            ]
        self.sources = apirender.sources_key(root / "scripts" / PACKAGE, root)
        titles = {}
        for package in packages(root):
            path = page_path(package)
            if files.get_file_from_path(path) is not None:
                continue  # a page written by hand keeps its place; it gets no instruction
            modules = top_modules(root) if package == PACKAGE else []
            files.append(File.generated(config, path, content=page_markdown(package, modules)))
            self.allowed[path] = frozenset([package, *modules])
            titles[path] = package
        _add_to_nav(config, titles)
        return []


def unreadable_sources(root: Path) -> list[tuple[str, str]]:
    """Each entry of `scripts/acp_docs` griffe must not read, as (path shown, why).

    griffe reads every file and folder of the package it finds, following
    links: a link (which may lead out of the checkout), a FIFO or device (a
    read that never ends), or a file past the size limit is refused, as is a
    package folder that is itself a link.
    """
    base = root / "scripts" / PACKAGE
    refused = []
    for folder in (root / "scripts", base):
        if folder.is_symlink():
            refused.append((filetree.shown(folder.relative_to(root).as_posix()), "a symbolic link"))
    if refused or not base.is_dir():
        return refused
    limit = max_bytes()
    for current, folders, names in os.walk(base, followlinks=False):
        here = Path(current)
        for name in [*folders, *names]:
            path = here / name
            shown = filetree.shown(path.relative_to(root).as_posix())
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                refused.append((shown, "a symbolic link"))
            elif not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
                refused.append((shown, "not a regular file"))
            elif stat.S_ISREG(info.st_mode) and info.st_size > limit:
                refused.append((shown, f"larger than {limit:,} bytes"))
        folders[:] = [f for f in folders if not (here / f).is_symlink()]
    return refused


def keep_rendering(
    pages: ApiPages,
    renders: apirender.ApiRenders,
    page: Any,
    config: Any,
    context: str | None,
    links: tuple[list[Any], Callable[..., Any]],
) -> bool:
    """Render a generated API page once for its sources (`acp_docs.patches.apirender`).

    `context` is the build's `pagerender.context_key`, None when kept pages stand
    down. False for any other page, or when the cache stands down: the page is
    then rendered as usual.
    """
    allowed = page.file.src_uri in pages.allowed
    if not allowed or context is None or not apirender.PATCH.usable():
        return False
    plugins = config["plugins"]
    autorefs, mkdocstrings = plugins.get("autorefs"), plugins.get("mkdocstrings")
    if autorefs is None or mkdocstrings is None:
        return False
    renders.install_api(
        page,
        pages.sources,
        context,
        *links,
        autorefs,
        lambda: mkdocstrings.handlers.get_handler("python"),
    )
    return True


_POLICY = hashlib.sha256(
    b"".join(Path(inspect.getfile(module)).read_bytes() for module in (sanitize, crossrefs))
).hexdigest()[:16]
"""The allowlist's own code: a changed policy reviews every API page again."""


def reviewed(content: str) -> tuple[str, list[Any]]:
    """`sanitize.review` of a generated API page; a page found clean is kept as published.

    An API page is the same bytes from build to build while the sources stay,
    and it is long: its review is kept in the cache folder, by its content and
    the allowlist's code, so a warm `acp-docs check` does not review it again.
    """
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
    folder = cachedir.cache_dir("api-reviewed")
    name = f"{digest}-{_POLICY}.html"
    kept = folder.read_text(name) if folder else None
    if kept is not None:
        return kept, []
    published, outside = sanitize.review(content)
    if folder is not None and not outside:
        folder.write_text(name, published)
        folder.keep_latest(64, ".html")
    return published, outside


def refusals(shown: str, source: str, content: str) -> list[Finding]:
    """Each instruction the guard refused on a page, at its line of `source` (as written)."""
    out = []
    lines = source.split("\n")
    after = 0
    for found in _REFUSED.finditer(content):
        match = _AUTODOC.search(html.unescape(found.group(1)))
        name = match.group("name") if match else ""
        line = next(
            (n for n in range(after, len(lines)) if ":::" in lines[n] and name in lines[n]),
            None,
        )
        if line is not None:
            after = line + 1
        message = (
            f"`::: {name}` is mkdocstrings' instruction, taken only on the generated API"
            " pages (it would read any module Python finds): shown as text"
        )
        out.append(build_problem(shown, (line or 0) + 1, 1, message, "build/autodoc"))
    return out


def _add_to_nav(config: Any, pages: dict[str, str]) -> None:
    """List the generated pages after the API index page, in the section that holds it."""
    nav = config.get("nav")
    section = _section_of(nav, INDEX) if isinstance(nav, list) else None
    if section is None:
        return
    listed = {_target(item) for item in section}
    for path, package in pages.items():
        if path not in listed:
            section.append({package: path})


def _target(item: Any) -> Any:
    if isinstance(item, dict) and len(item) == 1:
        return next(iter(item.values()))
    return item


def _section_of(items: list[Any], page: str) -> list[Any] | None:
    """The nav list that holds `page` (bare, or titled) itself, searched depth first."""
    for item in items:
        if _target(item) == page:
            return items
        inner = _target(item)
        if isinstance(inner, list):
            found = _section_of(inner, page)
            if found is not None:
                return found
    return None


class AutodocGuard(Extension):
    """Claims mkdocstrings' `:::` blocks on every page but the generated ones."""

    def __init__(self, pages: ApiPages) -> None:
        super().__init__()
        self.pages = pages

    def extendMarkdown(self, md: Markdown) -> None:
        """Run just before mkdocstrings' processor (priority 75), at every nesting level."""
        md.parser.blockprocessors.register(_Guard(md.parser, self.pages), "acp-autodoc-guard", 76)


class _Guard(BlockProcessor):
    def __init__(self, parser: Any, pages: ApiPages) -> None:
        super().__init__(parser)
        self.pages = pages

    def test(self, parent: Element, block: str) -> bool:
        match = _AUTODOC.search(block)
        if match is None:
            return False
        current = self.pages.current
        wanted = self.pages.allowed.get(current, frozenset()) if current is not None else ()
        return match.group("name") not in wanted or match.start() > 0

    def run(self, parent: Element, blocks: MutableSequence[str]) -> None:
        paragraph = SubElement(parent, "p", {"class": REFUSED})
        # Text, escaped when serialised and never parsed again: nothing of it is read.
        paragraph.text = AtomicString(blocks.pop(0))
