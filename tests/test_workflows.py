"""The GitHub workflows: each pull request runs the tests and checks; publishing waits for them."""

from __future__ import annotations

import subprocess

import yaml

from conftest import ROOT, run

WORKFLOWS = ROOT / ".github" / "workflows"


def _load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def _on(workflow: dict) -> dict:
    return workflow[True]  # YAML 1.1 reads the `on` key as True


def test_workflows_validate_against_the_github_schema_offline() -> None:
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 2
    result = run(["check-jsonschema", "--builtin-schema", "vendor.github-workflows", *files])
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_pull_request_runs_ruff_the_whole_suite_and_every_check_in_debian() -> None:
    workflow = _load("rfd-lint.yml")
    assert "pull_request" in _on(workflow) and "pull_request_target" not in _on(workflow)
    (job,) = workflow["jobs"].values()
    assert job["container"].endswith("-bookworm"), "Debian, for its chromium and aspell"
    assert job["env"]["CI"] == "true", "tests fail, not skip, when a tool is missing"
    runs = [step.get("run", "") for step in job["steps"]]
    assert "make test" in runs and "make lint" in runs
    # `make test` is what the README gives; make -n prints its commands without running them.
    plan = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True)
    assert plan.returncode == 0, plan.stderr
    for command in ("ruff check", "ruff format --check", "pytest", "acp-docs check"):
        assert command in plan.stdout, command
    system = next(r for r in runs if "system-deps.sh" in r)
    assert system
    script = (ROOT / "scripts" / "system-deps.sh").read_text()
    assert "chromium" in script and "aspell-en" in script


def test_no_step_of_the_pull_request_job_can_pass_when_it_fails() -> None:
    workflow = _load("rfd-lint.yml")
    (job,) = workflow["jobs"].values()
    assert not job.get("continue-on-error")
    for step in job["steps"]:
        assert not step.get("continue-on-error"), step
        script = step.get("run", "")
        assert "|| true" not in script and "set +e" not in script, script
        assert step.get("if") in (None, "github.event_name == 'pull_request'"), step


def test_the_pull_request_job_is_read_only_and_keeps_secrets_out() -> None:
    workflow = _load("rfd-lint.yml")
    assert workflow["permissions"] == {"contents": "read"}
    (job,) = workflow["jobs"].values()
    assert "permissions" not in job
    uses = {s.get("uses", "").split("@")[0]: s for s in job["steps"]}
    assert uses["actions/checkout"]["with"]["persist-credentials"] is False
    assert "secrets." not in (WORKFLOWS / "rfd-lint.yml").read_text()
    callout = next(s for s in job["steps"] if "mkdocs.yml" in s.get("run", ""))
    assert "GITHUB_STEP_SUMMARY" in callout["run"]
    assert "${{" not in callout["run"], "untrusted values reach the script through env only"


def test_pip_and_npm_downloads_are_cached() -> None:
    (job,) = _load("rfd-lint.yml")["jobs"].values()
    uses = {s.get("uses", "").split("@")[0]: s for s in job["steps"]}
    assert uses["actions/setup-node"]["with"]["cache"] == "npm"
    assert uses["actions/cache"]["with"]["path"] == "~/.cache/pip"
    assert "requirements.lock" in uses["actions/cache"]["with"]["key"]


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
    assert "permissions" not in jobs["build"]
    assert any("make build" in s.get("run", "") for s in jobs["build"]["steps"])
