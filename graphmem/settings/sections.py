"""The settings of each concern: the server, the store, Neo4j, the embedder,
retention and the defaults a call falls back on.

Each field's alias is its flat name (``neo4j_uri`` for ``Neo4jSettings.uri``),
and the flat name is the environment variable without its prefix, so a
setting is renamed in one place. Sections validate what they hold alone;
``Settings`` checks what spans two of them.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Literal, Self

from platformdirs import user_data_dir
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SecretStr, model_validator

from graphmem.settings.names import env_name


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (``0.0.0.0`` reaches everyone)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def prefixed(prefix: str) -> ConfigDict:
    """The config of a section whose flat names are ``prefix`` and the field's name."""
    return ConfigDict(
        extra="forbid", validate_by_name=True, alias_generator=lambda name: f"{prefix}{name}"
    )


UNPREFIXED = ConfigDict(extra="forbid", validate_by_name=True)
"""The config of a section whose fields are named as their settings are."""

MAX_ALIASES = 50
"""Fields one GraphQL document may alias by default: at most this many memories by id."""

EmbedderName = Literal["minilm", "minilm-torch", "bge-small", "none"]
"""The values of the ``embedder`` setting (docs/embeddings.md), declared once here."""

NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def _home_when_empty(value: object) -> object:
    """An empty database name asks the driver for the user's home database."""
    return None if value == "" else value


class ServerSettings(BaseModel):
    """Where ``graphmem serve`` listens, who may call it and how much one call may ask."""

    model_config = UNPREFIXED

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
    def _open_only_on_loopback(self) -> Self:
        """No keys is a choice for one machine only."""
        if self.auth == "off" and not self.loopback_only:
            raise ValueError(
                f"{env_name('auth')}=off is only allowed on a loopback host, not {self.host}"
            )
        return self


class StoreSettings(BaseModel):
    """Which database holds the memories, and how the embedded one keeps them."""

    model_config = UNPREFIXED

    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("graphmem")))
    """Where the embedded database keeps its files and socket."""
    backend: Literal["falkordb", "neo4j"] = "falkordb"
    """``falkordb`` (embedded, or ``falkordb_url``) or ``neo4j`` (``neo4j_uri``)."""
    falkordb_url: str | None = None
    """Use an external FalkorDB server instead of the embedded one."""
    graph: str = Field(default="graphmem", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    """The graph (database) name inside the server."""
    durability: Literal["balanced", "strict"] = "balanced"
    """AOF fsync policy of the embedded server: everysec or always."""
    query_timeout_ms: int | None = Field(default=None, gt=0)


class Neo4jSettings(BaseModel):
    """How to reach a Neo4j server (``backend`` ``neo4j``): its address, its
    credentials, TLS and the driver's pool."""

    model_config = prefixed("neo4j_")

    uri: str | None = None
    """``neo4j://`` routes (clusters, Aura), ``bolt://`` talks to one server; ``+s``
    encrypts with system CAs, ``+ssc`` encrypts and accepts any certificate."""
    user: str = "neo4j"
    password: SecretStr | None = None
    """Unset means no authentication (a server with auth disabled)."""
    database: Annotated[str | None, BeforeValidator(_home_when_empty)] = "neo4j"
    """Naming it saves the driver a home-database lookup; empty uses the user's home database."""
    encrypted: bool = False
    """TLS for plain ``bolt://`` / ``neo4j://`` URIs (the ``+s`` schemes already encrypt)."""
    trust: Literal["system", "custom", "all"] = "system"
    """Which certificates TLS accepts: the system CAs, ``neo4j_ca_file``, or any."""
    ca_file: Path | None = None
    pool_size: int = Field(default=100, ge=1, le=10_000)
    """Connections kept per server; a request waits when all are in use."""
    connection_timeout: float = Field(default=30.0, gt=0)
    """Seconds to open a connection."""
    acquisition_timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for a free pooled connection."""
    retry_time: float = Field(default=30.0, ge=0)
    """Seconds a transaction is retried on transient errors (leader change, deadlock)."""
    connection_lifetime: float = Field(default=3600.0, gt=0)
    """Seconds before a pooled connection is replaced (keep below load balancer idle limits)."""


class EmbeddingSettings(BaseModel):
    """Which model embeds memories and queries, and on how many cores."""

    model_config = prefixed("embedder_")

    model: EmbedderName = Field(default="minilm", alias="embedder")
    """Sentence embeddings for vector search: all-MiniLM-L6-v2 on ONNX Runtime from the
    packaged int8 model, ``minilm-torch`` for the same model on torch (the ``torch``
    extra), ``bge-small`` for bge-small-en-v1.5 on ONNX Runtime (the ``bge`` extra;
    another vector space: a store keeps the model that embedded it and refuses
    another), or ``none`` to run on full text and relations only (no model is loaded)."""
    threads: int | None = Field(default=None, ge=1)
    """Cores the embedding model may use (default: every core this process may run on).
    Concurrent requests' texts are gathered into one model call that spreads over
    them, so one process never runs more model threads than this."""


class RetentionSettings(BaseModel):
    """Where the retention rules come from, and whether the server applies them itself."""

    model_config = prefixed("retention_")

    file: Path | None = None
    """YAML retention rules (retention_rules.yaml); a variable named after a rule
    overrides that rule (docs/retention.md)."""
    scheduler: bool = Field(default=True, alias="scheduler")
    """Run periodic promotion and archival inside ``graphmem serve``."""


class DefaultSettings(BaseModel):
    """What a call that does not say gets."""

    model_config = UNPREFIXED

    project: str = "default"
    """The project used when a call names none."""
    default_visibility: Literal["private", "shared"] = "shared"
    """Who sees a new memory written by an agent that does not say: only that agent
    (``private``) or every agent of the project (``shared``)."""
    scoring_preset: Literal["default", "jarvis"] = "default"
