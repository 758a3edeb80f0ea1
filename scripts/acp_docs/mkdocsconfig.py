"""mkdocs.yml is data: what in it would run code or read past the checkout is refused.

MkDocs reads mkdocs.yml with PyYAML's full loader and imports what it names,
so a pull request that only edits mkdocs.yml could run code during a check.
acp-docs reads the file first, with a safe loader (`acp_docs.repo`), and
refuses, at its line, before MkDocs sees it:

- a `!!python/...` tag (`!!python/object/apply` calls any function), except
  `!!python/name:` naming something in the Markdown and theme packages;
- `!ENV` of a variable not named `ACP_DOCS_*`: the site must not publish the
  environment it was built in;
- markup or a `javascript:`, `data:` or `file:` link in any key or value:
  MkDocs and Material print `site_name`, `copyright`, navigation titles and
  links into every page unescaped;
- `hooks` (Python files the build runs), `INHERIT` (another file, read with
  the same loader), and templates from the checkout (`theme.custom_dir`,
  `extra_templates`): Jinja templates can call Python;
- a Markdown extension that is neither one of Python-Markdown's own short
  names nor a module of the Markdown and theme packages (any other name is
  imported), and the extensions that read files by path
  (`pymdownx.snippets`, `pymdownx.b64`): an RFD stands alone;
- a plugin outside `PLUGINS`: Material's others fetch from the network
  (`privacy`, `social`), run other programs (`optimize`) or read files the
  checks do not (`meta`, `blog`);
- `extra_css` or `extra_javascript` from another host: readers would load it;
- a `docs_dir` or `site_dir` outside the checkout.

Run as `python -P -m acp_docs.mkdocsconfig` (`make serve`, `make build`) it
vets the mkdocs.yml of the current directory and exits 2 with the reason.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from acp_docs import activehtml, filetree
from acp_docs.errors import LocatedError, UsageError
from acp_docs.reporters.text import printable

CONFIG_NAME = "mkdocs.yml"
PYTHON_TAG = "tag:yaml.org,2002:python/"
NAME_TAG = PYTHON_TAG + "name:"
TRUSTED_PACKAGES = ("markdown", "pymdownx", "material", "acp_docs")
MARKDOWN_SHORT_NAMES = frozenset(
    {"abbr", "admonition", "attr_list", "codehilite", "def_list", "extra", "fenced_code"}
    | {"footnotes", "legacy_attrs", "legacy_em", "md_in_html", "meta", "nl2br", "sane_lists"}
    | {"smarty", "tables", "toc", "wikilinks"}
)
"""The names Python-Markdown registers for its own extensions (its entry points)."""
READS_FILES = frozenset({"pymdownx.snippets", "pymdownx.b64"})
PLUGINS = frozenset(
    {"search", "material/search", "acp-docs", "tags", "material/tags"}
    | {"offline", "material/offline"}
)
ENV_PREFIX = "ACP_DOCS_"
_TAG_START = re.compile(r"<[A-Za-z/!?]")
UNSAFE_SCHEMES = activehtml.UNSAFE_SCHEMES | {"file"}
REFUSED_KEYS = {
    "/hooks": "hooks run Python files during the build; put the code in the engine (scripts/)",
    "/INHERIT": "INHERIT reads another file as configuration; keep it all in mkdocs.yml",
    "/theme/custom_dir": "theme custom_dir: templates are code (Jinja can call Python); the"
    " site uses the theme's own templates",
    "/extra_templates": "extra_templates are rendered as Jinja templates, which can call"
    " Python; write the page in Markdown",
}


def _trusted(dotted: str) -> bool:
    parts = dotted.split(".")
    return parts[0] in TRUSTED_PACKAGES and all(p.isidentifier() for p in parts)


def _nodes(node: yaml.Node) -> Iterator[yaml.Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, yaml.MappingNode):
            for key, value in reversed(current.value):
                stack += [value, key]
        elif isinstance(current, yaml.SequenceNode):
            stack += reversed(current.value)


def _refuse_env(node: yaml.Node) -> None:
    names = node.value if isinstance(node, yaml.SequenceNode) else [node]
    if len(names) > 1:
        names = names[:-1]  # the last one is the default value
    for name in names:
        value = name.value if isinstance(name, yaml.ScalarNode) else ""
        if not value.startswith(ENV_PREFIX):
            mark = name.start_mark
            raise LocatedError(
                CONFIG_NAME,
                mark.line + 1,
                mark.column + 1,
                f"!ENV may read only {ENV_PREFIX}* variables, not {str(value)[:80]!r}:"
                " the site must not publish the environment it was built in",
            )


def _refuse_markup(node: yaml.ScalarNode) -> None:
    value = str(node.value)
    if _TAG_START.search(value):
        problem = "holds markup, which the theme prints as HTML on every page; write it as text"
    elif activehtml.scheme_of(value) in UNSAFE_SCHEMES:
        problem = "is a link that runs code or embeds data in the reader's browser"
    else:
        return
    mark = node.start_mark
    raise LocatedError(CONFIG_NAME, mark.line + 1, mark.column + 1, f"this value {problem}")


def refuse_unsafe_nodes(node: yaml.Node) -> None:
    """Refuse, node by node: `!!python/...` tags (but `!!python/name:` of a trusted
    package), `!ENV` of foreign variables, and markup or `javascript:` links in any
    key or value (MkDocs and Material print `site_name`, `copyright`, navigation
    titles and links unescaped)."""
    for current in _nodes(node):
        tag = current.tag or ""
        if isinstance(current, yaml.ScalarNode):
            _refuse_markup(current)
        if tag == "!ENV":
            _refuse_env(current)
        if not tag.startswith(PYTHON_TAG):
            continue
        if tag.startswith(NAME_TAG) and _trusted(tag[len(NAME_TAG) :]):
            continue
        mark = current.start_mark
        shown = "!!" + tag[len("tag:yaml.org,2002:") :]
        raise LocatedError(
            CONFIG_NAME,
            mark.line + 1,
            mark.column + 1,
            f"the YAML tag {printable(shown[:80])} makes MkDocs run Python code; only"
            f" !!python/name: of {', '.join(TRUSTED_PACKAGES)} is allowed",
        )


def _names(value: Any) -> Iterator[tuple[int, Any]]:
    """(index, name) of a list of names or one-key mappings, or of a mapping."""
    if isinstance(value, dict):
        yield from enumerate(value)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield index, next(iter(item)) if isinstance(item, dict) and len(item) == 1 else item


def _extension_problem(name: Any) -> str | None:
    if not isinstance(name, str):
        return None  # MkDocs refuses it with its own message
    module = name.split(":", 1)[0]
    if module in READS_FILES:
        return f"the Markdown extension {module} reads files by path; an RFD includes no other file"
    if "." not in module:
        if module in MARKDOWN_SHORT_NAMES:
            return None
        return (
            f"the Markdown extension {name[:80]!r} is not one of Python-Markdown's own; name"
            " any other by its module, as in pymdownx.tabbed"
        )
    if _trusted(module):
        return None
    return (
        f"the Markdown extension {name[:80]!r} would import a module outside"
        f" {', '.join(TRUSTED_PACKAGES)}"
    )


def _pointer(config: dict[str, Any], key: str, index: int, name: Any) -> str:
    """The JSON pointer of an entry of a list, or of a mapping (by its escaped name)."""
    if isinstance(config[key], list):
        return f"/{key}/{index}"
    return f"/{key}/" + str(name).replace("~", "~0").replace("/", "~1")


def refuse_code(config: dict[str, Any], lines: dict[str, int], root: Path) -> None:
    """Refuse hooks, INHERIT, templates, foreign assets, extensions and plugins (see above).

    `docs_dir` and `site_dir` must lie inside the checkout `root`: MkDocs reads
    the one and empties the other.
    """

    def fail(pointer: str, reason: str) -> None:
        raise LocatedError(CONFIG_NAME, lines.get(pointer, 1), 1, reason)

    for key, does in (("docs_dir", "reads"), ("site_dir", "empties and writes")):
        folder = config.get(key)
        if isinstance(folder, str) and not filetree.within(root, root / folder):
            fail(f"/{key}", f"{key} {folder[:80]!r} is outside the checkout, and MkDocs {does} it")

    theme = config.get("theme")
    present = {
        "/hooks": "hooks" in config,
        "/INHERIT": "INHERIT" in config,
        "/theme/custom_dir": isinstance(theme, dict) and theme.get("custom_dir") is not None,
        "/extra_templates": bool(config.get("extra_templates")),
    }
    for pointer, reason in REFUSED_KEYS.items():
        if present[pointer]:
            fail(pointer, reason)
    for key in ("extra_css", "extra_javascript"):
        for index, item in enumerate(config.get(key) or []):
            path = item.get("path") if isinstance(item, dict) else item
            if isinstance(path, str) and ("//" in path or ":" in path.split("/")[0]):
                fail(
                    f"/{key}/{index}",
                    f"{key} {path[:80]!r} is not a file of the site: readers would load it"
                    " from another host",
                )
    for index, name in _names(config.get("markdown_extensions")):
        problem = _extension_problem(name)
        if problem is not None:
            fail(_pointer(config, "markdown_extensions", index, name), problem)
    for index, name in _names(config.get("plugins")):
        if isinstance(name, str) and name not in PLUGINS:
            fail(
                _pointer(config, "plugins", index, name),
                f"the plugin {name[:80]!r} is not allowed: it can reach the network, run"
                f" programs or read files; allowed: {', '.join(sorted(PLUGINS))}",
            )


def main() -> int:
    """Vet the mkdocs.yml of the current directory; print the reason and return 2 if refused."""
    from acp_docs.repo import Repo

    try:
        Repo.load()
    except UsageError as exc:
        print(f"acp-docs: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
