"""Where the running ``graphmem serve`` of a data directory listens.

A server says where it listens in ``serve.json`` in its data directory,
written once it is ready and removed when it stops; every command that asks
a server first (the CLI's server-first commands and the prompt hook) finds
it here, so a server on any port is found the same way by all of them. Only
the server of the command's own data directory is trusted: one listening on
the usual port may serve another store. A file left by a server that died
names a process that is gone (ignored here), or an address that refuses the
connection (the caller then reads the store itself).

Kept to the standard library and platformdirs: the prompt hook imports it on
every prompt, and reading the settings model would cost it ~0.3 s.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from platformdirs import user_data_dir

ADDRESS_FILE = "serve.json"


def data_dir() -> Path:
    """The data directory the settings name (``GRAPHMEM_DATA_DIR``, else the
    platform's), read without the settings model."""
    configured = os.environ.get("GRAPHMEM_DATA_DIR")
    return Path(configured) if configured else Path(user_data_dir("graphmem"))


def address_file(directory: Path) -> Path:
    return Path(directory) / ADDRESS_FILE


@contextlib.contextmanager
def advertised(directory: Path, host: str, port: int) -> Iterator[None]:
    """While serving: say in the data directory where this process listens."""
    path = address_file(directory)
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    host = f"[{host}]" if ":" in host else host
    url = f"http://{host}:{port}/graphql"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": os.getpid(), "url": url}))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            current = json.loads(path.read_text())
            if current.get("pid") == os.getpid():
                path.unlink()


def server_url(directory: Path) -> str | None:
    """The GraphQL URL of the live server of this data directory, if one says it serves it."""
    try:
        found = json.loads(address_file(directory).read_text())
        pid, url = int(found["pid"]), str(found["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return None
    except PermissionError:  # alive, owned by someone else
        pass
    return url
