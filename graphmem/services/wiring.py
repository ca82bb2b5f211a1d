"""The services a GraphMem is made of, each built once over one store, clock,
scorer, set of retention rules and telemetry hook, and handed the services it
works through. The order of ``wire`` is the order of their dependencies: a
service is built after every service it is given."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.domain.clock import Clock
from graphmem.domain.kinds import Visibility
from graphmem.domain.policy import InjectionPolicy
from graphmem.domain.retention import RetentionRules
from graphmem.domain.scoring import ImportanceScorer
from graphmem.services.archival import Archiver
from graphmem.services.autolinks import AutoLinker
from graphmem.services.base import Basics
from graphmem.services.consolidator import Consolidator
from graphmem.services.deliveries import Deliveries
from graphmem.services.embeddings import Embedder
from graphmem.services.evaluator import Evaluator
from graphmem.services.events import EventBus
from graphmem.services.failures import Failures
from graphmem.services.keys import ApiKeys
from graphmem.services.memories import Memories
from graphmem.services.near_matches import NearMatches
from graphmem.services.projects import Projects
from graphmem.services.promotion import PromotionEngine
from graphmem.services.relations import Relations
from graphmem.services.retrieval.service import Retrieval
from graphmem.services.review import Review
from graphmem.services.sessions import Sessions
from graphmem.services.sharing import Sharing
from graphmem.services.staging import Stager
from graphmem.services.telemetry import Telemetry
from graphmem.services.undo import Undo
from graphmem.services.whatif import WhatIf
from graphmem.services.writer import Writer
from graphmem.store import Store


@dataclass(frozen=True)
class Services:
    store: Store
    clock: Clock
    scorer: ImportanceScorer
    rules: RetentionRules
    telemetry: Telemetry
    embedder: Embedder | None
    """Embeds memories as they are written; ``None``: full text and relations only."""
    promotion: PromotionEngine
    archiver: Archiver
    stager: Stager
    retrieval: Retrieval
    deliveries: Deliveries
    """What each knowledgeContext answer handed out, on record."""
    memories: Memories
    projects: Projects
    sharing: Sharing
    writer: Writer
    relation_edges: Relations
    consolidator: Consolidator
    sessions: Sessions
    review: Review
    undo: Undo
    """Takes back merges, supersedes, consolidations, archives, rejections and marks."""
    failures: Failures
    whatif: WhatIf
    evaluator: Evaluator
    keys: ApiKeys
    events: EventBus
    """What happens to memories, for live subscribers (GraphQL subscriptions)."""


def wire(
    store: Store,
    *,
    clock: Clock,
    scorer: ImportanceScorer,
    rules: RetentionRules,
    telemetry: Telemetry,
    embedder: Embedder | None,
    default_visibility: Visibility,
) -> Services:
    """Every service over ``store``; ``default_visibility``: who sees an agent's new
    memories where neither the write nor its project says."""
    basics = Basics(store=store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry)
    promotion = PromotionEngine(basics)
    stager = Stager(basics)
    retrieval = Retrieval(
        store,
        clock=clock,
        scorer=scorer,
        telemetry=telemetry,
        embedder=embedder,
        policy=InjectionPolicy(candidate_min_score=rules.candidate_slot_min_score),
    )
    embed = retrieval.embed_memories
    memories = Memories(
        basics,
        stager=stager,
        embed=embed,
    )
    projects = Projects(basics)
    sharing = Sharing(
        basics,
        memories=memories,
        projects=projects,
        default_visibility=default_visibility,
    )
    writer = Writer(
        basics,
        stager=stager,
        promotion=promotion,
        memories=memories,
        embed=embed,
        projects=projects,
        sharing=sharing,
        links=AutoLinker(store, retrieval.project_term_counts, retrieval.scoped),
        near_matches=NearMatches(basics),
    )
    review = Review(
        basics,
        stager=stager,
        memories=memories,
    )
    archiver = Archiver(basics)
    relation_edges = Relations(basics)
    return Services(
        store=store,
        clock=clock,
        scorer=scorer,
        rules=rules,
        telemetry=telemetry,
        embedder=embedder,
        promotion=promotion,
        archiver=archiver,
        stager=stager,
        retrieval=retrieval,
        deliveries=Deliveries(basics),
        memories=memories,
        projects=projects,
        sharing=sharing,
        writer=writer,
        relation_edges=relation_edges,
        consolidator=Consolidator(basics, embed=embed),
        sessions=Sessions(
            basics,
            promotion=promotion,
        ),
        review=review,
        undo=Undo(
            basics,
            memories=memories,
            archiver=archiver,
            relations=relation_edges,
            writer=writer,
        ),
        failures=Failures(
            basics,
            writer=writer,
            memories=memories,
            stager=stager,
            sharing=sharing,
        ),
        whatif=WhatIf(store, clock=clock, scorer=scorer, rules=rules),
        evaluator=Evaluator(basics, review=review),
        keys=ApiKeys(store, clock),
        events=EventBus(telemetry),
    )
