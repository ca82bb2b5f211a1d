"""In-memory stand-ins for graphmem's ports, for tests of pure decision logic
(docs/development.md, "A fake store or a real one")."""

from tests.fakes.services import basics
from tests.fakes.store import FakeEdge, FakeMemory, FakeStore, StagingRecord

__all__ = ["FakeEdge", "FakeMemory", "FakeStore", "StagingRecord", "basics"]
