"""The ``graphmem`` command line."""

from graphmem.cli import memories, lifecycle  # noqa: I001 (command order in --help)
from graphmem.cli import retrieval
from graphmem.cli import failures
from graphmem.cli import consolidate
from graphmem.cli import inject
from graphmem.cli import evaluate
from graphmem.cli import transfer
from graphmem.cli import keys
from graphmem.cli import projects
from graphmem.cli import sharing
from graphmem.cli import whatif
from graphmem.cli import mcp  # noqa: F401 (registers its command)
from graphmem.cli.common import app

__all__ = [
    "app",
    "consolidate",
    "evaluate",
    "failures",
    "inject",
    "keys",
    "lifecycle",
    "memories",
    "projects",
    "retrieval",
    "sharing",
    "transfer",
    "whatif",
]
