"""Spelling: pyspelling with Aspell over the prose readers see, its output as findings.

The committed `.pyspelling.yml` is run from a temporary copy whose compiled
dictionary goes to a temporary folder, so a check writes nothing in the
repository. Its Markdown extensions must be those of mkdocs.yml.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from wcmatch import glob

from acp_docs import filetree, runner
from acp_docs.errors import UsageError
from acp_docs.findings import Finding
from acp_docs.markdown import code_lines, front_matter_end
from acp_docs.repo import Repo
from acp_docs.textfile import UnreadableFile, line_of, read_text
from acp_docs.yamlfile import load as load_yaml

CHECK = "spell"
CONFIG = ".pyspelling.yml"
WORDLIST = ".wordlist.txt"
INSTALL_HINT = (
    "Aspell is not installed: run `make setup` as root on Debian, or install it yourself"
    " (Debian/Ubuntu: `apt-get install aspell aspell-en`; macOS: `brew install aspell`)"
)


def _load_config(repo: Repo) -> dict[str, Any]:
    config = load_yaml(read_text(repo.root / CONFIG, CONFIG), CONFIG)
    if not isinstance(config, dict) or not isinstance(config.get("matrix"), list):
        raise UsageError(f"{CONFIG}:1:1: expected a `matrix` list")
    return config


def _markdown_extensions(task: dict[str, Any]) -> list[Any] | None:
    for step in task.get("pipeline") or []:
        if isinstance(step, dict) and "pyspelling.filters.markdown" in step:
            return (step["pyspelling.filters.markdown"] or {}).get("markdown_extensions")
    return None


def _normalise_extensions(items: list[Any] | None) -> list[tuple[str, Any]]:
    out = []
    for item in items or []:
        if isinstance(item, dict):
            for name, options in item.items():
                out.append((name, options or {}))
        else:
            out.append((str(item), {}))
    return out


def config_findings(repo: Repo, config: dict[str, Any]) -> list[Finding]:
    """The spelling set-up's own problems: drifted extensions, an unsorted word list."""
    findings: list[Finding] = []
    expected = _normalise_extensions(repo.config.get("markdown_extensions"))
    for task in config["matrix"]:
        actual = _normalise_extensions(_markdown_extensions(task))
        if actual != expected:
            line, _ = line_of(repo.root / CONFIG, "markdown_extensions:")
            findings.append(
                Finding(
                    CONFIG,
                    line,
                    1,
                    CHECK,
                    f"task {task.get('name')!r}: markdown_extensions differ from mkdocs.yml;"
                    " copy them so tabs and admonitions are checked as readers see them",
                    "spell/config",
                )
            )
    wordlist = repo.root / WORDLIST
    if wordlist.is_file():
        words = [w for w in read_text(wordlist, WORDLIST).split("\n") if w]
        if words != sorted(set(words)):
            findings.append(
                Finding(
                    WORDLIST,
                    1,
                    1,
                    CHECK,
                    "word list is not sorted or has duplicates",
                    "spell/config",
                )
            )
    return findings


_CONTEXT = re.compile(r"^<[^>]+> (?P<path>.+?): \S+$")


def parse_output(output: str) -> list[tuple[str, str]]:
    """(path, word) for every misspelling in pyspelling's output, in order."""
    found: list[tuple[str, str]] = []
    path: str | None = None
    in_words = False
    for line in output.splitlines():
        context = _CONTEXT.match(line)
        if context:
            path, in_words = context["path"], False
            continue
        if line.startswith("-" * 20):
            in_words = not in_words if path else False
            continue
        if in_words and path and line.strip():
            found.append((path, line.strip()))
    return found


def _prose_lines(text: str) -> dict[int, str]:
    lines = text.split("\n")
    hidden = set(range(1, front_matter_end(lines) + 1)) | code_lines(text)
    return {n: line for n, line in enumerate(lines, start=1) if n not in hidden}


def locate(text: str, word: str) -> tuple[int, int]:
    """The first line and column where `word` stands in prose (outside code)."""
    pattern = re.compile(rf"(?<![\w'-]){re.escape(word)}(?![\w])")
    for number, line in _prose_lines(text).items():
        visible = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)
        visible = re.sub(r"https?://\S+", lambda m: " " * len(m.group(0)), visible)
        match = pattern.search(visible)
        if match:
            return number, match.start() + 1
    return 1, 1


def _vetted_sources(repo: Repo, tree: filetree.Scan, patterns: Any) -> list[str]:
    """The files the patterns match that are regular files inside the checkout, escaped.

    pyspelling then reads exactly these: never a file behind a link that leaves
    the checkout, and never a FIFO.
    """
    if patterns is None:
        return []
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise UsageError(f"{CONFIG}: `sources` and `wordlists` must be lists of glob patterns")
    flags = glob.N | glob.B | glob.G | glob.S | glob.O
    found: list[str] = []
    for pattern in patterns:
        for rel in glob.glob(pattern, flags=flags, root_dir=str(repo.root)):
            full = repo.root / rel
            if tree.allows(repo.root, full) and filetree.inside(repo.root, full):
                found.append(glob.escape(rel))
    return sorted(dict.fromkeys(found))


def check(repo: Repo) -> list[Finding]:
    """Every misspelt word of the prose, as findings; a UsageError without Aspell."""
    runner.require("aspell", "spell", INSTALL_HINT)
    config = _load_config(repo)
    findings = config_findings(repo, config)
    tree = filetree.scan(repo.root, repo.source_folders)
    with tempfile.TemporaryDirectory(prefix="acp-docs-spell-") as tmp:
        for index, task in enumerate(config["matrix"]):
            if not isinstance(task, dict):
                raise UsageError(f"{CONFIG}: matrix entry {index + 1} is not a mapping")
            task["sources"] = _vetted_sources(repo, tree, task.get("sources"))
            dictionary = task.setdefault("dictionary", {})
            if not isinstance(dictionary, dict):
                raise UsageError(f"{CONFIG}: the dictionary of task {index + 1} is not a mapping")
            dictionary["wordlists"] = _vetted_sources(repo, tree, dictionary.get("wordlists"))
            dictionary["output"] = str(Path(tmp) / f"task-{index}.dic")
        config["matrix"] = [task for task in config["matrix"] if task["sources"]]
        temp_config = Path(tmp) / "pyspelling.yml"
        temp_config.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        result = runner.run(
            "pyspelling",
            [sys.executable, "-m", "pyspelling", "-c", str(temp_config)],
            cwd=repo.root,
            fix=f"check {CONFIG}, or run `make setup`",
            timeout=300,
            ok=(0, 1),
        )
    if "Traceback" in result.stderr:
        tail = result.stderr.strip().splitlines()[-1:]
        raise runner.ToolFailure("pyspelling", f"crashed: {' '.join(tail)}", f"check {CONFIG}")
    texts: dict[str, str] = {}
    for path, word in parse_output(result.stdout):
        if path not in texts:
            try:
                texts[path] = read_text(repo.root / path, path)
            except UnreadableFile:
                texts[path] = ""
        line, col = locate(texts[path], word)
        findings.append(
            Finding(
                path,
                line,
                col,
                CHECK,
                f"unknown word {word!r}: fix it or add it to {WORDLIST}",
                "spell/unknown-word",
            )
        )
    return sorted(set(findings))
