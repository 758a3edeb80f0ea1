"""The tree's Prettier configuration, read as data and held to an allowlist of options.

Prettier finds a file's configuration in the file's folder or the nearest one
above it, trying `CONFIG_FILES` in its order. Of those, the ones that are data
(JSON, YAML, TOML, a `prettier` key in `package.json` or `package.yaml`) are
read here; every option must be one Prettier documents, of its type, from its
choices (`OPTIONS`). A configuration that is code, names a shared
configuration, or loads plugins is never run: its files are not checked, and
a warning says so. The search stops at DIR, never above it.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_docs.core.errors import LocatedError
from acp_docs.core.findings import Finding
from acp_docs.sources import jsonparse, yamlfile
from acp_docs.sources.textfile import read_text

CHECK = "upstream-prettier"
CONFIG_FILES = (
    "package.json",
    "package.yaml",
    ".prettierrc",
    ".prettierrc.json",
    ".prettierrc.yml",
    ".prettierrc.yaml",
    ".prettierrc.json5",
    *(
        name
        for ext in ("js", "ts", "mjs", "mts", "cjs", "cts")
        for name in (f".prettierrc.{ext}", f"prettier.config.{ext}")
    ),
    ".prettierrc.toml",
)
"""Prettier 3's configuration files, in the order it looks for them in one folder."""

_CHOICES = {
    "arrowParens": ("always", "avoid"),
    "objectWrap": ("preserve", "collapse"),
    "experimentalOperatorPosition": ("start", "end"),
    "quoteProps": ("as-needed", "consistent", "preserve"),
    "trailingComma": ("all", "es5", "none"),
    "htmlWhitespaceSensitivity": ("css", "strict", "ignore"),
    "proseWrap": ("always", "never", "preserve"),
    "endOfLine": ("lf", "crlf", "cr", "auto"),
    "embeddedLanguageFormatting": ("auto", "off"),
    "parser": (
        *("flow", "babel", "babel-flow", "babel-ts", "typescript", "acorn", "espree", "meriyah"),
        *("css", "less", "scss", "json", "json5", "jsonc", "json-stringify", "graphql"),
        *("markdown", "mdx", "vue", "yaml", "glimmer", "html", "angular", "lwc", "mjml"),
    ),
}
_FLAGS = (
    *("bracketSameLine", "bracketSpacing", "semi", "experimentalTernaries", "singleQuote"),
    *("jsxSingleQuote", "singleAttributePerLine", "vueIndentScriptAndStyle", "useTabs"),
    *("checkIgnorePragma", "insertPragma", "requirePragma"),
)
_WIDTHS = ("printWidth", "tabWidth")
MAX_WIDTH = 10_000
OPTIONS: dict[str, Any] = {
    **dict.fromkeys(_FLAGS, bool),
    **dict.fromkeys(_WIDTHS, int),
    **_CHOICES,
}
"""Every option a configuration may set: bool, int (0 to `MAX_WIDTH`) or one of its choices."""


@dataclass
class Config:
    """One configuration file of the tree: what it allows, or why it is not used."""

    path: str
    """From DIR: `.prettierrc`, `docs/rfds/.prettierrc.yaml`."""
    options: dict[str, Any] = field(default_factory=dict)
    overrides: list[dict[str, Any]] = field(default_factory=list)
    refused: bool = False
    """Code, a shared configuration, plugins, or not readable: its files are not checked."""

    def as_json(self) -> str:
        """The configuration Prettier is given: only what was allowed."""
        return json.dumps({**self.options, "overrides": self.overrides}, sort_keys=True)


@dataclass
class Configs:
    """The configuration files found, by folder, and the findings on them."""

    by_folder: dict[str, Config | None] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


def _finding(path: str, line: int, message: str, level: str, rule: str) -> Finding:
    return Finding(path, line, 1, CHECK, message, f"upstream/{rule}", level)


