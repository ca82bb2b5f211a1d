"""The listening socket every server of graphmem binds (serve, mcp over HTTP,
the tests' servers)."""

from __future__ import annotations

import socket
import time
from typing import Any

import httpx

from graphmem.server import serving
from graphmem.server.serving import bind


def test_the_socket_says_tcp_so_asyncio_turns_nagle_off() -> None:
    """asyncio sets TCP_NODELAY only on a socket whose protocol is TCP; one made
    as socket(AF_INET, SOCK_STREAM) says 0, and each response then waited for
    the client's delayed ACK (40 ms on Linux) before its body left: the keyless
    probe of tests/security went from 11 s to over 150 s."""
    listener = bind("127.0.0.1", 0)
    try:
        assert listener.proto == socket.IPPROTO_TCP
        listener.listen(1)
        with socket.create_connection(listener.getsockname()):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.proto == socket.IPPROTO_TCP
    finally:
        listener.close()


async def _ok(scope: dict, receive: Any, send: Any) -> None:
    """An ASGI app answering every request with an empty 200."""
    if scope["type"] != "http":
        return
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"0")]}
    )
    await send({"type": "http.response.body", "body": b""})


def _answer(sock: socket.socket) -> bytes:
    """One response's status line and headers, or b"" when the server closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return data
        data += chunk
    return data


def test_an_idle_connection_outlives_the_clients_own_idle_expiry() -> None:
    """httpx (graphmem's client) keeps an idle connection 5 s, uvicorn's default
    too: a request sent on one just as the server closed it failed (ReadError,
    a few in a thousand under 64 clients). The server keeps it longer, so a
    connection idle past the client's expiry still answers."""
    expiry = httpx.Limits().keepalive_expiry
    assert expiry is not None and expiry < serving.KEEP_ALIVE_SECONDS
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with serving.in_thread(_ok) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(request)
            assert _answer(sock).startswith(b"HTTP/1.1 200")
            time.sleep(expiry + 1)
            sock.sendall(request)
            assert _answer(sock).startswith(b"HTTP/1.1 200")
