"""Retention rules: when to promote, rotate and archive.

Read from a YAML file (``GRAPHMEM_RETENTION_FILE``) with ``GRAPHMEM_*``
environment variables overriding single values, so an operator can keep the
policy in version control and still tune one number at deploy time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from graphmem.errors import InvalidInputError
from graphmem.models import Tier, invalid_input


class RetentionRules(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="forbid", frozen=True)

    promote_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    """Importance at or above which a short-term memory is promoted."""
    max_promotions_per_run: int = Field(default=20, ge=1, le=10_000)
    promotion_interval_seconds: float = Field(default=30.0, gt=0)
    """How often the scheduler runs promotion for each active session."""
    archive_interval_seconds: float = Field(default=3_600.0, gt=0)
    """How often the scheduler archives stale memories in each project."""
    short_term_max: int = Field(default=5_000, ge=1)
    """A session's working-tier size that triggers promotion, then rotation."""
    rotate_headroom: float = Field(default=0.1, ge=0.0, lt=1.0)
    """Rotation archives the oldest working items down to this fraction below the maximum."""
    archive_importance_below: float = Field(default=0.3, ge=0.0, le=1.0)
    """Stale memories scoring below this are archived."""
    stale_after_days: dict[Tier, float | None] = Field(
        default_factory=lambda: {
            Tier.WORKING: 1.0,
            Tier.EPISODIC: 14.0,
            Tier.SEMANTIC: 90.0,
            Tier.PROCEDURAL: None,
        }
    )
    """Days without use after which a memory of the tier is stale; ``None``: never."""

    # -- staging: how a candidate earns its way to active --------------------
    dedup_similarity: float = Field(default=0.92, ge=0.0, le=1.0)
    """Embedding cosine at or above which a new memory merges into an existing one."""
    dedup_jaccard: float = Field(default=0.8, ge=0.0, le=1.0)
    """Token Jaccard used instead while a memory has no embedding."""
    recurrence_threshold: int = Field(default=2, ge=2)
    """Occurrences at which a candidate becomes active."""
    feedback_threshold: int = Field(default=2, ge=1)
    """Net positive feedback at which a candidate becomes active."""
    relevance_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    """Evaluator relevance evidence at which a candidate becomes active."""
    candidate_slot_min_score: float = Field(default=0.8, ge=0.0, le=1.0)
    """The injection policy's optional candidate slot needs at least this score."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The environment wins over the file (passed in as init values).
        return (env_settings, init_settings)

    @classmethod
    def load(cls, path: Path | str | None = None) -> RetentionRules:
        values: dict[str, Any] = {}
        if path is not None:
            try:
                loaded = yaml.safe_load(Path(path).read_text()) or {}
            except (OSError, yaml.YAMLError) as exc:
                raise InvalidInputError(
                    f"retention_file: cannot read {path}: {exc}", field="retention_file"
                ) from None
            if not isinstance(loaded, dict):
                raise InvalidInputError(
                    "retention_file: the top level must be a mapping", field="retention_file"
                )
            values = loaded
        try:
            return cls(**values)
        except ValidationError as exc:
            raise invalid_input(exc) from None

    def stale_seconds(self, tier: Tier) -> float | None:
        days = self.stale_after_days.get(tier)
        return None if days is None else days * 86_400.0

    def rotate_to(self, limit: int) -> int:
        """How many working items a full session keeps after rotation."""
        return int(limit * (1.0 - self.rotate_headroom))
