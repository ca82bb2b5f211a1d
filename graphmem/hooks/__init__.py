"""``graphmem inject``: memories for a coding agent's hooks.

An agent runs the hook on every prompt and before tools, so everything on
its path stays light: no submodule imports the store, the services or the
embedding model unless the server cannot be reached and the hook falls back
to reading the store itself (``fallback``).
"""
