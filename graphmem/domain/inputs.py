"""A call's arguments made into the input it is validated as, by ``GraphMem``
and by the remote client alike.

The client validates before it sends, with the very code ``GraphMem`` runs, so
a bad value fails with the same error and message whichever one was called;
this module therefore imports models only, never the writer or a service.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from graphmem.domain.checks import MAX_BATCH_SIZE, M
from graphmem.domain.errors import InvalidInputError, invalid_input
from graphmem.domain.models import MemoryInput

_batch = TypeAdapter(list[MemoryInput])


def validate_batch(items: Sequence[MemoryInput | Mapping[str, Any]]) -> list[MemoryInput]:
    """The whole batch validated at once: one bad item rejects it, naming ``items[i]``."""
    if len(items) > MAX_BATCH_SIZE:
        raise InvalidInputError(
            f"items: at most {MAX_BATCH_SIZE} memories per batch, got {len(items)}",
            field="items",
        )
    try:
        # One validator call for the whole batch: per-item calls cost as much
        # as the database write.
        return _batch.validate_python(items)
    except ValidationError as exc:

        def locate(loc: tuple[Any, ...]) -> str:
            if not loc:
                return "items"
            index, *rest = loc
            name = ".".join(str(part) for part in rest)
            if len(items) == 1:
                return name
            return f"items[{index}].{name}" if name else f"items[{index}]"

        raise invalid_input(exc, locate=locate) from None


def retrieval_request(
    model: type[M], first: str, value: Any, options: Mapping[str, Any]
) -> M | Mapping[str, Any]:
    """The request a retrieval call was given: whole, or as its first field plus
    keyword options (validated once, by the service)."""
    if isinstance(value, model | Mapping):
        if options:
            raise TypeError(f"pass a whole {model.__name__} or keyword options, not both")
        return value
    return {first: value, **options}
