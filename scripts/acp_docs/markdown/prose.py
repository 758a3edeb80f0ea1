"""Where a word of the prose stands in the Markdown source, and what of a page is generated.

pyspelling's filters read the words of a rendered page (`acp_docs.checks.pyspelling_run`);
`without_generated` first takes out what the build generated (between
`<!-- acp-docs:generated -->` and `<!-- acp-docs:end -->`). `places` finds the
first line and column of each word in the Markdown source, outside front
matter and code, in one pass.
"""

from __future__ import annotations

import re

from acp_docs.core.escaping import code_spans
from acp_docs.markdown.fences import code_lines, fence_title, front_matter_end

_GENERATED, _END = "generated", "end"
GENERATED_OPEN = f"<!-- acp-docs:{_GENERATED} -->"
GENERATED_CLOSE = f"<!-- acp-docs:{_END} -->"

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
_URL = re.compile(r"(?:https?://|mailto:|www\.)\S+|\S+@\S+\.\w+")


def without_generated(html: str) -> str:
    """A rendered page without what the build generated (the RFD header, marker sections):
    its prose is spelled where it is written (front matter, the RFDs), not on each page.

    One pass; an opening mark without its end hides the rest of the page.
    """
    out = []
    at = 0
    while (start := html.find(GENERATED_OPEN, at)) >= 0:
        out.append(html[at:start])
        end = html.find(GENERATED_CLOSE, start)
        if end < 0:
            return "".join(out)
        out.append(" ")
        at = end + len(GENERATED_CLOSE)
    out.append(html[at:])
    return "".join(out)


def places(source: str, wanted: set[str]) -> dict[str, tuple[int, int]]:
    """The first (line, column) of each wanted word in the Markdown prose of `source`.

    Front matter, fenced code, inline code and URLs are passed over first; a
    word seen nowhere else is then looked for in the titles of fenced blocks,
    which the page shows. A word that only the rendering shows is not placed.
    """
    lines = source.split("\n")
    hidden = set(range(1, front_matter_end(lines) + 1)) | code_lines(source)
    found: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(lines, start=1):
        if number in hidden or len(found) == len(wanted):
            continue
        visible = list(line)
        for start, end in code_spans(line):
            visible[start:end] = " " * (end - start)
        masked = _URL.sub(lambda m: " " * len(m.group(0)), "".join(visible))
        for match in _WORD.finditer(masked):
            word = match.group(0)
            if word in wanted and word not in found:
                found[word] = (number, match.start() + 1)
    for number, line in enumerate(lines, start=1):
        if len(found) == len(wanted):
            break
        if "title" not in line or fence_title(line) is None:
            continue  # only the opening line of a titled block shows prose
        for match in _WORD.finditer(line):
            word = match.group(0)
            if word in wanted and word not in found:
                found[word] = (number, match.start() + 1)
    return found
