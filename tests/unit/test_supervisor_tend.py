"""The supervisor tends a living server between deaths, and a failing upkeep
does not end its watch."""

from __future__ import annotations

import os
import threading

from graphmem.store.supervisor import State, Supervisor


class LivingServer:
    """A server that never dies (this process) and counts its tendings; the
    first one fails."""

    def __init__(self) -> None:
        self.tended = 0
        self.twice = threading.Event()

    def pid(self) -> int:
        return os.getpid()

    def restart(self) -> None:
        raise AssertionError("a living server is not restarted")

    def last_words(self) -> str:
        return ""

    def tend(self) -> None:
        self.tended += 1
        if self.tended >= 2:
            self.twice.set()
        if self.tended == 1:
            raise RuntimeError("upkeep failed")


def test_a_living_server_is_tended_again_after_a_failed_upkeep():
    server = LivingServer()
    supervisor = Supervisor(server, name="test", tend_every=0.01).start()
    try:
        assert server.twice.wait(30), "tended again after the first upkeep raised"
        assert supervisor.state is State.SERVING
    finally:
        supervisor.stop()
    assert supervisor.state is State.STOPPED
