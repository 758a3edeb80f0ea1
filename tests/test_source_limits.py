"""A schema source that would expand without end is refused at a line, in bounded time."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_docs.core import protocols
from acp_docs.schema import constructs, source

from conftest import ROOT, acp, no_traceback

VERSIONS = ", ".join(protocols.NAMES)


def test_shared_values_that_double_at_every_level_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The same counter stops the real limit; a lower one keeps the test quick.
    monkeypatch.setattr(constructs, "MAX_VALUES", 5_000)
    levels = 30
    shared = "\n".join(
        f"  s{i}: [{{$shared: s{i + 1}}}, {{$shared: s{i + 1}}}]" for i in range(levels)
    )
    text = (
        f"title: bomb\nversions: [{VERSIONS}]\nshared:\n{shared}\n  s{levels}: x\n"
        "definitions:\n  ZzBomb:\n    type: object\n    description: {$shared: s0}\nchanges: []\n"
    )
    made = source.from_text(ROOT, ROOT / "schema" / "zz-bomb" / "source.yaml", text)
    reasons = [problem.reason for problem in made.problems]
    assert reasons and all("expands to more than 5,000 values" in r for r in reasons), reasons
    assert all(3 < problem.line <= 4 + levels for problem in made.problems)


def test_a_problem_under_a_key_with_a_slash_is_at_that_key_s_line() -> None:
    text = (
        f"title: slash\nversions: [{VERSIONS}]\ndefinitions:\n  ZzSlash:\n    type: object\n"
        "    properties:\n      a/b: {$shared: nope}\nchanges: []\n"
    )
    made = source.from_text(ROOT, ROOT / "schema" / "zz-slash" / "source.yaml", text)
    assert {(p.line, p.reason) for p in made.problems} == {
        (7, "no shared value 'nope' (shared: none)")
    }


def test_a_patch_that_makes_a_base_definition_refer_to_itself_in_place_is_refused(
    repo_copy: Path,
) -> None:
    folder = repo_copy / "schema" / "zz-loop"
    folder.mkdir()
    (folder / "source.yaml").write_text(
        f"title: loop\nversions: [{VERSIONS}]\nchanges:\n"
        "  - op: add\n    path: /$defs/ContentBlock/allOf\n"
        "    value: [{$ref: '#/$defs/ContentBlock'}]\n"
    )
    result = acp(["schema", "check"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    assert (
        "schema/zz-loop/source.yaml:4:1: error: $defs/ContentBlock refers to itself in place"
        in (result.stdout)
    ), result.stdout
