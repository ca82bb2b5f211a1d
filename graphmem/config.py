"""Settings, read from ``GRAPHMEM_*`` environment variables."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from platformdirs import user_data_dir
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="ignore")

    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("graphmem")))
    """Where the embedded database keeps its files and socket."""
    backend: Literal["falkordb"] = "falkordb"
    falkordb_url: str | None = None
    """Use an external FalkorDB server instead of the embedded one."""
    graph: str = Field(default="graphmem", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    """The graph (database) name inside the server."""
    durability: Literal["balanced", "strict"] = "balanced"
    """AOF fsync policy of the embedded server: everysec or always."""
    query_timeout_ms: int | None = Field(default=None, gt=0)
    project: str = "default"
    """The project used when a call names none."""
    scoring_preset: Literal["default", "jarvis"] = "default"
    retention_file: Path | None = None
    """YAML retention rules (retention_rules.yaml); GRAPHMEM_* variables override single rules."""
    scheduler: bool = True
    """Run periodic promotion and archival inside ``graphmem serve``."""
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
