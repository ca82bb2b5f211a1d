"""The ``graphmem`` console script.

``graphmem inject`` runs on every prompt a coding agent sends, so it is
dispatched before the command line's own imports (typer, rich, the GraphQL
schema, the store), which would cost it several hundred milliseconds each
time. Every other command goes to the typer app.
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["inject"]:
        from graphmem.hooks.inject import main as inject

        raise SystemExit(inject(sys.argv[2:]))
    from graphmem.cli import app

    app(prog_name="graphmem")
