"""``python -m benchmarks.retrieval_eval``: retrieval quality per dev set and mode.

Five dev sets, each written through the Python API with embeddings on:

- ``own``: graphmem's labelled set (``benchmarks/eval/retrieval_eval.json``:
  exact tokens, paraphrases, answers that need a relation walked, superseded
  answers);
- ``madial``: MADial-Bench (``../shared/eval/madial``: 160 event memories,
  each dialogue's turns before the test turn as the query, its gold memory
  ids as the answer);
- ``conversations``: multi-session user/assistant conversations
  (``benchmarks/eval/conversations.json``): every turn one memory, one
  project per conversation, questions answered by named turns;
- ``chats``: long chats among several people (``benchmarks/eval/chats.json``,
  made by ``benchmarks.make_chats``): hundreds of turns each over dated
  sessions, most of them small talk, with single-hop, multi-hop, temporal
  and paraphrased questions, each answered by named turns;
- ``agent`` (only when named in ``--sets``): a coding agent's project memory
  (``benchmarks/eval/agent_memory.json``, made by
  ``benchmarks.make_agent_memory``): four projects of dated decisions,
  conventions, rules and lessons with supersede chains and CONSTRAINS and
  ENABLES relations, one project per project; questions direct, paraphrased,
  about a past month, about the current state, answered through a relation,
  and with no answer. Its held-out project is reported apart as
  ``agent-heldout`` (never tune on it); its questions with no answer are kept
  out of recall and reported, per mode, as the share answered with no hits;
  and its figures are also broken down per question kind.

Each set is measured alone in a store of its own and in one store with every
other set of the run (``--stores``), each set (or each of its conversations) a
project, as a server holding many projects has them; and through each write
path a user takes (``--writes``): ``rememberMany`` as callers get it (dedup
and the write judgments on) and ``remember`` one item at a time (``import``,
dedup off, is what earlier figures used). The verdicts: HYBRID at least
``FUSION_GAIN`` above the best single retriever, references included;
FULLTEXT within 0.02 of the reference BM25; knowledgeContext within
``CONTEXT_GAP`` of HYBRID; and a line for every graphmem mode below a
reference.

Every graphmem mode (FULLTEXT, VECTOR, HYBRID, GRAPH, knowledgeContext; also
knowledgeContext scored by seed 002's word overlap with nothing left out, and
HYBRID with minRelevance 0, to show what the default threshold costs) runs
beside two references on the same memories in the same run: Okapi BM25
(``rank_bm25``, k1 1.2, b 0.75, over an analysis of its own: word tokens,
its own stop words, no stemming; nothing of graphmem's code) and
plain cosine similarity of the same embeddings. Printed per set and mode:
recall@5, recall@10, MRR@10 and p50/p95 latency per query.

With ``--links``, each set is written again with each kind of ingest-time link
on (``ProjectSettings.auto_links``: previous_turn, same_entity, both) and the
modes links can change (HYBRID, GRAPH, knowledgeContext) run on it, as rows
named ``HYBRID +previous_turn`` and so on.

With ``--feedback``, HYBRID (at the default minRelevance and at 0) and
knowledgeContext run again for each pseudo-relevance feedback setting
(``LexicalFeedback``: off, the default, each parameter moved alone, every
query expanded).

With ``--query-parts``, the same modes run again with a long query's last
sentences as a second vector off and at neighbouring settings (``RecentPart``),
with question and answer turns scored as one exchange off
(``RetrievalConfig.exchanges``), and with the time a query names off and its
weight and threshold moved (``TimeChannel``), each setting timed query by
query in one process.

Then the minRelevance calibration (``--no-calibrate`` skips it): per set and
threshold, the share of the right memories in a HYBRID top 10 whose relevance
reaches it, the share of queries whose best right memory does, and the share
of the other sets' queries, asked of this set's store at that threshold, that
it answers with nothing.

Everything runs on each backend ``--backend`` names (``both`` by default):
the embedded FalkorDB (a throwaway one under /tmp, a graph per store), and
Neo4j, either the server at ``--neo4j-uri`` or a test Neo4j this run starts
(``benchmarks/neo4j_server.py``). Neo4j Community has one user database, so each
store this run writes there replaces the one before (the database is emptied,
indexes included): a set's queries never see another set's memories or
statistics, as on FalkorDB. With both, a last table sets each graphmem mode's
recall@10 and MRR@10 on the two side by side; they must agree within
``AGREEMENT``: the full-text engines only find candidates and count words,
graphmem ranks by its own BM25, and both vector indexes score plain cosine
(Neo4j's unquantized). What still parts them is full-text analysis (Lucene's
Porter stemmer and word boundaries against RediSearch's): docs/neo4j.md,
"Figures".
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from falkordb import FalkorDB

from benchmarks import recorded
from benchmarks.neo4j_server import (
    BackendOption,
    Neo4jPasswordOption,
    Neo4jUriOption,
    Neo4jUserOption,
)
from benchmarks.rerankers import CrossEncoder, reranked
from graphmem.api import GraphMem
from graphmem.domain.retrieval.context import WORD_OVERLAP
from graphmem.domain.retrieval.fusion import ScoreFusion
from graphmem.domain.retrieval.search import MAX_QUERY_CHARS
from graphmem.domain.retrieval.when import TimeChannel
from graphmem.services.embeddings import EMBEDDERS, ModelEmbedder, embedder_named, memory_text
from graphmem.services.retrieval.feedback import LexicalFeedback
from graphmem.services.retrieval.recent import RecentPart
from graphmem.store.embedded import EmbeddedFalkorDB
from graphmem.store.falkordb import FalkorStore

BACKENDS = ("falkordb", "neo4j")
AGREEMENT = 0.01
"""The most recall@10 or MRR@10 of a mode may differ between the backends."""

EVAL_DIR = Path(__file__).resolve().parent / "eval"
OWN_SET = EVAL_DIR / "retrieval_eval.json"
CONVERSATIONS = EVAL_DIR / "conversations.json"
CHATS = EVAL_DIR / "chats.json"
AGENT_MEMORY = EVAL_DIR / "agent_memory.json"
MADIAL_DIR = next(
    (
        found
        for root in Path(__file__).resolve().parents[1:4]
        if (found := root / "shared" / "eval" / "madial").is_dir()
    ),
    Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "madial",
)
"""``shared/eval/madial`` beside the checkout (or beside its parent, for worktrees)."""
MODES = ("FULLTEXT", "VECTOR", "HYBRID", "GRAPH")
CONTEXT = "knowledgeContext"
UNFILTERED = "HYBRID minRel 0"
"""HYBRID with minRelevance 0: what the default threshold costs in recall."""
SEED_CONTEXT = "kC word overlap"
"""knowledgeContext with seed 002's literal word overlap as its text similarity."""
REFERENCES = ("ref BM25", "ref dense")
CUTOFFS = (5, 10)
DEPTH = 10


@dataclass(frozen=True)
class LabelledQuery:
    text: str
    relevant: frozenset[str]
    kind: str = ""
    project: str | None = None
    """None: the GraphMem's default project."""


@dataclass(frozen=True)
class DevSet:
    """A loaded dev set: its queries and, per project, every memory's id and text."""

    name: str
    queries: list[LabelledQuery]
    corpus: dict[str | None, dict[str, str]]
    negatives: list[LabelledQuery] = field(default_factory=list)
    """Queries nothing in the set answers: kept out of recall (no relevant memory to
    count), reported as the share answered with no hits."""
    held_out: DevSet | None = None
    """Queries (and their projects' memories) reported apart, as a set of their own:
    never used to choose a setting (the grids and the calibration see ``queries``)."""
    by_kind: bool = False
    """Also report the figures per ``LabelledQuery.kind``."""


