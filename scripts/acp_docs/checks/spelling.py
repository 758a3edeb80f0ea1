"""The work of the `spell` check: pyspelling over the prose readers see, on the rendered pages.

`.pyspelling.yml` is the configuration (which files, Aspell's language, the
word lists, the filters), read as data and vetted here. The check does not
render anything again: the build hands over each page's HTML, pyspelling's
own filters read its words and pyspelling's Aspell run judges them, once per
task over the distinct words (`acp_docs.checks.pyspelling_run`); each unknown word
is reported at its first place in the file (`acp_docs.markdown.prose`).
Nothing is written in the repository. The config's Markdown extensions must
be those of mkdocs.yml, so a hand run of `pyspelling -c .pyspelling.yml`
reads the pages as readers see them and reports the same words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wcmatch import glob

from acp_docs.checks import pyspell_html, pyspelling_run
from acp_docs.config.repo import Repo
from acp_docs.core import runner
from acp_docs.core.errors import LocatedError, UsageError
from acp_docs.core.findings import Finding
from acp_docs.markdown import limits as mdlimits
from acp_docs.markdown import prose
from acp_docs.markdown.blocks import extension_entries
from acp_docs.sources import filetree
from acp_docs.sources.textfile import UnreadableFile, line_of, read_bytes, read_text
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
                _filter, options = step, None
            elif not isinstance(step, dict) or len(step) != 1:
                bad(here, f"task {name!r}: a pipeline step is a filter name or one `name: options`")
            else:
                ((_filter, options),) = step.items()
            if _filter not in pyspelling_run.KNOWN_FILTERS:
                bad(
                    here,
                    f"task {name!r}: filter {_filter!r} is not one the check runs"
                    f" ({', '.join(sorted(pyspelling_run.KNOWN_FILTERS))});"
                    " pyspelling would import it",
                )
            if options is not None and not isinstance(options, dict):
                bad(here, f"task {name!r}: the options of filter {_filter!r} must be a mapping")
            extensions = (options or {}).get("markdown_extensions")
            if extensions is not None and not isinstance(extensions, list):
                bad(f"{here}/{_filter}/markdown_extensions", "`markdown_extensions` must be a list")
            if _filter == pyspelling_run.PROSE_FILTER:
                problem = pyspell_html.options_problem(options or {})
                if problem is not None:
                    bad(f"{here}/{_filter}", f"task {name!r}: {_filter}: {problem}")
            if _filter == pyspelling_run.HTML_FILTER:
                for key, value in (options or {}).items():
                    if not _html_option(key, value):
                        bad(
                            f"{here}/{_filter}/{key}",
                            f"task {name!r}: html option {key!r} is not one the check passes on"
                            " (comments: a boolean; attributes, ignores, captures: lists of text)",
                        )


_ATTRIBUTE = re.compile(r"[A-Za-z][A-Za-z0-9_:-]{0,40}")


def _html_option(key: Any, value: Any) -> bool:
    kind = pyspelling_run.HTML_OPTIONS.get(str(key))
    if kind is bool:
        return isinstance(value, bool)
    if kind is not list or not _string_list(value) or len(value) > 64:
        return False
    if key == "attributes":
        return all(_ATTRIBUTE.fullmatch(item) for item in value)
    return all(0 < len(item) <= 200 for item in value)


def _html_step(task: dict[str, Any]) -> tuple[str, dict[str, Any] | None, bool]:
    """The task's html filter and its options (None: no html step); True when it takes URLs
    out."""
    html: dict[str, Any] | None = None
    which = pyspelling_run.PROSE_FILTER
    urls = False
    for step in task.get("pipeline") or []:
        name, options = (step, None) if isinstance(step, str) else next(iter(step.items()))
        if name in (pyspelling_run.HTML_FILTER, pyspelling_run.PROSE_FILTER):
            which, html = name, dict(options or {})
        elif name == pyspelling_run.URL_FILTER:
            urls = True
    return which, html, urls


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


def _vetted_sources(
    repo: Repo, tree: filetree.Scan, patterns: Any, *, word_lists: bool = False
) -> list[str]:
    """The files the patterns match that are regular files inside the checkout.

    Only these are read: never a file behind a link that leaves the checkout,
    and never a FIFO. A word list that is not one is an error naming it: left
    out, it would turn each of its words into a finding that hides the cause.
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
            elif word_lists:
                raise UsageError(
                    f"{Path(rel).as_posix()}: a word list must be a regular file inside the"
                    " checkout (not a link out of it, a FIFO or a folder)"
                )
    return sorted(dict.fromkeys(found))


_OPTION_VALUE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,30}")
_ASPELL_OPTIONS = frozenset({"lang", "d", "master"})


@dataclass
class Task:
    """One spelling task of the config: its files, Aspell options, word lists and filters."""

    name: str
    sources: list[str]
    aspell: dict[str, str]
    wordlists: list[str]
    html_options: dict[str, Any] | None = None
    urls: bool = True
    html_filter: str = pyspelling_run.PROSE_FILTER


