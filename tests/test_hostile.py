"""Hostile pull requests: each crafted input is a finding or a clear error, in bounded time.

Every case asserts the exit status, the file (and line) named, that no traceback
reached the user, and that no file of the checkout changed. The cases that
build the site also assert that nothing from outside the checkout is in it.
Cases on an RFD or a schema source plant into the sample RFD (see conftest).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import re
import resource
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import (
    BIN,
    ROOT,
    copy_repo,
    copy_sample,
    replace_in,
    require_network_namespace,
    require_tool,
    sample,
)
from conftest import acp as in_process

SAMPLE = sample()
RFD = SAMPLE.rfd
SOURCE = SAMPLE.source
FRAGMENT = SAMPLE.fragment
ENTRY = SAMPLE.entry
"""A definition the sample RFD adds: an object with a required, non-empty `text`."""
SECRET = "TOP-SECRET-MARKER-41"
ANCHOR = "Why would we change things?\n"
PLANTED = SAMPLE.text.split(ANCHOR)[0].count("\n") + 3
"""The line of a block planted after the Status quo prompt (and a blank line)."""
CONFIG_END = (ROOT / "mkdocs.yml").read_text().count("\n")
"""The last line of mkdocs.yml: what a case appends starts on the next one."""
ABBR_LINE = (ROOT / "mkdocs.yml").read_text().split("  - abbr\n")[0].count("\n") + 1
TIME_LIMIT = 60
MEMORY_LIMIT = 3 * 1024**3


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def start(
    repo: Path,
    *args: str,
    env: dict[str, str] | None = None,
    gate: tuple[int, int] | None = None,
) -> tuple[int, list[int]]:
    """Start `acp-docs ARGS` in `repo` in a forked child, under a memory limit.

    The child is this process forked (acp_docs imported, its results of earlier
    runs kept: see `Checkouts`), so a case costs no interpreter start-up; it
    runs the command's `main` as the entry point does, in its own session, with
    its own standard streams. With a `gate` (a pipe), it starts when the pipe's
    write end is closed. Returns its pid and the read ends of its stdout and stderr.
    """
    from acp_docs.cli import main as cli

    outputs = [os.pipe(), os.pipe()]
    gc.freeze()  # the child's collections then never touch (and copy) the parent's objects
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 70
        try:
            os.setsid()
            _limits()
            for index, (read_end, write_end) in enumerate(outputs, start=1):
                os.dup2(write_end, index)
                os.close(read_end)
                os.close(write_end)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
            os.chdir(repo)
            os.environ.pop("GITHUB_ACTIONS", None)
            os.environ.update({"NO_MKDOCS_2_WARNING": "1", "ACP_SECRET": SECRET, **(env or {})})
            if gate is not None:
                os.close(gate[1])
                os.read(gate[0], 1)
            status = cli.main(list(args))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 2
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    gc.unfreeze()
    for _read_end, write_end in outputs:
        os.close(write_end)
    return pid, [read_end for read_end, _write_end in outputs]


def finish(pid: int, outputs: list[int], args: tuple[str, ...]) -> subprocess.CompletedProcess:
    """Wait for a child `start` started, killed with everything it started past the time limit."""
    captured: list[bytes] = [b"", b""]

    def drain(index: int) -> None:
        with os.fdopen(outputs[index], "rb") as stream:
            captured[index] = stream.read()

    readers = [threading.Thread(target=drain, args=(i,), daemon=True) for i in (0, 1)]
    for reader in readers:
        reader.start()
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)

    timer = threading.Timer(TIME_LIMIT, stop)
    timer.start()
    try:
        _done, code = os.waitpid(pid, 0)
    finally:
        timer.cancel()
        timer.join()  # a thread left running would keep the next test's builds from forking
    if stopped.is_set():
        pytest.fail(f"acp-docs {' '.join(args)} did not finish within {TIME_LIMIT} s")
    for reader in readers:
        reader.join(timeout=10)
    return subprocess.CompletedProcess(
        ["acp-docs", *args], os.waitstatus_to_exitcode(code), captured[0], captured[1]
    )


def acp(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `acp-docs ARGS` in `repo` in a forked child, under a time and a memory limit."""
    pid, outputs = start(repo, *args, env=env)
    return finish(pid, outputs, args)


def snapshot(repo: Path) -> dict[str, str]:
    """Every entry of the checkout (links and FIFOs not followed), with a digest."""
    out = {}
    for current, dirs, files in os.walk(repo, followlinks=False):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "site")]
        for name in [*dirs, *files]:
            path = os.path.join(current, name)
            info = os.lstat(path)
            rel = os.path.relpath(path, repo)
            if stat.S_ISLNK(info.st_mode):
                out[rel] = "link:" + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    out[rel] = hashlib.sha256(handle.read()).hexdigest()
            else:
                out[rel] = f"mode:{stat.S_IFMT(info.st_mode)}"
    return out


