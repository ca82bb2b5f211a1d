"""``AsyncClient``: ``Client`` for asyncio code, each method a coroutine.

The operations (documents, validation, decoding) are ``Client``'s own; only the
sending differs, on ``httpx.AsyncClient``, so an event loop is never blocked
on the network or on a retry's wait.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Literal, TypeVar

import httpx

from graphmem.client.answers import endpoint, headers
from graphmem.client.errors import ServerUnreachableError
from graphmem.client.transport import RetryPolicy, answer
from graphmem.operations.catalogue import Operations
from graphmem.operations.requests import Call, Request

T = TypeVar("T")


class AsyncClient(Operations):
    """A graphmem server's API with ``GraphMem``'s methods, awaited.

    ``url`` is the server (``http://127.0.0.1:8000``) or its ``/graphql``
    endpoint; ``api_key`` is sent as a bearer token. ``project_id`` is the
    project of calls that name none (``None``: the server's default). Requests
    the server refuses with 429 or 503 are sent again up to ``retry.max_retries``
    times, after the ``Retry-After`` the server asks for.
    """

    awaits: ClassVar[Literal[True]] = True

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        project_id: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = endpoint(url)
        self.project_id = project_id
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._owns_http = http is None
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._headers = headers(api_key)

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _run(self, request: Request[T]) -> T:
        answers: list[Any] = [await self._send(call) for call in request.parts()]
        return request.combine(answers)

    async def _send(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            try:
                response = await self._http.post(self.url, json=call.body(), headers=self._headers)
            except httpx.TransportError as exc:
                raise ServerUnreachableError(f"{self.url}: {exc}") from exc
            wait = self.retry.delay(response, attempt)
            if wait is None:
                return answer(call, response)
            await self._sleep(wait)
            attempt += 1
