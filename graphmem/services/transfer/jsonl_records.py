"""One line of a graphmem JSONL export, checked and made ready to write.

Each kind has a ``prepare`` that validates the record against its model
(strictly, as JSON: a string where a number belongs is an error, not
converted), moves it into the target project, and returns the row the import
statement takes with the key that finds the record again. Nothing here
touches the store.
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from graphmem.domain.analysis import indexed_fields
from graphmem.domain.capsules import FailureCapsule
from graphmem.domain.clock import SHOWN_RANGE, showable
from graphmem.domain.errors import InvalidInputError, invalid_input
from graphmem.domain.kinds import RelationType
from graphmem.domain.models import TIME_FIELDS, Memory
from graphmem.domain.relations import Relation
from graphmem.domain.sessions import Session
from graphmem.services.embeddings import DIMENSION
from graphmem.services.transfer.jsonl import LINKS
from graphmem.services.transfer.lines import optional_id, properties, text_id

RELATION_TYPES = frozenset(t.value for t in RelationType)
"""The relations between memories import writes (import_relations has a branch for
each: a relationship type cannot be a Cypher parameter)."""

Prepare = Callable[[Mapping[str, Any], str, str], tuple[dict[str, Any], Any]]
"""(record, source project, target project) -> (row to write, key of the record)."""


def _strict(model: type[BaseModel], props: Mapping[str, Any]) -> None:
    """Check ``props`` against a model without changing them: strict, as JSON, so a
    string where a number belongs is an error rather than quietly converted."""
    try:
        model.model_validate_json(json.dumps(props), strict=True)
    except ValidationError as exc:
        raise invalid_input(exc, locate=lambda loc: ".".join(["props", *map(str, loc)])) from None


def key(kind: str, row: Mapping[str, Any]) -> Any:
    """What finds a created record again: its id, or a relation's type and ends."""
    if kind == "relation":
        return (row["type"], row["from_id"], row["to_id"])
    return row["props"]["id"]


def _prepare_project(
    record: Mapping[str, Any], source: str, target: str
) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["id"] = target
    return {"props": props}, "project"


def _prepare_session(
    record: Mapping[str, Any], source: str, target: str
) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["project_id"] = target
    _strict(Session, props)
    in_project = optional_id(record.get("in_project"), "in_project")
    # Linked to the project only where it was linked to the exported one.
    return {"props": props, "linked": in_project == source}, props["id"]


def _prepare_memory(
    record: Mapping[str, Any], source: str, target: str
) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["project_id"] = target
    props.pop("embedding", None)
    _strict(Memory, props)
    _showable_times(props)
    # The scope words are the target project's, and the length the text's, whatever
    # the file says.
    props.update(
        indexed_fields(
            target,
            props.get("agent_id"),
            props.get("visibility"),
            props.get("content"),
            props.get("rationale"),
        )
    )
    return {
        "props": props,
        "embedding": _embedding(record.get("embedding")),
        "in_session": optional_id(record.get("in_session"), "in_session"),
    }, props["id"]


def _showable_times(props: Mapping[str, Any]) -> None:
    """A memory's times must be ones every surface can show, as a write's must:
    an imported row is read like any other."""
    for name in TIME_FIELDS:
        value = props.get(name)
        if value is not None and not showable(value):
            raise InvalidInputError(
                f"props.{name}: must be a time from {SHOWN_RANGE} (epoch seconds), got {value!r}",
                field=f"props.{name}",
            )


def _embedding(value: Any) -> array | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != DIMENSION:
        raise InvalidInputError(
            f"embedding: must be null or a list of {DIMENSION} numbers", field="embedding"
        )
    try:
        vector = array("f", value)
    except TypeError:
        raise InvalidInputError("embedding: must hold numbers only", field="embedding") from None
    if not all(map(math.isfinite, vector)):
        raise InvalidInputError("embedding: must hold finite numbers", field="embedding")
    return vector


def _prepare_relation(
    record: Mapping[str, Any], source: str, target: str
) -> tuple[dict[str, Any], tuple[str, str, str]]:
    kind = record.get("type")
    if kind not in RELATION_TYPES:
        raise InvalidInputError(
            f"type: {kind!r} is not one of {', '.join(sorted(RELATION_TYPES))}", field="type"
        )
    from_id = text_id(record.get("from_id"), "from_id")
    to_id = text_id(record.get("to_id"), "to_id")
    props = properties(record.get("props"), "props")
    try:
        Relation.model_validate_json(
            json.dumps({**props, "type": kind, "from_id": from_id, "to_id": to_id}), strict=True
        )
    except ValidationError as exc:
        raise invalid_input(exc, locate=lambda loc: ".".join(["props", *map(str, loc)])) from None
    return {"type": kind, "from_id": from_id, "to_id": to_id, "props": props}, (
        kind, from_id, to_id
    )  # fmt: skip


def _prepare_event(kind: str) -> Prepare:
    link = LINKS[kind]

    def prepare(record: Mapping[str, Any], source: str, target: str) -> tuple[dict[str, Any], str]:
        props = properties(record.get("props"), "props")
        props["project_id"] = target
        text_id(props.get("id"), "props.id")
        if kind != "promotion_run":
            # Events are found again by the memory they concern (an indexed property).
            text_id(props.get("memory_id"), "props.memory_id")
        return {"props": props, link: optional_id(record.get(link), link)}, props["id"]

    return prepare


def _prepare_capsule(
    record: Mapping[str, Any], source: str, target: str
) -> tuple[dict[str, Any], str]:
    props = properties(record.get("props"), "props")
    props["project_id"] = target
    _strict(FailureCapsule, props)
    links = {}
    for name in ("for_sessions", "in_context"):
        value = record.get(name)
        if not isinstance(value, list):
            raise InvalidInputError(f"{name}: must be a list of ids", field=name)
        links[name] = [text_id(item, name) for item in value]
    taught = optional_id(record.get("taught"), "taught")
    return {"props": props, **links, "taught": taught}, props["id"]


def _prepare_delivery(
    record: Mapping[str, Any], source: str, target: str
) -> tuple[dict[str, Any], str]:
    """A delivery's props, held to the shape the record reads back: an id, the
    hint's digest, and as many scores as memory ids."""
    props = properties(record.get("props"), "props")
    props["project_id"] = target
    text_id(props.get("id"), "props.id")
    if not isinstance(props.get("hint_sha256"), str):
        raise InvalidInputError("props.hint_sha256: must be a string", field="props.hint_sha256")
    ids, scores = props.get("memory_ids", []), props.get("scores", [])
    if not isinstance(ids, list) or not isinstance(scores, list) or len(ids) != len(scores):
        raise InvalidInputError(
            "props.memory_ids: must be a list as long as props.scores", field="props.memory_ids"
        )
    props["memory_ids"] = [text_id(item, "props.memory_ids") for item in ids]
    return {"props": props}, props["id"]


PREPARE: dict[str, Prepare] = {
    "project": _prepare_project,
    "session": _prepare_session,
    "memory": _prepare_memory,
    "relation": _prepare_relation,
    "promotion_run": _prepare_event("promotion_run"),
    "promotion_event": _prepare_event("promotion_event"),
    "staging_event": _prepare_event("staging_event"),
    "archival_event": _prepare_event("archival_event"),
    "failure_capsule": _prepare_capsule,
    "delivery": _prepare_delivery,
}
