"""An RFD's requirements are bound to its sentences both ways, and a bad file is a finding.

Each test makes its own RFD with `acp-docs new` in a copy of the checkout, gives
it a section of rules and a `requirements.yaml`, and runs `acp-docs rfds` as a
user does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from acp_docs.core import protocols

from conftest import NewRfd, acp, copy_repo, new_rfd, no_traceback

OLDEST = protocols.NAMES[0]
RULES = """
### Rules for Agents

- An Agent MUST wave when a turn ends. It MAY also smile.
"""
REQUIREMENTS = """\
requirements:
  - id: SLUG/wave
    tier: MANDATORY
    party: agent
    versions: [VERSION]
    cite: rules-for-agents
    text: An Agent MUST wave when a turn ends.
    binds:
      - An Agent MUST wave when a turn ends.
    untested: Waving is what an Agent does, not what it sends.
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, NewRfd]:
    checkout = copy_repo(tmp_path_factory.mktemp("requirements"))
    rfd = new_rfd(checkout, "rules-binding", "Rules binding")
    path = checkout / rfd.shown
    path.write_text(path.read_text() + RULES)
    (checkout / "schema" / rfd.slug).mkdir(exist_ok=True)
    return checkout, rfd


def _write(made: tuple[Path, NewRfd], requirements: str, rules: str = RULES) -> Path:
    checkout, rfd = made
    path = checkout / rfd.shown
    text = path.read_text()
    path.write_text(text[: text.index("\n### Rules for Agents")] + rules)
    target = checkout / "schema" / rfd.slug / "requirements.yaml"
    if target.is_symlink():
        target.unlink()
    target.write_text(requirements.replace("SLUG", rfd.slug).replace("VERSION", OLDEST))
    return target


def _findings(made: tuple[Path, NewRfd], prefix: str = "rfds/requirement") -> list[dict]:
    checkout, _rfd = made
    result = acp(["rfds", "--format", "json"], cwd=checkout)
    no_traceback(result)
    found = json.loads(result.stdout)["findings"]
    return [f for f in found if f["rule"].startswith(prefix) or f["rule"] == "rfds/unbound-rule"]


def _line(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def test_every_rule_bound_to_a_requirement_is_clean(made: tuple[Path, NewRfd]) -> None:
    _write(made, REQUIREMENTS)
    assert _findings(made) == []


def test_a_new_must_with_no_requirement_fails_at_its_line(made: tuple[Path, NewRfd]) -> None:
    _write(made, REQUIREMENTS, RULES + "- A Client SHOULD wave back.\n")
    checkout, rfd = made
    text = (checkout / rfd.shown).read_text()
    found = _findings(made)
    assert [(f["path"], f["line"], f["rule"]) for f in found] == [
        (rfd.shown, _line(text, "- A Client SHOULD"), "rfds/unbound-rule")
    ]
    assert "A Client SHOULD wave back." in found[0]["message"]


def test_a_requirement_citing_a_missing_heading_fails_at_its_line(
    made: tuple[Path, NewRfd],
) -> None:
    written = _write(made, REQUIREMENTS.replace("cite: rules-for-agents", "cite: no-such-rule"))
    found = _findings(made)
    assert found and {f["rule"] for f in found} == {"rfds/requirement-cite"}
    line = _line(written.read_text(), "cite: no-such-rule")
    assert [f["line"] for f in found] == [line]
    assert found[0]["path"].endswith("/requirements.yaml")
    assert "#no-such-rule, which is not a heading" in found[0]["message"]


def test_a_quote_the_rfd_does_not_hold_fails_at_its_line(made: tuple[Path, NewRfd]) -> None:
    written = _write(
        made,
        REQUIREMENTS.replace(
            "      - An Agent MUST wave when a turn ends.",
            "      - An Agent MUST wave when a turn ends.\n      - An Agent MUST dance all night",
        ),
    )
    found = _findings(made)
    assert [(f["rule"], f["line"]) for f in found] == [
        ("rfds/requirement-quote", _line(written.read_text(), "- An Agent MUST dance"))
    ]


def test_a_requirement_judged_on_the_wire_needs_its_check(made: tuple[Path, NewRfd]) -> None:
    _write(
        made,
        REQUIREMENTS.replace(
            "    untested: Waving is what an Agent does, not what it sends.", "    judged: always"
        ),
    )
    found = _findings(made)
    assert [f["rule"] for f in found] == ["rfds/requirement-check"]
    assert "has no check of that id" in found[0]["message"]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda t: t.replace("tier: MANDATORY", "tier: SOMETIMES"), "/requirements/0/tier"),
        (lambda t: t.replace("versions: [VERSION]", "versions: [v99]"), "unknown ACP protocol"),
        (lambda t: t.replace("id: SLUG/wave", "id: another-rfd/wave"), "must start with"),
        (lambda t: t + "    judged: always\n", "/requirements/0"),
        (lambda t: t.replace("tier: MANDATORY", "tier: CAPABILITY"), "capability"),
        (lambda t: t.replace("requirements:", "requirements: ["), "YAML"),
        (lambda t: t + "  - id: SLUG/wave\n" + t.split("- id: SLUG/wave\n", 1)[1], "also at"),
        (lambda t: t.replace("text: An Agent", "text: \x1b[31mAn Agent"), "special characters"),
        (
            lambda t: t.replace(
                "text: An Agent MUST wave when a turn ends.",
                'text: "\\a An Agent MUST wave when a turn ends."',
            ),
            "/requirements/0/text",
        ),
    ],
)
def test_a_bad_requirements_file_is_a_finding_at_its_line(
    made: tuple[Path, NewRfd], change, said: str
) -> None:
    written = _write(made, change(REQUIREMENTS))
    found = _findings(made, "rfds/requirements")
    found = [f for f in found if f["rule"] == "rfds/requirements"]
    assert len(found) == 1, found
    assert found[0]["path"].endswith(f"{written.parent.name}/requirements.yaml")
    assert said in found[0]["message"]
    assert found[0]["line"] >= 1


