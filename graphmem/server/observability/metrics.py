"""Prometheus metrics of one server, in a registry of its own.

A registry per app (not prometheus_client's global one) lets several servers
live in one process, as they do in tests, each counting only its own work.
Label values come from the code (statement names, triggers, routes) or are
capped (GraphQL operation names, which clients choose), so a client cannot
grow the series without bound.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric

from graphmem.server.observability.request_ids import RequestInfo
from graphmem.services.telemetry import Event
from graphmem.store import Store
from graphmem.store.queries import deliveries, metrics

if TYPE_CHECKING:
    from graphmem.api import GraphMem

log = logging.getLogger(__name__)

MAX_OPERATION_NAMES = 200
"""Distinct GraphQL operation labels kept per server; later ones count as ``other``."""
CANDIDATES_TTL_SECONDS = 15.0
"""How long a count per project (waiting candidates, stored deliveries) is reused:
scrapes must not each scan the graph."""

# Store statements are mostly sub-millisecond; requests and runs take longer.
_FAST_BUCKETS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)
_SLOW_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
_GRAPHQL_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z,]{0,127}")


class Metrics:
    def __init__(self, *, candidates_ttl: float = CANDIDATES_TTL_SECONDS) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.http_requests = Counter(
            "graphmem_http_requests",
            "HTTP requests by route and status.",
            ["method", "path", "status"],
            registry=r,
        )
        self.http_seconds = Histogram(
            "graphmem_http_request_duration_seconds",
            "HTTP request time, from the first byte in to the last byte out.",
            ["method", "path"],
            buckets=_SLOW_BUCKETS,
            registry=r,
        )
        self.operations = Counter(
            "graphmem_graphql_operations",
            "GraphQL operations by name, type and outcome (ok, client_error, server_error).",
            ["operation", "type", "outcome"],
            registry=r,
        )
        self.operation_seconds = Histogram(
            "graphmem_graphql_operation_duration_seconds",
            "GraphQL operation time: parse, validation and execution.",
            ["operation", "type"],
            buckets=_SLOW_BUCKETS,
            registry=r,
        )
        self.statement_seconds = Histogram(
            "graphmem_store_statement_duration_seconds",
            "Time of each named Cypher statement, including the round trip.",
            ["statement", "access"],
            buckets=_FAST_BUCKETS,
            registry=r,
        )
        self.statement_errors = Counter(
            "graphmem_store_statement_errors",
            "Statements that raised (an unreachable store, a rejected statement).",
            ["statement"],
            registry=r,
        )
        self.embedding_seconds = Histogram(
            "graphmem_embedding_duration_seconds",
            "Time of one embedding call (a batch of texts).",
            buckets=_SLOW_BUCKETS,
            registry=r,
        )
        self.embedded_texts = Counter(
            "graphmem_embedded_texts", "Texts turned into vectors.", registry=r
        )
        self.promotion_triggers = Counter(
            "graphmem_promotion_triggers",
            "Promotion triggers fired, by trigger.",
            ["trigger"],
            registry=r,
        )
        self.promotion_runs = Counter(
            "graphmem_promotion_runs",
            "Promotion runs completed (dry runs excluded), by trigger.",
            ["trigger"],
            registry=r,
        )
        self.promoted = Counter(
            "graphmem_promoted_memories",
            "Memories promoted to a longer-lived tier, by trigger.",
            ["trigger"],
            registry=r,
        )
        self.promotion_failures = Counter(
            "graphmem_promotion_failures",
            "Promotions that a run could not apply, by trigger.",
            ["trigger"],
            registry=r,
        )
        self.promotion_seconds = Histogram(
            "graphmem_promotion_run_duration_seconds",
            "Promotion run time, by trigger.",
            ["trigger"],
            buckets=_SLOW_BUCKETS,
            registry=r,
        )
        self.archival_runs = Counter(
            "graphmem_archival_runs", "Archival runs completed (dry runs excluded).", registry=r
        )
        self.archived = Counter("graphmem_archived_memories", "Memories archived.", registry=r)
        self.activated = Counter(
            "graphmem_candidates_activated",
            "Candidates that became active, by the signal that earned it.",
            ["signal"],
            registry=r,
        )
        self.merged = Counter(
            "graphmem_duplicates_merged",
            "Writes merged into an existing memory as another occurrence.",
            registry=r,
        )
        self.evaluator_runs = Counter(
            "graphmem_evaluator_runs", "Consistency evaluator runs completed.", registry=r
        )
        self.retrievals = Counter(
            "graphmem_retrieval_requests",
            "knowledgeContext and search calls by kind and status (ok, invalid, error).",
            ["kind", "status"],
            registry=r,
        )
        self.retrieval_seconds = Histogram(
            "graphmem_retrieval_duration_seconds",
            "knowledgeContext and search time, by kind.",
            ["kind"],
            buckets=_SLOW_BUCKETS,
            registry=r,
        )
        self.events = Counter(
            "graphmem_events", "Telemetry events, by name.", ["event"], registry=r
        )
        self.deliveries_pruned = Counter(
            "graphmem_deliveries_pruned",
            "Deliveries (knowledgeContext answers on record) pruned past a project's bounds.",
            registry=r,
        )
        self._counted = (
            CountedPerProject(
                "graphmem_candidates_waiting",
                "Candidate memories awaiting activation or review, per project.",
                count=metrics.candidates_waiting,
                ttl=candidates_ttl,
            ),
            CountedPerProject(
                "graphmem_deliveries_stored",
                "Deliveries (knowledgeContext answers on record) stored, per project.",
                count=deliveries.stored_per_project,
                ttl=candidates_ttl,
            ),
        )
        for counted in self._counted:
            r.register(counted)
        self._statement_children: dict[tuple[str, str], Any] = {}
        self._request_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
        self._operation_names: set[str] = set()
        self._handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "promotion.triggered": self._promotion_triggered,
            "promotion.completed": self._promotion_completed,
            "archival.completed": self._archival_completed,
            "staging.activated": lambda f: self.activated.labels(f.get("signal", "")).inc(),
            "staging.merged": lambda f: self.merged.inc(),
            "evaluator.completed": lambda f: self.evaluator_runs.inc(),
            "knowledge.context": lambda f: self._retrieval("context", f),
            "retrieval.search": lambda f: self._retrieval("search", f),
            "deliveries.pruned": lambda f: self.deliveries_pruned.inc(f.get("pruned", 0)),
        }

    def count_in(self, gm: GraphMem) -> None:
        """Count waiting candidates and stored deliveries in ``gm``'s graph at scrape time."""
        for counted in self._counted:
            counted.gm = gm

    # -- telemetry events --------------------------------------------------

    def on_event(self, event: Event) -> None:
        """A telemetry subscriber: each event counted, known ones into their metrics."""
        self.events.labels(event.name).inc()
        handle = self._handlers.get(event.name)
        if handle is not None:
            handle(event.fields)

    def _promotion_triggered(self, fields: dict[str, Any]) -> None:
        self.promotion_triggers.labels(fields.get("trigger", "")).inc()

    def _promotion_completed(self, fields: dict[str, Any]) -> None:
        if fields.get("dry_run"):
            return
        trigger = fields.get("trigger", "")
        self.promotion_runs.labels(trigger).inc()
        self.promoted.labels(trigger).inc(fields.get("promoted", 0))
        self.promotion_failures.labels(trigger).inc(fields.get("failed", 0))
        if "duration_ms" in fields:
            self.promotion_seconds.labels(trigger).observe(fields["duration_ms"] / 1000.0)

    def _archival_completed(self, fields: dict[str, Any]) -> None:
        if fields.get("dry_run"):
            return
        self.archival_runs.inc()
        self.archived.inc(fields.get("archived", 0))

    def _retrieval(self, kind: str, fields: dict[str, Any]) -> None:
        self.retrievals.labels(kind, fields.get("status", "ok")).inc()
        if "duration_ms" in fields:
            self.retrieval_seconds.labels(kind).observe(fields["duration_ms"] / 1000.0)

    # -- instruments -------------------------------------------------------

    def observe_statement(self, name: str, access: str, seconds: float, ok: bool) -> None:
        child = self._statement_children.get((name, access))
        if child is None:
            child = self._statement_children[(name, access)] = self.statement_seconds.labels(
                name, access
            )
        child.observe(seconds)
        if not ok:
            self.statement_errors.labels(name).inc()

    def observe_embedding(self, texts: int, seconds: float) -> None:
        if texts:
            self.embedding_seconds.observe(seconds)
            self.embedded_texts.inc(texts)

    def observe_request(
        self, request: RequestInfo, route: str, status: int, seconds: float
    ) -> None:
        key = (request.method, route, status)
        children = self._request_children.get(key)
        if children is None:
            children = self._request_children[key] = (
                self.http_requests.labels(request.method, route, str(status)),
                self.http_seconds.labels(request.method, route),
            )
        children[0].inc()
        children[1].observe(seconds)
        if request.operation_type is None:
            return
        name = self._operation_label(request.operation)
        kind = request.operation_type
        self.operations.labels(name, kind, request.outcome or "ok").inc()
        if request.operation_seconds is not None:
            self.operation_seconds.labels(name, kind).observe(request.operation_seconds)

    def _operation_label(self, name: str | None) -> str:
        if name is None:
            return "unknown"
        if name in self._operation_names:
            return name
        if not _GRAPHQL_NAME.fullmatch(name) or len(self._operation_names) >= MAX_OPERATION_NAMES:
            return "other"
        self._operation_names.add(name)
        return name


