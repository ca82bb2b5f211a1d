"""``Client``: the ``GraphMem`` API of a server, over HTTP.

Agents in other processes are a memory server's main users; with this they
call the methods they would call in process, with the same arguments, and get
the same models and exceptions back, instead of writing GraphQL by hand.
``AsyncClient`` (``graphmem.client.aio``) is the same for asyncio code.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import httpx

from graphmem.capsules import FailureCapsule, FailureOutcome, FailureReport
from graphmem.client import calls
from graphmem.client.errors import ServerUnreachableError
from graphmem.client.transport import Call, RetryPolicy, answer, endpoint, headers
from graphmem.inputs import retrieval_request
from graphmem.models import (
    BulkReviewResult,
    Memory,
    MemoryFilter,
    MemoryInput,
    MemoryUpdate,
    Page,
    ProjectSettings,
    ProjectSettingsUpdate,
    PromotionEvent,
    PromotionStats,
    Relation,
    RelationEvent,
    RelationType,
    ReviewFilter,
    ReviewPage,
    Session,
    SharingEvent,
    StagingEvent,
    WriteOutcome,
)
from graphmem.results import ArchiveResult, ConsolidationResult, Job, RunResult
from graphmem.retrieval import (
    ContextRequest,
    ContextResult,
    Neighborhood,
    SearchRequest,
    SearchResult,
)
from graphmem.scoring import ImportanceBreakdown

if TYPE_CHECKING:
    from graphmem.evaluator import ConsistencyReport

T = TypeVar("T")


class Client:
    """A graphmem server's API with ``GraphMem``'s methods.

    ``url`` is the server (``http://127.0.0.1:8000``) or its ``/graphql``
    endpoint; ``api_key`` is sent as a bearer token. ``project_id`` is the
    project of calls that name none (``None``: the server's default). Requests
    the server refuses with 429 or 503 are sent again up to ``retry.max_retries``
    times, after the ``Retry-After`` the server asks for.
    """

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        project_id: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        http: httpx.Client | None = None,
    ) -> None:
        self.url = endpoint(url)
        self.project_id = project_id
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._owns_http = http is None
        self._http = http or httpx.Client(timeout=timeout)
        self._headers = headers(api_key)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            try:
                response = self._http.post(self.url, json=call.body(), headers=self._headers)
            except httpx.TransportError as exc:
                raise ServerUnreachableError(f"{self.url}: {exc}") from exc
            wait = self.retry.delay(response, attempt)
            if wait is None:
                return answer(call, response)
            self._sleep(wait)
            attempt += 1

    def _project(self, project_id: str | None) -> str | None:
        return self.project_id if project_id is None else project_id

    # -- memories ----------------------------------------------------------

    def remember(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> Memory:
        return self.remember_detailed(item, project_id=project_id)[0]

    def remember_detailed(
        self, item: MemoryInput | Mapping[str, Any], *, project_id: str | None = None
    ) -> tuple[Memory, WriteOutcome]:
        """Like ``remember``, also saying whether it created a memory or merged into one."""
        return self._run(calls.remember_detailed(item, self._project(project_id)))

    def remember_many(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> list[str]:
        """Write a batch; returns each item's memory id (an existing one where it merged)."""
        outcomes = self.remember_many_detailed(items, project_id=project_id, dedup=dedup)
        return [outcome.id for outcome in outcomes]

    def remember_many_detailed(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any]],
        *,
        project_id: str | None = None,
        dedup: bool = True,
    ) -> list[WriteOutcome]:
        """Write a batch in one request and one statement; one bad item writes nothing."""
        return self._run(calls.remember_many_detailed(items, self._project(project_id), dedup))

    def get(self, memory_id: str, *, project_id: str | None = None, as_of: Any = None) -> Memory:
        """One memory; with ``as_of`` (a time), as it stood then (docs/validity.md)."""
        return self._run(calls.get(memory_id, self._project(project_id), as_of))

    def get_many(
        self, memory_ids: Sequence[str], *, project_id: str | None = None, as_of: Any = None
    ) -> list[Memory | None]:
        """Memories in the order asked for, ``None`` where an id is unknown (or, with
        ``as_of``, not yet written then)."""
        project = self._project(project_id)
        return [
            memory
            for part in calls.chunked(memory_ids)
            for memory in self._run(calls.get_many(part, project, as_of))
        ]

    def list(
        self,
        filter: MemoryFilter | Mapping[str, Any] | None = None,
        *,
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
        as_of: Any = None,
    ) -> Page:
        """A page of memories, newest first, continued with ``after=page.end_cursor``;
        with ``as_of`` (a time), those that held then, as they stood."""
        call = calls.list_memories(filter, first, after, self._project(project_id), as_of)
        return self._run(call)

    def update(
        self,
        memory_id: str,
        changes: MemoryUpdate | Mapping[str, Any],
        *,
        project_id: str | None = None,
    ) -> Memory:
        return self._run(calls.update(memory_id, changes, self._project(project_id)))

    def record_access(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Count one use of a memory and rescore it."""
        return self._run(calls.record_access(memory_id, self._project(project_id)))

    def feedback(self, memory_id: str, value: int, *, project_id: str | None = None) -> Memory:
        """Record +1 (useful), 0 (neutral) or -1 (wrong or unhelpful)."""
        return self._run(calls.feedback(memory_id, value, self._project(project_id)))

    def pin(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        return self._run(calls.pin(memory_id, self._project(project_id)))

    def unpin(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        return self._run(calls.unpin(memory_id, self._project(project_id)))

    def importance_breakdown(self, memory: Memory) -> ImportanceBreakdown:
        """The score as of now on the server, factor by factor."""
        return self._run(calls.importance_breakdown(memory))

    def forget(self, memory_id: str, *, project_id: str | None = None) -> None:
        """Delete a memory and its edges: the only path that deletes anything."""
        self._run(calls.forget(memory_id, self._project(project_id)))

    # -- agents and sharing --------------------------------------------------

    def share(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Let every agent of the project see a memory (see ``GraphMem.share``)."""
        return self._run(calls.share(memory_id, self._project(project_id)))

    def unshare(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Make a memory private to the agent that wrote it (see ``GraphMem.unshare``)."""
        return self._run(calls.unshare(memory_id, self._project(project_id)))

    def copy_memory(
        self, memory_id: str, to_project_id: str, *, project_id: str | None = None
    ) -> Memory:
        """A copy of a memory in another project, naming its source (``GraphMem.copy_memory``)."""
        call = calls.copy_memory(memory_id, to_project_id, self._project(project_id))
        return self._run(call)

    def sharing_events(
        self, *, memory_id: str | None = None, limit: int = 50, project_id: str | None = None
    ) -> builtins.list[SharingEvent]:
        """Who shared, unshared or copied which memory, newest first."""
        return self._run(calls.sharing_events(memory_id, limit, self._project(project_id)))

    # -- relations ---------------------------------------------------------

    def relate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        rationale: str | None = None,
        weight: float = 1.0,
        project_id: str | None = None,
    ) -> Relation:
        """Add (or update) a typed edge between two memories of one project."""
        call = calls.relate(from_id, to_id, type, rationale, weight, self._project(project_id))
        return self._run(call)

    def supersede(
        self,
        old_id: str,
        new_id: str,
        *,
        rationale: str | None = None,
        project_id: str | None = None,
    ) -> Relation:
        """Mark ``new_id`` as replacing ``old_id``; the old memory is kept, not deleted."""
        return self._run(calls.supersede(old_id, new_id, rationale, self._project(project_id)))

    def unrelate(
        self,
        from_id: str,
        to_id: str,
        type: RelationType | str,
        *,
        reason: str,
        removed_by: str = "api",
        project_id: str | None = None,
    ) -> Relation:
        """Remove one edge, logged as an event with who removed it (``removed_by``)
        and why; returns the edge as it was. Removing a SUPERSEDES edge restores
        the older memory. No such edge: ``NotFoundError``, nothing written."""
        call = calls.unrelate(from_id, to_id, type, reason, removed_by, self._project(project_id))
        return self._run(call)

    def relation_events(
        self, memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> builtins.list[RelationEvent]:
        """Relations removed from or to a memory, newest first, with who and why."""
        return self._run(calls.relation_events(memory_id, limit, self._project(project_id)))

    def relations(
        self, memory_ids: Sequence[str], *, project_id: str | None = None
    ) -> builtins.list[builtins.list[Relation]]:
        """Edges touching each memory, grouped per id in the order asked for."""
        project = self._project(project_id)
        return [
            edges
            for part in calls.chunked(memory_ids)
            for edges in self._run(calls.relations(part, project))
        ]

    # -- sessions ----------------------------------------------------------

    def open_session(
        self,
        session_id: str | None = None,
        *,
        name: str | None = None,
        max_items: int | None = None,
        project_id: str | None = None,
    ) -> Session:
        call = calls.open_session(session_id, name, max_items, self._project(project_id))
        return self._run(call)

    def pause_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        """Promote what is worth keeping, then pause."""
        return self._run(
            calls.session_change("pauseSession", session_id, self._project(project_id))
        )

    def close_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        """A final, uncapped promotion run, then close."""
        return self._run(
            calls.session_change("closeSession", session_id, self._project(project_id))
        )

    def get_sessions(
        self, session_ids: Iterable[str], *, project_id: str | None = None
    ) -> builtins.list[Session | None]:
        project = self._project(project_id)
        return [
            session
            for part in calls.chunked(list(session_ids))
            for session in self._run(calls.get_sessions(part, project))
        ]

    def get_session(self, session_id: str, *, project_id: str | None = None) -> Session:
        return self._run(calls.get_session(session_id, self._project(project_id)))

    # -- project settings ---------------------------------------------------

    def project_ids(self) -> builtins.list[str]:
        """Every project this client's key may read that holds memories, sessions
        or settings, sorted: how a typo is told from an empty project."""
        return self._run(calls.projects())

    def project_settings(self, *, project_id: str | None = None) -> ProjectSettings:
        """The project's settings (the defaults until some are set)."""
        return self._run(calls.project_settings(self._project(project_id)))

    def set_project_settings(
        self,
        update: ProjectSettingsUpdate | Mapping[str, Any] | None = None,
        *,
        project_id: str | None = None,
        **settings: Any,
    ) -> ProjectSettings:
        """Change some of the project's settings (an admin key's call); the others
        keep their values."""
        if update is not None and settings:
            raise TypeError("pass a whole ProjectSettingsUpdate or keyword settings, not both")
        call = calls.set_project_settings(
            settings if update is None else update, self._project(project_id)
        )
        return self._run(call)

    # -- promotion and archival ---------------------------------------------

    def run_promotion(
        self, session_id: str, *, dry_run: bool = False, project_id: str | None = None
    ) -> RunResult:
        """Promote a session's worthy short-term memories now (or show what would move)."""
        return self._run(calls.run_promotion(session_id, dry_run, self._project(project_id)))

    def promotion_stats(self, session_id: str, *, project_id: str | None = None) -> PromotionStats:
        return self._run(calls.promotion_stats(session_id, self._project(project_id)))

    def promotion_events(
        self,
        *,
        memory_id: str | None = None,
        session_id: str | None = None,
        limit: int = 50,
        project_id: str | None = None,
    ) -> builtins.list[PromotionEvent]:
        """The promotion log of a memory or a session, newest first."""
        call = calls.promotion_events(memory_id, session_id, limit, self._project(project_id))
        return self._run(call)

    def enable_promotion(
        self,
        session_id: str,
        *,
        interval_seconds: float | None = None,
        project_id: str | None = None,
    ) -> PromotionStats:
        """Turn the periodic trigger on; the next run is one interval from now."""
        call = calls.set_promotion(session_id, True, interval_seconds, self._project(project_id))
        return self._run(call)

    def disable_promotion(
        self, session_id: str, *, project_id: str | None = None
    ) -> PromotionStats:
        return self._run(calls.set_promotion(session_id, False, None, self._project(project_id)))

    def archive_stale(
        self, *, dry_run: bool = False, project_id: str | None = None
    ) -> ArchiveResult:
        return self._run(calls.archive_stale(dry_run, self._project(project_id)))

    def record_failure(
        self, report: FailureReport | Mapping[str, Any], *, project_id: str | None = None
    ) -> FailureOutcome:
        """Store a failure as a capsule (or count a recurrence of it) with its lesson
        candidate; nothing is written when the report is invalid."""
        return self._run(calls.record_failure(report, self._project(project_id)))

    def failure_capsules(
        self,
        *,
        session_id: str | None = None,
        limit: int = 20,
        project_id: str | None = None,
    ) -> builtins.list[FailureCapsule]:
        """Failure capsules, most recently seen first."""
        return self._run(calls.failure_capsules(session_id, limit, self._project(project_id)))

    def failure_capsule(self, capsule_id: str, *, project_id: str | None = None) -> FailureCapsule:
        return self._run(calls.failure_capsule(capsule_id, self._project(project_id)))

    def consolidate(
        self,
        *,
        dry_run: bool = False,
        fingerprints: Sequence[str] | None = None,
        project_id: str | None = None,
    ) -> ConsolidationResult:
        """One consolidated memory per group of related memories; ``dry_run``: only the
        groups. ``fingerprints``: only these groups of a dry run."""
        return self._run(calls.consolidate(dry_run, fingerprints, self._project(project_id)))

    def restore(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """Back to its previous tier, counted as just used (and rescored so)."""
        return self._run(calls.restore(memory_id, self._project(project_id)))

    # -- staging and review --------------------------------------------------

    def review_queue(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None = None,
        *,
        order: str = "oldest",
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> ReviewPage:
        """Candidates awaiting review, ``oldest`` or most-``evidence`` first."""
        call = calls.review_queue(filter, order, first, after, self._project(project_id))
        return self._run(call)

    def approve(self, memory_id: str, *, project_id: str | None = None) -> Memory:
        """A reviewer's confirmation: candidate -> active (no-op if already active)."""
        return self._run(calls.approve(memory_id, self._project(project_id)))

    def reject(self, memory_id: str, reason: str, *, project_id: str | None = None) -> Memory:
        """Archive a candidate with the reviewer's reason; it stays retrievable."""
        return self._run(calls.reject(memory_id, reason, self._project(project_id)))

    def merge_memories(
        self, into_id: str, from_id: str, *, project_id: str | None = None
    ) -> Memory:
        """Fold ``from_id`` into ``into_id``; the absorbed memory is archived, not deleted."""
        return self._run(calls.merge_memories(into_id, from_id, self._project(project_id)))

    def bulk_review(
        self,
        filter: ReviewFilter | Mapping[str, Any] | None,
        action: str,
        *,
        reason: str | None = None,
        dry_run: bool = True,
        project_id: str | None = None,
    ) -> BulkReviewResult:
        """Approve or reject every candidate the filter selects; a dry run by default."""
        call = calls.bulk_review(filter, action, reason, dry_run, self._project(project_id))
        return self._run(call)

    def staging_events(
        self, memory_id: str, *, limit: int = 50, project_id: str | None = None
    ) -> builtins.list[StagingEvent]:
        return self._run(calls.staging_events(memory_id, limit, self._project(project_id)))

    # -- consistency evaluation ---------------------------------------------

    def submit_consistency_check(
        self, *, fix: bool = False, evidence: bool = False, project_id: str | None = None
    ) -> Job:
        """Evaluate the project in the background on the server; poll ``consistency_job``."""
        call = calls.submit_consistency_check(fix, evidence, self._project(project_id))
        return self._run(call)

    def consistency_job(self, job_id: str, *, project_id: str | None = None) -> Job | None:
        """A job the server started for the project; ``None`` for any other id."""
        return self._run(calls.consistency_job(job_id, self._project(project_id)))

    def consistency_reports(
        self,
        *,
        limit: int = 20,
        before: float | None = None,
        report_id: str | None = None,
        full: bool = True,
        project_id: str | None = None,
    ) -> builtins.list[ConsistencyReport]:
        """Stored evaluator reports, newest first; the server sends them whole, so
        ``full`` makes no difference here."""
        call = calls.consistency_reports(limit, before, report_id, self._project(project_id))
        return self._run(call)

    # -- retrieval -----------------------------------------------------------

    def knowledge_context(
        self,
        context_hint: str | ContextRequest | Mapping[str, Any],
        *,
        record_access: bool | None = None,
        project_id: str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> ContextResult:
        """What an agent should know right now, best first (see ``GraphMem.knowledge_context``)."""
        request = retrieval_request(ContextRequest, "context_hint", context_hint, options)
        project = self._project(project_id)
        call = calls.knowledge_context(request, record_access, project, agent_id)
        return self._run(call)

    def search(
        self,
        query: str | SearchRequest | Mapping[str, Any],
        *,
        project_id: str | None = None,
        agent_id: str | None = None,
        **options: Any,
    ) -> SearchResult:
        """Hybrid search over vectors, full text and relations; every hit explains itself."""
        request = retrieval_request(SearchRequest, "query", query, options)
        return self._run(calls.search(request, self._project(project_id), agent_id))

    def neighborhood(
        self,
        memory_id: str,
        *,
        depth: int = 1,
        relation_types: Sequence[RelationType | str] | None = None,
        project_id: str | None = None,
        as_of: Any = None,
    ) -> Neighborhood:
        """The memories within ``depth`` relations of one, and the relations between
        them; with ``as_of`` (a time), those that existed then, as they stood."""
        call = calls.neighborhood(
            memory_id, depth, relation_types, self._project(project_id), as_of
        )
        return self._run(call)
