"""The ``DateTime`` scalar: ISO 8601 text or epoch seconds, as every other
surface takes a time (``graphmem.domain.checks.epoch_seconds``).

Strawberry's own ``DateTime`` takes text only and words a bad value as its
parser's failure (``invalid literal for int() with base 10: b'yest'``); worse,
it raises a ``GraphQLError`` without a location, so a bad literal in a document
could not be traced to its argument. This parser raises ``BadValueError`` instead:
graphql-core then attaches the value's node (a literal) or its path (a
variable), and ``graphmem.graphql.errors`` reports ``INVALID_INPUT`` naming the
argument.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import strawberry
from strawberry.types.scalar import ScalarDefinition

from graphmem.domain.checks import epoch_seconds
from graphmem.domain.clock import SHOWN_RANGE
from graphmem.graphql.errors import BadValueError

FORMAT = "ISO 8601 (2025-01-31T09:30:00Z, or 2025-01-31, no zone meaning UTC) or epoch seconds"
SHOWN_CHARS = 64
"""How much of a refused value the error repeats."""


def _shown(value: Any) -> str:
    """The value as the client wrote it in JSON or GraphQL (``"yesterday"``, ``true``)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def parse_datetime(value: Any) -> datetime:
    """A time from ISO 8601 text or epoch seconds (or milliseconds, as the other
    surfaces read a number above 10^11), within the times every surface can show."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise BadValueError(f"{_shown(value)} is not a time, expected {FORMAT}")
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise BadValueError(f"{_shown(value)} is not a time, expected {FORMAT}") from None
    else:
        moment = None
    try:
        seconds = epoch_seconds(value if moment is None else moment)
    except ValueError:
        raise BadValueError(
            f"{_shown(value)} is out of range: a time runs from {SHOWN_RANGE}"
        ) from None
    return moment if moment is not None else datetime.fromtimestamp(seconds, tz=UTC)


DateTime: ScalarDefinition = strawberry.scalar(
    name="DateTime",
    description=f"A time: {FORMAT}, from {SHOWN_RANGE}. Answers give ISO 8601 with the zone (UTC).",
    serialize=datetime.isoformat,
    parse_value=parse_datetime,
)
