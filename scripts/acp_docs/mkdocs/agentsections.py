"""The sections of `llms.txt`, from the navigation: each page with its one-line description.

mkdocs-llmstxt (the `llmstxt` plugin) writes `llms.txt`, `llms-full.txt` and
each page's Markdown beside its HTML for the pages its `sections` name.
`mkdocs.yml` gives it none (`sections: {}`, vetted by the configuration
check): `fill` names every page of the navigation, in its order, grouped as
the navigation groups them (`RFDs: Draft`, `Protocol`, `Tooling: API
reference`), before the plugin reads them in its own `on_files`.

A page's description is its front matter's `description`, or else the first
paragraph of its prose, as plain text on one line, with every character that
Markdown would read as markup escaped.
"""

from __future__ import annotations

import re
from typing import Any

from mkdocs.structure.files import Files
from mkdocs.utils.meta import get_data

PLUGIN = "llmstxt"
"""The plugin's name in `mkdocs.yml`."""
LONGEST = 200
"""Characters of a description at most; a longer one is cut at a word and ends with `…`."""

_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_MARKUP = re.compile(r"[\\`*_{}\[\]()<>#+!|~&]")
_SKIP = ("#", ">", "!!!", "???", "===", "///", "<", "```", "~~~", ":::", "|", "- ", "* ", "+ ")
_NUMBERED = re.compile(r"\d+[.)]\s")


def _pages(items: Any, trail: tuple[str, ...]) -> list[tuple[tuple[str, ...], str]]:
    """Each page of a nav list with the titles of the groups that hold it, in order."""
    found: list[tuple[tuple[str, ...], str]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            found.append((trail, item))
        elif isinstance(item, dict) and len(item) == 1:
            ((title, value),) = item.items()
            if isinstance(value, str):
                found.append((trail if trail else (str(title),), value))
            elif isinstance(value, list):
                found += _pages(value, (*trail, str(title)))
    return found


def describe(markdown: str) -> str:
    """The page's one-line description, Markdown-escaped: front matter, or its first paragraph."""
    try:
        body, meta = get_data(markdown)
    except Exception:  # a front matter MkDocs cannot read: the page's own check says so
        body, meta = markdown, {}
    text = meta.get("description") if isinstance(meta, dict) else None
    if not isinstance(text, str) or not text.strip():
        text = _first_paragraph(body)
    text = " ".join(_LINK.sub(r"\1", text).replace("`", "").split())
    if len(text) > LONGEST:
        text = text[:LONGEST].rsplit(" ", 1)[0] + "…"
    return _MARKUP.sub(lambda m: "\\" + m.group(0), text)


def _first_paragraph(body: str) -> str:
    """The first block of plain prose: not a heading, quote, list, fence, table or marker."""
    fenced = False
    block: list[str] = []
    for line in [*body.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced, block = not fenced, []
            continue
        if fenced:
            continue
        if stripped:
            block.append(line)
            continue
        first = block[0] if block else ""
        lead = first.strip()
        if (
            lead
            and first[:1] not in " \t"
            and not lead.startswith(_SKIP)
            and not _NUMBERED.match(lead)
        ):
            return " ".join(part.strip() for part in block)
        block = []
    return ""


def sections(nav: Any, files: Files) -> dict[str, list[dict[str, str]]]:
    """The plugin's `sections`: a section per group of the navigation, each page described."""
    out: dict[str, list[dict[str, str]]] = {}
    for trail, src_uri in _pages(nav, ()):
        file = files.get_file_from_path(src_uri)
        if file is None or not file.is_documentation_page():
            continue
        try:
            description = describe(file.content_string)
        except (OSError, UnicodeDecodeError):
            description = ""
        name = ": ".join(trail) if trail else "Home"
        out.setdefault(name, []).append({src_uri: description})
    return out


def fill(config: Any, files: Files) -> None:
    """Give the `llmstxt` plugin, when it is enabled, the sections of this build's navigation.

    Listed after `acp-docs` in `mkdocs.yml`, it reads them in its own `on_files`, which
    runs next; listed before, it has read them already, so it is asked to read them again.
    """
    plugin = config["plugins"].get(PLUGIN)
    if plugin is None:
        return
    plugin.config.sections = sections(config.get("nav"), files)
    names = list(config["plugins"])
    if names.index(PLUGIN) < names.index("acp-docs"):
        plugin.on_files(files, config=config)
