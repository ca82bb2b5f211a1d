"""Concurrent embedding calls gathered into one model call.

Sixteen requests that each embed one query at once would otherwise run the
model sixteen times side by side, fighting over the cores. Here one thread
runs the model: every call waiting when it is free joins the next batch (up
to a bounded number of texts), the batch runs once, and each caller gets its
own rows back. While calls keep coming (the last batch ended moments ago) the
batch also waits a short window for more; a call after a quiet spell runs at
once, so a lone query pays no wait. A text asked for twice in one batch is
embedded once.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

import numpy as np

DEFAULT_WINDOW_S = 0.002
"""How long the first call of a batch waits for others: small beside one model run."""

DEFAULT_MAX_TEXTS = 64
"""Most texts one gathered batch holds; a later call waits for the next batch."""

DEFAULT_BUSY_S = 0.05
"""A batch that starts within this long of the last one's end waits the window."""


class _Call:
    __slots__ = ("done", "error", "result", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.done = threading.Event()
        self.result: np.ndarray | None = None
        self.error: BaseException | None = None


class Gatherer:
    """Runs ``run`` (texts -> one row per text) on batches gathered across threads."""

    def __init__(
        self,
        run: Callable[[list[str]], np.ndarray],
        *,
        window_s: float = DEFAULT_WINDOW_S,
        max_texts: int = DEFAULT_MAX_TEXTS,
        busy_s: float = DEFAULT_BUSY_S,
    ) -> None:
        if max_texts < 1:
            raise ValueError(f"max_texts must be >= 1, got {max_texts}")
        self._run = run
        self.window_s = window_s
        self.max_texts = max_texts
        self.busy_s = busy_s
        self._last_done = -math.inf
        self._queue: deque[_Call] = deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self.batches = 0
        """Model calls made so far (for tests and metrics)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The rows for ``texts``, computed in whatever batch they joined."""
        if len(texts) > self.max_texts:
            raise ValueError(f"at most {self.max_texts} texts per gathered call, got {len(texts)}")
        call = _Call(list(texts))
        with self._ready:
            self._queue.append(call)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="graphmem-embed-gather", daemon=True
                )
                self._thread.start()
            self._ready.notify()
        call.done.wait()
        if call.error is not None:
            raise call.error
        assert call.result is not None
        return call.result

    def _loop(self) -> None:
        while True:
            batch = self._next_batch()
            self._serve(batch)

    def _next_batch(self) -> list[_Call]:
        with self._ready:
            while not self._queue:
                self._ready.wait()
            batch = [self._queue.popleft()]
            count = len(batch[0].texts)
            now = time.monotonic()
            busy = now - self._last_done <= self.busy_s
            deadline = now + (self.window_s if busy else 0.0)
            while count < self.max_texts:
                if self._queue:
                    if count + len(self._queue[0].texts) > self.max_texts:
                        break
                    call = self._queue.popleft()
                    batch.append(call)
                    count += len(call.texts)
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._ready.wait(left)
            return batch

    def _serve(self, batch: list[_Call]) -> None:
        unique = list(dict.fromkeys(text for call in batch for text in call.texts))
        try:
            rows = self._run(unique)
            self.batches += 1
        except BaseException as exc:  # every waiting caller sees the failure
            for call in batch:
                call.error = exc
                call.done.set()
            return
        finally:
            self._last_done = time.monotonic()
        position = {text: i for i, text in enumerate(unique)}
        for call in batch:
            call.result = rows[[position[text] for text in call.texts]]
            call.done.set()