@dataclass(frozen=True)
class Quality:
    mode: str
    queries: int
    recall: dict[int, float]
    """Mean share of each query's relevant memories in its top k."""
    mrr: float
    """Mean reciprocal rank of the first relevant memory (0 when none in the top 10)."""
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    kinds: dict[str, Quality] = field(default_factory=dict)
    """The same figures over each kind of query alone."""
    empty: float = 0.0
    """The share of queries answered with no hits."""


Ranker = Callable[[LabelledQuery], list[str]]


def measure(queries: Sequence[LabelledQuery], mode: str, rank: Ranker) -> Quality:
    """recall@k, MRR@10 and latency of ``rank`` over ``queries``, and per kind of query."""
    answers = []
    took: list[float] = []
    for query in queries:
        started = time.perf_counter()
        answers.append(rank(query)[:DEPTH])
        took.append((time.perf_counter() - started) * 1000.0)
    whole = summarise(queries, answers, took, mode)
    kinds = {}
    for kind in dict.fromkeys(q.kind for q in queries):
        picked = [i for i, q in enumerate(queries) if q.kind == kind]
        kinds[kind] = summarise(
            [queries[i] for i in picked],
            [answers[i] for i in picked],
            [took[i] for i in picked],
            mode,
        )
    return dataclasses.replace(whole, kinds=kinds)


def summarise(
    queries: Sequence[LabelledQuery], answers: Sequence[list[str]], took: Sequence[float], mode: str
) -> Quality:
    """The figures of ``answers``, each the top ``DEPTH`` of one of ``queries``."""
    recall = dict.fromkeys(CUTOFFS, 0.0)
    mrr = 0.0
    for query, ranked in zip(queries, answers, strict=True):
        for k in CUTOFFS:
            recall[k] += len(query.relevant.intersection(ranked[:k])) / len(query.relevant)
        first = next((i for i, m in enumerate(ranked, start=1) if m in query.relevant), None)
        mrr += 1.0 / first if first else 0.0
    n = len(queries)
    return Quality(
        mode=mode,
        queries=n,
        recall={k: v / n for k, v in recall.items()},
        mrr=mrr / n,
        p50_ms=statistics.median(took),
        p95_ms=float(np.percentile(took, 95)),
        empty=sum(not ranked for ranked in answers) / n,
    )


def answered_empty(queries: Sequence[LabelledQuery], rank: Ranker) -> float:
    """The share of ``queries`` (each with nothing relevant) ``rank`` answers with no hits."""
    return sum(not rank(q) for q in queries) / max(len(queries), 1)


def evaluate(
    gm: GraphMem,
    queries: Sequence[LabelledQuery],
    mode: str,
    negatives: Sequence[LabelledQuery] = (),
) -> Quality:
    """One graphmem mode (a search mode, ``knowledgeContext``, or HYBRID with
    nothing left out by ``minRelevance``) over ``queries``; with ``negatives``,
    the share of them it answers with no hits as ``kinds["none"].empty``."""
    with mode_ranker(gm, mode) as rank:
        quality = measure(queries, mode, rank)
        if negatives:
            quality = with_negatives(quality, negatives, rank)
    return quality


def with_negatives(quality: Quality, negatives: Sequence[LabelledQuery], rank: Ranker) -> Quality:
    """``quality`` with a ``none`` kind: the share of ``negatives`` answered empty."""
    none = Quality(quality.mode, len(negatives), {}, 0.0, empty=answered_empty(negatives, rank))
    return dataclasses.replace(quality, kinds={**quality.kinds, "none": none})


@contextmanager
def mode_ranker(gm: GraphMem, mode: str) -> Iterator[Ranker]:
    """The ranker of one graphmem mode, with the configuration it needs while it runs."""
    if mode == UNFILTERED:

        def rank(q: LabelledQuery) -> list[str]:
            found = gm.search(q.text, limit=DEPTH, min_relevance=0.0, project_id=q.project)
            return [hit.memory.id for hit in found.hits]
    elif mode == SEED_CONTEXT:  # as seed 002 had it: word overlap, nothing left out
        kept = gm.retrieval.config
        gm.retrieval.config = dataclasses.replace(kept, context_text_scorer=WORD_OVERLAP)

        def rank(q: LabelledQuery) -> list[str]:
            found = gm.knowledge_context(
                q.text,
                max_results=DEPTH,
                min_relevance=0.0,
                record_access=False,
                project_id=q.project,
            )
            return [item.memory.id for item in found.items]

        try:
            yield rank
        finally:
            gm.retrieval.config = kept
        return
    elif mode == CONTEXT:

        def rank(q: LabelledQuery) -> list[str]:
            found = gm.knowledge_context(
                q.text, max_results=DEPTH, record_access=False, project_id=q.project
            )
            return [item.memory.id for item in found.items]
    else:

        def rank(q: LabelledQuery) -> list[str]:
            found = gm.search(q.text, mode=mode, limit=DEPTH, project_id=q.project)
            return [hit.memory.id for hit in found.hits]

    yield rank


_REFERENCE_STOP_LIST = """
    a an and are as at be but by for if in into is it no not of on or such that the
    their then there these they this to was will with i me my we our you your he him his
    she her its them what which who whom when where why how do does did have has had am
    been being were would could should can so than too very just
    """
REFERENCE_STOP_WORDS = frozenset(_REFERENCE_STOP_LIST.split())
"""The reference's own stop words (Lucene's English list and the pronouns, auxiliaries
and question words every toolkit drops): none of graphmem's analysis."""


def reference_words(text: str) -> list[str]:
    """The reference's own analysis: lower-cased word tokens, its stop words out, no stems."""
    return [w for w in re.findall(r"\w+", text.lower()) if w not in REFERENCE_STOP_WORDS]


def reference_bm25(dev: DevSet) -> Ranker:
    """Okapi BM25 (rank_bm25, k1 1.2, b 0.75) per project, over an analysis of its own
    (``reference_words``), so a change to graphmem's analysis cannot move it too."""
    from rank_bm25 import BM25Okapi

    indexes = {}
    for project, texts in dev.corpus.items():
        ids = list(texts)
        documents = [reference_words(texts[i]) or ["\0"] for i in ids]
        indexes[project] = (ids, BM25Okapi(documents, k1=1.2, b=0.75))

    def rank(q: LabelledQuery) -> list[str]:
        ids, index = indexes[q.project]
        scores = index.get_scores(reference_words(q.text))
        order = np.argsort(-scores, kind="stable")
        return [ids[i] for i in order[:DEPTH] if scores[i] > 0]

    return rank


def reference_dense(dev: DevSet, embedder: ModelEmbedder) -> Ranker:
    """Exact cosine similarity of the query's and every memory's embedding, per project."""
    matrices = {}
    for project, texts in dev.corpus.items():
        ids = list(texts)
        vectors = np.asarray(embedder.embed([texts[i] for i in ids]), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        matrices[project] = (ids, vectors)

    def rank(q: LabelledQuery) -> list[str]:
        ids, vectors = matrices[q.project]
        query = np.asarray(embedder.embed([q.text])[0], dtype=np.float32)
        scores = vectors @ (query / np.linalg.norm(query))
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:DEPTH]]

    return rank


def _texts(gm: GraphMem, ids: Sequence[str], project: str | None) -> dict[str, str]:
    return {
        m.id: memory_text(m.content, m.rationale)
        for m in gm.get_many(list(dict.fromkeys(ids)), project_id=project)
    }


WRITES = ("import", "many", "single")
"""How a dev set's memories are written: ``import``, one ``remember_many`` with
dedup off (each item a memory of its own, as an import writes them); ``many``,
one ``remember_many`` as a caller of rememberMany gets it (dedup and the
write judgments on); ``single``, one ``remember`` per item, in order, as an
agent writing turn by turn does."""


