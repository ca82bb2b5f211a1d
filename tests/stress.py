"""``pytest --stress N`` (``make test STRESS=N``): the suite with N processes
spinning on the CPU beside it, as on a shared build machine.

A test that reads the wall clock or races a background job passes on a quiet
machine and fails on a busy one; this makes the machine busy on purpose. The
hogs are started by the controlling process only (not by each xdist worker),
and each one exits by itself within half a second of that process ending,
however it ends, so none outlives the run.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HOG = """
import os, time
parent = os.getppid()
while os.getppid() == parent:
    until = time.monotonic() + 0.5
    while time.monotonic() < until:
        pass
"""
"""Spins until its parent is gone (it is then reparented, and its parent id changes)."""

_HOGS = pytest.StashKey[list[subprocess.Popen[bytes]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--stress",
        type=int,
        default=0,
        metavar="N",
        help="run the suite with N CPU-bound processes beside it (a busy machine)",
    )


def pytest_configure(config: pytest.Config) -> None:
    count = config.getoption("stress")
    if count and not hasattr(config, "workerinput"):
        config.stash[_HOGS] = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]


def pytest_report_header(config: pytest.Config) -> str | None:
    count = config.getoption("stress")
    return f"stress: {count} CPU-bound processes beside the suite" if count else None


def pytest_unconfigure(config: pytest.Config) -> None:
    for hog in config.stash.get(_HOGS, []):
        hog.kill()
        hog.wait()
