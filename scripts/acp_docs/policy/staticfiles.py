"""Which files from `docs/` other than Markdown may be published: an allowlist of kinds.

MkDocs copies every other file of `docs/` into the site as it is, and a server
picks its content type by its extension. So only kinds that cannot run script
in a reader's browser are published, each checked for being what its name says:

- images (`.png .jpg .jpeg .gif .webp .avif .ico`) that start with their
  format's magic number (a `.png` holding HTML is refused);
- SVG drawings that pass `svgpolicy` (drawing elements and attributes only);
- style sheets that mkdocs.yml names under `extra_css` and that load nothing
  from elsewhere (`csspolicy`);
- scripts that mkdocs.yml names under `extra_javascript`: the project's own,
  reviewed as code.

Every other kind (HTML, XHTML, XML, PDF, JSON, no extension ...) is refused, and
so is a file name outside `[A-Za-z0-9._-]`, a hidden one, or one with a second
dot (a server may read `x.html.png` by each of its extensions). Nothing larger
than the input limit (`textfile.max_bytes`) is read, and every reading is linear.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_docs.core.findings import Finding
from acp_docs.policy import css as csspolicy
from acp_docs.policy import svg as svgpolicy
from acp_docs.policy.staticproblem import Problem
from acp_docs.sources import textfile

CHECK = "files"
"""The check whose findings these are: the files the build would publish."""

IMAGE_FORMATS = {
    ".png": "PNG",
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".gif": "GIF",
    ".webp": "WebP",
    ".avif": "AVIF",
    ".ico": "ICO",
}
"""Image extensions that may be published, and the format their bytes must be in."""

KINDS = {
    **dict.fromkeys(IMAGE_FORMATS, "image"),
    ".svg": "svg",
    ".css": "style sheet",
    ".js": "script",
    ".mjs": "script",
}
"""Every extension that may be published, and its kind."""

PUBLISHABLE = (
    "images (.png, .jpg, .jpeg, .gif, .webp, .avif, .ico), SVG drawings without script,"
    " and the style sheets and scripts mkdocs.yml names in extra_css and extra_javascript"
)

_HEAD_BYTES = 64
_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
_FILE_NAME = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9]+")
_MARKUP = re.compile(rb"\s*<")


@dataclass(frozen=True)
class StaticRefs:
    """The files of `docs/` that mkdocs.yml links from every page, as paths in `docs/`."""

    css: frozenset[str] = frozenset()
    javascript: frozenset[str] = frozenset()

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> StaticRefs:
        """The `extra_css` and `extra_javascript` files of a loaded (or plain) MkDocs config.

        Entries of another host are left out: they are never files of `docs/`.
        """
        return cls(
            frozenset(_site_paths(config.get("extra_css"))),
            frozenset(_site_paths(config.get("extra_javascript"))),
        )


def _site_paths(items: Iterable[Any] | None) -> Iterable[str]:
    for item in items or ():
        path = item.get("path") if isinstance(item, Mapping) else getattr(item, "path", item)
        if not isinstance(path, str) or "//" in path or ":" in path.split("/")[0]:
            continue
        normal = posixpath.normpath(path.strip())
        if not (normal.startswith("/") or normal == ".." or normal.startswith("../")):
            yield normal


def kind(rel_path: str) -> str | None:
    """The kind of file `rel_path` would be published as (`image`, `svg` ...), or None."""
    return KINDS.get(posixpath.splitext(rel_path)[1].lower())


def _escaped(text: str) -> str:
    return text.encode("unicode_escape", "backslashreplace").decode("ascii")


def _name_problem(rel_path: str) -> Problem | None:
    segments = rel_path.split("/")
    bad = [s for s in segments if not _SEGMENT.fullmatch(s)]
    if bad:
        return Problem(
            1,
            1,
            f"the name {_escaped(bad[0])!r} may not be published: a name holds only letters"
            " A-Z and a-z, digits, '.', '_' and '-', and does not start with '.'; rename it",
            "static/name",
        )
    if kind(rel_path) is not None and not _FILE_NAME.fullmatch(segments[-1]):
        return Problem(
            1,
            1,
            f"the name {_escaped(segments[-1])!r} has more than one dot: a server may read"
            " each of them as an extension (x.html.png as HTML); rename it to name.ext",
            "static/name",
        )
    return None


def _kind_problem(rel_path: str) -> Problem:
    suffix = posixpath.splitext(rel_path)[1].lower()
    if suffix in (".html", ".htm", ".xhtml", ".shtml", ".xht"):
        advice = "write the page in Markdown"
    elif suffix in (".svgz", ".xml", ".xsl", ".xslt"):
        advice = "publish a plain .svg drawing, or a PNG"
    else:
        advice = "remove it, or link to where it is published elsewhere"
    what = f"{suffix} files" if suffix else "files without an extension"
    return Problem(1, 1, f"{what} are not published: only {PUBLISHABLE}; {advice}", "static/kind")


def _read(path: Path, whole: bool) -> bytes | Problem:
    """The file's bytes (the first few unless `whole`), or why they are not read."""
    limit = textfile.max_bytes()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return Problem(1, 1, f"cannot read: {exc.strerror}", "static/unreadable")
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return Problem(1, 1, "is not a regular file", "static/unreadable")
        if info.st_size > limit:
            return Problem(
                1,
                1,
                f"is larger than {limit} bytes, the limit of one input file (raise"
                f" {textfile.MAX_BYTES_VARIABLE} to allow it)",
                "static/size",
            )
        try:
            data = handle.read(limit + 1 if whole else _HEAD_BYTES)
        except OSError as exc:
            return Problem(1, 1, f"cannot read: {exc.strerror}", "static/unreadable")
    if len(data) > limit:
        return Problem(1, 1, f"is larger than {limit} bytes", "static/size")
    return data


