"""The services a GraphMem is made of, each built once over one store, clock,
scorer, set of retention rules and telemetry hook, and handed the services it
works through. The order of ``wire`` is the order of their dependencies: a
service is built after every service it is given."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.archival import Archiver
from graphmem.autolinks import AutoLinker
from graphmem.clock import Clock
from graphmem.consolidator import Consolidator
from graphmem.embeddings import Embedder
from graphmem.evaluator import Evaluator
from graphmem.events import EventBus
from graphmem.failures import Failures
from graphmem.keys import ApiKeys
from graphmem.memories import Memories
from graphmem.models import Visibility
from graphmem.policy import InjectionPolicy
from graphmem.projects import Projects
from graphmem.promotion import PromotionEngine
from graphmem.relations import Relations
from graphmem.retention import RetentionRules
from graphmem.retrieval import Retrieval
from graphmem.review import Review
from graphmem.scoring import ImportanceScorer
from graphmem.sessions import Sessions
from graphmem.sharing import Sharing
from graphmem.staging import Stager
from graphmem.store import Store
from graphmem.telemetry import Telemetry
from graphmem.whatif import WhatIf
from graphmem.writer import Writer


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
    memories: Memories
    projects: Projects
    sharing: Sharing
    writer: Writer
    relation_edges: Relations
    consolidator: Consolidator
    sessions: Sessions
    review: Review
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
    promotion = PromotionEngine(store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry)
    stager = Stager(store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry)
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
        store,
        clock=clock,
        scorer=scorer,
        rules=rules,
        telemetry=telemetry,
        stager=stager,
        embed=embed,
    )
    projects = Projects(store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry)
    sharing = Sharing(
        store,
        clock=clock,
        scorer=scorer,
        rules=rules,
        telemetry=telemetry,
        memories=memories,
        projects=projects,
        default_visibility=default_visibility,
    )
    writer = Writer(
        store,
        clock=clock,
        scorer=scorer,
        rules=rules,
        telemetry=telemetry,
        stager=stager,
        promotion=promotion,
        memories=memories,
        embed=embed,
        projects=projects,
        sharing=sharing,
        links=AutoLinker(store, retrieval.project_term_counts, retrieval.scoped),
    )
    review = Review(
        store,
        clock=clock,
        scorer=scorer,
        rules=rules,
        telemetry=telemetry,
        stager=stager,
        memories=memories,
    )
    return Services(
        store=store,
        clock=clock,
        scorer=scorer,
        rules=rules,
        telemetry=telemetry,
        embedder=embedder,
        promotion=promotion,
        archiver=Archiver(store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry),
        stager=stager,
        retrieval=retrieval,
        memories=memories,
        projects=projects,
        sharing=sharing,
        writer=writer,
        relation_edges=Relations(
            store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry
        ),
        consolidator=Consolidator(
            store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry, embed=embed
        ),
        sessions=Sessions(
            store,
            clock=clock,
            scorer=scorer,
            rules=rules,
            telemetry=telemetry,
            promotion=promotion,
        ),
        review=review,
        failures=Failures(
            store,
            clock=clock,
            scorer=scorer,
            rules=rules,
            telemetry=telemetry,
            writer=writer,
            memories=memories,
            stager=stager,
            sharing=sharing,
        ),
        whatif=WhatIf(store, clock=clock, scorer=scorer, rules=rules),
        evaluator=Evaluator(
            store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry, review=review
        ),
        keys=ApiKeys(store, clock),
        events=EventBus(telemetry),
    )
