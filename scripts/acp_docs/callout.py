"""The pull request's call-out: every change that is not plain content, in Markdown.

    python3 callout.py --base SHA [--head REF]

prints, for a job summary, the changes between two commits of the repository
in the current folder that a maintainer must read before trusting the checks,
and nothing (exit status 0) when there are none. It is an allowlist: a change
is left out only when every path it touches is plain content, a regular file
(mode 100644) that no link in the head tree reaches, with a name shown as it
is and git attributes that neither hide nor alter its diff. Plain content is

- Markdown (`.md`) under `rfds/` and `docs/`, except under `docs/assets/`;
- images that cannot carry script (`.png .jpg .jpeg .gif .webp .avif`, not
  SVG) under `rfds/` and `docs/`;
- schema data: `schema/<folder>/source.yaml` and the generated fragments
  `schema/<folder>/v<N>.json`;
- conformance fixtures, `schema/examples/<version>/<valid|lenient|invalid>/*.json`.

No part of such a path may start with a dot. Everything else is listed:
whatever make, pytest, npm, Python, MkDocs or the browser may pick up by its
name alone, the workflows, the tooling, and files published as they are.

A change is also listed, whatever its path, when

- it is a symbolic link in the head tree, a submodule, or its mode changed
  (an executable bit, a file turned into a link, a link deleted);
- a symbolic link of the head tree points at it or at a folder above it, so a
  link made earlier cannot make later edits of its target look like content;
- it is a `.gitattributes` file, at any depth;
- its git attributes in the head tree are not all harmless. Harmless are the
  attributes that change neither what the diff shows nor the bytes a build
  reads: `text`, `eol` and `crlf` (line endings of the checkout only; the
  diff shows the blob), `whitespace` (which whitespace the diff highlights),
  `delta` (packing), `export-ignore` (`git archive` only), and
  `linguist-detectable` and `linguist-documentation` (language statistics).
  Every other attribute is named: `-diff`, `diff=DRIVER` and `binary` hide
  the diff or replace it by a driver's text, `linguist-generated` folds it
  away on GitHub, `linguist-vendored` marks the file as third-party code that
  reviewers skip, `filter`, `ident`, `working-tree-encoding` and `encoding`
  make the checkout or its display differ from the blob, `merge` changes how
  the pull request's merge commit (what CI builds) is made, and an attribute
  this list does not know may be a macro or a new git feature.

Each name is shown in a code span that its own backticks cannot close, with
backslashes doubled and every invisible or reordering character (controls,
bidirectional and other format characters, spaces other than U+0020 at
either end, fillers), and every byte of a name that is not UTF-8, shown as an
escape (`\\u202e`, `\\udce9`).

The program imports only the standard library and nothing of `acp_docs`: the
pull-request workflow runs the copy of the base commit, from a file of its
own, so a pull request cannot change what reviews it.
"""

from __future__ import annotations

import argparse
import os
import posixpath
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

REGULAR = "100644"
ABSENT = "000000"
MODES = {
    "100755": "an executable file",
    "120000": "a symbolic link",
    "160000": "a submodule",
    "040000": "a folder",
}
STATUSES = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type changed",
    "U": "unmerged",
    "X": "unknown",
}
HARMLESS_ATTRIBUTES = frozenset(
    {
        "text",
        "eol",
        "crlf",
        "whitespace",
        "delta",
        "export-ignore",
        "linguist-detectable",
        "linguist-documentation",
    }
)
"""Attributes that change neither what a diff shows nor the bytes a build reads."""

_PART = r"(?!\.)[^/]+"
_PLAIN = re.compile(
    "|".join(
        [
            rf"rfds/(?:{_PART}/)*{_PART}\.md",
            rf"docs/(?!assets/)(?:{_PART}/)*{_PART}\.md",
            rf"(?:rfds|docs)/(?:{_PART}/)*{_PART}\.(?:png|jpg|jpeg|gif|webp|avif)",
            rf"schema/{_PART}/source\.yaml",
            rf"schema/{_PART}/v[0-9]+\.json",
            rf"schema/examples/{_PART}/(?:valid|lenient|invalid)/{_PART}\.json",
        ]
    ),
    re.S,
)
INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
"""Characters Python counts as printable that show nothing: fillers, variation selectors."""
MAX_NAME = 300
"""Characters of a name shown; a longer one ends with an ellipsis."""
MAX_CHANGES = 1000
"""Changes listed; beyond them the summary says how many more (GitHub keeps 1 MiB a step)."""
TIMEOUT = 120


class GitError(Exception):
    """A git command failed: a commit that does not exist, a folder that is no repository."""


