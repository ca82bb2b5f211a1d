"""Every name graphmem's statements use, registered in a FalkorDB graph by one
write that its append-only file records.

FalkorDB adds a label, relationship type or property key to a graph's schema
when a statement naming it is compiled, even if the statement then changes
nothing. A write that changes nothing is not written to the append-only file,
and the writes that follow are logged by schema position (effects), so on the
next start the positions replay shifted: values land under other property
keys, or the server crashes reading them. (On a fresh store, restoring an
archived memory before any review mark existed was enough: the no-op mark
clearing named ``review_change`` and ``:NeedsReview`` first.) Registering every
name up front, in one write that does change the graph (a node made and
deleted), means no later statement names anything new.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from graphmem.store.statements import Statements

_PROPERTY = re.compile(r"(?<![\w$])[A-Za-z_]\w*\s*\.\s*([a-z_][a-z0-9_]*)\b|[{,]\s*\.([a-z_]\w*)")
"""``m.name`` and a map projection's ``.name``."""
_KEY = re.compile(r"[{,]\s*([a-z_][a-z0-9_]*)\s*:(?!:)")
"""A map literal's keys (``CREATE (e:Event {kind: ...})``)."""
_LABEL = re.compile(r":\s*([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b")
"""``:Memory``: a capitalised name with a lower-case letter."""
_TYPE = re.compile(r"\[\s*\w*\s*:\s*([A-Z][A-Z0-9_|]*)\s*[\]*{]")
"""``-[r:ENABLES|CONSTRAINS]->``: relationship types, upper case."""
_COMMENT = re.compile(r"//[^\n]*")


def names(texts: Iterable[str]) -> tuple[set[str], set[str], set[str]]:
    """The labels, relationship types and property keys ``texts`` name."""
    labels: set[str] = set()
    types: set[str] = set()
    keys: set[str] = set()
    for raw in texts:
        text = _COMMENT.sub("", raw)
        keys |= {a or b for a, b in _PROPERTY.findall(text)}
        keys |= set(_KEY.findall(text))
        labels |= set(_LABEL.findall(text))
        for found in _TYPE.findall(text):
            types |= set(found.split("|"))
    return labels, types - {""}, keys


def registration(statements: Statements) -> str:
    """One write naming every label, type and key of ``statements``: two nodes
    and an edge of each type, made and deleted at once (no parameters, no user
    text: the names are graphmem's own identifiers)."""
    labels, types, keys = names(statements[name] for name in sorted(statements.names()))
    label_part = "".join(f":{label}" for label in sorted(labels))
    props = ", ".join(f"{key}: 0" for key in sorted(keys))
    edges = "".join(f" CREATE (a)-[:{t}]->(b)" for t in sorted(types))
    # The labels go on a node without properties, so no index takes it in.
    return f"CREATE (a{label_part}) CREATE (b {{{props}}}){edges} DETACH DELETE a, b"
