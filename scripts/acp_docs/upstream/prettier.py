"""Formatting as the tree's own CI sees it: its Prettier, its configuration, its files.

The Prettier the tree's lock file pins (`treeprettier`, this project's pinned
one when the tree locks none) formats each file under `docs/` that Prettier
has a parser for (by its name, `prettier_files.languages`) and that the tree's
scripts hand Prettier (`prettier --check "**/*.{md,mdx}"`: those alone), with
the options the tree's configuration allows (`prettierconfig`), leaving out
what the tree's `.prettierignore` and `.gitignore` leave out. Python reads every file and
sends its text; Prettier reads no file of the tree. Answers are cached by
text and options (`nodejobs`), so a warm run starts no Node.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pathspec

from acp_docs.checks import prettier_files
from acp_docs.core.errors import UsageError
from acp_docs.core.findings import Finding
from acp_docs.sources.textfile import UnreadableFile, read_text
from acp_docs.upstream import nodejobs, prettierconfig, treeprettier
from acp_docs.upstream.tree import DOCS, PAGE_SUFFIXES, Tree

CHECK = prettierconfig.CHECK
PRETTIER = nodejobs.Script(
    "prettier",
    Path(__file__).with_name("prettier_tree.mjs"),
    nodejobs.PROJECT / "node_modules" / "prettier",
    "index.mjs",
    "upstream-prettier",
)


def _ignored(tree: Tree, found: list[Finding]) -> pathspec.GitIgnoreSpec:
    left_out, unread = prettier_files.ignored(tree.root)
    for name, why, link in unread:
        level = "warning" if link else "error"  # Prettier would follow a link, and fail on the rest
        found.append(Finding(name, 1, 1, CHECK, why, "upstream/prettier-ignore", level))
    return left_out


def _texts(tree: Tree, found: list[Finding]) -> dict[str, str]:
    """Each file to format, by its path from DIR: pages and the rest Prettier knows by name.

    Dot files too, as Prettier expands `.` to them. Pages the walk could not
    read are findings of `upstream-files` already.
    """
    known = prettier_files.languages(nodejobs.PROJECT, shutil.which("node"))
    texts = {page.path: page.text for page in tree.pages.values()}
    for rel in sorted(tree.files):
        path = f"{DOCS}/{rel}"
        if rel.endswith(PAGE_SUFFIXES) or not known.by_name(rel.rsplit("/", 1)[-1]):
            continue
        if rel == "docs.json" and tree.nav is not None:
            texts[path] = tree.nav_text
            continue
        try:
            texts[path] = read_text(tree.root / path, path)
        except UnreadableFile as exc:
            found.append(Finding(path, 1, 1, CHECK, exc.reason, "upstream/unreadable"))
    return texts


def formatted(texts: dict[str, str]) -> dict[str, str]:
    """Each text as Prettier formats it with its default options, by name (cached by text).

    The name gives the language (`docs.json`, `x.mdx`); a text Prettier cannot
    format is a UsageError naming it.
    """
    jobs = [
        {"path": name, "text": text, "config": None, "virtual": None, "want": "text"}
        for name, text in texts.items()
    ]
    answers = nodejobs.answers(PRETTIER, jobs)
    out = {}
    for name in texts:
        answer = answers[name]
        if "error" in answer or not isinstance(answer.get("formatted"), str):
            said = answer.get("error", "no formatted text")
            raise UsageError(f"{name}:{answer.get('line', 1)}: Prettier cannot format it: {said}")
        out[name] = answer["formatted"]
    return out


def check(tree: Tree, only: frozenset[str] | None = None) -> list[Finding]:
    """Each file Prettier would change, at its first changed line, or could not format.

    With `only`, just the files of those paths (from DIR) are formatted.
    """
    found: list[Finding] = []
    ignored = _ignored(tree, found)
    chosen = treeprettier.choose(tree.root)
    found += [*chosen.findings, treeprettier.describe(chosen)]
    texts = {
        p: t
        for p, t in _texts(tree, found).items()
        if not ignored.match_file(p) and (chosen.scope is None or chosen.scope.match_file(p))
    }
    script = PRETTIER
    if chosen.package != PRETTIER.package:
        script = nodejobs.Script(
            "prettier", PRETTIER.path, chosen.package, "index.mjs", PRETTIER.cache
        )
    if only is not None:
        texts = {path: text for path, text in texts.items() if path in only}
    configs = prettierconfig.find(tree.root, {p.rsplit("/", 1)[0] for p in texts})
    found += configs.findings
    for folder in configs.by_folder:
        if (tree.root / folder / ".editorconfig").exists():
            rel = f"{folder}/.editorconfig" if folder else ".editorconfig"
            message = "Prettier's command line reads .editorconfig; this check does not"
            found.append(Finding(rel, 1, 1, CHECK, message, "upstream/prettier-option", "warning"))
    with tempfile.TemporaryDirectory(prefix="acp-docs-prettier-") as scratch:
        bases: dict[str, Path] = {}
        jobs = []
        for path, text in texts.items():
            config = configs.by_folder.get(path.rsplit("/", 1)[0])
            if config is not None and config.refused:
                continue
            job: dict[str, object] = {"path": path, "text": text, "config": None, "virtual": None}
            if config is not None:
                if config.path not in bases:
                    # A copy of what was allowed, where the file was: `overrides` match as there.
                    bases[config.path] = Path(scratch, str(len(bases)))
                    copy = bases[config.path] / config.path
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    copy.with_name(".prettierrc.json").write_text(config.as_json(), "utf-8")
                base = bases[config.path]
                job["config"] = str((base / config.path).with_name(".prettierrc.json"))
                job["virtual"] = str(base / path)
            jobs.append(job)
        salt = json.dumps({p: (c.as_json() if c else None) for p, c in configs.by_folder.items()})
        answers = nodejobs.answers(script, jobs, salt=salt, unkeyed=("config", "virtual"))
    for job in jobs:
        path = str(job["path"])
        answer = answers[path]
        if "error" in answer:
            message = f"Prettier could not format this file: {answer['error']}"
            found.append(Finding(path, int(answer["line"]), 1, CHECK, message, "upstream/prettier"))
        elif "line" in answer:
            message = f"Prettier would reformat this file: run `npx prettier --write {path}`"
            found.append(Finding(path, int(answer["line"]), 1, CHECK, message, "upstream/prettier"))
    return found
