"""`acp-docs new`: an RFD from the template, with its front matter, listed under Draft.

The template's sections and prompts are kept; the front matter, the title and
the first revision are filled in. The nav entry is inserted as text, so the
comments and layout of mkdocs.yml stay as they are, and the result is read
back: when the entry does not land under RFDs > Draft, nothing is written.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from acp_docs.config.repo import CONFIG_NAME, Repo
from acp_docs.core import protocols, runner
from acp_docs.core.errors import UsageError
from acp_docs.markdown.blocks import front_matter_end, headings
from acp_docs.policy import titles
from acp_docs.rfds.model import (
    HISTORY,
    NAV_SECTION,
    SECTIONS,
    STATUSES,
    TEMPLATE_NAME,
    nav_group,
    required_sections,
)
from acp_docs.sources.textfile import read_text, write_atomic
from acp_docs.sources.yamlfile import load as load_yaml

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+){0,15}$")
HANDLE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")
RESERVED = frozenset({"template", "index", "examples", *STATUSES, "process", *protocols.folders()})
"""Slugs that would collide with a page under docs/rfds/ or a folder under schema/."""
DRAFT = STATUSES["draft"]
_DATED = re.compile(r"^(\s*[-*]\s+\**)\d{4}-\d{2}-\d{2}", re.M)


def _check_slug(repo: Repo, slug: str) -> None:
    if len(slug) > 64 or not SLUG.fullmatch(slug):
        raise UsageError(
            f"{slug[:80]!r} is not a kebab-case slug of at most 64 characters (like session-labels)"
        )
    if slug in RESERVED:
        raise UsageError(f"{slug!r} is reserved: the site already uses that name")
    for taken in (
        repo.rfds_dir / f"{slug}.md",
        *(repo.rfds_dir / folder / f"{slug}.md" for folder in protocols.folders()),
        repo.docs_dir / "rfds" / f"{slug}.md",
    ):
        if taken.exists() or taken.is_symlink():
            raise UsageError(f"{repo.relative(taken)} already exists: pick another slug")


def _check_title(title: str) -> str:
    title = title.strip()
    if not 3 <= len(title) <= 120 or any(ord(c) < 32 or ord(c) == 127 for c in title):
        raise UsageError("--title must be one line of 3 to 120 characters")
    odd = next((c for c in title if not titles.allowed(c)), None)
    if odd is not None:
        raise UsageError(
            f"--title holds {titles.describe(odd)}: a title is printable ASCII and typographic"
            " quotes, dashes and the ellipsis (docs/tooling/checks.md#rfds)"
        )
    if "<" in title or ">" in title:
        raise UsageError("--title must not hold < or >: it is shown as text, not HTML")
    return title


def _authors(repo: Repo, given: list[str] | None) -> list[str]:
    authors = given
    if not authors:
        try:
            found = runner.run(
                "git",
                ["git", "config", "github.user"],
                cwd=repo.root,
                fix="pass --author HANDLE",
                timeout=10,
                ok=(0, 1),
            )
        except runner.ToolFailure:
            found = None
        authors = [found.stdout.strip()] if found and found.stdout.strip() else []
    if not authors:
        raise UsageError("no author: pass --author HANDLE (or set `git config github.user`)")
    for handle in authors:
        if not HANDLE.match(handle):
            raise UsageError(f"--author {handle!r} is not a GitHub handle")
    return list(dict.fromkeys(authors))


def _front_matter(title: str, authors: list[str], discussion: str, today: str) -> str:
    lines = ["---", f"title: {json.dumps(title, ensure_ascii=False)}", "status: draft", "authors:"]
    lines += [f"  - {handle}" for handle in authors]
    lines += ['champion: ""', f"created: {today}", f"discussion: {json.dumps(discussion)}", "---"]
    return "\n".join(lines) + "\n"


def without_optional_sections(body: str) -> str:
    """`body` without the template sections a Draft may leave out (the revision history stays)."""
    keep = {*required_sections("draft"), HISTORY}
    lines = body.split("\n")
    h2 = [h for h in headings(body) if h.level == 2]
    dropped: set[int] = set()
    for index, head in enumerate(h2):
        if head.text in SECTIONS and head.text not in keep:
            end = h2[index + 1].line - 1 if index + 1 < len(h2) else len(lines)
            dropped.update(range(head.line - 1, end))
    return "\n".join(line for number, line in enumerate(lines) if number not in dropped)


def render(template: str, title: str, authors: list[str], today: str, minimal: bool = False) -> str:
    """The new RFD's text from the template's; `minimal` leaves out the optional sections."""
    lines = template.split("\n")
    end = front_matter_end(lines)
    if end == 0:
        raise UsageError(f"rfds/{TEMPLATE_NAME}: the template has no front matter")
    meta = load_yaml("\n".join(lines[1 : end - 1]), f"rfds/{TEMPLATE_NAME}", 2)
    discussion = meta.get("discussion") if isinstance(meta, dict) else None
    if not isinstance(discussion, str):
        raise UsageError(f"rfds/{TEMPLATE_NAME}: the template's front matter has no discussion")
    body = "\n".join(lines[end:])
    body = re.sub(r"^# .*$", lambda _m: f"# {title}", body, count=1, flags=re.M)
    body = _DATED.sub(lambda m: f"{m.group(1)}{today}", body, count=1)
    if minimal:
        body = without_optional_sections(body)
    return _front_matter(title, authors, discussion, today) + body


def _find_group(lines: list[str], name: str, start: int, stop: int, base: int | None) -> int | None:
    """The line of `- NAME:` among the items between `start` and `stop` deeper than `base`."""
    for index in range(start, stop):
        line = lines[index]
        indent = len(line) - len(line.lstrip())
        if base is not None and line.strip() and indent <= base:
            return None
        if re.match(rf"^\s*- {re.escape(name)}:\s*$", line):
            return index
    return None


def _group_end(lines: list[str], group: int) -> tuple[int, int]:
    """The last line of a group's items, and the indent of its items."""
    indent_of_group = len(lines[group]) - len(lines[group].lstrip())
    last, item_indent = group, indent_of_group + 4
    for index in range(group + 1, len(lines)):
        line = lines[index]
        indent = len(line) - len(line.lstrip())
        if line.strip() and indent <= indent_of_group:
            break
        if line.strip():
            if last == group:
                item_indent = indent
            last = index
    return last, item_indent


