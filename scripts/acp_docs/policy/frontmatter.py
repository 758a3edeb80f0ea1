"""The front matter of docs pages, checked against an allowlist (`configpolicy.PAGE_SCHEMA`).

Material prints page metadata into `<head>`, the header and the navigation,
some of it unescaped or as a template path (`description`, `subtitle`,
`icon`, `template` ...). A docs page's front matter may hold only `title`
(plain text), `rfd` (the name of the RFD the page belongs to), `hide` and
`search`; anything else is a finding at the line of its key.

The front matter is found as MkDocs finds it (`mkdocs.utils.meta`): a `---`
block at the top, or, without one, MultiMarkdown `key: value` lines at the top
of the page, which MkDocs also reads as metadata and which are a finding here.
Front matter that is not YAML or not a mapping is a finding at its line, never
a traceback. RFDs (`rfds/`) are checked by `acp_docs.rfds.model` against their own
schema.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mkdocs.utils.meta import YAML_RE, get_data

from acp_docs.config import configschema as configpolicy
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.schemalib import schemacheck, schemawords
from acp_docs.sources import filetree
from acp_docs.sources.textfile import read_text
from acp_docs.sources.yamlfile import YamlError, load_with_lines

CHECK = "build"
WHOLE = "front matter"
_VALIDATOR = schemacheck.validator(configpolicy.PAGE_SCHEMA)


def _finding(shown: str, line: int, col: int, message: str, kind: str) -> Finding:
    return Finding(shown, line, col, CHECK, message, f"front-matter/{kind}")


def check_text(shown: str, text: str) -> list[Finding]:
    """The findings of one docs page's front matter; `shown` is its path from the root."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    match = YAML_RE.match(text)
    if match is None:
        _, meta = get_data(text)
        if not meta:
            return []
        message = (
            f"the first lines of the page ({', '.join(sorted(meta))}: ...) are read as page"
            " metadata; start the page with its heading, or write metadata in a --- block"
        )
        return [_finding(shown, 1, 1, message, "metadata-lines")]
    try:
        meta, lines = load_with_lines(match.group(1), shown)
    except YamlError as exc:
        message = f"malformed YAML front matter: {exc.problem}"
        return [_finding(shown, exc.line + 1, exc.col, message, "malformed")]
    if meta is None:
        return []
    if not isinstance(meta, dict):
        return [_finding(shown, 2, 1, "front matter is not a YAML mapping", "not-mapping")]
    out = []
    for error in _VALIDATOR.iter_errors(meta):
        path, problem = schemawords.problem(error, WHOLE)
        line = next((lines[p] for p in schemawords.pointers(path) if p in lines), 0) + 1
        kind = "unknown-key" if error.validator == "additionalProperties" else "invalid"
        out.append(_finding(shown, line, 1, f"front matter: {problem}", kind))
    return sorted(out)


def check_pages(root: Path, paths: Iterable[Path]) -> list[Finding]:
    """The findings of the front matter of each page in `paths`, by file and line.

    Files outside the checkout `root` (links resolved) and files that cannot be
    read are skipped: the build reports them.
    """
    out: list[Finding] = []
    for path in paths:
        if not filetree.inside(root, path):
            continue
        shown = Path(os.path.relpath(path, root)).as_posix()
        try:
            text = read_text(path, shown)
        except UsageError:
            continue
        out.extend(check_text(shown, text))
    return sorted(out)


def docs_pages(docs_dir: Path) -> list[Path]:
    """Every Markdown page under `docs_dir`, by path, without following links."""
    found: list[Path] = []
    for current, dirs, files in os.walk(docs_dir, followlinks=False):
        dirs.sort()
        found.extend(Path(current, name) for name in sorted(files) if name.endswith(".md"))
    return found
