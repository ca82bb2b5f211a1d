"""The ``graphmem`` command line."""

from graphmem.cli import memories, lifecycle  # noqa: I001 (command order in --help)
from graphmem.cli import retrieval
from graphmem.cli import evaluate
from graphmem.cli import transfer
from graphmem.cli.common import app

__all__ = ["app", "evaluate", "lifecycle", "memories", "retrieval", "transfer"]
