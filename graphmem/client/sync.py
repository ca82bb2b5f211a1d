"""``Client``: the ``GraphMem`` API of a server, over HTTP.

Agents in other processes are a memory server's main users; with this they
call the methods they would call in process, with the same arguments, and get
the same models and exceptions back, instead of writing GraphQL by hand.
Each method is an operation of the catalogue (``graphmem.operations``); this
class only sends its calls. ``AsyncClient`` (``graphmem.client.aio``) is the
same for asyncio code.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Literal, TypeVar

import httpx

from graphmem.client.answers import endpoint, headers
from graphmem.client.errors import ServerUnreachableError
from graphmem.client.transport import RetryPolicy, answer
from graphmem.operations.catalogue import Operations
from graphmem.operations.requests import Call, Request

T = TypeVar("T")


class Client(Operations):
    """A graphmem server's API with ``GraphMem``'s methods.

    ``url`` is the server (``http://127.0.0.1:8000``) or its ``/graphql``
    endpoint; ``api_key`` is sent as a bearer token. ``project_id`` is the
    project of calls that name none (``None``: the server's default). Requests
    the server refuses with 429 or 503 are sent again up to ``retry.max_retries``
    times, after the ``Retry-After`` the server asks for.
    """

    awaits: ClassVar[Literal[False]] = False

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        project_id: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        http: httpx.Client | None = None,
    ) -> None:
        self.url = endpoint(url)
        self.project_id = project_id
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._owns_http = http is None
        self._http = http or httpx.Client(timeout=timeout)
        self._headers = headers(api_key)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, request: Request[T]) -> T:
        return request.combine([self._send(call) for call in request.parts()])

    def _send(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            try:
                response = self._http.post(self.url, json=call.body(), headers=self._headers)
            except httpx.TransportError as exc:
                raise ServerUnreachableError(f"{self.url}: {exc}") from exc
            wait = self.retry.delay(response, attempt)
            if wait is None:
                return answer(call, response)
            self._sleep(wait)
            attempt += 1
