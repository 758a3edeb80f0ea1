"""mkdocs.yml is data, checked against an allowlist before MkDocs reads it.

MkDocs reads mkdocs.yml with PyYAML's full loader, imports what it names and
lets the theme print its values into every page. acp-docs reads the file
first, with a safe loader (`parse_config`), and accepts only what
`acp_docs.config.configschema` lists; anything else is an error at its line, before
MkDocs sees the file:

- YAML tags: only plain values (text, numbers, true/false, null, lists and
  mappings); `!ENV` only where `configpolicy.ENV_PLACES` says and only of
  `ACP_DOCS_*` variables (the site must not publish the environment it was
  built in); `!!python/name:` only of a name in `configpolicy.PYTHON_NAMES`,
  and only where the schema's `pythonName` allows that name. Every other tag
  (`!!python/object/apply` calls any function) is refused.
- Keys and values: `configpolicy.CONFIG_SCHEMA`, a closed JSON Schema of the
  keys this site may set, the type and pattern of each value, the plugins and
  Markdown extensions with the options each may take. A wrong shape (`theme:
  3`, `nav: {}`) is a located error in plain words, never a traceback.
- Paths: `docs_dir`, `site_dir` and `watch` inside the checkout (links
  resolved); `extra_css`, `extra_javascript`, `theme.favicon` and
  `theme.logo` files inside `docs/`.

Nesting is bounded (`MAX_DEPTH`); the YAML loader refuses aliases, and the file
is read with the size limit of every input file.

Run as `python -P -m acp_docs.config.mkdocsconfig` (`make serve`, `make build`) it
vets the mkdocs.yml of the current directory and exits 2 with the reason.
"""

from __future__ import annotations

import copy
import itertools
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonschema import validators
from jsonschema.exceptions import ValidationError
from yaml.constructor import SafeConstructor

from acp_docs.config import configschema as configpolicy
from acp_docs.core import memo
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.escaping import printable
from acp_docs.schemalib import schemacheck, schemawords
from acp_docs.sources import filetree
from acp_docs.sources import pointer as ptr
from acp_docs.sources.textfile import read_text
from acp_docs.sources.yamlfile import NoAliasLoader, lines_of

CONFIG_NAME = "mkdocs.yml"
MAX_CONFIG_CHARS = 256 * 1024
"""mkdocs.yml is a few kilobytes; YAML of megabytes would take minutes to parse."""
YAML_TAG = "tag:yaml.org,2002:"
NAME_TAG = YAML_TAG + "python/name:"
PLAIN_TAGS = frozenset(YAML_TAG + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))
MAX_DEPTH = 16
MAX_ERRORS = 100
_ENV_NAME = re.compile(rf"^{configpolicy.ENV_PREFIX}[A-Z0-9_]+$")


@dataclass(frozen=True)
class PythonName:
    """The value of a `!!python/name:` tag: MkDocs would import `name`."""

    name: str


Place = tuple[int, int]
"""A 1-based line and column."""


def _python_name(validator: Any, names: list[str], instance: Any, schema: Any) -> Iterator[Any]:
    if not isinstance(instance, PythonName) or instance.name not in names:
        yield ValidationError("must be !!python/name: of " + " or ".join(names))


ConfigValidator = validators.extend(
    schemacheck.SafeValidator, validators={"pythonName": _python_name}
)
"""Draft 2020-12 (RE2 patterns) with the `pythonName` keyword of `configpolicy`."""


