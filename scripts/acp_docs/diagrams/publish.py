"""One diagram from its text to the SVG a page publishes, through the cache and the allowlists.

`Publisher.publish` checks the diagram's text (its size, no directive, its
kind, its text alternative), then takes its drawing from the cache or has the Chromium
renderer draw it, moves its styles into the site's diagram style sheet
(`styles`) and holds the drawing and the rules to the SVG and CSS allowlists
(`acp_docs.policy`). What comes out is a figure to publish, or none (the
page then shows the diagram's text as code), and the problems, each at the
line of the page it concerns.

The cache (`cache_dir("diagrams")`) is keyed by the diagram's text and by
everything that draws it: the pinned Mermaid's bytes and this package's
code. A build whose diagrams are all in it starts no browser. Mermaid's
refusals are kept too (the same text is refused again); a missing Chromium or
a timeout is not.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from acp_docs.core import cachedir, memo
from acp_docs.diagrams import render, styles, theme
from acp_docs.policy import css as csspolicy
from acp_docs.policy import svg as svgpolicy

STYLESHEET = "assets/acp-diagrams.css"
"""The site's diagram style sheet, written by the build (not a file of docs/)."""
KINDS = ("sequenceDiagram", "flowchart", "graph")
"""The kinds of diagram drawn: those whose SVG the allowlist was written for."""
_ACC_TITLE = re.compile(r"^[ \t]*accTitle[ \t]*:[ \t]*\S", re.MULTILINE)
_ACC_DESCR = re.compile(r"^[ \t]*accDescr[ \t]*(?::[ \t]*\S|\{)", re.MULTILINE)
_KEPT = 512
_SETTING = re.compile(r"^[ \t]*config[ \t]*:", re.MULTILINE)
"""Where front matter sets Mermaid's configuration."""


@dataclass(frozen=True)
class Problem:
    """A problem of one diagram: the line of the page, its rule, the message."""

    line: int
    rule: str
    message: str


@dataclass
class Outcome:
    """What a page gets for one diagram: the figure (None: show the text as code), problems."""

    figure: str | None
    problems: list[Problem] = field(default_factory=list)
    ident: str = ""


def diagram_id(text: str) -> str:
    """The drawing's id, from its text: the same diagram is the same drawing."""
    return "acp-d-" + hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


def _kind(text: str) -> str:
    """The diagram's kind: its first word after Mermaid's front matter and `%%` lines."""
    lines = text.split("\n")
    index = 0
    if lines and lines[0].strip() == "---":
        index = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    for line in lines[index:]:
        stripped = line.strip()
        if stripped and not stripped.startswith("%%"):
            return stripped.split()[0].split("-")[0]
    return ""


STYLING = frozenset({"style", "classdef", "class", "linkstyle", "rect", "box"})
"""Mermaid statements that set a diagram's colors or styles (sequence diagrams' `rect` and
`box` take a color): configuration, which a page may not carry."""


def _styling(text: str) -> tuple[int, str] | None:
    """The line (1-based, of the diagram) and word of the first statement that styles the
    diagram, or None. Read over-widely on purpose, so that no reading of Mermaid's can
    find a statement this one misses: every `;`-separated part of every line, comments
    and quoted labels included (`%%` in a label is no comment to Mermaid), any case, and
    `:::` (a class given to a node) anywhere."""
    for number, line in enumerate(text.split("\n"), start=1):
        if ":::" in line:
            return number, ":::"
        for statement in re.split(r";|%%", line):
            words = statement.split()
            if words and words[0].lower() in STYLING:
                return number, words[0]
    return None