def test_a_linked_requirements_file_is_not_followed(
    made: tuple[Path, NewRfd], tmp_path: Path
) -> None:
    written = _write(made, REQUIREMENTS)
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(written.read_text())
    written.unlink()
    written.symlink_to(outside)
    found = [f for f in _findings(made, "rfds/requirements") if f["rule"] == "rfds/requirements"]
    assert len(found) == 1 and "link" in found[0]["message"], found
    written.unlink()


def test_trace_stops_with_the_place_of_a_bad_requirements_file(
    made: tuple[Path, NewRfd], tmp_path: Path
) -> None:
    checkout, rfd = made
    _write(made, REQUIREMENTS.replace("tier: MANDATORY", "tier: SOMETIMES"))
    trace = tmp_path / "empty.jsonl"
    trace.write_text("")
    result = acp(["trace", "--protocol", OLDEST, str(trace)], cwd=checkout)
    no_traceback(result)
    assert result.returncode == 2
    assert re.search(
        rf"schema/{rfd.slug}/requirements\.yaml:\d+: at /requirements/0/tier", result.stderr
    )
    _write(made, REQUIREMENTS)


@pytest.mark.build
def test_the_conformance_page_lists_every_requirement_with_its_citation(built_site: Path) -> None:
    from acp_docs.config.repo import Repo
    from acp_docs.rfds.files import requirement_sets

    from conftest import ROOT

    page = (built_site / "tooling" / "conformance" / "index.html").read_text()
    sets = requirement_sets(Repo.load(ROOT))
    for reqs in sets:
        for req in reqs.requirements:
            assert f"<code>{req.id}</code>" in page
            assert f'href="../../{req.rfd.removesuffix(".md")}/#{req.cite}"' in page


@pytest.mark.parametrize(
    "hidden",
    [
        "- An Agent &#77;UST NOT resend an old offer.",
        "- An Agent M<sub></sub>UST NOT resend an old offer.",
        "- An Agent MU\u200bST NOT resend an old offer.",
        "- An Agent \u041cUST NOT resend an old offer.",
        "- An Agent \uff2d\uff35\uff33\uff34 NOT resend an old offer.",
        "#### An Agent MUST NOT resend an old offer",
        "> A Client SHOULD log every offer it drops.",
    ],
)
def test_a_rule_written_to_hide_its_keyword_is_still_a_rule(
    made: tuple[Path, NewRfd], hidden: str
) -> None:
    _write(made, REQUIREMENTS, RULES + "\n" + hidden + "\n")
    checkout, rfd = made
    text = (checkout / rfd.shown).read_text()
    found = _findings(made)
    assert [(f["rule"], f["line"]) for f in found] == [
        ("rfds/unbound-rule", _line(text, hidden))
    ], found


def test_a_keyword_inside_code_is_no_rule(made: tuple[Path, NewRfd]) -> None:
    _write(made, REQUIREMENTS, RULES + "\nThe header is `Cache-Control: MUST-REVALIDATE`.\n")
    assert _findings(made) == []


def test_a_quote_that_names_several_sentences_binds_none(made: tuple[Path, NewRfd]) -> None:
    written = _write(
        made,
        REQUIREMENTS.replace(
            "      - An Agent MUST wave when a turn ends.", "      - MUST wave when a turn ends"
        ),
        RULES + "- A Client MUST wave when a turn ends, too.\n",
    )
    found = _findings(made)
    rules = sorted(f["rule"] for f in found)
    assert rules == ["rfds/requirement-quote", "rfds/unbound-rule", "rfds/unbound-rule"], found
    quote = next(f for f in found if f["rule"] == "rfds/requirement-quote")
    assert "is in 2 sentences" in quote["message"]
    assert quote["line"] == _line(written.read_text(), "- MUST wave")


def test_a_must_quoted_only_by_an_advisory_requirement_fails_at_its_line(
    made: tuple[Path, NewRfd],
) -> None:
    _write(made, REQUIREMENTS.replace("tier: MANDATORY", "tier: ADVISORY"))
    checkout, rfd = made
    text = (checkout / rfd.shown).read_text()
    found = _findings(made)
    assert [(f["rule"], f["line"]) for f in found] == [
        ("rfds/requirement-tier", _line(text, "- An Agent MUST wave"))
    ], found
    assert "(ADVISORY)" in found[0]["message"] and "MANDATORY or CAPABILITY" in found[0]["message"]


def test_a_should_in_a_sentence_bound_as_a_must_needs_its_own_advisory_requirement(
    made: tuple[Path, NewRfd],
) -> None:
    both = "\n### Rules for Agents\n\n- An Agent MUST wave when a turn ends, and SHOULD smile.\n"
    mandatory = REQUIREMENTS.replace(
        "      - An Agent MUST wave when a turn ends.",
        "      - An Agent MUST wave when a turn ends",
    )
    _write(made, mandatory, both)
    found = _findings(made)
    assert [f["rule"] for f in found] == ["rfds/requirement-tier"], found
    assert "the SHOULD of" in found[0]["message"]
    advisory = mandatory + (
        "  - id: SLUG/smile\n    tier: ADVISORY\n    party: agent\n    versions: [VERSION]\n"
        "    cite: rules-for-agents\n    text: An Agent SHOULD smile.\n    binds:\n"
        "      - and SHOULD smile\n    untested: A smile is not on the wire.\n"
    )
    _write(made, advisory, both)
    assert [f["message"] for f in _findings(made)] == []
