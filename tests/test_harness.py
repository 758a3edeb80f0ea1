"""The test harness: under CI=true a missing tool fails its tests instead of skipping them."""

from __future__ import annotations

import pytest

from conftest import require_tool


def test_a_missing_tool_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no-such-tool-4711 not on PATH"):
        require_tool("no-such-tool-4711", "A tool")


def test_a_missing_tool_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="make setup"):
        require_tool("no-such-tool-4711", "A tool")


def test_a_present_tool_neither_fails_nor_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    require_tool("sh", "A shell")
