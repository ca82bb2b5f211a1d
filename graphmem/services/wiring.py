"""The services a GraphMem is made of, each built once over one store, clock,
scorer, set of retention rules and telemetry hook, and handed the services it
works through.

``Services`` lists them once: each is an attribute assigned where it is built,
typed by what builds it, in the order of their dependencies (a service is built
after every service it is given). The facade (``graphmem.api.GraphMem``) is a
``Services``, so a surface reaches a service as the facade's attribute
(``gm.review``, ``gm.store``) and nothing copies the list."""

from __future__ import annotations

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


class Services:
    """Every service over one store."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock,
        scorer: ImportanceScorer,
        rules: RetentionRules,
        telemetry: Telemetry,
        embedder: Embedder | None,
        default_visibility: Visibility,
    ) -> None:
        """``default_visibility``: who sees an agent's new memories where neither the
        write nor its project says."""
        self.store = store
        self.clock = clock
        self.scorer = scorer
        self.rules = rules
        self.telemetry = telemetry
        self.embedder = embedder
        """Embeds memories as they are written; ``None``: full text and relations only."""
        basics = Basics(store=store, clock=clock, scorer=scorer, rules=rules, telemetry=telemetry)
        self.promotion = PromotionEngine(basics)
        self.stager = Stager(basics)
        self.retrieval = Retrieval(
            store,
            clock=clock,
            scorer=scorer,
            telemetry=telemetry,
            embedder=embedder,
            policy=InjectionPolicy(candidate_min_score=rules.candidate_slot_min_score),
        )
        embed = self.retrieval.embed_memories
        self.delivery_record = Deliveries(basics)
        """What each knowledgeContext answer handed out, on record."""
        self.memories = Memories(basics, stager=self.stager, embed=embed)
        self.projects = Projects(basics)
        self.sharing = Sharing(
            basics,
            memories=self.memories,
            projects=self.projects,
            default_visibility=default_visibility,
        )
        self.writer = Writer(
            basics,
            stager=self.stager,
            promotion=self.promotion,
            memories=self.memories,
            embed=embed,
            projects=self.projects,
            sharing=self.sharing,
            links=AutoLinker(store, self.retrieval.project_term_counts, self.retrieval.scoped),
            near_matches=NearMatches(basics),
        )
        self.review = Review(basics, stager=self.stager, memories=self.memories)
        self.archiver = Archiver(basics)
        self.relation_edges = Relations(basics)
        self.consolidator = Consolidator(basics, embed=embed)
        self.sessions = Sessions(basics, promotion=self.promotion)
        self.undoer = Undo(
            basics,
            memories=self.memories,
            archiver=self.archiver,
            relations=self.relation_edges,
            writer=self.writer,
        )
        """Takes back merges, supersedes, consolidations, archives, rejections and marks."""
        self.failures = Failures(
            basics,
            writer=self.writer,
            memories=self.memories,
            stager=self.stager,
            sharing=self.sharing,
        )
        self.whatif = WhatIf(store, clock=clock, scorer=scorer, rules=rules)
        self.evaluator = Evaluator(basics, review=self.review)
        self.keys = ApiKeys(store, clock)
        self.events = EventBus(telemetry)
        """What happens to memories, for live subscribers (GraphQL subscriptions)."""
