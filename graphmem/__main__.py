"""``python -m graphmem``: the same command as the ``graphmem`` script."""

from graphmem.cli import app

app(prog_name="graphmem")