@dataclass(frozen=True)
class Change:
    """One entry of the raw diff: its status letter, modes and path (two for R and C)."""

    status: str
    old_mode: str
    new_mode: str
    new_blob: str
    paths: tuple[str, ...]

    @property
    def head_path(self) -> str | None:
        """The path in the head tree, None when the change deletes it."""
        return None if self.status == "D" else self.paths[-1]


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _git(
    args: Sequence[str], data: bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    """The standard output of a git command run in the current folder."""
    command = ["git", "-c", "core.quotePath=false", "-c", "core.attributesFile=", *args]
    try:
        done = subprocess.run(
            command, input=data, capture_output=True, timeout=TIMEOUT, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
        raise GitError(f"git {args[0]}: {message}")
    return done.stdout


def changes(base: str, head: str) -> list[Change]:
    """Every change from `base` to `head`, renames and copies found, submodules included."""
    raw = _git(["diff-tree", "-r", "-z", "-M", "-C", "--no-abbrev", "--raw", base, head, "--"])
    fields = raw.split(b"\0")
    out: list[Change] = []
    index = 0
    while index < len(fields) and fields[index].startswith(b":"):
        old_mode, new_mode, _old_blob, new_blob, status = _decode(fields[index][1:]).split(" ")
        count = 2 if status[:1] in ("R", "C") else 1
        paths = tuple(_decode(p) for p in fields[index + 1 : index + 1 + count])
        out.append(Change(status[:1], old_mode, new_mode, new_blob, paths))
        index += 1 + count
    return out


def _encode(path: str) -> bytes:
    return path.encode("utf-8", "surrogateescape")


def attributes(head: str, paths: Sequence[str]) -> dict[str, list[str]]:
    """The attributes of `paths` that are not harmless, read from `head`'s `.gitattributes`.

    The head tree is read into an index of its own (outside the checkout), so
    neither the work tree nor the repository's index decides.
    """
    if not paths:
        return {}
    found: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="acp-callout-") as scratch:
        env = {**os.environ, "GIT_INDEX_FILE": os.path.join(scratch, "index")}
        _git(["read-tree", head], env=env)
        data = b"".join(_encode(p) + b"\0" for p in paths)
        raw = _git(["check-attr", "--cached", "-z", "--stdin", "-a"], data=data, env=env)
    fields = raw.split(b"\0")
    for index in range(0, len(fields) - 2, 3):
        path, name, value = (_decode(f) for f in fields[index : index + 3])
        if name in HARMLESS_ATTRIBUTES:
            continue
        shown = {"set": name, "unset": f"-{name}"}.get(value, f"{name}={value}")
        found.setdefault(path, []).append(shown)
    return found


def links(head: str) -> dict[str, str]:
    """Each symbolic link of the head tree and where it points inside the checkout.

    A target that is absolute or leaves the checkout is left out: nothing in
    the checkout can change through it (and the `files` check refuses it).
    """
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", head])
    found: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        parts = meta.split(b" ")
        if len(parts) == 3 and parts[0] == b"120000":
            found.append((_decode(path), parts[2].decode("ascii")))
    targets = _blobs([blob for _, blob in found]) if found else {}
    out: dict[str, str] = {}
    for name, blob in found:
        target = targets[blob]
        if target.startswith("/"):
            continue
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        if resolved != ".." and not resolved.startswith("../"):
            out[name] = resolved
    return out


def _blobs(blobs: Sequence[str]) -> dict[str, str]:
    """The content of each blob, decoded as a name."""
    raw = _git(["cat-file", "--batch"], data="".join(f"{b}\n" for b in blobs).encode("ascii"))
    out: dict[str, str] = {}
    index = 0
    while index < len(raw):
        header_end = raw.index(b"\n", index)
        blob, _kind, size = raw[index:header_end].decode("ascii").split(" ")
        start = header_end + 1
        out[blob] = _decode(raw[start : start + int(size)])
        index = start + int(size) + 1
    return out


def link_target(head: str, blob: str) -> str:
    """Where a link of the head tree points, as written."""
    return _blobs([blob])[blob]


def shown_as_is(name: str) -> bool:
    """True when `name` holds nothing hidden: no escape is needed to show it."""
    return (
        not name.startswith(" ")
        and not name.endswith(" ")
        and all(char.isprintable() and char not in INVISIBLE for char in name)
    )


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return repr(char)[1:-1]
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with backslashes doubled and every hidden or reordering character escaped."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif not char.isprintable() or char in INVISIBLE:
            out.append(_escape(char))
        else:
            out.append(char)
    shown = "".join(out)
    stripped = shown.strip(" ")
    if stripped != shown:
        lead = len(shown) - len(shown.lstrip(" "))
        trail = len(shown) - len(shown.rstrip(" "))
        shown = "\\x20" * lead + stripped + "\\x20" * trail if stripped else "\\x20" * len(shown)
    return shown


def code_span(name: str) -> str:
    """`name` as an inline code span of Markdown that nothing in it can close or break."""
    cut = name[:MAX_NAME]
    shown = visible(cut)
    longest = max((len(run) for run in re.findall("`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    more = "\N{HORIZONTAL ELLIPSIS}" if len(name) > MAX_NAME else ""
    return f"{fence}{pad}{shown}{pad}{fence}{more}"


def _mode_reasons(change: Change) -> list[str]:
    reasons = []
    if change.new_mode not in (REGULAR, ABSENT):
        reasons.append(MODES.get(change.new_mode, f"mode {change.new_mode}"))
    if change.old_mode not in (REGULAR, ABSENT, change.new_mode):
        reasons.append("was " + MODES.get(change.old_mode, f"mode {change.old_mode}"))
    return reasons


def reasons(
    change: Change, attrs: dict[str, list[str]], linked: dict[str, list[str]], head: str
) -> list[str]:
    """Why `change` is called out; empty when it is plain content."""
    found = []
    if any(posixpath.basename(p) == ".gitattributes" for p in change.paths):
        found.append("git attributes: they can hide a diff or change files on checkout")
    elif not all(_PLAIN.fullmatch(p) for p in change.paths):
        found.append("not plain content")
    elif not all(shown_as_is(p) for p in change.paths):
        found.append("a name that is not UTF-8 or holds characters shown escaped")
    found += _mode_reasons(change)
    if change.new_mode == "120000":
        found.append("points at " + code_span(link_target(head, change.new_blob)))
    path = change.head_path
    if path is not None and path in attrs:
        found.append("git attributes " + ", ".join(code_span(a) for a in attrs[path]))
    for link in sorted(linked.get(path or "", ())):
        found.append("reached through the link " + code_span(link))
    return found


def _linked(paths: Sequence[str], targets: dict[str, str]) -> dict[str, list[str]]:
    """For each path, the links that point at it or at a folder above it."""
    by_target: dict[str, list[str]] = {}
    for link, target in targets.items():
        by_target.setdefault(target, []).append(link)
    out: dict[str, list[str]] = {}
    for path in paths:
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            for link in by_target.get("/".join(parts[:depth]), ()):
                if link != path:
                    out.setdefault(path, []).append(link)
    return out


def summary(base: str, head: str) -> str:
    """The Markdown of the call-out, or "" when every change is plain content."""
    found = changes(base, head)
    in_head = [c.head_path for c in found if c.head_path is not None]
    attrs = attributes(head, in_head)
    linked = _linked(in_head, links(head)) if in_head else {}
    items = []
    for change in sorted(found, key=lambda c: [_encode(p) for p in c.paths]):
        why = reasons(change, attrs, linked, head)
        if why:
            names = " \N{RIGHTWARDS ARROW} ".join(code_span(p) for p in change.paths)
            items.append(
                f"- **{STATUSES.get(change.status, change.status)}** {names}: " + "; ".join(why)
            )
    if not items:
        return ""
    lines = [
        "### Changes to read before trusting the checks",
        "",
        "These changes are not plain content (Markdown of RFDs and docs, images, schema"
        " sources and fragments, fixtures), or are links, mode changes or git attributes"
        " that can hide a diff. Tools, configuration and files published as they are can"
        " run code in CI or in a reader's browser: read them before trusting the result.",
        "",
        *items[:MAX_CHANGES],
    ]
    if len(items) > MAX_CHANGES:
        lines += ["", f"{len(items) - MAX_CHANGES} more change(s): run this program locally."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the call-out of `--base`..`--head`: 0 (printed or nothing to say), 2 on errors."""
    parser = argparse.ArgumentParser(prog="callout.py", description=__doc__.split("\n")[0])
    parser.add_argument("--base", required=True, help="the commit the pull request is based on")
    parser.add_argument("--head", default="HEAD", help="the commit to review (default: HEAD)")
    args = parser.parse_args(argv)
    for name in ("base", "head"):
        value = getattr(args, name)
        if not value or value.startswith("-") or not shown_as_is(value):
            print(
                f"callout.py: error: --{name} {visible(value)!s} is not a commit", file=sys.stderr
            )
            return 2
    try:
        text = summary(args.base, args.head)
    except GitError as exc:
        print(f"callout.py: error: {visible(str(exc))}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