@dataclass(frozen=True)
class Case:
    """One hostile input: how to plant it, the command, and what must come out."""

    name: str
    plant: Callable[[Path, Path], None]
    command: tuple[str, ...]
    status: int
    where: str
    line: int | None = None
    says: str = ""
    sample: bool | None = None
    """Whether the case plants into the sample RFD (by default: when it names its files)."""
    bare: bool = False
    """Whether the case needs no more than a bare checkout (`mkdocs.yml`, `docs/`)."""

    @property
    def needs_sample(self) -> bool:
        return self.where in (RFD, SOURCE, FRAGMENT) if self.sample is None else self.sample

    @property
    def kind(self) -> str:
        """The checkout the case plants into: `bare`, `repo` or `sample` (see `Checkouts`)."""
        return "bare" if self.bare else "sample" if self.needs_sample else "repo"


def _write(rel: str, text: str | bytes) -> Callable[[Path, Path], None]:
    def plant(repo: Path, _outside: Path) -> None:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)

    return plant


def _replace(rel: str, old: str, new: str) -> Callable[[Path, Path], None]:
    def plant(repo: Path, _outside: Path) -> None:
        replace_in(repo / rel, old, new)

    return plant


def _front_matter(extra: str) -> Callable[[Path, Path], None]:
    return _replace(RFD, "status: draft\n", f"status: draft\n{extra}")


def _page(body: str) -> Callable[[Path, Path], None]:
    return _write("docs/hostile.md", f"# Hostile\n\n{body}")


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)
NESTED = "[" * 1000 + "]" * 1000
EXAMPLES = ("examples", "docs/hostile.md")
ONE_BLOCK = '```json title="SessionUpdate (v1)"\n{}\n```\n'


def _json_block(content: str) -> Callable[[Path, Path], None]:
    return _page(f'Text.\n\n```json title="SessionUpdate (v1)"\n{content}\n```\n')


def _shadowing_modules(repo: Path, outside: Path) -> None:
    """Modules at the root named like the standard library's, and a diagram never drawn
    before: its drawing starts a new interpreter (`acp_docs.diagrams.render`) in the checkout."""
    for name in ("json.py", "yaml.py", "tempfile.py", "markdown.py", "selectors.py"):
        (repo / name).write_text(f"open({str(outside / 'victim.json')!r}, 'w').write('ran')\n")
    label = secrets.token_hex(8)  # the drawing cache has never seen this diagram
    _page(f"Text.\n\n```mermaid\nflowchart LR\n  A[{label}] --> B\n```\n")(repo, outside)


def _symlink(rel: str, target: Callable[[Path], str]) -> Callable[[Path, Path], None]:
    def plant(repo: Path, outside: Path) -> None:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target(outside), repo / rel)

    return plant


def _fifo(rel: str) -> Callable[[Path, Path], None]:
    def plant(repo: Path, _outside: Path) -> None:
        os.mkfifo(repo / rel)

    return plant


def _append_config(text: str) -> Callable[[Path, Path], None]:
    """Add `text` at the end of mkdocs.yml; `{outside}` and `{victim}` name the folder beside it."""

    def plant(repo: Path, outside: Path) -> None:
        with (repo / "mkdocs.yml").open("a", encoding="utf-8") as config:
            config.write(text.format(outside=outside, victim=outside / "victim.json"))

    return plant


def _fixture(rel: str) -> str:
    return str(ROOT / "schema" / "examples" / rel)


