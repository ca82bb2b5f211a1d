"""graphmem: a graph-backed memory store for AI agents."""

from graphmem.api import GraphMem
from graphmem.clock import ManualClock, SystemClock
from graphmem.config import Settings
from graphmem.errors import ConflictError, GraphMemError, InvalidInputError, NotFoundError
from graphmem.models import (
    Memory,
    MemoryFilter,
    MemoryInput,
    MemoryType,
    MemoryUpdate,
    Relation,
    RelationType,
    Session,
    SessionState,
    Source,
    Status,
    Tier,
)
from graphmem.scoring import DEFAULT_PRESET, JARVIS_PRESET, ImportanceScorer

__all__ = [
    "DEFAULT_PRESET",
    "JARVIS_PRESET",
    "ConflictError",
    "GraphMem",
    "GraphMemError",
    "ImportanceScorer",
    "InvalidInputError",
    "ManualClock",
    "Memory",
    "MemoryFilter",
    "MemoryInput",
    "MemoryType",
    "MemoryUpdate",
    "NotFoundError",
    "Relation",
    "RelationType",
    "Session",
    "SessionState",
    "Settings",
    "Source",
    "Status",
    "SystemClock",
    "Tier",
]
