"""The official JSON-Schema-Test-Suite (draft 2020-12) through both of our validation paths.

Each case goes through the yes-or-no path (`decide.Decider`, jsonschema-rs, as
`SchemaSet` uses it) and the explain path (python-jsonschema as `schemacheck`
configures it, each `if` decided by jsonschema-rs), and both must agree with
the suite's `valid`. The groups skipped are listed in `SKIPPED`, with why; each
is checked to be refused with a clear error instead.

`python tests/test_jsonschema_suite.py` prints the counts.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from acp_docs.schemalib import decide, schemacheck

SUITE = Path(__file__).parent / "data" / "JSON-Schema-Test-Suite" / "tests" / "draft2020-12"
URI = "json-schema:///acp-docs/suite.json"

REMOTE = "refers to a schema the suite serves at localhost:1234: nothing is retrieved, by design"
METASCHEMA = "its $schema is a metaschema the suite serves at localhost:1234: nothing is retrieved"
UNICODE_NAME = (
    r"\p{Letter} is not RE2 syntax (RE2 writes \pL): schemacheck.problems refuses the pattern"
)
SKIPPED: dict[tuple[str, str | None], str] = {
    ("refRemote.json", None): REMOTE,
    ("vocabulary.json", None): METASCHEMA,
    ("dynamicRef.json", "strict-tree schema, guards against misspelled properties"): REMOTE,
    ("dynamicRef.json", "tests for implementation dynamic anchor and reference link"): REMOTE,
    ("dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $defs first"): REMOTE,
    ("dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $ref first"): REMOTE,
    ("dynamicRef.json", "$ref to $dynamicRef finds detached $dynamicAnchor"): REMOTE,
    ("pattern.json", "pattern with Unicode property escape requires unicode mode"): UNICODE_NAME,
    ("patternProperties.json", "patternProperties with Unicode property escape"): UNICODE_NAME,
}
"""(file, group description or None for the whole file) -> why the group is not run."""

FILES = sorted(path.name for path in SUITE.glob("*.json"))


def _groups(name: str) -> list[dict[str, Any]]:
    return json.loads((SUITE / name).read_text(encoding="utf-8"))


def _skipped(name: str, group: dict[str, Any]) -> str | None:
    return SKIPPED.get((name, None)) or SKIPPED.get((name, group["description"]))


def run_file(name: str) -> tuple[int, list[str]]:
    """(cases run, disagreements) for one file of the suite, skipped groups left out."""
    ran = 0
    wrong: list[str] = []
    for group in _groups(name):
        if _skipped(name, group):
            continue
        decider = decide.Decider({URI: group["schema"]})
        yes_or_no = decider.at(URI, "")
        explainer = schemacheck.validator(group["schema"], decider.valid)
        for case in group["tests"]:
            ran += 1
            decided = bool(yes_or_no.is_valid(case["data"]))
            explained = next(iter(explainer.iter_errors(case["data"])), None) is None
            if decided != case["valid"] or explained != case["valid"]:
                wrong.append(
                    f"{name}: {group['description']} / {case['description']}:"
                    f" jsonschema-rs {decided}, python-jsonschema {explained},"
                    f" the suite {case['valid']}"
                )
    return ran, wrong


@pytest.mark.parametrize("name", FILES)
def test_both_paths_agree_with_the_suite(name: str) -> None:
    ran, wrong = run_file(name)
    assert wrong == []
    whole_file_skipped = (name, None) in SKIPPED
    assert ran > 0 or whole_file_skipped, f"{name}: no case ran"


def test_the_suite_is_all_there() -> None:
    assert len(FILES) >= 40
    assert {"ref.json", "oneOf.json", "if-then-else.json", "pattern.json"} <= set(FILES)


def test_every_skipped_group_exists() -> None:
    for (name, description), _why in SKIPPED.items():
        assert name in FILES, name
        if description is not None:
            assert description in {g["description"] for g in _groups(name)}, description


@pytest.mark.parametrize(("name", "description"), sorted(SKIPPED, key=str))
def test_a_skipped_group_is_refused_with_a_clear_error(name: str, description: str | None) -> None:
    groups = [g for g in _groups(name) if description is None or g["description"] == description]
    for group in groups:
        why = SKIPPED[(name, description)]
        if why == UNICODE_NAME:
            found = [reason for _where, reason in schemacheck.problems(group["schema"])]
            assert found and all("is not RE2 syntax" in reason for reason in found)
            continue
        with pytest.raises(decide.SchemaRefused, match="localhost:1234") as refused:
            decide.Decider({URI: group["schema"]})
        if why == REMOTE:
            assert "leaves the document; nothing is retrieved" in str(refused.value)


def summary() -> Counter[str]:
    """Files, groups and cases run, skipped and passed."""
    counts: Counter[str] = Counter()
    for name in FILES:
        counts["files"] += 1
        for group in _groups(name):
            key = "skipped" if _skipped(name, group) else "run"
            counts[f"groups {key}"] += 1
            counts[f"cases {key}"] += len(group["tests"])
        ran, wrong = run_file(name)
        counts["cases passed"] += ran - len(wrong)
    return counts


if __name__ == "__main__":
    for what, count in summary().items():
        print(f"{what}: {count}")
    sys.exit(0)
