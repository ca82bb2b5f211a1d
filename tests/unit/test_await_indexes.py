"""Setting up a store waits for its indexes, and gives up with a warning."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from graphmem.store import await_indexes


class Building:
    """Answers ``indexes_ready`` with the Memory index still building ``rounds`` times."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.asked = 0

    def read(self, name: str, params: Any = None) -> list[dict[str, Any]]:
        assert name == "indexes_ready"
        self.asked += 1
        ready = self.asked > self.rounds
        return [{"label": "Memory", "ready": ready}, {"label": "Session", "ready": True}]


def test_waits_until_every_index_answers() -> None:
    store = Building(rounds=3)
    await_indexes(store)  # type: ignore[arg-type]
    assert store.asked == 4


def test_gives_up_after_the_timeout_and_names_what_is_building(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = Building(rounds=10**9)
    with caplog.at_level(logging.WARNING):
        await_indexes(store, timeout=0.05)  # type: ignore[arg-type]
    assert store.asked >= 2
    assert "indexes still building" in caplog.text and "Memory" in caplog.text
