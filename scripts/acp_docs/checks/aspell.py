"""The work of the `spell` check: Aspell over the prose readers see, on the rendered pages.

`.pyspelling.yml` stays the configuration (which files, Aspell's language, the
word list), so `pyspelling` by hand checks the same files. The check itself
does not render anything again: the build hands over each page's words
(`acp_docs.markdown.prose`), Aspell runs once per task over the distinct words, and
each unknown word is reported at its first place in the file. Nothing is
written in the repository. The config's Markdown extensions must be those of
mkdocs.yml, so a hand run of pyspelling sees the pages as readers do.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wcmatch import glob

from acp_docs.config.repo import Repo
from acp_docs.core import memo, runner
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown import prose
from acp_docs.markdown.blocks import extension_entries
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, line_of, read_text
from acp_docs.sources.yamlfile import load_with_lines

NAME = "spell"
CONFIG = ".pyspelling.yml"
WORDLIST = ".wordlist.txt"
INSTALL_HINT = (
    "run `make setup` as root on Debian, or install it yourself"
    " (Debian/Ubuntu: `apt-get install aspell aspell-en`; macOS: `brew install aspell`)"
)


def _load_config(repo: Repo) -> tuple[dict[str, Any], dict[str, int]]:
    text = read_text(repo.root / CONFIG, CONFIG)
    config, lines = load_with_lines(text, CONFIG)
    check_shape(config, lines)
    return config, lines


def _where(lines: dict[str, int], pointer: str) -> int:
    """The line of `pointer`, else of its nearest parent that has one."""
    while pointer and pointer not in lines:
        pointer = pointer.rsplit("/", 1)[0]
    return lines.get(pointer, 1)


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def check_shape(config: Any, lines: dict[str, int]) -> None:
    """Refuse a `.pyspelling.yml` of another shape than pyspelling reads, at the line concerned.

    The keys this check reads are checked here (and nowhere else guessed): a
    `matrix` list of task mappings, each with a string `name`, a `sources` list
    of glob patterns, an `aspell` mapping, a `dictionary` mapping whose
    `wordlists` is a list, and a `pipeline` list of filter names or one-key
    mappings.
    """

    def bad(pointer: str, reason: str) -> None:
        raise LocatedError(CONFIG, _where(lines, pointer), 1, reason)

    if not isinstance(config, dict):
        bad("", "expected a mapping with a `matrix` list of tasks")
    if "matrix" not in config:
        bad("", "expected a `matrix` list of tasks")
    matrix = config["matrix"]
    if not isinstance(matrix, list) or not matrix:
        bad("/matrix", "`matrix` must be a non-empty list of tasks")
    for index, task in enumerate(matrix):
        at = f"/matrix/{index}"
        if not isinstance(task, dict):
            bad(at, f"task {index + 1} of `matrix` must be a mapping (name, sources, ...)")
        if not isinstance(task.get("name"), str) or not task["name"].strip():
            bad(f"{at}/name", f"task {index + 1} needs a `name` that is a string")
        name = task["name"]
        if "sources" not in task:
            bad(at, f"task {name!r} has no `sources` (a list of glob patterns)")
        if not _string_list(task["sources"]):
            bad(f"{at}/sources", f"task {name!r}: `sources` must be a list of glob patterns")
        for key in ("aspell", "dictionary"):
            if task.get(key) is not None and not isinstance(task[key], dict):
                bad(f"{at}/{key}", f"task {name!r}: `{key}` must be a mapping")
        wordlists = (task.get("dictionary") or {}).get("wordlists")
        if wordlists is not None and not _string_list(wordlists):
            bad(f"{at}/dictionary/wordlists", f"task {name!r}: `wordlists` must be a list of paths")
        pipeline = task.get("pipeline")
        if pipeline is None:
            continue
        if not isinstance(pipeline, list):
            bad(f"{at}/pipeline", f"task {name!r}: `pipeline` must be a list of filters")
        for number, step in enumerate(pipeline):
            here = f"{at}/pipeline/{number}"
            if isinstance(step, str):
                continue
            if not isinstance(step, dict) or len(step) != 1:
                bad(here, f"task {name!r}: a pipeline step is a filter name or one `name: options`")
            ((_filter, options),) = step.items()
            if options is not None and not isinstance(options, dict):
                bad(here, f"task {name!r}: the options of filter {_filter!r} must be a mapping")
            extensions = (options or {}).get("markdown_extensions")
            if extensions is not None and not isinstance(extensions, list):
                bad(f"{here}/{_filter}/markdown_extensions", "`markdown_extensions` must be a list")


def _markdown_extensions(task: dict[str, Any]) -> list[Any] | None:
    for step in task.get("pipeline") or []:
        if isinstance(step, dict) and "pyspelling.filters.markdown" in step:
            return (step["pyspelling.filters.markdown"] or {}).get("markdown_extensions")
    return None


def config_findings(repo: Repo, config: dict[str, Any]) -> list[Finding]:
    """The spelling set-up's own problems: drifted extensions, an unsorted word list."""
    findings: list[Finding] = []
    expected = extension_entries(repo.config.get("markdown_extensions"))
    for task in config["matrix"]:
        actual = extension_entries(_markdown_extensions(task))
        if actual != expected:
            line, _ = line_of(repo.root / CONFIG, "markdown_extensions:")
            findings.append(
                Finding(
                    CONFIG,
                    line,
                    1,
                    NAME,
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
                    NAME,
                    "word list is not sorted or has duplicates",
                    "spell/config",
                )
            )
    return findings


