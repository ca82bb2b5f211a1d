"""The two ways a hook call can end without context."""

from __future__ import annotations


class HookError(Exception):
    """Something to tell the user in one line: the hook then adds nothing."""


class ServerUnavailable(Exception):
    """No server listens at the URL: the hook may read the store instead."""
