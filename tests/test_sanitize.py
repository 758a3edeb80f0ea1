"""The allowlist's last guard: whatever the sanitizer changes in a page is a problem, found
without holding the page's elements twice."""

from __future__ import annotations

import pytest

from acp_docs.policy import pieces, sanitize

PAGE = (
    '<h2 id="usage">Usage</h2>\n<p>Read <a href="https://example.com/a">the spec</a>.</p>\n'
    '<table>\n<thead><tr><th align="left">Field</th></tr></thead>\n'
    "<tbody><tr><td><code>text</code></td></tr></tbody>\n</table>\n"
    '<div class="admonition note"><p class="admonition-title">Note</p><p>Kept.</p></div>\n'
)

PAIRS = {
    "the same": PAGE,
    "class spacing only": PAGE.replace('"admonition note"', '"  admonition   note "'),
    "an attribute changed": PAGE.replace('align="left"', 'align="right"'),
    "an attribute dropped": PAGE.replace(' id="usage"', ""),
    "an element renamed": PAGE.replace("<code>text</code>", "<kbd>text</kbd>"),
    "the last element dropped": PAGE.replace("<p>Kept.</p>", "Kept."),
    "an element added at the end": PAGE + "<p>More.</p>\n",
    "an element added in the middle": PAGE.replace("the spec</a>", "the <em>spec</em></a>"),
}


@pytest.mark.parametrize("clean", PAIRS.values(), ids=PAIRS.keys())
def test_the_recorded_comparison_says_what_reading_both_pages_says(clean: str) -> None:
    record = sanitize._Record()
    assert sanitize._walk(pieces.elements(PAGE), record) == []
    assert sanitize._change_from(record, PAGE, clean) == sanitize._first_change(PAGE, clean)


def test_the_comparison_names_the_first_element_changed() -> None:
    changed = {
        name: sanitize._first_change(PAGE, clean) for name, clean in PAIRS.items() if clean != PAGE
    }
    assert changed == {
        "class spacing only": None,
        "an attribute changed": "th",
        "an attribute dropped": "h2",
        "an element renamed": "code",
        "the last element dropped": "p",
        "an element added at the end": "",
        "an element added in the middle": "table",  # the element now in its place
    }


def test_the_digest_decides_and_alike_hashes_fall_back_to_reading_both() -> None:
    clean = PAGE.replace('align="left"', 'align="right"')
    record = sanitize._Record()
    sanitize._walk(pieces.elements(PAGE), record)
    # Hashes that match the cleaned page everywhere, as a collision would: the digest
    # still differs, so the change is found, and located by reading both pages.
    alike = sanitize._Record()
    for shape in sanitize._shapes(clean):
        alike.add(shape)
    record.hashes = alike.hashes
    assert sanitize._change_from(record, PAGE, clean) == "th"


def test_an_allowed_page_is_published_whole_with_no_problem() -> None:
    published, problems = sanitize.review(PAGE)
    assert problems == []
    assert sanitize._first_change(PAGE, published) is None


@pytest.mark.parametrize(
    ("change", "tag"),
    [
        (lambda html: html.replace('align="left"', ""), "th"),
        (lambda html: html.replace("<p>Kept.</p>", "Kept."), "p"),
        (lambda html: html + "<p>More.</p>", "element"),
    ],
    ids=["drops an attribute", "drops the last element", "adds an element"],
)
def test_a_sanitizer_that_changes_what_the_walk_allowed_is_a_problem(
    monkeypatch: pytest.MonkeyPatch, change, tag: str
) -> None:
    clean = sanitize._cleaner()
    monkeypatch.setattr(sanitize, "_CLEANER", lambda html: change(clean(html)))
    _published, problems = sanitize.review(PAGE)
    assert problems == [sanitize.Problem(f"<{tag}", f"a <{tag}> the sanitizer changes")]


def test_a_lone_surrogate_is_a_problem_and_published_as_a_replacement_character() -> None:
    # A docstring's "\ud800" reaches an API page's content as a lone surrogate.
    published, problems = sanitize.review("<p>a \ud800 b</p>")
    assert published == "<p>a \ufffd b</p>"
    assert [p.message for p in problems] == [
        "a lone surrogate, which is not a character (shown as U+FFFD)"
    ]