PerProject = Callable[[Store], dict[str, int]]
"""A count in the graph per project, read from a store (``store.queries``)."""


class CountedPerProject:
    """A gauge per project counted in the graph at scrape time by one statement
    (``graphmem_candidates_waiting``, ``graphmem_deliveries_stored``), reused for
    ``ttl`` seconds."""

    def __init__(self, name: str, help: str, *, count: PerProject, ttl: float) -> None:
        self.gm: GraphMem | None = None
        self._name, self._help = name, help
        self._count = count
        self._ttl = ttl
        self._lock = threading.Lock()
        self._counted_at = float("-inf")
        self._counts: dict[str, int] = {}

    def describe(self) -> list[Metric]:
        return [self._family()]

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        for project, count in sorted(self._current().items()):
            family.add_metric([project], count)
        yield family

    def _family(self) -> GaugeMetricFamily:
        return GaugeMetricFamily(self._name, self._help, labels=["project"])

    def _current(self) -> dict[str, int]:
        with self._lock:
            now = time.monotonic()
            if self.gm is not None and now - self._counted_at >= self._ttl:
                try:
                    counts = self._count(self.gm.store)
                except Exception:  # a scrape must still show every other metric
                    log.warning("could not count %s", self._name, exc_info=True)
                    self._counts = {}
                else:
                    self._counts = counts
                    self._counted_at = now
            return self._counts
