"""A remote graphmem server with the in-process API: ``Client`` and ``AsyncClient``.

Both have ``GraphMem``'s methods, arguments, models and exceptions
(tests/integration/test_client.py holds them to it), sent as GraphQL over
HTTP with ``httpx``.
"""

from graphmem.client.aio import AsyncClient
from graphmem.client.errors import ServerError, ServerUnreachableError
from graphmem.client.sync import Client
from graphmem.client.transport import RetryPolicy

__all__ = ["AsyncClient", "Client", "RetryPolicy", "ServerError", "ServerUnreachableError"]
