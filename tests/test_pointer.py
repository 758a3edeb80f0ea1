"""JSON Pointer (RFC 6901): keys holding `/` and `~` survive formatting, parsing and resolving."""

from __future__ import annotations

import pytest

from acp_docs.sources import pointer as ptr

DOCUMENT = {
    "$defs": {"a/b": {"type": "string"}, "m~n": {"items": [{"x": 1}, {"~1": 2}]}},
    "": {"empty": True},
    "0": "zero",
}


@pytest.mark.parametrize(
    ("parts", "written"),
    [
        ((), ""),
        (("$defs", "a/b"), "/$defs/a~1b"),
        (("$defs", "m~n", "items", 1, "~1"), "/$defs/m~0n/items/1/~01"),
        (("",), "/"),
        (("~/",), "/~0~1"),
    ],
)
def test_format_and_parse_are_inverse(parts: tuple, written: str) -> None:
    assert ptr.format(parts) == written
    assert ptr.parse(written) == [str(p) for p in parts]


def test_escape_turns_tilde_first_so_an_escaped_slash_is_not_read_back_as_a_tilde() -> None:
    assert ptr.escape("~1") == "~01"
    assert ptr.unescape("~01") == "~1"
    assert ptr.unescape("~10") == "/0"


def test_resolve_names_members_and_items() -> None:
    assert ptr.resolve(DOCUMENT, "/$defs/a~1b") == {"type": "string"}
    assert ptr.resolve(DOCUMENT, "/$defs/m~0n/items/1/~01") == 2
    assert ptr.resolve(DOCUMENT, "/") == {"empty": True}
    assert ptr.resolve(DOCUMENT, "/0") == "zero"
    assert ptr.resolve(DOCUMENT, "") is DOCUMENT


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("$defs", "must be empty or start with /"),
        ("/$defs/a/b", "no member 'a'"),
        ("/$defs/m~0n/items/2", "no item 2"),
        ("/$defs/m~0n/items/01", "no member '01'"),
        ("/$defs/m~2n", "`~` must be followed by 0 or 1"),
    ],
)
def test_a_pointer_that_names_nothing_is_an_error_that_says_why(written: str, says: str) -> None:
    with pytest.raises(ptr.PointerError, match=says):
        ptr.resolve(DOCUMENT, written)


def test_nodes_gives_every_object_with_a_pointer_that_resolves_to_it() -> None:
    found = dict(ptr.nodes(DOCUMENT))
    assert set(found) == {
        "",
        "/$defs",
        "/$defs/a~1b",
        "/$defs/m~0n",
        "/$defs/m~0n/items/0",
        "/$defs/m~0n/items/1",
        "/",
    }
    for where, node in found.items():
        assert ptr.resolve(DOCUMENT, where) is node


def test_fragments_are_pointers_after_the_hash() -> None:
    assert ptr.fragment("/$defs/a~1b") == "#/$defs/a~1b"
    assert ptr.from_fragment("#/$defs/a~1b") == "/$defs/a~1b"
    with pytest.raises(ptr.PointerError):
        ptr.from_fragment("https://example.com/schema")


def test_only_ascii_digits_without_a_leading_zero_index_a_list() -> None:
    assert [ptr.list_index(t) for t in ("0", "7", "10")] == [0, 7, 10]
    assert [ptr.list_index(t) for t in ("²", "٣", "01", "-1", "", "1e2")] == [None] * 6
    with pytest.raises(ptr.PointerError):
        ptr.resolve({"a": [1, 2]}, "/a/²")
