"""GraphML export through networkx, for graph tools (Gephi, yEd, Cytoscape,
networkx itself).

Nodes are the project's memories, keyed by memory id, with every property
but the embedding. GraphML has no list type, so lists (``tags``,
``evidence``, ...) are written as JSON text, and the graph's
``list_encoding`` attribute says so. Edges are the relations between the
project's memories (a multigraph: one pair may be joined by several types),
each keyed by its type and carrying ``type`` and the relation's properties.
A property that holds integers on some memories and floats on others is
declared a double (GraphML gives each attribute one type). Text keeps
every character XML 1.0 can hold (a carriage return is written as a
character reference, so XML readers do not turn it into a newline); the
control characters XML 1.0 cannot hold at all are written as U+FFFD.

networkx writes a whole graph at once, so unlike the JSONL formats this
export holds the project in memory (about 1 kB per memory without
embeddings); the store is still read a page at a time.
"""

from __future__ import annotations

import json
import re
from typing import IO, Any

import networkx as nx

from graphmem.services.transfer.paging import READ_PAGE, pages, project_summary, relations_of
from graphmem.services.transfer.report import Progress, TransferCounts
from graphmem.store import Store


def export_graphml(
    store: Store,
    project_id: str,
    out: IO[bytes],
    *,
    page_size: int = READ_PAGE,
    progress: Progress | None = None,
) -> TransferCounts:
    """Write the project's memories and relations to ``out`` as GraphML."""
    project_summary(store, project_id)
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph(project_id=project_id, list_encoding="json")
    counts = TransferCounts()
    for rows in pages(store, "memory_fields", project_id, page_size):
        for row in rows:
            props = row.props
            graph.add_node(
                props["id"],
                **{k: _value(v) for k, v in props.items() if v is not None and k != "id"},
            )
        relations = relations_of(store, project_id, rows)
        for relation in relations:
            graph.add_edge(
                relation.from_id,
                relation.to_id,
                key=relation.type,
                type=relation.type,
                **{k: _value(v) for k, v in relation.props.items() if v is not None},
            )
        counts.add("memory", len(rows))
        counts.add("relation", len(relations))
        if progress is not None:
            progress(len(rows))
    nx.write_graphml(graph, _CarriageReturns(out), infer_numeric_types=True)
    return counts


NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _value(value: Any) -> Any:
    if isinstance(value, list | tuple):
        value = json.dumps(list(value), ensure_ascii=False)
    if isinstance(value, str):
        return NOT_XML.sub("\ufffd", value)
    return value


class _CarriageReturns:
    """Passes the XML through, writing carriage returns as ``&#13;``.

    The writer escapes markup characters in text but leaves a carriage
    return raw, which every XML parser reads back as a newline. Markup
    itself holds none (attribute values have theirs escaped already), so
    each one in the output is text.
    """

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out

    def write(self, data: bytes) -> int:
        self._out.write(data.replace(b"\r", b"&#13;"))
        return len(data)
