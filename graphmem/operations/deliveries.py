"""Operations on the record of what knowledgeContext handed out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem.domain.auth import Role
from graphmem.domain.checks import parse
from graphmem.domain.deliveries import Delivery, DeliveryFilter, DeliveryPage
from graphmem.operations import documents as doc
from graphmem.operations.codec import paged, read
from graphmem.operations.entry import operation
from graphmem.operations.requests import Call


def _filter_variables(flt: DeliveryFilter) -> dict[str, Any]:
    """The filter as GraphQL variables (times as ISO 8601)."""
    return {
        "sessionId": flt.session_id,
        "agentId": flt.agent_id,
        "memoryId": flt.memory_id,
        "since": flt.since.isoformat() if flt.since else None,
        "until": flt.until.isoformat() if flt.until else None,
        "changed": flt.changed,
    }


class DeliveryOperations:
    @operation(Role.READ)
    def deliveries(
        filter: DeliveryFilter | Mapping[str, Any] | None = None,
        *,
        first: int = 20,
        after: str | None = None,
        project_id: str | None = None,
    ) -> Call[DeliveryPage]:
        """What knowledgeContext handed out, newest first: to a session or an agent
        between two times, the deliveries that gave a memory, or (``changed``) those
        that gave memories since superseded, archived, marked for review or forgotten."""
        document = """query($filter: DeliveryFilter, $first: Int!, $after: String, $p: ID) {
          deliveries(filter: $filter, first: $first, after: $after, projectId: $p) {
            edges { node {
              id projectId at agentId sessionId hint hintSha256
              memories { rank score memoryId state memory { ...M } }
            } }
            pageInfo { hasNextPage endCursor }
          }
        }"""

        def result(data: dict[str, Any]) -> DeliveryPage:
            return paged(DeliveryPage, data["deliveries"], lambda node: read(Delivery, node))

        variables = {
            "filter": None if filter is None else _filter_variables(parse(DeliveryFilter, filter)),
            "first": first,
            "after": after,
            "p": project_id,
        }
        return Call(document + doc.MEMORY, variables, result)
