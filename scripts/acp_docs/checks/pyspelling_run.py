"""pyspelling doing the spelling: its filters read the rendered pages, its Aspell run judges.

`.pyspelling.yml` is read as data, never handed to pyspelling as it is: its
pipeline names modules pyspelling would import. Of each task, the check
takes the filters that follow the Markdown step (`pyspelling.filters.html`
with its options, `pyspelling.filters.url`) and runs them, in this process,
on the HTML the one build rendered, so the words are those a hand run of
`pyspelling -c .pyspelling.yml` finds in the same Markdown. Each page's words
are kept in the cache folder by the page's bytes and the filters' options.

The distinct words of every page then go to pyspelling in one run (a child
process, through the runner and its time limit): a task of pyspelling's own
with the task's Aspell options and word lists (pyspelling compiles them into a
dictionary as a hand run does) and its text filter, over one file of words.
Aspell's verdicts are kept too, by the word lists, the options and the
versions: a warm check asks nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from acp_docs.core import cachedir, memo, runner
from acp_docs.core.errors import UsageError

HTML_FILTER = "pyspelling.filters.html"
PROSE_FILTER = "acp_docs.checks.pyspell_html"
"""This project's pyspelling filter: the html filter's job in one streaming pass."""
URL_FILTER = "pyspelling.filters.url"
KNOWN_FILTERS = frozenset(
    {"pyspelling.filters.context", "pyspelling.filters.markdown", HTML_FILTER, PROSE_FILTER}
    | {URL_FILTER, "pyspelling.filters.text"}
)
"""The filters a task may name: the check runs those after the Markdown step itself."""
HTML_OPTIONS = {"comments": bool, "attributes": list, "ignores": list, "captures": list}
"""The html filter's options the check passes on (plain values; selectors are text)."""

_VERSION = f"pyspelling={metadata.version('pyspelling')}"
_OWN = hashlib.sha256(Path(__file__).with_name("pyspell_html.py").read_bytes()).hexdigest()[:16]
"""The code of this project's filter: a change reads every page again."""
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
"""A word as the check counts it (Aspell splits the same text the same way)."""
_KEPT_PAGES = 512


def _words_of(texts: Iterable[str]) -> set[str]:
    return {word for text in texts for word in _WORD.findall(text)}


class PageWords:
    """The words pyspelling's filters find in rendered pages (a task's html and url steps)."""

    def __init__(
        self, html_options: dict[str, Any] | None, urls: bool, html_filter: str = PROSE_FILTER
    ) -> None:
        self.html_options = html_options
        self.urls = urls
        self.html_filter = html_filter
        self._key = repr((_VERSION, _OWN, html_filter, html_options, urls))
        self._filters: tuple[Any, Any] | None = None
        self._seen: dict[str, set[str]] = {}

    def _steps(self) -> tuple[Any, Any]:
        if self._filters is None:
            from pyspelling.filters import html, url

            from acp_docs.checks import pyspell_html

            module = pyspell_html if self.html_filter == PROSE_FILTER else html
            made = module.get_plugin()(dict(self.html_options or {}))
            self._filters = (made, url.get_plugin()({}) if self.urls else None)
        return self._filters

    def words(self, html: str) -> set[str]:
        """The words of one rendered page, from the cache folder or pyspelling's filters."""
        digest = hashlib.sha256((self._key + "\0" + html).encode("utf-8", "surrogatepass"))
        name = digest.hexdigest()
        if name in self._seen:
            return self._seen[name]
        folder = cachedir.cache_dir("spell-words")
        data = folder.read_json(f"{name}.json") if folder else None
        if isinstance(data, list) and all(isinstance(w, str) for w in data):
            self._seen[name] = set(data)
            return self._seen[name]
        found = self._seen[name] = self._filtered(html)
        if folder is not None:
            folder.write_json(f"{name}.json", sorted(found))
            folder.keep_latest(_KEPT_PAGES, ".json")
        return found

    def _filtered(self, html: str) -> set[str]:
        from pyspelling.filters import SourceText

        html_step, url_step = self._steps()
        if self.html_options is None:
            texts = [SourceText(html, "page", "utf-8", "text")]
        else:
            texts = html_step.sfilter(SourceText(html, "page", "utf-8", "html"))
        if url_step is not None:
            texts = [out for text in texts for out in url_step.sfilter(text)]
        return _words_of(text.text for text in texts if text.error is None)