def _aspell_options(task: dict[str, Any], lines: dict[str, int], at: str) -> dict[str, str]:
    options = task.get("aspell") or {}
    out = {}
    for key, value in options.items():
        if (
            str(key) not in _ASPELL_OPTIONS
            or not isinstance(value, str)
            or not _OPTION_VALUE.fullmatch(value)
        ):
            raise LocatedError(
                CONFIG,
                _where(lines, f"{at}/aspell/{key}"),
                1,
                f"aspell option {key!r}: {value!r} of task {task['name']!r} is not supported"
                " (lang and d, with plain names, are)",
            )
        out[str(key)] = value
    return out


def tasks(repo: Repo) -> tuple[list[Task], list[Finding]]:
    """The tasks of `.pyspelling.yml` (vetted files only) and the config's own findings."""
    config, lines = _load_config(repo)
    findings = config_findings(repo, config)
    tree = filetree.scan(repo.root, repo.source_folders)
    out = []
    for index, task in enumerate(config["matrix"]):
        dictionary = task.get("dictionary") or {}
        which, html, urls = _html_step(task)
        out.append(
            Task(
                task["name"],
                _vetted_sources(repo, tree, task["sources"]),
                _aspell_options(task, lines, f"/matrix/{index}"),
                _vetted_sources(repo, tree, dictionary.get("wordlists"), word_lists=True),
                html,
                urls,
                which,
            )
        )
    return out, findings


def preflight(repo: Repo) -> None:
    """Refuse before any build when spelling cannot run: no Aspell, or an unsound config."""
    runner.require("aspell", "Aspell", INSTALL_HINT)
    tasks(repo)


def unknown_words(repo: Repo, task: Task, words: set[str]) -> set[str]:
    """The words Aspell does not know with the task's word lists: one pyspelling run, or none
    when every word has a kept verdict. A name the schemas define (`RenameSessionRequest`)
    is a word it knows."""
    words = words - schema_names(repo)
    if not words:
        return set()
    aspell = runner.require("aspell", "Aspell", INSTALL_HINT)
    lists = [(rel, read_bytes(repo.root / rel, rel)) for rel in task.wordlists]
    return pyspelling_run.unknown_words(repo.root, task.name, task.aspell, lists, words, aspell)


def schema_names(repo: Repo) -> frozenset[str]:
    """Every definition the merged schemas have: the pinned SDK's, and each RFD's new ones."""
    from acp_docs.core import memo, protocols
    from acp_docs.rfds import model as rfds
    from acp_docs.schema.merge import default_base
    from acp_docs.sources.textfile import UnreadableFile, load_json

    bases = [
        default_base(repo.root, version, channel)
        for version in protocols.VERSIONS.values()
        for channel in protocols.CHANNELS
    ]

    def read() -> frozenset[str]:
        names: set[str] = set()
        for path in bases:
            try:
                defs = load_json(path, installed=True).get("$defs")
            except (UnreadableFile, LocatedError, AttributeError):
                continue
            names.update(defs if isinstance(defs, dict) else ())
        return frozenset(names)

    names = set(memo.remembered("schema names", memo.digest_of(bases), read))
    for source in rfds.schema_sources(repo):
        defined = source.data.get("definitions") if isinstance(source.data, dict) else None
        names.update(
            n for n in (defined if isinstance(defined, dict) else ()) if isinstance(n, str)
        )
    return frozenset(names)


def findings_for(
    repo: Repo, task: Task, page_html: dict[str, str], sources: dict[str, str]
) -> list[Finding]:
    """A finding for each unknown word of each file, at its first place in the source."""
    named = set(task.sources)
    reader = pyspelling_run.PageWords(task.html_options, task.urls, task.html_filter)
    chosen = {
        path: reader.words(prose.without_generated(html))
        for path, html in page_html.items()
        if path in named
    }
    unknown = unknown_words(repo, task, set().union(*chosen.values()) if chosen else set())
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
    repo: Repo, page_html: dict[str, str], sources: dict[str, str], render: Any
) -> list[Finding]:
    """Spelling of the pages one build rendered (`page_html`, by source path), every task.

    A file a task names that is not a page of the site (README.md) is rendered
    with `render`, the site's Markdown engine.
    """
    all_tasks, findings = tasks(repo)
    html = dict(page_html)
    texts = dict(sources)
    for task in all_tasks:
        for rel in task.sources:
            if rel in html:
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
                html[rel] = ""
                continue
            html[rel] = render(texts[rel])
        findings += findings_for(repo, task, html, texts)
    return sorted(set(findings))


def check_served_pages(
    repo: Repo, page_html: dict[str, str], sources: dict[str, str]
) -> list[Finding]:
    """Spelling of the pages a `mkdocs serve` build rendered, with the check's dictionary.

    Files that are no page (README.md) wait for `acp-docs check`; words
    already judged are not asked again.
    """
    all_tasks, findings = tasks(repo)
    for task in all_tasks:
        findings += findings_for(repo, task, page_html, sources)
    return sorted(set(findings))