def _vetted_sources(repo: Repo, tree: filetree.Scan, patterns: Any) -> list[str]:
    """The files the patterns match that are regular files inside the checkout.

    Only these are read: never a file behind a link that leaves the checkout,
    and never a FIFO.
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
                found.append(Path(rel).as_posix())
    return sorted(dict.fromkeys(found))


_OPTION_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")
_ASPELL_OPTIONS = {"lang": "--lang", "d": "--master", "master": "--master"}


@dataclass
class Task:
    """One spelling task of the config: which files, which Aspell options, which word lists."""

    name: str
    sources: list[str]
    options: list[str]
    wordlists: list[str]


def _aspell_options(task: dict[str, Any], lines: dict[str, int], at: str) -> list[str]:
    options = task.get("aspell") or {}
    out = []
    for key, value in options.items():
        flag = _ASPELL_OPTIONS.get(str(key))
        if flag is None or not isinstance(value, str) or not _OPTION_VALUE.fullmatch(value):
            raise LocatedError(
                CONFIG,
                _where(lines, f"{at}/aspell/{key}"),
                1,
                f"aspell option {key!r}: {value!r} of task {task['name']!r} is not supported"
                " (lang and d, with plain names, are)",
            )
        out.append(f"{flag}={value}")
    return out


def tasks(repo: Repo) -> tuple[list[Task], list[Finding]]:
    """The tasks of `.pyspelling.yml` (vetted files only) and the config's own findings."""
    config, lines = _load_config(repo)
    findings = config_findings(repo, config)
    tree = filetree.scan(repo.root, repo.source_folders)
    out = []
    for index, task in enumerate(config["matrix"]):
        dictionary = task.get("dictionary") or {}
        out.append(
            Task(
                task["name"],
                _vetted_sources(repo, tree, task["sources"]),
                _aspell_options(task, lines, f"/matrix/{index}"),
                _vetted_sources(repo, tree, dictionary.get("wordlists")),
            )
        )
    return out, findings


def preflight(repo: Repo) -> None:
    """Refuse before any build when spelling cannot run: no Aspell, or an unsound config."""
    runner.require("aspell", "Aspell", INSTALL_HINT)
    tasks(repo)