_VERSIONS: dict[str, str] = {}


def aspell_version(aspell: str, cwd: Path) -> str:
    """Aspell's own version line (a kept verdict depends on it), asked once a process."""
    if aspell not in _VERSIONS:
        done = runner.run("aspell", [aspell, "--version"], cwd=cwd, fix="run `make setup`")
        _VERSIONS[aspell] = done.stdout.strip()
    return _VERSIONS[aspell]


def _verdicts_key(options: dict[str, str], wordlists: list[tuple[str, bytes]], aspell: str) -> str:
    hasher = hashlib.sha256()
    hasher.update(repr((_VERSION, sorted(options.items()), aspell)).encode())
    for name, data in wordlists:
        hasher.update(name.encode() + b"\0" + data + b"\0")
    return hasher.hexdigest()


def unknown_words(
    root: Path,
    name: str,
    options: dict[str, str],
    wordlists: list[tuple[str, bytes]],
    words: set[str],
    aspell: str,
) -> set[str]:
    """The words of `words` Aspell does not know with these word lists, asked of pyspelling.

    Only words without a kept verdict are sent: one pyspelling run over all of
    them, in a child process with a time limit.
    """
    key = _verdicts_key(options, wordlists, aspell_version(aspell, root))
    folder = cachedir.cache_dir("spell-verdicts")
    verdicts: dict[str, bool] = memo.remembered(f"spell-verdicts:{name}", key, dict)
    data = folder.read_json(f"{key}.json") if folder is not None and not verdicts else None
    if isinstance(data, dict):
        verdicts.update((w, v) for w, v in data.items() if isinstance(v, bool))
    new = sorted(words - verdicts.keys())
    if new:
        unknown = _ask(root, name, options, wordlists, new, aspell)
        verdicts.update((word, word in unknown) for word in new)
        if folder is not None:
            folder.write_text(f"{key}.json", json.dumps(verdicts, sort_keys=True))
            folder.keep_latest(16, ".json")
    return {word for word in words if verdicts[word]}


def _ask(
    root: Path,
    name: str,
    options: dict[str, str],
    wordlists: list[tuple[str, bytes]],
    words: list[str],
    aspell: str,
) -> set[str]:
    with tempfile.TemporaryDirectory(prefix="acp-docs-spell-") as tmp:
        folder = Path(tmp)
        listed = []
        for number, (_shown, data) in enumerate(wordlists):
            path = folder / f"wordlist-{number}.txt"
            path.write_bytes(data)  # copies: pyspelling reads no file of the checkout
            listed.append(str(path))
        (folder / "words.txt").write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
        task = {
            "name": name,
            "sources": [str(folder / "words.txt")],
            "aspell": options,
            "dictionary": {
                "wordlists": listed,
                "output": str(folder / "dictionary.dic"),
                "encoding": "utf-8",
            },
            "pipeline": [{"pyspelling.filters.text": {}}],
        }
        config = folder / "pyspelling.json"  # JSON is YAML: pyspelling reads it as its config
        config.write_text(json.dumps({"spellchecker": "aspell", "matrix": [task]}))
        done = runner.run(
            "pyspelling",
            runner.python_module(__name__, str(config), aspell),
            cwd=folder,
            fix="run `make setup` (pyspelling and Aspell)",
            timeout=120,
        )
    try:
        said = json.loads(done.stdout)
    except ValueError:
        raise UsageError(f"pyspelling said no list of words: {done.stdout[-200:]!r}") from None
    if not isinstance(said, list) or not all(isinstance(w, str) for w in said):
        raise UsageError("pyspelling said no list of words")
    return set(said)


def _run(config: str, aspell: str, emit: Callable[[str], Any]) -> int:
    """Run pyspelling's tasks of `config` with `aspell`; print the unknown words as JSON."""
    import pyspelling

    unknown: set[str] = set()
    for result in pyspelling.spellcheck(config, binary=aspell, checker="aspell"):
        if result.error:
            emit(json.dumps({"error": str(result.error)[-500:]}))
            return 2
        unknown.update(result.words)
    emit(json.dumps(sorted(unknown)))
    return 0


if __name__ == "__main__":
    sys.exit(_run(sys.argv[1], sys.argv[2], print))
