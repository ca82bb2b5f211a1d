"""Sessions and the promotion runs that move their memories between tiers."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graphmem.domain.kinds import SessionState, Tier

DEFAULT_SESSION = "default"
"""The session a memory is written to when its caller names none."""


class Session(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    project_id: str
    state: SessionState = SessionState.ACTIVE
    name: str | None = None
    promotion_enabled: bool = True
    promotion_interval_seconds: float | None = None
    """``None``: the retention rules' interval."""
    max_items: int | None = None
    """Working-tier size that triggers promotion and rotation; ``None``: ``short_term_max``."""
    created_at: float
    updated_at: float


class PromotionStats(BaseModel):
    """A session's promotion record: totals and the last run's result."""

    model_config = ConfigDict(frozen=True)

    session_id: str
    project_id: str
    enabled: bool = True
    interval_seconds: float
    next_run_at: float | None = None
    runs: int = 0
    total_promoted: int = 0
    last_run_at: float | None = None
    last_run_id: str | None = None
    last_trigger: str | None = None
    last_promoted: int = 0
    last_failed: int = 0
    last_rotated: int = 0
    last_remaining: int = 0
    last_threshold: float | None = None


class PromotionEvent(BaseModel):
    """One logged move of one memory between tiers."""

    model_config = ConfigDict(frozen=True)

    id: str
    run_id: str
    memory_id: str
    session_id: str
    trigger: str
    from_tier: Tier
    to_tier: Tier
    score: float
    component_names: list[str] = Field(default_factory=list)
    component_values: list[float] = Field(default_factory=list)
    component_contributions: list[float] = Field(default_factory=list)
    at: float
    reason: str | None = None
    """Why it moved: the score against the threshold it needed and the rules that applied."""
