"""Repairs to the pages Material for MkDocs writes: offline, named, focusable.

Each repair rewrites one exact piece of the theme's markup, written for the
templates of one Material release (`PINNED`, `PATCH`: the theme's partials
the pieces come from). When those templates change, the plugin does not
repair and warns (`acp_docs.patches.pin`); when a required piece is still not
found in a page, `apply` says which, so the build fails instead of quietly
losing the repair.

- The repository link loses `data-md-component="source"`: with it, Material's
  script asks api.github.com for stars and the latest release on every first
  visit, which sends every reader's address to a third party and fails offline.
- The search dialog gets a name (axe-core: aria-dialog-name).
- The footer's Previous and Next labels are unescaped once: the theme escapes
  page titles the plugin has already escaped (label-content-name-mismatch).

Material wraps tables in a scrolling box only in the browser; `acp-site.js`
makes that box focusable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from acp_docs.patches.pin import Patch, Target

PINNED = {"mkdocs-material": "9.8.1"}


def _partial(name: str) -> Target:
    def find() -> str:
        return (
            resources.files("material")
            .joinpath("templates", "partials", name)
            .read_text(encoding="utf-8")
        )

    return Target(f"material/templates/partials/{name}", find, _PINS[name])


_PINS = {
    "source.html": "6847616d67be4920d39c278c2799bf20222bbc02ee2a8393aca85e3eaa518752",
    "search.html": "bfd556535abcddb99396ab2a7e3acc2ebcd3f36756007d3969396caa4126be30",
    "footer.html": "50c2a75f013b7b03fb97f381860c77df8fd5d13d68f90d3281754b68f69ec894",
}
"""The SHA-256 of each template whose markup a repair rewrites."""

PATCH = Patch("themefix", __name__, PINNED, tuple(_partial(name) for name in _PINS))


@dataclass(frozen=True)
class Repair:
    """One rewrite: `pattern` in the theme's output, replaced by `replacement`."""

    name: str
    pattern: re.Pattern[str]
    replacement: str
    required: bool


REPAIRS = (
    Repair(
        "repository facts from api.github.com",
        re.compile(r'(<a href="[^"]*" title="[^"]*" class="md-source") data-md-component="source"'),
        r"\1",
        False,
    ),
    Repair(
        "the search dialog's name",
        re.compile(r'(<div class="md-search" data-md-component="search" role="dialog")>'),
        r'\1 aria-label="Search">',
        True,
    ),
)


_FOOTER_LABEL = re.compile(
    r'(class="md-footer__link md-footer__link--(?:prev|next)" aria-label=")([^"]*)"'
)


def _unescape_once(match: re.Match[str]) -> str:
    return f'{match[1]}{match[2].replace("&amp;", "&")}"'


def apply(output: str) -> tuple[str, list[str]]:
    """The repaired page, and the names of required repairs whose markup was not found."""
    output = _FOOTER_LABEL.sub(_unescape_once, output)
    missing = []
    for repair in REPAIRS:
        output, count = repair.pattern.subn(repair.replacement, output)
        if repair.required and count == 0:
            missing.append(repair.name)
    return output, missing