class Publisher:
    """Publishes the diagrams of one build; holds their style rules for the style sheet."""

    def __init__(self, root: Path) -> None:
        self.renderer = render.Renderer(root)
        self.rules: dict[str, str] = {}
        """Each published drawing's rules, by its id."""
        mermaid = root / render.MERMAID_JS
        code = [*sorted(Path(__file__).parent.glob("*.py")), Path(svgpolicy.__file__)]
        self._key = memo.digest_of([mermaid, *code], root)

    def publish(self, text: str, fence_line: int) -> Outcome:
        """The figure of the diagram `text`, whose fence opens at the page's line `fence_line`."""
        found: list[Problem] = []
        if len(text) > theme.MAX_TEXT:
            message = (
                f"the diagram holds {len(text):,} characters, more than the {theme.MAX_TEXT:,}"
                " one may hold: it is not drawn"
            )
            return Outcome(None, [Problem(fence_line, "diagrams/too-large", message)])
        directive = text.find("%%{")
        if directive >= 0:
            message = (
                "the diagram holds a Mermaid directive (`%%{...}%%`), which would set how it is"
                " drawn: the site fixes Mermaid's configuration, so it is not drawn; remove it"
            )
            line = fence_line + 1 + text.count("\n", 0, directive)
            return Outcome(None, [Problem(line, "diagrams/config", message)])
        styled = _styling(text)
        if styled is not None:
            at, word = styled
            message = (
                f"the diagram sets its own colors or styles (`{word}`): the site's palette styles"
                " every diagram, in light and dark, so it is not drawn; remove the statement"
            )
            return Outcome(None, [Problem(fence_line + at, "diagrams/config", message)])
        kind = _kind(text)
        if kind not in KINDS:
            message = (
                f"a {kind or 'blank'!r} diagram is not drawn: the site draws"
                f" {', '.join(KINDS)} diagrams only"
            )
            return Outcome(None, [Problem(fence_line, "diagrams/not-allowed", message)])
        if not (_ACC_TITLE.search(text) and _ACC_DESCR.search(text)):
            message = (
                "the diagram has no text alternative for screen readers: give it an `accTitle:`"
                " line and an `accDescr:` line saying what it shows"
            )
            found.append(Problem(fence_line, "diagrams/text-alternative", message))
        ident = diagram_id(text)
        drawn = self._drawn(text, ident)
        if isinstance(drawn, render.Failure):
            line = fence_line + drawn.line if drawn.line else fence_line
            rule = drawn.rule if drawn.lasting else "diagrams/unavailable"
            if rule == "diagrams/config" and (setting := _SETTING.search(text)):
                line = fence_line + 1 + text.count("\n", 0, setting.start())
            found.append(Problem(line, rule, _one_line(drawn.message)))
            return Outcome(None, found)
        try:
            made = styles.extract(drawn.svg, ident)
        except styles.Refused as exc:
            found.append(Problem(fence_line, "diagrams/not-allowed", f"not published: {exc}"))
            return Outcome(None, found)
        refused = [p.message for p in svgpolicy.problems(made.svg.encode("utf-8"))]
        refused += [p.message for p in csspolicy.sheet_problems(made.css, STYLESHEET)]
        if refused:
            message = f"the drawing is not published: {refused[0]}"
            found.append(Problem(fence_line, "diagrams/not-allowed", message))
            return Outcome(None, found)
        self.rules[ident] = made.css
        # A figure narrower than its drawing scrolls: keyboard users reach it too, by its name.
        named = re.search(r'<svg[^>]* aria-labelledby="([^"]+)"', made.svg)
        label = f' aria-labelledby="{named.group(1)}"' if named else ""
        figure = f'<figure class="acp-diagram" tabindex="0" role="group"{label}>{made.svg}</figure>'
        return Outcome(figure, found, ident)

    def _drawn(self, text: str, ident: str) -> render.Drawn | render.Failure:
        key = hashlib.blake2b(f"{self._key}\0{text}".encode(), digest_size=20).hexdigest()
        folder = cachedir.cache_dir("diagrams")
        entry = folder.read_json(f"{key}.json") if folder is not None else None
        if isinstance(entry, dict) and isinstance(entry.get("svg"), str):
            return render.Drawn(entry["svg"])
        if isinstance(entry, dict) and isinstance(entry.get("error"), str):
            line, rule = entry.get("line"), entry.get("rule")
            rule = rule if rule in render.LASTING_RULES else "diagrams/syntax"
            return render.Failure(
                entry["error"], line if isinstance(line, int) else None, True, rule
            )
        drawn = self.renderer.draw(ident, text)
        if folder is not None and (isinstance(drawn, render.Drawn) or drawn.lasting):
            kept: dict[str, str | int | None] = (
                {"svg": drawn.svg}
                if isinstance(drawn, render.Drawn)
                else {"error": drawn.message, "line": drawn.line, "rule": drawn.rule}
            )
            folder.write_json(f"{key}.json", kept)
            folder.keep_latest(_KEPT, ".json")
        return drawn

    def stylesheet(self) -> str:
        """The site's diagram style sheet: the rules of every drawing published."""
        return self.empty_stylesheet() + "".join(self.rules[i] for i in sorted(self.rules))

    @staticmethod
    def empty_stylesheet() -> str:
        """The style sheet's rules for the figure, which every drawing's rules follow."""
        return (
            "/* Generated by acp-docs (acp_docs.diagrams) from the site's Mermaid diagrams;"
            " do not edit. */\n"
            ".acp-diagram{margin:1em 0;overflow-x:auto;text-align:center}\n"
            ".acp-diagram svg{display:inline-block;height:auto}\n"
        )

    def close(self) -> None:
        """Stop the renderer's browser, if it started one."""
        self.renderer.close()


def _one_line(message: str) -> str:
    """Mermaid's message without its drawing of the line: the first and last lines."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) <= 2:
        return " ".join(lines)
    return f"{lines[0]} {lines[-1]}"
