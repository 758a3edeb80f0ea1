"""RFD titles: known characters only, named when not, and no two titles that look the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_docs.policy.titles import TitleAt, check, fold

from conftest import acp, new_rfd, no_traceback


def _one(title: str) -> list[str]:
    return [f.message for f in check([TitleAt("rfds/a.md", 2, title)])]


@pytest.mark.parametrize(
    "title",
    [
        "Session labels",
        "Prompt suggestions: what an Agent may offer (v2)",
        "\u201cSmart\u201d quotes \u2014 dashes \u2013 and\u2026 ellipses\u2019",
        "A & B <-> C_D #1 @octo ~x `code` [x] {y} | 50%",
    ],
)
def test_printable_ascii_and_typographic_marks_are_allowed(title: str) -> None:
    assert check([TitleAt("rfds/a.md", 2, title)]) == []


def test_a_cyrillic_letter_among_latin_ones_is_named_not_printed() -> None:
    (finding,) = check([TitleAt("rfds/session-labels.md", 3, "Session l\u0430bels")])
    assert finding.location() == "rfds/session-labels.md:3:1"
    assert finding.rule_id == "rfds/title-characters"
    assert finding.message.startswith(
        "the title holds U+0430 CYRILLIC SMALL LETTER A (character 10); a title may use"
        " printable ASCII"
    )
    assert "\u0430" not in finding.message


@pytest.mark.parametrize(
    ("title", "named"),
    [
        ("Session\u200b labels", ["U+200B ZERO WIDTH SPACE (character 8)"]),
        (
            "labels\u202e\u2066txt",
            ["U+202E RIGHT-TO-LEFT OVERRIDE (character 7)", "U+2066 LEFT-TO-RIGHT ISOLATE"],
        ),
        ("\ufeffLabels\u061c", ["U+FEFF ZERO WIDTH NO-BREAK SPACE (character 1)", "U+061C"]),
        ("Bell\x07", ["U+0007 <Cc> (character 5)"]),
        ("\u03a1rompt", ["U+03A1 GREEK CAPITAL LETTER RHO"]),
        ("No\u00a0break", ["U+00A0 NO-BREAK SPACE"]),
        ("Caf\u00e9", ["U+00E9 LATIN SMALL LETTER E WITH ACUTE"]),
        ("\u4f1a\u8a71", ["U+4F1A CJK UNIFIED IDEOGRAPH-4F1A", "U+8A71"]),
        ("Sessio\u0301n", ["U+0301 COMBINING ACUTE ACCENT"]),
        ("Fullwidth \uff33", ["U+FF33 FULLWIDTH LATIN CAPITAL LETTER S"]),
    ],
)
def test_every_other_character_is_a_finding_that_names_it(title: str, named: list[str]) -> None:
    (message,) = _one(title)
    for name in named:
        assert name in message, message
    assert all(
        " " <= c <= "~" or c in "\u2018\u2019\u201c\u201d\u2013\u2014\u2026" for c in message
    )


def test_many_characters_make_one_finding_that_names_five_and_counts_the_rest() -> None:
    (message,) = _one("\u0430\u0431\u0432\u0433\u0434\u0435\u0436\u0430")
    assert message.count("CYRILLIC") == 5
    assert "U+0435" not in message and " and 2 more;" in message


@pytest.mark.parametrize(
    "lookalike",
    [
        "SESSION LABELS",
        "session-labels",
        "Session   labels!",
        "\uff33ession labels",
        "Session \u200blabels",
        "\u201cSession\u201d \u2014 labels\u2026",
    ],
)
def test_a_lookalike_of_an_earlier_title_is_a_finding_on_the_later_one(lookalike: str) -> None:
    found = check(
        [
            TitleAt("rfds/z-later.md", 2, lookalike),
            TitleAt("rfds/a-first.md", 4, "Session labels"),
        ]
    )
    lookalikes = [f for f in found if f.rule_id == "rfds/title-lookalike"]
    assert [f.location() for f in lookalikes] == ["rfds/z-later.md:2:1"]
    assert "the title of rfds/a-first.md (line 4)" in lookalikes[0].message


def test_compatibility_forms_fold_together() -> None:
    assert fold("Pro\ufb01le \u2162") == fold("profile iii") == "profile iii"
    assert fold("  A -- b ") == "a b"


def test_distinct_and_exactly_equal_titles_are_no_lookalikes() -> None:
    titles = [
        TitleAt("rfds/a.md", 2, "Session labels"),
        TitleAt("rfds/b.md", 2, "Session label"),
        TitleAt("rfds/c.md", 2, "Labels session"),
        TitleAt("rfds/v2/a.md", 2, "Session labels"),
    ]
    assert check(titles) == []


def test_an_rfd_file_name_with_a_lookalike_letter_is_refused_by_the_rfd_lint(
    repo_copy: Path,
) -> None:
    made = new_rfd(repo_copy, "session-labels", "Session labels")
    source = repo_copy / made.shown
    renamed = source.with_name("s\u0435ssion-labels.md")
    source.rename(renamed)
    result = acp(["rfds", "--format", "json"], cwd=repo_copy)
    no_traceback(result)
    assert result.returncode == 1
    findings = json.loads(result.stdout)["findings"]
    shown = renamed.relative_to(repo_copy).as_posix()
    assert {"path": shown, "rule": "rfds/file-name"}.items() <= next(
        f for f in findings if f["path"] == shown and f["rule"] == "rfds/file-name"
    ).items()
