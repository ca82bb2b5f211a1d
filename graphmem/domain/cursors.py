"""Opaque page cursors: what a listing hands back to be continued from.

Pure encoding, no I/O. A cursor the API did not return is rejected with an
error naming ``after``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math

from graphmem.domain.errors import InvalidInputError
from graphmem.domain.models import Memory


def encode_offset(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def decode_offset(cursor: str) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
        if type(offset) is int and 0 <= offset < 2**63:
            return offset
    except (ValueError, TypeError, KeyError, binascii.Error):
        pass
    raise InvalidInputError("after: not a cursor this API returned", field="after")


def encode_cursor(memory: Memory) -> str:
    raw = json.dumps([memory.created_at, memory.id]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        created_at, memory_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        finite = type(created_at) in (int, float) and math.isfinite(created_at)
        if finite and isinstance(memory_id, str) and memory_id.isprintable():
            return float(created_at), memory_id
    except (ValueError, TypeError, binascii.Error):
        pass
    raise InvalidInputError("after: not a cursor this API returned", field="after")
