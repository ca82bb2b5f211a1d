"""Readiness: whether this server can answer requests now.

Liveness (``/healthz``) says only that the process runs; a probe that restarts
the process on failure must not look further, or an outage of the database
would restart every graphmem in turn. Readiness (``/readyz``) checks what a
request needs: the store answers a statement and, when one is configured, the
embedder can embed. A load balancer or Kubernetes stops sending traffic while
it fails, and docker-compose's healthcheck reports it.

The reasons are shown to anyone who can reach the port, so they are generic:
the detail of a failure (socket paths, hosts) goes to the log.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from graphmem.api import GraphMem
from graphmem.domain.errors import StoreUnavailableError
from graphmem.store import indexes_building
from graphmem.store.queries import health

log = logging.getLogger(__name__)

CHECK_TIMEOUT = 3.0
"""Seconds one check may take before it counts as failed; below the usual probe
timeouts (docker-compose's here, Kubernetes' default of 1 s is too short: see
docs/health.md)."""

OK = "ok"
RECOVERING = "recovering: the graph database is rebuilding its indexes"
"""After a restart the database answers before its indexes do; searches would
fail meanwhile, so the server is not ready yet."""


@runtime_checkable
class Probeable(Protocol):
    """An embedder that can say whether it is ready, without loading anything."""

    def ready(self) -> bool:
        """Whether ``embed`` answers now (the model is loaded)."""
        ...


@runtime_checkable
class Pingable(Protocol):
    """A store with a probe of its own, cheaper or quicker to fail than a read."""

    def ping(self) -> None:
        """Return when the database answers now; raise ``StoreUnavailableError``
        when it does not."""
        ...


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, str]
    """``ok``, ``off`` (not configured) or why the part cannot serve."""


async def readiness(gm: GraphMem, *, timeout: float = CHECK_TIMEOUT) -> Readiness:
    """Check the store and the embedder side by side, each within ``timeout``."""
    store, embedder = await asyncio.gather(
        _bounded(_store_check(gm), "the graph database did not answer in time", timeout),
        _bounded(_embedder_check(gm), "the embedder did not answer in time", timeout),
    )
    checks = {"store": store, "embedder": embedder}
    return Readiness(ready=all(c in (OK, "off") for c in checks.values()), checks=checks)


async def _bounded(check: Callable[[], str], late: str, timeout: float) -> str:
    try:
        return await asyncio.wait_for(run_in_threadpool(check), timeout)
    except TimeoutError:
        return late


def _store_check(gm: GraphMem) -> Callable[[], str]:
    def check() -> str:
        store = gm.store
        try:
            # Neo4j's reads retry while the server is away (GRAPHMEM_NEO4J_RETRY_TIME),
            # which would outlast the check: its ping does not.
            if isinstance(store, Pingable):
                store.ping()
            else:
                health.ping(store)
            if indexes_building(store):
                return RECOVERING
        except StoreUnavailableError as exc:
            log.warning("readiness: store unavailable: %s", exc.message)
            return "the graph database is unavailable"
        except Exception:
            log.exception("readiness: the store check failed")
            return "the graph database failed a check"
        return OK

    return check


def _embedder_check(gm: GraphMem) -> Callable[[], str]:
    def check() -> str:
        embedder = gm.embedder
        if embedder is None:
            return "off"
        if isinstance(embedder, Probeable) and not embedder.ready():
            return "the embedding model is still loading"
        try:
            (vector,) = embedder.embed(["readiness check"])
        except Exception:
            log.exception("readiness: the embedder check failed")
            return "the embedder cannot embed"
        if len(vector) != embedder.dimension:
            return "the embedder returned a vector of the wrong size"
        return OK

    return check