def unknown_words(repo: Repo, task: Task, words: set[str]) -> set[str]:
    """The words Aspell does not know, with the task's word lists: one Aspell run."""
    if not words:
        return set()
    aspell = runner.require("aspell", "Aspell", INSTALL_HINT)
    known: list[str] = []
    for rel in task.wordlists:
        known += [w.strip() for w in read_text(repo.root / rel, rel).split("\n") if w.strip()]
    with tempfile.TemporaryDirectory(prefix="acp-docs-spell-") as tmp:
        personal = Path(tmp) / "words.pws"
        personal.write_text(
            "personal_ws-1.1 en 0 utf-8\n" + "".join(f"{w}\n" for w in known), encoding="utf-8"
        )
        result = runner.run(
            "aspell",
            [aspell, "list", *task.options, "--encoding=utf-8", f"--personal={personal}"],
            cwd=repo.root,
            fix=f"check the aspell options of {CONFIG} and {WORDLIST}, or run `make setup`",
            timeout=120,
            stdin="".join(f"{w}\n" for w in sorted(words)),
        )
    return {line.strip() for line in result.stdout.splitlines() if line.strip()} & words


def remembered_unknown_words(repo: Repo, task: Task, words: set[str]) -> set[str]:
    """`unknown_words`, asking Aspell only about words it has not judged with these word lists.

    While serving, a rebuild after an edit sends Aspell the new words alone.
    """
    key = (tuple(task.options), memo.digest_of(repo.root / rel for rel in task.wordlists))
    verdicts: dict[str, bool] = memo.remembered(f"spelling:{task.name}", key, dict)
    new = words - verdicts.keys()
    if new:
        unknown = unknown_words(repo, task, new)
        verdicts.update((word, word in unknown) for word in new)
    return {word for word in words if verdicts[word]}


def findings_for(
    repo: Repo,
    task: Task,
    page_words: dict[str, set[str]],
    sources: dict[str, str],
    judge: Callable[[Repo, Task, set[str]], set[str]] = unknown_words,
) -> list[Finding]:
    """A finding for each unknown word of each file, at its first place in the source."""
    named = set(task.sources)
    chosen = {path: found for path, found in page_words.items() if path in named}
    unknown = judge(repo, task, set().union(*chosen.values()) if chosen else set())
    findings = []
    for path in sorted(chosen):
        mine = chosen[path] & unknown
        if not mine:
            continue
        where = prose.places(sources.get(path, ""), mine)
        for word in sorted(mine):
            line, col = where.get(word, (1, 1))
            findings.append(
                Finding(
                    path,
                    line,
                    col,
                    NAME,
                    f"unknown word {word!r}: fix it or add it to {WORDLIST}",
                    "spell/unknown-word",
                )
            )
    return findings


def check_pages(
    repo: Repo, page_words: dict[str, set[str]], sources: dict[str, str], render: Any
) -> list[Finding]:
    """Spelling of the pages one build rendered (`page_words`, by source path), every task.

    A file a task names that is not a page of the site (README.md) is rendered
    with `render`, the site's Markdown engine. Aspell runs once per task.
    """
    all_tasks, findings = tasks(repo)
    words = dict(page_words)
    texts = dict(sources)
    for task in all_tasks:
        for rel in task.sources:
            if rel in words:
                continue
            try:
                texts[rel] = read_text(repo.root / rel, rel)
            except UnreadableFile as exc:
                findings.append(Finding(rel, exc.line, 1, NAME, exc.reason, "spell/unreadable"))
                continue
            too_much = mdlimits.hazard(texts[rel])
            if too_much is not None:
                where = (too_much.line, too_much.col)
                findings.append(Finding(rel, *where, NAME, too_much.message, "spell/too-complex"))
                words[rel] = set()
                continue
            words[rel] = prose.words(render(texts[rel]))
        findings += findings_for(repo, task, words, texts)
    return sorted(set(findings))


def check_served_pages(
    repo: Repo, page_words: dict[str, set[str]], sources: dict[str, str]
) -> list[Finding]:
    """Spelling of the pages a `mkdocs serve` build rendered, with the check's dictionary.

    Files that are no page (README.md) wait for `acp-docs check`; words
    already judged are not sent to Aspell again.
    """
    all_tasks, findings = tasks(repo)
    for task in all_tasks:
        findings += findings_for(repo, task, page_words, sources, remembered_unknown_words)
    return sorted(set(findings))