def write(
    gm: GraphMem, items: Sequence[dict[str, Any]], project: str | None, how: str
) -> list[str]:
    """Each item's memory id (the memory it was merged into, for a duplicate)."""
    if how == "import":
        return gm.remember_many(list(items), dedup=False, project_id=project)
    if how == "many":
        return gm.remember_many(list(items), project_id=project)
    if how == "single":
        return [gm.remember(item, project_id=project).id for item in items]
    raise ValueError(f"write: one of {', '.join(WRITES)}, not {how!r}")


def load_own_set(
    gm: GraphMem,
    path: Path = OWN_SET,
    auto_links: Sequence[str] = (),
    *,
    project: str | None = None,
    how: str = "import",
) -> DevSet:
    """Write the set's memories, relations and supersessions; return its queries."""
    gm.set_project_settings(auto_links=list(auto_links), project_id=project)
    data = json.loads(path.read_text())
    ids = write_graph(gm, data, project, how, source="manual")
    queries = [
        LabelledQuery(
            text=q["query"],
            relevant=frozenset(ids[k] for k in q["relevant"]),
            kind=q["kind"],
            project=project,
        )
        for q in data["queries"]
    ]
    return DevSet("own", queries, {project: _texts(gm, list(ids.values()), project)})


def write_graph(
    gm: GraphMem, data: dict[str, Any], project: str | None, how: str, *, source: str
) -> dict[str, str]:
    """Write ``data``'s memories (each a memory's fields and a ``key``), then its
    relations and supersessions between keys, to ``project``; each key's memory id.
    A relation or supersession whose ends were merged into one memory is skipped."""
    items = [
        {k: v for k, v in m.items() if k != "key"} | {"source": source} for m in data["memories"]
    ]
    ids = dict(
        zip(
            (m["key"] for m in data["memories"]),
            write(gm, items, project, how),
            strict=True,
        )
    )
    for rel in data["relations"]:
        if ids[rel["from"]] != ids[rel["to"]]:
            gm.relate(
                ids[rel["from"]],
                ids[rel["to"]],
                rel["type"],
                rationale=rel.get("rationale"),
                project_id=project,
            )
    for pair in data["supersedes"]:
        if ids[pair["old"]] != ids[pair["new"]]:
            gm.supersede(
                ids[pair["old"]],
                ids[pair["new"]],
                rationale=pair.get("rationale"),
                project_id=project,
            )
    return ids


def load_madial(
    gm: GraphMem,
    root: Path = MADIAL_DIR,
    auto_links: Sequence[str] = (),
    *,
    project: str | None = None,
    how: str = "import",
) -> DevSet:
    """The 160 memories (the event text), and one query per dialogue: its turns
    before the test turn, the most recent ``MAX_QUERY_CHARS`` of them."""
    gm.set_project_settings(auto_links=list(auto_links), project_id=project)
    memories: dict[str, dict[str, str]] = {}
    with open(root / "MADial-Bench-en-memory.jsonl") as lines:
        for line in lines:
            memories.update(json.loads(line))
    keys = sorted(memories, key=int)
    items = [
        {
            "content": memories[k]["event"],
            "tags": [memories[k]["scene"], memories[k]["emotion"]],
            "source": "import",
        }
        for k in keys
    ]
    ids = dict(zip(keys, write(gm, items, project, how), strict=True))
    queries = []
    with open(root / "MADial-Bench-en-dialogue.jsonl") as lines:
        for line in lines:
            dialogue = json.loads(line)
            turn = dialogue["test-turn"][0]
            turns = [t.strip() for t in dialogue["dialogue"][1:turn] if t.strip()]
            text = " ".join(turns)[-MAX_QUERY_CHARS:]
            relevant = frozenset(ids[str(k)] for k in dialogue["relevant-id"] if str(k) in ids)
            if relevant:
                queries.append(LabelledQuery(text=text, relevant=relevant, project=project))
    return DevSet("madial", queries, {project: _texts(gm, list(ids.values()), project)})


def load_conversations(
    gm: GraphMem,
    path: Path = CONVERSATIONS,
    auto_links: Sequence[str] = (),
    *,
    project: str | None = None,
    how: str = "import",
    name: str = "conversations",
    held_out: int = 0,
) -> DevSet:
    """Every turn as one memory (``speaker: text``), one project per conversation
    (named ``project:id`` with a ``project``, else the conversation's id), an
    ``event`` that occurred at its session's date (a minute per turn). The
    questions of the last ``held_out`` conversations come back apart, as the
    set ``<name>-heldout``."""
    data = json.loads(path.read_text())
    ids: dict[str, str] = {}
    corpus: dict[str | None, dict[str, str]] = {}
    projects = {}
    for conversation in data["conversations"]:
        project_id = f"{project}:{conversation['id']}" if project else conversation["id"]
        projects[conversation["id"]] = project_id
        gm.set_project_settings(auto_links=list(auto_links), project_id=project_id)
        turns = []
        items = []
        for session in conversation["sessions"]:
            start = datetime.fromisoformat(session["date"]).timestamp()
            for index, turn in enumerate(session["turns"]):
                turns.append(turn)
                items.append(
                    {
                        "content": f"{turn['speaker']}: {turn['text']}",
                        "memory_type": "event",
                        "session_id": session["id"],
                        "occurred_at": start + 60.0 * index,
                        "source": "import",
                    }
                )
        written = write(gm, items, project_id, how)
        ids.update(zip((t["id"] for t in turns), written, strict=True))
        corpus[project_id] = _texts(gm, written, project_id)
    queries = [
        LabelledQuery(
            text=q["question"],
            relevant=frozenset(ids[e] for e in q["evidence"]),
            kind=q.get("kind", ""),
            project=projects[q["conversation"]],
        )
        for q in data["questions"]
    ]
    apart = {
        projects[c["id"]] for c in data["conversations"][len(data["conversations"]) - held_out :]
    }
    if not held_out:
        return DevSet(name, queries, corpus)
    kept = DevSet(
        f"{name}-heldout",
        [q for q in queries if q.project in apart],
        {p: texts for p, texts in corpus.items() if p in apart},
    )
    return DevSet(
        name,
        [q for q in queries if q.project not in apart],
        {p: texts for p, texts in corpus.items() if p not in apart},
        held_out=kept,
    )


def load_chats(
    gm: GraphMem, path: Path = CHATS, auto_links: Sequence[str] = (), **how: Any
) -> DevSet:
    """The long multi-party chats (``benchmarks/eval/chats.json``, made by
    ``benchmarks.make_chats``), written as ``load_conversations`` writes its set;
    the questions of the last ``CHATS_HELD_OUT`` chats come back apart, as the
    set ``chats-heldout``, which no setting is chosen on."""
    return load_conversations(gm, path, auto_links, name="chats", held_out=CHATS_HELD_OUT, **how)


CHATS_HELD_OUT = 3
"""Chats (of 12) whose questions are reported apart (``load_chats``)."""


DATED = (
    "In {month} {year}, {q}",
    "Around {month} {day}, {year}: {q}",
    "{q} This was on {day} {month} {year}.",
)
"""How ``load_chats_dated`` names the evidence's session date beside a chats question."""


def load_chats_dated(gm: GraphMem, path: Path = CHATS, **how: Any) -> DevSet:
    """The chats set's questions whose evidence lies in one session, each asked
    again naming that session's month or day (``DATED``, in turn), so the time a
    question names can be measured on conversations; the questions asking when
    something happened are left out (the date would answer them)."""
    chats = load_chats(gm, path, **how)
    apart = chats.held_out
    asked = chats.queries + (apart.queries if apart else [])
    corpus = {**chats.corpus, **(apart.corpus if apart else {})}
    queries = []
    for index, q in enumerate(q for q in asked if q.kind != "temporal"):
        days = {
            datetime.fromtimestamp(m.occurred, UTC).date()
            for m in gm.get_many(sorted(q.relevant), project_id=q.project)
            if m is not None
        }
        if len(days) != 1:
            continue
        (day,) = days
        text = DATED[index % len(DATED)].format(
            month=day.strftime("%B"), day=day.day, year=day.year, q=q.text
        )
        queries.append(dataclasses.replace(q, text=text))
    return DevSet("chats-dated", queries, corpus, by_kind=True)


