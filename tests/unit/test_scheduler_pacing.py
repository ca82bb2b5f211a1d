"""The scheduler's pacing: periodic work rests in proportion to what it did."""

from __future__ import annotations

import pytest

from graphmem.server.scheduler import rest_after


@pytest.mark.parametrize(
    ("spent", "busy", "rest"),
    [(1.0, 0.25, 3.0), (0.2, 0.5, 0.2), (2.0, 0.8, 0.5), (1.0, 1.0, 0.0), (-0.1, 0.25, 0.0)],
)
def test_work_rests_so_it_takes_at_most_its_share_of_the_process(
    spent: float, busy: float, rest: float
) -> None:
    assert rest_after(spent, busy) == pytest.approx(rest)
    if spent > 0 and busy < 1.0:
        assert spent / (spent + rest_after(spent, busy)) == pytest.approx(busy)
