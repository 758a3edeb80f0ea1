"""Strict JSON reading: a duplicate key is reported where the duplicate is."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_docs.core.errors import LocatedError
from acp_docs.sources import jsonparse
from acp_docs.sources.textfile import load_json


@pytest.mark.parametrize(
    ("text", "where", "key"),
    [
        ('{\n  "a": 1,\n  "b": 2,\n  "a": 3\n}\n', (4, 3), "a"),
        # The same key in a nested object is no duplicate; its parent's second copy is.
        ('{"a": {"a": 1},\n "b": [{"a": 1}, {"a": 2}],\n "a": 2}', (3, 2), "a"),
        # Written differently, the same key: JSON compares keys after unescaping.
        ('{"a": 1,\n "\\u0061": 2}', (2, 2), "a"),
        # A string value equal to a key is not a key.
        ('{"k": "a",\n "a": "k",\n\n    "a" : 0}', (4, 5), "a"),
    ],
)
def test_a_duplicate_key_is_reported_at_its_second_copy(
    text: str, where: tuple[int, int], key: str
) -> None:
    with pytest.raises(jsonparse.JsonProblem) as caught:
        jsonparse.loads(text)
    assert (caught.value.line, caught.value.col) == where
    assert f"duplicate key {key!r}" in caught.value.message


def test_a_json_file_names_the_line_of_the_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "payload.json"
    path.write_text('{\n  "sessionId": "s",\n  "update": {},\n  "sessionId": "t"\n}\n')
    with pytest.raises(LocatedError) as caught:
        load_json(path, "payload.json")
    assert str(caught.value).startswith("payload.json:4:3: duplicate key 'sessionId'")


def test_objects_without_duplicates_parse() -> None:
    assert jsonparse.loads('{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}') == {
        "a": {"a": 1},
        "b": [{"a": 1}, {"a": 2}],
    }
