"""API keys: created and revoked by an operator, presented as bearer tokens.

A key is 32 random bytes, so a plain SHA-256 of it is a safe lookup value:
nothing can be guessed from the hash, and no slow password hash is needed for
a secret that was never chosen by a person. Only the hash is stored.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import uuid
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from graphmem.domain.auth import Principal, Role
from graphmem.domain.checks import Identifier
from graphmem.domain.clock import Clock, as_datetime, stored_now
from graphmem.domain.errors import NotFoundError, UnauthenticatedError, invalid_input
from graphmem.store import Store
from graphmem.store.queries import keys

TOKEN_PREFIX = "gmk_"
MAX_KEY_NAME = 128
MAX_KEY_PROJECTS = 100
TOUCH_EVERY_S = 60.0
"""How stale ``last_used_at`` may get: writing it on every request would make
every read a write."""
RECHECK_EVERY_S = 2.0
"""How long a key found live may be trusted without reading it again, where a
caller asks for a recent check rather than a fresh one: an open websocket checks
its key before every event it sends, and a read per event would cost as much as
the event. So a key revoked by another process (``graphmem keys revoke``) stops
an open subscription within this many seconds; one revoked through this
process's ``ApiKeys`` stops it at once."""


class ApiKey(BaseModel):
    id: str
    name: str
    prefix: str
    """The first characters of the key, to recognise it in a list."""
    projects: list[str]
    role: Role
    agent_id: str | None = None
    """The agent every request with this key acts as; ``None``: no agent (sees
    every memory of its projects)."""
    created_at: float
    revoked_at: float | None = None
    last_used_at: float | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def principal(self) -> Principal:
        return Principal.scoped(self.projects, self.role, key_id=self.id, agent_id=self.agent_id)


class NewKey(BaseModel):
    """What ``create`` takes; validated so a bad name or project is refused whole."""

    name: str = Field(min_length=1, max_length=MAX_KEY_NAME)
    projects: list[Identifier] = Field(min_length=1, max_length=MAX_KEY_PROJECTS)
    role: Role
    agent_id: Identifier | None = None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ApiKeys:
    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self._touched: dict[str, float] = {}
        self._checked: dict[str, tuple[float, str]] = {}
        """Token hash -> (monotonic time it was last found live, key id). Only live
        keys get in, so it holds at most one entry per key."""
        self._lock = threading.Lock()

    def create(
        self,
        name: str,
        projects: Iterable[str],
        role: Role | str,
        *,
        agent_id: str | None = None,
    ) -> tuple[ApiKey, str]:
        """A new key and its token; the token is never retrievable again. With
        ``agent_id``, every request the key makes acts as that agent."""
        try:
            new = NewKey.model_validate(
                {
                    "name": name,
                    "projects": list(dict.fromkeys(projects)),
                    "role": role,
                    "agent_id": agent_id,
                }
            )
        except ValidationError as exc:
            raise invalid_input(exc, locate=_key_field) from None
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        stored = keys.create(
            self._store,
            uuid.uuid4().hex[:16],
            name=new.name,
            token_hash=hash_token(token),
            prefix=token[: len(TOKEN_PREFIX) + 6],
            projects=new.projects,
            role=new.role.value,
            agent_id=new.agent_id,
            now=stored_now(self._clock),
        )
        return _key(stored), token

    def list(self) -> list[ApiKey]:
        return [_key(stored) for stored in keys.every(self._store)]

    def revoke(self, key_id: str) -> ApiKey:
        stored = keys.revoke(self._store, key_id, stored_now(self._clock))
        if stored is None:
            raise NotFoundError(f"id: no API key {key_id!r}", field="id")
        with self._lock:
            # This process's open connections need not wait for RECHECK_EVERY_S.
            for digest in [d for d, (_, kid) in self._checked.items() if kid == key_id]:
                del self._checked[digest]
        return _key(stored)

    def authenticate(self, token: str) -> Principal:
        """The principal of a live key, read from the store every time: revocation
        takes effect on the next request."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 256:
            raise UnauthenticatedError("invalid API key")
        digest = hash_token(token)
        stored = keys.live(self._store, digest)
        if stored is None:
            with self._lock:
                self._checked.pop(digest, None)
            raise UnauthenticatedError("invalid or revoked API key")
        key = _key(stored)
        with self._lock:
            self._checked[digest] = (time.monotonic(), key.id)
        self._touch(key.id)
        return key.principal()

    def checked_recently(self, token: str) -> bool:
        """Whether this token's key was found live in the last ``RECHECK_EVERY_S``
        seconds (and not revoked through this process since): a caller that may
        trust that skips the store. Never blocks on the store, so the event loop
        may ask. Monotonic time, not the GraphMem clock: the bound is the real
        time a revoked key may go on being served."""
        with self._lock:
            found = self._checked.get(hash_token(token))
        return found is not None and time.monotonic() - found[0] < RECHECK_EVERY_S

    def _touch(self, key_id: str) -> None:
        now = stored_now(self._clock)
        with self._lock:
            if now - self._touched.get(key_id, float("-inf")) < TOUCH_EVERY_S:
                return
            self._touched[key_id] = now
        keys.touch(self._store, key_id, now)


def _key_field(loc: tuple[Any, ...]) -> str:
    """The option a bad value came from, as the surfaces name it."""
    return "agentId" if loc and loc[0] == "agent_id" else ".".join(str(part) for part in loc)


def _key(stored: keys.Key) -> ApiKey:
    """The stored key as the surfaces show it (its role a ``Role``)."""
    return ApiKey.model_validate(stored, from_attributes=True)


def format_time(at: float | None) -> str:
    return "" if at is None else as_datetime(at).strftime("%Y-%m-%d %H:%M:%SZ")
