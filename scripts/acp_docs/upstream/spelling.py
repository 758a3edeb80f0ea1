"""Spelling as upstream spells: `typos` (pinned on PyPI) with the tree's own `typos.toml`.

A tree is spell-checked only when it configures typos (a `typos.toml`,
`_typos.toml` or `.typos.toml` at its root, the names typos reads): a tree
whose CI runs no spell checker, as MCP's, gets a note that says so, never the
findings of a tool it does not use. Only the tree's configuration is read
(`--isolated` leaves out any other configuration typos would look for), and
typos reads only the pages the walk
found to be regular files, named to it on standard input. A config file that is
a link, or past the size limit, is a finding and is not used.

typos takes time that grows with the square of a line's length (a minute and
a half for a line of 400,000 characters), so one file must not cost the tree
its spelling: a file with a line longer than `LONG_LINE` is read alone, within
`PER_FILE` seconds, and the others together; if they together run past
`TIMEOUT`, each is read alone. A file typos does not finish in time is an
error at that file that says so, and every other file keeps its findings.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from acp_docs.core import runner
from acp_docs.core.findings import Finding
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.upstream.tree import NAV_FILE, Tree

CHECK = "upstream-typos"
CONFIG = "typos.toml"
CONFIGS = (CONFIG, "_typos.toml", ".typos.toml")
"""The names typos reads its configuration from, in its order."""
FIX = "run `make setup` in the acp-docs checkout (it installs typos from PyPI)"
TIMEOUT = 60.0
"""Seconds for every ordinary file together."""
PER_FILE = 15.0
"""Seconds for one file read alone."""
LONG_LINE = 5_000
"""Characters of a line past which a file is read alone."""


def _executable() -> str:
    beside = Path(sys.executable).parent / "typos"
    return runner.require(str(beside) if beside.is_file() else "typos", "typos", FIX)


def check(tree: Tree, only: frozenset[str] | None = None) -> list[Finding]:
    """Each word typos flags in a page (or docs.json), at its line and column.

    With `only`, just the files of those paths (from DIR) are read by typos.
    """
    found: list[Finding] = []
    name = next((n for n in CONFIGS if os.path.lexists(tree.root / n)), None)
    if name is None:
        message = (
            "the tree configures no spell checker (no typos.toml): its spelling is not checked,"
            " as its own CI does not check it"
        )
        return [Finding(NAV_FILE, 1, 1, CHECK, message, "upstream/typos-unconfigured", "note")]
    config = tree.root / name
    options = ["--format", "json", "--isolated", "--force-exclude", "--file-list", "-"]
    if config.is_symlink():
        message = "a symbolic link: not used as typos's configuration"
        found.append(Finding(name, 1, 1, CHECK, message, "upstream/typos-config"))
    else:
        try:
            tomllib.loads(read_text(config, name))  # size, UTF-8 and TOML before typos reads it
            options += ["--config", name]
        except UnreadableFile as exc:
            found.append(Finding(name, 1, 1, CHECK, exc.reason, "upstream/typos-config"))
        except tomllib.TOMLDecodeError as exc:
            place = re.search(r"line (\d+), column (\d+)", str(exc))
            line, col = (int(place[1]), int(place[2])) if place else (1, 1)
            message = f"typos cannot read its configuration: {exc}"
            return [Finding(name, line, col, CHECK, message, "upstream/typos-config")]
    texts = {page.path: page.text for page in tree.pages.values()}
    if tree.nav is not None:
        texts[NAV_FILE] = tree.nav_text
    if only is not None:
        texts = {path: text for path, text in texts.items() if path in only}
    paths = sorted(path for path in texts if "\n" not in path)
    alone = [path for path in paths if _longest_line(texts[path]) > LONG_LINE]
    together = [path for path in paths if path not in alone]
    outputs: list[str] = []
    if together:
        try:
            outputs.append(_typos(tree, options, together, TIMEOUT))
        except runner.ToolFailure as exc:
            if "did not finish" not in exc.reason:
                raise
            alone += together
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda path: _alone(tree, options, path, texts[path]), alone)
        for path, result in zip(alone, results, strict=True):
            if isinstance(result, str):
                outputs.append(result)
            else:
                line = _longest_line_number(texts[path])
                found.append(Finding(path, line, 1, CHECK, result.reason, "upstream/typos-timeout"))
    for output in outputs:
        found += _findings(output, texts)
    return found


def _longest_line(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=0)


def _longest_line_number(text: str) -> int:
    lengths = [len(line) for line in text.split("\n")]
    return lengths.index(max(lengths)) + 1


def _typos(tree: Tree, options: list[str], paths: list[str], timeout: float) -> str:
    done = runner.run(
        "typos",
        [_executable(), *options],
        cwd=tree.root,
        fix=FIX,
        timeout=timeout,
        stdin="".join(f"{path}\n" for path in paths),
        ok=(0, 2),
    )
    return done.stdout


def _alone(tree: Tree, options: list[str], path: str, text: str) -> str | runner.ToolFailure:
    """typos on one file within `PER_FILE` seconds; the failure when it runs past them."""
    try:
        return _typos(tree, options, [path], PER_FILE)
    except runner.ToolFailure as exc:
        if "did not finish" not in exc.reason:
            raise
        reason = (
            f"typos did not finish this file within {PER_FILE:g} s (its longest line has"
            f" {_longest_line(text)} characters) and was stopped: the file is not"
            " spell-checked; every other file is"
        )
        return runner.ToolFailure("typos", reason, FIX)


def _findings(output: str, texts: dict[str, str]) -> list[Finding]:
    found = []
    for line in output.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            raise runner.ToolFailure("typos", f"unexpected output: {line[:200]}", FIX) from None
        if not isinstance(item, dict) or item.get("type") != "typo":
            continue
        path, number = str(item.get("path", "")), int(item.get("line_num", 1))
        text = texts.get(path, "")
        rows = text.split("\n")
        row = rows[number - 1] if 0 < number <= len(rows) else ""
        col = len(row.encode("utf-8")[: int(item.get("byte_offset", 0))].decode("utf-8", "replace"))
        fixes = [str(c) for c in item.get("corrections") or []]
        said = f"did you mean {' or '.join(repr(c) for c in fixes)}?" if fixes else "no correction"
        message = f"{item.get('typo')!r} is a typo ({said}); or allow it in {CONFIG}"
        found.append(Finding(path, number, col + 1, CHECK, message, "upstream/typo"))
    return found
