"""How a project runs (its settings) and the log of who sees its memories."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphmem.domain.checks import InputModel
from graphmem.domain.kinds import AutoLink, Visibility


class ProjectSettings(BaseModel):
    """How one project runs, kept as properties of its ``:Project`` node.

    Each setting is a field with its default, which a project that never set
    it has; a new setting is a new field (and a field of
    ``ProjectSettingsUpdate``), stored under its own name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    auto_links: list[AutoLink] = Field(default_factory=list)
    """The links written at ingest; none by default (docs/retrieval.md has what
    each adds on the dev sets)."""
    default_visibility: Visibility | None = None
    """Who sees a new memory whose agent does not say; unset, the server's
    ``GRAPHMEM_DEFAULT_VISIBILITY``."""

    @field_validator("auto_links")
    @classmethod
    def _in_order(cls, links: list[AutoLink]) -> list[AutoLink]:
        return [link for link in AutoLink if link in links]

    @classmethod
    def stored(cls, props: Mapping[str, Any] | None) -> ProjectSettings:
        """The settings held by a project node's properties (others ignored)."""
        given = {k: v for k, v in (props or {}).items() if k in cls.model_fields and v is not None}
        return cls.model_validate(given)


class ProjectSettingsUpdate(InputModel):
    """A change of some project settings; a field left out (``None``) keeps its value."""

    auto_links: list[AutoLink] | None = None
    default_visibility: Visibility | None = None

    def stored_fields(self) -> dict[str, Any]:
        """The properties of the project node to set: the fields given, as stored."""
        return self.model_dump(mode="json", exclude_none=True)


class SharingEvent(BaseModel):
    """One logged change of who sees a memory: shared, unshared, or copied to
    another project."""

    model_config = ConfigDict(frozen=True)

    id: str
    memory_id: str
    kind: str
    """``shared``, ``unshared`` or ``copied``."""
    by: str
    """The agent that did it, or ``admin`` for a caller bound to no agent."""
    from_visibility: Visibility | None = None
    to_visibility: Visibility | None = None
    to_project_id: str | None = None
    """Where a copy went, and its id there."""
    copy_id: str | None = None
    at: float