def _nav_insertion(config_text: str, title: str, page: str, folder: str | None = None) -> str:
    """mkdocs.yml with `title: page` appended to RFDs > Draft (> `folder`, made when missing)."""
    lines = config_text.split("\n")
    section = _find_group(lines, NAV_SECTION, 0, len(lines), None)
    if section is None:
        raise UsageError(f"{CONFIG_NAME}: no `- {NAV_SECTION}:` section in the nav")
    base = len(lines[section]) - len(lines[section].lstrip())
    draft = _find_group(lines, DRAFT, section + 1, len(lines), base)
    if draft is None:
        raise UsageError(f"{CONFIG_NAME}: no `- {DRAFT}:` group under {NAV_SECTION} in the nav")
    group = draft
    if folder:
        last, item_indent = _group_end(lines, draft)
        found = _find_group(
            lines, folder, draft + 1, last + 1, len(lines[draft]) - len(lines[draft].lstrip())
        )
        if found is None:
            lines = [*lines[: last + 1], f"{' ' * item_indent}- {folder}:", *lines[last + 1 :]]
            found = last + 1
        group = found
    last, item_indent = _group_end(lines, group)
    if last == group:
        item_indent = len(lines[group]) - len(lines[group].lstrip()) + 4
    entry = f"{' ' * item_indent}- {json.dumps(title, ensure_ascii=False)}: {page}"
    return "\n".join([*lines[: last + 1], entry, *lines[last + 1 :]])


def new_rfd(
    repo: Repo,
    slug: str,
    title: str,
    authors: list[str] | None,
    minimal: bool = False,
    folder: str | None = None,
) -> list[Path]:
    """Write `rfds/<slug>.md` (`rfds/<folder>/<slug>.md` for an RFD of the version whose
    `rfds_folder` that is) and its nav entry.

    `minimal`: only the sections a Draft needs (see `rfds.required_sections`).
    Returns the files written.
    """
    _check_slug(repo, slug)
    title = _check_title(title)
    handles = _authors(repo, authors)
    template = read_text(repo.rfds_dir / TEMPLATE_NAME, f"rfds/{TEMPLATE_NAME}")
    text = render(template, title, handles, dt.date.today().isoformat(), minimal)
    target = f"rfds/{folder}/{slug}.md" if folder else f"rfds/{slug}.md"
    config_text = _nav_insertion(repo.config_text, title, target, folder)
    check = Repo.parse(repo.root, config_text)
    placed = [e for e in check.nav() if e.file == target]
    expected = nav_group(DRAFT, folder)
    if len(placed) != 1 or placed[0].sections != expected:
        raise UsageError(
            f"{CONFIG_NAME}: could not place {target} under {' > '.join(expected)}; add it by hand"
        )
    rfd_path = repo.root / target
    if folder:
        place = repo.rfds_dir / folder
        if place.is_symlink() or (place.exists() and not place.is_dir()):
            raise UsageError(f"rfds/{folder} is not a folder of the checkout")
        place.mkdir(exist_ok=True)
    write_atomic(rfd_path, text)
    try:
        write_atomic(repo.root / CONFIG_NAME, config_text)
    except BaseException:
        rfd_path.unlink()
        raise
    return [rfd_path, repo.root / CONFIG_NAME]