def _place(node: yaml.Node) -> Place:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Reader:
    """Turns a composed mkdocs.yml into plain data, refusing every tag not allowed."""

    def __init__(self) -> None:
        self.places: dict[str, Place] = {}
        self._scalars = SafeConstructor()

    def fail(self, node: yaml.Node, reason: str) -> LocatedError:
        line, col = _place(node)
        return LocatedError(CONFIG_NAME, line, col, reason)

    def read(self, node: yaml.Node, pointer: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {MAX_DEPTH} levels; no setting needs that")
        self.places.setdefault(pointer, _place(node))
        tag = node.tag or ""
        if tag == "!ENV":
            return self._env(node, pointer)
        if tag.startswith(NAME_TAG):
            return self._name(node, tag[len(NAME_TAG) :])
        if tag not in PLAIN_TAGS:
            raise self.fail(node, _tag_problem(tag))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, pointer, depth)
        if isinstance(node, yaml.SequenceNode):
            return [
                self.read(item, f"{pointer}/{index}", depth + 1)
                for index, item in enumerate(node.value)
            ]
        str_tag = tag == YAML_TAG + "str"
        value = node.value if str_tag else self._scalars.construct_object(node)
        if isinstance(value, str) and value.startswith("!"):
            raise self.fail(node, "a quoted value may not start with '!': it reads as a YAML tag")
        return value

    def _mapping(self, node: yaml.MappingNode, pointer: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.value:
            if not (isinstance(key, yaml.ScalarNode) and key.tag == YAML_TAG + "str"):
                raise self.fail(
                    key, "a key must be plain text (a name), not a value of another type"
                )
            child = ptr.child(pointer, key.value)
            if key.value in out:
                raise self.fail(key, f"duplicate key {printable(key.value[:80])!r}: keep one")
            self.places[child] = _place(key)
            out[key.value] = self.read(value, child, depth + 1)
        return out

    def _env(self, node: yaml.Node, pointer: str) -> Any:
        if pointer not in configpolicy.ENV_PLACES:
            where = ", ".join(p.lstrip("/") for p in sorted(configpolicy.ENV_PLACES))
            raise self.fail(node, f"!ENV may stand only at {where}")
        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        plain = isinstance(node, yaml.ScalarNode) or all(
            isinstance(i, yaml.ScalarNode) and i.tag in PLAIN_TAGS for i in items
        )
        if not items or not plain:
            raise self.fail(node, "!ENV takes a variable name, or a list of names and a default")
        names, default = (items[:-1], items[-1].value) if len(items) > 1 else (items, None)
        for name in names:
            if not _ENV_NAME.match(name.value):
                raise self.fail(
                    name,
                    f"!ENV may read only {configpolicy.ENV_PREFIX}* variables, not"
                    f" {printable(name.value[:80])!r}: the site must not publish the"
                    " environment it was built in",
                )
        for name in names:
            if name.value in os.environ:
                return os.environ[name.value]
        return default

    def _name(self, node: yaml.Node, dotted: str) -> PythonName:
        if dotted not in configpolicy.PYTHON_NAMES:
            raise self.fail(
                node,
                f"!!python/name:{printable(dotted[:80])} makes MkDocs run Python code that is"
                " not on the allowlist: " + ", ".join(configpolicy.PYTHON_NAMES),
            )
        if not (isinstance(node, yaml.ScalarNode) and node.value == ""):
            raise self.fail(node, f"!!python/name:{dotted} takes no value")
        return PythonName(dotted)


def _tag_problem(tag: str) -> str:
    shown = printable(("!!" + tag[len(YAML_TAG) :] if tag.startswith(YAML_TAG) else tag)[:80])
    if tag.startswith(YAML_TAG + "python/"):
        return (
            f"the YAML tag {shown} makes MkDocs run Python code; only !!python/name: of a"
            " listed name is allowed"
        )
    return f"the YAML tag {shown} is not allowed: mkdocs.yml holds plain values"


def _shown(value: Any) -> str:
    if isinstance(value, PythonName):
        return f"!!python/name:{value.name}"
    return schemawords.shown(value)


def _where(path: list[Any]) -> str:
    return schemawords.where(path, CONFIG_NAME)


def _located(error: ValidationError, places: dict[str, Place]) -> tuple[Place, str]:
    path, problem = schemawords.problem(error, CONFIG_NAME, _shown, configpolicy.WHY_NOT)
    place = next((places[p] for p in schemawords.pointers(path) if p in places), (1, 1))
    return place, problem


def validate(node: yaml.Node) -> dict[str, Any]:
    """The data of a composed mkdocs.yml, once its tags and values pass the allowlist.

    A `LocatedError` (mkdocs.yml:line:col) for the first value, in file order,
    that is not allowed.
    """
    reader = _Reader()
    data = reader.read(node, "", 0)
    checker = ConfigValidator(configpolicy.CONFIG_SCHEMA, registry=schemacheck.NO_RETRIEVAL)
    # Errors come in about file order: the first few hold the first in the file.
    errors = itertools.islice(checker.iter_errors(data), MAX_ERRORS)
    found = [_located(error, reader.places) for error in errors]
    if found:
        (line, col), problem = min(found)
        raise LocatedError(CONFIG_NAME, line, col, problem)
    return data


def refuse_unsafe_nodes(node: yaml.Node) -> None:
    """Refuse, at its line, anything in a composed mkdocs.yml that `configpolicy` does
    not allow: tags, keys, value types and patterns (see `validate`)."""
    validate(node)


def refuse_code(config: dict[str, Any], lines: dict[str, int], root: Path) -> None:
    """Refuse paths that lead out of the checkout `root` or to files not inside `docs/`.

    `config` has passed `refuse_unsafe_nodes`; `lines` maps JSON pointers to
    1-based lines. `docs_dir`, `site_dir` and `watch` must lie inside the
    checkout, links resolved: MkDocs reads, empties and watches them.
    `extra_css`, `extra_javascript`, `theme.favicon` and `theme.logo` must be
    files inside the docs folder: readers load them.
    """

    def fail(pointer: str, reason: str) -> None:
        raise LocatedError(CONFIG_NAME, lines.get(pointer, 1), 1, reason)

    for key, does in (("docs_dir", "reads"), ("site_dir", "empties and writes")):
        folder = config.get(key)
        if isinstance(folder, str) and not filetree.within(root, root / folder):
            fail(f"/{key}", f"{key} {folder[:80]!r} is outside the checkout, and MkDocs {does} it")
    site = config.get("site_dir")
    if isinstance(site, str):
        refused = output_problem(root, site, [str(config.get("docs_dir") or "docs")])
        if refused is not None:
            fail("/site_dir", refused)
    for index, path in enumerate(config.get("watch") or []):
        if isinstance(path, str) and not filetree.within(root, root / path):
            fail(f"/watch/{index}", f"watch {path[:80]!r} is outside the checkout")
    docs = root / str(config.get("docs_dir") or "docs")
    given = config.get("theme")
    theme: dict[str, Any] = given if isinstance(given, dict) else {}
    files = [
        ([key, index], path)
        for key in ("extra_css", "extra_javascript")
        for index, path in enumerate(config.get(key) or [])
    ] + [(["theme", key], theme.get(key)) for key in ("favicon", "logo")]
    for where, path in files:
        if isinstance(path, str) and not (
            filetree.inside(root, docs / path) and filetree.within(docs, docs / path)
        ):
            pointer = "".join(f"/{part}" for part in where)
            fail(pointer, f"{_where(where)} {path[:80]!r} is not a file inside the docs folder")


SOURCE_NAMES = frozenset({"docs", "rfds", "schema", "scripts", "tests", "node_modules"})
"""Folders of a checkout that hold what a site is made from, never what it is built into."""


def output_problem(root: Path, folder: str, sources: list[str]) -> str | None:
    """Why MkDocs may not empty and write `folder` of the checkout `root`, or None.

    By allowlist: a folder of plain names (none starts with a dot: `.git`, `.github`),
    no link on the way to it, not the checkout, not one of its source folders
    (`sources`, `SOURCE_NAMES`) nor inside or around one, and holding no file Git tracks.
    """
    parts = Path(folder).parts
    if not parts or any(part.startswith(".") or part == ".." for part in parts):
        return f"site_dir {folder[:80]!r}: MkDocs empties it; name a new folder, not a hidden one"
    target = root / folder
    for depth in range(1, len(parts) + 1):
        step = root.joinpath(*parts[:depth])
        if step.is_symlink():
            return (
                f"site_dir {folder[:80]!r}: {Path(*parts[:depth]).as_posix()} is a link, and"
                " MkDocs would empty what it leads to; remove the link, or name a new folder"
            )
    for name in sorted(SOURCE_NAMES | set(sources)):
        source = root / name
        if filetree.within(source, target) or filetree.within(target, source):
            return (
                f"site_dir {folder[:80]!r} holds or lies in {name}/, which MkDocs would empty:"
                " name a new folder (`site`)"
            )
    tracked = _tracked(root, folder)
    if tracked:
        return (
            f"site_dir {folder[:80]!r} holds {tracked!r}, a file Git tracks, and MkDocs"
            " empties it: name a new folder (`site`)"
        )
    return None


def _tracked(root: Path, folder: str) -> str | None:
    """The first file Git tracks in `folder` of the checkout (None: none, or no Git there)."""
    from acp_docs.core import runner

    if not (root / ".git").exists() or not (root / folder).exists():
        return None
    try:
        done = runner.run(
            "git",
            ["git", "-C", str(root), "ls-files", "-z", "--", f"{folder}/"],
            cwd=root,
            fix="install Git",
            timeout=30,
        )
    except runner.ToolFailure:
        return None
    first = done.stdout.split("\0", 1)[0]
    return first or None


def effective_output_problem(root: Path, site_dir: str, docs_dir: str) -> str | None:
    """`output_problem` of the folder MkDocs will really empty (`config.site_dir`: the
    default `site`, or `--site-dir`), when it lies in the checkout; one outside it was
    named on the command line by whoever runs the build."""
    root = Path(os.path.abspath(root))
    target = os.path.abspath(site_dir)
    if os.path.commonpath([target, str(root)]) != str(root):
        return None
    docs = os.path.relpath(os.path.abspath(docs_dir), root)
    return output_problem(root, os.path.relpath(target, root), [docs])


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above `start` (default: cwd) holding mkdocs.yml."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate
    raise UsageError(
        f"no {CONFIG_NAME} in {here} or any parent directory: run acp-docs inside a checkout"
    )


def read_config(root: Path) -> str:
    """The text of `root`'s mkdocs.yml; a UsageError when unreadable or too long to parse."""
    text = read_text(root / CONFIG_NAME, CONFIG_NAME)
    if len(text) > MAX_CONFIG_CHARS:
        # PyYAML's parser, MkDocs's too, takes minutes on a few megabytes of YAML.
        raise LocatedError(
            CONFIG_NAME,
            1,
            1,
            f"{len(text):,} characters; a site's configuration holds at most {MAX_CONFIG_CHARS:,}",
        )
    return text


class _IgnoreTagsLoader(NoAliasLoader):
    """A safe loader: `!ENV` resolves as MkDocs does, other tags read as plain values."""


def _construct_env(loader: yaml.Loader, node: yaml.Node) -> Any:
    names: list[Any] = (
        loader.construct_sequence(node)
        if isinstance(node, yaml.SequenceNode)
        else [loader.construct_scalar(node)]
        if isinstance(node, yaml.ScalarNode)
        else [None]
    )
    for name in names[:-1] if len(names) > 1 else names:
        if str(name) in os.environ:
            return os.environ[str(name)]
    return names[-1] if len(names) > 1 else None


def _construct_any(loader: yaml.Loader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    return None


_IgnoreTagsLoader.add_constructor("!ENV", _construct_env)
_IgnoreTagsLoader.add_multi_constructor("", _construct_any)


def parse_config(root: Path, text: str) -> dict[str, Any]:
    """The settings of `text`, the mkdocs.yml of the checkout at `root`, once vetted.

    A `UsageError` at the line of the first thing refused: malformed YAML, a tag,
    key or value the allowlist does not hold (`refuse_unsafe_nodes`), a path out
    of the checkout (`refuse_code`). Parsing and the allowlist depend on the text
    alone (and the `ACP_DOCS_*` variables `!ENV` may read), so they are kept for
    the next checkout with the same text; paths are vetted against each `root`.
    """
    # `!ENV` reads only `ACP_DOCS_*` variables, each named in the text.
    env = tuple(
        sorted((k, v) for k, v in os.environ.items() if k.startswith("ACP_DOCS_") and k in text)
    )
    key = (text, env)
    config, lines = memo.remembered("mkdocs.yml text", key, lambda: _vetted(text), keep=4)
    refuse_code(config, lines, root)
    return copy.deepcopy(config)


def _vetted(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The settings of `text` and the line of each JSON pointer, once past the allowlist."""
    loader = _IgnoreTagsLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            refuse_unsafe_nodes(node)
        config = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise LocatedError(CONFIG_NAME, line, col, f"malformed YAML: {problem}") from None
    except (RecursionError, ValueError) as exc:
        raise LocatedError(CONFIG_NAME, 1, 1, f"malformed YAML: {exc}") from None
    finally:
        loader.dispose()
    if not isinstance(config, dict):
        raise LocatedError(CONFIG_NAME, 1, 1, "expected a mapping at the top level")
    return config, lines_of(node)


def main() -> int:
    """Vet the mkdocs.yml of the current directory; print the reason and return 2 if refused."""
    try:
        root = find_root()
        parse_config(root, read_config(root))
    except UsageError as exc:
        print(f"acp-docs: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
