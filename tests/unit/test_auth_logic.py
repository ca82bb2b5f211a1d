"""Roles, principals and the rate limiter: pure logic, time injected."""

from __future__ import annotations

import pytest

from graphmem.domain.auth import OPEN, Principal, Role
from graphmem.domain.clock import ManualClock
from graphmem.domain.errors import ForbiddenError, RateLimitedError
from graphmem.server.ratelimit import RateLimiter


def test_roles_include_the_ones_before_them() -> None:
    assert Role.ADMIN.includes(Role.WRITE) and Role.WRITE.includes(Role.READ)
    assert not Role.READ.includes(Role.WRITE)


def test_project_resolution() -> None:
    single = Principal.scoped(["web"], Role.WRITE)
    assert single.project_for(None, "default", Role.WRITE) == "web"
    several = Principal.scoped(["web", "api"], Role.READ)
    with pytest.raises(ForbiddenError) as raised:
        several.project_for(None, "default", Role.READ)
    assert raised.value.field == "projectId"
    assert several.project_for("api", "default", Role.READ) == "api"
    with pytest.raises(ForbiddenError, match="needs write"):
        several.project_for("api", "default", Role.WRITE)
    assert OPEN.project_for(None, "default", Role.ADMIN) == "default"
    assert OPEN.project_for("any", "default", Role.ADMIN) == "any"


def test_rate_limiter_allows_bursts_then_the_rate() -> None:
    clock = ManualClock(start=0.0)
    limiter = RateLimiter(rate=2.0, burst=3, clock=clock)
    assert [limiter.acquire("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("a") == pytest.approx(0.5)
    assert limiter.acquire("b") == 0.0  # callers have buckets of their own
    clock.advance(0.5)
    assert limiter.acquire("a") == 0.0
    clock.advance(100)
    assert [limiter.acquire("a") for _ in range(4)][-1] > 0  # refills to the burst only
    assert RateLimiter(rate=0, burst=1, clock=clock).acquire("a") == 0.0


def test_admit_refuses_a_key_over_its_rate_and_never_open_access():
    clock = ManualClock(start=0.0)
    limiter = RateLimiter(rate=2.0, burst=1, clock=clock)
    limiter.admit("k")
    with pytest.raises(RateLimitedError) as refused:
        limiter.admit("k")
    assert refused.value.retry_after == pytest.approx(0.5)
    for _ in range(5):
        limiter.admit(None)  # open local access