CASES = [
    # RFD front matter and body: `acp-docs rfds`.
    Case("alias bomb in front matter", _front_matter(BOMB), ("rfds",), 1, RFD, 5, "aliases"),
    Case("recursive alias", _front_matter("x: &x [*x]\n"), ("rfds",), 1, RFD, 4, "aliases"),
    Case(
        "a lone surrogate in front matter",
        _replace(RFD, 'title: "Session badges"', 'title: "Session \\ud800 badges"'),
        ("rfds",),
        1,
        RFD,
        2,
        "lone surrogate",
    ),
    Case(
        "a number that is not finite in front matter",
        _front_matter("search:\n  boost: .nan\n"),
        ("rfds",),
        1,
        RFD,
        5,
        ".nan is not a finite number",
    ),
    Case(
        "a key twice in front matter",
        _front_matter("status: active\n"),
        ("rfds",),
        1,
        RFD,
        4,
        "duplicate key 'status'",
    ),
    Case(
        "impossible date",
        _replace(RFD, "created: 2026-12-02", "created: 2026-02-31"),
        ("rfds",),
        1,
        RFD,
        7,
        "2026-02-31 is not a date",
    ),
    Case("deep YAML nesting", _front_matter(f"deep: {NESTED}\n"), ("rfds",), 1, RFD, None),
    Case(
        "front matter is a list",
        _write("rfds/listy.md", "---\n- just\n- a list\n---\n\n# Listy\n"),
        ("rfds",),
        1,
        "rfds/listy.md",
        1,
        "front matter is not a YAML mapping",
    ),
    Case(
        "script in the body",
        _replace(
            RFD,
            "Why would we change things?\n",
            "Why would we change things?\n\n<script>alert(1)</script>\n",
        ),
        ("rfds",),
        1,
        RFD,
        PLANTED,
        "raw HTML <script>",
    ),
    Case(
        "iframe in the body",
        _replace(
            RFD,
            "Why would we change things?\n",
            "Why would we change things?\n\nSee <iframe src=x></iframe>.\n",
        ),
        ("rfds",),
        1,
        RFD,
        PLANTED,
        "raw HTML <iframe>",
    ),
    Case(
        "hidden HTML comment",
        _replace(
            RFD,
            "Why would we change things?\n",
            "Why would we change things?\n\n<!-- reviewers never see this -->\n",
        ),
        ("rfds",),
        1,
        RFD,
        PLANTED,
        "an HTML comment",
    ),
    Case(
        "bytes that are not UTF-8",
        _write("rfds/broken.md", b"---\ntitle: x\n---\n\n\xff\xfe\n"),
        ("rfds",),
        1,
        "rfds/broken.md",
        5,
        "not valid UTF-8",
    ),
    Case(
        "a file past the size limit",
        _write("rfds/huge.md", "---\ntitle: x\n---\n" + "word " * 20000),
        ("rfds",),
        1,
        "rfds/huge.md",
        1,
        "larger than 50000 bytes",
    ),
    Case(
        "a 5,000-character heading",
        _replace(
            RFD,
            "Why would we change things?\n",
            "Why would we change things?\n\n### " + "a " * 2500 + "#\n",
        ),
        ("rfds",),
        0,
        "",
        sample=True,
    ),
    Case(
        "front-matter schema that retrieves a reference",
        _replace(
            "schema/rfd-front-matter.schema.json",
            '"items": { "$ref": "#/$defs/handle" }',
            '"items": { "$ref": "https://example.invalid/handle.json" }',
        ),
        ("rfds",),
        2,
        "schema/rfd-front-matter.schema.json",
        1,
        "leaves the document",
    ),
    Case(
        "mkdocs.yml alias bomb",
        lambda repo, _o: (repo / "mkdocs.yml").write_text(
            (repo / "mkdocs.yml").read_text()
            + "extra:\n"
            + "".join(f"  {line}\n" for line in BOMB.splitlines())
        ),
        ("rfds",),
        2,
        "mkdocs.yml",
        None,
        "aliases",
    ),
    Case(
        "markup in a new RFD's title",
        lambda _r, _o: None,
        ("new", "x-rfd", "--title", "<img src=x onerror=alert(1)>", "--author", "octocat"),
        2,
        "--title",
        None,
        "must not hold < or >",
    ),
    Case(
        "a line separator in a new RFD's title",
        lambda _r, _o: None,
        ("new", "x-rfd", "--title", "Two\u2028lines", "--author", "octocat"),
        2,
        "--title",
        None,
        "U+2028 LINE SEPARATOR",
    ),
    Case(
        "bytes that are not UTF-8 in a new RFD's title",
        lambda _r, _o: None,
        ("new", "x-rfd", "--title", b"Okay title \xff".decode("utf-8", "surrogateescape")),
        2,
        "--title",
        None,
        "U+DCFF",
    ),
    Case(
        "a slug too long for a file name",
        lambda _r, _o: None,
        ("new", "a" * 300, "--title", "Okay title", "--author", "octocat"),
        2,
        "is not a kebab-case slug",
        None,
        "at most 64 characters",
    ),
    Case(
        "a slug with a line break at its end",
        lambda _r, _o: None,
        ("new", "x-rfd\n", "--title", "Okay title", "--author", "octocat"),
        2,
        "is not a kebab-case slug",
        None,
        "",
    ),
    Case(
        "brackets Prettier would take minutes on",
        lambda repo, _o: (repo / RFD).write_text((repo / RFD).read_text() + "\n" + "[" * 150_000),
        ("check", "--only", "format"),
        1,
        RFD,
        None,
        "not sent to Prettier",
    ),
    # JSON examples, taken from the rendered page: `acp-docs examples`.
    Case(
        "duplicate keys",
        _json_block('{"sessionUpdate": "plan", "sessionUpdate": "agent_message_chunk"}'),
        EXAMPLES,
        1,
        "docs/hostile.md",
        6,
        "duplicate key 'sessionUpdate'",
    ),
    Case("deep nesting", _json_block(NESTED), EXAMPLES, 1, "docs/hostile.md", 6, "nested deeper"),
    Case(
        "a script in a page",
        _page("Text.\n\n<script>alert(1)</script>\n"),
        ("check", "--only", "build"),
        1,
        "docs/hostile.md",
        5,
        "a <script> element is outside what a page may hold",
    ),
    Case(
        "a script link written as HTML",
        _page('Text.\n\n<a href="java&#x09;script:alert(1)">x</a>\n'),
        ("check", "--only", "build"),
        1,
        "docs/hostile.md",
        5,
        "a javascript: link in href= of <a>",
    ),
    Case(
        "a handler on an element an RFD may use",
        _replace(
            RFD, ANCHOR, ANCHOR + '\n<details ontoggle="alert(1)"><summary>x</summary></details>\n'
        ),
        ("check", "--only", "build", "rfds"),
        1,
        RFD,
        PLANTED,
        "the attribute ontoggle= on <details> is outside what a page may hold",
    ),
    Case(
        "a package.json that is a link out of the checkout",
        lambda repo, outside: (
            (outside / "package.json").write_text('{"prettier": {}}\n'),
            os.symlink(outside / "package.json", repo / "docs" / "package.json"),
        ),
        ("check", "--only", "format"),
        0,
        "",
        bare=True,
    ),
    Case(
        "a 5,000-digit number",
        _json_block('{"n": ' + "9" * 5000 + "}"),
        EXAMPLES,
        1,
        "docs/hostile.md",
        6,
        "number is too long",
    ),
    Case(
        "a lone surrogate",
        _json_block('{"text": "\\ud800"}'),
        EXAMPLES,
        1,
        "docs/hostile.md",
        6,
        "lone UTF-16 surrogate",
    ),
    Case("NaN", _json_block('{"x": NaN}'), EXAMPLES, 1, "docs/hostile.md", 6, "NaN is not JSON"),
    Case(
        "a 4,000-character title",
        _page('```json title="' + "JSON-RPC " + " " * 4000 + '("\n{}\n```\n'),
        EXAMPLES,
        1,
        "docs/hostile.md",
        3,
        "is not a declaration",
    ),
    Case(
        "an invalid block in a blockquote",
        _page(f'> ```json title="{ENTRY} (v1)"\n> {{"text": ""}}\n> ```\n'),
        EXAMPLES,
        1,
        "docs/hostile.md",
        4,  # the member, on the line after the fence
        "should be non-empty",
        sample=True,
    ),
    Case(
        "a block inside an HTML comment is not shown, so not checked",
        _page("<!--\n" + ONE_BLOCK.replace("{}", '{"broken": ') + "-->\n"),
        EXAMPLES,
        0,
        "",
    ),
    Case(
        "an indented code block is not JSON the reader sees",
        _page("    ```json\n    {broken\n    ```\n"),
        EXAMPLES,
        0,
        "",
    ),
    Case(
        "title in braces, in another order",
        _page(f'```{{ title="{ENTRY} (v1)" .json }}\n{{"text": 5}}\n```\n'),
        EXAMPLES,
        1,
        "docs/hostile.md",
        4,  # the member, on the line after the fence
        "is not of type 'string'",
        sample=True,
    ),
    Case(
        "a tilde fence",
        _page(f'~~~json title="{ENTRY} (v1)"\n{{}}\n~~~\n'),
        EXAMPLES,
        1,
        "docs/hostile.md",
        4,  # the member, on the line after the fence
        "'text' is a required property",
        sample=True,
    ),
    Case(
        "malformed markdown_extensions",
        _replace("mkdocs.yml", "  - abbr\n", "  - {abbr: {}, admonition: {}}\n"),
        ("examples",),
        2,
        "mkdocs.yml",
        None,
        "markdown_extensions",
    ),
    # mkdocs.yml, which MkDocs reads with a loader that runs code: refused before it does.
    Case(
        "a Python tag in mkdocs.yml",
        _append_config('extra:\n  x: !!python/object/apply:os.system ["echo ran > {victim}"]\n'),
        ("check",),
        2,
        "mkdocs.yml",
        CONFIG_END + 2,
        "makes MkDocs run Python code",
    ),
    Case(
        "a Python name outside the Markdown and theme packages",
        _append_config("extra:\n  x: !!python/name:os.system\n"),
        ("examples",),
        2,
        "mkdocs.yml",
        CONFIG_END + 2,
        "!!python/name:os.system makes MkDocs run Python code",
    ),
    Case(
        "hooks",
        lambda repo, outside: (
            _write("docs/hook.py", f"open({str(outside / 'victim.json')!r}, 'w').write('ran')\n")(
                repo, outside
            ),
            _append_config("hooks:\n  - docs/hook.py\n")(repo, outside),
        ),
        ("check",),
        2,
        "mkdocs.yml",
        CONFIG_END + 1,
        "hooks run Python files",
    ),
    Case(
        "INHERIT from outside the checkout",
        lambda repo, outside: (
            (outside / "base.yml").write_text(
                f'x: !!python/object/apply:os.system ["echo ran > {outside / "victim.json"}"]\n'
            ),
            _append_config("INHERIT: {outside}/base.yml\n")(repo, outside),
        ),
        ("check",),
        2,
        "mkdocs.yml",
        CONFIG_END + 1,
        "INHERIT reads another file",
    ),
    Case(
        "!ENV of a variable the site would publish",
        _replace("mkdocs.yml", "site_url: !ENV [ACP_DOCS_SITE_URL", "site_url: !ENV [ACP_SECRET"),
        ("check", "--only", "build"),
        2,
        "mkdocs.yml",
        8,
        "not 'ACP_SECRET'",
    ),
    Case(
        "markup in the site name",
        _replace("mkdocs.yml", "site_name: ACP", "site_name: <img src=x onerror=alert(1)> ACP"),
        ("check", "--only", "build"),
        2,
        "mkdocs.yml",
        1,
        "site_name must be plain text",
    ),
    Case(
        "a theme folder from the checkout",
        _replace("mkdocs.yml", "  font: false\n", "  font: false\n  custom_dir: docs\n"),
        ("check", "--only", "build"),
        2,
        "mkdocs.yml",
        None,
        "templates are code",
    ),
    Case(
        "a Markdown extension that names any module",
        _replace("mkdocs.yml", "  - abbr\n", "  - abbr\n  - this\n"),
        ("examples",),
        2,
        "mkdocs.yml",
        ABBR_LINE + 1,
        "not 'this'",
    ),
    Case(
        "snippets from outside the checkout",
        lambda repo, outside: (
            _replace(
                "mkdocs.yml",
                "  - abbr\n",
                '  - abbr\n  - pymdownx.snippets:\n      base_path: ["/"]\n',
            )(repo, outside),
            _page(f'--8<-- "{outside / "secret.md"}"\n')(repo, outside),
        ),
        ("check",),
        2,
        "mkdocs.yml",
        ABBR_LINE + 1,
        "pymdownx.snippets is not allowed here",
    ),
    Case(
        "a plugin that fetches from the network",
        _replace("mkdocs.yml", "  - acp-docs\n", "  - acp-docs\n  - privacy\n"),
        ("check", "--only", "build"),
        2,
        "mkdocs.yml",
        None,
        "not 'privacy' (it fetches from the network)",
    ),
    Case(
        "a script from another host",
        _replace(
            "mkdocs.yml",
            "extra_javascript:\n",
            "extra_javascript:\n  - https://example.invalid/x.js\n",
        ),
        ("check", "--only", "build"),
        2,
        "mkdocs.yml",
        None,
        "extra_javascript[0] must be a relative path",
    ),
    Case(
        "modules at the root named like ones the build imports",
        _shadowing_modules,
        ("check", "--only", "build"),
        0,
        "",
    ),
    Case(
        "a Prettier configuration that is a script",
        lambda repo, outside: _write(
            "docs/prettier.config.mjs",
            'import { writeFileSync } from "node:fs";\n'
            f"writeFileSync({json.dumps(str(outside / 'victim.json'))}, 'ran');\n"
            "export default {};\n",
        )(repo, outside),
        ("check", "--only", "format"),
        1,
        "docs/prettier.config.mjs",
        1,
        "Prettier configuration is not read",
        bare=True,
    ),
    Case(
        "a file name that is not UTF-8",
        lambda repo, _o: (repo / "docs").joinpath(os.fsdecode(b"caf\xe9.md")).write_text("# x\n"),
        ("check", "--only", "files", "links"),
        2,
        "docs/caf\\xe9.md",
        None,
        "the file name is not UTF-8",
    ),
    # Standalone payload files: `acp-docs validate`.
    Case(
        "/dev/zero",
        lambda _r, _o: None,
        ("validate", "--protocol", "v1", "--def", "SessionUpdate", "/dev/zero"),
        2,
        "/dev/zero",
        None,
        "not a regular file",
    ),
    Case(
        "a FIFO",
        _fifo("payload.json"),
        ("validate", "--protocol", "v1", "--def", "SessionUpdate", "payload.json"),
        2,
        "payload.json",
        None,
        "not a regular file",
    ),
    Case(
        "a word list that is a FIFO",
        lambda repo, outside: (
            _replace(".pyspelling.yml", "- .wordlist.txt", "- words.txt")(repo, outside),
            _fifo("words.txt")(repo, outside),
        ),
        ("check", "--only", "spell"),
        2,
        "words.txt",
        None,
        "a word list must be a regular file inside the checkout",
    ),
    Case(
        "a directory",
        lambda _r, _o: None,
        ("validate", "--protocol", "v1", "--def", "SessionUpdate", "docs"),
        2,
        "docs",
        None,
        "is a directory",
    ),
    Case(
        "a huge number in a payload file",
        _write("payload.json", '{"n": ' + "1" * 5000 + "}"),
        ("validate", "--protocol", "v1", "--def", "SessionUpdate", "payload.json"),
        2,
        "payload.json",
        1,
        "too long",
    ),
    Case(
        "nesting in a payload file",
        _write("payload.json", NESTED),
        ("validate", "--protocol", "v1", "--def", "SessionUpdate", "payload.json"),
        2,
        "payload.json",
        1,
        "nested deeper",
    ),
    Case(
        "duplicate keys in a fixture",
        _write(
            "schema/examples/v1/valid/SessionUpdate.dup.json",
            '{"sessionUpdate": "plan", "entries": [], "entries": [{}]}\n',
        ),
        ("check", "--only", "examples"),
        1,
        "schema/examples/v1/valid/SessionUpdate.dup.json",
        1,
        "duplicate key",
    ),
    # Schema sources: `acp-docs schema merge`.
    Case(
        "alias bomb in a schema source",
        _replace(SOURCE, "shared:\n", "bomb:\n  " + BOMB.replace("\n", "\n  ") + "\nshared:\n"),
        ("schema", "merge", "--protocol", "v1"),
        2,
        SOURCE,
        None,
        "aliases",
    ),
    Case(
        "a remote $ref in a schema source",
        _replace(
            SOURCE,
            f'items: {{ $ref: "#/$defs/{ENTRY}" }}',
            'items: { $ref: "https://example.invalid/x.json" }',
        ),
        ("schema", "merge", "--protocol", "v1"),
        2,
        SOURCE,
        None,
        "leaves the document",
    ),
    Case(
        "a file: $ref in a schema source",
        _replace(
            SOURCE,
            f'items: {{ $ref: "#/$defs/{ENTRY}" }}',
            'items: { $ref: "file:///etc/passwd" }',
        ),
        ("schema", "merge", "--protocol", "v1"),
        2,
        SOURCE,
        None,
        "leaves the document",
    ),
    Case(
        "a backtracking pattern RE2 cannot run",
        _replace(
            SOURCE,
            "        minLength: 1\n",
            "        minLength: 1\n        pattern: '^(?=a)(a+)+$'\n",
        ),
        ("schema", "merge", "--protocol", "v1"),
        2,
        SOURCE,
        None,
        "is not RE2 syntax",
    ),
    Case(
        "a $ref to the whole schema, generated",
        _replace(
            SOURCE,
            f'items: {{ $ref: "#/$defs/{ENTRY}" }}',
            'items: { $ref: "#" }',
        ),
        ("schema", "generate"),
        1,
        SOURCE,
        None,
        "leaves the schema",
    ),
    Case(
        "a lone surrogate in a schema source",
        _replace(SOURCE, "title: session badges capability", 'title: "x \\U0000DFFF"'),
        ("schema", "generate"),
        2,
        SOURCE,
        None,
        "lone surrogate",
    ),
    Case(
        "a YAML date where a string belongs",
        _replace(SOURCE, "title: session badges capability", "title: 2026-02-31"),
        ("schema", "check"),
        1,
        FRAGMENT,
        4,
        "differs from its source",
    ),
    # Writes: `acp-docs schema generate` and `schema merge --output`.
    Case(
        "a planted symlink at a fragment",
        lambda repo, outside: (
            (repo / FRAGMENT).unlink(),
            os.symlink(outside / "victim.json", repo / FRAGMENT),
        ),
        ("schema", "generate"),
        2,
        FRAGMENT,
        None,
        "refusing to write through a symlink",
    ),
    Case(
        "--output is a directory",
        lambda _r, _o: None,
        ("schema", "merge", "--protocol", "v1", "--output", "docs"),
        2,
        "docs",
        None,
        "refusing to write",
    ),
    Case(
        "--output through a symlink",
        lambda repo, outside: os.symlink(outside / "victim.json", repo / "merged.json"),
        ("schema", "merge", "--protocol", "v1", "--output", "merged.json"),
        2,
        "merged.json",
        None,
        "refusing to write through a symlink",
    ),
]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the checkout, holding what a hostile link points at."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(f"# {SECRET}\n")
    (folder / "secret.json").write_text(f'{{"text": "{SECRET}"}}\n')
    (folder / "victim.json").write_text("untouched\n")
    return folder


