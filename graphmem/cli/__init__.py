"""The ``graphmem`` command line."""

from graphmem.cli import memories, lifecycle  # noqa: I001 (command order in --help)
from graphmem.cli.common import app

__all__ = ["app", "lifecycle", "memories"]
