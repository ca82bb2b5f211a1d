"""Which ``graphmem serve`` serves a data directory, and where it listens.

One store per data directory's server: a second server there on another store
would split the CLI, its server-first commands acting on one store and those
that open the store on another. A server claims the directory before it binds
its port or opens its store, by taking an exclusive ``flock`` on
``serve.lock`` there and writing its entry (pid, URL, backend, store) into it,
and holds the lock for its whole life; the kernel drops the lock of a process
that dies, so a server killed with SIGKILL leaves nothing that keeps the next
one out. A second server finds the lock taken and reads the holder's entry:
one on another store (another backend, database, graph or address) is
refused, naming the holder; one on the same store serves beside it (several
servers on one database, docs/scaling.md) without taking the directory's
address.

Once ready the holder says where it listens in ``serve.json``: the same
entry. Every command that asks a server first (the CLI's server-first
commands and the prompt hook) finds it there, so a server on any port is
found the same way by all of them. Only the server of the command's own data
directory is trusted: one listening on the usual port may serve another
store. A ``serve.json`` counts only while its process lives and the lock is
held: one left by a server that died, garbled or unreadable is ignored (the
caller reads the store itself), and the next server to claim the directory
replaces it. A server removes ``serve.json`` as it stops only if the entry is
its own.

Kept to the standard library and platformdirs: the prompt hook imports it on
every prompt, and reading the settings model would cost it ~0.3 s.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from platformdirs import user_data_dir

from graphmem.settings import names

if TYPE_CHECKING:
    from graphmem.settings import Settings

ADDRESS_FILE = "serve.json"
LOCK_FILE = "serve.lock"
"""Never removed: a lock file unlinked while another process waits on it would
let two servers each hold a lock, on two files of one name."""

CLAIM_SECONDS = 5.0
"""How long a starting server tries for the lock and its holder's name. The lock
is held only for an instant by a command checking that a server lives, and the
holder's entry is written an instant after it locks; a server that truly holds
it is named well within this."""


@dataclass(frozen=True)
class Entry:
    """What a server says of itself in its data directory."""

    pid: int
    url: str
    backend: str | None = None
    """``falkordb`` or ``neo4j``; ``None`` in an entry that does not say."""
    store: str | None = None
    """The store it serves in words (``store_of``); ``None`` in an entry that does not say."""

    def named(self) -> str:
        """The server in one phrase: pid, URL, backend and store."""
        store = f"{self.backend}: {self.store}" if self.store else self.backend or "backend unknown"
        return f"pid {self.pid} at {self.url} ({store})"


class DirectoryServedError(Exception):
    """Another server holds the data directory, on another store (or on one it
    does not name)."""

    def __init__(self, directory: Path, holder: Entry | None) -> None:
        self.directory = directory
        self.holder = holder
        who = holder.named() if holder else "a process that does not say which"
        super().__init__(f"{directory} is already served by graphmem serve {who}")


def data_dir() -> Path:
    """The data directory the settings name (``GRAPHMEM_DATA_DIR``, else the
    platform's), read without the settings model."""
    configured = os.environ.get(names.DATA_DIR)
    return Path(configured) if configured else Path(user_data_dir("graphmem"))


def address_file(directory: Path) -> Path:
    return Path(directory) / ADDRESS_FILE


def lock_file(directory: Path) -> Path:
    return Path(directory) / LOCK_FILE


def store_of(settings: Settings) -> str:
    """The store ``settings`` open, in words that tell two stores apart: the same
    text from the server and from a command means they act on one store.
    Credentials in a URL are left out."""
    if settings.store.backend == "neo4j":
        database = settings.neo4j.database or "the user's home database"
        return f"Neo4j at {_without_credentials(settings.neo4j.uri or '')}, database {database}"
    if settings.store.falkordb_url:
        url = _without_credentials(settings.store.falkordb_url)
        return f"FalkorDB at {url}, graph {settings.store.graph}"
    place = Path(settings.store.data_dir).expanduser().resolve()
    return f"embedded FalkorDB in {place}, graph {settings.store.graph}"


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def url_for(host: str, port: int) -> str:
    """The GraphQL URL a client of this machine reaches a server bound to ``host`` at."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}/graphql"


class Claim:
    """A data directory held by this process, from ``claimed``; or, when
    ``beside`` names the server holding it on the same store, served beside it."""

    def __init__(
        self, directory: Path, lock: IO[str], entry: Entry, beside: Entry | None = None
    ) -> None:
        self.directory = directory
        self._lock = lock
        self.entry = entry
        self.beside = beside

    @contextlib.contextmanager
    def advertised(self, host: str, port: int) -> Iterator[None]:
        """While serving: say in the data directory where this process listens
        (``port``: the one bound, which a port 0 in the settings leaves to the
        system), in ``serve.json`` and in the lock file a newcomer reads. A
        server beside the holder says nothing: the address stays the holder's.
        ``serve.json`` is removed on the way out only if the entry is still ours."""
        self.entry = replace(self.entry, url=url_for(host, port))
        if self.beside is not None:
            yield
            return
        _write(self._lock, self.entry)
        path = address_file(self.directory)
        staged = path.with_name(f".{ADDRESS_FILE}.{self.entry.pid}")
        staged.write_text(json.dumps(asdict(self.entry)))
        os.replace(staged, path)  # a reader sees the whole entry or none
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                if _read(path) == self.entry:
                    path.unlink()


@contextlib.contextmanager
def claimed(directory: Path, host: str, port: int, *, backend: str, store: str) -> Iterator[Claim]:
    """The data directory held by this process for the block, or served beside
    the server holding it when that one serves ``store`` too; raises
    ``DirectoryServedError`` naming the holder when it serves another store.

    Any ``serve.json`` found once the lock is taken was left by a server that
    died: it is removed, so no command sends to it while this one starts."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    entry = Entry(os.getpid(), url_for(host, port), backend, store)
    lock = lock_file(directory).open("a+")
    try:
        holder = _take(directory, lock, store)
        if holder is None:
            _write(lock, entry)
            with contextlib.suppress(FileNotFoundError):
                address_file(directory).unlink()
        yield Claim(directory, lock, entry, beside=holder)
    finally:
        lock.close()  # and with it the lock


def _take(directory: Path, lock: IO[str], store: str) -> Entry | None:
    """Lock ``lock`` (``None``), or the live server holding it when it serves
    ``store`` too; raises ``DirectoryServedError`` once a holder on another store
    is named (or ``CLAIM_SECONDS`` have passed without a name)."""
    deadline = time.monotonic() + CLAIM_SECONDS
    tries = 0
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return None
        except BlockingIOError:
            tries += 1
            holder = _read(lock_file(directory))
            # Held at two tries apart: a server, not a command's passing probe.
            if tries > 1 and holder is not None and _alive(holder.pid):
                if holder.store == store:
                    return holder
                raise DirectoryServedError(directory, holder) from None
            if time.monotonic() >= deadline:
                raise DirectoryServedError(directory, holder) from None
        time.sleep(0.05)


def _write(lock: IO[str], entry: Entry) -> None:
    lock.seek(0)
    lock.truncate()
    lock.write(json.dumps(asdict(entry)))
    lock.flush()


def _read(path: Path) -> Entry | None:
    """The entry in ``path``; ``None`` when it is missing, unreadable or garbled."""
    try:
        found = json.loads(path.read_text())
        return Entry(
            pid=int(found["pid"]),
            url=str(found["url"]),
            backend=str(found["backend"]) if found.get("backend") else None,
            store=str(found["store"]) if found.get("store") else None,
        )
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except PermissionError:  # alive, owned by someone else
        pass
    return True


def _held(directory: Path) -> bool:
    """Whether a server holds the directory's lock. The probe's shared lock lasts
    an instant; a server starting meanwhile tries again (``CLAIM_SECONDS``)."""
    try:
        probe = lock_file(directory).open("rb")
    except OSError:
        return False
    with probe:
        try:
            fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(probe, fcntl.LOCK_UN)
        return False


def served(directory: Path) -> Entry | None:
    """The entry of the live server of this data directory, if one says it serves it."""
    entry = _read(address_file(directory))
    if entry is None or not _alive(entry.pid) or not _held(directory):
        return None
    return entry


def server_url(directory: Path) -> str | None:
    """The GraphQL URL of the live server of this data directory, if one says it serves it."""
    entry = served(directory)
    return entry.url if entry else None
