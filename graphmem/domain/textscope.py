"""The words that fence a memory's project and readers inside the full-text index.

Both backends have one full-text index for every project, and full text's
statistics (how many memories a project holds, how many hold a word) are
counted by that index. Counted store-wide, another project's memories moved a
project's ranking: a name common in one conversation is rare across a store of
many, and its IDF buried the answer (docs/retrieval.md, "Statistics per
project"); and a project's scores moved with what other tenants wrote, a
signal across the tenant boundary.

So every memory carries ``text_scope``, indexed beside its text: a word naming
its project and a word naming who may read it (everyone in the project, or the
one agent it is private to). A full-text query asks for the scope's words
together with its own (``Dialect.scoped``), so the index counts and returns
only what the caller may see of one project: the statistics, the candidates
and the scores of a project are those of its readable memories alone, and an
agent's private memories change no other agent's scores.

The words are digests, never the ids themselves: an id's punctuation and case
would be split and folded by the analysers, and two projects could then share
a word. They end in a digit, which no stemmer strips.
"""

from __future__ import annotations

import hashlib

FIELD = "text_scope"
"""The memory property the full-text index holds the scope words in."""

SHARED = "gmshared0"
"""The reader word of a memory every agent of its project sees."""


def _word(kind: str, value: str) -> str:
    return f"gm{kind}{hashlib.blake2b(value.encode(), digest_size=12).hexdigest()}0"


def project_word(project_id: str) -> str:
    return _word("p", project_id)


def agent_word(agent_id: str) -> str:
    return _word("a", agent_id)


def text_scope(project_id: str, agent_id: str | None, visibility: str | None) -> str:
    """The scope words of a memory: its project's, and its readers' (a memory
    without an agent, or not private, is shared)."""
    private = agent_id is not None and visibility == "private"
    reader = agent_word(agent_id) if agent_id is not None and private else SHARED
    return f"{project_word(project_id)} {reader}"


def readers(viewer: str | None) -> list[str]:
    """The reader words a viewer may match: the shared one and its own; none for
    a caller bound to no agent, who sees the whole project."""
    return [] if viewer is None else [SHARED, agent_word(viewer)]