def _is_avif(head: bytes) -> bool:
    if head[4:8] != b"ftyp":
        return False
    end = min(int.from_bytes(head[:4], "big"), len(head))
    brands = [head[8:12], *(head[i : i + 4] for i in range(16, end - 3, 4))]
    return b"avif" in brands or b"avis" in brands


MAGIC: dict[str, Callable[[bytes], bool]] = {
    "PNG": lambda head: head.startswith(b"\x89PNG\r\n\x1a\n"),
    "JPEG": lambda head: head.startswith(b"\xff\xd8\xff"),
    "GIF": lambda head: head.startswith((b"GIF87a", b"GIF89a")),
    "WebP": lambda head: head[:4] == b"RIFF" and head[8:12] == b"WEBP",
    "AVIF": _is_avif,
    "ICO": lambda head: head[:4] == b"\x00\x00\x01\x00" and head[4:6] != b"\x00\x00",
}
"""Per image format, whether a file's first bytes are that format's magic number."""


def _image_problem(rel_path: str, head: bytes) -> Problem | None:
    suffix = posixpath.splitext(rel_path)[1].lower()
    expected = IMAGE_FORMATS[suffix]
    if MAGIC[expected](head):
        return None
    actual = next((name for name, test in MAGIC.items() if test(head)), None)
    if actual is not None:
        looks = f"it is a {actual} image; give it the extension of its format"
    elif _MARKUP.match(head):
        looks = "it starts like markup (HTML, SVG or XML), which a browser could run"
    else:
        looks = f"save it as {expected}"
    return Problem(
        1,
        1,
        f"a {suffix} file must be a {expected} image, as servers send it by its extension: {looks}",
        "static/mismatch",
    )


def _style_sheet_problems(rel_path: str, data: bytes, referenced: StaticRefs) -> list[Problem]:
    if rel_path not in referenced.css:
        return [
            Problem(
                1,
                1,
                "a style sheet is published only when mkdocs.yml names it in extra_css"
                " (no page links any other); add it there, or remove it",
                "static/unlisted",
            )
        ]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [Problem(line, 1, f"not valid UTF-8 (byte {exc.start})", csspolicy.RULE)]
    return csspolicy.sheet_problems(text, rel_path)


def review(rel_path: str, path: Path, referenced: StaticRefs) -> list[Problem]:
    """Why the file at `path`, published as `rel_path` (its path in `docs/`), may not be.

    An empty list means it may be published. `referenced` holds the files
    mkdocs.yml names in `extra_css` and `extra_javascript` (`StaticRefs.from_config`).
    """
    found: list[Problem] = []
    name = _name_problem(rel_path)
    if name is not None:
        found.append(name)
    what = kind(rel_path)
    if what is None:
        found.append(_kind_problem(rel_path))
    if found:
        return found
    if what == "script":
        if rel_path in referenced.javascript:
            data = _read(path, whole=False)
            return [data] if isinstance(data, Problem) else []
        return [
            Problem(
                1,
                1,
                "a script is published only when mkdocs.yml names it in extra_javascript"
                " (the project's own scripts, reviewed as code); remove it",
                "static/unlisted",
            )
        ]
    data = _read(path, whole=what != "image")
    if isinstance(data, Problem):
        return [data]
    if what == "image":
        problem = _image_problem(rel_path, data)
        return [problem] if problem else []
    if what == "svg":
        return svgpolicy.problems(data)
    return _style_sheet_problems(rel_path, data, referenced)


def as_findings(shown: str, problems: Iterable[Problem]) -> list[Finding]:
    """The problems of the file shown as `shown` (its path in the repository) as findings."""
    return [Finding(shown, p.line, p.col, CHECK, p.message, p.rule_id) for p in problems]