def load_agent_memory(
    gm: GraphMem,
    path: Path = AGENT_MEMORY,
    auto_links: Sequence[str] = (),
    *,
    project: str | None = None,
    how: str = "import",
) -> DevSet:
    """The coding-agent set (``benchmarks/eval/agent_memory.json``, made by
    ``benchmarks.make_agent_memory``): each of its projects a project (named
    ``project:id`` with a ``project``, else its id), written as ``load_own_set``
    writes its memories, relations and supersessions, each memory at its
    ``occurred_at``. The questions no memory answers are the ``negatives``; the
    held-out project's questions come back apart, as the set ``agent-heldout``."""
    data = json.loads(path.read_text())
    parts: dict[bool, DevSet] = {
        held: DevSet("agent-heldout" if held else "agent", [], {}, by_kind=True)
        for held in (False, True)
    }
    for part in data["projects"]:
        project_id = f"{project}:{part['id']}" if project else part["id"]
        gm.set_project_settings(auto_links=list(auto_links), project_id=project_id)
        ids = write_graph(gm, part, project_id, how, source="agent")
        dev = parts[part["held_out"]]
        dev.corpus[project_id] = _texts(gm, list(ids.values()), project_id)
        for q in part["questions"]:
            labelled = LabelledQuery(
                text=q["query"],
                relevant=frozenset(ids[k] for k in q["relevant"]),
                kind=q["kind"],
                project=project_id,
            )
            (dev.queries if labelled.relevant else dev.negatives).append(labelled)
    return dataclasses.replace(parts[False], held_out=parts[True])


NEGATIVES_PER_PROJECT = 12
"""Questions of a set's other projects asked of each of its projects as negatives."""
OFF_TOPIC_NEGATIVES = 100
"""Other sets' questions asked of a set of one project as negatives."""


def negatives_added(dev: DevSet) -> DevSet:
    """``dev`` (and its held-out part) with questions nothing in it answers: its
    own when it writes them (the agent set), else questions of its other
    projects asked of each project (sets of several conversations: each names
    other people and other events), else questions of the other dev sets (a
    set of one project). Drawn the same way in every run."""
    if dev.negatives:
        negatives = dev.negatives
    elif len(projects := sorted({q.project or "" for q in dev.queries})) > 1:
        draw = random.Random(f"{dev.name}:negatives")
        negatives = []
        for project in projects:
            pool = [q for q in dev.queries if (q.project or "") != project]
            negatives += [
                dataclasses.replace(q, relevant=frozenset(), kind="none", project=project or None)
                for q in draw.sample(pool, min(NEGATIVES_PER_PROJECT, len(pool)))
            ]
    else:
        texts = off_topic_questions(exclude=dev.name)
        texts = random.Random(f"{dev.name}:negatives").sample(texts, OFF_TOPIC_NEGATIVES)
        project = dev.queries[0].project if dev.queries else None
        negatives = [LabelledQuery(t, frozenset(), "none", project) for t in texts]
    held_out = negatives_added(dev.held_out) if dev.held_out is not None else None
    return dataclasses.replace(dev, negatives=negatives, held_out=held_out)


def off_topic_questions(exclude: str) -> list[str]:
    """The questions of the conversation, chat and agent sets (not ``exclude``'s)."""
    texts = [
        q["question"]
        for name, path in (("conversations", CONVERSATIONS), ("chats", CHATS))
        if name != exclude
        for q in json.loads(path.read_text())["questions"]
    ]
    if exclude != "agent":
        data = json.loads(AGENT_MEMORY.read_text())
        texts += [q["query"] for part in data["projects"] for q in part["questions"]]
    return texts


LOADERS: dict[str, Callable[..., DevSet]] = {
    "own": load_own_set,
    "madial": load_madial,
    "conversations": load_conversations,
    "chats": load_chats,
    "chats-dated": load_chats_dated,
    "agent": load_agent_memory,
}


class Server:
    """A throwaway embedded FalkorDB under /tmp, removed afterwards."""

    name = "falkordb"
    keeps = True
    """Each store asked for is a graph of its own: earlier ones stay as they were."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(dir="/tmp", prefix="gmeval-"))
        self.server = EmbeddedFalkorDB(self.dir)
        self.server.start()
        self.db = FalkorDB(
            unix_socket_path=str(self.server.socket_path),
            socket_timeout=600.0,
            client_name=self.server.client_name,
        )

    def graphmem(self, name: str, embedder: ModelEmbedder | None) -> GraphMem:
        store = FalkorStore(self.db, name)
        store.setup_schema()
        return GraphMem(store, embedder=embedder)

    def close(self) -> None:
        try:
            self.db.close()
        finally:
            self.server.stop()
            shutil.rmtree(self.dir, ignore_errors=True)


class Neo4jServer:
    """Neo4j (``benchmarks.neo4j_server.Neo4jTarget``: started here, or the server at a URI).

    It has one user database: each store asked for empties it first, so the
    store asked for before is gone."""

    name = "neo4j"
    keeps = False

    def __init__(self, target: Any) -> None:
        self.target = target

    def graphmem(self, name: str, embedder: ModelEmbedder | None) -> GraphMem:
        store, _ = self.target.fresh()
        return GraphMem(store, embedder=embedder)

    def close(self) -> None:
        self.target.close()


@dataclass(frozen=True)
class Reranking:
    """``--rerank N``: HYBRID's top ``depth`` reordered by a cross-encoder, as a mode."""

    encoder: CrossEncoder
    depth: int

    @property
    def mode(self) -> str:
        return f"HYBRID+rerank{self.depth}"

    def ranker(self, gm: GraphMem) -> Ranker:
        """HYBRID's hits, their first ``depth`` in the cross-encoder's order."""

        def rank(q: LabelledQuery) -> list[str]:
            found = gm.search(q.text, limit=max(DEPTH, self.depth), project_id=q.project)
            texts = {
                h.memory.id: memory_text(h.memory.content, h.memory.rationale) for h in found.hits
            }
            return reranked(list(texts), q.text, texts.__getitem__, self.encoder, self.depth)

        return rank


def run_set(
    gm: GraphMem, dev: DevSet, embedder: ModelEmbedder, rerank: Reranking | None = None
) -> list[dict[str, Any]]:
    """Every mode and both references on one dev set, as rows of figures; with
    ``dev.by_kind``, also a row per kind of query and mode (``kind`` set), and
    one for the ``negatives`` (``kind`` none: the share answered empty); then
    the rows of its held-out part, as a set of its own. With ``rerank``, also
    HYBRID reranked by a cross-encoder."""
    name = dev.name
    modes = (*MODES, UNFILTERED, CONTEXT, SEED_CONTEXT)
    qualities = [evaluate(gm, dev.queries, mode, dev.negatives) for mode in modes]
    if rerank is not None:
        qualities.append(measure(dev.queries, rerank.mode, rerank.ranker(gm)))
    for reference, rank in zip(
        REFERENCES, (reference_bm25(dev), reference_dense(dev, embedder)), strict=True
    ):
        quality = measure(dev.queries, reference, rank)
        qualities.append(with_negatives(quality, dev.negatives, rank) if dev.negatives else quality)
    rows = [{"set": name, **figures(q)} for q in qualities]
    rows += [
        {"set": name, "kind": kind, **figures(per_kind), "empty": per_kind.empty}
        for q in qualities
        for kind, per_kind in q.kinds.items()
        if dev.by_kind or kind == "none"
    ]
    if dev.held_out is not None:
        rows += run_set(gm, dev.held_out, embedder, rerank)
    return rows


