"""The GitHub workflows: valid against the workflow JSON Schema, with minimal permissions."""

from __future__ import annotations

import yaml

from conftest import ROOT, run

WORKFLOWS = ROOT / ".github" / "workflows"


def test_workflows_validate_against_the_github_schema_offline() -> None:
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert len(files) == 2
    result = run(["check-jsonschema", "--builtin-schema", "vendor.github-workflows", *files])
    assert result.returncode == 0, result.stdout + result.stderr


def test_invalid_workflow_is_rejected_by_the_schema(tmp_path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("name: x\non: push\njobs:\n  a:\n    steps: nope\n")
    result = run(["check-jsonschema", "--builtin-schema", "vendor.github-workflows", str(bad)])
    assert result.returncode == 1


def _load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text())


def test_pull_request_lint_is_read_only_and_runs_make_check() -> None:
    workflow = _load("rfd-lint.yml")
    assert "pull_request" in workflow[True]  # YAML 1.1 reads the `on` key as True
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["check"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert any("make check" in r for r in runs)
    assert any("aspell" in r for r in runs)
    uses = {s.get("uses", "").split("@")[0]: s for s in steps}
    assert uses["actions/checkout"]["with"]["persist-credentials"] is False
    assert "pull_request_target" not in workflow[True]
    text = (WORKFLOWS / "rfd-lint.yml").read_text()
    assert "secrets." not in text
    callout = next(s for s in steps if "mkdocs.yml" in s.get("run", ""))
    assert "GITHUB_STEP_SUMMARY" in callout["run"]
    assert "${{" not in callout["run"], "untrusted values reach the script through env only"
    assert uses["actions/setup-python"]["with"]["cache"] == "pip"
    assert uses["actions/setup-node"]["with"]["cache"] == "npm"


def test_publish_deploys_from_main_with_only_pages_permissions() -> None:
    workflow = _load("publish.yml")
    assert workflow[True]["push"]["branches"] == ["main"]
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert "permissions" not in workflow["jobs"]["build"]
    assert any("make build" in s.get("run", "") for s in workflow["jobs"]["build"]["steps"])
