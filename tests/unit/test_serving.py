"""The listening socket every server of graphmem binds (serve, mcp over HTTP,
the tests' servers)."""

from __future__ import annotations

import socket

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