def figures(q: Quality) -> dict[str, Any]:
    """One row's figures (no recall for the ``none`` kind, only the share answered empty)."""
    if not q.recall:
        return {"mode": q.mode, "queries": q.queries, "empty": q.empty}
    return {
        "mode": q.mode,
        "queries": q.queries,
        "recall@5": q.recall[5],
        "recall@10": q.recall[10],
        "mrr@10": q.mrr,
        "p50_ms": q.p50_ms,
        "p95_ms": q.p95_ms,
        "empty": q.empty,
    }


LINK_VARIANTS = {
    "previous_turn": ("previous_turn",),
    "same_entity": ("same_entity",),
    "both": ("previous_turn", "same_entity"),
}
"""Ingest-time links (``ProjectSettings.auto_links``) measured with ``--links``."""
LINKED_MODES = ("HYBRID", "GRAPH", CONTEXT)
"""The modes links can change: those that walk relations, and knowledgeContext."""


def run_linked(gm: GraphMem, dev: DevSet, variant: str) -> list[dict[str, Any]]:
    """The linked modes on a copy of the set written with ``variant``'s links on."""
    rows = []
    for mode in LINKED_MODES:
        q = evaluate(gm, dev.queries, mode)
        rows.append(
            {
                "set": dev.name,
                "mode": f"{mode} +{variant}",
                "queries": q.queries,
                "recall@5": q.recall[5],
                "recall@10": q.recall[10],
                "mrr@10": q.mrr,
                "p50_ms": q.p50_ms,
                "p95_ms": q.p95_ms,
            }
        )
    return rows


VECTOR_WEIGHTS = (0.6, 0.7, 0.8, 0.9)
LEXICAL_HALVES = (0.05, 0.1, 0.2)
PEAK_GAINS = (0.25, 0.5, 1.0)
"""Per-query weightings tried at the default weight and half (``ScoreFusion.peak_gain``)."""


def fusion_grid(gm: GraphMem, dev: DevSet) -> list[dict[str, Any]]:
    """HYBRID recall and MRR for each ``ScoreFusion`` setting, nothing cut by minRelevance."""
    kept = gm.retrieval.config
    rows = []
    try:
        settings = [(w, h, 0.0) for w in VECTOR_WEIGHTS for h in LEXICAL_HALVES]
        settings += [(ScoreFusion.vector_weight, ScoreFusion.lexical_half, g) for g in PEAK_GAINS]
        for weight, half, gain in settings:
            fusion = ScoreFusion(vector_weight=weight, lexical_half=half, peak_gain=gain)
            gm.retrieval.config = dataclasses.replace(kept, fusion=fusion)
            q = evaluate(gm, dev.queries, UNFILTERED)
            rows.append(
                {
                    "set": dev.name,
                    "vector_weight": weight,
                    "lexical_half": half,
                    "peak_gain": gain,
                    "recall@10": q.recall[10],
                    "mrr@10": q.mrr,
                }
            )
    finally:
        gm.retrieval.config = kept
    return rows


FEEDBACK_SETTINGS = (
    LexicalFeedback(docs=0),
    LexicalFeedback(),
    LexicalFeedback(factor=1.0),
    LexicalFeedback(factor=0.7),
    LexicalFeedback(original_weight=0.7),
    LexicalFeedback(docs=5),
    LexicalFeedback(docs=10),
    LexicalFeedback(max_query_terms=MAX_QUERY_CHARS),
)
"""Feedback settings measured with ``--feedback``: off, the default, each of its
parameters moved alone, and the default with every query expanded, however long."""
FEEDBACK_MODES = ("HYBRID", UNFILTERED, CONTEXT)


def feedback_grid(gm: GraphMem, dev: DevSet) -> list[dict[str, Any]]:
    """HYBRID (at the default minRelevance and at 0) and knowledgeContext for each
    feedback setting (``LexicalFeedback``; docs 0 is feedback off)."""
    return _settings_grid(
        gm,
        dev,
        {
            repr(setting): (
                {"feedback": setting},
                {
                    "docs": setting.docs,
                    "original_weight": setting.original_weight,
                    "factor": setting.factor,
                    "max_query_terms": setting.max_query_terms,
                },
            )
            for setting in FEEDBACK_SETTINGS
        },
    )


def _settings_grid(
    gm: GraphMem, dev: DevSet, settings: dict[str, tuple[dict[str, Any], dict[str, Any]]]
) -> list[dict[str, Any]]:
    """HYBRID (at the default minRelevance and at 0) and knowledgeContext with each
    ``RetrievalConfig`` change of ``settings`` (name -> change, what the rows say of it)."""
    kept = gm.retrieval.config
    rows = []
    try:
        for change, described in settings.values():
            gm.retrieval.config = dataclasses.replace(kept, **change)
            for mode in FEEDBACK_MODES:
                q = evaluate(gm, dev.queries, mode)
                rows.append(
                    {
                        "set": dev.name,
                        "mode": mode,
                        **described,
                        "recall@10": q.recall[10],
                        "mrr@10": q.mrr,
                        "empty": q.empty,
                        "p50_ms": q.p50_ms,
                        "p95_ms": q.p95_ms,
                    }
                )
    finally:
        gm.retrieval.config = kept
    return rows


QUERY_PART_SETTINGS: dict[str, dict[str, Any]] = {
    "default": {},
    "last sentences off": {"recent": RecentPart(sentences=0)},
    "last 2 sentences": {"recent": RecentPart(sentences=2)},
    "last 4 sentences": {"recent": RecentPart(sentences=4)},
    "weight 0.15": {"recent": RecentPart(weight=0.15)},
    "weight 0.25": {"recent": RecentPart(weight=0.25)},
    "exchanges off": {"exchanges": False},
    "both off": {"recent": RecentPart(sentences=0), "exchanges": False},
    "time off": {"time": TimeChannel(weight=0.0)},
    "time weight 0.3": {"time": TimeChannel(weight=0.3)},
    "time weight 0.7": {"time": TimeChannel(weight=0.7)},
    "time near 0.3": {"time": TimeChannel(min_near=0.3)},
    "time near 0.8": {"time": TimeChannel(min_near=0.8)},
    "substance off": {"fusion": ScoreFusion(short_power=0.0)},
    "substance power 0.3": {"fusion": ScoreFusion(short_power=0.3)},
    "substance power 1": {"fusion": ScoreFusion(short_power=1.0)},
    "substance full at 4": {"fusion": ScoreFusion(full_stems=4)},
    "substance full at 8": {"fusion": ScoreFusion(full_stems=8)},
}
"""``RetrievalConfig`` changes measured with ``--query-parts``: the default, a long
query's last sentences off and moved alone, question and answer exchanges off,
the time a query names off and its weight and threshold moved alone, and a short
memory's substance (``ScoreFusion.substance``) off and moved alone."""


def query_parts_grid(gm: GraphMem, dev: DevSet) -> list[dict[str, Any]]:
    """HYBRID (at the default minRelevance and at 0) and knowledgeContext for each
    setting of ``QUERY_PART_SETTINGS``."""
    return _settings_grid(
        gm,
        dev,
        {name: (change, {"setting": name}) for name, change in QUERY_PART_SETTINGS.items()},
    )


def query_parts_table(rows: Sequence[dict[str, Any]]) -> Any:
    return _settings_table(
        "query parts (last sentences, exchanges, time)", [("setting", "setting", str, "left")], rows
    )


