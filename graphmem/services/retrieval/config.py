"""How retrieval is tuned: one frozen configuration read by every step.

``Retrieval.config`` may be replaced while the service runs (the benchmarks
and tests measure settings that way); each part reads it at every call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphmem.domain.retrieval import context as ctx
from graphmem.domain.retrieval.answerable import Answerability
from graphmem.domain.retrieval.fusion import ScoreFusion
from graphmem.domain.retrieval.search import RankWeights, RelationFactors
from graphmem.domain.retrieval.when import TimeChannel
from graphmem.services.retrieval.feedback import LexicalFeedback
from graphmem.services.retrieval.recent import RecentPart


@dataclass(frozen=True)
class RetrievalConfig:
    fusion: ScoreFusion = field(default_factory=ScoreFusion)
    """How vector and full-text scores become one relevance (see fusion.py)."""
    context_overfetch: int = 10
    """knowledgeContext asks each index for this many times ``max_results`` candidates."""
    search_overfetch: int = 10
    """Search asks each retriever for this many times ``limit`` scores (at least 20),
    as knowledgeContext does: a candidate one retriever missed gets that retriever's
    lowest score, and a deeper list makes that closer to its own (docs/retrieval.md:
    madial HYBRID recall@10 0.722 at 5x, 0.740 at 10x and 20x; the others unchanged)."""
    candidate_overfetch: int = 5
    """Of each retriever's scores (``search_overfetch``, ``context_overfetch``), the
    best this many times the limit are candidates: their fields and text are read,
    and they are ranked. The deeper ones only lend their scores to candidates the
    other retriever found and set the floor; they hold what scoring needs most
    (the floor, a candidate's own score) for half the reading (docs/retrieval.md:
    the dev sets' figures are unchanged, where asking 5x deep lost madial HYBRID
    0.007 of recall@10)."""
    feedback: LexicalFeedback = field(default_factory=LexicalFeedback)
    """Lexical pseudo-relevance feedback (RM3) for short queries in HYBRID, GRAPH
    and knowledgeContext: see feedback.py, and docs/retrieval.md for the figures
    that chose it and for what was tried beside it (``docs=0`` turns it off)."""
    recent: RecentPart = field(default_factory=RecentPart)
    """A long query's last sentences as a second query vector in HYBRID, GRAPH and
    knowledgeContext: see recent.py, and docs/retrieval.md for its figures
    (``RecentPart(sentences=0)`` turns it off)."""
    time: TimeChannel = field(default_factory=TimeChannel)
    """A time the query names ("in May", "last week", "June 3, 2025") weighs each
    candidate of HYBRID, GRAPH and knowledgeContext by how near its time is, and
    a past one keeps the superseded memories that held then (when.py;
    docs/retrieval.md; ``TimeChannel(weight=0)`` turns it off)."""
    answerability: Answerability = field(default_factory=Answerability)
    """HYBRID, GRAPH and knowledgeContext answer a query nothing in the project
    answers with no hits and a note (answerable.py; docs/retrieval.md;
    ``Answerability(cut=0)`` turns it off, as ``minRelevance`` 0 does per call)."""
    exchanges: bool = True
    """HYBRID, GRAPH and knowledgeContext score a question turn and the turn after
    it in the same session as one exchange (exchange.py; docs/retrieval.md)."""
    exact_vector_below: int = 5_000
    """A project the viewer reads at most this many memories of is scored whole by
    exact cosine instead of through the vector index (``Retrievers``' vector side)."""
    index_k_max: int = 4_000
    """Both indexes span every project: each is asked for its best k, the project
    and filters apply to those, and when they leave too few, k grows fourfold up
    to this cap."""
    exact_fulltext_below: int = 5_000
    """A project the viewer reads at most this many memories of is ranked whole by
    full text: every memory holding a word of the query is read and ranked by
    BM25, none chosen by the index's own scorer (``Retrievers``' full-text side)."""
    common_term_share: float = 0.01
    """In a larger project, a word matching at least this share of its memories is
    "common" (see fulltext.py): a share, so a project's size decides, not a count."""
    term_count_cap: int = 20_000
    """Document frequencies are counted up to this many matches (the count's cost);
    a word matching more is treated as matching this many."""
    fulltext_rescore: int = 250
    """Full text asks the index for up to this many matches and ranks them by BM25
    (more while the filters leave fewer than it keeps). At 100,000 memories the
    best ten by BM25 were as good at 250 as at 1,000 or 4,000, for a third off
    the slowest searches (docs/retrieval.md)."""
    corpus_sample: int = 5_000
    """Memories sampled (uniformly) for the mean memory length BM25 normalises by,
    and for the counts of common words in a larger store (``Corpus.estimate``)."""
    term_cache_seconds: float = 300.0
    recount_below: int = 1_000
    """A write to a project of fewer memories than this drops its cached full-text
    statistics at once (``TextStatistics.on_event``); a larger one's expire."""
    max_access_cache_seconds: float = 5.0
    """How long a scope's maximum access count is reused; finding it reads every
    memory of the scope (~12 ms at 100,000), too slow for every call. 0: always read."""
    context_text_scorer: str = ctx.HYBRID
    """knowledgeContext's text similarity: ``hybrid`` (the fused relevance of
    search) or ``word_overlap`` (seed 002's literal formula, kept to compare)."""
    context_depth: int = 1
    """knowledgeContext walks this many relations from its best ``max_results``
    hits, as HYBRID search does (0: none): a rule that CONSTRAINS what the hint
    is about belongs in what an agent is told before it acts."""
    graph_seeds: int = 3
    """GRAPH mode: hits that traversal starts from; the other direct hits fill
    what traversal leaves of ``limit``."""
    traversal_share: float = 0.3
    """HYBRID: memories reached only by traversal take at most this share of
    ``limit`` (at least one slot), so strong direct hits stay in the results."""
    max_paths: int = 2_000
    neighborhood_max_nodes: int = 200
    weights: RankWeights = field(default_factory=RankWeights)
    factors: RelationFactors = field(default_factory=RelationFactors)
    record_access: bool = True
    """knowledgeContext counts a retrieval on each memory it returns (``retrieval_count``,
    apart from accesses: what retrieval returns must not raise its own frequency)."""
