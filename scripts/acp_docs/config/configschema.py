"""What `mkdocs.yml` and a docs page's front matter may hold: allowlists, as data.

`CONFIG_SCHEMA` (`config.schema.json`) is a JSON Schema (draft 2020-12) of every
key this site may set in `mkdocs.yml`, with the type and the pattern of each
value; `PAGE_SCHEMA` (`page.schema.json`) is the one of a docs page's front
matter. Both are closed: a key they do not list is an error. A subschema's
`description` says in plain words what the value must be; the messages quote
it. The lists the tests and messages need (extensions, plugins, Material's
features, colours and languages) are read from the schemas, so they cannot
drift from them.

One keyword is not JSON Schema's own: `pythonName` lists the names a
`!!python/name:` tag may give at that place (`acp_docs.config.mkdocsconfig`
validates it). `PYTHON_NAMES` is every name the tag may give, each with why;
a schema that names any other is refused when this module loads.

Material for MkDocs 9.8.1 prints configuration values and page metadata into
attributes, inline scripts and template paths without escaping them, so a
value that is printed is held to a pattern that cannot leave its place:
plain text, a name from a list, or a relative path inside `docs/`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

ENV_PREFIX = "ACP_DOCS_"
ENV_PLACES = frozenset({"/site_url"})
"""Where `!ENV` may stand (with `ACP_DOCS_*` variables only)."""

PYTHON_NAMES: dict[str, str] = {
    "pymdownx.superfences.fence_code_format": (
        "formats a custom fence as <pre><code> with its text escaped"
    ),
    "pymdownx.superfences.fence_div_format": (
        "formats a custom fence as a <div> with its text escaped"
    ),
    "pymdownx.superfences.default_validator": (
        "accepts a custom fence's options as superfences does by default"
    ),
    "pymdownx.superfences.highlight_validator": (
        "accepts a custom fence's highlighting options (hl_lines, linenums)"
    ),
    "markdown.extensions.toc.slugify": (
        "Python-Markdown's own heading slugs (the default of toc and tabbed)"
    ),
    "markdown.extensions.toc.slugify_unicode": (
        "Python-Markdown's heading slugs that keep non-ASCII letters"
    ),
}
"""Every dotted name `!!python/name:` may give, and why it is safe: each is a
pure function of its arguments that writes nothing and reads no file."""


def _schema(name: str) -> dict[str, Any]:
    """A schema shipped beside this module, its `pythonName` names checked against the allowlist."""
    schema = json.loads(files(__package__).joinpath(name).read_text(encoding="utf-8"))
    unknown = sorted(set(_python_names(schema)) - set(PYTHON_NAMES))
    if unknown:
        raise RuntimeError(
            f"acp_docs/config/{name}: pythonName {', '.join(unknown)} is not in PYTHON_NAMES"
        )
    return schema


def _python_names(node: Any) -> Iterator[str]:
    """Every name a `pythonName` keyword of `node` lists, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pythonName" and isinstance(value, list):
                yield from (str(name) for name in value)
            else:
                yield from _python_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _python_names(item)


CONFIG_SCHEMA: dict[str, Any] = _schema("config.schema.json")
"""What `mkdocs.yml` may hold (its `$comment` says what is left out, and why)."""

PAGE_SCHEMA: dict[str, Any] = _schema("page.schema.json")
"""What a docs page's front matter may hold (its `$comment` says what is left out, and why)."""

_CONFIG = CONFIG_SCHEMA["properties"]
_THEME = _CONFIG["theme"]["properties"]
_PALETTE = _THEME["palette"]["items"]["properties"]

_NAMED = "else"  # a list entry that is not a bare name: a mapping of one name to its options
EXTENSIONS: dict[str, dict[str, Any]] = _CONFIG["markdown_extensions"]["items"][_NAMED][
    "properties"
]
"""Each Markdown extension the site may use, with the options it may take."""
PLUGINS: dict[str, dict[str, Any]] = _CONFIG["plugins"]["items"][_NAMED]["properties"]
"""The plugins the site may use, with the options each may take."""
MATERIAL_FEATURES: list[str] = _THEME["features"]["items"]["enum"]
"""Material's features, but `content.action.*` (they need `repo_url`, which is not allowed)."""
MATERIAL_PRIMARY: list[str] = _PALETTE["primary"]["enum"]
MATERIAL_ACCENT: list[str] = _PALETTE["accent"]["enum"]
MATERIAL_LANGUAGES: list[str] = _THEME["language"]["enum"]
"""Material's languages (its `partials/languages/*.html`): the name is a template path."""
SEARCH_LANGUAGES: list[str] = PLUGINS["search"]["properties"]["lang"]["then"]["enum"]
"""The languages Material's search has lunr stemmers for (`lunr/min/lunr.<lang>.min.js`)."""
LOG_LEVELS: list[str] = _CONFIG["validation"]["properties"]["nav"]["properties"]["not_found"][
    "enum"
]

WHY_NOT: dict[str, str] = {
    "hooks": "hooks run Python files during the build",
    "INHERIT": "INHERIT reads another file as configuration",
    "custom_dir": "templates are code (Jinja can call Python); the site uses the theme's own",
    "extra_templates": "extra_templates are rendered as Jinja templates, which can call Python",
    "static_templates": "static_templates are rendered as Jinja templates, which can call Python",
    "repo_url": "with it Material asks the GitHub API from every reader's browser",
    "mdx_configs": "give an extension's options beside its name in markdown_extensions",
    "pymdownx.snippets": "it reads files by path; an RFD stands alone",
    "pymdownx.b64": "it reads files by path; an RFD stands alone",
    "jieba_dict": "it reads a file by path",
    "jieba_dict_user": "it reads a file by path",
    "privacy": "it fetches from the network",
    "social": "it fetches from the network and writes files",
    "optimize": "it runs other programs",
    "offline": "it writes files into the site",
    "tags": "it can export files",
    "blog": "it reads and writes files the checks do not",
    "meta": "it reads files the checks do not",
    "analytics": "Material prints it into an inline script",
    "consent": "Material prints it into an inline script",
}
"""Why some well-known keys and names are not on the allowlists, for the messages."""