def _line_of(text: str, key: str) -> int:
    found = re.search(rf"""(^|[\s{{,"']){re.escape(key)}["']?\s*[:=]""", text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def _parse(name: str, text: str, shown: str) -> Any:
    """The data of a configuration file; a LocatedError when it cannot be read."""
    if name.endswith(".toml"):
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            place = re.search(r"line (\d+)", str(exc))
            line = int(place[1]) if place else 1
            raise LocatedError(shown, line, None, f"malformed TOML: {exc}") from None
    if name.endswith((".yml", ".yaml")):
        return yamlfile.load(text, shown)
    try:
        return jsonparse.loads(text)
    except jsonparse.JsonProblem as exc:
        if name != ".prettierrc":
            raise LocatedError(shown, exc.line, exc.col, f"malformed JSON: {exc.message}") from None
    return yamlfile.load(text, shown)  # `.prettierrc` is JSON or YAML


def _options(given: Any, shown: str, text: str, out: list[Finding]) -> tuple[dict[str, Any], bool]:
    """The allowed options of `given`; findings for the rest; True when it loads code."""
    if not isinstance(given, dict):
        out.append(_finding(shown, 1, "options must be an object", "error", "prettier-config"))
        return {}, False
    allowed: dict[str, Any] = {}
    code = False
    for key, value in given.items():
        line = _line_of(text, str(key))
        kind = OPTIONS.get(key)
        if key in ("$schema", "overrides"):
            continue
        if key == "plugins":
            if value:
                code = True
                message = "plugins are code: this check does not load them, nor check the files"
                out.append(_finding(shown, line, message, "warning", "prettier-code"))
            continue
        if kind is None:
            message = f"{key!r} is no Prettier option this check knows: not applied"
            out.append(_finding(shown, line, message, "warning", "prettier-option"))
        elif kind is bool and not isinstance(value, bool):
            message = f"{key!r} must be true or false"
            out.append(_finding(shown, line, message, "error", "prettier-option"))
        elif kind is int and (
            isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_WIDTH
        ):
            message = f"{key!r} must be a whole number from 0 to {MAX_WIDTH}"
            out.append(_finding(shown, line, message, "error", "prettier-option"))
        elif isinstance(kind, tuple) and value not in kind:
            message = f"{key!r} must be one of {', '.join(kind)}"
            out.append(_finding(shown, line, message, "error", "prettier-option"))
        else:
            allowed[key] = value
    return allowed, code


def _globs(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _read(root: Path, rel: str) -> tuple[Config | None, list[Finding]]:
    """The configuration in the file `rel`, or None when Prettier would pass it over."""
    name = rel.rsplit("/", 1)[-1]
    out: list[Finding] = []
    config = Config(rel)
    if (root / rel).is_symlink():
        config.refused = True
        message = "Prettier would read this link: this check does not, nor check the files"
        return config, [_finding(rel, 1, message, "warning", "prettier-code")]
    if not name.endswith((".json", ".yml", ".yaml", ".toml", ".prettierrc")):
        config.refused = True
        message = f"{name} is code (or JSON5): this check does not run it, nor check the files"
        return config, [_finding(rel, 1, message, "warning", "prettier-code")]
    try:
        text = read_text(root / rel, rel)
        data = _parse(name, text, rel)
    except LocatedError as exc:  # UnreadableFile and YamlError are located too
        config.refused = True
        message = f"Prettier cannot read this configuration: {exc.reason}"
        return config, [_finding(rel, exc.line, message, "error", "prettier-config")]
    if name.startswith("package."):
        if not isinstance(data, dict) or "prettier" not in data:
            return None, []
        data = data["prettier"]
    if isinstance(data, str):
        config.refused = True
        message = f"names the shared configuration {data!r} (code): not run, nor the files checked"
        line = _line_of(text, "prettier")
        return config, [_finding(rel, line, message, "warning", "prettier-code")]
    config.options, code = _options(data, rel, text, out)
    overrides = data.get("overrides", []) if isinstance(data, dict) else []
    if not isinstance(overrides, list):
        overrides = [None]
    for override in overrides:
        files = _globs(override.get("files")) if isinstance(override, dict) else None
        if files is None:
            line = _line_of(text, "overrides")
            message = "each override needs `files` (a glob or a list) and `options`"
            out.append(_finding(rel, line, message, "error", "prettier-config"))
            continue
        options, loads = _options(override.get("options", {}), rel, text, out)
        code = code or loads
        kept: dict[str, Any] = {"files": files, "options": options}
        excluded = _globs(override.get("excludeFiles", []))
        if excluded:
            kept["excludeFiles"] = excluded
        config.overrides.append(kept)
    config.refused = code or any(f.level == "error" for f in out)
    return config, out


def find(root: Path, folders: set[str]) -> Configs:
    """The configuration of each folder (from DIR: "" for DIR itself), as Prettier finds it.

    `folders` are the folders of the files checked; each folder's answer is
    its own configuration file, or its parent's answer.
    """
    found = Configs()
    every = {""} | {"/".join(f.split("/")[:i]) for f in folders for i in range(1, f.count("/") + 2)}
    for folder in sorted(every, key=lambda f: (f.count("/") if f else -1, f)):
        here = None
        for name in CONFIG_FILES:
            rel = f"{folder}/{name}" if folder else name
            path = root / rel
            if not (path.is_symlink() or path.is_file()):
                if path.exists():  # a FIFO, a folder: Prettier fails on it, or passes it over
                    message = f"{name} is not a regular file: this check does not read it"
                    found.findings.append(_finding(rel, 1, message, "error", "prettier-config"))
                continue
            here, problems = _read(root, rel)
            found.findings += problems
            if here is not None:
                break
        if here is None and folder:
            here = found.by_folder.get(folder.rsplit("/", 1)[0] if "/" in folder else "")
        found.by_folder[folder] = here
    return found
