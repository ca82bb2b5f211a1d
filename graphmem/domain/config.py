"""Settings, read from ``GRAPHMEM_*`` environment variables."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal, Self
from urllib.parse import urlsplit

from platformdirs import user_data_dir
from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (``0.0.0.0`` reaches everyone)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
MAX_ALIASES = 50
"""Fields one GraphQL document may alias by default: at most this many memories by id."""


EmbedderName = Literal["minilm", "minilm-torch", "bge-small", "none"]
"""The values of ``GRAPHMEM_EMBEDDER`` (docs/embeddings.md), declared once here."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHMEM_", extra="ignore")

    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("graphmem")))
    """Where the embedded database keeps its files and socket."""
    backend: Literal["falkordb", "neo4j"] = "falkordb"
    """``falkordb`` (embedded, or ``falkordb_url``) or ``neo4j`` (``neo4j_uri``)."""
    falkordb_url: str | None = None
    """Use an external FalkorDB server instead of the embedded one."""
    neo4j_uri: str | None = None
    """``neo4j://`` routes (clusters, Aura), ``bolt://`` talks to one server; ``+s``
    encrypts with system CAs, ``+ssc`` encrypts and accepts any certificate."""
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr | None = None
    """Unset means no authentication (a server with auth disabled)."""
    neo4j_database: str | None = "neo4j"
    """Naming it saves the driver a home-database lookup; empty uses the user's home database."""
    neo4j_encrypted: bool = False
    """TLS for plain ``bolt://`` / ``neo4j://`` URIs (the ``+s`` schemes already encrypt)."""
    neo4j_trust: Literal["system", "custom", "all"] = "system"
    """Which certificates TLS accepts: the system CAs, ``neo4j_ca_file``, or any."""
    neo4j_ca_file: Path | None = None
    neo4j_pool_size: int = Field(default=100, ge=1, le=10_000)
    """Connections kept per server; a request waits when all are in use."""
    neo4j_connection_timeout: float = Field(default=30.0, gt=0)
    """Seconds to open a connection."""
    neo4j_acquisition_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for a free pooled connection."""
    neo4j_retry_time: float = Field(default=30.0, ge=0)
    """Seconds a transaction is retried on transient errors (leader change, deadlock)."""
    neo4j_connection_lifetime: float = Field(default=3600.0, gt=0)
    """Seconds before a pooled connection is replaced (keep below load balancer idle limits)."""
    graph: str = Field(default="graphmem", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    """The graph (database) name inside the server."""
    durability: Literal["balanced", "strict"] = "balanced"
    """AOF fsync policy of the embedded server: everysec or always."""
    query_timeout_ms: int | None = Field(default=None, gt=0)
    project: str = "default"
    """The project used when a call names none."""
    default_visibility: Literal["private", "shared"] = "shared"
    """Who sees a new memory written by an agent that does not say: only that agent
    (``private``) or every agent of the project (``shared``)."""
    scoring_preset: Literal["default", "jarvis"] = "default"
    embedder: EmbedderName = "minilm"
    """Sentence embeddings for vector search: all-MiniLM-L6-v2 on ONNX Runtime from the
    packaged int8 model, ``minilm-torch`` for the same model on torch (the ``torch``
    extra), ``bge-small`` for bge-small-en-v1.5 on ONNX Runtime (the ``bge`` extra;
    another vector space: re-embed a store before switching), or ``none`` to run on
    full text and relations only (no model is loaded)."""
    embedder_threads: int | None = Field(default=None, ge=1)
    """Cores the embedding model may use (default: every core this process may run on).
    Concurrent requests' texts are gathered into one model call that spreads over
    them, so one process never runs more model threads than this."""
    retention_file: Path | None = None
    """YAML retention rules (retention_rules.yaml); GRAPHMEM_* variables override single rules."""
    scheduler: bool = True
    """Run periodic promotion and archival inside ``graphmem serve``."""
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    auth: Literal["auto", "required", "off"] = "auto"
    """``auto``: API keys are required unless the server listens on loopback only.
    ``off`` is refused on any other host: a memory store holds what people said."""
    mode: Literal["development", "production"] = "development"
    """``production`` turns off GraphiQL and schema introspection."""
    rate_limit: float = Field(default=50.0, ge=0)
    """Sustained requests per second allowed per API key (per client address when
    open); 0 turns the limit off."""
    rate_burst: int = Field(default=100, ge=1)
    """Requests a caller may send at once above the sustained rate."""
    max_body_bytes: int = Field(default=1_048_576, ge=1024)
    """Largest request body the server reads; larger ones get 413 unread."""
    max_query_depth: int = Field(default=10, ge=2)
    max_aliases: int = Field(default=MAX_ALIASES, ge=1)
    max_tokens: int = Field(default=5_000, ge=100)

    @property
    def loopback_only(self) -> bool:
        return is_loopback(self.host)

    @property
    def auth_required(self) -> bool:
        return self.auth == "required" or (self.auth == "auto" and not self.loopback_only)

    @model_validator(mode="after")
    def _neo4j_connection(self) -> Self:
        """A wrong Neo4j setting fails at start with its name, not at the first query."""
        if self.auth == "off" and not self.loopback_only:
            raise ValueError(
                f"GRAPHMEM_AUTH=off is only allowed on a loopback host, not {self.host}"
            )
        if self.neo4j_database == "":
            self.neo4j_database = None
        if self.backend != "neo4j":
            return self
        if not self.neo4j_uri:
            raise ValueError("GRAPHMEM_NEO4J_URI is required when GRAPHMEM_BACKEND is neo4j")
        scheme = urlsplit(self.neo4j_uri).scheme
        if scheme not in NEO4J_SCHEMES:
            raise ValueError(
                f"GRAPHMEM_NEO4J_URI must start with one of {', '.join(NEO4J_SCHEMES)}, "
                f"not {scheme or 'nothing'}://"
            )
        if "+" in scheme and self.neo4j_encrypted:
            raise ValueError(
                f"{scheme}:// already sets TLS; "
                "use bolt:// or neo4j:// with GRAPHMEM_NEO4J_ENCRYPTED"
            )
        if self.neo4j_trust == "custom" and self.neo4j_ca_file is None:
            raise ValueError("GRAPHMEM_NEO4J_TRUST=custom needs GRAPHMEM_NEO4J_CA_FILE")
        return self