def feedback_table(rows: Sequence[dict[str, Any]]) -> Any:
    return _settings_table(
        "feedback grid (RM3)",
        [
            ("docs", "docs", str, "right"),
            ("query weight", "original_weight", "{:.1f}".format, "right"),
            ("factor", "factor", "{:.1f}".format, "right"),
            ("max query words", "max_query_terms", str, "right"),
        ],
        rows,
    )


def _settings_table(
    title: str,
    described: Sequence[tuple[str, str, Callable[[Any], str], str]],
    rows: Sequence[dict[str, Any]],
) -> Any:
    """One row per set, mode and setting of ``_settings_grid``: the setting's
    ``described`` columns (header, row key, format, justification), then the figures."""
    from rich.table import Table

    out = Table(title=title)
    for column in ("backend", "set", "mode"):
        out.add_column(column, justify="left")
    for header, _, _, justify in described:
        out.add_column(header, justify=justify)
    for column in ("recall@10", "MRR@10", "empty", "p50 ms", "p95 ms"):
        out.add_column(column, justify="right")
    for row in rows:
        out.add_row(
            row["backend"],
            row["set"],
            row["mode"],
            *(show(row[key]) for _, key, show, _ in described),
            f"{row['recall@10']:.3f}",
            f"{row['mrr@10']:.3f}",
            f"{row['empty']:.3f}",
            f"{row['p50_ms']:.1f}",
            f"{row['p95_ms']:.1f}",
        )
    return out


def grid_table(rows: Sequence[dict[str, Any]]) -> Any:
    from rich.table import Table

    out = Table(title="fusion grid (HYBRID, minRelevance 0)")
    for column in (
        *("backend", "set", "vector weight", "lexical half", "peak gain"),
        *("recall@10", "MRR@10"),
    ):
        out.add_column(column, justify="left" if column in ("backend", "set") else "right")
    for row in rows:
        out.add_row(
            row["backend"],
            row["set"],
            f"{row['vector_weight']:.2f}",
            f"{row['lexical_half']:.2f}",
            f"{row['peak_gain']:.2f}",
            f"{row['recall@10']:.3f}",
            f"{row['mrr@10']:.3f}",
        )
    return out


THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
"""minRelevance values the calibration reports."""
OFF_TOPIC_QUERIES = 100
"""Queries of the other dev sets asked of each set's store (spread over them all)."""


def _relevances(gm: GraphMem, text: str, project: str | None) -> dict[str, float]:
    """Each HYBRID hit's relevance (the fused value minRelevance compares), nothing left out."""
    found = gm.search(text, limit=DEPTH, min_relevance=0.0, project_id=project)
    return {
        hit.memory.id: next(c.value for c in hit.explanation.components if c.name == "relevance")
        for hit in found.hits
    }


