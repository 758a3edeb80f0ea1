"""Results kept between builds: recomputed only for a key no longer among the latest kept."""

from __future__ import annotations

from acp_docs.core import memo


def test_a_step_keeps_its_latest_keys_and_recomputes_an_older_one() -> None:
    made: list[str] = []

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    step = "test step"
    try:
        for key in ["a", "b", "a", "c", "a", "b"]:
            assert memo.remembered(step, key, lambda key=key: make(key), keep=2) == key.upper()
    finally:
        memo.forget()
    # "a" stays kept (each use makes it the latest); "b" is pushed out by "c".
    assert made == ["a", "b", "c", "b"]


def test_by_default_only_the_latest_result_is_kept() -> None:
    made: list[int] = []
    try:
        for key in [1, 1, 2, 1]:
            memo.remembered("test step", key, lambda key=key: made.append(key) or key)
    finally:
        memo.forget()
    assert made == [1, 2, 1]
