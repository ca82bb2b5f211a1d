"""Every statement that returns a memory returns all of it, and every pass
weighs its age alike: the surfaces that read those statements agree."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import Client, GraphMem, ManualClock
from graphmem.domain.kinds import Tier
from graphmem.graphql.app import create_app
from graphmem.store import Store
from tests.conftest import cypher
from tests.integration.conftest import serve

S = "thread-1"
DAY = 86_400


def strong(content: str, **extra: object) -> dict[str, object]:
    return {"content": content, "memory_type": "risk", "confidence": 0.9, "session_id": S, **extra}


def test_the_episodic_pass_ages_a_memory_from_when_it_happened(gm: GraphMem, clock: ManualClock):
    """A memory of a past event is as old in the periodic pass as in the session's."""
    gm.rules = gm.promotion.rules = gm.rules.model_copy(update={"promote_threshold": 0.01})
    happened = clock.now() - 10 * DAY
    memory = gm.remember(strong("the nightly job broke on token expiry", occurred_at=happened))
    gm.close_session(S)
    assert gm.get(memory.id).tier is Tier.EPISODIC
    clock.advance(60)
    gm.feedback(memory.id, 1)
    (candidate,) = gm.promotion.consolidate(project_id="default", dry_run=True)
    stored = gm.get(memory.id)
    assert candidate.score == pytest.approx(gm.promotion.scorer.score(stored, clock.now()))
    assert candidate.memory.occurred_at == stored.occurred_at == happened


def test_an_archive_purge_exports_every_field(
    gm: GraphMem, clock: ManualClock, store: Store, tmp_path: Path
):
    happened = clock.now() - DAY
    memory = gm.remember(
        {
            "content": "maybe the cache is cold",
            "memory_type": "assumption",
            "confidence": 0.2,
            "session_id": S,
            "occurred_at": happened,
        }
    )
    cypher(
        store,
        "MATCH (m:Memory {id: $id}) SET m.retrieval_count = 3, m.last_retrieved_at = $at",
        {"id": memory.id, "at": clock.now()},
    )
    retrieved = gm.get(memory.id)
    expiry = gm.rules.archive_expiry.model_copy(
        update={"enabled": True, "after_days": 30.0, "export_dir": str(tmp_path)}
    )
    gm.rules = gm.archiver.rules = gm.rules.model_copy(update={"archive_expiry": expiry})
    clock.advance(2 * DAY)
    assert memory.id in gm.archive_stale().archived
    clock.advance(31 * DAY)
    result = gm.archiver.expire_archived(project_id="default")
    assert result.purged == [memory.id]
    (line,) = Path(result.export_file).read_text().splitlines()
    exported = json.loads(line)["memory"]
    assert set(exported) == set(type(retrieved).model_fields)
    assert exported["occurred_at"] == happened
    assert exported["retrieval_count"] == 3
    assert exported["last_retrieved_at"] == retrieved.last_retrieved_at


@pytest.fixture
def client(gm: GraphMem) -> Iterator[Client]:
    with serve(create_app(gm)) as http, Client(str(http.base_url)) as client:
        yield client


def test_the_remote_client_reads_evaluator_relevance(gm: GraphMem, client: Client):
    memory = gm.remember(strong("the deploy key rotates monthly"))
    gm.record_evidence(memory.id, 0.75)
    assert gm.get(memory.id).evaluator_relevance == 0.75
    assert client.get(memory.id).evaluator_relevance == 0.75
