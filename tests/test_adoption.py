"""Other repositories adopt the upstream check in three lines: a pre-commit hook and a
composite action, each run here as pre-commit and GitHub would run it."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from conftest import ROOT, actions_step, run

HOOKS = ROOT / ".pre-commit-hooks.yaml"
ACTION = ROOT / ".github" / "actions" / "acp-docs-upstream" / "action.yml"


def _hook() -> dict:
    (hook,) = yaml.safe_load(HOOKS.read_text())
    return hook


def test_the_hook_is_one_pre_commit_can_run_from_its_copy_of_this_repository() -> None:
    hook = _hook()
    assert hook["id"] == "acp-docs-upstream"
    assert hook["language"] == "script" and hook["pass_filenames"] is False
    entry = ROOT / hook["entry"]  # pre-commit runs a script entry from its clone's root
    assert entry.is_file() and os.access(entry, os.X_OK)


def test_the_hooks_entry_checks_the_tree_it_runs_in(upstream_sample: Path) -> None:
    # As pre-commit runs it: the entry of the hook repository, in the user's repository.
    entry = ROOT / _hook()["entry"]
    result = run([str(entry), "--only", "upstream-links"], cwd=upstream_sample)
    assert result.returncode == 1, result.stderr
    assert "docs/protocol/v1/overview.mdx" in result.stdout
    assert "link '/protocol/v1/gone'" in result.stdout


def test_the_action_runs_its_script_with_inputs_as_environment_not_as_code() -> None:
    action = yaml.safe_load(ACTION.read_text())
    assert action["runs"]["using"] == "composite"
    (node, step) = action["runs"]["steps"]
    assert node["uses"].startswith("actions/setup-node@") and node["with"]["node-version"] == "24"
    assert "${{" not in step["run"], "inputs reach the script as environment variables"
    assert step["env"]["ACP_DOCS_PATH"] == "${{ inputs.path }}"
    assert step["run"] == 'bash "$GITHUB_ACTION_PATH/../../../scripts/upstream-action.sh"'


def test_the_actions_script_annotates_summarizes_and_fails_on_a_tree(
    upstream_sample: Path, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    action_path = ACTION.parent
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp_path),
        "ACP_DOCS_PATH": str(upstream_sample),
        "ACP_DOCS_BASELINE": "",
        "ACP_DOCS_MIN_LEVEL": "warning",
    }
    step = yaml.safe_load(ACTION.read_text())["runs"]["steps"][1]["run"]
    result = actions_step(step, tmp_path, env)
    assert result.returncode == 1, result.stderr
    assert "::error file=docs/protocol/v1/overview.mdx" in result.stdout
    assert "::notice" not in result.stdout
    text = summary.read_text()
    assert text.startswith("### acp-docs check") and "overview&#46;mdx" in text