def calibration(gm: GraphMem, dev: DevSet, off_topic: Sequence[str]) -> list[dict[str, Any]]:
    """Per threshold: the share of right memories in a HYBRID top 10 it keeps, the
    share of queries whose best right memory it keeps, and the share of another
    set's queries (asked of this set's store) it answers with nothing."""
    gold: list[float] = []
    best: list[float] = []
    for q in dev.queries:
        found = _relevances(gm, q.text, q.project)
        right = [r for memory_id, r in found.items() if memory_id in q.relevant]
        gold += right
        if right:
            best.append(max(right))
    project = dev.queries[0].project
    step = max(1, len(off_topic) // OFF_TOPIC_QUERIES)
    stray = off_topic[::step][:OFF_TOPIC_QUERIES]
    # Asked at each threshold: feedback only runs from hits that reach it, so
    # whether anything is answered depends on the threshold asked with.
    empty = {
        t: sum(
            not gm.search(text, limit=DEPTH, min_relevance=t, project_id=project).hits
            for text in stray
        )
        for t in THRESHOLDS
    }
    return [
        {
            "set": dev.name,
            "min_relevance": t,
            "right_kept": sum(r >= t for r in gold) / max(len(gold), 1),
            "best_kept": sum(r >= t for r in best) / max(len(best), 1),
            "off_topic_empty": empty[t] / max(len(stray), 1),
            "right": len(gold),
            "off_topic": len(stray),
        }
        for t in THRESHOLDS
    ]


def calibration_table(rows: Sequence[dict[str, Any]]) -> Any:
    from rich.table import Table

    out = Table(title="minRelevance calibration (HYBRID, top 10)")
    columns = ("backend", "set", "minRelevance", "right kept", "best right kept", "off-topic empty")
    for column in columns:
        out.add_column(column, justify="left" if column in ("backend", "set") else "right")
    for row in rows:
        out.add_row(
            row["backend"],
            row["set"],
            f"{row['min_relevance']:.2f}",
            f"{row['right_kept']:.3f} of {row['right']}",
            f"{row['best_kept']:.3f}",
            f"{row['off_topic_empty']:.3f} of {row['off_topic']}",
        )
    return out


FUSION_GAIN = 0.03
"""How far above the best single retriever (references included) HYBRID's
recall@10 must be on every set."""
CONTEXT_GAP = 0.02
"""How far knowledgeContext's recall@10 may fall below HYBRID's."""
GRAPHMEM_MODES = ("FULLTEXT", "VECTOR", "HYBRID", "GRAPH", CONTEXT)


def verdicts(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The targets per backend, store, write path and set, each line saying met
    or missed with the figures; then every graphmem mode below a reference."""
    lines = []
    below = []
    keys = dict.fromkeys((r["backend"], r["store"], r["write"], r["set"]) for r in rows)
    for key in keys:
        r10 = {
            row["mode"]: row["recall@10"]
            for row in rows
            if (row["backend"], row["store"], row["write"], row["set"]) == key
        }
        where = " ".join(key)
        # The single retrievers: graphmem's two and both references.
        single = max(r10["FULLTEXT"], r10["VECTOR"], *(r10[ref] for ref in REFERENCES))
        checks = [
            (
                f"HYBRID >= best single retriever + {FUSION_GAIN}",
                r10["HYBRID"],
                single + FUSION_GAIN,
            ),
            ("FULLTEXT >= ref BM25 - 0.02", r10["FULLTEXT"], r10["ref BM25"] - 0.02),
            (
                f"knowledgeContext >= HYBRID - {CONTEXT_GAP}",
                r10[CONTEXT],
                r10["HYBRID"] - CONTEXT_GAP,
            ),
        ]
        for label, value, bound in checks:
            verdict = "met" if value >= bound - 1e-9 else "MISSED"
            lines.append(f"{where}: {label} (recall@10 {value:.3f} vs {bound:.3f}): {verdict}")
        for mode in GRAPHMEM_MODES:
            for ref in REFERENCES:
                if r10[mode] < r10[ref] - 1e-9:
                    below.append(
                        f"{where}: {mode} below {ref} (recall@10 {r10[mode]:.3f} vs {r10[ref]:.3f})"
                    )
    return lines + below


def agreement(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each graphmem mode's recall@10 and MRR@10 on FalkorDB beside Neo4j, per set,
    and whether they agree within ``AGREEMENT`` (the references, computed in
    Python, are the same on both by construction and are left out)."""
    by_key = {
        (row["backend"], row["store"], row["write"], row["set"], row["mode"]): row for row in rows
    }
    out = []
    for backend, store, how, name, mode in by_key:
        if backend != BACKENDS[0] or mode in REFERENCES:
            continue
        other = by_key.get((BACKENDS[1], store, how, name, mode))
        if other is None:
            continue
        mine = by_key[(backend, store, how, name, mode)]
        gap = max(
            abs(mine["recall@10"] - other["recall@10"]), abs(mine["mrr@10"] - other["mrr@10"])
        )
        out.append(
            {
                "set": f"{name} ({store}, {how})",
                "mode": mode,
                "falkordb_recall@10": mine["recall@10"],
                "neo4j_recall@10": other["recall@10"],
                "falkordb_mrr@10": mine["mrr@10"],
                "neo4j_mrr@10": other["mrr@10"],
                "gap": gap,
                "agree": gap <= AGREEMENT + 1e-9,
            }
        )
    return out


def agreement_table(rows: Sequence[dict[str, Any]]) -> Any:
    from rich.table import Table

    out = Table(title=f"FalkorDB against Neo4j (agree: within {AGREEMENT})")
    columns = (
        "set",
        "mode",
        "recall@10 falkordb",
        "recall@10 neo4j",
        "MRR@10 falkordb",
        "MRR@10 neo4j",
        "largest gap",
        "agree",
    )
    for column in columns:
        out.add_column(column, justify="left" if column in ("set", "mode") else "right")
    for row in rows:
        out.add_row(
            row["set"],
            row["mode"],
            f"{row['falkordb_recall@10']:.3f}",
            f"{row['neo4j_recall@10']:.3f}",
            f"{row['falkordb_mrr@10']:.3f}",
            f"{row['neo4j_mrr@10']:.3f}",
            f"{row['gap']:.3f}",
            "yes" if row["agree"] else "[red]NO[/]",
        )
    return out


def quality_table(rows: Sequence[dict[str, Any]]) -> Any:
    from rich.table import Table

    out = Table(title="retrieval quality (dev sets)")
    columns = (
        "backend",
        "store",
        "write",
        "set",
        "mode",
        "queries",
        "recall@5",
        "recall@10",
        "MRR@10",
        "answered empty",
        "p50 ms",
        "p95 ms",
    )
    for column in columns:
        out.add_column(
            column,
            justify="left" if column in ("backend", "store", "write", "set", "mode") else "right",
        )
    for row in rows:
        out.add_row(
            row["backend"],
            row["store"],
            row["write"],
            row["set"],
            row["mode"],
            str(row["queries"]),
            f"{row['recall@5']:.3f}",
            f"{row['recall@10']:.3f}",
            f"{row['mrr@10']:.3f}",
            f"{row['empty']:.3f}",
            f"{row['p50_ms']:.1f}",
            f"{row['p95_ms']:.1f}",
        )
    return out


def kinds_table(rows: Sequence[dict[str, Any]]) -> Any:
    """Per kind of query and mode: recall and MRR, and the share answered with no
    hits (for the ``none`` kind, questions nothing answers, the only figure)."""
    from rich.table import Table

    out = Table(title="per question kind (answered empty: no hits at default arguments)")
    columns = (
        "backend",
        "store",
        "write",
        "set",
        "kind",
        "mode",
        "queries",
        "recall@5",
        "recall@10",
        "MRR@10",
        "answered empty",
    )
    left = ("backend", "store", "write", "set", "kind", "mode")
    for column in columns:
        out.add_column(column, justify="left" if column in left else "right")
    shown = sorted(
        rows, key=lambda r: (r["backend"], r["store"], r["write"], r["set"], r["kind"] == "none")
    )
    for row in shown:
        out.add_row(
            *(row[key] for key in left),
            str(row["queries"]),
            *(
                f"{row[key]:.3f}" if key in row else "-"
                for key in ("recall@5", "recall@10", "mrr@10")
            ),
            f"{row['empty']:.3f}",
        )
    return out


def main(
    sets: Annotated[
        str,
        typer.Option(
            help="Comma-separated dev sets: own, madial, conversations, chats, agent (the "
            "coding-agent set, with its held-out project reported apart as agent-heldout) "
            "and chats-dated (the chats questions naming their evidence's date); the last "
            "two run only when named."
        ),
    ] = "own,madial,conversations,chats",
    stores: Annotated[
        str,
        typer.Option(
            help="Comma-separated: alone (each set in a store of its own), shared (every "
            "set in one store, a project per set or conversation)."
        ),
    ] = "alone,shared",
    writes: Annotated[
        str,
        typer.Option(
            help="Comma-separated write paths: many (rememberMany as callers get it), "
            "single (remember, one item at a time), import (rememberMany, dedup off)."
        ),
    ] = "many,single",
    json_out: Annotated[bool, typer.Option("--json", help="Also print JSON on stdout.")] = False,
    record: Annotated[
        bool, typer.Option("--record", help="Write the figures into docs/figures.md.")
    ] = False,
    calibrate: Annotated[
        bool,
        typer.Option(
            help="Also measure what each minRelevance keeps of the right memories and how "
            "often it answers nothing to another set's queries."
        ),
    ] = True,
    grid: Annotated[
        bool,
        typer.Option(
            help="Also run HYBRID for each fusion weight and lexical half (the grid that "
            "chose the defaults), at minRelevance 0."
        ),
    ] = False,
    feedback: Annotated[
        bool,
        typer.Option(
            help="Also run HYBRID and knowledgeContext for each feedback setting "
            "(off, the default and its neighbours, every query expanded)."
        ),
    ] = False,
    links: Annotated[
        bool,
        typer.Option(
            help="Also write each set again with each kind of ingest-time link on "
            "(previous_turn, same_entity, both) and run HYBRID, GRAPH and knowledgeContext."
        ),
    ] = False,
    query_parts: Annotated[
        bool,
        typer.Option(
            help="Also run HYBRID and knowledgeContext with a long query's last sentences "
            "off and at neighbouring settings, with question and answer exchanges off, and "
            "with the time a query names off and at neighbouring weights."
        ),
    ] = False,
    backend: BackendOption = "both",
    neo4j_uri: Neo4jUriOption = None,
    neo4j_user: Neo4jUserOption = "neo4j",
    neo4j_password: Neo4jPasswordOption = None,
    neo4j_heap: Annotated[str, typer.Option(help="Heap of the Neo4j this run starts.")] = "1g",
    embedder_name: Annotated[
        str,
        typer.Option(
            "--embedder",
            help="The model graphmem and the dense reference embed with: a "
            "GRAPHMEM_EMBEDDER value other than none.",
        ),
    ] = "minilm",
    rerank_depth: Annotated[
        int,
        typer.Option(
            "--rerank",
            min=0,
            help="Also report HYBRID with its top N reordered by the cross-encoder the "
            "bge extra ships (ms-marco-MiniLM-L-12-v2); 0: off.",
        ),
    ] = 0,
) -> None:
    """Measure every retrieval mode beside reference BM25 and dense on the dev sets."""
    from benchmarks.report import console

    out = console(stderr=True)
    names = _choices(sets, LOADERS, "--sets")
    store_names = _choices(stores, STORES, "--stores")
    write_names = _choices(writes, WRITES, "--writes")
    backends = chosen_backends(backend, neo4j_uri, out.print)
    if "madial" in names and not MADIAL_DIR.is_dir():
        out.print(f"MADial-Bench not found at {MADIAL_DIR}: skipped")
        names.remove("madial")
    embedder = embedder_named(embedder_name)
    if not isinstance(embedder, ModelEmbedder):
        raise typer.BadParameter(
            f"{embedder_name!r}: choose one of {', '.join(e for e in EMBEDDERS if e != 'none')}",
            param_hint="--embedder",
        )
    embedder.embed(["warm up"])
    report: dict[str, list[dict[str, Any]]] = {
        "quality": [],
        "calibration": [],
        "grid": [],
        "feedback": [],
        "query_parts": [],
    }
    for name in backends:
        # Each backend embeds its queries afresh: nothing the one before it
        # measured is served to it from the vector cache.
        embedder.cache.clear()
        if name == "neo4j":
            from benchmarks.neo4j_server import Neo4jTarget

            server: Server | Neo4jServer = Neo4jServer(
                Neo4jTarget(
                    neo4j_uri,
                    user=neo4j_user,
                    password=neo4j_password,
                    heap=neo4j_heap,
                    log=out.print,
                )
            )
        else:
            server = Server()
        try:
            measured = run_backend(
                server,
                names,
                embedder,
                stores=store_names,
                writes=write_names,
                links=links,
                grid=grid,
                feedback=feedback,
                query_parts=query_parts,
                calibrate=calibrate,
                log=out.print,
                rerank=Reranking(CrossEncoder(), rerank_depth) if rerank_depth else None,
            )
        finally:
            server.close()
        for key, rows in measured.items():
            report[key] += [{"backend": name, **row} for row in rows]
    # Rows per kind of query (sets that ask for them) are a table of their own.
    report["kinds"] = [row for row in report["quality"] if "kind" in row]
    report["quality"] = [row for row in report["quality"] if "kind" not in row]
    out.print(quality_table(report["quality"]))
    for line in verdicts(report["quality"]):
        out.print(line)
    if report["grid"]:
        out.print(grid_table(report["grid"]))
    if report["feedback"]:
        out.print(feedback_table(report["feedback"]))
    if report["query_parts"]:
        out.print(query_parts_table(report["query_parts"]))
    if report["kinds"]:
        out.print(kinds_table(report["kinds"]))
    if report["calibration"]:
        out.print(calibration_table(report["calibration"]))
    agreed = agreement(report["quality"])
    if agreed:
        out.print(agreement_table(agreed))
        apart = [row for row in agreed if not row["agree"]]
        out.print(
            f"FalkorDB and Neo4j agree within {AGREEMENT} on every mode"
            if not apart
            else f"FalkorDB and Neo4j DISAGREE by more than {AGREEMENT} on "
            + ", ".join(f"{row['set']} {row['mode']}" for row in apart)
        )
    against = measured_quality(report["quality"] + report["kinds"])
    if record:
        recorded.record("retrieval_eval", against)
    else:
        for line in recorded.regressions("retrieval_eval", against):
            out.print(line)
    if json_out:
        sys.stdout.write(json.dumps({**report, "agreement": agreed}, indent=2) + "\n")


RECORDED_MODES = ("FULLTEXT", "VECTOR", "HYBRID", CONTEXT)
RECORDED_METRICS = ("recall@10", "mrr@10")


def measured_quality(rows: Sequence[dict[str, Any]]) -> list[recorded.Measured]:
    """What docs/figures.md keeps of a run: recall@10 and MRR@10 of each mode
    that answers, and the share of negatives HYBRID answers empty, per backend,
    store, write path and set."""
    figures = []
    for row in rows:
        where = "/".join((row["backend"], row["store"], row["write"], row["set"]))
        if row["mode"] not in RECORDED_MODES:
            continue
        if "kind" not in row:
            figures += [
                recorded.quality(
                    f"{where}/{row['mode']}/{metric}",
                    f"{where} {row['mode']} {metric}",
                    row[metric],
                )
                for metric in RECORDED_METRICS
            ]
        elif row["kind"] == "none" and row["mode"] == "HYBRID":
            figures.append(
                recorded.quality(
                    f"{where}/HYBRID/negatives empty",
                    f"{where} HYBRID negatives answered empty",
                    row["empty"],
                )
            )
    return figures


def _choices(given: str, known: Sequence[str], option: str) -> list[str]:
    names = [s.strip() for s in given.split(",") if s.strip()]
    unknown = sorted(set(names) - set(known))
    if unknown or not names:
        raise typer.BadParameter(
            f"one or more of {', '.join(known)} (not {', '.join(unknown) or 'nothing'})",
            param_hint=option,
        )
    return names


def chosen_backends(backend: str, neo4j_uri: str | None, log: Callable[[str], None]) -> list[str]:
    """The backends ``--backend`` names, less Neo4j when ``both`` cannot start one here."""
    if backend not in (*BACKENDS, "both"):
        raise typer.BadParameter("falkordb, neo4j or both", param_hint="--backend")
    names = list(BACKENDS) if backend == "both" else [backend]
    if "neo4j" in names and neo4j_uri is None:
        from benchmarks.neo4j_server import missing_tools

        missing = missing_tools()
        if missing and backend == "both":
            log(f"Neo4j skipped: {missing}")
            names.remove("neo4j")
        elif missing:
            raise typer.BadParameter(missing, param_hint="--backend")
    return names


STORES = ("alone", "shared")
"""Where a dev set is measured: in a store of its own, or in one store with
every other set of the run (each set, or each of its conversations, a project)."""


def set_project(name: str) -> str:
    """The project a set's memories are written to (the prefix of each
    conversation's project, for the conversation sets)."""
    return f"eval-{name}"


def run_backend(
    server: Server | Neo4jServer,
    names: Sequence[str],
    embedder: ModelEmbedder,
    *,
    stores: Sequence[str],
    writes: Sequence[str],
    links: bool,
    grid: bool,
    feedback: bool,
    query_parts: bool,
    calibrate: bool,
    log: Callable[[str], None],
    rerank: Reranking | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Every dev set of ``names`` on one backend, for each write path: alone in a
    store, then all in one store; then what the options add, on the sets as the
    first write path wrote them alone."""
    rows: list[dict[str, Any]] = []
    calibrated: list[dict[str, Any]] = []
    gridded: list[dict[str, Any]] = []
    fed: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    loaded: list[tuple[GraphMem, DevSet]] = []

    def load(gm: GraphMem, name: str, how: str, **options: Any) -> DevSet:
        started = time.perf_counter()
        dev = negatives_added(LOADERS[name](gm, project=set_project(name), how=how, **options))
        log(f"  {name}: written ({how}) in {time.perf_counter() - started:.0f} s")
        return dev

    for how in writes:
        first = how == writes[0]
        if "alone" in stores:
            for name in names:
                log(f"[bold]{server.name}: {name} alone, {how}[/]")
                gm = server.graphmem(f"eval_{name}_{how}", embedder)
                dev = load(gm, name, how)
                gm.warm()  # as a server does before its first request
                rows += tagged(run_set(gm, dev, embedder, rerank), "alone", how)
                if not first:
                    continue
                if grid:
                    gridded += fusion_grid(gm, dev)
                if feedback:
                    fed += feedback_grid(gm, dev)
                if query_parts:
                    parts += query_parts_grid(gm, dev)
                loaded.append((gm, dev))
                if links:
                    for variant, kinds in LINK_VARIANTS.items():
                        linked = server.graphmem(f"eval_{name}_{variant}", embedder)
                        linked_dev = load(linked, name, how, auto_links=kinds)
                        rows += tagged(run_linked(linked, linked_dev, variant), "alone", how)
        if "shared" in stores:
            log(f"[bold]{server.name}: every set in one store, {how}[/]")
            gm = server.graphmem(f"eval_shared_{how}", embedder)
            devs = [load(gm, name, how) for name in names]
            gm.warm()
            for dev in devs:
                rows += tagged(run_set(gm, dev, embedder, rerank), "shared", how)
    if calibrate and loaded:
        log(f"[bold]{server.name}: minRelevance calibration[/]")
        # What a server that keeps one store at a time holds now.
        current = None
        for gm, dev in loaded:
            others = [q.text for _, d in loaded if d is not dev for q in d.queries]
            if not server.keeps and dev.name != current:
                # The database holds another store now: write this set again.
                gm = server.graphmem(f"eval_{dev.name}", embedder)
                dev = load(gm, dev.name, writes[0])
                gm.warm()
                current = dev.name
            calibrated += calibration(gm, dev, others)
    return {
        "quality": rows,
        "calibration": calibrated,
        "grid": gridded,
        "feedback": fed,
        "query_parts": parts,
    }


def tagged(rows: Sequence[dict[str, Any]], store: str, how: str) -> list[dict[str, Any]]:
    return [{"store": store, "write": how, **row} for row in rows]


if __name__ == "__main__":
    typer.run(main)
