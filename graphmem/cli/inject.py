"""``graphmem inject`` in the typer app, so that ``python -m graphmem inject``
works and ``graphmem --help`` lists it. The ``graphmem`` script never gets
here: it hands ``inject`` to the hook before importing this app
(graphmem/entry.py). The options are the hook's own, parsed by the hook."""

from __future__ import annotations

import os

import typer

from graphmem.cli.common import app
from graphmem.hooks.inject import main
from graphmem.settings import names


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def inject(ctx: typer.Context) -> None:
    """Print the memories that bear on a coding agent's hook event (stdin); see --help."""
    if ctx.obj is not None:
        os.environ[names.DATA_DIR] = str(ctx.obj)
    raise typer.Exit(main(list(ctx.args)))
