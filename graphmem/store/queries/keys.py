"""API keys: created, listed, revoked and found by the hash of their token.
Only the hash of a token is stored, never the token."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.store import Store


@dataclass(frozen=True, slots=True)
class Key:
    """An ``:ApiKey`` node's fields, as every key statement returns them."""

    id: str
    name: str
    prefix: str
    """The first characters of the token, to recognise it in a list."""
    projects: list[str]
    role: str
    created_at: float
    revoked_at: float | None
    last_used_at: float | None
    agent_id: str | None


def create(
    store: Store,
    key_id: str,
    *,
    name: str,
    token_hash: str,
    prefix: str,
    projects: Sequence[str],
    role: str,
    agent_id: str | None,
    now: float,
) -> Key:
    """A new key, stored by its token's hash."""
    rows = store.write(
        "create_api_key",
        {
            "id": key_id,
            "name": name,
            "hash": token_hash,
            "prefix": prefix,
            "projects": list(projects),
            "role": role,
            "agent_id": agent_id,
            "now": now,
        },
    )
    return Key(**rows[0]["key"])


def every(store: Store) -> list[Key]:
    """Every key, revoked ones too, oldest first."""
    return [Key(**row["key"]) for row in store.read("list_api_keys")]


def revoke(store: Store, key_id: str, now: float) -> Key | None:
    """The key revoked now (or when it was); ``None`` when there is no such key."""
    rows = store.write("revoke_api_key", {"id": key_id, "now": now})
    return Key(**rows[0]["key"]) if rows else None


def live(store: Store, token_hash: str) -> Key | None:
    """The unrevoked key of a token's hash, or ``None``."""
    rows = store.read("find_api_key", {"hash": token_hash})
    return Key(**rows[0]["key"]) if rows else None


def touch(store: Store, key_id: str, now: float) -> None:
    """Note that the key was used ``now`` (``last_used_at``)."""
    store.write("touch_api_key", {"id": key_id, "now": now})