WARM_UP = (
    ("rfds",),
    ("examples", "docs/index.md"),
    ("validate", "--protocol", "v1", "--def", "SessionUpdate", "mkdocs.yml"),
    ("schema", "check"),
)
"""Commands run in this process on an untouched checkout before its kind's cases fork."""


class Checkouts:
    """The checkouts cases plant into, each made afresh at one place, from a template.

    `repo` is the repository, `sample` it with the sample RFD, and `bare` a
    checkout with only `mkdocs.yml`, `docs/` and node_modules (the format check
    walks the whole checkout; a case on one Prettier input needs nothing else).
    A case's checkout is always at the same path, so what the engine keeps
    between runs of one process (`acp_docs.core.memo`, keyed by path and
    content) from `WARM_UP`, run here on an untouched copy, is found again by
    each forked child wherever the case left the files as they were.
    """

    def __init__(self, folder: Path, sample_template: Path) -> None:
        self.place = folder / "checkout"
        self.sample_template = sample_template
        self.warm: str | None = None

    def fresh(self, kind: str) -> Path:
        """An untouched checkout of `kind` at `self.place / "repo"`."""
        if self.place.exists():
            shutil.rmtree(self.place)
        self.place.mkdir()
        if kind == "bare":
            root = self.place / "repo"
            (root / "docs").mkdir(parents=True)
            (root / "node_modules").symlink_to(ROOT / "node_modules")
            (root / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
            return root
        if kind == "repo":
            return copy_repo(self.place)
        return copy_sample(self.sample_template, self.place)

    def make(self, kind: str) -> Path:
        """A fresh checkout of `kind`, this process warm for it (the last kind warmed)."""
        if kind != "bare" and self.warm != kind:
            untouched = self.fresh(kind)
            for args in WARM_UP:
                in_process(list(args), cwd=untouched, env={"ACP_SECRET": SECRET})
            self.warm = kind
        return self.fresh(kind)

    def keep(self, tmp_path: Path) -> None:
        """Move the case's checkout into its own folder (kept when the case fails)."""
        if self.place.exists():
            self.place.rename(tmp_path / "checkout")


@pytest.fixture(scope="module")
def checkouts(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Checkouts:
    """The checkouts of this module's cases (see `Checkouts`)."""
    return Checkouts(tmp_path_factory.mktemp("hostile"), sample_template)


@pytest.fixture
def checkout(
    request: pytest.FixtureRequest, checkouts: Checkouts, tmp_path: Path
) -> Iterator[Path]:
    """The checkout of the running case: its kind, fresh, at the one place."""
    yield checkouts.make(request.node.callspec.params["case"].kind)
    checkouts.keep(tmp_path)


KINDS = ("bare", "repo", "sample")


@pytest.mark.parametrize(
    "case",
    [
        # `acp-docs check` builds the site (all but the format check): a `build` test.
        pytest.param(c, id=c.name, marks=pytest.mark.build)
        if c.command[0] == "check" and c.command[1:] != ("--only", "format")
        else pytest.param(c, id=c.name)
        # One kind of checkout after the other: each warms this process once.
        for c in sorted(CASES, key=lambda c: KINDS.index(c.kind))
    ],
)
def test_hostile_input(checkout: Path, outside: Path, case: Case) -> None:
    env = (
        {"ACP_DOCS_MAX_FILE_BYTES": "50000"} if case.name == "a file past the size limit" else None
    )
    case.plant(checkout, outside)
    before = snapshot(checkout)
    victim = (outside / "victim.json").read_text()
    result = acp(checkout, *case.command, env=env)
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in out + err, err
    assert result.returncode == case.status, out + err
    assert snapshot(checkout) == before, "a check changed the checkout"
    assert (outside / "victim.json").read_text() == victim
    if not case.where:
        return
    said = out if case.status == 1 else err
    lines = [ln for ln in said.splitlines() if case.where in ln and case.says in ln]
    assert lines, said
    if case.line is not None and case.status == 1:
        assert any(ln.startswith(f"{case.where}:{case.line}:") for ln in lines), lines
    elif case.line is not None:
        assert any(f" {case.where}:{case.line}:" in ln for ln in lines), lines


@pytest.mark.build
def test_hostile_links_and_files_are_findings_and_never_published(
    repo_copy: Path, outside: Path, tmp_path: Path
) -> None:
    links = {
        "docs/secret.md": str(outside / "secret.md"),
        "docs/environ.txt": "/proc/self/environ",
        "docs/loop": "..",
        "docs/loop-again": "..",
        "docs/gone.md": str(outside / "nothing-here.md"),
        "rfds/evil.md": str(outside / "secret.md"),
        "schema/examples/v1/valid/SessionUpdate.evil.json": str(outside / "secret.json"),
        "schema/outside": str(outside),
    }
    for rel, target in links.items():
        os.symlink(target, repo_copy / rel)
    os.mkfifo(repo_copy / "docs" / "fifo.md")
    (repo_copy / "docs" / "a\n::error file=mkdocs.yml::forged.md").write_text("# x\n")
    before = snapshot(repo_copy)

    result = acp(repo_copy, "check", "--skip", "spell", "format")
    out = result.stdout.decode("utf-8", "replace")
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in out + err
    assert result.returncode == 1, out + err
    for rel in [*links, "docs/fifo.md"]:
        assert any(ln.startswith(f"{rel}:1:1: ") for ln in out.splitlines()), (rel, out)
    assert (
        "docs/a\\n::error file=mkdocs.yml::forged.md:1:1: error: the file name holds control" in out
    )
    assert SECRET not in out + err
    assert snapshot(repo_copy) == before

    github = acp(repo_copy, "check", "--only", "files", env={"GITHUB_ACTIONS": "true"})
    commands = [ln for ln in github.stdout.decode().splitlines() if ln.startswith("::")]
    assert len(commands) == len(links) + 2
    assert not any(c.startswith("::error file=mkdocs.yml") for c in commands)

    site = tmp_path / "site"
    build = subprocess.run(
        [str(BIN / "mkdocs"), "build", "--site-dir", str(site)],
        cwd=repo_copy,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "ACP_SECRET": SECRET},
        capture_output=True,
        timeout=TIME_LIMIT,
        preexec_fn=_limits,
    )
    assert build.returncode == 0, build.stderr.decode()
    assert "Traceback" not in build.stderr.decode()
    for path in site.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
            assert b"ACP_SECRET" not in path.read_bytes(), path
    assert not (site / "environ.txt").exists()
    assert not (site / "secret").exists()


@pytest.mark.build
def test_rfd_values_are_escaped_in_generated_pages(sample_copy: Path, tmp_path: Path) -> None:
    replace_in(
        sample_copy / RFD,
        f'title: "{SAMPLE.title}"\n',
        'title: "Tips </script><script>alert(1)</script> [x](javascript:alert(2)) <b>bold</b>"\n',
    )
    replace_in(sample_copy / RFD, "  - octocat\n", '  - "<img src=x onerror=alert(3)>"\n')
    rfd = sample_copy / RFD
    rfd.write_text(
        re.sub(
            r"^discussion: .*$",
            'discussion: "javascript:alert(4)"',
            rfd.read_text(),
            count=1,
            flags=re.M,
        )
    )
    replace_in(
        sample_copy / "mkdocs.yml",
        f'- "{SAMPLE.title}": {RFD}',
        f"- Tips: {RFD}",
    )
    site = tmp_path / "site"
    build = subprocess.run(
        [str(BIN / "mkdocs"), "build", "--site-dir", str(site)],
        cwd=sample_copy,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        timeout=TIME_LIMIT,
    )
    assert build.returncode == 0, build.stderr.decode()
    for page in ("rfds/index.html", "rfds/draft/index.html"):
        html = (site / page).read_text()
        table = html.split("<table>", 1)[1].split("</table>", 1)[0]
        assert "<script>" not in table and "</script>" not in table
        assert 'href="javascript:' not in html
        assert "<b>bold</b>" not in table
        assert "&lt;/script&gt;&lt;script&gt;alert(1)" in table
    page = (site / SAMPLE.page / "index.html").read_text()
    assert "<script>alert(1)" not in page and "</script><script>" not in page
    assert "<title>RFD: Tips &lt;/script&gt;&lt;script&gt;alert(1)" in page
    header = page.split('<dl class="acp-rfd-header"', 1)[1].split("</dl>", 1)[0]
    assert "<img" not in header and "@&lt;img src=x onerror=alert(3)&gt;" in header
    assert "javascript:" not in header and "<dt>Discussion</dt><dd>none yet</dd>" in header
    lint = acp(sample_copy, "rfds")
    assert lint.returncode == 1
    assert f"{RFD}:2:1: error: front matter `title`" in lint.stdout.decode()


@pytest.mark.build
def test_a_check_error_cannot_forge_a_line_or_move_the_terminal(repo_copy: Path) -> None:
    # MkDocs quotes a bad theme name as it is: the escape and the newline come back in its error.
    replace_in(
        repo_copy / "mkdocs.yml", "  name: material\n", '  name: "x\\e[2J\\n::error::forged"\n'
    )
    result = acp(repo_copy, "check", "--only", "build")
    assert result.returncode == 2
    assert b"theme.name must be" in result.stderr
    assert b"\x1b" not in result.stderr + result.stdout
    lines = (result.stderr + result.stdout).splitlines()
    assert not [line for line in lines if line.startswith(b"::")], lines


@pytest.mark.build
def test_unsafe_link_schemes_are_findings(sample_copy: Path) -> None:
    replace_in(
        sample_copy / RFD,
        "Why would we change things?\n",
        "Why would we change things?\n\n"
        "See [this](javascript:alert(1)) and [that](data:text/html,x).\n\n"
        "And [the other](java&#x09;script:alert(2)), which a browser runs all the same.\n",
    )
    result = acp(sample_copy, "check", "--only", "links", "build")
    out = result.stdout.decode()
    assert result.returncode == 1
    lines = out.splitlines()
    scheme = [ln for ln in lines if "the javascript: scheme is not allowed" in ln]
    assert [ln.split(": error: link ")[0] for ln in scheme] == [
        f"{RFD}:{PLANTED}:12",
        f"{RFD}:{PLANTED + 2}:17",
    ], lines
    assert "the data: scheme is not allowed" in out
    # Each is reported once: by the links check, not again as active HTML.
    assert not [ln for ln in lines if "would run in the reader's browser" in ln], lines


def test_concurrent_generates_do_not_race(sample_copy: Path) -> None:
    (sample_copy / FRAGMENT).write_text("{}\n")
    command = ("schema", "generate")
    gate = os.pipe()
    try:
        started = [start(sample_copy, *command, gate=gate) for _ in range(4)]
    finally:
        os.close(gate[1])  # the four start together
        os.close(gate[0])
    for pid, outputs in started:
        process = finish(pid, outputs, command)
        assert process.returncode == 0, process.stderr
        assert b"Traceback" not in process.stderr
    assert acp(sample_copy, "schema", "check").returncode == 0
    assert not [p for p in (sample_copy / FRAGMENT).parent.iterdir() if p.name.startswith(".")]


@pytest.mark.build
def test_check_and_build_need_no_network(sample_copy: Path, tmp_path: Path) -> None:
    """No network at all (a fresh network namespace): the checks and the build still pass."""
    require_network_namespace()
    require_tool("aspell", "Aspell")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    env.pop("GITHUB_ACTIONS", None)
    check = subprocess.run(
        ["unshare", "--net", str(BIN / "acp-docs"), "check"],
        cwd=sample_copy,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
    build = subprocess.run(
        ["unshare", "--net", str(BIN / "mkdocs"), "build", "--strict", "-d", str(tmp_path / "s")],
        cwd=sample_copy,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr.decode()
